package bot

import (
	"context"
	"time"
)

// sweep expires old change sets (their messages say so and lose their
// buttons) and purges the trash. Safe on several replicas at once: each set
// is expired, and each message edited, by one of them.
func (b *Bot) sweep(ctx context.Context) {
	now := b.now()
	expired, err := b.store.ExpireSets(ctx, now.Add(-b.opts.ChangeSetTTL))
	if err != nil {
		b.log.Error("expire change sets", "err", err)
	}
	for _, s := range expired {
		b.log.Info("change set expired", "chat", s.ChatID, "set", s.ID)
		b.refresh(ctx, s, 0, 0)
	}
	n, err := b.store.PurgeTrash(ctx, now.Add(-b.opts.TrashRetention))
	if err != nil {
		b.log.Error("purge trash", "err", err)
	} else if n > 0 {
		b.log.Info("trash purged", "tasks", n)
	}
}

// sweeper runs sweep every SweepInterval until ctx is done.
func (b *Bot) sweeper(ctx context.Context) {
	defer b.handlers.Done()
	t := time.NewTicker(b.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.sweep(ctx)
		}
	}
}
