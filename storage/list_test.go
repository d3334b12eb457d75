package storage_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// listTasks returns n tasks of chat with due dates from three weeks back
// to three weeks ahead on some, every priority, some done or rejected,
// and the label "Home" (in varying case) on every third.
func listTasks(chat nod.ChatID, n int, today time.Time) []nod.Task {
	tasks := make([]nod.Task, n)
	for i := range tasks {
		t := nod.Task{ID: nod.TaskID(fmt.Sprintf("l%03d", i)), ChatID: chat, Title: fmt.Sprintf("Task %d", i), Status: nod.StatusOpen, Priority: nod.Priorities[(i*7)%4]}
		switch {
		case i%9 == 0:
			t.Status = nod.StatusDone
		case i%11 == 0:
			t.Status = nod.StatusRejected
		case i%13 == 0:
			t.Status = nod.StatusInProgress
		}
		if i%4 != 0 {
			t.DueDate = today.AddDate(0, 0, (i*5)%43-21).Format(nod.DateLayout)
		}
		if i%3 == 0 {
			t.Labels = []string{[]string{"Home", "home", "HOME"}[i%3], "x"}
		}
		tasks[i] = t
	}
	return tasks
}

// wantList is the order /tasks promises, written plainly: open tasks
// overdue or due within a week by due date, then by priority, then the
// newest (tasks is in creation order); or done ones, the newest first.
func wantList(tasks []nod.Task, l nod.TaskList) []nod.TaskID {
	soon := func() string {
		d, _ := time.Parse(nod.DateLayout, l.Today)
		return d.AddDate(0, 0, 7).Format(nod.DateLayout)
	}()
	type row struct {
		t   nod.Task
		pos int
	}
	var rows []row
	for i, t := range tasks {
		done := t.Status == nod.StatusDone || t.Status == nod.StatusRejected
		if done == l.Done && (nod.TaskFilter{Label: l.Label}).Match(t) {
			rows = append(rows, row{t, i})
		}
	}
	bucket := func(t nod.Task) (int, string) {
		if t.DueDate != "" && t.DueDate <= soon {
			return 0, t.DueDate
		}
		return 1, ""
	}
	slices.SortFunc(rows, func(a, b row) int {
		if l.Done {
			return b.pos - a.pos
		}
		ab, ad := bucket(a.t)
		bb, bd := bucket(b.t)
		return cmp.Or(ab-bb, strings.Compare(ad, bd), strings.Compare(string(a.t.Priority), string(b.t.Priority)), b.pos-a.pos)
	})
	out := make([]nod.TaskID, len(rows))
	for i, r := range rows {
		out[i] = r.t.ID
	}
	return out
}

// /tasks pages through in the order that needs the person, forward and
// back, each task once, with and without a label, on both databases; its
// counts split open from done.
func TestListPages(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		ctx := t.Context()
		today := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
		all := listTasks(chat, 240, today)
		if err := db.Tasks().ImportTasks(ctx, append(all, nod.Task{ID: "other", ChatID: 200, Title: "Task of another chat", Status: nod.StatusOpen, Priority: nod.P0})); err != nil {
			t.Fatal(err)
		}
		for _, l := range []nod.TaskList{{}, {Done: true}, {Label: "hOmE"}, {Label: " home ", Done: true}, {Label: "nothing"}} {
			l.Today = today.Format(nod.DateLayout)
			want := wantList(all, l)
			other := wantList(all, nod.TaskList{Label: l.Label, Done: !l.Done, Today: l.Today})
			for _, limit := range []int{1, 7, 20} {
				var got []nod.TaskID
				req := nod.PageRequest{Limit: limit}
				for pages := 0; ; pages++ {
					p, err := db.Tasks().ListPage(ctx, chat, l, req)
					if err != nil {
						t.Fatal(err)
					}
					openN, doneN := len(want), len(other)
					if l.Done {
						openN, doneN = doneN, openN
					}
					if p.Total != openN || p.Done != doneN || len(p.Tasks) > limit || len(p.Cursors) != len(p.Tasks) || pages > len(want) {
						t.Fatalf("%+v page %d by %d: total %d done %d, %d tasks; want %d and %d", l, pages, limit, p.Total, p.Done, len(p.Tasks), openN, doneN)
					}
					got = append(got, ids(p.Tasks)...)
					if !p.Later {
						break
					}
					req.After = p.Cursors[len(p.Cursors)-1]
				}
				if !slices.Equal(got, want) {
					t.Errorf("%+v by %d:\n got %v\nwant %v", l, limit, got, want)
				}
			}
			// Back from the last task to the first, seven at a time.
			if len(want) == 0 {
				continue
			}
			last := slices.Index(ids(all), want[len(want)-1])
			var back []nod.TaskID
			req := nod.PageRequest{Limit: 7, Before: seqCursor(t, db, l, want[len(want)-1])}
			for {
				p, err := db.Tasks().ListPage(ctx, chat, l, req)
				if err != nil {
					t.Fatal(err)
				}
				back = append(slices.Clone(ids(p.Tasks)), back...)
				if !p.Earlier {
					break
				}
				req.Before = p.Cursors[0]
			}
			if !slices.Equal(append(back, all[last].ID), want) {
				t.Errorf("%+v paging back:\n got %v\nwant %v", l, back, want)
			}
		}
		if _, err := db.Tasks().ListPage(ctx, chat, nod.TaskList{Today: "someday"}, nod.PageRequest{Limit: 5}); err == nil {
			t.Errorf("a list without a date was read")
		}
		if _, err := db.Tasks().ListPage(ctx, chat, nod.TaskList{Today: "2026-11-29"}, nod.PageRequest{After: "not a cursor!"}); err == nil {
			t.Errorf("a malformed cursor was accepted")
		}
	})
}

// seqCursor finds the cursor of the task with id by reading the whole
// list at once.
func seqCursor(t *testing.T, db *storage.DB, l nod.TaskList, id nod.TaskID) string {
	t.Helper()
	p, err := db.Tasks().ListPage(t.Context(), chat, l, nod.PageRequest{Limit: nod.MaxPage})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(ids(p.Tasks), id)
	if i < 0 {
		t.Fatalf("%s is not listed", id)
	}
	return p.Cursors[i]
}

// list_tasks's label filter pages like its other filters, on both
// databases: in creation order, any case, with its total.
func TestTaskPageByLabel(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		all := listTasks(chat, 90, time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC))
		if err := db.Tasks().ImportTasks(t.Context(), all); err != nil {
			t.Fatal(err)
		}
		for _, f := range []nod.TaskFilter{{Label: "HOME"}, {Label: "home", Status: nod.StatusDone}, {Label: "x", Query: "task 1"}, {Label: "hom"}} {
			var want []nod.TaskID
			for _, task := range all {
				if f.Match(task) {
					want = append(want, task.ID)
				}
			}
			if got := pageAll(t, db, f, 7, len(want)); !slices.Equal(got, want) {
				t.Errorf("%+v: %v, want %v", f, got, want)
			}
		}
	})
}

// TodayList reads the open tasks overdue or due on the day, by due date,
// and the open tasks with a reminder within the day, by time, on both
// databases.
func TestTodayList(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		at := func(h int) *time.Time { t := time.Date(2026, 3, 12, h, 0, 0, 0, time.UTC); return &t }
		tasks := []nod.Task{
			{ID: "a", Title: "Due today P0", DueDate: "2026-03-12", Priority: nod.P0},
			{ID: "b", Title: "Overdue", DueDate: "2026-03-02", Priority: nod.P3},
			{ID: "c", Title: "Tomorrow", DueDate: "2026-03-13", Priority: nod.P0},
			{ID: "d", Title: "Done overdue", DueDate: "2026-03-01", Priority: nod.P0, Status: nod.StatusDone},
			{ID: "e", Title: "Reminder at 15", RemindAt: at(15), Priority: nod.P2},
			{ID: "f", Title: "Reminder at 9", RemindAt: at(9), Priority: nod.P2},
			{ID: "g", Title: "Reminder tomorrow", RemindAt: at(24), Priority: nod.P2},
			{ID: "h", Title: "Done reminder", RemindAt: at(10), Priority: nod.P2, Status: nod.StatusDone},
		}
		for i := range tasks {
			tasks[i].ChatID = chat
			if tasks[i].Status == "" {
				tasks[i].Status = nod.StatusOpen
			}
		}
		tasks[0].Checklist = []nod.ChecklistItem{{ID: "a1", Title: "Step one", CheckedBy: nod.ActorUser}}
		tasks[4].Checklist = []nod.ChecklistItem{{ID: "e1", Title: "Dial", CheckedBy: nod.ActorUser}, {ID: "e2", Title: "Talk", CheckedBy: nod.ActorUser}}
		if err := db.Tasks().ImportTasks(t.Context(), tasks); err != nil {
			t.Fatal(err)
		}
		from := time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)
		trips := db.RoundTrips()
		l, err := db.Tasks().TodayList(t.Context(), chat, "2026-03-12", from, from.AddDate(0, 0, 1), 20)
		if err != nil {
			t.Fatal(err)
		}
		// The pages, then their checklists: a round trip each on PostgreSQL.
		if n := db.RoundTrips() - trips; db.Postgres() && n != 2 {
			t.Errorf("/today took %d round trips, want 2", n)
		}
		if got := ids(l.Due); !slices.Equal(got, []nod.TaskID{"b", "a"}) || l.DueTotal != 2 {
			t.Errorf("due %v of %d, want [b a] of 2", got, l.DueTotal)
		}
		if got := ids(l.Reminders); !slices.Equal(got, []nod.TaskID{"f", "e"}) {
			t.Errorf("reminders %v, want [f e]", got)
		}
		if len(l.Due) == 2 && len(l.Reminders) == 2 && (len(l.Due[1].Checklist) != 1 || len(l.Reminders[1].Checklist) != 2 || len(l.Due[0].Checklist) != 0) {
			t.Errorf("checklists: due %v, reminders %v", l.Due, l.Reminders)
		}
		if l, err := db.Tasks().TodayList(t.Context(), chat, "2026-03-12", from, from.AddDate(0, 0, 1), 1); err != nil || len(l.Due) != 1 || l.DueTotal != 2 || len(l.Reminders) != 1 {
			t.Errorf("by one: %d due of %d, %d reminders, %v", len(l.Due), l.DueTotal, len(l.Reminders), err)
		}
		if _, err := db.Tasks().TodayList(t.Context(), chat, "someday", from, from, 5); err == nil {
			t.Errorf("a day that is no date was read")
		}
	})
}

// /today's reads are index ranges in the order it shows them, which stop
// at the page: no sort of every task due or reminded, and the count of
// those due reads the index alone (SQLite), however many the chat holds.
func TestTodayReadsIndexRanges(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		count, due, remind, err := db.TodayPlans(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ what, plan, index string }{
			{"tasks due (their count)", count, "tasks_open_due"}, {"tasks due", due, "tasks_open_due"}, {"reminders", remind, "tasks_open_remind"},
		} {
			if !strings.Contains(c.plan, c.index) || strings.Contains(c.plan, "TEMP B-TREE") || strings.Contains(c.plan, "Sort") {
				t.Errorf("the %s are not read in order through %s:\n%s", c.what, c.index, c.plan)
			}
		}
		if strings.Contains(count, "SEARCH") && !strings.Contains(count, "COVERING INDEX") { // SQLite's plan
			t.Errorf("the count of the tasks due reads the table:\n%s", count)
		}
	})
}
