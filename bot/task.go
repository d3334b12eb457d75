package bot

import (
	"context"
	"errors"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

func (b *Bot) cmdTasks(ctx context.Context, in incoming) {
	tasks, err := b.store.ListTasks(ctx, in.chat, nod.TaskFilter{})
	if err != nil {
		b.log.Error("list tasks", "chat", in.chat, "err", err)
		b.reply(ctx, in.chat, in.loc.Text("internal_error", nil))
		return
	}
	b.reply(ctx, in.chat, in.loc.TaskList(tasks))
}

func (b *Bot) onOpenTask(ctx context.Context, p press) string {
	t, err := b.store.Task(ctx, p.chat, p.action.ID)
	if err != nil {
		text, _ := notice(p.loc, err)
		return text
	}
	p.then(func(ctx context.Context) { b.reply(ctx, p.chat, p.loc.TaskCard(t)) })
	return ""
}

func (b *Bot) onToggle(ctx context.Context, p press) string {
	applied, err := b.decide.Toggle(ctx, p.chat, p.user, p.action.ID, p.action.N)
	if errors.Is(err, nod.ErrDecided) {
		// The card was out of date: show the item as it is.
		p.then(func(ctx context.Context) {
			if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.TaskCard(applied.After)); err != nil {
				b.log.Warn("refresh task card", "err", err)
			}
		})
		it, _ := applied.After.Item(p.action.ID)
		return formatting.PlainText(p.loc.Render("already_toggled", it))
	}
	if err != nil {
		return b.explain(p.loc, err, "toggle", "chat", p.chat)
	}
	p.then(func(ctx context.Context) {
		if err := b.send.edit(ctx, p.chat, p.msgID, p.loc.TaskCard(applied.After)); err != nil {
			b.log.Warn("refresh task card", "err", err)
		}
	})
	it, _ := applied.After.Item(p.action.ID)
	return formatting.PlainText(p.loc.Render("toggled", it))
}
