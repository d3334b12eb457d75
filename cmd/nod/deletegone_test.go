package main

import (
	"slices"
	"strings"
	"testing"

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
	h.start()
	ask := h.askDeleteT1("delete the task Fix login bug", 0)
	h.trashBehind(chat, "T1")
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
