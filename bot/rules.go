package bot

import (
	"context"
	"errors"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// offerRule sends the offer of a learned rule to topic at, where the
// confirmations that earned it were made, if they earned one.
func (b *Bot) offerRule(ctx context.Context, loc *formatting.Locale, at nod.Topic, r *nod.Rule) {
	if r == nil {
		return
	}
	id := b.reply(ctx, at, loc.Rules().Offer(*r))
	if id == 0 {
		return
	}
	if err := b.messages.SetRuleMessage(ctx, r.ID, id); err != nil {
		b.log.Error("remember rule offer", "rule", r.ID, "err", err)
	}
}

func (b *Bot) onAcceptRule(ctx context.Context, p press) string { return b.decideRule(ctx, p, true) }

func (b *Bot) onDeclineRule(ctx context.Context, p press) string { return b.decideRule(ctx, p, false) }

// decideRule answers a rule's offer; the offer's message then says what
// was decided, without buttons.
func (b *Bot) decideRule(ctx context.Context, p press, accept bool) string {
	r, err := b.rules.DecideRule(ctx, p.chat, p.user, p.rule(), accept)
	if errors.Is(err, nod.ErrDecided) {
		return p.loc.Notice(formatting.NoticeRuleDecided)
	}
	if err != nil {
		return b.explain(p.loc, err, "decide rule", "chat", p.chat, "rule", p.action.ID)
	}
	p.then(func(ctx context.Context) {
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.Rules().Decided(r)); err != nil {
			b.log.Warn("edit rule offer", "chat", p.chat, "err", err)
		}
	})
	if accept {
		return p.loc.Notice(formatting.NoticeRuleOn.With(p.loc.Rules().Until(r)))
	}
	return p.loc.Notice(formatting.NoticeRuleDeclined)
}

// onRevokeRule revokes a rule from the /rules list, which then shows the
// rules left.
func (b *Bot) onRevokeRule(ctx context.Context, p press) string {
	if text, ok := b.revokeRule(ctx, p); !ok {
		return text
	}
	p.then(func(ctx context.Context) {
		if m, err := b.rulesList(ctx, p.loc, p.chat, p.user, p.group); err == nil {
			if err := b.send.edit(ctx, p.chat, p.msgID, m); err != nil {
				b.log.Warn("edit rules", "chat", p.chat, "err", err)
			}
		}
	})
	return p.loc.Notice(formatting.NoticeRuleRevoked)
}

// onStopRule revokes a rule from a receipt of its change; the receipt
// keeps its Undo.
func (b *Bot) onStopRule(ctx context.Context, p press) string {
	if text, ok := b.revokeRule(ctx, p); !ok {
		return text
	}
	if p.keyboard != nil {
		p.then(func(ctx context.Context) {
			b.send.editKeyboard(ctx, p.chat, p.msgID, withoutButton(p.keyboard, p.data))
		})
	}
	return p.loc.Notice(formatting.NoticeRuleRevoked)
}

// revokeRule revokes the pressed rule; a rule revoked before, or expired,
// counts as done. It returns the refusal and false if it may not.
func (b *Bot) revokeRule(ctx context.Context, p press) (string, bool) {
	_, err := b.rules.RevokeRule(ctx, p.chat, p.user, p.rule())
	if err == nil || errors.Is(err, nod.ErrDecided) {
		return "", true
	}
	return b.explain(p.loc, err, "revoke rule", "chat", p.chat, "rule", p.action.ID), false
}

func (b *Bot) cmdRules(ctx context.Context, in incoming) {
	m, err := b.rulesList(ctx, in.loc, in.chat, in.user, in.speaker != "")
	if err != nil {
		b.log.Error("rules", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	b.reply(ctx, in.topic(), m)
}

// rulesList is /rules as user sees it: the chat's rules in force and, in
// a private chat, how far they have come toward others (in a group the
// message is everyone's, the streaks one member's).
func (b *Bot) rulesList(ctx context.Context, loc *formatting.Locale, chat nod.ChatID, user nod.UserID, group bool) (formatting.Message, error) {
	now := b.now()
	rs, err := b.rulebook.Rules(ctx, chat, now)
	if err != nil {
		return formatting.Message{}, err
	}
	var near []nod.Streak
	if !group {
		if near, err = b.rulebook.Streaks(ctx, chat, user, now); err != nil {
			return formatting.Message{}, err
		}
	}
	return loc.Rules().List(rs, near), nil
}
