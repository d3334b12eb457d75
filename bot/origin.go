package bot

import (
	"context"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/nodbot/nod"
)

// forwardedFrom says whose words a forwarded message carries, and when
// they were first sent, in zone: "Bob (2002), 2026-11-24 09:00". It is
// empty for a message that is not forwarded. The agent and the classifier
// read it; a forwarded message's words are never the person's own.
func forwardedFrom(o *models.MessageOrigin, zone *time.Location) string {
	if o == nil {
		return ""
	}
	who, date := "someone", 0
	switch o.Type {
	case models.MessageOriginTypeUser:
		if u := o.MessageOriginUser; u != nil {
			who, date = speaker(&u.SenderUser), u.Date
		}
	case models.MessageOriginTypeHiddenUser:
		if u := o.MessageOriginHiddenUser; u != nil {
			who, date = named("a person who hides their account", u.SenderUserName), u.Date
		}
	case models.MessageOriginTypeChat:
		if c := o.MessageOriginChat; c != nil {
			who, date = named("the group", c.SenderChat.Title), c.Date
		}
	case models.MessageOriginTypeChannel:
		if c := o.MessageOriginChannel; c != nil {
			who, date = named("the channel", c.Chat.Title), c.Date
		}
	}
	if date > 0 {
		who += ", " + time.Unix(int64(date), 0).In(zone).Format("2006-01-02 15:04")
	}
	return who
}

// named is what, with name quoted after it when there is one, cut short
// and on one line.
func named(what, name string) string {
	name = shortName(name)
	if name == "" {
		return what
	}
	return what + " “" + name + "”"
}

// onEdit handles an edited message that nothing had started on when it
// came: the edit is new words, and when nod already handled the words it
// replaces, the agent is told so, and those words stop counting as a
// quote. A change they made stays, with its Undo.
func (b *Bot) onEdit(ctx context.Context, m *models.Message) {
	if m.From == nil || m.From.IsBot {
		return
	}
	if !b.allowed[nod.UserID(m.From.ID)] {
		b.refuse(ctx, messageTopic(m), nod.UserID(m.From.ID), m.From.LanguageCode)
		return
	}
	in := b.incoming(ctx, m)
	if old, ok, err := b.conv.PersonMessage(ctx, in.chat, m.ID); err != nil {
		b.log.Warn("edited message: earlier words", "chat", in.chat, "err", err)
	} else if ok {
		in.editOf, in.edits = m.ID, old.Content
	}
	b.onText(ctx, in)
	b.refreshOwed(ctx, in.chat, in.loc)
}
