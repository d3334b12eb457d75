package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

// Webhook mode: nod registers the webhook with its secret, takes updates
// on NOD_HTTP_ADDR at the URL's path and refuses a wrong secret.
func TestWebhookMode(t *testing.T) {
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
	if status := h.tg.PostWebhook(target, "wrong", []byte(`{"update_id":999,"message":{"message_id":1,"date":1,"chat":{"id":100,"type":"private"},"from":{"id":42,"first_name":"U"},"text":"forged"}}`)); status != 403 {
		t.Errorf("a wrong secret got %d, want 403", status)
	}
	h.tg.SetWebhookTarget(target)
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
