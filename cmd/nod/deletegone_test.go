package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// A deletion whose task went to the trash while its question waited (a
// change from elsewhere: another replica, a member's own deletion) does
// not say "deleted" when the title is typed: the question closes saying
// what happened, and nothing else changes.
func TestTypedTitleOfATaskGoneMeanwhile(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:delete the task Fix login bug")
	h.script(openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})), openaitest.Text("Please confirm."))
	h.start()
	h.tg.SendText(chat, user, "delete the task Fix login bug")
	ask := h.tg.WaitBotMessages(chat, 2)[1]
	h.shown(chat, user, "T1")
	now := h.clock.Now()
	if _, err := h.db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, TaskID: "T1", Tool: nod.ToolDeleteTask, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(t *nod.Task) (nod.Task, error) { c := t.Clone(); c.DeletedAt = &now; return c, nil }}); err != nil {
		t.Fatal(err)
	}
	h.tg.SendText(chat, user, "Fix login bug")
	reply := h.tg.WaitBotMessages(chat, 3)[2]
	if !strings.Contains(reply.Text, "in the trash") || hasButton(reply, "↩️ Undo") {
		t.Errorf("reply = %q %v, want it to say the task is in the trash, with nothing to undo", reply.Text, buttonTexts(reply))
	}
	closed := h.tg.WaitMessage(chat, ask.ID, "the question to close", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "<s>") })
	if want := "<s>Delete “Fix login bug”?</s> You typed its title, but nothing was deleted: see below."; closed.Text != want || len(buttonTexts(closed)) != 0 {
		t.Errorf("the question closed as %q %v, want %q", closed.Text, buttonTexts(closed), want)
	}
	if got := outcomes(h.audit(chat)); slices.Contains(got, "delete_task:confirmed") {
		t.Errorf("audit %v records a confirmed deletion", got)
	}
	if _, ok, _ := h.db.Deletions().WaitingDeletion(t.Context(), chat, user); ok {
		t.Errorf("the deletion still waits")
	}
}
