package bot

import (
	"context"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// splitCalls parts a turn's receipts into nod's own changes and the
// external calls the person's words ran (docs/design.md §16): a call's
// receipt is a message of its own, without Undo.
func splitCalls(rs []nod.Receipt) (own, calls []nod.Receipt) {
	for _, r := range rs {
		if r.Item.Field == nod.FieldCall && r.Call != nil {
			calls = append(calls, r)
			continue
		}
		own = append(own, r)
	}
	return own, calls
}

// reportCalls tells the person what the external calls their taps or
// words confirmed came to, each in a message of its own, and marks each
// report delivered.
func (b *Bot) reportCalls(ctx context.Context, loc *formatting.Locale, calls []nod.ExternalCall) {
	for _, c := range calls {
		if b.reply(ctx, c.Topic, loc.Changes().CallOutcome(c)) != 0 {
			b.delivered(ctx, c.ChatID, nod.OwedCall, c.ID)
		}
	}
}

// deliverCall sends the owed report of call o.Ref: one a stopped
// process left under way is settled as unknown first, and never sent
// again.
func (b *Bot) deliverCall(ctx context.Context, loc *formatting.Locale, o nod.Owed) {
	if b.calls == nil {
		return
	}
	c, err := b.calls.Settle(ctx, o.ChatID, o.Ref)
	if err != nil {
		b.sweeps.Gone(ctx, o, err)
		return
	}
	if b.reply(ctx, o.Topic, loc.Changes().CallOutcome(c)) != 0 {
		b.delivered(ctx, o.ChatID, nod.OwedCall, o.Ref)
	}
}
