package main

import (
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// The model's Markdown, mis-nested as models write it, reaches the person
// readable, as a reply and as the daily review's line: Telegram takes the
// HTML nod makes of it (the fake refuses what Telegram refuses, and fails
// the test).
func TestModelMarkdownReadable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedT1()
	h.inBerlin(chat)
	const said = "Start with **Fix login `bug** today`, then **Launch plan**."
	const want = "Start with **Fix login <code>bug** today</code>, then <b>Launch plan</b>."
	h.script(openaitest.Text(said))
	h.start()
	h.tg.SendText(chat, user, "what first?")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !m.HTML || m.Text != want {
		t.Errorf("reply = %q, want %q", m.Text, want)
	}
	h.tg.SendText(chat, user, "/daily 8:00")
	h.tg.WaitBotMessages(chat, 2)
	h.script(openaitest.Text(said))
	h.clock.Set(time.Date(2026, 3, 12, 7, 0, 0, 0, time.UTC)) // 08:00 in Berlin
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !m.HTML || m.Text != "☀️ <b>Daily review</b>\n"+want {
		t.Errorf("the review's line = %q", m.Text)
	}
}
