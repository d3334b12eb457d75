package bot

import (
	"context"
	"slices"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
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
	// shown is the receipt message sent early for each task it alone
	// shows: a later step's change to that task edits it (follow).
	shown map[nod.TaskID]*shownReceipt
}

// shownReceipt is a receipt message sent early and the changes it shows.
type shownReceipt struct {
	msg int
	rs  []nod.Receipt
}

func (b *Bot) beside(in incoming) *beside {
	last := make(chan struct{})
	close(last)
	return &beside{b: b, in: in, last: last, sent: map[nod.UndoID]bool{}, shown: map[nod.TaskID]*shownReceipt{}}
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
		rest := s.follow(ctx, loc, p.Receipts)
		sent, msg := s.b.sendReceiptsAt(ctx, loc, s.in, nod.TurnResult{Receipts: rest, Notices: p.Notices, Zone: p.Zone, ZoneQuote: p.ZoneQuote})
		if sent {
			for _, r := range rest {
				s.sent[r.Item.UndoID] = true
			}
			s.remember(msg, rest)
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

// follow edits the receipt sent early for a task that rs change again,
// so that one request answered in several steps (a task created, then
// its reminder set) has one receipt with one Undo for all of it
// (formatting.Changes.CombinedReceipt). It returns the receipts still to
// send: those of other tasks, and those whose edit failed, which go out
// as receipts of their own, so that no change is left without its Undo.
func (s *beside) follow(ctx context.Context, loc *formatting.Locale, rs []nod.Receipt) []nod.Receipt {
	var rest []nod.Receipt
	more := map[*shownReceipt][]nod.Receipt{}
	var order []*shownReceipt
	for _, r := range rs {
		shown := s.shown[r.Item.TaskID]
		if shown == nil || r.Item.UndoID == "" || r.Call != nil {
			rest = append(rest, r)
			continue
		}
		if more[shown] == nil {
			order = append(order, shown)
		}
		more[shown] = append(more[shown], r)
	}
	chat := s.in.chat
	who := s.b.nameOf(ctx, chat, s.in.user)
	for _, shown := range order {
		all := append(slices.Clone(shown.rs), more[shown]...)
		frs := make([]formatting.Receipt, len(all))
		for i, r := range all {
			frs[i] = formatting.Receipt{TaskTitle: r.TaskTitle, Item: r.Item, Quote: r.Quote, Trusted: r.Trusted, Rule: r.Rule, Who: who}
		}
		// The latest title heads every change of the task.
		for i := range frs {
			frs[i].TaskTitle = all[len(all)-1].TaskTitle
		}
		if err := s.b.send.edit(ctx, chat, shown.msg, loc.Changes().CombinedReceipt(frs)); err != nil {
			s.b.log.Warn("edit an early receipt; sending one more", "chat", chat, "message", shown.msg, "err", err)
			rest = append(rest, more[shown]...)
			continue
		}
		ids := make([]string, len(more[shown]))
		for i, r := range more[shown] {
			ids[i] = string(r.Item.UndoID)
			s.sent[r.Item.UndoID] = true
		}
		s.b.delivered(ctx, chat, nod.OwedReceipt, ids...)
		shown.rs = all
	}
	return rest
}

// remember keeps receipt message msg for follow when it shows the changes
// of one task only, fewer than make a short receipt: editing one that
// shows other tasks too would take their own Undo away.
func (s *beside) remember(msg int, rs []nod.Receipt) {
	own, _ := splitCalls(rs)
	if msg == 0 || len(own) == 0 || len(own) >= formatting.BulkAt {
		return
	}
	for _, r := range own {
		if r.Item.TaskID != own[0].Item.TaskID || r.Item.UndoID == "" {
			return
		}
	}
	s.shown[own[0].Item.TaskID] = &shownReceipt{msg: msg, rs: own}
}
