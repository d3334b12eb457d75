package bot

import (
	"context"
	"errors"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// notices is the one table of the errors a press can meet and the notice
// template that answers each, in order: the first that matches wins.
var notices = []struct {
	err error
	key formatting.Fixed
}{
	{nod.ErrForbidden, formatting.NoticeForbidden},
	{nod.ErrExpired, formatting.NoticeExpired},
	{nod.ErrDecided, formatting.NoticeDecided},
	{nod.ErrSent, formatting.NoticeRemindSent},
	{nod.ErrTwin, formatting.NoticeTwin},
	{nod.ErrStale, formatting.NoticeStaleUndo},
	{nod.ErrTrashed, formatting.NoticeTrashed},
	{nod.ErrNotFound, formatting.NoticeNotHere},
	{nod.ErrInvalid, formatting.NoticeInvalid},
}

// overrides are an action's own words for some errors of the table: an
// undo that is too late says so, not that something "expired".
type overrides map[error]formatting.Fixed

// Overrides of the actions that have them.
var (
	undoNotices     = overrides{nod.ErrExpired: formatting.NoticeUndoLate, nod.ErrForbidden: formatting.NoticeUndoForbidden}
	undoZoneNotices = overrides{nod.ErrForbidden: formatting.NoticeUndoForbidden, nod.ErrStale: formatting.NoticeZoneStale, nod.ErrDecided: formatting.NoticeZoneStale}
	zoneNotices     = overrides{nod.ErrDecided: formatting.NoticeZoneStale}
	cardNotices     = overrides{nod.ErrDecided: formatting.NoticeCardStale, nod.ErrForbidden: formatting.NoticeTaskForbidden}
	reminderNotices = overrides{nod.ErrNotFound: formatting.NoticeRemindGone, nod.ErrDecided: formatting.NoticeRemindClosed, nod.ErrForbidden: formatting.NoticeRemindForbidden}
)

// notice turns an error of a button press into the short text of its
// callback answer, in the action's own words where over has them; known
// reports whether the error is one of the table's (the caller logs the
// others).
func notice(loc *formatting.Locale, err error, over overrides) (text string, known bool) {
	if err == nil {
		return "", true
	}
	for _, n := range notices {
		if errors.Is(err, n.err) {
			key := n.key
			if k, ok := over[n.err]; ok {
				key = k
			}
			return loc.Notice(key), true
		}
	}
	return loc.Notice(formatting.NoticeFailed), false
}

// decidedNotice names the state of an item that was already decided.
func decidedNotice(loc *formatting.Locale, set nod.ChangeSet, n int) string {
	if it, ok := set.Item(n); ok && it.Status != nod.ItemPending {
		return loc.Notice(formatting.NoticeItemDecided.With(formatting.DecidedItem{N: n, Status: it.Status}))
	}
	return loc.Notice(formatting.NoticeDecided)
}

// strangerNotice refuses a stranger in the language of their app; nothing
// of theirs is stored.
func strangerNotice(lang string, user nod.UserID) string {
	return formatting.For(lang).Notice(formatting.NoticeStranger.With(user))
}

// locale is the language to write to chat in: the one chosen there with
// /lang, else the one Telegram reports for this update (seen; remembered
// for messages sent without an update), else the last one seen.
func (b *Bot) locale(ctx context.Context, chat nod.ChatID, seen string) *formatting.Locale {
	loc, _ := b.settings(ctx, chat, 0, seen)
	return loc
}

// settings is locale with the chat's settings it read, user's mode among
// them, nil if they could not be read.
func (b *Bot) settings(ctx context.Context, chat nod.ChatID, user nod.UserID, seen string) (*formatting.Locale, *nod.ChatSettings) {
	s, err := b.chats.ChatSettings(ctx, chat, user)
	return b.localeOf(ctx, chat, seen, s, err)
}

// localeOf is settings for the chat's settings s as read, err the read's
// failure.
func (b *Bot) localeOf(ctx context.Context, chat nod.ChatID, seen string, s nod.ChatSettings, err error) (*formatting.Locale, *nod.ChatSettings) {
	if err != nil {
		b.log.Warn("chat language", "chat", chat, "err", err)
		return formatting.For(seen).In(b.opts.TimeZone), nil
	}
	// Written only when it changes the language: most updates write nothing.
	if newLanguage(s, seen) {
		if err := b.chats.SeeLanguage(ctx, chat, seen); err != nil {
			b.log.Warn("remember chat language", "chat", chat, "err", err)
		}
	}
	return formatting.For(s.Lang(seen)).In(b.zone(&s)), &s
}

// newLanguage reports whether Telegram reports, as seen, a language
// other than the one the chat's settings s last saw.
func newLanguage(s nod.ChatSettings, seen string) bool {
	return seen != "" && formatting.For(seen) != formatting.For(s.LanguageSeen)
}

// explain is the notice for a failed action; an error with no notice of
// its own is logged as what, with args, for the operator.
func (b *Bot) explain(loc *formatting.Locale, err error, what string, args ...any) string {
	return b.explainAs(loc, err, nil, what, args...)
}

// explainAs is explain in the action's own words where over has them.
func (b *Bot) explainAs(loc *formatting.Locale, err error, over overrides, what string, args ...any) string {
	text, known := notice(loc, err, over)
	if !known {
		b.log.Error(what, append(args, "err", err)...)
	}
	return text
}
