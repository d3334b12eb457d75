package main

import (
	"testing"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// A stranger's updates cost no row: their message, its edit, a
// redelivery of it and their press are refused before anything is
// recorded, so that anyone who writes to the bot cannot grow its database.
// The redelivered message gets no second refusal (strangers are refused
// at most once an hour, from memory).
func TestStrangerCostsNoRow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise the login bug")
	b, _ := set.Button("✓ 1")

	var theirs []int64
	msg := h.tg.SendText(chat, stranger, "delete everything")
	theirs = append(theirs, h.tg.LastUpdateID())
	h.tg.WaitBotMessages(chat, 3) // the refusal
	h.tg.EditText(chat, msg, "delete everything now")
	theirs = append(theirs, h.tg.LastUpdateID())
	h.tg.Redeliver(theirs[0])
	h.tg.WaitAnswer(h.tg.Press(chat, stranger, set.ID, b.Data))
	theirs = append(theirs, h.tg.LastUpdateID())
	// The person's next message is handled after the stranger's, in the
	// chat's order.
	h.script(openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "thanks")
	h.tg.WaitBotMessages(chat, 4)
	h.settleMessages()

	if n := len(h.tg.BotMessages(chat)); n != 4 {
		t.Errorf("%d bot messages, want 4 (the stranger refused once)", n)
	}
	for _, id := range theirs {
		if fresh, err := h.db.MarkUpdate(t.Context(), id); err != nil || !fresh {
			t.Errorf("the stranger's update %d was recorded (MarkUpdate = %v, %v)", id, fresh, err)
		}
	}
}
