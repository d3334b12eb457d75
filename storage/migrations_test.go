package storage_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// TestItemDetailMigration stores change items as nod wrote them before
// migration 00013 (their typed values only inside the tool's arguments
// and the agent's before/after values), runs the migration, and reads
// them back typed; items written since read back the same.
func TestItemDetailMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		fifteen := 15
		checkedAt := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
		want := []nod.ChangeItem{
			{Tool: "create_task", Field: nod.FieldTask, Summary: `Create task "Buy milk"`, After: "Buy milk",
				Args: []byte(`{"title":"Buy milk","priority":"P1","due_date":"2026-03-20","estimate_minutes":15,"labels":["home"],"description":"2 litres"}`),
				NewTask: &nod.Task{Title: "Buy milk", Status: nod.StatusOpen, Priority: nod.P1, DueDate: "2026-03-20", EstimateMinutes: &fifteen,
					Labels: []string{"home"}, Description: "2 litres"}},
			{Tool: "update_checklist_item", TaskID: "T1", Field: nod.FieldChecklist, Summary: `Uncheck: "Write migration notes"`,
				Args:       []byte(`{"task_id":"T1","id":"c3","isChecked":false,"reason":"The notes were rewritten after the review"}`),
				Before:     `{"title":"Write migration notes","checked":true,"by":"user","at":"2026-03-10T09:00:00Z"}`,
				After:      `{"title":"Write migration notes","checked":false,"by":"user","at":"2026-03-10T09:00:00Z"}`,
				Reason:     "The notes were rewritten after the review",
				ItemBefore: &nod.ChecklistItem{ID: "c3", Title: "Write migration notes", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &checkedAt},
				ItemAfter:  &nod.ChecklistItem{ID: "c3", Title: "Write migration notes", CheckedBy: nod.ActorUser, CheckedAt: &checkedAt}},
			{Tool: "remove_checklist_item", TaskID: "T1", Field: nod.FieldChecklist, Summary: `Remove from the checklist: "Write tests"`,
				Args:       []byte(`{"task_id":"T1","id":"c1"}`),
				Before:     `{"title":"Write tests","checked":false,"by":"user"}`,
				ItemBefore: &nod.ChecklistItem{ID: "c1", Title: "Write tests", CheckedBy: nod.ActorUser}},
			{Tool: "add_checklist_item", TaskID: "T1", Field: nod.FieldChecklist, Summary: `Add: "Load test"`, After: "Load test",
				Args: []byte(`{"task_id":"T1","title":"Load test"}`)},
		}
		set := &nod.ChangeSet{Items: slices.Clone(want)}
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Set: set}); err != nil {
			t.Fatal(err)
		}
		check := func(db *storage.DB, when string) {
			t.Helper()
			got, err := db.ChangeSets().ChangeSet(ctx, chat, set.ID)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got.Items {
				got.Items[i].ID, got.Items[i].N, got.Items[i].Status = "", 0, ""
			}
			if diff := cmp.Diff(want, got.Items); diff != "" {
				t.Errorf("items %s (-want +got):\n%s", when, diff)
			}
		}
		check(db, "as written")
		// Back to the shape of before 00013: no detail column, and
		// receipts owed in the shape of then.
		receipt := func(it nod.ChangeItem) string {
			after, _ := json.Marshal(it.After)
			before, _ := json.Marshal(it.Before)
			return fmt.Sprintf(`INSERT INTO outbox (id, chat_id, kind, ref, payload, owner, taken_at) VALUES ('o-%[1]s', %[2]d, 'receipt', 'u-%[1]s', '{"task_title":"Fix login bug","n":1,"tool":"%[1]s","task_id":"%[3]s","args":%[4]s,"summary":"%[5]s","field":"%[6]s","before":%[7]s,"after":%[8]s,"undo_id":"u-%[1]s"}', 'old', 0)`,
				it.Tool, chat, it.TaskID, it.Args, strings.ReplaceAll(it.Summary, `"`, `\"`), it.Field, before, after)
		}
		if err := db.MigrateDownTo(ctx, 14); err != nil {
			t.Fatal(err)
		}
		storagetest.Exec(t, dsn, `DROP INDEX messages_chat_seq`, `ALTER TABLE messages DROP COLUMN seq`, `DELETE FROM goose_db_version WHERE version_id = 14`,
			`ALTER TABLE change_items DROP COLUMN detail`, `DELETE FROM goose_db_version WHERE version_id = 13`,
			receipt(want[0]), receipt(want[1]), receipt(want[2]),
			fmt.Sprintf(`INSERT INTO outbox (id, chat_id, kind, ref, payload, owner, taken_at) VALUES ('o-refresh', %d, 'refresh', 's1', '', 'old', 0)`, chat))
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		check(migrated, "after the migration")
		owed, err := migrated.Outbox().TakeOwed(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		var receipts []nod.ChangeItem
		for _, o := range owed {
			if o.Receipt != nil {
				it := o.Receipt.Item
				it.N, it.Status, it.UndoID = 0, "", ""
				receipts = append(receipts, it)
			}
		}
		// PostgreSQL rewrites the payload's JSON: its args are equal, not
		// byte for byte the same, and no one reads a receipt's args.
		if diff := cmp.Diff(want[:3], receipts, cmpopts.IgnoreFields(nod.ChangeItem{}, "Args")); len(owed) != 4 || diff != "" {
			t.Errorf("%d owed; receipts after the migration (-want +got):\n%s", len(owed), diff)
		}
	})
}

// A conversation message stored as nod has always written it reads back
// through storage's own record.
func TestHistoryStoredShape(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		ctx := t.Context()
		body := `{"role":"assistant","tool_calls":[{"id":"call_1","name":"set_task_priority","arguments":"{\"task_id\":\"T1\",\"priority\":\"P1\"}"}],"at":"2026-03-11T10:00:00Z"}`
		storagetest.Exec(t, db.DSN(), fmt.Sprintf(`INSERT INTO messages (chat_id, seq, body, created_at) VALUES (%d, 1, '%s', %d)`, chat, body, fixtures.DefaultNow.UnixMicro()))
		got, err := db.Conversation().History(ctx, nod.Topic{ChatID: chat}, nod.Window{Keep: 10})
		if err != nil {
			t.Fatal(err)
		}
		want := []nod.ChatMessage{{Role: nod.RoleAssistant, At: fixtures.DefaultNow, Seq: 1,
			ToolCalls: []nod.ToolCall{{ID: "call_1", Name: "set_task_priority", Arguments: `{"task_id":"T1","priority":"P1"}`}}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("History (-want +got):\n%s", diff)
		}
	})
}

// Migration 00014 numbers each chat's stored messages 1, 2, 3, … in the
// order they were written, interleaved chats apart, as nod numbers new ones.
func TestMessageSeqMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		for _, m := range []struct {
			chat nod.ChatID
			text string
		}{{chat, "A1"}, {200, "B1"}, {chat, "A2"}, {chat, "A3"}, {200, "B2"}} {
			if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: m.chat}, Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: m.text}}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.MigrateDownTo(ctx, 14); err != nil {
			t.Fatal(err)
		}
		storagetest.Exec(t, dsn, `DROP INDEX messages_chat_seq`, `ALTER TABLE messages DROP COLUMN seq`, `DELETE FROM goose_db_version WHERE version_id = 14`)
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		// Keep 2, step 2: a chat of 3 or fewer messages is sent whole; had
		// the numbers run across chats (A3 = 4, B2 = 5), its start would
		// have moved.
		for c, want := range map[nod.ChatID]string{chat: "A1 A2 A3", 200: "B1 B2"} {
			got, err := migrated.Conversation().History(ctx, nod.Topic{ChatID: c}, nod.Window{Keep: 2, Step: 2})
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, m := range got {
				texts = append(texts, m.Content)
			}
			if strings.Join(texts, " ") != want {
				t.Errorf("chat %d after the migration: %q, want %q", c, texts, want)
			}
		}
	})
}

// reopenable runs fn on a new database of each dialect, with the DSN that
// opens it again (after a test has rolled a migration back, say).
func reopenable(t *testing.T, fn func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock)) {
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			dsn := storagetest.DSN(t, d)
			fn(t, dsn, storagetest.OpenDSN(t, dsn, clock.Now), clock)
		})
	}
}

// Migration 00015 makes a mode each person's own: a private chat's mode
// is its person's; a group's chat-wide mode, set by one member for all,
// is dropped.
func TestMemberModesMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		if err := db.MigrateDownTo(ctx, 14); err != nil {
			t.Fatal(err)
		}
		storagetest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO chat_settings (chat_id, mode, updated_at) VALUES (%d, 'trusted', 1), (-500, 'trusted', 1)`, chat))
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		for _, c := range []struct {
			chat nod.ChatID
			user nod.UserID
			want nod.Mode
		}{{chat, chat, nod.ModeTrusted}, {-500, 42, nod.ModeSmart}, {-500, 43, nod.ModeSmart}} {
			s, err := migrated.Settings().ChatSettings(ctx, c.chat, c.user)
			if err != nil {
				t.Fatal(err)
			}
			if s.Mode != c.want {
				t.Errorf("chat %d, user %d: mode %s, want %s", c.chat, c.user, s.Mode, c.want)
			}
		}
	})
}

// Migration 00019 counts the tasks a chat already has, outside the trash.
func TestTaskCountsMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		tasks := manyTasks(chat, 30)
		gone := clock.Now()
		tasks[3].DeletedAt = &gone
		if err := db.Tasks().ImportTasks(ctx, tasks); err != nil {
			t.Fatal(err)
		}
		if err := db.MigrateDownTo(ctx, 18); err != nil {
			t.Fatal(err)
		}
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		for f, want := range map[nod.TaskFilter]int{{}: 29, {Status: nod.StatusDone}: 6} {
			if p, err := migrated.Tasks().TaskPage(ctx, chat, f, nod.PageRequest{Limit: 1}); err != nil || p.Total != want {
				t.Errorf("total of %+v after the migration = %d, want %d (%v)", f, p.Total, want, err)
			}
		}
	})
}

// Migration 00023 drops the English "Undo: " older versions stored before
// a redo's summary: a redo's summary is the undone change's own.
func TestUndoSummaryMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Summary: "Set priority to P1",
			Mutate: setPriority(nod.P1), Audit: executed})
		if err != nil {
			t.Fatal(err)
		}
		undone, err := db.Undo().Undo(ctx, chat, a.Undo.ID, 42, false)
		redo := undone.Redo
		if err != nil {
			t.Fatal(err)
		}
		if redo.Summary != "Set priority to P1" {
			t.Errorf("the redo's summary is %q, want the undone change's own", redo.Summary)
		}
		if err := db.MigrateDownTo(ctx, 22); err != nil {
			t.Fatal(err)
		}
		old := storagetest.OpenDSN(t, dsn, clock.Now) // migrates up again
		for _, id := range []nod.UndoID{a.Undo.ID, redo.ID} {
			u, err := old.Undo().UndoEntry(ctx, chat, id)
			if err != nil {
				t.Fatal(err)
			}
			if u.Summary != "Set priority to P1" {
				t.Errorf("entry %s after the migration: summary %q", id, u.Summary)
			}
		}
	})
}

// Migration 00030 names who created each task already stored: from the
// undo entry of its creation, else from the create_task audit row of its
// moment when every such row names one person; else nobody (0).
func TestTaskCreatorMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		group := nod.ChatID(-500)
		create := func(title string, by nod.UserID) nod.TaskID {
			t.Helper()
			a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: group}, UserID: by, Tool: nod.ToolCreateTask, Audit: executed,
				Args: []byte(fmt.Sprintf(`{"title":%q}`, title)),
				Mutate: func(*nod.Task) (nod.Task, error) {
					return nod.Task{Title: title, Status: nod.StatusOpen, Priority: nod.P2}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if a.After.CreatedBy != by {
				t.Errorf("%q created by %d, want %d", title, a.After.CreatedBy, by)
			}
			return a.After.ID
		}
		// Two people's tasks of one moment: only the undo entries of
		// their creation tell whose is whose; without them, the audit
		// rows cannot.
		alices, bobsToo := create("Alice's", 42), create("Bob's, made with Alice's", 43)
		clock.Advance(time.Second)
		tied1, tied2 := create("Tied 1", 42), create("Tied 2", 43)
		clock.Advance(time.Second)
		bobs := create("Bob's, known by its audit row", 43)
		clock.Advance(time.Second)
		imported := nod.Task{ID: "imp", ChatID: group, Title: "Imported", Status: nod.StatusOpen, Priority: nod.P2}
		if err := db.Tasks().ImportTasks(ctx, []nod.Task{imported}); err != nil {
			t.Fatal(err)
		}
		if err := db.MigrateDownTo(ctx, 29); err != nil {
			t.Fatal(err)
		}
		storagetest.Exec(t, dsn, fmt.Sprintf(`DELETE FROM undo_entries WHERE task_id IN ('%s', '%s', '%s')`, bobs, tied1, tied2))
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		for id, want := range map[nod.TaskID]nod.UserID{alices: 42, bobsToo: 43, bobs: 43, tied1: 0, tied2: 0, "imp": 0} {
			got, err := migrated.Tasks().Task(ctx, group, id)
			if err != nil {
				t.Fatal(err)
			}
			if got.CreatedBy != want {
				t.Errorf("%q after the migration: created by %d, want %d", got.Title, got.CreatedBy, want)
			}
		}
	})
}

// Migration 00041 gives every redo and undo of a redo the change's first
// entry, and that entry whether the change is undone now, from the
// chains already stored: none used, undone, redone, undone again.
func TestUndoChainMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		want := map[nod.UndoID]bool{}
		var redos []nod.UndoID
		redoes := map[nod.UndoID]bool{}
		for steps, p := range []nod.Priority{nod.P0, nod.P1, nod.P2, nod.P3} {
			a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Mutate: setPriority(p), Audit: executed})
			if err != nil {
				t.Fatal(err)
			}
			at := a.Undo.ID
			for step := range steps {
				clock.Advance(time.Second)
				u, err := db.Undo().Undo(ctx, chat, at, 42, true)
				if err != nil {
					t.Fatal(err)
				}
				at = u.Redo.ID
				redos = append(redos, at)
				redoes[at] = step%2 == 0 // an Undo's entry, the first step's, redoes
			}
			want[a.Undo.ID] = steps%2 == 1
		}
		if err := db.MigrateDownTo(ctx, 40); err != nil {
			t.Fatal(err)
		}
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		for id, undone := range want {
			u, err := migrated.Undo().UndoEntry(ctx, chat, id)
			if err != nil {
				t.Fatal(err)
			}
			if u.UndoneNow != undone || u.Root != "" {
				t.Errorf("change %s after the migration: undone now %v, root %q; want %v, none", id, u.UndoneNow, u.Root, undone)
			}
		}
		for _, id := range redos {
			u, err := migrated.Undo().UndoEntry(ctx, chat, id)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := want[u.Root]; !ok {
				t.Errorf("entry %s after the migration has root %q, no change's first entry", id, u.Root)
			}
			if u.Redoes != redoes[id] {
				t.Errorf("entry %s after the migration redoes %v, want %v", id, u.Redoes, redoes[id])
			}
		}
	})
}
