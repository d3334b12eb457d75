package mcpclient

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nodbot/nod"
)

// Every row of docs/design.md §15's risk rule, with and without
// trust_annotations.
func TestRisk(t *testing.T) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	additive := &mcp.ToolAnnotations{DestructiveHint: new(false)}
	destructive := &mcp.ToolAnnotations{DestructiveHint: new(true)}
	plain := &mcp.ToolAnnotations{} // hints left out: the MCP defaults
	for _, tc := range []struct {
		name        string
		entry       map[string]nod.Risk
		annotations *mcp.ToolAnnotations
		plain       nod.Risk // without trust_annotations
		trusted     nod.Risk // with it
	}{
		{"entry says read", map[string]nod.Risk{"t": nod.ReadOnly}, destructive, nod.ReadOnly, nod.ReadOnly},
		{"entry says mutate", map[string]nod.Risk{"t": nod.Mutating}, readOnly, nod.Mutating, nod.Mutating},
		{"entry says destroy", map[string]nod.Risk{"t": nod.Destructive}, readOnly, nod.Destructive, nod.Destructive},
		{"entry names another tool", map[string]nod.Risk{"other": nod.ReadOnly}, nil, nod.Destructive, nod.Destructive},
		{"readOnlyHint", nil, readOnly, nod.Mutating, nod.ReadOnly},
		{"readOnlyHint with destructiveHint true", nil, &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(true)}, nod.Mutating, nod.ReadOnly},
		{"destructiveHint false", nil, additive, nod.Mutating, nod.Mutating},
		{"destructiveHint true", nil, destructive, nod.Destructive, nod.Destructive},
		{"annotations without hints", nil, plain, nod.Destructive, nod.Destructive},
		{"no annotations", nil, nil, nod.Destructive, nod.Destructive},
	} {
		tool := &mcp.Tool{Name: "t", Annotations: tc.annotations}
		if got := risk(Server{Tools: tc.entry}, tool); got != tc.plain {
			t.Errorf("%s: risk = %v, want %v", tc.name, got, tc.plain)
		}
		if got := risk(Server{Tools: tc.entry, TrustAnnotations: true}, tool); got != tc.trusted {
			t.Errorf("%s, trusted: risk = %v, want %v", tc.name, got, tc.trusted)
		}
	}
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct {
		server, tool string
		ok           bool
	}{
		{"files", "read_file", true},
		{"files", "read-file", true},
		{"files", "read.file", false},
		{"files", "lies ahead", false},
		{"files", "", true}, // mcp__files__ still matches; the SDK drops nameless tools
		{"files", strings.Repeat("x", 64-len("mcp__files__")), true},
		{"files", strings.Repeat("x", 65-len("mcp__files__")), false},
	} {
		name, ok := toolName(tc.server, tc.tool)
		if ok != tc.ok || string(name) != "mcp__"+tc.server+"__"+tc.tool {
			t.Errorf("toolName(%q, %q) = %q, %v; want ok %v", tc.server, tc.tool, name, ok, tc.ok)
		}
	}
}

func TestCleanSchema(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"missing", nil, `{"properties":{},"type":"object"}`},
		{"not an object", "string", `{"properties":{},"type":"object"}`},
		{"empty object", map[string]any{}, `{"properties":{},"type":"object"}`},
		{"ids dropped, the rest kept",
			map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:x", "type": "object",
				"properties": map[string]any{"path": map[string]any{"type": "string", "description": "where", "$id": "urn:y"},
					"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "$schema": "x"}}},
				"required": []any{"path"}, "additionalProperties": false},
			`{"additionalProperties":false,"properties":{"path":{"description":"where","type":"string"},"tags":{"items":{"type":"string"},"type":"array"}},"required":["path"],"type":"object"}`},
		{"a union at the top made an object",
			map[string]any{"anyOf": []any{map[string]any{"type": "object"}}, "type": []any{"object", "null"}},
			`{"properties":{},"type":"object"}`},
		{"required not a list", map[string]any{"type": "object", "properties": map[string]any{}, "required": true},
			`{"properties":{},"type":"object"}`},
	} {
		if got := string(cleanSchema(tc.in)); got != tc.want {
			t.Errorf("%s: cleanSchema = %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestResultKinds(t *testing.T) {
	r := result(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "first"},
		&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 12<<10)},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 300)},
		&mcp.ResourceLink{URI: "file:///srv/notes/a.md", Name: "a.md"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///srv/notes/b.md", MIMEType: "text/markdown", Text: "hello"}},
		&mcp.TextContent{Text: "last"},
	}})
	want := "first\n[image image/png, 12 KB]\n[audio audio/wav, 300 B]\n[resource link file:///srv/notes/a.md]\n[resource file:///srv/notes/b.md text/markdown, 5 B]\nlast"
	if r.Text != want || r.Truncated || r.IsError || r.Structured != nil {
		t.Errorf("result = %+v\nwant text %q", r, want)
	}
	// A cut never splits a character.
	r = result(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("ü", MaxResult)}}})
	if !r.Truncated || len(r.Text) > MaxResult || len(r.Text) < MaxResult-1 || !strings.HasSuffix(r.Text, "ü") {
		t.Errorf("cut: truncated %v, %d bytes, ends %q", r.Truncated, len(r.Text), r.Text[len(r.Text)-3:])
	}
	// Structured content too large to fit whole is left out, not cut.
	big := map[string]any{"x": strings.Repeat("y", MaxResult)}
	r = result(&mcp.CallToolResult{StructuredContent: big, Content: []mcp.Content{&mcp.TextContent{Text: "short"}}})
	if !r.Truncated || r.Structured != nil || r.Text != "short" {
		t.Errorf("large structured: %+v", r)
	}
}
