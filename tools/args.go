package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nodbot/nod"
)

// Args is a tool call's decoded argument object.
type Args struct {
	Tool nod.Tool
	m    map[string]json.RawMessage
	// Zone is the chat's, in which local times such as a reminder's are
	// read; nil reads them in UTC.
	Zone *time.Location
	// Now is when the call is read: a repeating reminder set before it
	// starts at its first occurrence at or after it. Zero: as given (a
	// stored change, rebuilt).
	Now time.Time
}

// Decode parses a tool call's argument string, recovering the forms
// small models produce when that is unambiguous: a code fence around the
// JSON, or the object encoded once more as a JSON string. Anything else is
// an error that names the tool but never echoes the arguments.
func Decode(tool nod.Tool, raw string) (Args, error) {
	s := stripFence(strings.TrimSpace(raw))
	if s == "" {
		return Args{Tool: tool, m: map[string]json.RawMessage{}}, nil
	}
	for range 2 {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err == nil && m != nil {
			return Args{Tool: tool, m: m}, nil
		}
		var inner string
		if err := json.Unmarshal([]byte(s), &inner); err != nil {
			break
		}
		s = stripFence(strings.TrimSpace(inner))
	}
	return Args{}, fmt.Errorf("%s: the arguments are not a JSON object; send them as a JSON object matching the tool's schema: %w", tool, nod.ErrInvalid)
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

// Errorf is a tool error naming field: what the model is told to call
// again right. It wraps nod.ErrInvalid.
func (a Args) Errorf(field, format string, v ...any) error {
	return fmt.Errorf("%s: field %q %s: %w", a.Tool, field, fmt.Sprintf(format, v...), nod.ErrInvalid)
}

// Present reports whether field name is given and not null.
func (a Args) Present(name string) bool {
	v, ok := a.m[name]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// maxBytes returns a tool error naming field name when s is longer than
// max bytes, else nil. Nothing is cut: the model is told and can call
// again.
func (a Args) maxBytes(name, s string, max int) error {
	if len(s) > max {
		return a.Errorf(name, "is longer than %d bytes", max)
	}
	return nil
}

// maxChars returns a tool error naming field name when s holds more than
// max characters, else nil.
func (a Args) maxChars(name, s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return a.Errorf(name, "is %d characters long, more than the %d allowed", n, max)
	}
	return nil
}

// Reason reads an optional reason, trimmed, of at most nod.MaxReasonLen
// characters.
func (a Args) Reason() (string, error) {
	r, _, err := a.Str("reason", false)
	if err != nil {
		return "", err
	}
	r = strings.TrimSpace(r)
	return r, a.maxChars("reason", r, nod.MaxReasonLen)
}

// labels reads a set of labels, normalised (nod.NormalizeLabels): at most
// nod.MaxLabels of at most nod.MaxLabelLen characters each.
func (a Args) labels(name string, required bool) ([]string, bool, error) {
	ls, ok, err := a.strings(name, required)
	if err != nil || !ok {
		return nil, ok, err
	}
	ls = nod.NormalizeLabels(ls)
	if len(ls) > nod.MaxLabels {
		return nil, false, a.Errorf(name, "holds more than %d labels", nod.MaxLabels)
	}
	for _, l := range ls {
		if n := utf8.RuneCountInString(l); n > nod.MaxLabelLen {
			return nil, false, a.Errorf(name, "holds a label of %d characters, more than the %d allowed", n, nod.MaxLabelLen)
		}
	}
	return ls, true, nil
}

// Str returns a string field, cleaned (nod.CleanText); a required field
// must be present and non-blank.
func (a Args) Str(name string, required bool) (string, bool, error) {
	if !a.Present(name) {
		if required {
			return "", false, a.Errorf(name, "is required")
		}
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(a.m[name], &s); err != nil {
		return "", false, a.Errorf(name, "must be a string")
	}
	s = nod.CleanText(s)
	if required && strings.TrimSpace(s) == "" {
		return "", false, a.Errorf(name, "must not be empty")
	}
	return s, true, nil
}

// Integer returns an integer field, accepting a numeric string too.
func (a Args) Integer(name string, required bool) (int, bool, error) {
	if !a.Present(name) {
		if required {
			return 0, false, a.Errorf(name, "is required")
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
		return 0, false, a.Errorf(name, "must be a whole number")
	}
	return int(f), true, nil
}

func (a Args) boolean(name string) (bool, bool, error) {
	if !a.Present(name) {
		return false, false, nil
	}
	var b bool
	if err := json.Unmarshal(a.m[name], &b); err != nil {
		var s string
		if json.Unmarshal(a.m[name], &s) == nil && (s == "true" || s == "false") {
			return s == "true", true, nil
		}
		return false, false, a.Errorf(name, "must be true or false")
	}
	return b, true, nil
}

// Array returns the raw elements of an array field, recovering an array
// that arrives JSON-encoded as a string.
func (a Args) Array(name string, required bool) ([]json.RawMessage, bool, error) {
	if !a.Present(name) {
		if required {
			return nil, false, a.Errorf(name, "is required")
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
		return nil, false, a.Errorf(name, "must be a JSON array")
	}
	return els, true, nil
}

func (a Args) strings(name string, required bool) ([]string, bool, error) {
	els, ok, err := a.Array(name, required)
	if err != nil || !ok {
		return nil, ok, err
	}
	out := make([]string, 0, len(els))
	for _, e := range els {
		var s string
		if err := json.Unmarshal(e, &s); err != nil {
			return nil, false, a.Errorf(name, "must be an array of strings")
		}
		out = append(out, nod.CleanText(s))
	}
	return out, true, nil
}

// Status reads a required status (nod.ParseStatus).
func (a Args) Status(name string) (nod.Status, error) {
	s, _, err := a.Str(name, true)
	if err != nil {
		return "", err
	}
	st, err := nod.ParseStatus(s)
	if err != nil {
		return "", a.Errorf(name, "must be one of OPEN, GROOMED, IN_PROGRESS, BLOCKED, ON_HOLD, DONE, REJECTED")
	}
	return st, nil
}

func (a Args) priority(name string, required bool) (nod.Priority, bool, error) {
	s, ok, err := a.Str(name, required)
	if err != nil || !ok {
		return "", ok, err
	}
	p, err := nod.ParsePriority(s)
	if err != nil {
		return "", false, a.Errorf(name, "must be one of P0, P1, P2, P3")
	}
	return p, true, nil
}

func (a Args) date(name string) (string, bool, error) {
	s, ok, err := a.Str(name, false)
	if err != nil || !ok {
		return "", ok, err
	}
	d, err := nod.ParseDate(s)
	if err != nil {
		return "", false, a.Errorf(name, "must be a date as YYYY-MM-DD, or null")
	}
	return d, true, nil
}

// element decodes one element of an array field as an object.
func element(tool nod.Tool, raw json.RawMessage) (Args, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Args{}, false
	}
	return Args{Tool: tool, m: m}, true
}

// Raw returns field name as it was sent; false if it is absent.
func (a Args) Raw(name string) (json.RawMessage, bool) {
	v, ok := a.m[name]
	return v, ok
}

// JSON is the decoded arguments as JSON, for the audit log.
func (a Args) JSON() json.RawMessage {
	if a.m == nil {
		return json.RawMessage("{}")
	}
	return MustJSON(a.m)
}

// MustJSON encodes a value nod builds from plain values: tool arguments
// and tool results. Such values always encode; it panics if one does not.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps and structs of plain values are marshalled here
	}
	return b
}
