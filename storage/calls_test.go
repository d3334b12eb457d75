package storage_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// An external call's item confirmed by concurrent taps is claimed once,
// in the decision's transaction, with its report owed; its outcome is
// recorded with an audit row that names server, tool, arguments and the
// result's first lines, and the chain verifies. A claim whose report a
// stopped process owed is settled as unknown, once.
func TestExternalCallsClaimedOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		args := json.RawMessage(`{"text":"pay rent"}`)
		set := &nod.ChangeSet{Items: []nod.ChangeItem{{Tool: "mcp__notebook__add_note", Args: args, Summary: `notebook › add_note: text = "pay rent"`, Field: nod.FieldCall, After: "mutate"}}}
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: set}); err != nil {
			t.Fatal(err)
		}
		never := func(nod.ChangeItem, *nod.Task) (nod.Task, error) {
			t.Error("decide was asked about an external call")
			return nod.Task{}, nil
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			calls []nod.ExternalCall
		)
		for range 6 {
			wg.Go(func() {
				d, err := db.ChangeSets().ConfirmItems(ctx, chat, set.ID, []int{1}, 42, "", never)
				if err != nil && !errors.Is(err, nod.ErrDecided) {
					t.Error(err)
				}
				mu.Lock()
				calls = append(calls, d.Calls...)
				mu.Unlock()
			})
		}
		wg.Wait()
		if len(calls) != 1 || calls[0].State != nod.CallClaimed || calls[0].SetID != set.ID || calls[0].N != 1 {
			t.Fatalf("claims: %+v", calls)
		}
		c := calls[0]
		c.Result = nod.ExternalResult{Text: "added note 1: pay rent\nline 2"}
		if err := db.Calls().Finish(ctx, &c, nod.AuditEntry{UserConfirmed: true}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Calls().Call(ctx, chat, c.ID)
		if err != nil || got.State != nod.CallDone || got.Result.Text != c.Result.Text {
			t.Errorf("call after its outcome: %+v %v", got, err)
		}
		rows, _ := db.Audit().Audit(ctx, chat, 10)
		if len(rows) != 2 || rows[0].Outcome != nod.OutcomeExecuted || rows[0].Arg("server") != "notebook" || rows[0].Arg("tool") != "add_note" ||
			!strings.HasPrefix(rows[0].Arg("result"), "added note 1: pay rent") || !strings.Contains(string(rows[0].Args), `"arguments":{"text":"pay rent"}`) ||
			rows[1].Outcome != nod.OutcomeConfirmed {
			t.Errorf("audit rows: %+v", rows)
		}
		if brk, _, err := db.Audit().VerifyAudit(ctx); err != nil || brk != nil {
			t.Errorf("audit chain: %v %+v", err, brk)
		}
		if settled, err := db.Calls().Settle(ctx, chat, c.ID); err != nil || settled.State != nod.CallDone {
			t.Errorf("settling a call with an outcome: %+v %v", settled, err)
		}

		// A claim left without an outcome: settled unknown, once.
		lost := nod.ExternalCall{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "mcp__notebook__add_note", Args: args}
		if err := db.Calls().Claim(ctx, &lost); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
		owed, err := db.Outbox().TakeOwed(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		refs := map[string]bool{}
		for _, o := range owed {
			if o.Kind == nod.OwedCall {
				refs[o.Ref] = true
			}
		}
		if !refs[lost.ID] || !refs[c.ID] {
			t.Errorf("owed call reports %v, want %s and %s", refs, c.ID, lost.ID)
		}
		for range 2 {
			got, err := db.Calls().Settle(ctx, chat, lost.ID)
			if err != nil || got.State != nod.CallUnknown {
				t.Errorf("settle: %+v %v", got, err)
			}
		}
		failed := 0
		rows, _ = db.Audit().Audit(ctx, chat, 10)
		for _, r := range rows {
			if r.Outcome == nod.OutcomeFailed && strings.Contains(r.Error, "outcome unknown") {
				failed++
			}
		}
		if failed != 1 {
			t.Errorf("%d unknown-outcome audit rows, want 1", failed)
		}
		if _, err := db.Calls().Settle(ctx, chat+1, lost.ID); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("another chat's call: %v", err)
		}
	})
}
