package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// sender sends, edits and answers, with the care Telegram needs: long
// messages split, 429s waited out a bounded number of times, "message is
// not modified" ignored, HTML that Telegram refuses sent as plain text.
type sender struct {
	tg      *tgbot.Bot
	log     *slog.Logger
	metrics *metrics
	limit   *limiter
	// bind records the callback data a message carries, once it is sent
	// and before it is edited: a press counts only on a message that
	// carries its data.
	bind func(ctx context.Context, chat nod.ChatID, id int, data []string)
}

const maxRetries = 3

// transient matches the library's errors for 5xx answers and failed
// connections; it has no typed error for them.
var transient = regexp.MustCompile(`error response from telegram for method \w+, 5\d\d |error do request for method`)

// retry runs call, waiting out 429s (their retry_after) and retrying 5xx
// answers and connection failures with a growing pause, up to maxRetries
// times. Anything else (400, 403 blocked by the user) is final at once.
func (s *sender) retry(ctx context.Context, what string, call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		if err != nil {
			s.metrics.apiError.WithLabelValues(what, errorKind(err)).Inc()
		}
		if err == nil || attempt == maxRetries || ctx.Err() != nil {
			return err
		}
		var (
			tooMany *tgbot.TooManyRequestsError
			wait    time.Duration
		)
		switch {
		case errors.As(err, &tooMany):
			wait = time.Duration(max(tooMany.RetryAfter, 1)) * time.Second
			s.metrics.retries.WithLabelValues("rate_limited").Inc()
			s.log.Warn("telegram rate limit", "call", what, "retry_after_s", tooMany.RetryAfter)
		case transient.MatchString(err.Error()):
			wait = 250 * time.Millisecond << attempt
			s.metrics.retries.WithLabelValues("unavailable").Inc()
			s.log.Warn("telegram unavailable; retrying", "call", what, "attempt", attempt+1, "err", err)
		default:
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// htmlOrPlain runs call (with retry), which sends *text in parse mode
// *mode. If Telegram refuses the HTML ("can't parse entities"), it runs
// call once more with the text as the person would read it and no parse
// mode: a message whose markup nod got wrong still arrives, only without
// its bold, and what nod owed counts as delivered, once.
func (s *sender) htmlOrPlain(ctx context.Context, what string, chat nod.ChatID, text *string, mode *models.ParseMode, call func() error) error {
	err := s.retry(ctx, what, call)
	if *mode != models.ParseModeHTML || !refusedHTML(err) {
		return err
	}
	s.log.Warn("telegram refused the HTML; sending plain text", "call", what, "chat", chat, "err", err)
	*text, *mode = formatting.PlainText(*text), ""
	return s.retry(ctx, what, call)
}

// refusedHTML reports whether err is Telegram's 400 for markup it cannot
// parse.
func refusedHTML(err error) bool {
	return errors.Is(err, tgbot.ErrorBadRequest) && strings.Contains(err.Error(), "can't parse entities")
}

func keyboard(m formatting.Message) (*models.InlineKeyboardMarkup, error) {
	rows := make([][]models.InlineKeyboardButton, 0, len(m.Keyboard))
	for _, row := range m.Keyboard {
		var r []models.InlineKeyboardButton
		for _, b := range row {
			data, err := EncodeAction(b.Action)
			if err != nil {
				return nil, err
			}
			r = append(r, models.InlineKeyboardButton{Text: b.Text, CallbackData: data})
		}
		rows = append(rows, r)
	}
	// An empty, non-nil keyboard removes the buttons of an edited message.
	return &models.InlineKeyboardMarkup{InlineKeyboard: rows}, nil
}

// send sends m to topic at, split at 4096 characters; the keyboard goes
// on the last part. It returns the id of the last message sent.
func (s *sender) send(ctx context.Context, at nod.Topic, m formatting.Message, replyTo int) (int, error) {
	kb, err := keyboard(m)
	if err != nil {
		return 0, err
	}
	data, err := boundData(kb, m)
	if err != nil {
		return 0, err
	}
	chat := at.ChatID
	parts := formatting.Split(m.HTML)
	var id int
	for i, part := range parts {
		// A thread id only for a forum topic: Telegram refuses one
		// elsewhere ("message thread not found").
		p := &tgbot.SendMessageParams{ChatID: chat, MessageThreadID: int(at.Thread), Text: part, ParseMode: models.ParseModeHTML}
		if i == len(parts)-1 && len(kb.InlineKeyboard) > 0 {
			p.ReplyMarkup = kb
		}
		if replyTo != 0 && i == 0 {
			p.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
		}
		if err := s.limit.wait(ctx, chat); err != nil {
			return id, err
		}
		var sent *models.Message
		err := s.htmlOrPlain(ctx, "sendMessage", chat, &p.Text, &p.ParseMode, func() (err error) {
			sent, err = s.tg.SendMessage(ctx, p)
			return err
		})
		if err != nil {
			return id, fmt.Errorf("send message to chat %d: %w", chat, err)
		}
		id = sent.ID
		if p.ReplyMarkup != nil {
			// A press before this lands finds the message unrecorded and
			// is checked against Telegram's copy of its buttons.
			s.bind(ctx, chat, id, data)
		}
	}
	return id, nil
}

// boundData lists the data a message carries: its keyboard's buttons and
// the actions bound to it unshown (formatting.Message.Bind).
func boundData(kb *models.InlineKeyboardMarkup, m formatting.Message) ([]string, error) {
	data := callbackData(kb)
	for _, a := range m.Bind {
		d, err := EncodeAction(a)
		if err != nil {
			return nil, err
		}
		data = append(data, d)
	}
	return data, nil
}

// callbackData lists the data of a keyboard's buttons.
func callbackData(kb *models.InlineKeyboardMarkup) []string {
	var out []string
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			if b.CallbackData != "" {
				out = append(out, b.CallbackData)
			}
		}
	}
	return out
}

// edit replaces message id's text and buttons.
func (s *sender) edit(ctx context.Context, chat nod.ChatID, id int, m formatting.Message) error {
	return s.editBound(ctx, chat, id, m, false)
}

// editBound is edit, its buttons recorded already when bound is set (by
// the transaction that decided what the edit shows).
func (s *sender) editBound(ctx context.Context, chat nod.ChatID, id int, m formatting.Message, bound bool) error {
	kb, err := keyboard(m)
	if err != nil {
		return err
	}
	if !bound {
		data, err := boundData(kb, m)
		if err != nil {
			return err
		}
		// Recorded first: a button shown by the edit may be pressed at once.
		s.bind(ctx, chat, id, data)
	}
	p := &tgbot.EditMessageTextParams{ChatID: chat, MessageID: id, Text: m.HTML, ParseMode: models.ParseModeHTML, ReplyMarkup: kb}
	err = s.htmlOrPlain(ctx, "editMessageText", chat, &p.Text, &p.ParseMode, func() error {
		_, err := s.tg.EditMessageText(ctx, p)
		return err
	})
	if err != nil && !strings.Contains(err.Error(), "message is not modified") {
		return fmt.Errorf("edit message %d in chat %d: %w", id, chat, err)
	}
	return nil
}

// answer answers a callback query; a failure is logged, never fatal (a
// query older than about 15 s can no longer be answered).
func (s *sender) answer(ctx context.Context, id, text string) {
	if r := []rune(text); len(r) > 200 {
		text = string(r[:199]) + "…"
	}
	_, err := s.tg.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text})
	if err != nil {
		s.log.Warn("answer callback", "err", err)
	}
}

// typing shows "typing…" in topic at; failures are logged only.
func (s *sender) typing(ctx context.Context, at nod.Topic) {
	if _, err := s.tg.SendChatAction(ctx, &tgbot.SendChatActionParams{ChatID: at.ChatID, MessageThreadID: int(at.Thread), Action: models.ChatActionTyping}); err != nil {
		s.log.Warn("send chat action", "chat", at.ChatID, "err", err)
	}
}

// editKeyboard replaces message id's buttons.
func (s *sender) editKeyboard(ctx context.Context, chat nod.ChatID, id int, kb *models.InlineKeyboardMarkup) {
	s.bind(ctx, chat, id, callbackData(kb))
	err := s.retry(ctx, "editMessageReplyMarkup", func() error {
		_, err := s.tg.EditMessageReplyMarkup(ctx, &tgbot.EditMessageReplyMarkupParams{ChatID: chat, MessageID: id, ReplyMarkup: kb})
		return err
	})
	if err != nil && !strings.Contains(err.Error(), "message is not modified") {
		s.log.Warn("edit keyboard", "chat", chat, "err", err)
	}
}

// errorKind names a Bot API error for the metrics.
func errorKind(err error) string {
	var tooMany *tgbot.TooManyRequestsError
	switch {
	case errors.As(err, &tooMany):
		return "429"
	case errors.Is(err, tgbot.ErrorForbidden):
		return "403"
	case errors.Is(err, tgbot.ErrorBadRequest):
		return "400"
	case transient.MatchString(err.Error()):
		return "5xx_or_network"
	}
	return "other"
}
