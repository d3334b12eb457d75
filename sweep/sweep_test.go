package sweep_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update, for go test ./... -update
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
	"github.com/nodbot/nod/sweep"
)

const chat = 100

// forEachDialect runs fn on a sweeper over a fresh database of every
// backend, on a clock of the test's own.
func forEachDialect(t *testing.T, fn func(t *testing.T, s *sweep.Sweeper, db *storage.DB, clock *fixtures.Clock)) {
	t.Helper()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			clock := fixtures.NewClock(fixtures.DefaultNow)
			db := storagetest.Open(t, d, clock.Now)
			s := sweep.New(sweep.Deps{Expiry: db.ChangeSets(), Deletions: db.Deletions(), Trash: db.Tasks(), Buttons: db.Messages(), Updates: db.Outbox(), Outbox: db.Outbox(), Schedule: db.Schedule(), Tasks: db.Tasks()}, sweep.Options{}, clock.Now, slog.New(slog.DiscardHandler))
			fn(t, s, db, clock)
		})
	}
}

// known reports whether update id is remembered as handled, leaving it so.
func known(t *testing.T, db *storage.DB, id int64) bool {
	t.Helper()
	first, err := db.Outbox().MarkUpdate(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return !first
}

// TestTidyPrunesHourly: old update ids go at the first Tidy, but a Tidy
// within the hour after it prunes nothing, since each prune reads whole
// tables; the next one an hour later does.
func TestTidyPrunesHourly(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *sweep.Sweeper, db *storage.DB, clock *fixtures.Clock) {
		known(t, db, 1)
		clock.Advance(30 * time.Minute)
		known(t, db, 2)
		clock.Advance(48*time.Hour - 29*time.Minute) // 1 is past the 48 hours, 2 not yet
		known(t, db, 3)                              // the newest stays whatever its age
		s.Tidy(t.Context(), clock.Now())
		if known(t, db, 1) {
			t.Errorf("update 1 is still known after the first Tidy past its window")
		}
		clock.Advance(59 * time.Minute) // 2 is past its window now
		s.Tidy(t.Context(), clock.Now())
		if !known(t, db, 2) {
			t.Errorf("update 2 was pruned by a Tidy within the hour of the last prune")
		}
		clock.Advance(time.Minute)
		s.Tidy(t.Context(), clock.Now())
		if known(t, db, 2) {
			t.Errorf("update 2 is still known an hour after the last prune")
		}
	})
}

// TestRunWarnsOnce: a shown set is reported warned a day before it
// expires, by one Run only, and expired when its time is up.
func TestRunWarnsOnce(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *sweep.Sweeper, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		task := nod.Task{ID: "T1", Title: "Fix login bug", Status: nod.StatusOpen, Priority: nod.P3}
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
			Mutate: func(*nod.Task) (nod.Task, error) { return task, nil }}); err != nil {
			t.Fatal(err)
		}
		set := &nod.ChangeSet{Items: []nod.ChangeItem{{Tool: "set_task_priority", TaskID: "T1", Args: []byte(`{"task_id":"T1","priority":"P1"}`),
			Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"}}}
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: set}); err != nil {
			t.Fatal(err)
		}
		if err := db.Messages().SetMessageID(ctx, set.ID, 7); err != nil {
			t.Fatal(err)
		}
		count := func(r sweep.Report) (expired, warned int) { return len(r.Expired), len(r.Warned) }

		clock.Advance(nod.DefaultChangeSetTTL - 25*time.Hour)
		if e, w := count(s.Run(ctx, clock.Now())); e != 0 || w != 0 {
			t.Errorf("Run before the warning: %d expired, %d warned, want none", e, w)
		}
		clock.Advance(2 * time.Hour)
		if e, w := count(s.Run(ctx, clock.Now())); e != 0 || w != 1 {
			t.Errorf("Run past the warning: %d expired, %d warned, want 0, 1", e, w)
		}
		if e, w := count(s.Run(ctx, clock.Now())); e != 0 || w != 0 {
			t.Errorf("Run again: %d expired, %d warned, want none: a set is warned of once", e, w)
		}
		clock.Advance(23 * time.Hour)
		r := s.Run(ctx, clock.Now())
		if e, w := count(r); e != 1 || w != 0 || r.Expired[0].ID != set.ID {
			t.Errorf("Run at expiry: %d expired, %d warned, want set %s expired alone", e, w, set.ID)
		}
	})
}
