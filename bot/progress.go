package bot

import (
	"context"

	"github.com/nodbot/nod"
)

// beside sends what a turn has to say while the turn goes on: "typing…"
// beside the model's first call, and the receipts of each step's changes
// beside the call after it (nod.TurnRequest.Progress). Its sends run one
// after another, in the order they were asked for, off the turn's
// goroutine, so that the model is never kept waiting for Telegram; wait
// returns once they are all through, before the turn's own messages go
// out after them.
type beside struct {
	b    *Bot
	in   incoming
	last chan struct{} // closed once the latest send is through
	// What went out early, read once wait has returned: the receipts by
	// undo entry (one whose send failed is sent again with the turn's
	// end), and the notices and zone change handed on.
	sent    map[nod.UndoID]bool
	notices int
	zone    *nod.ZoneChange
	// applied is the zone the turn changed the chat to so far, which its
	// receipts are written in.
	applied *nod.ZoneChange
}

func (b *Bot) beside(in incoming) *beside {
	last := make(chan struct{})
	close(last)
	return &beside{b: b, in: in, last: last, sent: map[nod.UndoID]bool{}}
}

// then runs send once everything asked for before it is through.
func (s *beside) then(send func()) {
	prev, done := s.last, make(chan struct{})
	s.last = done
	go func() {
		defer close(done)
		<-prev
		send()
	}()
}

// wait returns once every send asked for is through.
func (s *beside) wait() { <-s.last }

// typing shows "typing…" while the model writes.
func (s *beside) typing(ctx context.Context) {
	s.then(func() { s.b.send.typing(ctx, s.in.topic()) })
}

// progress sends the receipts of what a step applied, then shows
// "typing…" again: a message ends it, and the model writes on. The
// changes are applied already, so their receipts go out even when the
// update's time runs out meanwhile.
func (s *beside) progress(ctx context.Context, p nod.TurnProgress) {
	s.notices += len(p.Notices)
	if p.Zone != nil {
		s.zone, s.applied = p.Zone, p.Zone
	}
	loc := turnLocale(s.in.loc, nod.TurnResult{Zone: s.applied, ZoneOffer: p.ZoneOffer})
	s.then(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lateReplyTimeout)
		defer cancel()
		if s.b.sendReceipts(ctx, loc, s.in, nod.TurnResult{Receipts: p.Receipts, Notices: p.Notices, Zone: p.Zone, ZoneQuote: p.ZoneQuote}) {
			for _, r := range p.Receipts {
				s.sent[r.Item.UndoID] = true
			}
		}
		s.b.send.typing(ctx, s.in.topic())
	})
}

// rest is what of res did not go out early: the receipts not sent, the
// notices and zone change not handed on. Call it after wait.
func (s *beside) rest(res nod.TurnResult) nod.TurnResult {
	out := res
	out.Receipts = nil
	for _, r := range res.Receipts {
		if !s.sent[r.Item.UndoID] {
			out.Receipts = append(out.Receipts, r)
		}
	}
	out.Notices = res.Notices[min(s.notices, len(res.Notices)):]
	if res.Zone != nil && s.zone != nil && res.Zone.ID == s.zone.ID {
		out.Zone, out.ZoneQuote = nil, ""
	}
	return out
}
