package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
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
	theirs = append(theirs, h.tg.Wire().LastUpdateID())
	h.tg.WaitBotMessages(chat, 3) // the refusal
	h.tg.EditText(chat, msg, "delete everything now")
	theirs = append(theirs, h.tg.Wire().LastUpdateID())
	h.tg.Wire().Redeliver(theirs[0])
	h.tg.WaitAnswer(h.tg.Press(chat, stranger, set.ID, b.Data))
	theirs = append(theirs, h.tg.Wire().LastUpdateID())
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
		if fresh, err := h.db.Outbox().MarkUpdate(t.Context(), id); err != nil || !fresh {
			t.Errorf("the stranger's update %d was recorded (MarkUpdate = %v, %v)", id, fresh, err)
		}
	}
}

// Update ids older than two days are forgotten but the newest, which
// polling resumes after; the buttons of a message not shown for longer
// than any of them acts on its own (by default the trash's 30 days) are
// forgotten too. A press of one, on a message Telegram no longer shows
// the bot, is refused as expired and changes nothing.
func TestOldRecordsPruned(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	set := h.startWithRaise("raise the login bug")
	first := h.tg.Wire().LastUpdateID()
	h.script(openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "thanks")
	h.tg.WaitBotMessages(chat, 3)
	newest := h.tg.Wire().LastUpdateID()
	h.settleMessages()

	h.clock.Advance(8 * 24 * time.Hour)
	set = h.tg.WaitMessage(chat, set.ID, "the set to expire", func(m telegramtest.Message) bool { return hasButton(m, "🔁 Re-propose") })
	h.tg.Wait("the first update to be forgotten", func() bool {
		fresh, err := h.db.Outbox().MarkUpdate(t.Context(), first) // records it anew once forgotten
		return err == nil && fresh
	})
	if fresh, err := h.db.Outbox().MarkUpdate(t.Context(), newest); err != nil || fresh {
		t.Errorf("the newest update was forgotten (MarkUpdate = %v, %v)", fresh, err)
	}
	if _, recorded, _ := h.db.Messages().ButtonSentWith(t.Context(), chat, set.ID, set.Buttons()[0].Data); !recorded {
		t.Errorf("the expired set's buttons were forgotten after 8 days")
	}

	h.clock.Advance(31 * 24 * time.Hour)
	h.tg.Wait("the set's buttons to be forgotten", func() bool {
		_, recorded, err := h.db.Messages().ButtonSentWith(t.Context(), chat, set.ID, set.Buttons()[0].Data)
		return err == nil && !recorded
	})
	msgs := len(h.tg.BotMessages(chat))
	h.tg.Wire().Age(chat, set.ID)
	if ans := h.tap(chat, user, set.ID, "🔁 Re-propose"); ans != "This button has expired; nothing was changed." {
		t.Errorf("a forgotten button answered %q", ans)
	}
	if n := len(h.tg.BotMessages(chat)); n != msgs || h.task("T1").Priority != nod.P3 {
		t.Errorf("a forgotten button sent %d messages, T1 is %s", n-msgs, h.task("T1").Priority)
	}
}

// A message's buttons are remembered as long as the longest of the
// windows they act in: a change set that lives 45 days is still decided
// from its message after 35, when Telegram no longer shows it the bot.
func TestLiveButtonsOutlastPruning(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.env["NOD_CHANGESET_TTL"] = "1080h"
	set := h.startWithRaise("raise the login bug")
	h.clock.Advance(35 * 24 * time.Hour)
	h.sweeps(3)
	h.tg.Wire().Age(chat, set.ID)
	if ans := h.tap(chat, user, set.ID, "✓ 1"); !strings.Contains(ans, "Applied") {
		t.Errorf("✓ 1 after 35 days answered %q", ans)
	}
	if h.task("T1").Priority != nod.P1 {
		t.Errorf("T1 is %s after ✓ 1, want P1", h.task("T1").Priority)
	}
}
