package confirm_test

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/servicetest"
	"github.com/nodbot/nod/storage/storagetest"
)

// addFive queues five checklist items for T1 and confirms them all.
func (e *env) addFive(t *testing.T) nod.Decided {
	t.Helper()
	res, _ := e.Turn(t, openaitest.Call("a", "add_multiple_checklist_items", map[string]any{"task_id": "T1",
		"items": []map[string]string{{"title": "A"}, {"title": "B"}, {"title": "C"}, {"title": "D"}, {"title": "E"}}}))
	if res.Set == nil || len(res.Set.Items) != 5 {
		t.Fatalf("set = %+v, want 5 items", res.Set)
	}
	d, err := e.Confirm.ConfirmAll(t.Context(), chat, user, res.Set.ID)
	if err != nil || len(d.Applied) != 5 {
		t.Fatalf("ConfirmAll: %d applied, %v", len(d.Applied), err)
	}
	return d
}

// docs/design.md §6: after ✓ All of five checklist items, each Undo n
// removes exactly item n, in any order, and Redo puts it back in its place.
func TestUndoEachItemOfConfirmAll(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		d := e.addFive(t)
		base := []string{"Write tests", "Update docs", "Write migration notes"}
		want := append(slices.Clone(base), "A", "B", "C", "D", "E")
		if got := titles(e.Task(t, "T1")); !slices.Equal(got, want) {
			t.Fatalf("checklist after ✓ All = %q, want %q", got, want)
		}
		redos := map[int]nod.UndoID{}
		for _, n := range []int{2, 4, 1, 5, 3} {
			it, _ := d.Set.Item(n)
			u, err := e.Confirm.Undo(t.Context(), chat, user, it.UndoID, false)
			if err != nil {
				t.Fatalf("Undo %d: %v", n, err)
			}
			redos[n] = u.Redo.ID
			gone := string(rune('A' + n - 1))
			want = slices.DeleteFunc(want, func(s string) bool { return s == gone })
			if got := titles(e.Task(t, "T1")); !slices.Equal(got, want) {
				t.Errorf("after Undo %d: checklist %q, want %q", n, got, want)
			}
		}
		// Redo of D (undone second) brings it back after C's place, C being gone: after "Write migration notes".
		if _, err := e.Confirm.Undo(t.Context(), chat, user, redos[4], false); err != nil {
			t.Fatalf("Redo 4: %v", err)
		}
		if got, want := titles(e.Task(t, "T1")), append(slices.Clone(base), "D"); !slices.Equal(got, want) {
			t.Errorf("after Redo 4: checklist %q, want %q", got, want)
		}
	})
}

// Undo anyway of one item restores just that item: a later tick of item B
// makes Undo 2 ask, and Undo anyway removes B and nothing else.
func TestUndoAnywayTouchesOnlyItsItem(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		d := e.addFive(t)
		task := e.Task(t, "T1")
		b := task.Checklist[4]
		if _, err := e.Confirm.Toggle(t.Context(), nod.Topic{ChatID: chat}, user, b.ID, nod.ToggleTick); err != nil {
			t.Fatal(err)
		}
		it, _ := d.Set.Item(2)
		_, err := e.Confirm.Undo(t.Context(), chat, user, it.UndoID, false)
		var cf nod.Conflict
		if !errors.As(err, &cf) || cf.Field != nod.FieldChecklist || cf.Item != "B" {
			t.Fatalf("Undo 2 after ticking B: %v, want a conflict on item B", err)
		}
		if _, err := e.Confirm.Undo(t.Context(), chat, user, it.UndoID, true); err != nil {
			t.Fatalf("Undo anyway 2: %v", err)
		}
		want := []string{"Write tests", "Update docs", "Write migration notes", "A", "C", "D", "E"}
		if got := titles(e.Task(t, "T1")); !slices.Equal(got, want) {
			t.Errorf("after Undo anyway 2: %q, want %q", got, want)
		}
	})
}

// Undoing a tick works at once: the times the undo entry holds compare
// equal to the stored ones although the clock has nanoseconds.
func TestUndoTick(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		e.Clock.Advance(1234567 * time.Nanosecond)
		a, err := e.Confirm.Toggle(t.Context(), nod.Topic{ChatID: chat}, user, "c1", nod.ToggleTick)
		if err != nil {
			t.Fatal(err)
		}
		t1 := e.Task(t, "T1")
		c1, _ := t1.Item("c1")
		if !c1.Checked || c1.CheckedAt == nil || !c1.CheckedAt.Equal(nod.Stamp(e.Clock.Now())) {
			t.Fatalf("c1 after the tick: %+v", c1)
		}
		if _, err := e.Confirm.Undo(t.Context(), chat, user, a.Undo.ID, false); err != nil {
			t.Fatalf("undo of a tick: %v", err)
		}
		t1 = e.Task(t, "T1")
		c1, _ = t1.Item("c1")
		if c1.Checked || c1.CheckedBy != nod.ActorUser || c1.CheckedAt != nil {
			t.Errorf("c1 after undo: %+v, want unchecked, user, never set", c1)
		}
	})
}

// Nothing changes a task in the trash: the Redo of an undone change after
// the task was deleted is refused, with or without "anyway", and its
// waiting proposals are closed; the undo of the deletion itself restores
// it.
func TestTrashIsFinal(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, _ := e.Turn(t, openaitest.Call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
			openaitest.Call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 30}))
		d, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		undone, err := e.Confirm.Undo(t.Context(), chat, user, d.Applied[1].Undo.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		del, err := e.Confirm.Delete(t.Context(), chat, user, nod.PendingDeletion{Topic: nod.Topic{ChatID: chat}, UserID: user, TaskID: "T1", Title: "Fix login bug"})
		if err != nil {
			t.Fatal(err)
		}
		for _, force := range []bool{false, true} {
			if _, err := e.Confirm.Undo(t.Context(), chat, user, undone.Redo.ID, force); !errors.Is(err, nod.ErrTrashed) {
				t.Errorf("Redo (anyway %v) on a trashed task: %v, want ErrTrashed", force, err)
			}
		}
		// The deletion closed the task's waiting proposal: ✓ 2 finds it
		// decided, and says why.
		set, _ := e.DB.ChangeSets().ChangeSet(t.Context(), chat, res.Set.ID)
		it, _ := set.Item(2)
		if it.Status != nod.ItemStale || it.Note.Key != nod.NoteTaskGone {
			t.Errorf("after the deletion item 2 is %s (%v), want stale: task gone", it.Status, it.Note)
		}
		if _, err = e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 2); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("✓ 2 on a trashed task: %v, want ErrDecided", err)
		}
		trash, _ := e.DB.Tasks().Trash(t.Context(), chat)
		if len(trash) != 1 || trash[0].ID != "T1" || trash[0].Priority != nod.P3 || *trash[0].EstimateMinutes != 120 {
			t.Fatalf("trash = %+v, want T1 as it was deleted", trash)
		}
		if _, err := e.Confirm.Undo(t.Context(), chat, user, del.Undo.ID, false); err != nil {
			t.Fatalf("undo of the deletion: %v", err)
		}
		if task := e.Task(t, "T1"); task.Priority != nod.P3 {
			t.Errorf("restored T1 priority %s, want P3", task.Priority)
		}
	})
}

// In a group only the person who made a change may undo it, and /undo's
// latest entry is the sender's own.
func TestUndoIsTheAuthors(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		const other = 43
		res, _ := e.Turn(t, openaitest.Call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}))
		d, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Confirm.Undo(t.Context(), chat, other, d.Applied[1].Undo.ID, false); !errors.Is(err, nod.ErrForbidden) {
			t.Errorf("undo by another member: %v, want ErrForbidden", err)
		}
		if _, err := e.DB.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: chat}, other); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("LatestUndo of another member: %v, want ErrNotFound", err)
		}
		if u, err := e.DB.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: chat}, user); err != nil || u.ID != d.Applied[1].Undo.ID {
			t.Errorf("LatestUndo of the author: %v, %v", u.ID, err)
		}
		if e.Task(t, "T1").Priority != nod.P1 {
			t.Errorf("priority changed by a refused undo")
		}
	})
}

// A set is expired the moment its time is up: a decision after that is
// refused although no sweep has marked it.
func TestDecisionAfterTTLRefused(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, _ := e.Turn(t, openaitest.Call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
			openaitest.Call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 30}))
		e.Clock.Set(res.Set.ExpiresAt)
		calls := map[string]func() error{
			"✓ 1":   func() error { _, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1); return err },
			"✗ 1":   func() error { _, err := e.Confirm.Reject(t.Context(), chat, user, res.Set.ID, 1); return err },
			"✓ All": func() error { _, err := e.Confirm.ConfirmAll(t.Context(), chat, user, res.Set.ID); return err },
			"✗ All": func() error { _, err := e.Confirm.RejectAll(t.Context(), chat, user, res.Set.ID); return err },
		}
		for name, call := range calls {
			if err := call(); !errors.Is(err, nod.ErrExpired) {
				t.Errorf("%s at the set's expiry: %v, want ErrExpired", name, err)
			}
		}
		// The storage path refuses it too, whatever its caller checked.
		if _, err := e.DB.ChangeSets().RejectItem(t.Context(), chat, res.Set.ID, 2, user); !errors.Is(err, nod.ErrExpired) {
			t.Errorf("RejectItem at expiry: %v, want ErrExpired", err)
		}
		task := e.Task(t, "T1")
		set, _ := e.DB.ChangeSets().ChangeSet(t.Context(), chat, res.Set.ID)
		if task.Priority != nod.P3 || *task.EstimateMinutes != 120 || len(set.Pending()) != 2 {
			t.Errorf("after refused decisions: T1 %s/%d, %d pending", task.Priority, *task.EstimateMinutes, len(set.Pending()))
		}
	})
}

// Concurrent taps from two replicas on one database: 50 ✓ n on different
// checklist items of one task (each tapped twice), then ✓ All racing every
// ✓ n of another set. Every confirmed change is on the task, each exactly
// once with its decision, audit row and undo entry.
func TestConcurrentConfirmationsLoseNothing(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		const items = 60
		big := nod.Task{ID: "T5", Title: "Big checklist", Status: nod.StatusOpen, Priority: nod.P2}
		for i := range items {
			big.Checklist = append(big.Checklist, nod.ChecklistItem{ID: nod.ItemID(fmt.Sprintf("i%02d", i)), Title: fmt.Sprintf("Step %d", i), CheckedBy: nod.ActorAgent})
		}
		if _, err := e.DB.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, Tool: "seed",
			Mutate: func(*nod.Task) (nod.Task, error) { return big, nil }, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}}); err != nil {
			t.Fatal(err)
		}
		var sets []*nod.ChangeSet
		for s := range items / 10 {
			var elems []map[string]any
			for i := range 10 {
				elems = append(elems, map[string]any{"id": fmt.Sprintf("i%02d", s*10+i), "isChecked": true})
			}
			res, _ := e.Turn(t, openaitest.Call("a", "update_checklist_items", map[string]any{"task_id": "T5", "items": elems}))
			if res.Set == nil || len(res.Set.Items) != 10 {
				t.Fatalf("set %d = %+v", s, res.Set)
			}
			sets = append(sets, res.Set)
		}
		log := slog.New(slog.DiscardHandler)
		replicas := []*confirm.Service{e.Confirm, confirm.New(servicetest.ConfirmDeps(storagetest.OpenDSN(t, e.DSN, e.Clock.Now)), e.Clock.Now, log, nil)}

		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := map[string]int{}
		tap := func(r *confirm.Service, set *nod.ChangeSet, n int) {
			defer wg.Done()
			d, err := r.Confirm(t.Context(), chat, user, set.ID, n)
			if err != nil && !errors.Is(err, nod.ErrDecided) {
				t.Errorf("✓ %d of set %s: %v", n, set.ID, err)
			}
			mu.Lock()
			defer mu.Unlock()
			for k := range d.Applied {
				wins[fmt.Sprintf("%s/%d", set.ID, k)]++
			}
		}
		taps := 0
		// 50 items across five sets, each tapped on both replicas at once.
		for _, set := range sets[:5] {
			for n := 1; n <= 10; n++ {
				for _, r := range replicas {
					wg.Add(1)
					taps++
					go tap(r, set, n)
				}
			}
		}
		// ✓ All on one replica racing each ✓ n on the other.
		last := sets[5]
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := replicas[0].ConfirmAll(t.Context(), chat, user, last.ID)
			if err != nil && !errors.Is(err, nod.ErrDecided) {
				t.Errorf("✓ All: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			for k := range d.Applied {
				wins[fmt.Sprintf("%s/%d", last.ID, k)]++
			}
		}()
		for n := 1; n <= 10; n++ {
			wg.Add(1)
			taps++
			go tap(replicas[1], last, n)
		}
		wg.Wait()

		task := e.Task(t, "T5")
		lost := 0
		for _, it := range task.Checklist {
			if !it.Checked {
				lost++
			}
		}
		twice := 0
		for _, w := range wins {
			if w != 1 {
				twice++
			}
		}
		confirmed, undos := 0, map[nod.UndoID]bool{}
		for _, set := range sets {
			s, _ := e.DB.ChangeSets().ChangeSet(t.Context(), chat, set.ID)
			if s.Status != nod.SetResolved {
				t.Errorf("set %s is %s, want resolved", s.ID, s.Status)
			}
			for _, it := range s.Items {
				if it.Status == nod.ItemConfirmed {
					confirmed++
				}
				if u, err := e.DB.Undo().UndoEntry(t.Context(), chat, it.UndoID); err == nil && u.Change.Items[0].After.Checked {
					undos[it.UndoID] = true
				}
			}
		}
		auditRows := 0
		for _, a := range e.Audit(t) {
			if a.Outcome == nod.OutcomeConfirmed {
				auditRows++
			}
		}
		decisions, _ := e.DB.ChangeSets().RecentDecisions(t.Context(), chat, 1000)
		t.Logf("%d taps and one ✓ All over 2 replicas: %d items confirmed, %d lost updates, %d applied twice, %d decisions, %d audit rows, %d undo entries",
			taps, confirmed, lost, twice, len(decisions), auditRows, len(undos))
		if lost != 0 || twice != 0 || len(wins) != items || confirmed != items || len(decisions) != items || auditRows != items || len(undos) != items {
			t.Errorf("want every one of %d items applied exactly once with one decision, audit row and undo entry", items)
		}
		if brk, _, err := e.DB.Audit().VerifyAudit(t.Context()); err != nil || brk != nil {
			t.Errorf("audit chain after the race: %+v, %v", brk, err)
		}
	})
}

// Undo raced from two replicas: of 16 concurrent taps on one Undo exactly
// one undoes, the rest are told it was already done; one audit row, one
// redo entry. A confirmation of another field of the same task, raced with
// them, is kept.
func TestConcurrentUndoOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, _ := e.Turn(t, openaitest.Call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
			openaitest.Call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 30}))
		d, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		undoID := d.Applied[1].Undo.ID
		replicas := []*confirm.Service{e.Confirm, confirm.New(servicetest.ConfirmDeps(storagetest.OpenDSN(t, e.DSN, e.Clock.Now)), e.Clock.Now, slog.New(slog.DiscardHandler), nil)}
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			undone   int
			confirms int
		)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := replicas[i%2].Undo(t.Context(), chat, user, undoID, false)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					undone++
				case !errors.Is(err, nod.ErrDecided):
					t.Errorf("undo: %v", err)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, err := replicas[1].Confirm(t.Context(), chat, user, res.Set.ID, 2); err == nil && len(d.Applied) == 1 {
				mu.Lock()
				confirms++
				mu.Unlock()
			}
		}()
		wg.Wait()
		task := e.Task(t, "T1")
		rows := 0
		for _, a := range e.Audit(t) {
			if a.Outcome == nod.OutcomeUndone {
				rows++
			}
		}
		t.Logf("16 undo taps over 2 replicas and 1 confirmation: %d undone, %d confirmed, %d undone audit rows", undone, confirms, rows)
		if undone != 1 || rows != 1 || confirms != 1 || task.Priority != nod.P3 || *task.EstimateMinutes != 30 {
			t.Errorf("undone %d, audit rows %d, confirmed %d; T1 %s / %d", undone, rows, confirms, task.Priority, *task.EstimateMinutes)
		}
	})
}
