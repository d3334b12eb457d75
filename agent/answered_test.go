package agent

import (
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
