package main

import (
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
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

// Telegram refuses a message's HTML: the person gets the same message as
// plain text, once, with its buttons. Here the refused ones are the
// receipt of an applied change, which nod owes through its outbox, and
// the edits of it: nothing is lost and nothing is sent twice, not by the
// sweeps and not after a restart.
func TestRefusedHTMLSentAsPlainText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seed(chat, nod.Task{ID: "TT", Title: "Test Task", Description: "the  descripton has typos ."})
	h.clf = answer("explicit:tidy up the description of Test Task")
	h.script(
		openaitest.Calls(call("d", "update_task_description", map[string]any{"task_id": "TT", "description": "The description has no typos."})),
		openaitest.Text("Done — I fixed the description."),
	)
	var (
		mu      sync.Mutex
		refused = map[string]string{} // method → the HTML it last refused
	)
	h.tg.Wire().SetFault(func(method string, p url.Values) *telegramtest.Error {
		if (method != "sendMessage" && method != "editMessageText") || p.Get("parse_mode") != "HTML" || !strings.Contains(p.Get("text"), "Test Task") {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		refused[method] = p.Get("text")
		return &telegramtest.Error{Code: 400, Description: `Bad Request: can't parse entities: Unsupported start tag "x" at byte offset 0`}
	})
	h.start()
	h.tg.SendText(chat, user, "tidy up the description of Test Task")
	msgs := h.tg.WaitBotMessages(chat, 2)
	receipt := msgs[0]
	mu.Lock()
	first := refused["sendMessage"]
	mu.Unlock()
	if receipt.HTML || receipt.Text != formatting.PlainText(first) || !strings.Contains(receipt.Text, "Before:") || !hasButton(receipt, "↩️ Undo") {
		t.Errorf("receipt: HTML %v, %q %v; want the plain text of %q and Undo", receipt.HTML, receipt.Text, buttonTexts(receipt), first)
	}
	if !msgs[1].HTML || msgs[1].Text != "Done — I fixed the description." {
		t.Errorf("reply: HTML %v, %q", msgs[1].HTML, msgs[1].Text)
	}
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	if got := h.task("TT").Description; got != "the  descripton has typos ." {
		t.Errorf("after Undo: %q", got)
	}
	edited := h.tg.WaitMessage(chat, receipt.ID, "the Undo's edit", func(m telegramtest.Message) bool { return !hasButton(m, "↩️ Undo") })
	mu.Lock()
	last := refused["editMessageText"]
	mu.Unlock()
	if edited.HTML || edited.Text != formatting.PlainText(last) || last == "" {
		t.Errorf("edited receipt: HTML %v, %q; want the plain text of %q", edited.HTML, edited.Text, last)
	}

	sent := len(h.tg.BotMessages(chat))
	h.clock.Advance(time.Hour) // what is still owed is due by now
	h.sweeps(3)
	h.stop()
	h.start()
	h.sweeps(3)
	if n := len(h.tg.BotMessages(chat)); n != sent {
		t.Errorf("%d more messages after the sweeps and a restart: %v", n-sent, h.tg.BotMessages(chat)[sent:])
	}
	if !strings.Contains(h.logs.String(), "level=WARN") || !strings.Contains(h.logs.String(), "plain text") {
		t.Errorf("the refusal is not logged as a warning")
	}
}
