package bot

import (
	"context"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

func (b *Bot) cmdPending(ctx context.Context, in incoming) {
	sets, err := b.sets.OpenChangeSets(ctx, in.topic())
	if err != nil {
		b.log.Error("pending", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	if len(sets) == 0 {
		b.reply(ctx, in.topic(), in.loc.Text(formatting.PendingNone))
		return
	}
	for _, s := range sets {
		// A reply to the set's message is the link to it.
		count := formatting.PendingCount{Pending: len(s.Pending()), Total: len(s.Items)}
		if in.speaker != "" { // a group: say whom each set waits for
			switch {
			case s.UserID == 0:
				count.Anyone = true
			case s.UserID != in.user:
				count.For, count.Other = b.nameOf(ctx, in.chat, s.UserID), true
			}
		}
		m := in.loc.Text(formatting.PendingItem.With(count))
		if _, err := b.send.send(ctx, in.topic(), m, s.MessageID); err != nil {
			b.log.Error("pending", "chat", in.chat, "err", err)
		}
	}
}

func (b *Bot) cmdAudit(ctx context.Context, in incoming) {
	entries, err := b.audit.Audit(ctx, in.chat, 15)
	if err != nil {
		b.log.Error("audit", "chat", in.chat, "err", err)
		b.reply(ctx, in.topic(), in.loc.Text(formatting.InternalError.With(0)))
		return
	}
	var ids []nod.TaskID
	for _, e := range entries {
		if id := e.Arg("task_id"); id != "" {
			ids = append(ids, nod.TaskID(id))
		}
	}
	titles, err := b.tasks.TaskTitles(ctx, in.chat, ids)
	if err != nil {
		b.log.Warn("audit titles", "chat", in.chat, "err", err)
	}
	// The whole group reads the list: each row names its member.
	var names map[nod.UserID]string
	if in.speaker != "" {
		names = map[nod.UserID]string{}
		for _, e := range entries {
			if _, ok := names[e.UserID]; !ok && e.UserID != 0 {
				names[e.UserID] = b.nameOf(ctx, in.chat, e.UserID)
			}
		}
	}
	b.reply(ctx, in.topic(), in.loc.Audit(entries, titles, names))
}
