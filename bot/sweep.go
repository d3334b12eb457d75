package bot

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// sweep delivers what is owed and what fell due, then shows what the
// sweep service reports: expired sets' messages say so and lose their
// buttons, warned ones say when they end, and lines of deletions move
// on, and a /forget whose time ran out says so. Safe on several replicas at once: each set is reported, and each
// message edited, by one of them.
func (b *Bot) sweep(ctx context.Context) {
	b.deliverOwed(ctx)
	now := b.now()
	b.sweeps.Schedule(ctx, now, b.deliverDue)
	r := b.sweeps.Run(ctx, now)
	for _, s := range r.Expired {
		b.refresh(ctx, b.locale(ctx, s.ChatID, ""), s, 0, 0, nil)
	}
	for _, s := range r.Warned {
		b.refresh(ctx, b.locale(ctx, s.ChatID, ""), s, 0, 0, nil)
	}
	for _, d := range r.Deletions {
		chat, user := d.ChatID, d.UserID
		// In the chat's queue, behind the message being handled, whose
		// replies come before the next question.
		b.queue.push(b.work, chat, nil, func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, b.opts.UpdateTimeout)
			defer cancel()
			defer b.recover(ctx, d.Topic)
			b.askDeletion(ctx, chat, user, b.locale(ctx, chat, ""))
		})
	}
	for _, f := range r.Forgets {
		b.closeForget(ctx, f, b.locale(ctx, f.ChatID, ""), formatting.ForgetPromptExpired)
	}
	b.sweeps.Tidy(ctx, now)
}

// sweepSafely runs one sweep; a panic (a template that cannot render, say)
// is logged and the next sweep runs as usual.
func (b *Bot) sweepSafely(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("sweep panic", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	b.sweep(ctx)
	b.metrics.sweeps.Inc()
}

// sweeper runs sweep every SweepInterval until ctx is done.
func (b *Bot) sweeper(ctx context.Context) {
	defer b.handlers.Done()
	b.sweepSafely(ctx) // at once: what a stopped process owed goes out now
	t := time.NewTicker(b.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.sweepSafely(ctx)
		}
	}
}

func (b *Bot) onKeep(ctx context.Context, p press) string {
	set, err := b.keeper.KeepSet(ctx, p.chat, p.set(), p.user)
	if err != nil {
		text, _ := notice(p.loc, err, nil)
		return text
	}
	p.then(func(ctx context.Context) { b.refresh(ctx, p.loc, set, 0, p.msgID, nil) })
	return p.loc.Notice(formatting.NoticeKept.With(set.ExpiresAt.UTC().Format(nod.DateLayout)))
}
