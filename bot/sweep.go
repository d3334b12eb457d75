package bot

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// sweep expires old change sets (their messages say so and lose their
// buttons), moves on lines of deletions whose question expired, and
// purges the trash. Safe on several replicas at once: each set is
// expired, and each message edited, by one of them.
func (b *Bot) sweep(ctx context.Context) {
	b.deliverOwed(ctx)
	now := b.now()
	b.schedule(ctx, now)
	// A sweep cut short by Stop has not failed: the next start sweeps again.
	failed := func(what string, err error) {
		if ctx.Err() == nil {
			b.log.Error(what, "err", err)
		}
	}
	expired, err := b.sweeps.ExpireSets(ctx, now)
	if err != nil {
		failed("expire change sets", err)
	}
	for _, s := range expired {
		b.log.Info("change set expired", "chat", s.ChatID, "set", s.ID)
		b.refresh(ctx, b.locale(ctx, s.ChatID, ""), s, 0, 0, nil)
	}
	// A day before expiry, or at 80 % of a shorter TTL, the message says so.
	lead := min(24*time.Hour, b.opts.ChangeSetTTL/5)
	warned, err := b.sweeps.WarnSets(ctx, now, func(s nod.ChangeSet) time.Time { return s.ExpiresAt.Add(-lead) })
	if err != nil {
		failed("warn change sets", err)
	}
	for _, s := range warned {
		b.refresh(ctx, b.locale(ctx, s.ChatID, ""), s, 0, 0, nil)
	}
	due, err := b.deletions.DeletionsDue(ctx, now)
	if err != nil {
		failed("deletions due", err)
	}
	for _, d := range due {
		chat, user := d.ChatID, d.UserID
		// In the chat's queue, behind the message being handled, whose
		// replies come before the next question.
		b.queue.push(b.work, chat, nil, func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, b.opts.UpdateTimeout)
			defer cancel()
			defer b.recover(ctx, d.Topic())
			b.askDeletion(ctx, chat, user, b.locale(ctx, chat, ""))
		})
	}
	n, err := b.tasks.PurgeTrash(ctx, now.Add(-b.opts.TrashRetention))
	if err != nil {
		failed("purge trash", err)
	} else if n > 0 {
		b.log.Info("trash purged", "tasks", n)
	}
	b.prune(ctx, now, failed)
}

// updateWindow is how long the id of a handled update is kept, so that a
// redelivery is known as one: Telegram keeps an update for at most 24
// hours, for getUpdates and webhook retries alike, and twice that leaves
// room for a process that was down and clocks that differ.
const updateWindow = 48 * time.Hour

// pruneEvery is how often, at most, the sweep forgets old update ids and
// buttons: each prune reads the whole of both tables.
const pruneEvery = time.Hour

// prune forgets update ids older than updateWindow and the buttons of
// messages not shown for longer than any of them can act (buttonWindow).
func (b *Bot) prune(ctx context.Context, now time.Time, failed func(string, error)) {
	if now.Sub(b.pruned) < pruneEvery {
		return
	}
	b.pruned = now
	updates, err := b.updates.PruneUpdates(ctx, now.Add(-updateWindow))
	if err != nil {
		failed("prune updates", err)
	}
	buttons, err := b.buttons.PruneButtons(ctx, now.Add(-b.buttonWindow()))
	if err != nil {
		failed("prune buttons", err)
	}
	if updates+buttons > 0 {
		b.log.Info("old records pruned", "updates", updates, "buttons", buttons)
	}
}

// buttonWindow is how long a message's buttons are remembered after it
// was last sent or edited: the longest any of them acts on its own record
// (a set's TTL, which Keep renews by editing the message; the undo
// window; the trash's Restore; a learned rule's Stop). Buttons that act
// longer (a task card's, a reminder's) are refused as expired past it,
// on a message Telegram no longer shows the bot: the command that made
// them makes fresh ones.
func (b *Bot) buttonWindow() time.Duration {
	return max(b.opts.ChangeSetTTL, b.opts.UndoWindow, b.opts.TrashRetention, nod.RuleLifetime)
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
	set, err := b.sweeps.KeepSet(ctx, p.chat, p.action.ID, p.user)
	if err != nil {
		text, _ := notice(p.loc, err, nil)
		return text
	}
	p.then(func(ctx context.Context) { b.refresh(ctx, p.loc, set, 0, p.msgID, nil) })
	return p.loc.Notice(formatting.NoticeKept.With(set.ExpiresAt.UTC().Format(nod.DateLayout)))
}
