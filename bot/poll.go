package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// allowedUpdates are the updates nod handles, asked for by name when
// polling and when setting a webhook: a request without the list leaves
// Telegram on the last one it was sent, which may lack edits.
var allowedUpdates = []string{models.AllowedUpdateMessage, models.AllowedUpdateEditedMessage, models.AllowedUpdateCallbackQuery}

// maxPollBackoff bounds the wait between failed polls.
const maxPollBackoff = 5 * time.Second

// poll receives updates by long polling from offset on until ctx is done,
// handing each to handle in order. nod polls itself rather than through
// the library, which decodes a batch as a whole: one update it cannot
// decode (a kind Telegram added later) would fail every poll and keep the
// offset where it is, and nothing after it would arrive. Here each update
// is decoded on its own, and one that cannot be costs only itself.
func (b *Bot) poll(ctx context.Context, client httpDoer, offset int64) {
	var backoff time.Duration
	for ctx.Err() == nil {
		if backoff > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
		}
		raws, retryAfter, err := b.getUpdates(ctx, client, offset)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			backoff = min(max(2*backoff, 100*time.Millisecond), maxPollBackoff)
			if retryAfter > 0 {
				backoff = retryAfter
			}
			b.log.Warn("telegram: get updates", "err", excerpt(redactErr(err, b.opts.Token).Error(), 300), "retry_in", backoff)
			continue
		}
		backoff = 0
		for _, raw := range raws {
			u, id, err := decodeUpdate(raw)
			if id >= offset {
				offset = id + 1
			}
			if err != nil {
				b.undecodable(raw, id, err)
				continue
			}
			b.handle(u)
		}
	}
}

// httpDoer sends a request; *http.Client and sizedBodies are ones.
type httpDoer interface {
	Do(*http.Request) (*http.Response, error)
}

// getUpdates asks for the updates from offset on, waiting up to the poll
// timeout for one, and returns them undecoded.
func (b *Bot) getUpdates(ctx context.Context, client httpDoer, offset int64) ([]json.RawMessage, time.Duration, error) {
	kinds, _ := json.Marshal(allowedUpdates)
	form := url.Values{
		"offset":          {strconv.FormatInt(offset, 10)},
		"timeout":         {strconv.Itoa(int(max(b.opts.PollTimeout-time.Second, 0) / time.Second))},
		"allowed_updates": {string(kinds)},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.opts.APIURL+"/bot"+b.opts.Token+"/getUpdates", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, 0, fmt.Errorf("get updates: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("get updates: %w", err)
	}
	defer resp.Body.Close()
	var r struct {
		OK          bool              `json:"ok"`
		Result      []json.RawMessage `json:"result"`
		Description string            `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxPollBody)).Decode(&r); err != nil {
		return nil, 0, fmt.Errorf("get updates: %s: %w", resp.Status, err)
	}
	if !r.OK {
		return nil, time.Duration(r.Parameters.RetryAfter) * time.Second, fmt.Errorf("get updates: %s: %s", resp.Status, r.Description)
	}
	return r.Result, 0, nil
}

// maxPollBody bounds one getUpdates answer: at most 100 updates, each far
// under the webhook's bound.
const maxPollBody = 100 * maxWebhookBody

// decodeUpdate decodes one update. Its id is returned even when the rest
// cannot be decoded, so that the offset moves past it.
func decodeUpdate(raw []byte) (*models.Update, int64, error) {
	var u models.Update
	err := json.Unmarshal(raw, &u)
	if err == nil {
		return &u, u.ID, nil
	}
	var head struct {
		ID int64 `json:"update_id"`
	}
	if herr := json.Unmarshal(raw, &head); herr != nil {
		return nil, 0, fmt.Errorf("update id: %w", herr)
	}
	return nil, head.ID, err
}

// undecodable logs an update that could not be decoded and, when it is a
// message of an allowed person, tells them nod could not read it, in the
// chat's order: they would otherwise wait for an answer that never comes.
func (b *Bot) undecodable(raw []byte, id int64, err error) {
	b.metrics.updates.WithLabelValues("undecodable").Inc()
	b.log.Warn("update not decodable; skipped", "update", id, "bytes", len(raw), "excerpt", excerpt(string(raw), 120), "err", excerpt(err.Error(), 200))
	type sender struct {
		ID   int64  `json:"id"`
		Lang string `json:"language_code"`
	}
	type message struct {
		ID   int `json:"message_id"`
		Chat struct {
			ID int64 `json:"id"`
		} `json:"chat"`
		From *sender `json:"from"`
		// Its topic, where the answer goes (see messageTopic).
		Thread  int  `json:"message_thread_id"`
		InTopic bool `json:"is_topic_message"`
	}
	var env struct {
		Message *message `json:"message"`
		Edited  *message `json:"edited_message"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return // not even the envelope: nobody to tell
	}
	m := env.Message
	if m == nil {
		m = env.Edited
	}
	if m == nil || m.From == nil || !b.allowed[nod.UserID(m.From.ID)] || nod.ChatID(m.Chat.ID) == 0 {
		return
	}
	b.queue.push(b.work, nod.ChatID(m.Chat.ID), nil, func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, b.opts.UpdateTimeout)
		defer cancel()
		if first, _ := b.firstDelivery(ctx, id); !first {
			return
		}
		loc, _ := b.settings(ctx, nod.ChatID(m.Chat.ID), nod.UserID(m.From.ID), m.From.Lang)
		at := nod.Topic{ChatID: nod.ChatID(m.Chat.ID)}
		if m.InTopic {
			at.Thread = nod.ThreadID(m.Thread)
		}
		if _, err := b.send.send(ctx, at, loc.Text(formatting.Unreadable), m.ID); err != nil {
			b.sendFailed(ctx, err, "chat", nod.ChatID(m.Chat.ID))
		}
	})
}
