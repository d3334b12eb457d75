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
	var (
		backoff time.Duration // after failed polls
		idle    idlePacer     // after empty answers that came back early
	)
	for ctx.Err() == nil {
		var wait <-chan time.Time
		switch {
		case backoff > 0:
			wait = time.After(backoff)
		case idle.wait > 0:
			wait = b.opts.After(idle.wait)
		}
		if wait != nil {
			select {
			case <-ctx.Done():
				return
			case <-wait:
			}
		}
		// The server's own time, not the clock's: whether it held the
		// poll is a fact of the wire.
		start := time.Now()
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
		b.pace(&idle, len(raws), time.Since(start))
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

// The waits between polls answered early with nothing double from
// firstIdleWait up to maxIdleWait: Telegram holds an empty poll for its
// whole timeout and never meets them, while a server that answers at once
// (some Bot API emulators do) is asked at most once a second instead of
// thousands of times. A message sent meanwhile waits at most maxIdleWait
// before it is fetched.
const (
	firstIdleWait = 100 * time.Millisecond
	maxIdleWait   = time.Second
)

// idlePacer spaces out polls that the server answers early with nothing.
type idlePacer struct {
	wait  time.Duration // before the next poll
	early int           // such answers in a row
}

// idleWait is the wait before the next poll after one that brought n
// updates in took, of a poll that asked the server to hold it for asked,
// when the wait before it was prev. Updates, or an empty answer that was
// held for at least half the time asked, mean the server long-polls: no
// wait. A timeout of zero asks for no holding, and every empty answer
// waits.
func idleWait(prev time.Duration, n int, took, asked time.Duration) time.Duration {
	if n > 0 || asked > 0 && took >= asked/2 {
		return 0
	}
	return min(max(2*prev, firstIdleWait), maxIdleWait)
}

// pace updates p after a poll, logging where an episode of early empty
// answers starts and ends, not every poll of it.
func (b *Bot) pace(p *idlePacer, n int, took time.Duration) {
	wait := idleWait(p.wait, n, took, b.pollTimeout())
	switch {
	case wait > 0 && p.wait == 0:
		b.log.Warn("telegram: get updates answered at once with nothing; spacing polls out",
			"took_ms", took.Milliseconds(), "timeout_s", int(b.pollTimeout()/time.Second), "max_wait", maxIdleWait)
	case wait == 0 && p.wait > 0:
		b.log.Info("telegram: get updates holds or brings updates again; polling at once", "early_answers", p.early)
	}
	p.wait = wait
	if wait > 0 {
		p.early++
	} else {
		p.early = 0
	}
}

// pollTimeout is how long getUpdates asks the server to hold a poll that
// finds nothing: a second under PollTimeout, so that the answer comes
// before the client gives up.
func (b *Bot) pollTimeout() time.Duration {
	return max(b.opts.PollTimeout-time.Second, 0).Truncate(time.Second)
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
		"timeout":         {strconv.Itoa(int(b.pollTimeout() / time.Second))},
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
// A button press is answered (answerUnreadable), or its button would spin.
func (b *Bot) undecodable(raw []byte, id int64, err error) {
	b.metrics.updates.WithLabelValues("undecodable").Inc()
	b.log.Warn("update not decodable; skipped", "update", id, "bytes", len(raw), "excerpt", excerpt(string(raw), 120), "err", excerpt(err.Error(), 200))
	if p, ok := readPress(raw); ok {
		b.answerUnreadable(id, p)
		return
	}
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

// unreadPress is what could be read of a button press whose update did
// not decode: its query's id, who pressed (0: unknown) and in which chat.
type unreadPress struct {
	id   string
	user nod.UserID
	lang string
	chat nod.ChatID
}

// readPress reads what it can of raw's callback query, field by field, so
// that a field of a type nod does not expect costs only itself; ok is
// false when raw holds no callback query with an id to answer.
func readPress(raw []byte) (p unreadPress, ok bool) {
	var env struct {
		Query map[string]json.RawMessage `json:"callback_query"`
	}
	if json.Unmarshal(raw, &env) != nil || json.Unmarshal(env.Query["id"], &p.id) != nil || p.id == "" {
		return unreadPress{}, false
	}
	var from struct {
		ID   int64  `json:"id"`
		Lang string `json:"language_code"`
	}
	if json.Unmarshal(env.Query["from"], &from) == nil {
		p.user, p.lang = nod.UserID(from.ID), from.Lang
	}
	var msg struct {
		Chat struct {
			ID int64 `json:"id"`
		} `json:"chat"`
	}
	if json.Unmarshal(env.Query["message"], &msg) == nil {
		p.chat = nod.ChatID(msg.Chat.ID)
	}
	return p, true
}

// answerUnreadable answers a button press nod could not decode, at once
// and beside the chat's queue as handle answers one: an allowed person's
// once per update (a redelivery is dropped before the answer), saying it
// could not be read; a stranger's as onCallback refuses one; one whose
// sender cannot be read with no text.
func (b *Bot) answerUnreadable(update int64, p unreadPress) {
	b.handlers.Add(1)
	b.metrics.presses.Inc()
	go func() {
		defer b.handlers.Done()
		defer b.metrics.presses.Dec()
		ctx, cancel := context.WithTimeout(b.work, b.opts.UpdateTimeout)
		defer cancel()
		switch {
		case p.user == 0:
			b.send.answer(ctx, p.id, "")
		case !b.allowed[p.user]:
			b.log.Info("stranger's button refused", "chat", p.chat, "user", p.user)
			b.send.answer(ctx, p.id, strangerNotice(p.lang, p.user))
		default:
			first, err := b.firstDelivery(ctx, update)
			switch {
			case err != nil: // the database failed: the update's own language
				text, _ := notice(formatting.For(p.lang), err, nil)
				b.send.answer(ctx, p.id, text)
			case first && p.chat != 0:
				b.send.answer(ctx, p.id, b.locale(ctx, p.chat, p.lang).Notice(formatting.NoticeUnreadable))
			case first:
				b.send.answer(ctx, p.id, formatting.For(p.lang).Notice(formatting.NoticeUnreadable))
			}
		}
	}()
}
