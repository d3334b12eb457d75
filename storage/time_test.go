package storage_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// Every timestamp nod writes reads back equal to what the writer holds in
// memory, on both databases, although the clock ticks in nanoseconds and
// the databases keep microseconds: the undo of a tick once failed on
// exactly that difference.
func TestTimestampsRoundTrip(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		clock.Set(time.Date(2026, 3, 11, 10, 0, 0, 123456789, time.UTC))
		want := nod.Stamp(clock.Now())
		same := func(what string, got, held any) {
			t.Helper()
			if d := cmp.Diff(held, got); d != "" {
				t.Errorf("%s read back differs from the value held (-held +read):\n%s", what, d)
			}
		}

		checkedAt := clock.Now().Add(-time.Hour + 7) // nanoseconds of its own
		created, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{ID: "T1", Title: "Fix login bug", Status: nod.StatusOpen, Priority: nod.P2,
				Checklist: []nod.ChecklistItem{{ID: "c1", Title: "Write tests", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &checkedAt}}}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		task, _ := db.Tasks().Task(ctx, chat, "T1")
		same("created task", task, created.After)
		if !task.CreatedAt.Equal(want) {
			t.Errorf("created_at %v, want %v", task.CreatedAt, want)
		}

		clock.Advance(999 * time.Nanosecond)
		tick, want := clock.Now(), nod.Stamp(clock.Now())
		toggled, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "toggle_checklist_item", Audit: executed,
			Mutate: func(cur *nod.Task) (nod.Task, error) {
				cur.Checklist[0].Checked, cur.Checklist[0].CheckedAt = false, &tick
				return *cur, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		task, _ = db.Tasks().Task(ctx, chat, "T1")
		same("toggled task", task, toggled.After)
		u, _ := db.Undo().UndoEntry(ctx, chat, toggled.Undo.ID)
		same("undo entry", u, toggled.Undo)
		if at := *u.Change.Items[0].After.CheckedAt; !at.Equal(*task.Checklist[0].CheckedAt) {
			t.Errorf("undo entry holds checked_at %v, the task %v", at, *task.Checklist[0].CheckedAt)
		}

		set := &nod.ChangeSet{Items: []nod.ChangeItem{{Tool: "set_task_priority", TaskID: "T1", Args: []byte(`{"task_id":"T1","priority":"P1"}`),
			Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P2", After: "P1"}}}
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: set,
			Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "raise it", At: clock.Now()}}}); err != nil {
			t.Fatal(err)
		}
		stored, _ := db.ChangeSets().ChangeSet(ctx, chat, set.ID)
		same("proposed set", stored, *set)
		msgs, _ := db.Conversation().History(ctx, nod.Topic{ChatID: chat}, nod.Window{Keep: 10})
		if len(msgs) != 1 || !msgs[0].At.Equal(want) {
			t.Errorf("history = %+v, want one message at %v", msgs, want)
		}
		res, _, err := confirmItem(ctx, db, chat, set.ID, 1, 42, setPriority(nod.P1))
		if err != nil {
			t.Fatal(err)
		}
		stored, _ = db.ChangeSets().ChangeSet(ctx, chat, set.ID)
		same("resolved set", stored, res)
		decisions, _ := db.ChangeSets().RecentDecisions(ctx, chat, 1)
		audit, _ := db.Audit().Audit(ctx, chat, 1)
		if !decisions[0].At.Equal(want) || !audit[0].At.Equal(want) {
			t.Errorf("decision at %v, audit at %v; want %v", decisions[0].At, audit[0].At, want)
		}

		undone, err := db.Undo().Undo(ctx, chat, toggled.Undo.ID, 42, false)
		redo := undone.Redo
		if err != nil {
			t.Fatalf("undo of the tick: %v", err)
		}
		r, _ := db.Undo().UndoEntry(ctx, chat, redo.ID)
		same("redo entry", r, redo)

		trashed, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "delete_task", Audit: executed,
			Mutate: func(cur *nod.Task) (nod.Task, error) {
				at := clock.Now()
				cur.DeletedAt = &at
				return *cur, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		trash, _ := db.Tasks().Trash(ctx, chat)
		same("trashed task", trash[0], trashed.After)

		until := clock.Now().Add(24 * time.Hour)
		if err := db.Settings().TripBreaker(ctx, chat, chat, until); err != nil {
			t.Fatal(err)
		}
		settings, _ := db.Settings().ChatSettings(ctx, chat, chat)
		if settings.BreakerUntil == nil || !settings.BreakerUntil.Equal(nod.Stamp(until)) {
			t.Errorf("breaker until %v, want %v", settings.BreakerUntil, nod.Stamp(until))
		}
	})
}
