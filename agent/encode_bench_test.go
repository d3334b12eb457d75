package agent

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
	"github.com/nodbot/nod"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// conversation is a short turn with history, as the benchmark and the
// test encode it.
func conversation() (string, []nod.ChatMessage) {
	system := rules + strings.Repeat("\n- T1 \"Fix login bug\" OPEN P2 <b>&</b>", 10)
	return system, []nod.ChatMessage{
		{Role: nod.RoleUser, Content: "what's on my list?"},
		{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "c1", Name: "list_tasks", Arguments: "{}"}}},
		{Role: nod.RoleTool, ToolCallID: "c1", Content: `{"tasks":[]}`},
		{Role: nod.RoleAssistant, Content: "You have no tasks yet."},
		{Role: nod.RoleEvent, Content: "The user undid a change."},
		{Role: nod.RoleUser, Content: ""},
		{Role: nod.RoleAssistant, Content: "Adding it.", ToolCalls: []nod.ToolCall{{ID: "c2", Name: "create_task", Arguments: `{"title":"x"}`}}},
	}
}

// BenchmarkRequestEncoding encodes one agent request: as the agent does,
// with the tool schemas encoded once, and, for comparison, through
// openai-go's parameter types with the schemas built each time.
func BenchmarkRequestEncoding(b *testing.B) {
	system, msgs := conversation()
	b.Run("own encoding, tools encoded once", func(b *testing.B) {
		tools := encodeTools()
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			requestBody(&buf, "m", system, tools, msgs[:3], msgs[3:])
		}
	})
	b.Run("own encoding, history's stored encodings spliced", func(b *testing.B) {
		tools := encodeTools()
		history := slices.Clone(msgs[:3])
		encodeWire(history)
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			requestBody(&buf, "m", system, tools, history, msgs[3:])
		}
	})
	b.Run("openai-go params, tools each time", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := openai.ChatCompletionNewParams{Model: shared.ChatModel("m"), Messages: toParams(system, msgs), Tools: toolParams()}
			if _, err := p.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The request the agent writes itself says what openai-go would have
// written from the same messages and tools.
func TestRequestBodyMatchesOpenAIGo(t *testing.T) {
	t.Parallel()
	system, msgs := conversation()
	want, err := openai.ChatCompletionNewParams{Model: shared.ChatModel("m"), Messages: toParams(system, msgs), Tools: toolParams()}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got := requestBody(new(bytes.Buffer), "m", system, encodeTools(), msgs[:3], msgs[3:])
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("request body (-openai-go +own):\n%s", diff)
	}
}

// A request splices each message's stored encoding in as it is, and is
// byte for byte the request the agent wrote before it kept encodings:
// with none stored (rows saved before), with all of them, and with a line
// replaced since it was stored.
func TestRequestBodySplicesStoredEncodings(t *testing.T) {
	t.Parallel()
	system, msgs := conversation()
	msgs = append(msgs,
		nod.ChatMessage{Role: nod.RoleUser, Content: "make it <b>P1</b> & \"soon\"", MsgID: 9, Speaker: "Ann (1)", ReplyTo: "nod's message “x”"},
		nod.ChatMessage{Role: nod.RoleUser, Content: "caf\xe9 at 5", Forwarded: "Bob (2), 2026-11-24 09:00"},
		nod.ChatMessage{Role: nod.RoleUser, Content: "P2 then", MsgID: 9, EditOf: 9, Edits: "make it P1"},
		nod.ChatMessage{Role: "unknown", Content: "never sent"})
	nod.MarkReplaced(msgs)
	tools := encodeTools()
	want := requestBodyWhole("m", system, tools, msgs)
	if got := requestBody(new(bytes.Buffer), "m", system, tools, msgs[:4], msgs[4:]); !bytes.Equal(got, want) {
		t.Errorf("nothing stored:\n got %s\nwant %s", got, want)
	}
	stored := slices.Clone(msgs)
	encodeWire(stored)
	for i, m := range stored {
		none := m.Role == "unknown" || m.ToolCallID == "c1" // a read's result: later turns leave it out
		if (len(m.Wire) == 0) != none {
			t.Errorf("message %d (%s) stored %q", i, m.Role, m.Wire)
		}
		if m.Replaced {
			stored[i].Wire = []byte(`{"role":"user","content":"stale"}`) // must not be spliced
		}
	}
	if !stored[7].Replaced {
		t.Fatal("the edited line is not marked replaced")
	}
	if got := requestBody(new(bytes.Buffer), "m", system, tools, stored[:2], stored[2:]); !bytes.Equal(got, want) {
		t.Errorf("all stored:\n got %s\nwant %s", got, want)
	}
	for i := range stored {
		if i%3 == 1 {
			stored[i].Wire = nil // some rows stored before
		}
	}
	if got := requestBody(new(bytes.Buffer), "m", system, tools, stored[:5], stored[5:]); !bytes.Equal(got, want) {
		t.Errorf("some stored:\n got %s\nwant %s", got, want)
	}
}

// requestBodyWhole is the request as the agent wrote it before messages
// kept their encodings: every message encoded, the list at once.
func requestBodyWhole(model, system string, tools json.RawMessage, msgs []nod.ChatMessage) []byte {
	wire := []wireMessage{{Role: "system", Content: &system}}
	for i := range msgs {
		if w, ok := toWire(&msgs[i]); ok {
			wire = append(wire, w)
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"model":`)
	jsonv2.MarshalWrite(&b, model, wireOptions)
	b.WriteString(`,"messages":`)
	jsonv2.MarshalWrite(&b, wire, wireOptions)
	b.WriteString(`,"tools":`)
	b.Write(tools)
	b.WriteByte('}')
	return b.Bytes()
}

// toolParams builds the tool parameters from the schema maps, as every
// request did before they were encoded once.
func toolParams() []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(registry))
	for _, t := range registry {
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: string(t.Name), Description: openai.String(t.Description), Parameters: shared.FunctionParameters(t.Params),
		}))
	}
	return out
}

// toParams builds the request messages with openai-go's parameter types,
// as the agent did before it wrote requests itself: the reference its
// encoding must agree with.
func toParams(system string, msgs []nod.ChatMessage) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs)+1)
	out = append(out, openai.SystemMessage(system))
	for _, m := range msgs {
		switch m.Role {
		case nod.RoleUser:
			out = append(out, openai.UserMessage(m.Content))
		case nod.RoleTool:
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case nod.RoleEvent:
			out = append(out, openai.SystemMessage(m.Content))
		case nod.RoleAssistant:
			p := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				p.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				p.ToolCalls = append(p.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &p})
		}
	}
	return out
}

// A fresh buffer is grown once, to about the request's size: grown by
// doubling as it is written, it took about twice the bytes every call the
// pool had none for.
func TestRequestBodyGrowsOnce(t *testing.T) {
	t.Parallel()
	system, msgs := conversation()
	history := slices.Clone(msgs[:3])
	encodeWire(history)
	tools := encodeTools()
	for _, parts := range [][][]nod.ChatMessage{{msgs[:3], msgs[3:]}, {history, msgs[3:]}} {
		var buf bytes.Buffer
		body := requestBody(&buf, "m", system, tools, parts...)
		if want := bodySize("m", system, tools, parts); len(body) > want || want > 2*len(body) {
			t.Errorf("the request takes %d bytes, its buffer was sized %d", len(body), want)
		}
	}
}
