package storage_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// A kind is offered once, even to concurrent confirmations; an offer is
// decided once, with its audit row; a declined kind is never offered
// again; an expired rule may be.
func TestRuleLifecycle(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		const kind = "set_task_priority=P1"
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			offered []nod.Rule
		)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, ok, err := db.Rules().OfferRule(ctx, 1, 42, kind)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					offered = append(offered, r)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(offered) != 1 {
			t.Fatalf("%d offers, want 1", len(offered))
		}
		id := offered[0].ID
		r, err := db.Rules().DecideRule(ctx, 1, id, 42, true)
		if err != nil || r.Status != nod.RuleActive || !r.ExpiresAt.Equal(clock.Now().Add(nod.RuleLifetime)) {
			t.Fatalf("accept: %+v %v", r, err)
		}
		if _, err := db.Rules().DecideRule(ctx, 1, id, 42, false); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("second decision: %v", err)
		}
		if _, err := db.Rules().DecideRule(ctx, 2, id, 42, true); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("another chat's rule: %v", err)
		}
		if rs, _ := db.Rules().Rules(ctx, 1, clock.Now()); len(rs) != 1 {
			t.Errorf("rules in force: %v", rs)
		}
		if _, ok, _ := db.Rules().OfferRule(ctx, 1, 42, kind); ok {
			t.Errorf("offered again while active")
		}
		// Expired: offered again; declined: never again.
		clock.Advance(nod.RuleLifetime + time.Minute)
		if rs, _ := db.Rules().Rules(ctx, 1, clock.Now()); len(rs) != 0 {
			t.Errorf("expired rule still in force")
		}
		again, ok, err := db.Rules().OfferRule(ctx, 1, 42, kind)
		if !ok || err != nil {
			t.Fatalf("expired rule not offered again: %v", err)
		}
		if _, err := db.Rules().DecideRule(ctx, 1, again.ID, 42, false); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := db.Rules().OfferRule(ctx, 1, 42, kind); ok {
			t.Errorf("a declined kind was offered again")
		}
		// Revoking is audited too.
		other, _, _ := db.Rules().OfferRule(ctx, 1, 42, "add_checklist_item")
		db.Rules().DecideRule(ctx, 1, other.ID, 42, true)
		if _, err := db.Rules().RevokeRule(ctx, 1, other.ID, 42); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Rules().RevokeRule(ctx, 1, other.ID, 42); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("second revoke: %v", err)
		}
		a, _ := db.Audit().Audit(ctx, 1, 10)
		var got []nod.Outcome
		for _, e := range a {
			if e.Tool == "rule" {
				got = append(got, e.Outcome)
			}
		}
		want := []nod.Outcome{nod.OutcomeRevoked, nod.OutcomeCreated, nod.OutcomeDeclined, nod.OutcomeCreated}
		if len(got) != len(want) {
			t.Fatalf("rule audit %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("rule audit %v, want %v", got, want)
			}
		}
		if brk, _, err := db.Audit().VerifyAudit(ctx); brk != nil || err != nil {
			t.Errorf("audit chain: %+v %v", brk, err)
		}
	})
}

// An owed receipt keeps the rule that applied its change by id and reads
// the rule back when taken; one whose rule cannot be read comes without it.
func TestOwedReceiptRule(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		offered, _, err := db.Rules().OfferRule(ctx, chat, 42, "set_task_priority=P1")
		if err != nil {
			t.Fatal(err)
		}
		rule, err := db.Rules().DecideRule(ctx, chat, offered.ID, 42, true)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range []*nod.Rule{&rule, {ID: "gone"}} {
			p := []nod.Priority{nod.P1, nod.P2}[i]
			if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Audit: executed, Mutate: setPriority(p),
				Receipt: &nod.Receipt{Item: nod.ChangeItem{Tool: "set_task_priority", Summary: "Set priority"}, Trusted: true, Rule: r}}); err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(2 * time.Minute)
		owed, err := db.Outbox().TakeOwed(ctx, time.Minute)
		if err != nil || len(owed) != 2 {
			t.Fatalf("TakeOwed = %d messages, %v; want 2", len(owed), err)
		}
		if r := owed[0].Receipt; r == nil || !r.Trusted || r.TaskTitle != "Fix login bug" || r.Rule == nil || r.Rule.ID != rule.ID || r.Rule.Kind != rule.Kind || r.Rule.Status != nod.RuleActive {
			t.Errorf("receipt applied by a rule = %+v, want rule %+v", r, rule)
		}
		if r := owed[1].Receipt; r == nil || r.Rule != nil {
			t.Errorf("receipt whose rule is gone = %+v, want it without a rule", r)
		}
	})
}

// A confirmation reads the streak of each kind it made, in its own
// transaction: the sets in which the person confirmed that kind since
// they last rejected it, a set counted once however many of its items.
func TestConfirmReadsItsStreak(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		const kind = "set_task_priority=P1"
		// Each confirmation raises the task to P1 and notes why; the task
		// is lowered again between sets, so that every set proposes it.
		raise := func(it nod.ChangeItem, cur *nod.Task) (nod.Task, error) {
			cur.Priority = nod.P1
			return *cur, nil
		}
		executed := nod.AuditEntry{Outcome: nod.OutcomeExecuted}
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: nod.ToolCreateTask, Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{ID: "T2", Title: "Write the notes", Status: nod.StatusOpen, Priority: nod.P3}, nil
		}}); err != nil {
			t.Fatal(err)
		}
		tasks := []nod.TaskID{"T1", "T2"}
		lower := func() {
			t.Helper()
			for _, id := range tasks {
				_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: id, Tool: nod.ToolSetPriority, Audit: executed,
					Mutate: func(cur *nod.Task) (nod.Task, error) { cur.Priority = nod.P3; return *cur, nil }})
				if err != nil && !errors.Is(err, nod.ErrInvalid) { // already P3
					t.Fatal(err)
				}
			}
		}
		propose := func(items int) nod.SetID {
			t.Helper()
			s := &nod.ChangeSet{}
			for _, id := range tasks[:items] {
				s.Items = append(s.Items, nod.ChangeItem{Tool: nod.ToolSetPriority, TaskID: id, Args: []byte(`{}`), Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"})
			}
			if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: s}); err != nil {
				t.Fatal(err)
			}
			return s.ID
		}
		streaks := func() []nod.Streak {
			t.Helper()
			ss, err := db.Rules().Streaks(ctx, chat, 42, clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			return ss
		}
		confirm := func(items, want int) {
			t.Helper()
			d, err := db.ChangeSets().ConfirmItems(ctx, chat, propose(items), nil, 42, "", raise)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := d.Streaks[kind]; !ok || got != want || len(d.Streaks) != 1 {
				t.Errorf("streaks %v, want %s: %d", d.Streaks, kind, want)
			}
			// /rules counts them as the confirmation did.
			if ss := streaks(); !slices.Equal(ss, []nod.Streak{{Kind: kind, N: want}}) {
				t.Errorf("Streaks %v, want %s: %d", ss, kind, want)
			}
			lower()
		}
		confirm(1, 1)
		confirm(1, 2)
		if _, err := db.ChangeSets().RejectItem(ctx, chat, propose(1), 1, 42); err != nil {
			t.Fatal(err)
		}
		if ss := streaks(); len(ss) != 0 {
			t.Errorf("after the rejection, streaks %v", ss)
		}
		confirm(2, 1) // the rejection ended the streak; two items, one set
		confirm(1, 2)
		confirm(1, 3)
		// Offered, the kind waits for the answer; accepted, it is a rule.
		offer, ok, err := db.Rules().OfferRule(ctx, chat, 42, kind)
		if !ok || err != nil {
			t.Fatalf("offer: %v", err)
		}
		if ss := streaks(); !slices.Equal(ss, []nod.Streak{{Kind: kind, N: nod.RuleStreak, Offered: true}}) {
			t.Errorf("an offered kind reads %v", ss)
		}
		if _, err := db.Rules().DecideRule(ctx, chat, offer.ID, 42, true); err != nil {
			t.Fatal(err)
		}
		if ss := streaks(); len(ss) != 0 {
			t.Errorf("a kind with a rule in force still has a streak: %v", ss)
		}
	})
}

// The outbox reads back the receipts of changes by their undo entries,
// sent or still owed, in the order asked, leaving out an id without one.
func TestReceiptsReadBack(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		var ids []nod.UndoID
		for _, p := range []nod.Priority{nod.P1, nod.P2} {
			a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Audit: executed, Mutate: setPriority(p),
				Receipt: &nod.Receipt{Item: nod.ChangeItem{Tool: "set_task_priority", Summary: "Set priority to " + string(p), Field: nod.FieldPriority, After: string(p)}, Quote: "make it " + string(p)}})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.Undo.ID)
		}
		if err := db.Outbox().Delivered(ctx, chat, nod.OwedReceipt, string(ids[0])); err != nil {
			t.Fatal(err)
		}
		rs, err := db.Outbox().Receipts(ctx, chat, []nod.UndoID{ids[1], "gone", ids[0]})
		if err != nil || len(rs) != 2 {
			t.Fatalf("Receipts = %+v, %v; want two", rs, err)
		}
		if rs[0].Item.UndoID != ids[1] || rs[0].Quote != "make it P2" || rs[0].Item.After != "P2" || rs[1].Item.UndoID != ids[0] || rs[1].TaskTitle != "Fix login bug" {
			t.Errorf("Receipts = %+v", rs)
		}
		if rs, err := db.Outbox().Receipts(ctx, chat+1, ids); err != nil || len(rs) != 0 {
			t.Errorf("another chat's Receipts = %+v, %v; want none", rs, err)
		}
	})
}
