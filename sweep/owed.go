package sweep

import (
	"context"
	"errors"
	"time"

	"github.com/nodbot/nod"
)

// Owed is what the outbox owed and this process took to deliver.
type Owed struct {
	// Messages are the owed messages but receipts, in the order owed.
	Messages []nod.Owed
	// Receipts are the receipts owed, one group per topic in the order
	// of its first: each group goes out as one message that says why it
	// comes late.
	Receipts []Receipts
}

// Receipts are the receipts owed to one topic.
type Receipts struct {
	Topic nod.Topic
	Owed  []nod.Owed
}

// TakeOwed takes what people are owed because of changes that a stopped
// process (or a failed send) never reported: receipts, change-set
// messages and their edits, undo reports, deletions' questions, claimed
// reminders and reviews. grace is how long a message owed by a process
// still running is left to it. A failure is logged and takes nothing.
func (s *Sweeper) TakeOwed(ctx context.Context, grace time.Duration) Owed {
	owed, err := s.d.Outbox.TakeOwed(ctx, grace)
	if err != nil {
		s.failed(ctx, "owed messages", err) // stopping: the next start delivers
		return Owed{}
	}
	var out Owed
	group := map[nod.Topic]int{}
	for _, o := range owed {
		s.log.Info("delivering an owed message", "chat", o.ChatID, "kind", o.Kind, "owed_since", o.At)
		if o.Kind != nod.OwedReceipt {
			out.Messages = append(out.Messages, o)
			continue
		}
		i, ok := group[o.Topic]
		if !ok {
			i = len(out.Receipts)
			group[o.Topic] = i
			out.Receipts = append(out.Receipts, Receipts{Topic: o.Topic})
		}
		out.Receipts[i].Owed = append(out.Receipts[i].Owed, o)
	}
	return out
}

// Gone settles an owed message whose record could not be read: one about
// a record that no longer exists (a purged task's set, say) is dropped;
// a failing database leaves it owed.
func (s *Sweeper) Gone(ctx context.Context, o nod.Owed, err error) {
	if !errors.Is(err, nod.ErrNotFound) {
		s.log.Error("owed message", "chat", o.ChatID, "kind", o.Kind, "err", err)
		return
	}
	s.delivered(ctx, o.ChatID, o.Kind, o.Ref)
}

// Deletion reports whether an owed deletion's question, d as read with
// err, is still to be shown. One that was shown already, or whose time
// is up, is settled: the sweep moves its line on.
func (s *Sweeper) Deletion(ctx context.Context, o nod.Owed, d nod.PendingDeletion, err error) bool {
	switch {
	case err != nil:
		s.Gone(ctx, o, err)
		return false
	case d.MessageID != 0 || !d.Asked() || !s.now().Before(d.ExpiresAt):
		s.delivered(ctx, o.ChatID, nod.OwedDeletion, o.Ref)
		return false
	}
	return true
}

// delivered records that owed messages are settled; a failure only means
// they may be tried once more later.
func (s *Sweeper) delivered(ctx context.Context, chat nod.ChatID, kind nod.OwedKind, refs ...string) {
	if err := s.d.Outbox.Delivered(ctx, chat, kind, refs...); err != nil {
		s.log.Warn("mark delivered", "chat", chat, "kind", kind, "err", err)
	}
}
