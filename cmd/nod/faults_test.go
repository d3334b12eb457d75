package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// Telegram faults: a 429 with retry_after is waited out and the message
// arrives; a 502 on send is retried; failing setMyCommands and
// sendChatAction are not fatal; a 403 (blocked by the user) is not retried.
func TestTelegramFaults(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var (
		mu    sync.Mutex
		sends int
	)
	h.tg.Wire().SetFault(func(method string, p url.Values) *telegramtest.Error {
		mu.Lock()
		defer mu.Unlock()
		switch method {
		case "setMyCommands", "sendChatAction":
			return &telegramtest.Error{Code: 500, Description: "Internal Server Error"}
		case "sendMessage":
			sends++
			switch {
			case sends == 1:
				return &telegramtest.Error{Code: 429, Description: "Too Many Requests: retry after 1", RetryAfter: 1}
			case sends == 2:
				return &telegramtest.Error{Code: 502, Description: "Bad Gateway"}
			case p.Get("chat_id") == "777":
				return &telegramtest.Error{Code: 403, Description: "Forbidden: bot was blocked by the user"}
			}
		}
		return nil
	})
	h.env["NOD_ALLOWED_USERS"] = "42,777"
	h.script(openaitest.Text("hello through the faults"), openaitest.Text("never seen"))
	h.start()
	h.tg.SendText(chat, user, "hi")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; m.Text != "hello through the faults" {
		t.Errorf("message = %q", m.Text)
	}
	if n := len(h.tg.Calls("sendMessage")); n != 3 {
		t.Errorf("%d sendMessage calls, want 3 (429, 502, delivered)", n)
	}
	before := len(h.tg.Calls("sendMessage"))
	h.tg.SendText(777, 777, "hi")
	h.tg.Wait("the blocked chat's send", func() bool { return len(h.tg.Calls("sendMessage")) > before })
	h.tg.Wait("the failure to be logged", func() bool { return strings.Contains(h.logs.String(), "blocked by the user") })
	if n := len(h.tg.Calls("sendMessage")) - before; n != 1 {
		t.Errorf("a 403 was retried: %d calls", n)
	}
}

// Graceful shutdown: a turn in flight when nod is told to stop finishes
// and its reply is delivered; nothing new is received.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.script(openaitest.Response{Text: "finished before stopping", Delay: 700 * time.Millisecond})
	h.start()
	h.tg.SendText(chat, user, "a slow question")
	h.tg.Wait("the model request", func() bool { return len(h.llm.Requests()) == 1 })
	h.stop()
	msgs := h.tg.BotMessages(chat)
	if len(msgs) != 1 || msgs[0].Text != "finished before stopping" {
		t.Errorf("after stop: %d messages %v", len(msgs), msgs)
	}
}

// A database that takes no writes (read-only, or full) gives the person a
// clear answer, changes nothing, and the bot stays up.
func TestReadOnlyDatabase(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "query_only is a SQLite pragma")
	h := newHarness(t)
	h.seedT1()
	h.env["NOD_DB"] = h.dsn + "?_pragma=query_only(1)"
	h.raiseT1()
	h.start()
	h.tg.SendText(chat, user, "raise it")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "went wrong on my side") {
		t.Errorf("reply = %q", m.Text)
	}
	h.tg.SendText(chat, user, "still there?")
	h.tg.WaitBotMessages(chat, 2)
	if h.task("T1").Priority != nod.P3 {
		t.Errorf("a read-only database was changed")
	}
}

// Outgoing limits: a reply long enough for five messages goes out paced,
// so that a Telegram that allows one a second per chat after a burst of
// three never answers 429.
func TestRateLimits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, k := range []string{"NOD_RATE_CHAT", "NOD_RATE_CHAT_BURST", "NOD_RATE_GROUP", "NOD_RATE_GLOBAL"} {
		delete(h.env, k) // Telegram's defaults
	}
	h.script(openaitest.Text(strings.Repeat(strings.Repeat("word ", 800)+"\n", 5)))
	h.start()
	h.tg.SendText(chat, user, "tell me a lot")
	h.tg.WaitBotMessages(chat, 5)
	// The limiter runs on nod's clock, which stands still here: a burst of
	// three, then the fourth and fifth held back (1 s and 2 s), whatever
	// the machine's speed.
	if m := h.metrics(); !strings.Contains(m, "nod_messages_paced_total 2\n") {
		t.Errorf("paced messages: want 2 in\n%s", grepLines(m, "nod_messages_paced"))
	}
}

// A full disk (max_page_count at the database's current size): the turn
// cannot be stored, the person is told, nothing half written, and the bot
// answers again once there is room.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "max_page_count is a SQLite pragma")
	h := newHarness(t)
	h.seedT1()
	raw, err := sql.Open("sqlite", h.dsn)
	if err != nil {
		t.Fatal(err)
	}
	// No free pages left over from migrations, then two more: room for
	// the question (it needs one), not for the answer (it needs more than
	// four).
	if _, err := raw.Exec(`VACUUM`); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := raw.QueryRow(`SELECT page_count FROM pragma_page_count()`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	h.env["NOD_DB"] = fmt.Sprintf("%s?_pragma=max_page_count(%d)", h.dsn, pages+2)
	h.script(openaitest.Text(strings.Repeat("A long answer that needs room. ", 500)))
	h.start()
	h.tg.SendText(chat, user, strings.Repeat("a long question that needs room ", 100))
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "went wrong on my side") {
		t.Errorf("reply = %q", m.Text)
	}
	// The person's words were kept before the model was asked; nothing
	// of what the turn could not store was.
	if hist, _ := h.db.Conversation().History(t.Context(), nod.Topic{Chat: chat}, nod.Window{Keep: 10}); len(hist) != 1 || hist[0].Role != nod.RoleUser {
		t.Errorf("a full disk left %d messages of the turn: %+v", len(hist), hist)
	}
	h.stop()
	h.env["NOD_DB"] = h.dsn
	h.script(openaitest.Text("room again"))
	h.start()
	h.tg.SendText(chat, user, "and now?")
	h.tg.Wait("a reply with room", func() bool {
		msgs := h.tg.BotMessages(chat)
		return len(msgs) > 1 && msgs[len(msgs)-1].Text == "room again"
	})
	// The person was told at the time: no "I stopped" after the restart.
	for _, m := range h.tg.BotMessages(chat) {
		if strings.Contains(m.Text, "I stopped before I could answer") {
			t.Errorf("told twice: %q", m.Text)
		}
	}
}

// Model faults end to end: a 429 that persists through the retries and an
// answer with no choices each end the turn with a clear message and no
// write; invalid UTF-8 from the person is repaired, not rejected.
func TestModelFaultsAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(
		openaitest.Response{Status: 429, Body: `{"error":{"message":"rate limited","type":"rate_limit"}}`},
		openaitest.Response{Status: 429}, openaitest.Response{Status: 429},
		openaitest.Response{NoChoices: true},
		openaitest.Text("fine \xff text"),
	)
	h.start()
	for i, text := range []string{"first", "second"} {
		h.tg.SendText(chat, user, text)
		if m := h.tg.WaitBotMessages(chat, i+1)[i]; !strings.Contains(m.Text, "couldn't reach the language model") {
			t.Errorf("%s: %q", text, m.Text)
		}
	}
	h.tg.SendText(chat, user, "broken \xc3\x28 bytes")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; m.Text != "fine \uFFFD text" {
		t.Errorf("third reply = %q", m.Text)
	}
	last := h.llm.RequestsFor(agentM)[len(h.llm.RequestsFor(agentM))-1]
	if u := last.LastUser(); !strings.Contains(u, "broken \uFFFD( bytes") {
		t.Errorf("the person's text reached the model as %q", u)
	}
	if sets, _ := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{Chat: chat}); len(sets) != 0 || h.task("T1").Priority != nod.P3 {
		t.Errorf("a failed turn wrote something")
	}
}
