package storage_test

import (
	"errors"
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
