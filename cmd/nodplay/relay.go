package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// The relay hands every chat completion request nod makes to whoever plays
// the model (a person, a second agent, a script) through files in a
// folder, and answers with what they write back:
//
//	0003-agent.request.txt   the request, readable: messages in order,
//	                         tool calls and results marked with their ids
//	0003-agent.request.json  the request as nod sent it
//	0003-agent.reply.json    written by the player (to a temporary name,
//	                         then renamed): {"content": "…"} and/or
//	                         {"tool_calls": [{"name": …, "arguments": {…}}]};
//	                         {"content": ""} is a model that had nothing to add
//	0003-agent.reply.error.txt  why a reply was refused; write it again
//	0003-agent.timeout.txt   nod stopped waiting (its step timeout)
const (
	relayAgentModel      = "relay-agent"
	relayClassifierModel = "relay-classifier"
	replyPoll            = 50 * time.Millisecond
)

// relay answers nod's model requests from reply files in dir.
type relay struct {
	dir     string
	log     *slog.Logger
	changed func() // the view shows what the relay waits for

	mu      sync.Mutex
	seq     int
	waiting map[int]string // request number → its request file
}

func newRelay(dir string, log *slog.Logger, changed func()) (*relay, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("relay folder: %w", err)
	}
	// A folder holds one play: a second run would number its requests
	// from 1 again over the first's, and replay its commands.txt.
	if old, _ := filepath.Glob(filepath.Join(dir, "*.request.txt")); len(old) > 0 {
		return nil, fmt.Errorf("relay folder %s already holds a play (%s and %d more): give each play a folder of its own", dir, filepath.Base(old[0]), len(old)-1)
	}
	return &relay{dir: dir, log: log, changed: changed, waiting: map[int]string{}}, nil
}

// Waiting says which requests wait for a reply, for the page.
func (r *relay) Waiting() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.waiting) == 0 {
		return ""
	}
	var files []string
	for _, f := range r.waiting {
		files = append(files, filepath.Base(f))
	}
	return "waiting for the model: " + strings.Join(files, ", ")
}

// reply is what a player writes back.
type reply struct {
	Content   *string `json:"content"` // "" is a model's empty answer, absent is a slip
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
}

// answer writes req out and waits for its reply, or for nod to give up.
func (r *relay) answer(req openaitest.Request) openaitest.Response {
	r.mu.Lock()
	r.seq++
	n := r.seq
	r.mu.Unlock()
	role := "agent"
	if req.Model == relayClassifierModel {
		role = "classifier"
	}
	base := filepath.Join(r.dir, fmt.Sprintf("%04d-%s", n, role))
	var indented bytes.Buffer
	if json.Indent(&indented, req.Raw, "", "  ") != nil {
		indented.Write(req.Raw)
	}
	err := errors.Join(writeAtomic(base+".request.json", indented.Bytes()),
		writeAtomic(base+".request.txt", []byte(readable(n, role, req, base+".reply.json"))))
	if err != nil {
		r.log.Error("relay: write request", "err", err)
		return openaitest.Response{Status: 500, Body: `{"error":{"message":"the relay could not write the request","type":"server_error"}}`}
	}
	r.mu.Lock()
	r.waiting[n] = base + ".request.txt"
	r.mu.Unlock()
	r.changed()
	defer func() {
		r.mu.Lock()
		delete(r.waiting, n)
		r.mu.Unlock()
		r.changed()
	}()
	tick := time.NewTicker(replyPoll)
	defer tick.Stop()
	for rejected := 0; ; {
		select {
		case <-req.Context.Done():
			os.WriteFile(base+".timeout.txt", []byte("nod stopped waiting for this reply (its step or classifier timeout), as with a model that does not answer\n"), 0o644)
			return openaitest.Response{Status: 504}
		case <-tick.C:
		}
		raw, err := os.ReadFile(base + ".reply.json")
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		resp, err := parseReply(raw, n, err)
		if err == nil {
			os.Remove(base + ".reply.error.txt")
			return resp
		}
		// Refused: say why beside it, and wait for the next one.
		rejected++
		os.Rename(base+".reply.json", fmt.Sprintf("%s.reply.rejected-%d.json", base, rejected))
		os.WriteFile(base+".reply.error.txt", []byte(err.Error()+"\nWrite the reply again (to a temporary name, then rename it).\n"), 0o644)
	}
}

// parseReply turns a reply file into the fake's answer.
func parseReply(raw []byte, n int, readErr error) (openaitest.Response, error) {
	if readErr != nil {
		return openaitest.Response{}, readErr
	}
	var rep reply
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return openaitest.Response{}, fmt.Errorf("the reply is not the JSON object wanted: %w", err)
	}
	if rep.Content == nil && len(rep.ToolCalls) == 0 {
		return openaitest.Response{}, errors.New(`the reply has neither "content" nor "tool_calls"`)
	}
	resp := openaitest.Response{}
	if rep.Content != nil {
		resp.Text = *rep.Content
	}
	for i, c := range rep.ToolCalls {
		if c.Name == "" {
			return openaitest.Response{}, fmt.Errorf("tool call %d has no name", i)
		}
		args := string(c.Arguments)
		var s string
		if json.Unmarshal(c.Arguments, &s) == nil {
			args = s // a string is sent as it is, malformed or not
		}
		if args == "" {
			args = "{}"
		}
		resp.ToolCalls = append(resp.ToolCalls, openaitest.ToolCall{ID: fmt.Sprintf("call_%d_%d", n, i+1), Name: c.Name, Arguments: args})
	}
	return resp, nil
}

// readable renders a request as a player reads it.
func readable(n int, role string, req openaitest.Request, replyFile string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "request %d · %s · model %s\n", n, role, req.Model)
	if len(req.Tools) > 0 {
		fmt.Fprintf(&b, "tools: %s (their arguments at the end)\n", strings.Join(req.Tools, ", "))
	}
	if len(req.ResponseFormat) > 0 {
		fmt.Fprintf(&b, "response format: %s\n", req.ResponseFormat)
	}
	fmt.Fprintf(&b, "reply: write %s as {\"content\": \"…\"} and/or {\"tool_calls\": [{\"name\": \"…\", \"arguments\": {…}}]}\n", filepath.Base(replyFile))
	for _, m := range req.Messages {
		b.WriteString("\n=== " + m.Role)
		if m.ToolCallID != "" {
			b.WriteString(" · result of " + m.ToolCallID)
		}
		b.WriteString(" ===\n")
		if m.Content != "" {
			b.WriteString(strings.TrimRight(m.Content, "\n") + "\n")
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "→ tool call %s: %s %s\n", c.ID, c.Name, c.Arguments)
		}
	}
	if sigs := toolSignatures(req.Raw); len(sigs) > 0 {
		b.WriteString("\n=== tools ===\n" + strings.Join(sigs, "\n") + "\n")
	}
	return b.String()
}

// toolSignatures lists the request's tools as name(argument: shape, …; ?
// marks the optional ones): description, so that whoever plays the model
// sees what each argument holds, as a model reads it from the schema.
func toolSignatures(raw []byte) []string {
	var wire struct {
		Tools []struct {
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Parameters  schema `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if json.Unmarshal(raw, &wire) != nil {
		return nil
	}
	var out []string
	for _, t := range wire.Tools {
		f := t.Function
		fields := f.Parameters.fields()
		out = append(out, fmt.Sprintf("- %s(%s): %s", f.Name, fields, strings.Join(strings.Fields(f.Description), " ")))
		for _, name := range slices.Sorted(maps.Keys(f.Parameters.Properties)) {
			if d := f.Parameters.Properties[name].Description; d != "" {
				out = append(out, fmt.Sprintf("    %s: %s", name, d))
			}
		}
	}
	return out
}

// schema is the part of a JSON schema that a tool's arguments use.
type schema struct {
	Type        json.RawMessage   `json:"type"` // "string" or ["string", "null"]
	Enum        []any             `json:"enum"`
	Items       *schema           `json:"items"`
	Properties  map[string]schema `json:"properties"`
	Required    []string          `json:"required"`
	Description string            `json:"description"`
}

// shape writes a schema the way a signature reads: string, "A"|"B",
// [shape], {name: shape, other?: shape}, with |null where null is allowed.
func (s schema) shape() string {
	var types []string
	if json.Unmarshal(s.Type, &types) != nil {
		var one string
		_ = json.Unmarshal(s.Type, &one)
		types = []string{one}
	}
	for i, t := range types {
		switch {
		case len(s.Enum) > 0 && t != "null":
			var vals []string
			for _, v := range s.Enum {
				b, _ := json.Marshal(v)
				vals = append(vals, string(b))
			}
			types[i] = strings.Join(vals, "|")
		case t == "array" && s.Items != nil:
			types[i] = "[" + s.Items.shape() + "]"
		case t == "object" && len(s.Properties) > 0:
			types[i] = "{" + s.fields() + "}"
		case t == "":
			types[i] = "any"
		}
	}
	return strings.Join(types, "|")
}

// fields lists an object's properties, sorted, as name: shape (name?: for
// an optional one).
func (s schema) fields() string {
	names := slices.Sorted(maps.Keys(s.Properties))
	args := make([]string, 0, len(names))
	for _, name := range names {
		label := name
		if !slices.Contains(s.Required, name) {
			label += "?"
		}
		args = append(args, label+": "+s.Properties[name].shape())
	}
	return strings.Join(args, ", ")
}

// writeAtomic writes a file that readers see whole or not at all.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
