package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

const chat = 100

var executed = nod.AuditEntry{Outcome: nod.OutcomeExecuted}

// forEachDialect runs fn against a fresh database of every backend, the
// backends at once.
func forEachDialect(t *testing.T, fn func(t *testing.T, db *storage.DB, clock *fixtures.Clock)) {
	eachDialect(t, true, fn)
}

// eachDialect is forEachDialect, the backends one after another unless
// parallel: a test that reads the heap must not see the other's.
func eachDialect(t *testing.T, parallel bool, fn func(t *testing.T, db *storage.DB, clock *fixtures.Clock)) {
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			clock := fixtures.NewClock(fixtures.DefaultNow)
			fn(t, storagetest.Open(t, d, clock.Now), clock)
		})
	}
}

func est(n int) *int { return &n }

// seedT1 stores the default fixture's T1 and returns it as read back.
func seedT1(t *testing.T, db *storage.DB) nod.Task {
	t.Helper()
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	agentAt := time.Date(2026, 3, 9, 18, 0, 0, 0, time.UTC)
	t1 := nod.Task{
		ID: "T1", Title: "Fix login bug", Description: "Users are logged out after 5 minutes.",
		Status: nod.StatusInProgress, Priority: nod.P3, EstimateMinutes: est(120), DueDate: "2026-03-15",
		Labels: []string{"backend", "bug"},
		Checklist: []nod.ChecklistItem{
			{ID: "c1", Title: "Write tests", CheckedBy: nod.ActorUser},
			{ID: "c2", Title: "Update docs", Checked: true, CheckedBy: nod.ActorAgent, CheckedAt: &agentAt},
			{ID: "c3", Title: "Write migration notes", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &at},
		},
	}
	_, err := db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task",
		Mutate: func(*nod.Task) (nod.Task, error) { return t1, nil }, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Tasks().Task(t.Context(), chat, "T1")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func setPriority(p nod.Priority) nod.Mutate {
	return func(cur *nod.Task) (nod.Task, error) {
		cur.Priority = p
		return *cur, nil
	}
}

// confirmItem confirms item n alone, applying mutate to its task.
func confirmItem(ctx context.Context, db *storage.DB, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, mutate nod.Mutate) (nod.ChangeSet, nod.Applied, error) {
	res, err := db.ChangeSets().ConfirmItems(ctx, chatID, setID, []int{n}, userID, "", func(_ nod.ChangeItem, cur *nod.Task) (nod.Task, error) { return mutate(cur) })
	return res.Set, res.Applied[n], err
}

func proposeCS(t *testing.T, db *storage.DB) nod.ChangeSet {
	t.Helper()
	set := &nod.ChangeSet{Items: []nod.ChangeItem{
		{Tool: "set_task_priority", TaskID: "T1", Args: []byte(`{"task_id":"T1","priority":"P1"}`), Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"},
		{Tool: "set_task_title", TaskID: "T1", Args: []byte(`{"task_id":"T1","title":"Fix login redirect bug"}`), Summary: `Set title to "Fix login redirect bug"`, Field: nod.FieldTitle, Before: "Fix login bug", After: "Fix login redirect bug"},
	}}
	if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: set}); err != nil {
		t.Fatal(err)
	}
	if set.ID == "" || set.Items[1].N != 2 {
		t.Fatalf("SaveTurn did not number the set: %+v", set)
	}
	return *set
}

func TestTaskRoundTrip(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		got := seedT1(t, db)
		if got.ChatID != chat || got.Priority != nod.P3 || *got.EstimateMinutes != 120 || got.DueDate != "2026-03-15" {
			t.Errorf("T1 read back as %+v", got)
		}
		if diff := cmp.Diff([]string{"backend", "bug"}, got.Labels); diff != "" {
			t.Errorf("labels (-want +got):\n%s", diff)
		}
		if len(got.Checklist) != 3 || got.Checklist[2].CheckedBy != nod.ActorUser || got.Checklist[2].CheckedAt == nil ||
			!got.Checklist[2].CheckedAt.Equal(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) || got.Checklist[0].CheckedAt != nil {
			t.Errorf("checklist read back as %+v", got.Checklist)
		}
		if _, err := db.Tasks().Task(t.Context(), 200, "T1"); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("Task(chat 200, T1) error = %v, want ErrNotFound", err)
		}
		list, err := db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{Query: "LOGGED OUT"})
		if err != nil || len(list) != 1 {
			t.Errorf("ListTasks(query in description) = %d tasks, %v", len(list), err)
		}
		list, _ = db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{Status: nod.StatusDone})
		if len(list) != 0 {
			t.Errorf("ListTasks(DONE) = %d tasks, want 0", len(list))
		}
	})
}

// Confirming writes task, item, set, decision, audit and undo together.
func TestConfirmItemWritesEverythingOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		set, applied, err := confirmItem(t.Context(), db, chat, cs.ID, 1, 42, setPriority(nod.P1))
		if err != nil {
			t.Fatal(err)
		}
		if set.Status != nod.SetPartiallyResolved || set.Items[0].Status != nod.ItemConfirmed || set.Items[1].Status != nod.ItemPending {
			t.Errorf("after ✓ 1: set %s, items %s/%s", set.Status, set.Items[0].Status, set.Items[1].Status)
		}
		if applied.Before.Priority != nod.P3 || applied.After.Priority != nod.P1 {
			t.Errorf("applied %s → %s, want P3 → P1", applied.Before.Priority, applied.After.Priority)
		}
		task, _ := db.Tasks().Task(t.Context(), chat, "T1")
		if task.Priority != nod.P1 {
			t.Errorf("stored priority %s, want P1", task.Priority)
		}
		decisions, _ := db.ChangeSets().RecentDecisions(t.Context(), chat, 20)
		if len(decisions) != 1 || decisions[0].Verdict != nod.Confirmed || decisions[0].UserID != 42 {
			t.Errorf("decisions = %+v", decisions)
		}
		audit, _ := db.Audit().Audit(t.Context(), chat, 20)
		if len(audit) != 2 || audit[0].Outcome != nod.OutcomeConfirmed || !audit[0].UserConfirmed {
			t.Errorf("audit = %+v", audit)
		}
		u, err := db.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: chat}, 42)
		if want := []nod.FieldChange{{Field: nod.FieldPriority, Before: "P3", After: "P1"}}; err != nil || !slices.Equal(u.Change.Fields, want) {
			t.Errorf("undo entry = %+v, %v", u, err)
		}
		// A second confirm of the same item, and a reject of it, change nothing.
		if _, _, err := confirmItem(t.Context(), db, chat, cs.ID, 1, 42, setPriority(nod.P0)); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("second ConfirmItem error = %v, want ErrDecided", err)
		}
		if _, err := db.ChangeSets().RejectItem(t.Context(), chat, cs.ID, 1, 42); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("RejectItem of confirmed item error = %v, want ErrDecided", err)
		}
		// Out of range, another chat.
		for _, n := range []int{0, -1, 5} {
			if _, _, err := confirmItem(t.Context(), db, chat, cs.ID, n, 42, setPriority(nod.P0)); !errors.Is(err, nod.ErrNotFound) {
				t.Errorf("ConfirmItem(n=%d) error = %v, want ErrNotFound", n, err)
			}
		}
		if _, _, err := confirmItem(t.Context(), db, 200, cs.ID, 2, 42, setPriority(nod.P0)); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("ConfirmItem from chat 200 error = %v, want ErrNotFound", err)
		}
		// Rejecting the rest resolves the set.
		set, err = db.ChangeSets().RejectItem(t.Context(), chat, cs.ID, 2, 42)
		if err != nil || set.Status != nod.SetResolved || set.ResolvedAt == nil {
			t.Errorf("after ✗ 2: %s, %v", set.Status, err)
		}
		if open, _ := db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{ChatID: chat}); len(open) != 0 {
			t.Errorf("OpenChangeSets = %d sets, want 0", len(open))
		}
	})
}

// A confirmation reads its task with the message of the task's card, in
// one statement, for the card's redraw.
func TestConfirmReadsCards(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		res, err := db.ChangeSets().ConfirmItems(t.Context(), chat, cs.ID, []int{1}, 42, "", func(_ nod.ChangeItem, cur *nod.Task) (nod.Task, error) { return setPriority(nod.P1)(cur) })
		if err != nil || res.Cards == nil || len(res.Cards) != 0 {
			t.Errorf("cards of a task without one = %v (%v), want none, read", res.Cards, err)
		}
		if err := db.Messages().SetCardMessage(t.Context(), chat, "T1", 77); err != nil {
			t.Fatal(err)
		}
		res, err = db.ChangeSets().ConfirmItems(t.Context(), chat, cs.ID, []int{2}, 42, "", func(it nod.ChangeItem, cur *nod.Task) (nod.Task, error) {
			cur.Title = it.After
			return *cur, nil
		})
		if err != nil || res.Cards["T1"] != 77 {
			t.Errorf("cards of T1 = %v (%v), want message 77", res.Cards, err)
		}
	})
}

// Twenty concurrent confirmations of one item: exactly one applies.
func TestConfirmItemConcurrentExactlyOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			wins int
		)
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := confirmItem(context.Background(), db, chat, cs.ID, 1, 42, setPriority(nod.P1))
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, nod.ErrDecided) {
					t.Errorf("concurrent ConfirmItem: %v", err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Errorf("%d confirmations won, want exactly 1", wins)
		}
		audit, _ := db.Audit().Audit(t.Context(), chat, 100)
		confirmed := 0
		for _, a := range audit {
			if a.Outcome == nod.OutcomeConfirmed {
				confirmed++
			}
		}
		if confirmed != 1 {
			t.Errorf("%d confirmed audit rows, want 1", confirmed)
		}
	})
}

// When the undo entry cannot be written, nothing of the confirmation is.
func TestConfirmItemRollsBackWhole(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		storagetest.FailInserts(t, db, "undo_entries")
		audit, _ := db.Audit().Audit(t.Context(), chat, 100)
		_, _, err := confirmItem(t.Context(), db, chat, cs.ID, 1, 42, setPriority(nod.P1))
		if err == nil {
			t.Fatal("ConfirmItem succeeded although the undo entry could not be written")
		}
		task, _ := db.Tasks().Task(t.Context(), chat, "T1")
		set, _ := db.ChangeSets().ChangeSet(t.Context(), chat, cs.ID)
		decisions, _ := db.ChangeSets().RecentDecisions(t.Context(), chat, 20)
		if task.Priority != nod.P3 || set.Items[0].Status != nod.ItemPending || len(decisions) != 0 {
			t.Errorf("after failed confirm: priority %s, item %s, %d decisions; want P3, pending, 0", task.Priority, set.Items[0].Status, len(decisions))
		}
		if after, _ := db.Audit().Audit(t.Context(), chat, 100); len(after) != len(audit) {
			t.Errorf("a failed confirm wrote %d audit rows", len(after)-len(audit))
		}
	})
}

// raiseT1 sets T1's priority to P1 for user 42, as their explicit change.
func raiseT1(t *testing.T, db *storage.DB) nod.Applied {
	t.Helper()
	a, err := db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Mutate: setPriority(nod.P1), Audit: executed})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Undo restores, refuses when stale or expired, and is undoable.
func TestUndo(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		a := raiseT1(t, db)
		undone, err := db.Undo().Undo(ctx, chat, a.Undo.ID, 42, false)
		redo := undone.Redo
		if err != nil {
			t.Fatal(err)
		}
		if task, _ := db.Tasks().Task(ctx, chat, "T1"); task.Priority != nod.P3 {
			t.Errorf("after undo priority %s, want P3", task.Priority)
		}
		if _, err := db.Undo().Undo(ctx, chat, a.Undo.ID, 42, false); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("second undo error = %v, want ErrDecided", err)
		}
		if _, err := db.Undo().Undo(ctx, chat, redo.ID, 42, false); err != nil {
			t.Fatalf("redo: %v", err)
		}
		if task, _ := db.Tasks().Task(ctx, chat, "T1"); task.Priority != nod.P1 {
			t.Errorf("after redo priority %s, want P1", task.Priority)
		}
		// A later change makes the first undo stale.
		b, _ := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Mutate: setPriority(nod.P2), Audit: executed})
		c, _ := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Mutate: setPriority(nod.P0), Audit: executed})
		if _, err := db.Undo().Undo(ctx, chat, b.Undo.ID, 42, false); !errors.Is(err, nod.ErrStale) {
			t.Errorf("stale undo error = %v, want ErrStale", err)
		}
		if _, err := db.Undo().Undo(ctx, chat, b.Undo.ID, 42, true); err != nil {
			t.Errorf("forced undo: %v", err)
		}
		if task, _ := db.Tasks().Task(ctx, chat, "T1"); task.Priority != nod.P1 {
			t.Errorf("after forced undo priority %s, want P1", task.Priority)
		}
		// Expired after the window.
		clock.Advance(24*time.Hour + time.Minute)
		if _, err := db.Undo().Undo(ctx, chat, c.Undo.ID, 42, true); !errors.Is(err, nod.ErrExpired) {
			t.Errorf("expired undo error = %v, want ErrExpired", err)
		}
		if _, err := db.Undo().LatestUndo(ctx, nod.Topic{ChatID: chat}, 42); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("LatestUndo with only expired entries: %v, want ErrNotFound", err)
		}
		// Undoing a create moves the task to the trash.
		cr, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{ID: "T9", Title: "Write postmortem", Status: nod.StatusOpen, Priority: nod.P2}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		undone, err = db.Undo().Undo(ctx, chat, cr.Undo.ID, 42, false)
		redo = undone.Redo
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Tasks().Task(ctx, chat, "T9"); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("undone create still readable: %v", err)
		}
		if _, err := db.Undo().Undo(ctx, chat, redo.ID, 42, false); err != nil {
			t.Fatal(err)
		}
		if task, err := db.Tasks().Task(ctx, chat, "T9"); err != nil || task.Title != "Write postmortem" {
			t.Errorf("redone create: %+v, %v", task, err)
		}
	})
}

func TestMarkUpdateOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		for i, want := range []bool{true, false} {
			first, err := db.Outbox().MarkUpdate(t.Context(), 7)
			if err != nil || first != want {
				t.Errorf("MarkUpdate #%d = %v, %v; want %v", i, first, err, want)
			}
		}
		db.Outbox().MarkUpdate(t.Context(), 5)
		if id, _ := db.Outbox().LastUpdateID(t.Context()); id != 7 {
			t.Errorf("LastUpdateID = %d, want 7", id)
		}
	})
}

// A decision or a turn marks its update in its own transaction, with a
// plain insert: a redelivery fails there on the key of processed_updates
// and is nod.ErrHandled, with nothing of it applied; any other key that
// fails stays a failure.
func TestRedeliveryHandledOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		tap := func(update int64) context.Context { return nod.WithTap(t.Context(), &nod.Tap{Update: update}) }
		if _, _, err := confirmItem(tap(9), db, chat, cs.ID, 1, 42, setPriority(nod.P1)); err != nil {
			t.Fatal(err)
		}
		// The same update again, on the other item: nothing applies.
		if _, _, err := confirmItem(tap(9), db, chat, cs.ID, 2, 42, setPriority(nod.P0)); !errors.Is(err, nod.ErrHandled) {
			t.Errorf("redelivered confirm: %v, want ErrHandled", err)
		}
		if _, err := db.ChangeSets().RejectItem(tap(9), chat, cs.ID, 2, 42); !errors.Is(err, nod.ErrHandled) {
			t.Errorf("redelivered reject: %v, want ErrHandled", err)
		}
		said := nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Turn: "t1", Opens: true, Said: "hi", Update: 9,
			Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "hi"}}}
		if err := db.Conversation().SaveTurn(t.Context(), said); !errors.Is(err, nod.ErrHandled) {
			t.Errorf("redelivered turn: %v, want ErrHandled", err)
		}
		task, _ := db.Tasks().Task(t.Context(), chat, "T1")
		set, _ := db.ChangeSets().ChangeSet(t.Context(), chat, cs.ID)
		history, _ := db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 50})
		if task.Priority != nod.P1 || set.Items[1].Status != nod.ItemPending || len(history) != 0 {
			t.Errorf("after redeliveries: priority %s, item 2 %s, %d messages; want P1, pending, 0", task.Priority, set.Items[1].Status, len(history))
		}
		// A new update's turn is saved.
		said.Update = 10
		if err := db.Conversation().SaveTurn(t.Context(), said); err != nil {
			t.Errorf("new turn: %v", err)
		}
		// A key that fails elsewhere in a marked decision is no redelivery.
		storagetest.Exec(t, db.DSN(), `CREATE UNIQUE INDEX one_decision ON decisions (set_id)`)
		_, _, err := confirmItem(tap(11), db, chat, cs.ID, 2, 42, setPriority(nod.P0))
		if err == nil || errors.Is(err, nod.ErrHandled) {
			t.Errorf("confirm failing on another key: %v, want a failure other than ErrHandled", err)
		}
		if first, err := db.Outbox().MarkUpdate(t.Context(), 11); err != nil || !first {
			t.Errorf("the failed decision's update was marked: %v, %v", first, err)
		}
	})
}

func TestHistoryKeepsOrderAndChat(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		msgs := []nod.ChatMessage{
			{Role: nod.RoleUser, Content: "hi"},
			{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "call_1", Name: "list_tasks", Arguments: "{}"}}},
			{Role: nod.RoleTool, ToolCallID: "call_1", Content: `{"tasks":[]}`},
			{Role: nod.RoleAssistant, Content: "No tasks yet."},
		}
		if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: 200}, Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "other chat"}}})
		got, err := db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].Role != nod.RoleAssistant || got[1].ToolCallID != "call_1" || got[2].Content != "No tasks yet." {
			t.Errorf("History(limit 3) = %+v", got)
		}
	})
}

// Every field of a line comes back as it was stored, whatever its text
// holds (markup, quotes, escapes, other scripts), on both databases.
func TestHistoryKeepsEveryField(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		at := clock.Now().Add(1234567 * time.Nanosecond).UTC().Truncate(time.Microsecond)
		msgs := []nod.ChatMessage{
			{Role: nod.RoleUser, Content: "<b>Tom & Jerry</b> \"quoted\" \\ back\nslash — Привет 👋", At: at, UserID: 1001,
				Speaker: "Alice (1001)", ReplyTo: "nod's message “Add it?”", MsgID: 77, Forwarded: "Bob (2002), 2026-11-24 09:00",
				EditOf: 76, Edits: "<i>earlier</i>", Review: true},
			{Role: nod.RoleAssistant, At: at, ToolCalls: []nod.ToolCall{{ID: "call_1", Name: "create_task", Arguments: `{"title":"a \"b\" <c>"}`},
				{ID: "call_2", Name: "list_tasks", Arguments: "{}"}}},
			{Role: nod.RoleTool, ToolCallID: "call_1", Content: `{"tasks":[]}`, At: at},
		}
		if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 10})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i].Seq = 0
		}
		if diff := cmp.Diff(msgs, got); diff != "" {
			t.Errorf("History (-stored +read):\n%s", diff)
		}
	})
}

// A person's message is found by its Telegram id, the latest line that
// holds it (an edit's) first, in its own chat only.
func TestPersonMessage(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		save := func(chatID nod.ChatID, m nod.ChatMessage) {
			t.Helper()
			if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chatID}, Messages: []nod.ChatMessage{m}}); err != nil {
				t.Fatal(err)
			}
		}
		save(chat, nod.ChatMessage{Role: nod.RoleUser, Content: "plan the launhc", MsgID: 7, Forwarded: "Boss (7007)"})
		save(chat, nod.ChatMessage{Role: nod.RoleAssistant, Content: "Planned."})
		save(chat, nod.ChatMessage{Role: nod.RoleUser, Content: "plan the launch", MsgID: 7, EditOf: 7, Edits: "plan the launhc"})
		save(200, nod.ChatMessage{Role: nod.RoleUser, Content: "other chat", MsgID: 8})
		m, ok, err := db.Conversation().PersonMessage(t.Context(), chat, 7)
		if err != nil || !ok || m.Content != "plan the launch" || m.EditOf != 7 || m.Edits != "plan the launhc" {
			t.Errorf("PersonMessage(7) = %+v, %v, %v", m, ok, err)
		}
		if _, ok, err := db.Conversation().PersonMessage(t.Context(), chat, 8); ok || err != nil {
			t.Errorf("another chat's message found: %v, %v", ok, err)
		}
		hist, _ := db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 10})
		if len(hist) != 3 || hist[0].Forwarded != "Boss (7007)" || hist[0].MsgID != 7 {
			t.Errorf("history lost the message's origin: %+v", hist)
		}
	})
}

// BenchmarkConfirmItem is the confirm transaction on SQLite: claim the
// item, apply, record decision, audit and undo, update the set.
func BenchmarkConfirmItem(b *testing.B) {
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(b, "sqlite", clock.Now)
	_, err := db.Tasks().Apply(b.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed,
		Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{ID: "T1", Title: "Fix login bug", Status: nod.StatusOpen, Priority: nod.P3}, nil
		}})
	if err != nil {
		b.Fatal(err)
	}
	sets := make([]nod.ChangeSet, b.N)
	for i := range sets {
		s := &nod.ChangeSet{Items: []nod.ChangeItem{{Tool: "set_task_priority", TaskID: "T1", Args: []byte(`{"task_id":"T1","priority":"P1"}`),
			Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"}}}
		if err := db.Conversation().SaveTurn(b.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: s}); err != nil {
			b.Fatal(err)
		}
		sets[i] = *s
	}
	b.ResetTimer()
	for i := range b.N {
		if _, _, err := confirmItem(b.Context(), db, chat, sets[i].ID, 1, 42, func(cur *nod.Task) (nod.Task, error) {
			t := *cur
			t.Priority = nod.Priorities[i%2]
			return t, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// Several replicas sweeping at once expire each set once.
func TestExpireSetsOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		seedT1(t, db)
		for range 5 {
			proposeCS(t, db)
		}
		clock.Advance(8 * 24 * time.Hour)
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			total int
		)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sets, err := db.ChangeSets().ExpireSets(context.Background(), clock.Now())
				if err != nil {
					t.Errorf("ExpireSets: %v", err)
				}
				mu.Lock()
				total += len(sets)
				mu.Unlock()
			}()
		}
		wg.Wait()
		if total != 5 {
			t.Errorf("%d expirations reported, want 5", total)
		}
	})
}

// Concurrent writers keep each chat's audit chain whole.
func TestAuditChainConcurrent(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := db.Audit().AddAudit(context.Background(), nod.AuditEntry{ChatID: chat + nod.ChatID(i%2), UserID: 42, Tool: "list_tasks", Outcome: nod.OutcomeExecuted}); err != nil {
					t.Errorf("AddAudit: %v", err)
				}
			}()
		}
		wg.Wait()
		broken, checked, err := db.Audit().VerifyAudit(t.Context())
		if err != nil || broken != nil || checked != 20 {
			t.Errorf("VerifyAudit = %+v, %d, %v", broken, checked, err)
		}
	})
}

// A process keeps the audit chain head it wrote last, and writes after it
// only while it is still the head: two processes writing one chat's audit
// in turn, then at once, keep its chain whole, and a transaction whose
// row missed runs again even when a statement after it failed too.
func TestAuditChainAcrossProcesses(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			dsn := storagetest.Migrated(t, d)
			procs := []*storage.DB{storagetest.OpenDSN(t, dsn, clock.Now), storagetest.OpenDSN(t, dsn, clock.Now)}
			add := func(by *storage.DB, i int) {
				if err := by.Audit().AddAudit(context.Background(), nod.AuditEntry{ChatID: chat, UserID: 42, Tool: "list_tasks", Args: []byte(fmt.Sprintf(`{"i":%d}`, i)), Outcome: nod.OutcomeExecuted}); err != nil {
					t.Errorf("AddAudit %d: %v", i, err)
				}
			}
			// Each writes twice in a row, so that each finds the other
			// wrote since its last.
			for i := range 8 {
				add(procs[i/2%2], i)
			}
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() { add(procs[i%2], 8+i) })
			}
			wg.Wait()
			// Then one process's transaction writes an audit row and reads
			// on after it (an Undo all of two changes) once the other wrote:
			// on PostgreSQL the row's miss fails the read that follows, and
			// the transaction runs again all the same.
			var undos []nod.UndoID
			for _, title := range []string{"Buy milk", "Call Ann"} {
				a, err := procs[0].Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat + 1}, UserID: 42, Tool: "create_task",
					Mutate: func(*nod.Task) (nod.Task, error) {
						return nod.Task{Title: title, Status: nod.StatusOpen, Priority: nod.P2}, nil
					}, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}})
				if err != nil {
					t.Fatal(err)
				}
				undos = append(undos, a.Undo.ID)
			}
			if err := procs[1].Audit().AddAudit(context.Background(), nod.AuditEntry{ChatID: chat + 1, UserID: 42, Tool: "list_tasks", Outcome: nod.OutcomeExecuted}); err != nil {
				t.Fatal(err)
			}
			if done, err := procs[0].Undo().UndoAll(t.Context(), chat+1, undos, 42); err != nil || len(done) != 2 {
				t.Errorf("Undo all after the other process wrote: %d undone, %v", len(done), err)
			}
			broken, checked, err := procs[0].Audit().VerifyAudit(t.Context())
			if err != nil || broken != nil || checked != 28+5 {
				t.Errorf("VerifyAudit = %+v, %d, %v", broken, checked, err)
			}
		})
	}
}

// One process's transactions on one chat, many at once, never mark the
// chat shared, and never miss the audit chain head the process keeps when
// they hold the chat's lock by the time they write their audit row (an
// edit, which reads its task first: each runs once). A bare audit row
// takes the lock with its own insert, and may miss to a writer that began
// after it and took the lock first: it runs again. Once they are done
// the head is kept again: a write alone reads it, the next does not.
func TestAuditChainInOneProcess(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			db := storagetest.Open(t, d, clock.Now)
			seedT1(t, db)
			audit := func(c nod.ChatID) {
				if err := db.Audit().AddAudit(context.Background(), nod.AuditEntry{ChatID: c, UserID: 42, Tool: "list_tasks", Outcome: nod.OutcomeExecuted}); err != nil {
					t.Errorf("AddAudit: %v", err)
				}
			}
			edit := func() {
				_, err := db.Tasks().Apply(context.Background(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "set_task_priority", TaskID: "T1", Audit: executed,
					Mutate: func(cur *nod.Task) (nod.Task, error) {
						cur.Priority = map[nod.Priority]nod.Priority{nod.P1: nod.P2}[cur.Priority]
						if cur.Priority == "" {
							cur.Priority = nod.P1
						}
						return *cur, nil
					}})
				if err != nil {
					t.Errorf("edit: %v", err)
				}
			}
			const burst = 8
			for round := range 6 {
				audit(chat)
				_, before := db.Work()
				var wg sync.WaitGroup
				for range burst {
					wg.Go(edit)
				}
				wg.Wait()
				if _, after := db.Work(); after-before != burst {
					t.Errorf("round %d: %d edits at once took %d transactions", round, burst, after-before)
				}
				for range burst {
					wg.Go(func() { audit(chat) })
				}
				wg.Wait()
			}
			cost := func(c nod.ChatID) int64 {
				before, _ := db.Work()
				audit(c)
				after, _ := db.Work()
				return after - before
			}
			read := cost(chat + 1) // nothing kept for a chat not written yet
			cost(chat)
			if kept := cost(chat); kept != read-1 {
				t.Errorf("after the bursts, a write alone ran %d statements, one reading its head %d: want the head kept", kept, read)
			}
			broken, checked, err := db.Audit().VerifyAudit(t.Context())
			if err != nil || broken != nil || checked != 1+6*(1+2*burst)+3 {
				t.Errorf("VerifyAudit = %+v, %d, %v", broken, checked, err)
			}
		})
	}
}

// BenchmarkConfirmAll confirms sets of k checklist additions in one
// transaction each; ns/item staying flat as k grows shows the work is
// linear in k (each item writes its own row, never the whole checklist).
func BenchmarkConfirmAll(b *testing.B) {
	for _, k := range []int{1, 5, 10} {
		b.Run(fmt.Sprintf("items=%d", k), func(b *testing.B) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			db := storagetest.Open(b, "sqlite", clock.Now)
			sets := make([]nod.ChangeSet, b.N)
			for i := range sets {
				id := fmt.Sprintf("T%d", i) // a task per set, so that checklists do not grow across iterations
				if _, err := db.Tasks().Apply(b.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed,
					Mutate: func(*nod.Task) (nod.Task, error) {
						return nod.Task{ID: nod.TaskID(id), Title: "Fix login bug", Status: nod.StatusOpen, Priority: nod.P3}, nil
					}}); err != nil {
					b.Fatal(err)
				}
				s := &nod.ChangeSet{}
				for j := range k {
					title := fmt.Sprintf("Step %d", j)
					s.Items = append(s.Items, nod.ChangeItem{Tool: "add_checklist_item", TaskID: nod.TaskID(id), Args: []byte(`{}`),
						Summary: "Add: " + title, Field: nod.FieldChecklist, After: title})
				}
				if err := db.Conversation().SaveTurn(b.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: s}); err != nil {
					b.Fatal(err)
				}
				sets[i] = *s
			}
			ns := make([]int, k)
			for j := range ns {
				ns[j] = j + 1
			}
			add := func(it nod.ChangeItem, cur *nod.Task) (nod.Task, error) {
				cur.Checklist = append(cur.Checklist, nod.ChecklistItem{ID: nod.ItemID(nod.NewID()), Title: it.After, CheckedBy: nod.ActorUser})
				return *cur, nil
			}
			stmts, _ := db.Work()
			b.ResetTimer()
			for i := range b.N {
				if res, err := db.ChangeSets().ConfirmItems(b.Context(), chat, sets[i].ID, ns, 42, "", add); err != nil || len(res.Applied) != k {
					b.Fatalf("%d applied, %v", len(res.Applied), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/item")
			after, _ := db.Work()
			b.ReportMetric(float64(after-stmts)/float64(b.N*k), "statements/item")
		})
	}
}

// A database that fails is never reported as a missing record: the person
// would read "not here" and nobody would see the failure.
func TestDatabaseErrorsAreNotNotFound(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		storagetest.Exec(t, db.DSN(), `ALTER TABLE change_items RENAME TO change_items_gone`)
		calls := map[string]func() error{
			"ChangeSet":  func() error { _, err := db.ChangeSets().ChangeSet(t.Context(), chat, cs.ID); return err },
			"RejectItem": func() error { _, err := db.ChangeSets().RejectItem(t.Context(), chat, cs.ID, 1, 42); return err },
			"ReviseItem": func() error {
				_, err := db.ChangeSets().ReviseItem(t.Context(), chat, cs.ID, 1, 42, cs.Items[0])
				return err
			},
			"Repropose": func() error { _, err := db.ChangeSets().Repropose(t.Context(), chat, cs.ID, 42, nil); return err },
			"ConfirmItems": func() error {
				_, _, err := confirmItem(t.Context(), db, chat, cs.ID, 1, 42, setPriority(nod.P1))
				return err
			},
		}
		for name, call := range calls {
			if err := call(); err == nil || errors.Is(err, nod.ErrNotFound) {
				t.Errorf("%s on a failing database: %v, want an error that is not ErrNotFound", name, err)
			}
		}
	})
}

// Owed messages: written with their change, taken by exactly one of the
// processes that look for them once the writer had its time, never again
// once delivered.
func TestOwedTakenOnce(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			dsn := storagetest.Migrated(t, d)
			writer, a, b := storagetest.OpenDSN(t, dsn, clock.Now), storagetest.OpenDSN(t, dsn, clock.Now), storagetest.OpenDSN(t, dsn, clock.Now)
			seedT1(t, writer)
			for _, p := range []nod.Priority{nod.P1, nod.P2, nod.P0} {
				if _, err := writer.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Audit: executed,
					Mutate: setPriority(p), Receipt: &nod.Receipt{Item: nod.ChangeItem{Tool: "set_task_priority", Summary: "Set priority"}}}); err != nil {
					t.Fatal(err)
				}
			}
			if own, _ := writer.Outbox().TakeOwed(t.Context(), time.Minute); len(own) != 0 {
				t.Errorf("the writer took its own fresh messages: %d", len(own))
			}
			clock.Advance(2 * time.Minute)
			var wg sync.WaitGroup
			taken := make([][]nod.Owed, 2)
			for i, db := range []*storage.DB{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var err error
					if taken[i], err = db.Outbox().TakeOwed(context.Background(), time.Minute); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			ids := map[string]int{}
			for _, os := range taken {
				for _, o := range os {
					ids[o.ID]++
					if o.Receipt == nil || string(o.Receipt.Item.UndoID) != o.Ref || o.Receipt.TaskTitle != "Fix login bug" {
						t.Errorf("owed receipt = %+v", o.Receipt)
					}
				}
			}
			if len(ids) != 3 || len(taken[0])+len(taken[1]) != 3 {
				t.Errorf("taken %d and %d of 3", len(taken[0]), len(taken[1]))
			}
			for _, os := range taken {
				for _, o := range os {
					if err := writer.Outbox().Delivered(t.Context(), chat, o.Kind, o.Ref); err != nil {
						t.Fatal(err)
					}
				}
			}
			clock.Advance(2 * time.Minute)
			if again, _ := a.Outbox().TakeOwed(t.Context(), time.Minute); len(again) != 0 {
				t.Errorf("delivered messages taken again: %d", len(again))
			}
		})
	}
}

// OwedRefreshes reads only for a chat that this process's commits owed a
// refresh that no delivery or read has found settled since: nothing on a
// plain turn, the set after a decision, until it is delivered.
func TestOwedRefreshesReadWhenOwed(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		owed := func(want ...nod.SetID) {
			t.Helper()
			if ids, err := db.Outbox().OwedRefreshes(t.Context(), chat); err != nil || !slices.Equal(ids, want) {
				t.Errorf("owed refreshes %v, %v; want %v", ids, err, want)
			}
		}
		reads := func() int64 {
			t.Helper()
			stmts, _ := db.Work()
			if _, err := db.Outbox().OwedRefreshes(t.Context(), chat); err != nil {
				t.Fatal(err)
			}
			ran, _ := db.Work()
			return ran - stmts
		}
		if n := reads(); n != 0 {
			t.Errorf("with no refresh owed, OwedRefreshes ran %d statements", n)
		}
		if _, _, err := confirmItem(t.Context(), db, chat, cs.ID, 1, 42, setPriority(nod.P1)); err != nil {
			t.Fatal(err)
		}
		owed(cs.ID)
		owed(cs.ID) // still owed: read again
		if err := db.Outbox().Delivered(t.Context(), chat, nod.OwedRefresh, string(cs.ID)); err != nil {
			t.Fatal(err)
		}
		if n := reads(); n != 0 {
			t.Errorf("once delivered, OwedRefreshes ran %d statements", n)
		}
		// Delivered by another process: the read finds it settled, once.
		if _, _, err := confirmItem(t.Context(), db, chat, cs.ID, 2, 42, func(cur *nod.Task) (nod.Task, error) { cur.Title = "Fix login redirect bug"; return *cur, nil }); err != nil {
			t.Fatal(err)
		}
		storagetest.Exec(t, db.DSN(), `UPDATE outbox SET delivered_at = 1 WHERE kind = 'refresh'`)
		if n := reads(); n != 1 {
			t.Errorf("delivered elsewhere, OwedRefreshes ran %d statements, want the 1 that finds none", n)
		}
		if n := reads(); n != 0 {
			t.Errorf("after a read found none, OwedRefreshes ran %d statements", n)
		}
		if ids, err := db.Outbox().OwedRefreshes(t.Context(), 200); err != nil || len(ids) != 0 {
			t.Errorf("another chat: %v, %v", ids, err)
		}
	})
}

// RefreshShown marks a set's refresh delivered only while the set is
// decided as the edit showed it: a decision made since, by another tap,
// leaves it owed, and so does a refresh someone else marked already.
func TestRefreshShown(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		first, _, err := confirmItem(t.Context(), db, chat, cs.ID, 1, 42, setPriority(nod.P1))
		if err != nil {
			t.Fatal(err)
		}
		// Another tap decides item 2 after item 1's edit was drawn.
		second, _, err := confirmItem(t.Context(), db, chat, cs.ID, 2, 42, func(cur *nod.Task) (nod.Task, error) { cur.Title = "Fix login redirect bug"; return *cur, nil })
		if err != nil {
			t.Fatal(err)
		}
		stmts, _ := db.Work()
		if shown, err := db.Outbox().RefreshShown(t.Context(), first); err != nil || shown {
			t.Errorf("an edit drawn before the second decision marked shown: %v, %v", shown, err)
		}
		if ran, _ := db.Work(); ran-stmts != 1 {
			t.Errorf("RefreshShown ran %d statements, want 1", ran-stmts)
		}
		if ids, err := db.Outbox().OwedRefreshes(t.Context(), chat); err != nil || !slices.Equal(ids, []nod.SetID{cs.ID}) {
			t.Errorf("owed refreshes after a stale edit: %v, %v", ids, err)
		}
		// Reread, as the bot does: the set as stored now.
		now, err := db.ChangeSets().ChangeSet(t.Context(), chat, cs.ID)
		if err != nil {
			t.Fatal(err)
		}
		if now.Status != second.Status || now.Items[0].UndoID != first.Items[0].UndoID {
			t.Fatalf("reread set %+v", now)
		}
		if shown, err := db.Outbox().RefreshShown(t.Context(), now); err != nil || !shown {
			t.Errorf("the edit of the set as stored did not mark shown: %v, %v", shown, err)
		}
		if ids, err := db.Outbox().OwedRefreshes(t.Context(), chat); err != nil || len(ids) != 0 {
			t.Errorf("owed refreshes once shown: %v, %v", ids, err)
		}
		if shown, err := db.Outbox().RefreshShown(t.Context(), now); err != nil || shown {
			t.Errorf("a refresh delivered already marked again: %v, %v", shown, err)
		}
	})
}

// A reading's button, tapped at once on two replicas, is used once; the
// person who did not say it is refused.
func TestTakeReadingOnce(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			dsn := storagetest.Migrated(t, d)
			a, b := storagetest.OpenDSN(t, dsn, clock.Now), storagetest.OpenDSN(t, dsn, clock.Now)
			seedT1(t, a)
			cs := proposeCS(t, a)
			r := nod.Reading{ID: "r1", ChatID: chat, UserID: 42, SetID: cs.ID, Confirm: []int{1}, Reject: []int{2}}
			if err := a.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Readings: []nod.Reading{r}}); err != nil {
				t.Fatal(err)
			}
			if _, err := a.ChangeSets().TakeReading(t.Context(), chat, "r1", 43); !errors.Is(err, nod.ErrForbidden) {
				t.Errorf("another user's take: %v, want ErrForbidden", err)
			}
			var wg sync.WaitGroup
			wins := make([]bool, 8)
			for i := range wins {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := []*storage.DB{a, b}[i%2].ChangeSets().TakeReading(context.Background(), chat, "r1", 42)
					switch {
					case err == nil:
						wins[i] = slices.Equal(got.Confirm, []int{1}) && slices.Equal(got.Reject, []int{2})
					case !errors.Is(err, nod.ErrDecided):
						t.Errorf("take: %v", err)
					}
				}()
			}
			wg.Wait()
			if n := len(slices.DeleteFunc(wins, func(w bool) bool { return !w })); n != 1 {
				t.Errorf("%d of 8 concurrent takes won, want 1", n)
			}
		})
	}
}

// Confirm-all of ten checklist additions runs in one transaction, in
// statements linear in the items and few of them each: the item's row, its
// audit row, undo entry, decision and status, with the task, the set and
// the chain's head read once.
func TestConfirmAllStatements(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		const k = 10
		seedT1(t, db)
		s := &nod.ChangeSet{}
		for j := range k {
			title := fmt.Sprintf("Step %d", j)
			s.Items = append(s.Items, nod.ChangeItem{Tool: "add_checklist_item", TaskID: "T1", Args: []byte(`{}`),
				Summary: "Add: " + title, Field: nod.FieldChecklist, After: title})
		}
		if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: s}); err != nil {
			t.Fatal(err)
		}
		add := func(it nod.ChangeItem, cur *nod.Task) (nod.Task, error) {
			cur.Checklist = append(cur.Checklist, nod.ChecklistItem{ID: nod.ItemID(nod.NewID()), Title: it.After, CheckedBy: nod.ActorUser})
			return *cur, nil
		}
		stmts, txs := db.Work()
		res, err := db.ChangeSets().ConfirmItems(t.Context(), chat, s.ID, nil, 42, "", add)
		if err != nil || len(res.Applied) != k {
			t.Fatalf("ConfirmItems: %d applied, %v", len(res.Applied), err)
		}
		stmts2, txs2 := db.Work()
		// The set is read with its items and the chat's audit chain head
		// in one statement, the task with its checklist in one; each item
		// writes its task, audit row, undo entry and decision; the streak
		// of their kind is read with the COMMIT.
		const most = 57
		if n := stmts2 - stmts; n > most || txs2-txs != 1 {
			t.Errorf("confirm-all of %d items ran %d statements in %d transactions, want at most %d in 1", k, n, txs2-txs, most)
		}
		task, err := db.Tasks().Task(t.Context(), chat, "T1")
		if err != nil {
			t.Fatal(err)
		}
		if got := fixtures.ChecklistTitles(task); len(got) != 3+k || got[3] != "Step 0" || got[3+k-1] != "Step 9" {
			t.Errorf("checklist after confirm-all: %q", got)
		}
	})
}

// BenchmarkStatementReuse reads a chat's settings through the DB, whose
// statements are prepared once and kept, and, for comparison, with the
// same SQL text through database/sql, which has modernc parse and plan it
// on every call.
func BenchmarkStatementReuse(b *testing.B) {
	clock := fixtures.NewClock(fixtures.DefaultNow)
	dsn := storagetest.DSN(b, "sqlite")
	db := storage.New(storage.Options{DSN: dsn}, clock.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Settings().SetLanguage(b.Context(), chat, "de"); err != nil {
		b.Fatal(err)
	}
	b.Run("prepared once", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Settings().ChatSettings(b.Context(), chat, chat); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parsed each time", func(b *testing.B) {
		raw, err := sql.Open("sqlite", "file:"+dsn+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
		if err != nil {
			b.Fatal(err)
		}
		defer raw.Close()
		for b.Loop() {
			var (
				mode, lang, seen string
				breaker          sql.NullInt64
				by               int64
			)
			err := raw.QueryRowContext(b.Context(), `SELECT COALESCE(s.mode, ''), s.breaker_until, COALESCE(s.lang, ''), COALESCE(s.lang_seen, ''), COALESCE(d.user_id, 0)
		FROM (SELECT CAST($1 AS BIGINT) AS chat_id) c LEFT JOIN chat_settings s ON s.chat_id = c.chat_id LEFT JOIN pending_deletions d ON d.chat_id = c.chat_id`,
				chat).Scan(&mode, &breaker, &lang, &seen, &by)
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The history window's start moves Step messages at a time: between moves
// the history a turn sends is a prefix of the next turn's, whatever the
// sizes of the turns and however other chats' messages interleave.
func TestHistoryWindowMovesInSteps(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		w := nod.Window{Keep: 10, Step: 5}
		n, starts := 0, map[string]bool{}
		for turn := range 30 {
			var msgs []nod.ChatMessage
			for range turn%3 + 1 {
				n++
				msgs = append(msgs, nod.ChatMessage{Role: nod.RoleUser, Content: fmt.Sprintf("m%d", n)})
			}
			if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: 200}, Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "other chat"}}})
			got, err := db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, w)
			if err != nil {
				t.Fatal(err)
			}
			start := 0 // messages left out, worked out by hand
			if n > 10 {
				start = n - 10 - (n-10)%5
			}
			if len(got) != n-start || got[0].Content != fmt.Sprintf("m%d", start+1) || got[len(got)-1].Content != fmt.Sprintf("m%d", n) {
				t.Fatalf("after %d messages: %d from %q, want %d from m%d", n, len(got), got[0].Content, n-start, start+1)
			}
			starts[got[0].Content] = true
		}
		if n != 60 || len(starts) != 11 { // m1, then m6, m11, … m51
			t.Errorf("%d messages, %d different starts, want 60 and 11", n, len(starts))
		}
	})
}

// Turns of one chat saved at once (two replicas, say) number their
// messages one after the other: no number twice, none skipped.
func TestConcurrentTurnsNumberMessagesOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		const turns = 8
		var wg sync.WaitGroup
		for i := range turns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				msgs := []nod.ChatMessage{{Role: nod.RoleUser, Content: fmt.Sprintf("q%d", i)}, {Role: nod.RoleAssistant, Content: fmt.Sprintf("a%d", i)}}
				if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, Messages: msgs}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		// Numbered 1 to 16, a window of 4 moving 4 at a time holds the
		// last four; a number given twice would leave it holding more.
		got, err := db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 4, Step: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 {
			t.Errorf("window of 2×%d messages holds %d, want 4", turns, len(got))
		}
	})
}

// /today finds the reminders done for the day from the day's taps, and
// get_task a repeating task's times done lately from the taps of two
// weeks, read through the audit log's index by time, not the chat's
// whole log.
func TestDoneTodayReadByTime(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		for _, latest := range []bool{false, true} {
			plan, err := db.DoneTodayPlan(t.Context(), latest)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan, "audit_log_events") {
				t.Errorf("the plan (latest %v) does not use audit_log_events:\n%s", latest, plan)
			}
		}
	})
}

// Events reads what happened since a time through indexes by time, not
// every row the chat ever had: a turn costs the same in a chat a year old.
func TestEventsReadByTime(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		plan, err := db.EventsPlan(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, index := range []string{"decisions_chat_time", "undo_entries_undone", "audit_log_events"} {
			if !strings.Contains(plan, index) {
				t.Errorf("the plan does not use %s:\n%s", index, plan)
			}
		}
	})
}

// A decision reads its set and the tasks its items change at once (on
// PostgreSQL, in the round trip that takes the chat's lock): each item
// decides on its task as stored, checklist and card included, whether
// one item is confirmed or all.
func TestDecisionReadsItsTasksWithTheSet(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			db := storagetest.Open(t, d, clock.Now)
			ctx := t.Context()
			t1 := seedT1(t, db)
			create := func(id nod.TaskID, title string, steps ...string) nod.Task {
				a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed,
					Mutate: func(*nod.Task) (nod.Task, error) {
						tk := nod.Task{ID: id, Title: title, Status: nod.StatusOpen, Priority: nod.P3}
						for i, s := range steps {
							tk.Checklist = append(tk.Checklist, nod.ChecklistItem{ID: nod.ItemID(fmt.Sprintf("%s-%d", id, i)), Title: s, CheckedBy: nod.ActorUser})
						}
						return tk, nil
					}})
				if err != nil {
					t.Fatal(err)
				}
				return a.After
			}
			t2 := create("T2", "Call Ann", "Find her number", "Ask about Friday")
			create("T3", "Water plants")
			create("T4", "Plan trip", "Book train", "Pack")
			if err := db.Messages().SetCardMessage(ctx, chat, "T1", 71); err != nil {
				t.Fatal(err)
			}
			if err := db.Messages().SetCardMessage(ctx, chat, "T2", 72); err != nil {
				t.Fatal(err)
			}
			prio := func(id nod.TaskID) nod.ChangeItem {
				return nod.ChangeItem{Tool: "set_task_priority", TaskID: id, Args: []byte(`{"task_id":"` + string(id) + `","priority":"P1"}`),
					Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"}
			}
			propose := func(items ...nod.ChangeItem) nod.ChangeSet {
				set := &nod.ChangeSet{Items: items}
				if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: set}); err != nil {
					t.Fatal(err)
				}
				return *set
			}
			var seen []nod.Task
			decide := func(it nod.ChangeItem, cur *nod.Task) (nod.Task, error) {
				seen = append(seen, *cur)
				cur.Priority = nod.P1
				return *cur, nil
			}
			stored := func(id nod.TaskID) nod.Task {
				tk, err := db.Tasks().Task(ctx, chat, id)
				if err != nil {
					t.Fatal(err)
				}
				return tk
			}
			// One item of three: its task only, as stored.
			set := propose(prio("T1"), prio("T2"), prio("T3"), prio("T4"))
			want := stored("T2")
			res, err := db.ChangeSets().ConfirmItems(ctx, chat, set.ID, []int{2}, 42, "", decide)
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != 1 || !reflect.DeepEqual(seen[0], want) || len(seen[0].Checklist) != 2 {
				t.Errorf("item 2 decided on %+v; want T2 as stored: %+v", seen, want)
			}
			if !reflect.DeepEqual(res.Cards, map[nod.TaskID]int{"T2": 72}) {
				t.Errorf("cards = %v; want T2's only", res.Cards)
			}
			// The rest at once; T3 was deleted meanwhile, which closed its item.
			if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T3", Tool: "delete_task", Audit: executed,
				Mutate: func(cur *nod.Task) (nod.Task, error) {
					now := clock.Now()
					cur.DeletedAt = &now
					return *cur, nil
				}}); err != nil {
				t.Fatal(err)
			}
			seen = nil
			wants := []nod.Task{stored("T1"), stored("T4")}
			res, err = db.ChangeSets().ConfirmItems(ctx, chat, set.ID, nil, 42, "", decide)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(seen, wants) || len(seen[0].Checklist) != len(t1.Checklist) || len(seen[1].Checklist) != 2 {
				t.Errorf("confirm all decided on %+v; want T1 and T4 as stored: %+v", seen, wants)
			}
			if _, ok := res.Applied[4]; !ok || len(res.Applied) != 2 || res.Stopped != 0 {
				t.Errorf("confirm all applied %v, stopped at %d; want items 1 and 4 (3 closed by the deletion)", res.Applied, res.Stopped)
			}
			if !reflect.DeepEqual(res.Cards, map[nod.TaskID]int{"T1": 71}) {
				t.Errorf("cards = %v; want T1's only", res.Cards)
			}
			if got := stored("T2"); got.Priority != nod.P1 || len(got.Checklist) != len(t2.Checklist) {
				t.Errorf("T2 after = %+v", got)
			}
		})
	}
}

// Undo, Redo, Undo again: each step takes a confirmed item's change back
// or puts it back, and the set's item, the decision the model is told and
// the changes the agent keeps out all follow the latest step, however
// long the chain; a Redo, or the undo of one, finds the item's set.
func TestUndoneNowFollowsTheChain(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		set := proposeCS(t, db)
		_, applied, err := confirmItem(ctx, db, chat, set.ID, 1, 42, setPriority(nod.P1))
		if err != nil {
			t.Fatal(err)
		}
		first := applied.Undo.ID
		check := func(step string, undone bool, by nod.UndoID) {
			t.Helper()
			u, err := db.Undo().UndoEntry(ctx, chat, first)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := db.ChangeSets().RecentDecisions(ctx, chat, 5)
			if err != nil || len(ds) == 0 {
				t.Fatal(len(ds), err)
			}
			listed, err := db.Undo().UndoneSince(ctx, chat, clock.Now().Add(-time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if u.UndoneNow != undone || ds[0].Undone != undone || (len(listed) == 1) != undone {
				t.Errorf("after %s: the change's entry says undone %v, its decision %v, the undone changes %d; want %v", step, u.UndoneNow, ds[0].Undone, len(listed), undone)
			}
			if by == "" {
				return
			}
			if got, err := db.ChangeSets().ChangeSetByUndo(ctx, chat, by); err != nil || got.ID != set.ID {
				t.Errorf("after %s: the set of %s is %q (%v), want %q", step, by, got.ID, err, set.ID)
			}
		}
		check("the confirm", false, "")
		at := first
		for i, step := range []string{"Undo", "Redo", "Undo again", "Redo again", "Undo a third time"} {
			clock.Advance(time.Minute)
			u, err := db.Undo().Undo(ctx, chat, at, 42, false)
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if u.Redo.Root != first {
				t.Errorf("%s: the next entry's root is %q, want %q", step, u.Redo.Root, first)
			}
			// Every other step puts the change back: so its report, its
			// audit row and what the agent is told say, not whether the
			// entry taken back reverted another (an Undo of a Redo does).
			redo := i%2 == 1
			if u.Redone != redo || u.Redo.Redoes == redo {
				t.Errorf("%s: redone %v, the next entry redoes %v; want %v, %v", step, u.Redone, u.Redo.Redoes, redo, !redo)
			}
			if a, err := db.Audit().Audit(ctx, chat, 1); err != nil || len(a) != 1 || a[0].Outcome != map[bool]nod.Outcome{false: nod.OutcomeUndone, true: nod.OutcomeRedone}[redo] {
				t.Errorf("%s: latest audit row %+v (%v)", step, a, err)
			}
			events, err := db.Conversation().Events(ctx, nod.Topic{ChatID: chat}, clock.Now().Add(-time.Second))
			if want := map[bool]nod.EventKind{false: nod.EventUndone, true: nod.EventRedone}[redo]; err != nil || len(events) != 1 || events[0].Kind != want {
				t.Errorf("%s: events %+v (%v), want one %s", step, events, err, want)
			}
			at = u.Redo.ID
			check(step, i%2 == 0, at)
		}
		if task, _ := db.Tasks().Task(ctx, chat, "T1"); task.Priority != nod.P3 {
			t.Errorf("after three undos and two redos the priority is %s, want P3", task.Priority)
		}
	})
}

// Taps on one Undo, and then on its Redo, racing on every database: one
// of each takes effect, and the change's undone-now flips exactly once
// for each, never twice.
func TestUndoAndRedoRaceToOneFlip(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		a := raiseT1(t, db)
		race := func(step string, id nod.UndoID, undone bool) nod.UndoID {
			t.Helper()
			const taps = 8
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				won  []nod.UndoID
				errs []error
			)
			for range taps {
				wg.Go(func() {
					u, err := db.Undo().Undo(ctx, chat, id, 42, false)
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						won = append(won, u.Redo.ID)
					} else if !errors.Is(err, nod.ErrDecided) {
						errs = append(errs, err)
					}
				})
			}
			wg.Wait()
			if len(won) != 1 || len(errs) > 0 {
				t.Fatalf("%s: %d of %d taps took effect (want 1), other failures %v", step, len(won), taps, errs)
			}
			if u, err := db.Undo().UndoEntry(ctx, chat, a.Undo.ID); err != nil || u.UndoneNow != undone {
				t.Fatalf("%s: the change reads undone now %v (%v), want %v", step, u.UndoneNow, err, undone)
			}
			return won[0]
		}
		redo := race("Undo", a.Undo.ID, true)
		clock.Advance(time.Minute)
		race("Redo", redo, false)
		if task, _ := db.Tasks().Task(ctx, chat, "T1"); task.Priority != nod.P1 {
			t.Errorf("after one Undo and one Redo the priority is %s, want P1", task.Priority)
		}
	})
}

// NumberedButtons finds a button by its data, or the same data numbered,
// newest message first, and no data that only starts alike.
func TestNumberedButtons(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		for msg, data := range map[int]string{1: "1u.abc", 2: "1u.abc.2", 3: "1u.abcd", 4: "1u.abc.12", 5: "1u.ab"} {
			if err := db.Messages().BindButtons(ctx, chat, msg, []string{data}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Messages().BindButtons(ctx, chat+1, 6, []string{"1u.abc"}); err != nil {
			t.Fatal(err)
		}
		got, err := db.Messages().NumberedButtons(ctx, chat, "1u.abc")
		if err != nil {
			t.Fatal(err)
		}
		want := []nod.SentButton{{Message: 4, Data: "1u.abc.12"}, {Message: 2, Data: "1u.abc.2"}, {Message: 1, Data: "1u.abc"}}
		if !slices.Equal(got, want) {
			t.Errorf("NumberedButtons = %+v, want %+v", got, want)
		}
	})
}

// Taking back what trashed a task asks first when the person added
// another task of its title since (they asked for it anew): the undo is
// refused as an ErrTwin conflict naming when, and goes through with
// force. A twin older than the change taken back (two kept on purpose,
// one deleted) asks nothing.
func TestUndoBesideATwinAddedSince(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		create := func(title string) nod.Applied {
			t.Helper()
			task := nod.Task{Title: title, Status: nod.StatusOpen, Priority: nod.P2}
			a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: nod.ToolCreateTask, Audit: executed,
				Mutate: func(*nod.Task) (nod.Task, error) { return task, nil }})
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute)
			return a
		}
		first := create("Call the bank")
		undone, err := db.Undo().Undo(ctx, chat, first.Undo.ID, 42, false)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		anew := create("call the bank") // asked for anew, in other case
		_, err = db.Undo().Undo(ctx, chat, undone.Redo.ID, 42, false)
		var cf nod.Conflict
		if !errors.Is(err, nod.ErrTwin) || !errors.Is(err, nod.ErrStale) || !errors.As(err, &cf) || !cf.Twin.Equal(anew.After.CreatedAt) || !cf.Added.Equal(first.After.CreatedAt) {
			t.Fatalf("the Redo beside a task asked for anew: %v (%+v), want ErrTwin naming %s, and %s for the one it brings back", err, cf, anew.After.CreatedAt, first.After.CreatedAt)
		}
		if _, err := db.Tasks().Task(ctx, chat, first.After.ID); !errors.Is(err, nod.ErrTrashed) {
			t.Errorf("the refused Redo left the task out of the trash: %v", err)
		}
		if _, err := db.Undo().Undo(ctx, chat, undone.Redo.ID, 42, true); err != nil {
			t.Fatalf("the Redo with force: %v", err)
		}

		// Two of a title kept on purpose: undoing the deletion of one asks nothing.
		a, b := create("Pay rent"), create("Pay rent")
		now := clock.Now()
		del, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: a.After.ID, Tool: nod.ToolDeleteTask, Audit: executed,
			Mutate: func(cur *nod.Task) (nod.Task, error) { cur.DeletedAt = &now; return *cur, nil }})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if _, err := db.Undo().Undo(ctx, chat, del.Undo.ID, 42, false); err != nil {
			t.Errorf("undoing the deletion of one of two kept on purpose (the other %s): %v", b.After.ID, err)
		}
	})
}

// Two tasks whose titles differ only in case are twins: a deletion's
// typed title matches either. One in the trash, or of another title, is
// none.
func TestSameTitleFoldsCase(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedTask(t, db, "A", "Überweisung prüfen")
		seedTask(t, db, "B", "überweisung PRÜFEN")
		seedTask(t, db, "C", "Call the bank")
		for _, c := range []struct {
			id    nod.TaskID
			title string
			want  bool
		}{{"A", "Überweisung prüfen", true}, {"B", "überweisung PRÜFEN", true}, {"C", "Call the bank", false}} {
			if got, err := db.Tasks().SameTitle(ctx, chat, c.id, c.title); err != nil || got != c.want {
				t.Errorf("SameTitle(%s) = %v, %v; want %v", c.id, got, err, c.want)
			}
		}
		now := clock.Now()
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "B", Tool: nod.ToolDeleteTask, Audit: executed,
			Mutate: func(cur *nod.Task) (nod.Task, error) { cur.DeletedAt = &now; return *cur, nil }}); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Tasks().SameTitle(ctx, chat, "A", "Überweisung prüfen"); err != nil || got {
			t.Errorf("with its twin in the trash, SameTitle = %v, %v", got, err)
		}
	})
}

// An old Redo and the same task asked for anew, racing: whichever takes
// the chat first decides. The Redo goes through before the new task (two
// of the title, as the person asked twice) or is refused as a twin after
// it (one on the list, the old one still in the trash); never an error of
// another kind, never a task lost or doubled.
func TestRedoRacesATwinAskedAnew(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		outcomes := map[string]int{}
		for round := range 8 {
			title := fmt.Sprintf("Pay bill %d", round)
			create := func() (nod.Applied, error) {
				task := nod.Task{Title: title, Status: nod.StatusOpen, Priority: nod.P2}
				return db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: nod.ToolCreateTask, Audit: executed,
					Mutate: func(*nod.Task) (nod.Task, error) { return task, nil }})
			}
			first, err := create()
			if err != nil {
				t.Fatal(err)
			}
			undone, err := db.Undo().Undo(ctx, chat, first.Undo.ID, 42, false)
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute)
			var (
				wg               sync.WaitGroup
				redoErr, anewErr error
			)
			wg.Go(func() { _, redoErr = db.Undo().Undo(ctx, chat, undone.Redo.ID, 42, false) })
			wg.Go(func() { _, anewErr = create() })
			wg.Wait()
			if anewErr != nil {
				t.Fatalf("round %d: the task asked anew failed: %v", round, anewErr)
			}
			tasks, err := db.Tasks().ListTasks(ctx, chat, nod.TaskFilter{})
			if err != nil {
				t.Fatal(err)
			}
			live := 0
			for _, task := range tasks {
				if task.Title == title {
					live++
				}
			}
			_, trashErr := db.Tasks().Task(ctx, chat, first.After.ID)
			switch {
			case redoErr == nil && live == 2 && trashErr == nil:
				outcomes["redo first"]++
			case errors.Is(redoErr, nod.ErrTwin) && live == 1 && errors.Is(trashErr, nod.ErrTrashed):
				outcomes["asked anew first"]++
			default:
				t.Fatalf("round %d: the Redo gave %v, %d of the title are on the list, the old one reads %v", round, redoErr, live, trashErr)
			}
		}
		t.Logf("outcomes: %v", outcomes)
	})
}
