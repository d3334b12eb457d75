package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// The agent is told the chat as it is, turn after turn: a tap between two
// turns (a confirmation, then its Undo) changes the tasks, proposals and
// decisions the next turn's system prompt lists, though the process keeps
// what it read of them while nothing changes.
func TestNextTurnToldWhatTapsChanged(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 1)
	system := h.systemAfter
	const open, raised = `- T1 "Task 1" OPEN P3`, `- T1 "Task 1" OPEN P1`
	first := system("hi")
	if again := system("hello again"); again != first || !strings.Contains(first, open) {
		t.Fatalf("nothing changed between two turns, but their system prompts differ, or list no T1 at P3:\n%s\n---\n%s", first, again)
	}
	ms := h.propose(raise("T1", "P1"))
	set := ms[len(ms)-1]
	if sys := system("what's waiting?"); !strings.Contains(sys, open) || !strings.Contains(sys, "Set priority to P1") {
		t.Errorf("with the raise proposed, the prompt does not list T1 at P3 and the proposal:\n%s", sys)
	}
	if got := h.tap(chat, user, set.ID, "✓ 1"); got != "Applied item 1." {
		t.Fatalf("tap answered %q", got)
	}
	confirmed := system("and now?")
	if !strings.Contains(confirmed, raised) || strings.Contains(confirmed, open) {
		t.Errorf("after the ✓ the prompt does not list T1 at P1:\n%s", confirmed)
	}
	if got := h.tap(chat, user, set.ID, "↩️ Undo 1"); !strings.Contains(got, "Undone") {
		t.Fatalf("undo answered %q", got)
	}
	if undone := system("and after the undo?"); !strings.Contains(undone, open) || strings.Contains(undone, raised) {
		t.Errorf("after the Undo the prompt does not list T1 at P3 again:\n%s", undone)
	}
}

// A plain message is routed by the chat's settings as they are, though
// on PostgreSQL the process routes it by the reading it kept from the
// chat's last message: when another process changed them since (here
// the chat's language), the turn's first write finds them moved and
// writes nothing, and the message is routed again, once, by a fresh
// reading.
func TestMessageRoutedBySettingsAsTheyAre(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 1)
	system := h.systemAfter
	const german = `The chat's language is "de"`
	if sys := system("hi"); strings.Contains(sys, german) {
		t.Fatalf("before /lang the prompt says %q", german)
	}
	if err := h.db.Settings().SetLanguage(t.Context(), chat, "de"); err != nil {
		t.Fatal(err)
	}
	if sys := system("und jetzt?"); !strings.Contains(sys, german) {
		t.Errorf("after another process set the language, the next turn's prompt does not say %q:\n%s", german, sys)
	}
	h.quiet(chat, 2)
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("%d agent requests for two messages", n)
	}
	history, err := h.db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 40, Step: 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := personLines(history); !slices.Equal(got, []string{"hi", "und jetzt?"}) {
		t.Errorf("the conversation holds the person's lines %q, want each message once", got)
	}
}

// personLines are the person's lines of a stored conversation, in order.
func personLines(h []nod.ChatMessage) []string {
	var out []string
	for _, m := range h {
		if m.Role == nod.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// systemAfter sends text, which the model answers with a line, and
// returns the system prompt the agent was sent for it.
func (h *harness) systemAfter(text string) string {
	h.t.Helper()
	h.script(openaitest.Text("Noted."))
	h.say(text)
	reqs := h.llm.RequestsFor(agentM)
	return reqs[len(reqs)-1].System()
}
