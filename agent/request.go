package agent

import (
	"bytes"
	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// The agent writes its chat completion requests itself, in the wire format
// of the Chat Completions API, and hands openai-go the bytes: its
// reflective encoder of parameter unions cost a third of a turn's own CPU,
// most of it the same tool schemas every time. It reads the answer's bytes
// too, into the few fields it uses: openai-go's decoder of the whole
// response type was a tenth of what a turn allocates. openai-go still
// sends, retries and reports errors.

// wireOptions encode and decode as encoding/json did: text that is not
// valid UTF-8 goes through with U+FFFD in its place. "<" stays itself,
// not \u003c: the same text in fewer tokens.
var wireOptions = jsontext.AllowInvalidUTF8(true)

// wireMessage is one message of a request.
type wireMessage struct {
	Role string `json:"role"`
	// Content is left out only for an assistant message that only calls
	// tools.
	Content    *string        `json:"content,omitzero"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// wireToolCall is built by hand rather than from the model's answer:
// some servers leave out "type":"function".
type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// encodeTools renders the tool schemas as a request carries them, once:
// they never change while the process runs.
func encodeTools() json.RawMessage {
	type function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	}
	type tool struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	out := make([]tool, 0, len(registry))
	for _, t := range registry {
		out = append(out, tool{"function", function{string(t.Name), t.Description, t.Params}})
	}
	return tools.MustJSON(out)
}

// requestBody writes into b the JSON of a chat completion request of
// model with the system prompt, the messages of parts in order and the
// tools (already encoded), and returns it. A message that carries its
// encoding (nod.ChatMessage.Wire, as the turn saved it) is spliced in as
// it is; any other is encoded here, pointing into parts' own: a turn's
// conversation is not copied for each call.
func requestBody(b *bytes.Buffer, model, system string, tools json.RawMessage, parts ...[]nod.ChatMessage) []byte {
	b.Reset()
	b.Grow(bodySize(model, system, tools, parts))
	b.WriteString(`{"model":`)
	jsonv2.MarshalWrite(b, model, wireOptions) // plain strings and structs: cannot fail
	b.WriteString(`,"messages":`)
	// Messages to encode are encoded a run at a time, as a list whose
	// brackets are then cut: one call each would cost allocations each.
	n := 1
	for _, msgs := range parts {
		n += len(msgs)
	}
	run := make([]wireMessage, 1, n)
	run[0] = wireMessage{Role: "system", Content: &system}
	for _, msgs := range parts {
		for i := range msgs {
			m := &msgs[i]
			if silent(m) {
				continue
			}
			if len(m.Wire) > 0 && !m.Replaced {
				encodeRun(b, run)
				run = run[:0]
				b.WriteByte(',')
				b.Write(m.Wire)
			} else if w, ok := toWire(m); ok {
				run = append(run, w)
			}
		}
	}
	encodeRun(b, run)
	b.WriteByte(']')
	if len(tools) > 0 {
		b.WriteString(`,"tools":`)
		b.Write(tools)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// bodySize is about the size of the request's encoding, a little over
// rather than under: a buffer grown by doubling as it is written takes
// about twice the bytes it ends with, on every call the pool has no
// buffer for.
func bodySize(model, system string, tools json.RawMessage, parts [][]nod.ChatMessage) int {
	n := 64 + len(model) + len(system) + len(system)/8 + len(tools)
	for _, msgs := range parts {
		for i := range msgs {
			m := &msgs[i]
			if len(m.Wire) > 0 && !m.Replaced {
				n += len(m.Wire) + 1
				continue
			}
			n += 96 + len(m.Content) + len(m.Content)/8 + len(m.Speaker) + len(m.ReplyTo) + len(m.Forwarded) + len(m.Edits) + len(m.ToolCallID)
			for _, c := range m.ToolCalls {
				n += 64 + len(c.ID) + len(c.Name) + len(c.Arguments) + len(c.Arguments)/4
			}
		}
	}
	return n
}

// encodeRun writes the messages of run into the list b holds open,
// without the list's own brackets: b's first message opens it.
func encodeRun(b *bytes.Buffer, run []wireMessage) {
	if len(run) == 0 {
		return
	}
	start := b.Len()
	opens := b.Bytes()[start-1] == ':' // the first message: the list's "[" stays
	jsonv2.MarshalWrite(b, run, wireOptions)
	out := b.Bytes()
	if opens {
		b.Truncate(len(out) - 1) // "]"
		return
	}
	out[start] = ','         // "[" becomes the separator
	b.Truncate(len(out) - 1) // "]"
}

// toWire is m as a request carries it; false for a role no request
// carries.
func toWire(m *nod.ChatMessage) (wireMessage, bool) {
	if silent(m) {
		return wireMessage{}, false
	}
	switch m.Role {
	case nod.RoleUser:
		said := m.Said()
		return wireMessage{Role: "user", Content: &said}, true
	case nod.RoleTool:
		return wireMessage{Role: "tool", Content: &m.Content, ToolCallID: m.ToolCallID}, true
	case nod.RoleEvent:
		return wireMessage{Role: "system", Content: &m.Content}, true
	case nod.RoleAssistant:
		w := wireMessage{Role: "assistant"}
		if m.Content != "" {
			w.Content = &m.Content
		}
		for _, tc := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: tc.Arguments}})
		}
		return w, true
	}
	return wireMessage{}, false
}

// silent reports whether m is the model's empty closing answer (it had
// said everything beside its calls): it goes into no request, where an
// assistant message with neither content nor calls is refused by some
// servers ("must have either content or tool_calls") and reads to a
// model as a turn it left unanswered. A kept encoding of one, from
// before, is left out too.
func silent(m *nod.ChatMessage) bool {
	return m.Role == nod.RoleAssistant && m.Content == "" && len(m.ToolCalls) == 0
}

// encodeWire sets each message's request encoding, as it is stored with
// it and spliced into later requests: as the message reads unreplaced,
// since a later edit may replace it (requestBody encodes a replaced one
// afresh). A result that later turns leave out (pastReads) keeps none:
// it would never be spliced.
func encodeWire(msgs []nod.ChatMessage) {
	var past map[string]bool // calls whose results later turns leave out
	for i := range msgs {
		m := msgs[i]
		for _, c := range m.ToolCalls {
			if t := nod.Tool(c.Name); t == nod.ToolListTasks || t == nod.ToolGetTask || t.External() {
				if past == nil {
					past = map[string]bool{}
				}
				past[c.ID] = t == nod.ToolListTasks || t == nod.ToolGetTask
			}
		}
		if read, ok := past[m.ToolCallID]; m.Role == nod.RoleTool && ok && (read || len(m.Content) > maxPastExternal) {
			continue
		}
		m.Replaced = false
		if w, ok := toWire(&m); ok {
			msgs[i].Wire, _ = jsonv2.Marshal(w, wireOptions)
		}
	}
}

// wireCompletion is what the agent reads of a chat completion.
type wireCompletion struct {
	Choices []struct {
		Message struct {
			Content   string `json:"content"` // null when the model only calls tools
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name string `json:"name"`
					// Arguments is a JSON string as the API sends it; a
					// server that sends the object itself is read too.
					Arguments jsontext.Value `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// arguments is a tool call's arguments as text: the string's contents, or
// the JSON of whatever else came.
func arguments(raw jsontext.Value) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}
