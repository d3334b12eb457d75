package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// A deletion question's "✗ Keep all 3" keeps the task and the rest of
// the line without typing, in one message, audited; nothing more is
// asked, and a second tap changes nothing.
func TestKeepAllButtonCancelsTheLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	q := h.askThree()
	if !isQuestion(q, "Fix login bug") || !hasButton(q, "✗ Keep it") || !hasButton(q, "✗ Keep all 3") {
		t.Fatalf("first question %q %v", q.Text, buttonTexts(q))
	}
	if ans := h.tap(chat, 43, q.ID, "✗ Keep all 3"); strings.Contains(ans, "Kept") {
		t.Errorf("another user's tap answered %q", ans)
	}
	b, _ := q.Button("✗ Keep all 3")
	ans := h.tap(chat, user, q.ID, "✗ Keep all 3")
	want := "Kept “Fix login bug”: it was not deleted. I won't ask about “Update README” or “Cancel gym” either."
	if msgs := h.tg.WaitBotMessages(chat, 3); msgs[2].Text != want || ans != want {
		t.Fatalf("after Keep all: answered %q, %q", ans, messageTexts(msgs[2:]))
	}
	if m, _ := h.tg.Message(chat, q.ID); !strings.Contains(m.Text, "Cancelled") || hasButton(m, "✗ Keep it") {
		t.Errorf("the question reads %q %v", m.Text, buttonTexts(m))
	}
	h.quiet(chat, 3)
	audited := len(h.audit(chat))
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, q.ID, b.Data)); strings.Contains(ans, "Kept") {
		t.Errorf("second tap answered %q", ans)
	}
	h.settle()
	h.quiet(chat, 3)
	got := outcomes(h.audit(chat))
	if len(got) != audited || !slices.Equal(got[len(got)-3:], []string{"delete_task:rejected", "delete_task:rejected", "delete_task:rejected"}) {
		t.Errorf("audit outcomes %v (%d before the second tap)", got, audited)
	}
	if h.trashed(chat, "T1") || h.trashed(chat, "T2") || h.trashed(chat, "T3") {
		t.Error("a kept task went to the trash")
	}
}

// "✗ Keep it" keeps that task alone: the next question follows, with
// the buttons for what is left.
func TestKeepItButtonAsksTheNext(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	q := h.askThree()
	h.tap(chat, user, q.ID, "✗ Keep it")
	// The question, edited, says it was kept: no message repeats it.
	msgs := h.tg.WaitBotMessages(chat, 3)
	if !isQuestion(msgs[2], "Update README") || !hasButton(msgs[2], "✗ Keep all 2") {
		t.Fatalf("after Keep it: %q %v", messageTexts(msgs[2:]), buttonTexts(msgs[2]))
	}
	if got, _ := h.tg.Message(chat, q.ID); !strings.Contains(got.Text, "not deleted") {
		t.Errorf("the question after Keep it reads %q", got.Text)
	}
	h.shown(chat, user, "T2")
	h.tg.SendText(chat, user, "update readme")
	h.tg.WaitBotMessages(chat, 5)
	if h.trashed(chat, "T1") || !h.trashed(chat, "T2") {
		t.Errorf("T1 trashed %v, T2 trashed %v; want only T2", h.trashed(chat, "T1"), h.trashed(chat, "T2"))
	}
}

// askThree seeds T1..T3 and has the person ask to delete all three in
// one turn; it returns the first question, once shown.
func (h *harness) askThree() telegramtest.Message {
	h.t.Helper()
	h.seedTwo(chat)
	h.seed(chat, nod.Task{ID: "T3", Title: "Cancel gym"})
	h.start()
	words := "delete all three"
	h.clf = answer("explicit:" + words)
	h.script(openaitest.Calls(call("d1", "delete_task", map[string]any{"task_id": "T1"}), call("d2", "delete_task", map[string]any{"task_id": "T2"}),
		call("d3", "delete_task", map[string]any{"task_id": "T3"})), openaitest.Text("They go to the trash once you confirm."))
	h.tg.SendText(chat, user, words)
	q := h.tg.WaitBotMessages(chat, 2)[1]
	h.shown(chat, user, "T1")
	return q
}

// What became of a line of deletions reaches the agent's next turn: an
// answer that was not the title and a ✗ Keep all each tell it which
// tasks were kept, and why, so it never says a kept task went or a
// cancelled one still waits.
func TestKeptDeletionsToldToTheAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.askThree()
	h.clock.Advance(time.Minute)
	h.tg.SendText(chat, user, "yes")
	q := h.tg.WaitBotMessages(chat, 4)[3]
	if !isQuestion(q, "Update README") {
		t.Fatalf("after \"yes\": %q", messageTexts(h.tg.BotMessages(chat)))
	}
	h.shown(chat, user, "T2")
	h.clock.Advance(time.Minute)
	h.tap(chat, user, q.ID, "✗ Keep all 2")
	h.tg.WaitBotMessages(chat, 5)
	h.settle()
	h.script(openaitest.Text("All three stay."))
	h.tg.SendText(chat, user, "so what's left?")
	h.tg.WaitBotMessages(chat, 6)
	reqs := h.llm.RequestsFor(agentM)
	var notes []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if strings.HasPrefix(m.Content, "Meanwhile") {
			notes = append(notes, m.Content)
		}
	}
	n := strings.Join(notes, "\n")
	for _, want := range []string{
		// And what was still to be asked then: played without it, the
		// model said a task stays whose deletion was asked next.
		"kept the task “Fix login bug” (id T1): its deletion was cancelled (did not type the task's title); it was not deleted, which nod has told them already in a message of its own (do not say it again). The deletions of “Update README”, “Cancel gym” are still to be asked, one at a time, next; each question has ✗ Keep it",
		"kept the task “Update README” (id T2): its deletion was cancelled (tapped ✗ to keep it)",
		"kept the task “Cancel gym” (id T3): its deletion was cancelled (cancelled with the deletion before it)",
	} {
		if !strings.Contains(n, want) {
			t.Errorf("the agent's next turn is not told %q; it reads:\n%s", want, n)
		}
	}
}
