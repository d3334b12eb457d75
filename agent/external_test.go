package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// nod's summary of a call names the service and the tool and every
// argument, in name order, long values cut to 80 characters.
func TestExternalSummary(t *testing.T) {
	long := strings.Repeat("x", 120)
	got := externalSummary("mcp__notebook__add_note", json.RawMessage(`{"text":"`+long+`","pin":true,"tags":["a","b"]}`))
	want := `notebook › add_note: pin = true, tags = ["a","b"], text = "` + strings.Repeat("x", 79) + `…"`
	if got != want {
		t.Errorf("summary = %q\nwant      %q", got, want)
	}
	if got := externalSummary("mcp__notebook__list_notes", json.RawMessage(`{}`)); got != "notebook › list_notes" {
		t.Errorf("summary without arguments = %q", got)
	}
}

// What the agent is told of a result stays within 64 KB, marked
// truncated when cut; an error without a result says it may have run.
func TestResultForIsBounded(t *testing.T) {
	big := strings.Repeat("é<>&\n", 40<<10) // escapes make it longer still
	out := resultFor(nod.ExternalCall{Tool: "mcp__x__y", Result: nod.ExternalResult{Text: big, Structured: json.RawMessage(`{"k":1}`)}})
	var r resultJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(out) > maxExternalResult || !r.Truncated || r.Structured != nil || !strings.HasPrefix(r.Result, "é<>&") {
		t.Errorf("%d bytes, truncated %v", len(out), r.Truncated)
	}
	small := resultFor(nod.ExternalCall{Tool: "mcp__x__y", Result: nod.ExternalResult{Text: "no", IsError: true, Structured: json.RawMessage(`{"k":1}`)}})
	if small != `{"result":"no","structured_content":{"k":1},"is_error":true}` {
		t.Errorf("small result = %s", small)
	}
	if got := resultFor(nod.ExternalCall{Tool: "mcp__x__y", Err: "connection reset"}); !strings.Contains(got, "may or may not have run") || !strings.HasPrefix(got, `{"error"`) {
		t.Errorf("lost result = %s", got)
	}
}

// An external result from an earlier turn keeps only its start.
func TestPastExternalResultsCut(t *testing.T) {
	h := []nod.ChatMessage{
		{Role: nod.RoleUser, Content: "dump"},
		{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "a", Name: "mcp__x__dump"}, {ID: "b", Name: "mcp__x__small"}}},
		{Role: nod.RoleTool, ToolCallID: "a", Content: strings.Repeat("z", 10000)},
		{Role: nod.RoleTool, ToolCallID: "b", Content: "short"},
	}
	out := pastReads(h)
	if len(out[2].Content) > maxPastExternal+len(pastExternalNote) || !strings.HasSuffix(out[2].Content, pastExternalNote) || out[3].Content != "short" {
		t.Errorf("past results: %d bytes, %q", len(out[2].Content), out[3].Content)
	}
	if len(h[2].Content) != 10000 {
		t.Errorf("pastReads changed its input")
	}
}
