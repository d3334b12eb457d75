package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// unknownKind is a message whose forward_origin has a type Telegram may
// add one day: the library's models cannot decode it.
func unknownKind(chatID, userID int64, text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"message_id": 900, "date": 1, "text": text,
		"chat":           map[string]any{"id": chatID, "type": "private"},
		"from":           map[string]any{"id": userID, "first_name": "U"},
		"forward_origin": map[string]any{"type": "story", "date": 1},
	}}
}

// nod asks for exactly the updates it handles, edits included, whether it
// polls or has a webhook: Telegram keeps the last list it was sent.
func TestAllowedUpdatesAsked(t *testing.T) {
	t.Parallel()
	want := []string{"message", "edited_message", "callback_query"}
	check := func(t *testing.T, raw string) {
		t.Helper()
		var got []string
		if err := json.Unmarshal([]byte(raw), &got); err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("allowed_updates = %q, want %q", raw, want)
		}
	}
	t.Run("polling", func(t *testing.T) {
		h := newHarness(t)
		h.start()
		check(t, h.tg.Calls("getUpdates")[0].Params.Get("allowed_updates"))
	})
	t.Run("webhook", func(t *testing.T) {
		h := newHarness(t)
		h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
		h.env["NOD_WEBHOOK_SECRET"] = "hook-secret-0123456"
		h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
		check(t, h.tg.Calls("setWebhook")[0].Params.Get("allowed_updates"))
	})
}

// One update nod cannot decode costs only itself: the messages before and
// after it in the same poll are handled, the person is told the one in
// between could not be read, and polling goes on.
func TestUndecodableUpdateCostsOnlyItself(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.Handle(func(r openaitest.Request) openaitest.Response { return openaitest.Text("heard: " + r.LastUser()) })
	// All three are queued before nod first polls: one batch.
	h.tg.SendText(chat, user, "first message")
	h.tg.Wire().SendUpdate(unknownKind(chat, user, "a forwarded story"))
	h.tg.SendText(chat, user, "second message")
	h.start()
	msgs := h.tg.WaitBotMessages(chat, 3)
	texts := []string{msgs[0].Text, msgs[1].Text, msgs[2].Text}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"heard: first message", "couldn't read that message", "heard: second message"} {
		if !strings.Contains(all, want) {
			t.Errorf("the bot's messages lack %q:\n%s", want, all)
		}
	}
	for _, r := range h.llm.RequestsFor(agentM) {
		if strings.Contains(r.LastUser(), "forwarded story") {
			t.Errorf("the undecodable message reached the agent")
		}
	}
	// Polling goes on past it.
	h.tg.SendText(chat, user, "third message")
	h.tg.Wait("the third message to be answered", func() bool {
		msgs := h.tg.BotMessages(chat) // once: a message may arrive between two reads
		return strings.Contains(msgs[len(msgs)-1].Text, "heard: third message")
	})
	if v, _ := h.metric(`nod_updates_total{kind="undecodable"}`); v != 1 {
		t.Errorf("nod_updates_total{kind=undecodable} = %v, want 1", v)
	}
}

// The same in webhook mode: the undecodable update is answered 200, so
// Telegram does not deliver it again, and the next one is handled.
func TestUndecodableWebhookUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "hook-secret-0123456"
	h.llm.Handle(func(r openaitest.Request) openaitest.Response { return openaitest.Text("heard: " + r.LastUser()) })
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	h.tg.Wire().SetWebhookTarget("http://" + addrRE.FindStringSubmatch(h.logs.String())[1] + "/hook")
	h.tg.Wire().SendUpdate(unknownKind(chat, user, "a forwarded story"))
	h.tg.SendText(chat, user, "next message")
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[0].Text, "couldn't read that message") || !strings.Contains(msgs[1].Text, "heard: next message") {
		t.Errorf("messages = %q, %q", msgs[0].Text, msgs[1].Text)
	}
	for _, status := range h.tg.Wire().WebhookStatuses() {
		if status != 200 {
			t.Errorf("webhook statuses = %v, want all 200", h.tg.Wire().WebhookStatuses())
			break
		}
	}
}

// A message that starts a turn is recorded as handled by the turn's first
// write, with the person's words; redelivered, it finds the record there
// and is dropped before the model is asked: no second "typing…", answer
// or line in the conversation.
func TestRedeliveredMessageTurnsOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.llm.Handle(func(r openaitest.Request) openaitest.Response { return openaitest.Text("heard: " + r.LastUser()) })
	h.start()
	h.tg.SendText(chat, user, "what's on my list?")
	h.tg.WaitBotMessages(chat, 1)
	h.settleMessages()
	asked, typing := len(h.llm.RequestsFor(agentM)), len(h.tg.Calls("sendChatAction"))
	if asked != 1 || typing != 1 {
		t.Fatalf("the turn asked the model %d times and showed typing %d times, want 1 and 1", asked, typing)
	}
	h.tg.Wire().Redeliver(h.tg.Wire().LastUpdateID())
	h.tg.Wait("the redelivered message to be dropped", func() bool { return strings.Contains(h.logs.String(), "duplicate update ignored") })
	h.settleMessages()
	if n := len(h.llm.RequestsFor(agentM)); n != asked {
		t.Errorf("the redelivery asked the model: %d requests, want %d", n, asked)
	}
	if n := len(h.tg.Calls("sendChatAction")); n != typing {
		t.Errorf("the redelivery showed typing: %d, want %d", n, typing)
	}
	if n := len(h.tg.BotMessages(chat)); n != 1 {
		t.Errorf("%d bot messages, want 1", n)
	}
	hist, err := h.db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 10})
	if err != nil || len(hist) != 2 {
		t.Errorf("the conversation holds %d lines (%v), want the words and the answer once", len(hist), err)
	}
}
