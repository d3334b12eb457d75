package storage_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// manyTasks returns n tasks of chat, every seventh in progress, every
// fifth done, every third with "Übersicht" in its title.
func manyTasks(chat nod.ChatID, n int) []nod.Task {
	tasks := make([]nod.Task, n)
	for i := range tasks {
		t := nod.Task{ID: nod.TaskID(fmt.Sprintf("m%d", i)), ChatID: chat, Title: fmt.Sprintf("Task %d", i), Status: nod.StatusOpen, Priority: nod.P2}
		switch {
		case i%5 == 0:
			t.Status = nod.StatusDone
		case i%7 == 0:
			t.Status = nod.StatusInProgress
		}
		if i%3 == 0 {
			t.Title += " Übersicht"
		}
		if i%4 == 0 {
			t.Checklist = []nod.ChecklistItem{{ID: nod.ItemID(fmt.Sprintf("m%d-c", i)), Title: "Step", CheckedBy: nod.ActorUser}}
		}
		tasks[i] = t
	}
	return tasks
}

// pageAll reads every page of f with limit and returns the ids in order,
// checking each page's total.
func pageAll(t *testing.T, db *storage.DB, f nod.TaskFilter, limit, total int) []nod.TaskID {
	t.Helper()
	var ids []nod.TaskID
	req := nod.PageRequest{Limit: limit}
	for pages := 0; ; pages++ {
		p, err := db.Tasks().TaskPage(t.Context(), chat, f, req)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != total || len(p.Tasks) > limit || len(p.Cursors) != len(p.Tasks) || pages > total {
			t.Fatalf("page %d of %+v: total %d, %d tasks, %d cursors; want total %d", pages, f, p.Total, len(p.Tasks), len(p.Cursors), total)
		}
		for i, task := range p.Tasks {
			ids = append(ids, task.ID)
			if i > 0 && nod.CompareCursors(p.Cursors[i-1], p.Cursors[i]) >= 0 {
				t.Fatalf("cursors out of order: %q then %q", p.Cursors[i-1], p.Cursors[i])
			}
		}
		if !p.Later {
			return ids
		}
		req.After = p.Cursors[len(p.Cursors)-1]
	}
}

// A chat's tasks page through by cursor, each once, in listing order,
// with every filter, and the totals follow creations, status changes,
// the trash and purges.
func TestTaskPages(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		ctx := t.Context()
		const n = 250
		all := manyTasks(chat, n)
		if err := db.Tasks().ImportTasks(ctx, append(all, nod.Task{ID: "other", ChatID: 200, Title: "Task of another chat", Status: nod.StatusOpen, Priority: nod.P2})); err != nil {
			t.Fatal(err)
		}
		want := func(f nod.TaskFilter) []nod.TaskID {
			var ids []nod.TaskID
			for _, task := range all {
				if f.Match(task) {
					ids = append(ids, task.ID)
				}
			}
			return ids
		}
		for _, f := range []nod.TaskFilter{{}, {Status: nod.StatusDone}, {Query: "übersicht"}, {Query: "ÜBERSICHT", Status: nod.StatusInProgress}, {Query: "nothing like it"}} {
			for _, limit := range []int{1, 7, 50, 200} {
				w := want(f)
				if got := pageAll(t, db, f, limit, len(w)); !slices.Equal(got, w) {
					t.Errorf("%+v by %d: %d tasks, want %d (%v… against %v…)", f, limit, len(got), len(w), got[:min(5, len(got))], w[:min(5, len(w))])
				}
			}
		}

		// Back from the last page to the first.
		p, err := db.Tasks().TaskPage(ctx, chat, nod.TaskFilter{}, nod.PageRequest{Limit: 20, After: "6y"}) // seq 250: past the end
		if err != nil || len(p.Tasks) != 0 || p.Total != n || p.Later {
			t.Fatalf("page past the end: %d tasks, total %d, later %v, %v", len(p.Tasks), p.Total, p.Later, err)
		}
		var back []nod.TaskID
		req := nod.PageRequest{Limit: 20, Before: "6z"}
		for {
			p, err := db.Tasks().TaskPage(ctx, chat, nod.TaskFilter{}, req)
			if err != nil {
				t.Fatal(err)
			}
			back = append(slices.Clone(ids(p.Tasks)), back...)
			if !p.Earlier {
				break
			}
			req.Before = p.Cursors[0]
		}
		if !slices.Equal(back, want(nod.TaskFilter{})) {
			t.Errorf("paging back read %d tasks, want %d", len(back), n)
		}
		if p, err := db.Tasks().TaskPage(ctx, chat, nod.TaskFilter{}, nod.PageRequest{Limit: 5, Before: "1"}); err != nil || len(p.Tasks) != 5 || p.Tasks[0].ID != "m0" || p.Earlier {
			t.Errorf("a page before the first task is the first page: %v, %v", ids(p.Tasks), err)
		}
		if _, err := db.Tasks().TaskPage(ctx, chat, nod.TaskFilter{}, nod.PageRequest{After: "not a cursor!"}); err == nil {
			t.Errorf("a malformed cursor was accepted")
		}

		// Totals after writes of every kind, by any writer.
		storagetest.Exec(t, db.DSN(),
			`UPDATE tasks SET status = 'DONE' WHERE id IN ('m1', 'm2')`,
			`UPDATE tasks SET deleted_at = 1 WHERE id IN ('m3', 'm5')`, // m5 was done
			`UPDATE tasks SET deleted_at = NULL WHERE id = 'm3'`,
			`UPDATE tasks SET deleted_at = 1 WHERE id = 'm4'`,
			`DELETE FROM tasks WHERE id = 'm4'`, // a purge of the trash
			`DELETE FROM tasks WHERE id = 'm6'`)
		live, err := db.Tasks().ListTasks(ctx, chat, nod.TaskFilter{})
		if err != nil {
			t.Fatal(err)
		}
		done, _ := db.Tasks().ListTasks(ctx, chat, nod.TaskFilter{Status: nod.StatusDone})
		for f, w := range map[nod.TaskFilter]int{{}: len(live), {Status: nod.StatusDone}: len(done)} {
			if p, err := db.Tasks().TaskPage(ctx, chat, f, nod.PageRequest{Limit: 1}); err != nil || p.Total != w {
				t.Errorf("total of %+v after writes = %d, want %d (%v)", f, p.Total, w, err)
			}
		}
		if len(live) != n-3 {
			t.Errorf("%d live tasks, want %d", len(live), n-3)
		}
	})
}

func ids(tasks []nod.Task) []nod.TaskID {
	var out []nod.TaskID
	for _, t := range tasks {
		out = append(out, t.ID)
	}
	return out
}

// For any chat, SQLite's page of the prompt's tasks, its candidates
// picked in Go, is the page focusSQL's one statement reads: the same
// tasks in the same order, the same count. The chats mix statuses, due
// dates on and around today with ties, times changed with ties, trashed
// tasks, and kinds of more than 50 candidates.
func TestFocusTasksPickedAsOneStatement(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(t, "sqlite", clock.Now)
	ctx := t.Context()
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	statuses := []nod.Status{nod.StatusOpen, nod.StatusOpen, nod.StatusInProgress, nod.StatusBlocked, nod.StatusDone, nod.StatusRejected}
	for seed := range 12 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		chatID := nod.ChatID(100 + seed)
		n := []int{0, 1, 5, 40, 120, 260}[seed%6]
		var tasks []nod.Task
		for i := range n {
			task := nod.Task{ID: nod.TaskID(fmt.Sprintf("c%d-%d", seed, i)), ChatID: chatID, Title: "Task", Status: statuses[rng.IntN(len(statuses))], Priority: nod.P2,
				CreatedAt: base, UpdatedAt: base.Add(time.Duration(rng.IntN(30)) * time.Hour)}
			if rng.IntN(3) > 0 {
				task.DueDate = time.Date(2026, 3, 11+rng.IntN(20)-10, 0, 0, 0, 0, time.UTC).Format(nod.DateLayout)
			}
			tasks = append(tasks, task)
		}
		if err := db.Tasks().ImportTasks(ctx, tasks); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i += 9 {
			now := clock.Now()
			if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chatID}, UserID: 42, TaskID: tasks[i].ID, Tool: "delete_task", Audit: nod.AuditEntry{Outcome: nod.OutcomeConfirmed},
				Mutate: func(cur *nod.Task) (nod.Task, error) { cur.DeletedAt = &now; return *cur, nil }}); err != nil {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{1, 10, 50} {
			got, err := db.Tasks().FocusTasks(ctx, chatID, "2026-03-11", limit)
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.FocusOneStatement(ctx, chatID, "2026-03-11", limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got.Tasks), ids(want.Tasks)) || !slices.Equal(got.Cursors, want.Cursors) || got.Total != want.Total || got.Later != want.Later {
				t.Errorf("chat of %d tasks, limit %d: picked %v (%d, later %v), one statement %v (%d, later %v)",
					n, limit, ids(got.Tasks), got.Total, got.Later, ids(want.Tasks), want.Total, want.Later)
			}
		}
	}
}

// The system prompt's tasks: overdue, due within a week, in progress, then
// the most recently changed, at most the limit however many there are.
func TestFocusTasks(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		ctx := t.Context()
		base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		var tasks []nod.Task
		for i := range 300 { // background: changed long ago, oldest first
			tasks = append(tasks, nod.Task{ID: nod.TaskID(fmt.Sprintf("b%d", i)), ChatID: chat, Title: "Background", Status: nod.StatusOpen, Priority: nod.P3,
				CreatedAt: base, UpdatedAt: base.Add(time.Duration(i) * time.Minute)})
		}
		add := func(id string, status nod.Status, due string, updated time.Duration) {
			tasks = append(tasks, nod.Task{ID: nod.TaskID(id), ChatID: chat, Title: id, Status: status, Priority: nod.P2, DueDate: due, CreatedAt: base, UpdatedAt: base.Add(updated)})
		}
		add("overdue-old", nod.StatusOpen, "2026-03-01", 0)
		add("overdue-new", nod.StatusBlocked, "2026-03-10", 0)
		add("overdue-done", nod.StatusDone, "2026-03-09", 0)
		add("soon-later", nod.StatusOpen, "2026-03-18", 0)
		add("soon", nod.StatusOpen, "2026-03-11", 0)
		add("far", nod.StatusOpen, "2026-06-01", 0)
		add("doing", nod.StatusInProgress, "", 0)
		add("recent", nod.StatusDone, "", 72*time.Hour)
		if err := db.Tasks().ImportTasks(ctx, tasks); err != nil {
			t.Fatal(err)
		}
		p, err := db.Tasks().FocusTasks(ctx, chat, "2026-03-11", 10)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(p.Tasks)
		want := []nod.TaskID{"overdue-new", "overdue-old", "soon", "soon-later", "doing", "recent", "b299", "b298", "b297", "b296"}
		if !slices.Equal(got, want) || p.Total != len(tasks) || !p.Later || len(p.Cursors) != len(got) {
			t.Errorf("FocusTasks = %v, total %d, later %v; want %v of %d", got, p.Total, p.Later, want, len(tasks))
		}
		if p, err := db.Tasks().FocusTasks(ctx, chat, "2026-03-11", 500); err != nil || len(p.Tasks) != 50 {
			t.Errorf("FocusTasks(500) = %d tasks, %v; want 50", len(p.Tasks), err)
		}
		if p, err := db.Tasks().FocusTasks(ctx, 999, "2026-03-11", 50); err != nil || len(p.Tasks) != 0 || p.Total != 0 {
			t.Errorf("FocusTasks of an empty chat = %+v, %v", p, err)
		}
		titles, err := db.Tasks().TaskTitles(ctx, chat, []nod.TaskID{"soon", "far", "soon", "nope"})
		if err != nil || len(titles) != 2 || titles["far"] != "far" {
			t.Errorf("TaskTitles = %v, %v", titles, err)
		}
	})
}

// The prompt's tasks on SQLite as a turn reads them, in chats of 5, 50
// and 200 open tasks due around today: picked from their candidates in
// Go (FocusTasks), and by focusSQL's one statement for comparison.
func BenchmarkFocusTasks(b *testing.B) {
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(b, "sqlite", clock.Now)
	for _, n := range []int{5, 50, 200} {
		chatID := nod.ChatID(n)
		tasks := make([]nod.Task, n)
		for i := range tasks {
			tasks[i] = nod.Task{ID: nod.TaskID(fmt.Sprintf("f%d-%d", n, i)), ChatID: chatID, Title: fmt.Sprintf("Task %d", i), Status: nod.StatusOpen, Priority: nod.P2,
				DueDate: time.Date(2026, 3, 8+i%10, 0, 0, 0, 0, time.UTC).Format(nod.DateLayout)}
		}
		if err := db.Tasks().ImportTasks(b.Context(), tasks); err != nil {
			b.Fatal(err)
		}
		for _, way := range []struct {
			name string
			read func() (nod.TaskPage, error)
		}{
			{"picked", func() (nod.TaskPage, error) { return db.Tasks().FocusTasks(b.Context(), chatID, "2026-03-11", 50) }},
			{"one-statement", func() (nod.TaskPage, error) { return db.FocusOneStatement(b.Context(), chatID, "2026-03-11", 50) }},
		} {
			b.Run(fmt.Sprintf("tasks=%d/%s", n, way.name), func(b *testing.B) {
				for b.Loop() {
					if p, err := way.read(); err != nil || len(p.Tasks) != min(n, 50) {
						b.Fatal(len(p.Tasks), err)
					}
				}
			})
		}
	}
}
