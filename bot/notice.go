package bot

import (
	"context"
	"errors"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// notice turns an error of a button press into the short text of its
// callback answer. It is the one place errors become user notices;
// unexpected errors are logged by the caller.
func notice(loc *formatting.Locale, err error) (string, bool) {
	switch {
	case err == nil:
		return "", true
	case errors.Is(err, nod.ErrForbidden):
		return loc.Notice("n_forbidden", nil), true
	case errors.Is(err, nod.ErrExpired):
		return loc.Notice("n_expired", nil), true
	case errors.Is(err, nod.ErrDecided):
		return loc.Notice("n_decided", nil), true
	case errors.Is(err, nod.ErrStale):
		return loc.Notice("n_stale_undo", nil), true
	case errors.Is(err, nod.ErrTrashed):
		return loc.Notice("n_trashed", nil), true
	case errors.Is(err, nod.ErrNotFound):
		return loc.Notice("n_not_here", nil), true
	case errors.Is(err, nod.ErrInvalid):
		return loc.Notice("n_invalid", nil), true
	}
	return loc.Notice("n_failed", nil), false
}

// decidedNotice names the state of an item that was already decided.
func decidedNotice(loc *formatting.Locale, set nod.ChangeSet, n int) string {
	if it, ok := set.Item(n); ok && it.Status != nod.ItemPending {
		return loc.Notice("n_item_decided", map[string]any{"N": n, "Status": it.Status})
	}
	return loc.Notice("n_decided", nil)
}

// strangerNotice refuses a stranger in the language of their app; nothing
// of theirs is stored.
func strangerNotice(lang string, user nod.UserID) string {
	return formatting.For(lang).Notice("n_stranger", user)
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
	if err != nil {
		b.log.Warn("chat language", "chat", chat, "err", err)
		return formatting.For(seen).In(b.opts.TimeZone), nil
	}
	// Written only when it changes the language: most updates write nothing.
	if seen != "" && formatting.For(seen) != formatting.For(s.LanguageSeen) {
		if err := b.chats.SeeLanguage(ctx, chat, seen); err != nil {
			b.log.Warn("remember chat language", "chat", chat, "err", err)
		}
	}
	return formatting.For(s.Lang(seen)).In(b.zone(&s)), &s
}

// explain is the notice for a failed action; an error with no notice of
// its own is logged as what, with args, for the operator.
func (b *Bot) explain(loc *formatting.Locale, err error, what string, args ...any) string {
	text, known := notice(loc, err)
	if !known {
		b.log.Error(what, append(args, "err", err)...)
	}
	return text
}
