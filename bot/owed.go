package bot

import (
	"context"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// delivered records that owed messages went out; a failure only means
// they may be sent once more later.
func (b *Bot) delivered(ctx context.Context, chat nod.ChatID, kind nod.OwedKind, refs ...string) {
	if err := b.outbox.Delivered(ctx, chat, kind, refs...); err != nil {
		b.log.Warn("mark delivered", "chat", chat, "kind", kind, "err", err)
	}
}

// deliverOwed sends what the sweep took of what people are owed (see
// sweep.Sweeper.TakeOwed). It runs at start and with every sweep.
func (b *Bot) deliverOwed(ctx context.Context) {
	owed := b.sweeps.TakeOwed(ctx, b.opts.UpdateTimeout+lateReplyTimeout)
	for _, o := range owed.Messages {
		loc := b.locale(ctx, o.ChatID, "")
		switch o.Kind {
		case nod.OwedSet:
			set, err := b.sets.ChangeSet(ctx, o.ChatID, nod.SetID(o.Ref))
			switch {
			case err != nil:
				b.sweeps.Gone(ctx, o, err)
			case set.MessageID != 0:
				b.refresh(ctx, loc, set, 0, 0, nil) // it was shown: bring it up to date
				b.delivered(ctx, o.ChatID, nod.OwedSet, o.Ref)
			default:
				b.showChangeSet(ctx, loc, set)
			}
		case nod.OwedRefresh:
			set, err := b.sets.ChangeSet(ctx, o.ChatID, nod.SetID(o.Ref))
			if err != nil {
				b.sweeps.Gone(ctx, o, err)
				continue
			}
			b.refresh(ctx, loc, set, 0, 0, nil)
		case nod.OwedAnswer:
			// The turn that owed it stopped before its end was saved.
			if err := b.outbox.Interrupted(ctx, o.Topic, o.Text, o.Ref); err != nil {
				b.log.Warn("record interruption", "chat", o.ChatID, "err", err)
			}
			if b.reply(ctx, o.Topic, loc.Text(formatting.AnswerLate.With(o.Text))) == 0 {
				continue
			}
			b.delivered(ctx, o.ChatID, nod.OwedAnswer, o.Ref)
		case nod.OwedDeletion:
			d, err := b.deletions.Deletion(ctx, o.ChatID, nod.DeletionID(o.Ref))
			if b.sweeps.Deletion(ctx, o, d, err) {
				b.showDeletion(ctx, o.ChatID, loc, d, 0) // its ✗ keeps it alone
			}
		case nod.OwedReminder, nod.OwedDaily:
			b.deliverDue(ctx, o)
		case nod.OwedZoneBack:
			b.zoneBack(ctx, o)
		case nod.OwedCall:
			b.deliverCall(ctx, loc, o)
		case nod.OwedUndone:
			redo, err := b.undos.UndoEntry(ctx, o.ChatID, nod.UndoID(o.Ref))
			if err != nil {
				b.sweeps.Gone(ctx, o, err)
				continue
			}
			if set, err := b.sets.ChangeSetByUndo(ctx, o.ChatID, redo.Reverts); err == nil {
				b.refresh(ctx, loc, set, 0, 0, nil)
			}
			if b.reply(ctx, o.Topic, loc.Undo().Undone(redo)) != 0 {
				b.delivered(ctx, o.ChatID, nod.OwedUndone, o.Ref)
			}
		}
	}
	for _, r := range owed.Receipts {
		b.deliverReceipts(ctx, r.Topic, r.Owed)
	}
}

// deliverReceipts sends receipts owed to one topic in one message that
// says why they come late.
func (b *Bot) deliverReceipts(ctx context.Context, at nod.Topic, owed []nod.Owed) {
	chat := at.ChatID
	loc := b.locale(ctx, chat, "")
	rs := make([]formatting.Receipt, 0, len(owed))
	refs := make([]string, 0, len(owed))
	for _, o := range owed {
		r := o.Receipt
		rs = append(rs, formatting.Receipt{TaskTitle: r.TaskTitle, Item: r.Item, Quote: r.Quote, Trusted: r.Trusted, Rule: r.Rule, Who: b.nameOf(ctx, chat, o.User)})
		refs = append(refs, o.Ref)
	}
	m := loc.Changes().Receipts(rs)
	m.HTML = loc.Render(formatting.ReceiptsLate) + "\n\n" + m.HTML
	if b.reply(ctx, at, m) != 0 {
		b.delivered(ctx, chat, nod.OwedReceipt, refs...)
	}
}

// refreshOwed brings up to date the chat's change-set messages that a
// change has made stale (items superseded by an applied change, say),
// once an update's own messages went out.
func (b *Bot) refreshOwed(ctx context.Context, chat nod.ChatID, loc *formatting.Locale) {
	ids, err := b.outbox.OwedRefreshes(ctx, chat)
	if err != nil {
		b.log.Warn("owed refreshes", "chat", chat, "err", err)
		return
	}
	for _, id := range ids {
		set, err := b.sets.ChangeSet(ctx, chat, id)
		if err != nil {
			b.sweeps.Gone(ctx, nod.Owed{Topic: nod.Topic{ChatID: chat}, Kind: nod.OwedRefresh, Ref: string(id)}, err)
			continue
		}
		b.refresh(ctx, loc, set, 0, 0, nil)
	}
}
