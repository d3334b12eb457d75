package bot

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"

	tgbot "github.com/go-telegram/bot"
)

// WebhookPath is the path webhook updates are served on: the path of
// WebhookURL, or "" in long-polling mode.
func (b *Bot) WebhookPath() string {
	if b.opts.WebhookURL == "" {
		return ""
	}
	u, err := url.Parse(b.opts.WebhookURL)
	if err != nil || u.Path == "" {
		return "/"
	}
	return u.Path
}

// ServeHTTP receives webhook updates. The library answers 200 even to a
// wrong secret, so the secret is checked here, in constant time, first.
// Updates are queued, not handled, before the answer: Telegram waits for
// nothing slow.
func (b *Bot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	got := r.Header.Get("X-Telegram-Bot-Api-Secret-Token")
	if subtle.ConstantTimeCompare([]byte(got), []byte(b.opts.WebhookSecret)) != 1 {
		b.log.Warn("webhook request with a wrong secret refused", "remote", r.RemoteAddr)
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	h := b.webhook.Load()
	if h == nil {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	(*h)(w, r)
}

// startWebhook registers the webhook with Telegram and starts the workers
// that handle what ServeHTTP receives.
func (b *Bot) startWebhook(ctx, run context.Context) error {
	// Ready before registering: Telegram may post right after setWebhook.
	h := b.tg.WebhookHandler()
	b.webhook.Store(&h)
	go func() {
		defer close(b.polling)
		b.tg.StartWebhook(run)
	}()
	_, err := b.tg.SetWebhook(ctx, &tgbot.SetWebhookParams{URL: b.opts.WebhookURL, SecretToken: b.opts.WebhookSecret,
		AllowedUpdates: []string{"message", "callback_query"}})
	if err != nil {
		b.webhook.Store(nil)
		return fmt.Errorf("set webhook: %w", redactErr(err, b.opts.Token))
	}
	return nil
}
