package agent

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// The exchange a turn answers: the model's last reply asks something
// wherever its question mark stands, as a real model's "Where are you?
// Tell me your city and I'll set it." does, or the words beside its call;
// a reply that asks nothing,
// or a call, carries nothing over; and only the person it asked resumes.
func TestAnsweredExchange(t *testing.T) {
	const alice, bob nod.UserID = 1, 2
	say := func(u nod.UserID, text string) nod.ChatMessage {
		return nod.ChatMessage{Role: nod.RoleUser, Content: text, UserID: u}
	}
	reply := func(text string) nod.ChatMessage { return nod.ChatMessage{Role: nod.RoleAssistant, Content: text} }
	call := nod.ChatMessage{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "c", Name: "list_tasks"}}}
	earlier := []nod.ChatMessage{say(alice, "hi"), reply("Hello.")}
	for _, c := range []struct {
		name  string
		h     []nod.ChatMessage
		from  int
		asksA bool
	}{
		{"no history", nil, 0, false},
		{"a question last", append(earlier[:2:2], say(alice, "remind me at 10"), reply("To P1 or P0?")), 2, true},
		{"a question first", append(earlier[:2:2], say(alice, "remind me at 10"), reply("Where are you? Tell me your city and I'll set it.")), 2, true},
		{"a full-width question", append(earlier[:2:2], say(alice, "明日10時に"), reply("どこにいますか？")), 2, true},
		{"no question", append(earlier[:2:2], say(alice, "remind me at 10"), reply("Set for 10.")), 4, false},
		{"a call last", append(earlier[:2:2], say(alice, "list"), call), 4, false},
		{"a question beside a call", append(earlier[:2:2], say(alice, "remind me at 10"), nod.ChatMessage{Role: nod.RoleAssistant, Content: "Where are you?", ToolCalls: call.ToolCalls},
			nod.ChatMessage{Role: nod.RoleTool, Content: "ok", ToolCallID: "c"}, reply("")), 2, true},
		{"a question in an earlier turn", append(earlier[:2:2], say(alice, "hm?"), reply("Which one?"), say(alice, "the first"), reply("Done.")), 6, false},
		{"another's question", append(earlier[:2:2], say(bob, "remind me at 10"), reply("Where are you?")), 2, false},
		{"the whole history", []nod.ChatMessage{say(alice, "remind me at 10"), reply("Where are you?")}, 0, true},
	} {
		if got := answered(c.h); got != c.from {
			t.Errorf("%s: the exchange starts at %d, want %d", c.name, got, c.from)
		}
		if got := asks(c.h, alice); got != c.asksA {
			t.Errorf("%s: asks alice = %v, want %v", c.name, got, c.asksA)
		}
	}
}

// The same as a property, over histories drawn at random: the exchange
// is the last turn, whole, and only when that turn's model asked
// something; a turn never carries what came before it; asks names the
// person whose words open the exchange; and no request carries an
// assistant message with neither words nor calls.
func TestAnsweredExchangeProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 11))
	texts := []string{"", "Done.", "Which one?", "Where are you? Tell me your city.", "Set for 10.", "どこ？"}
	for range 5000 {
		var h []nod.ChatMessage
		for range r.IntN(12) {
			switch r.IntN(4) {
			case 0:
				h = append(h, nod.ChatMessage{Role: nod.RoleUser, Content: "words", UserID: nod.UserID(1 + r.IntN(2))})
			case 1:
				h = append(h, nod.ChatMessage{Role: nod.RoleAssistant, Content: texts[r.IntN(len(texts))]})
			case 2:
				h = append(h, nod.ChatMessage{Role: nod.RoleAssistant, Content: texts[r.IntN(len(texts))], ToolCalls: []nod.ToolCall{{ID: "c", Name: "get_task"}}},
					nod.ChatMessage{Role: nod.RoleTool, Content: "{}", ToolCallID: "c"})
			default:
				h = append(h, nod.ChatMessage{Role: nod.RoleEvent, Content: "Meanwhile"})
			}
		}
		from := answered(h)
		if from < 0 || from > len(h) {
			t.Fatalf("answered = %d of %d", from, len(h))
		}
		if from < len(h) {
			last := h[len(h)-1]
			if last.Role != nod.RoleAssistant || len(last.ToolCalls) > 0 {
				t.Fatalf("an exchange carried over after %+v", last)
			}
			asked := false
			for i, m := range h[from:] {
				if m.Role == nod.RoleAssistant && len(m.ToolCalls) == 0 && from+i < len(h)-1 {
					t.Fatalf("the exchange from %d holds an earlier turn's close at %d: %+v", from, from+i, h)
				}
				asked = asked || m.Role == nod.RoleAssistant && strings.ContainsAny(m.Content, "?？")
			}
			if !asked {
				t.Fatalf("an exchange carried over without a question: %+v", h[from:])
			}
		}
		if said := append(slices.Clip(h), nod.ChatMessage{Role: nod.RoleUser, Content: "more"}); answered(said) != len(said) {
			t.Fatalf("a turn after the person's words carries an exchange: %+v", said)
		}
		for _, u := range []nod.UserID{1, 2} {
			if asks(h, u) && (h[from].Role != nod.RoleUser || h[from].UserID != u) {
				t.Fatalf("asks %d, but the exchange opens with %+v", u, h[from])
			}
		}
		var buf bytes.Buffer
		var req struct {
			Messages []struct {
				Role      string  `json:"role"`
				Content   *string `json:"content"`
				ToolCalls []any   `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(requestBody(&buf, "m", "system", nil, h), &req); err != nil {
			t.Fatal(err)
		}
		for _, m := range req.Messages {
			if m.Role == "assistant" && (m.Content == nil || *m.Content == "") && len(m.ToolCalls) == 0 {
				t.Fatalf("a request carries an empty assistant message, from %+v", h)
			}
		}
	}
}
