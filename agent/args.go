package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nodbot/nod"
)

// args is a tool call's decoded argument object.
type args struct {
	tool nod.Tool
	m    map[string]json.RawMessage
	// zone is the chat's, in which local times such as a reminder's are
	// read; nil reads them in UTC.
	zone *time.Location
}

// decodeArgs parses a tool call's argument string, recovering the forms
// small models produce when that is unambiguous: a code fence around the
// JSON, or the object encoded once more as a JSON string. Anything else is
// an error that names the tool but never echoes the arguments.
func decodeArgs(tool nod.Tool, raw string) (args, error) {
	s := stripFence(strings.TrimSpace(raw))
	if s == "" {
		return args{tool: tool, m: map[string]json.RawMessage{}}, nil
	}
	for range 2 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err == nil && m != nil {
			return args{tool: tool, m: m}, nil
		}
		var inner string
		if err := json.Unmarshal([]byte(s), &inner); err != nil {
			break
		}
		s = stripFence(strings.TrimSpace(inner))
	}
	return args{}, fmt.Errorf("%s: the arguments are not a JSON object; send them as a JSON object matching the tool's schema: %w", tool, nod.ErrInvalid)
}

// stripFence removes a Markdown code fence (```json … ```) around s.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "```"), "```")
	if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.ContainsAny(s[:i], "{[\"") {
		s = s[i+1:] // the fence's language tag
	}
	return strings.TrimSpace(s)
}

func (a args) errorf(field, format string, v ...any) error {
	return fmt.Errorf("%s: field %q %s: %w", a.tool, field, fmt.Sprintf(format, v...), nod.ErrInvalid)
}

func (a args) present(name string) bool {
	v, ok := a.m[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// maxBytes returns a tool error naming field name when s is longer than
// max bytes, else nil. Nothing is cut: the model is told and can call
// again.
func (a args) maxBytes(name, s string, max int) error {
	if len(s) > max {
		return a.errorf(name, "is longer than %d bytes", max)
	}
	return nil
}

// maxChars returns a tool error naming field name when s holds more than
// max characters, else nil.
func (a args) maxChars(name, s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return a.errorf(name, "is %d characters long, more than the %d allowed", n, max)
	}
	return nil
}

// reason reads an optional reason, trimmed, of at most nod.MaxReasonLen
// characters.
func (a args) reason() (string, error) {
	r, _, err := a.str("reason", false)
	if err != nil {
		return "", err
	}
	r = strings.TrimSpace(r)
	return r, a.maxChars("reason", r, nod.MaxReasonLen)
}

// labels reads a set of labels, normalised (nod.NormalizeLabels): at most
// nod.MaxLabels of at most nod.MaxLabelLen characters each.
func (a args) labels(name string, required bool) ([]string, bool, error) {
	ls, ok, err := a.strings(name, required)
	if err != nil || !ok {
		return nil, ok, err
	}
	ls = nod.NormalizeLabels(ls)
	if len(ls) > nod.MaxLabels {
		return nil, false, a.errorf(name, "holds more than %d labels", nod.MaxLabels)
	}
	for _, l := range ls {
		if n := utf8.RuneCountInString(l); n > nod.MaxLabelLen {
			return nil, false, a.errorf(name, "holds a label of %d characters, more than the %d allowed", n, nod.MaxLabelLen)
		}
	}
	return ls, true, nil
}

// str returns a string field; required fields must be present and
// non-blank.
func (a args) str(name string, required bool) (string, bool, error) {
	if !a.present(name) {
		if required {
			return "", false, a.errorf(name, "is required")
		}
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(a.m[name], &s); err != nil {
		return "", false, a.errorf(name, "must be a string")
	}
	s = nod.CleanText(s)
	if required && strings.TrimSpace(s) == "" {
		return "", false, a.errorf(name, "must not be empty")
	}
	return s, true, nil
}

// integer returns an integer field, accepting a numeric string too.
func (a args) integer(name string, required bool) (int, bool, error) {
	if !a.present(name) {
		if required {
			return 0, false, a.errorf(name, "is required")
		}
		return 0, false, nil
	}
	raw := a.m[name]
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(strings.TrimSpace(s))
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != float64(int(f)) {
		return 0, false, a.errorf(name, "must be a whole number")
	}
	return int(f), true, nil
}

func (a args) boolean(name string) (bool, bool, error) {
	if !a.present(name) {
		return false, false, nil
	}
	var b bool
	if err := json.Unmarshal(a.m[name], &b); err != nil {
		var s string
		if json.Unmarshal(a.m[name], &s) == nil && (s == "true" || s == "false") {
			return s == "true", true, nil
		}
		return false, false, a.errorf(name, "must be true or false")
	}
	return b, true, nil
}

// array returns the raw elements of an array field, recovering an array
// that arrives JSON-encoded as a string.
func (a args) array(name string, required bool) ([]json.RawMessage, bool, error) {
	if !a.present(name) {
		if required {
			return nil, false, a.errorf(name, "is required")
		}
		return nil, false, nil
	}
	raw := a.m[name]
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(stripFence(strings.TrimSpace(s)))
	}
	var els []json.RawMessage
	if err := json.Unmarshal(raw, &els); err != nil {
		return nil, false, a.errorf(name, "must be a JSON array")
	}
	return els, true, nil
}

func (a args) strings(name string, required bool) ([]string, bool, error) {
	els, ok, err := a.array(name, required)
	if err != nil || !ok {
		return nil, ok, err
	}
	out := make([]string, 0, len(els))
	for _, e := range els {
		var s string
		if err := json.Unmarshal(e, &s); err != nil {
			return nil, false, a.errorf(name, "must be an array of strings")
		}
		out = append(out, nod.CleanText(s))
	}
	return out, true, nil
}

func (a args) status(name string) (nod.Status, error) {
	s, _, err := a.str(name, true)
	if err != nil {
		return "", err
	}
	st, err := nod.ParseStatus(s)
	if err != nil {
		return "", a.errorf(name, "must be one of OPEN, GROOMED, IN_PROGRESS, BLOCKED, ON_HOLD, DONE, REJECTED")
	}
	return st, nil
}

func (a args) priority(name string, required bool) (nod.Priority, bool, error) {
	s, ok, err := a.str(name, required)
	if err != nil || !ok {
		return "", ok, err
	}
	p, err := nod.ParsePriority(s)
	if err != nil {
		return "", false, a.errorf(name, "must be one of P0, P1, P2, P3")
	}
	return p, true, nil
}

func (a args) date(name string) (string, bool, error) {
	s, ok, err := a.str(name, false)
	if err != nil || !ok {
		return "", ok, err
	}
	d, err := nod.ParseDate(s)
	if err != nil {
		return "", false, a.errorf(name, "must be a date as YYYY-MM-DD, or null")
	}
	return d, true, nil
}

// element decodes one element of an array field as an object.
func element(tool nod.Tool, raw json.RawMessage) (args, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return args{}, false
	}
	return args{tool: tool, m: m}, true
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps and structs of plain values are marshalled here
	}
	return b
}
