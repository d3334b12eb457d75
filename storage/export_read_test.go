package storage_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// exported walks an export's sequences into slices: the tasks' titles
// with their checklists' titles, the reminders' titles, the audit rows'
// users and tools.
type exported struct {
	Tasks     []string
	Checklist map[string][]string
	Reminders []string
	Audit     []string
	Counts    nod.ExportCounts
}

func walk(t *testing.T, e nod.Export) exported {
	t.Helper()
	out := exported{Checklist: map[string][]string{}, Counts: e.Counts}
	for task, err := range e.Tasks {
		if err != nil {
			t.Fatal(err)
		}
		out.Tasks = append(out.Tasks, task.Title)
		for _, it := range task.Checklist {
			out.Checklist[task.Title] = append(out.Checklist[task.Title], it.Title)
		}
	}
	for task, err := range e.Reminders {
		if err != nil {
			t.Fatal(err)
		}
		out.Reminders = append(out.Reminders, task.Title)
	}
	for a, err := range e.Audit {
		if err != nil {
			t.Fatal(err)
		}
		out.Audit = append(out.Audit, string(rune('0'+a.UserID%10))+":"+string(a.Tool))
	}
	return out
}

// In a private chat an export holds everything of the chat, trash and
// checklists included; in a group each member's holds the tasks they
// created, the reminders they set and their own audit rows.
func TestExportScopes(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		group := nod.ChatID(-500)
		create := func(chatID nod.ChatID, by nod.UserID, task nod.Task) nod.Task {
			t.Helper()
			task.Status, task.Priority = nod.StatusOpen, nod.P2
			a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chatID}, UserID: by, Tool: nod.ToolCreateTask, Audit: executed,
				Mutate: func(*nod.Task) (nod.Task, error) { return task, nil }})
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Second)
			return a.After
		}
		remind := func(chatID nod.ChatID, by nod.UserID, id nod.TaskID, at time.Time) {
			t.Helper()
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chatID}, UserID: by, TaskID: id, Tool: nod.ToolSetReminder, Audit: executed,
				Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = &at; return *cur, nil }})
			if err != nil {
				t.Fatal(err)
			}
		}
		seedT1(t, db) // the private chat's, with its checklist
		gone := create(chat, 42, nod.Task{Title: "In the trash"})
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: gone.ID, Tool: nod.ToolDeleteTask, Audit: executed,
			Mutate: func(cur *nod.Task) (nod.Task, error) { now := clock.Now(); cur.DeletedAt = &now; return *cur, nil }}); err != nil {
			t.Fatal(err)
		}
		alices := create(group, 42, nod.Task{Title: "Alice's", Checklist: []nod.ChecklistItem{{ID: "a1", Title: "first"}, {ID: "a2", Title: "second"}}})
		bobs := create(group, 43, nod.Task{Title: "Bob's"})
		remind(group, 42, bobs.ID, clock.Now().Add(48*time.Hour))   // Alice's reminder on Bob's task
		remind(group, 43, alices.ID, clock.Now().Add(24*time.Hour)) // and Bob's on hers
		if err := db.Settings().SetLanguage(ctx, group, "de"); err != nil {
			t.Fatal(err)
		}
		if err := db.Schedule().SetDaily(ctx, nod.Topic{ChatID: group}, 43, "08:00", false, time.UTC); err != nil {
			t.Fatal(err)
		}

		read := func(s nod.ExportScope) (got exported, settings nod.ChatSettings) {
			t.Helper()
			err := db.Exports().Export(ctx, s, func(e nod.Export) error {
				got, settings = walk(t, e), e.Settings
				// A second walk reads the same.
				if again := walk(t, e); !cmp.Equal(got, again) {
					t.Errorf("a second walk read otherwise (-first +second):\n%s", cmp.Diff(got, again))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return got, settings
		}
		private, _ := read(nod.ExportScope{ChatID: chat, UserID: 42})
		want := exported{Tasks: []string{"Fix login bug", "In the trash"}, Checklist: map[string][]string{"Fix login bug": {"Write tests", "Update docs", "Write migration notes"}},
			Audit: []string{"2:create_task", "2:create_task", "2:delete_task"}, Counts: nod.ExportCounts{Tasks: 2, Audit: 3}}
		if diff := cmp.Diff(want, private); diff != "" {
			t.Errorf("the private chat's export (-want +got):\n%s", diff)
		}
		alice, aliceSettings := read(nod.ExportScope{ChatID: group, UserID: 42, Own: true})
		want = exported{Tasks: []string{"Alice's"}, Checklist: map[string][]string{"Alice's": {"first", "second"}}, Reminders: []string{"Bob's"},
			Audit: []string{"2:create_task", "2:set_task_reminder"}, Counts: nod.ExportCounts{Tasks: 1, Reminders: 1, Audit: 2}}
		if diff := cmp.Diff(want, alice); diff != "" {
			t.Errorf("Alice's export (-want +got):\n%s", diff)
		}
		if aliceSettings.Language != "" || aliceSettings.Daily != "" {
			t.Errorf("Alice's export holds the group's language %q or Bob's daily review %q", aliceSettings.Language, aliceSettings.Daily)
		}
		bob, bobSettings := read(nod.ExportScope{ChatID: group, UserID: 43, Own: true})
		want = exported{Tasks: []string{"Bob's"}, Checklist: map[string][]string{}, Reminders: []string{"Alice's"},
			Audit: []string{"3:create_task", "3:set_task_reminder", "3:daily"}, Counts: nod.ExportCounts{Tasks: 1, Reminders: 1, Audit: 3}}
		if diff := cmp.Diff(want, bob); diff != "" {
			t.Errorf("Bob's export (-want +got):\n%s", diff)
		}
		if bobSettings.Daily != "08:00" {
			t.Errorf("Bob's export: daily review %q, want his 08:00", bobSettings.Daily)
		}
		if err := db.Exports().Export(ctx, nod.ExportScope{ChatID: group, Own: true}, func(nod.Export) error { return nil }); !errors.Is(err, nod.ErrInvalid) {
			t.Errorf("an export of nobody's own: %v, want nod.ErrInvalid", err)
		}
	})
}

// An export is one moment of the database: what commits while it is
// walked, between its walks or before its counts are used, is not in it.
func TestExportIsOneRead(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		add := func(title string) {
			t.Helper()
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: nod.ToolCreateTask, Audit: executed,
				Mutate: func(*nod.Task) (nod.Task, error) {
					return nod.Task{Title: title, Status: nod.StatusOpen, Priority: nod.P2}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
		}
		stop := errors.New("stop")
		err := db.Exports().Export(ctx, nod.ExportScope{ChatID: chat, UserID: 42}, func(e nod.Export) error {
			add("Added while the export began")
			var titles []string
			for task, err := range e.Tasks {
				if err != nil {
					return err
				}
				titles = append(titles, task.Title)
				add("Added while it was walked")
			}
			if !slices.Equal(titles, []string{"Fix login bug"}) || e.Counts.Tasks != 1 {
				t.Errorf("the export read %q (%d counted), want only what was there when it began", titles, e.Counts.Tasks)
			}
			if got := walk(t, e); len(got.Tasks) != 1 || len(got.Audit) != 1 {
				t.Errorf("a second walk read %d tasks and %d audit rows, want 1 and 1", len(got.Tasks), len(got.Audit))
			}
			return stop
		})
		if !errors.Is(err, stop) {
			t.Errorf("Export returned %v, want write's error", err)
		}
		page, err := db.Tasks().TaskPage(context.WithoutCancel(ctx), chat, nod.TaskFilter{}, nod.PageRequest{Limit: 10})
		if err != nil || page.Total != 3 {
			t.Errorf("after the export the chat has %d tasks (%v), want 3: the export held up no writer", page.Total, err)
		}
	})
}

// An export reads a big chat a row at a time: what it holds while it is
// walked does not grow with the chat (read whole, these 5,000 tasks take
// some 3.5 MB; cmd/nod exports 10,000 end to end).
func TestExportStreams(t *testing.T) {
	// Not parallel, nor its backends: it reads the heap, which other
	// tests would grow.
	eachDialect(t, false, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		ctx := t.Context()
		const n = 5_000
		tasks := make([]nod.Task, n)
		for i := range tasks {
			tasks[i] = nod.Task{ID: nod.TaskID(fmt.Sprintf("s%05d", i)), ChatID: chat, Title: fmt.Sprintf("Task %d of the big chat", i),
				Description: strings.Repeat("words ", 40), Status: nod.StatusOpen, Priority: nod.P2, Labels: []string{"big", "chat"},
				Checklist: []nod.ChecklistItem{{ID: nod.ItemID(fmt.Sprintf("s%05d-1", i)), Title: "First step"}}}
		}
		if err := db.Tasks().ImportTasks(ctx, tasks); err != nil {
			t.Fatal(err)
		}
		tasks = nil
		heap := func() uint64 {
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		base, most := heap(), uint64(0)
		seen, items := 0, 0
		err := db.Exports().Export(ctx, nod.ExportScope{ChatID: chat, UserID: 42}, func(e nod.Export) error {
			for task, err := range e.Tasks {
				if err != nil {
					return err
				}
				if seen++; seen%1000 == 0 {
					most = max(most, heap())
				}
				items += len(task.Checklist)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if seen != n || items != n {
			t.Errorf("walked %d tasks and %d checklist items, want %d of each", seen, items, n)
		}
		t.Logf("the heap grew by %d KB while the export was walked", (int64(most)-int64(base))>>10)
		if grew := int64(most) - int64(base); grew > 1<<20 {
			t.Errorf("the heap grew by %d KB while the export was walked: it holds the chat", grew>>10)
		}
	})
}
