package bot

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"unicode/utf8"

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
// wrong secret, and to an update it drops while stopping, so nod serves
// the webhook itself: the secret is checked first, in constant time; an
// update is answered 200 only once it is queued for handling, and 503
// (Telegram delivers it again later) while nod is starting or stopping.
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	if err != nil {
		b.log.Warn("webhook body refused", "bytes", len(body), "err", err)
		http.Error(w, "body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	b.gate.RLock()
	defer b.gate.RUnlock()
	if !b.accepting {
		http.Error(w, "not accepting updates now", http.StatusServiceUnavailable)
		return
	}
	u, id, err := decodeUpdate(body)
	if err != nil {
		// Delivered again, the same bytes would fail again: answered 200,
		// it costs only itself.
		b.undecodable(body, id, err)
		return
	}
	b.handle(u) // queues the work and returns at once
}

// maxWebhookBody bounds one webhook request; Telegram's updates are far
// smaller.
const maxWebhookBody = 1 << 20

// excerpt cuts s to at most n bytes, on a rune boundary, for a log line.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// startWebhook registers the webhook with Telegram; updates then arrive
// through ServeHTTP.
func (b *Bot) startWebhook(ctx context.Context) error {
	// Ready before registering: Telegram may post right after setWebhook.
	b.accept(true)
	_, err := b.tg.SetWebhook(ctx, &tgbot.SetWebhookParams{URL: b.opts.WebhookURL, SecretToken: b.opts.WebhookSecret,
		AllowedUpdates: allowedUpdates})
	if err != nil {
		b.accept(false)
		return fmt.Errorf("set webhook: %w", redactErr(err, b.opts.Token))
	}
	return nil
}

// accept opens or closes the webhook for updates. Closing waits for
// ServeHTTP calls that are queueing an update, so that every update
// answered 200 is in the work that Stop then waits for.
func (b *Bot) accept(on bool) {
	b.gate.Lock()
	b.accepting = on
	b.gate.Unlock()
}
