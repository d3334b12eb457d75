package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// A Bot API server that answers getUpdates at once with nothing (some
// emulators do) does not make nod spin: after each such answer it waits,
// 100 ms doubling up to a second, on its clock (so that this test moves
// the clock and sleeps for nothing), and polls once per wait. An answer
// with updates ends the episode: the next poll goes at once and the
// waits start over. Each episode is logged once, and nod stops at once
// while it waits.
func TestPollsSpacedOutWhenAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.Handle(func(r openaitest.Request) openaitest.Response { return openaitest.Text("heard: " + r.LastUser()) })
	h.tg.Wire().SetShortPolls(true)
	h.start()
	polls := func() int { return len(h.tg.Calls("getUpdates")) }
	// waits waits until nod has asked for n waits, then checks that it
	// polled exactly n+extra times: the clock stands, so a nod that
	// polled without waiting would be past that.
	waits := func(n, extra int) {
		t.Helper()
		h.tg.Wait(fmt.Sprintf("nod to wait %d times", n), func() bool { return len(h.clock.Waits()) >= n || polls() > 1000 })
		if p, w := polls(), len(h.clock.Waits()); p != w+extra {
			t.Fatalf("%d polls for %d waits, want %d polls", p, w, w+extra)
		}
	}
	ms := time.Millisecond
	schedule := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second, time.Second}
	for i, d := range schedule {
		waits(i+1, 0)
		h.clock.Advance(d)
	}
	waits(len(schedule)+1, 0)

	// A message: the poll after the next wait brings it, the one after
	// that goes at once, and the waits start over.
	h.tg.SendText(chat, user, "hello")
	h.clock.Advance(time.Second)
	if msgs := h.tg.WaitBotMessages(chat, 1); !strings.Contains(msgs[0].Text, "heard: hello") {
		t.Errorf("the message was answered %q", msgs[0].Text)
	}
	waits(len(schedule)+2, 1)
	h.clock.Advance(100 * ms)
	waits(len(schedule)+3, 1)
	want := append(append(slices.Clone(schedule), time.Second), 100*ms, 200*ms)
	if got := h.clock.Waits(); !slices.Equal(got, want) {
		t.Errorf("waits = %v, want %v", got, want)
	}
	logs := h.logs.String()
	if n := strings.Count(logs, "answered at once with nothing"); n != 2 {
		t.Errorf("%d log lines of spaced-out polls for 2 episodes:\n%s", n, logs)
	}
	if n := strings.Count(logs, "polling at once"); n != 1 {
		t.Errorf("%d log lines of an episode's end, want 1", n)
	}
	// Stopping while nod waits: at once, the clock standing (stop fails
	// the test after 30 s).
	h.stop()
}

// undecodablePress is a press of user in chatID whose update the library
// cannot decode: chat_instance, a string, comes as a number, as if
// Telegram had changed its type. lang is the person's app language.
func undecodablePress(chatID, userID int64, lang string) map[string]any {
	return map[string]any{
		"from":    map[string]any{"id": userID, "is_bot": false, "first_name": "U", "language_code": lang},
		"message": map[string]any{"message_id": 1, "date": 1, "chat": map[string]any{"id": chatID, "type": "private"}},
		"data":    "1c.k3x9m2p7qa.1", "chat_instance": 12345,
	}
}

// startIn starts nod long polling, or in webhook mode with updates posted
// to it; it returns the webhook's address then.
func (h *harness) startIn(webhook bool) string {
	h.t.Helper()
	if !webhook {
		h.start()
		return ""
	}
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "hook-secret-0123456"
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	target := "http://" + addrRE.FindStringSubmatch(h.logs.String())[1] + "/hook"
	h.tg.Wire().SetWebhookTarget(target)
	return target
}

// A button press nod cannot decode does not spin until Telegram gives up:
// it is answered by its id, once, in polling and webhook mode. An allowed
// person is told in their language that it could not be read; a stranger
// is refused as on any press; a press whose sender cannot be read is
// answered with no text. A redelivery is not answered again (the fake
// fails the test on a second answer of one query). Nothing reaches the
// chat.
func TestUndecodablePressAnswered(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"polling", "webhook"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			target := h.startIn(mode == "webhook")
			noSender := undecodablePress(chat, user, "en")
			noSender["from"] = map[string]any{"id": "42", "first_name": "U"}
			var first []byte // the allowed person's update
			for i, c := range []struct {
				name  string
				query map[string]any
				want  string
			}{
				{"allowed", undecodablePress(chat, user, "en"), "I couldn't read this press: Telegram sent something I do not know yet. Nothing was changed; you can tell me in words instead."},
				{"allowed, German", undecodablePress(chat+1, 43, "de"), "Diesen Knopfdruck konnte ich nicht lesen"},
				{"stranger", undecodablePress(chat+2, stranger, "en"), "Sorry, this bot is private. Your user id is 666."},
				{"sender unreadable", noSender, ""},
			} {
				id := h.tg.SendPress(c.query)
				if i == 0 {
					first = h.tg.Wire().LastUpdate()
				}
				if got := h.tg.WaitAnswer(id); !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
					t.Errorf("%s: answered %q, want %q", c.name, got, c.want)
				}
			}
			// The allowed person's press once more, as after a crash.
			var again struct {
				ID int64 `json:"update_id"`
			}
			if err := json.Unmarshal(first, &again); err != nil {
				t.Fatal(err)
			}
			if mode == "polling" {
				h.tg.Wire().Redeliver(again.ID)
			} else if st := h.tg.Wire().PostWebhook(target, "hook-secret-0123456", first); st != 200 {
				t.Errorf("the redelivered press got %d", st)
			}
			h.tg.Wait("the redelivery to be dropped", func() bool {
				for _, l := range strings.Split(h.logs.String(), "\n") {
					if strings.Contains(l, "duplicate update ignored") && strings.Contains(l, fmt.Sprintf(" update=%d", again.ID)) {
						return true
					}
				}
				return false
			})
			h.settle()
			if n := len(h.tg.Calls("answerCallbackQuery")); n != 4 {
				t.Errorf("%d answers to 4 presses", n)
			}
			for _, c := range []int64{chat, chat + 1, chat + 2} {
				if msgs := h.tg.BotMessages(c); len(msgs) > 0 {
					t.Errorf("chat %d got %q", c, msgs[0].Text)
				}
			}
			if v, _ := h.metric(`nod_updates_total{kind="undecodable"}`); v != 5 {
				t.Errorf("nod_updates_total{kind=undecodable} = %v, want 5", v)
			}
		})
	}
}

// A press whose data nod's callback codec cannot read (garbage, a later
// format version, none) is answered that the button is not valid, in
// polling and webhook mode; a stranger's is refused as always.
func TestUnreadableCallbackDataAnswered(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"polling", "webhook"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.startIn(mode == "webhook")
			for _, c := range []struct {
				user int64
				data string
				want string
			}{
				{user, "garbage", "This button is not valid; nothing was changed."},
				{user, "9c.k3x9m2p7qa.1", "This button is not valid; nothing was changed."},
				{user, "", "This button is not valid; nothing was changed."},
				{stranger, "garbage", "Sorry, this bot is private. Your user id is 666."},
			} {
				if got := h.tg.WaitAnswer(h.tg.Press(chat, c.user, 1, c.data)); got != c.want {
					t.Errorf("%d pressed %q: answered %q, want %q", c.user, c.data, got, c.want)
				}
			}
		})
	}
}
