package main

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// Webhook mode: nod registers the webhook with its secret, takes updates
// on NOD_HTTP_ADDR at the URL's path and refuses a wrong secret.
func TestWebhookMode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/tg/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "s3cret-hook-token"
	h.seedT1()
	h.raiseT1()
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	set := h.tg.Calls("setWebhook")[0].Params
	if set.Get("url") != "https://bot.example.org/tg/hook" || set.Get("secret_token") != "s3cret-hook-token" {
		t.Errorf("setWebhook params = %v", set)
	}
	addr := regexp.MustCompile(`listening addr=(\S+)`).FindStringSubmatch(h.logs.String())
	if addr == nil {
		t.Fatalf("no listening line:\n%s", h.logs)
	}
	target := "http://" + addr[1] + "/tg/hook"
	if status := h.tg.Wire().PostWebhook(target, "wrong", []byte(`{"update_id":999,"message":{"message_id":1,"date":1,"chat":{"id":100,"type":"private"},"from":{"id":42,"first_name":"U"},"text":"forged"}}`)); status != 403 {
		t.Errorf("a wrong secret got %d, want 403", status)
	}
	h.tg.Wire().SetWebhookTarget(target)
	h.tg.SendText(chat, user, "raise the login bug")
	msg := h.changeSetMessage(chat, 2)
	h.tap(chat, user, msg.ID, "✓ 1")
	if h.task("T1").Priority != nod.P1 {
		t.Errorf("webhook tap not applied")
	}
	if n := len(h.tg.Calls("getUpdates")); n != 0 {
		t.Errorf("%d getUpdates calls in webhook mode", n)
	}
	if strings.Contains(h.logs.String(), "s3cret-hook-token") {
		t.Errorf("the webhook secret is in the logs")
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("the forged update reached the agent: %d requests", n)
	}
}

// Stopping under webhook load: every update answered 200 is handled, the
// ones that arrive while nod stops get 503 (or no connection), so
// Telegram delivers them again; none is acknowledged and dropped.
func TestWebhookStopLosesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "stop-secret-0123456"
	h.llm.Handle(func(openaitest.Request) openaitest.Response {
		return openaitest.Response{Text: "handled", Delay: 300 * time.Millisecond}
	})
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	target := "http://" + addrRE.FindStringSubmatch(h.logs.String())[1] + "/hook"
	const updates = 12
	raws := make([][]byte, updates)
	for i := range raws {
		h.tg.SendText(int64(300+i), user, fmt.Sprintf("message %d", i)) // queued: no webhook target set
		raws[i] = h.tg.Wire().LastUpdate()
	}
	status := make([]int, updates)
	var wg sync.WaitGroup
	for i := range updates {
		if i == updates/2 {
			wg.Add(1)
			go func() { defer wg.Done(); h.stop() }()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			status[i] = h.tg.Wire().PostWebhook(target, "stop-secret-0123456", raws[i])
		}()
		time.Sleep(20 * time.Millisecond) // spread the deliveries over the stop
	}
	wg.Wait()
	acked, refused := 0, 0
	for i, st := range status {
		replied := len(h.tg.BotMessages(int64(300+i))) > 0
		switch {
		case st == 200 && !replied:
			t.Errorf("update %d was answered 200 and never handled", i)
		case st == 200:
			acked++
		case st == 503 || st == 0:
			refused++
		default:
			t.Errorf("update %d got %d", i, st)
		}
	}
	t.Logf("%d updates during a stop: %d acknowledged and handled, %d refused for redelivery", updates, acked, refused)
	if acked == 0 {
		t.Errorf("no update was handled before the stop")
	}
}

// A malformed body with the right secret is dropped with a bounded log
// line, never logged whole.
func TestWebhookMalformedBodyLogBounded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "log-secret-0123456"
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	target := "http://" + addrRE.FindStringSubmatch(h.logs.String())[1] + "/hook"
	body := []byte(`{"update_id":1,"message":{"text":"` + strings.Repeat("private words ", 60000) + `"`) // cut off: not JSON
	before := len(h.logs.String())
	if st := h.tg.Wire().PostWebhook(target, "log-secret-0123456", body); st != 200 {
		t.Errorf("malformed body got %d, want 200 (a redelivery would fail the same way)", st)
	}
	h.tg.Wait("the drop to be logged", func() bool { return strings.Contains(h.logs.String(), "update not decodable; skipped") })
	if logged := len(h.logs.String()) - before; logged > 2000 {
		t.Errorf("%d bytes logged for an %d-byte body", logged, len(body))
	}
}
