package bot

import (
	"context"
	"strings"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

func (b *Bot) onSetMode(ctx context.Context, p press) string {
	m, err := nod.ParseMode(p.action.ID)
	if err != nil {
		text, _ := notice(p.loc, err, nil)
		return text
	}
	if err := b.chats.SetMode(ctx, p.chat, p.user, m); err != nil {
		b.log.Error("set mode", "chat", p.chat, "err", err)
		text, _ := notice(p.loc, err, nil)
		return text
	}
	p.then(func(ctx context.Context) {
		b.redrawModeCard(ctx, p)
		b.reply(ctx, p.topic(), p.loc.Text(formatting.ModeSet.With(m)))
	})
	return p.loc.Notice(formatting.NoticeMode.With(m))
}

// redrawModeCard keeps the pressed message true: /mode's card shows the
// mode now, and the breaker's message, its button used, says it is over.
func (b *Bot) redrawModeCard(ctx context.Context, p press) {
	switch {
	case p.keyboard == nil:
		return // an old message Telegram no longer shows us
	case len(p.keyboard.InlineKeyboard) != 1 || len(p.keyboard.InlineKeyboard[0]) < 2:
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Changes().BreakerEnded(nod.Mode(p.action.ID))); err != nil {
			b.log.Warn("breaker message", "chat", p.chat, "err", err)
		}
		return
	}
	s, err := b.chats.ChatSettings(ctx, p.chat, p.user)
	if err != nil {
		b.log.Warn("mode card", "chat", p.chat, "err", err)
		return
	}
	if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Changes().ModeChoice(s, b.now())); err != nil {
		b.log.Warn("mode card", "chat", p.chat, "err", err)
	}
}

func (b *Bot) cmdMode(ctx context.Context, in incoming) {
	arg := strings.TrimSpace(strings.TrimPrefix(in.text, "/"+strings.SplitN(in.text[1:], " ", 2)[0]))
	if arg == "" {
		s, err := b.chats.ChatSettings(ctx, in.chat, in.user)
		if err != nil {
			b.log.Error("mode", "chat", in.chat, "err", err)
			b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
			return
		}
		b.reply(ctx, in.topic(), in.loc.Changes().ModeChoice(s, b.now()))
		return
	}
	m, err := nod.ParseMode(arg)
	if err != nil {
		s, _ := b.chats.ChatSettings(ctx, in.chat, in.user)
		b.reply(ctx, in.topic(), in.loc.Changes().ModeChoice(s, b.now()))
		return
	}
	if err := b.chats.SetMode(ctx, in.chat, in.user, m); err != nil {
		b.log.Error("set mode", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.reply(ctx, in.topic(), in.loc.Text(formatting.ModeSet.With(m)))
}
