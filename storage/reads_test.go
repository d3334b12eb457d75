package storage_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// A turn's opening reads, in one round trip on PostgreSQL, what the reads
// it replaces read one by one: the history, the events after its last
// message (not another topic's, nor before it), the focus tasks with
// their checklists, the open sets with their items and the decisions.
func TestOpeningReadsWhatEachReadReads(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task",
			Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: "T2", Title: "Launch plan", Status: nod.StatusOpen, Priority: nod.P2}, nil
			}, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}}); err != nil {
			t.Fatal(err)
		}
		general, topic := nod.Topic{ChatID: chat}, nod.Topic{ChatID: chat, Thread: 7}
		say := func(at nod.Topic, text string) {
			t.Helper()
			clock.Advance(time.Minute)
			msgs := []nod.ChatMessage{{Role: nod.RoleUser, Content: text, UserID: 42}, {Role: nod.RoleAssistant, Content: "Noted: " + text}}
			if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: at, UserID: 42, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		say(general, "first")
		decided := proposeCS(t, db)
		clock.Advance(time.Minute)
		if _, err := db.ChangeSets().RejectItem(ctx, chat, decided.ID, 1, 42); err != nil {
			t.Fatal(err) // before the last message: no event of the opening's
		}
		say(general, "second")
		open := proposeCS(t, db)
		clock.Advance(time.Minute)
		if _, err := db.ChangeSets().RejectItem(ctx, chat, decided.ID, 2, 42); err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"elsewhere", "and on", "and on"} {
			say(topic, text) // after the event, and numbered past the general topic's
		}

		req := nod.OpeningRequest{Topic: general, Window: nod.Window{Keep: 40, Step: 20}, Today: "2026-03-12", Tasks: 50, Decisions: 50}
		got, err := db.Conversation().Opening(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var want nod.Opening
		if want.History, err = db.Conversation().History(ctx, general, req.Window); err != nil {
			t.Fatal(err)
		}
		if want.Events, err = db.Conversation().Events(ctx, general, want.History[len(want.History)-1].At); err != nil {
			t.Fatal(err)
		}
		if want.Focus, err = db.Tasks().FocusTasks(ctx, chat, req.Today, req.Tasks); err != nil {
			t.Fatal(err)
		}
		if want.Open, err = db.ChangeSets().OpenChangeSets(ctx, general); err != nil {
			t.Fatal(err)
		}
		if want.Decisions, err = db.ChangeSets().RecentDecisions(ctx, chat, req.Decisions); err != nil {
			t.Fatal(err)
		}
		// What makes the comparison worth something.
		if len(want.History) != 4 || len(want.Events) != 1 || len(want.Focus.Tasks) != 2 || len(want.Focus.Tasks[1].Checklist)+len(want.Focus.Tasks[0].Checklist) != 3 ||
			len(want.Open) != 1 || len(want.Open[0].Items) != 2 || want.Open[0].ID != open.ID || len(want.Decisions) != 2 {
			t.Fatalf("the seed reads back as %d messages, %d events, focus %+v, open %+v, %d decisions", len(want.History), len(want.Events), want.Focus, want.Open, len(want.Decisions))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Opening differs from the reads one by one (-want +got):\n%s", diff)
		}

		// A topic without messages has no events, however recent.
		got, err = db.Conversation().Opening(ctx, nod.OpeningRequest{Topic: nod.Topic{ChatID: chat, Thread: 9}, Window: req.Window, Today: req.Today, Tasks: 1, Decisions: 1})
		if err != nil || len(got.History) != 0 || len(got.Events) != 0 || len(got.Focus.Tasks) != 1 || got.Focus.Total != 2 || !got.Focus.Later || len(got.Decisions) != 1 {
			t.Errorf("a new topic's opening = %+v, %v", got, err)
		}
	})
}

// A turn's opening reads, turn after turn, the conversation History
// reads: as the window slides, with another process writing between, and
// after a forget in another process rewrote and deleted what this one
// kept decoded.
func TestOpeningKeepsTheConversation(t *testing.T) {
	t.Parallel()
	twoProcesses(t, func(t *testing.T, _, _ string, db, other *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		const person nod.UserID = 7001
		private, group := nod.Topic{ChatID: nod.ChatID(person)}, nod.Topic{ChatID: -100500}
		w := nod.Window{Keep: 4, Step: 3}
		check := func(at nod.Topic, when string) {
			t.Helper()
			got, err := db.Conversation().Opening(ctx, nod.OpeningRequest{Topic: at, Window: w, Today: "2026-03-12", Tasks: 1, Decisions: 1})
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.Conversation().History(ctx, at, w)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.History); diff != "" {
				t.Fatalf("%s: the opening's conversation differs from History (-want +got):\n%s", when, diff)
			}
		}
		say := func(by *storage.DB, at nod.Topic, texts ...string) {
			t.Helper()
			clock.Advance(time.Minute)
			var msgs []nod.ChatMessage
			for _, s := range texts {
				msgs = append(msgs, nod.ChatMessage{Role: nod.RoleUser, Content: s, UserID: person, Speaker: "Ada", MsgID: int(clock.Now().Unix() % 100000)})
			}
			if err := by.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: at, UserID: person, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		check(private, "no message yet")
		for i := range 9 { // the window slides by its step, a turn of 1 to 3 at a time
			texts := []string{fmt.Sprintf("turn %d", i)}
			for range i % 3 {
				texts = append(texts, "and more")
			}
			by := db
			if i%4 == 3 {
				by = other // another replica answered this one
			}
			say(by, private, texts...)
			say(by, group, texts...)
			check(private, fmt.Sprintf("after turn %d", i))
			check(group, fmt.Sprintf("after turn %d in the group", i))
		}
		// The other process forgets the person: their private chat's
		// lines go, and the group's are rewritten without their words.
		if err := other.People().AskForget(ctx, nod.ForgetRequest{UserID: person, ChatID: private.ChatID, ExpiresAt: clock.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if _, err := other.People().Forget(ctx, private.ChatID, person); err != nil {
			t.Fatal(err)
		}
		check(group, "after the forget")
		check(private, "after the forget")
		say(other, private, "a new start")
		check(private, "after a new start")
	})
}

// A turn's opening keeps what the chat's tasks, proposals and decisions
// made of it only while none of them changed, whoever changed them:
// another process through nod, or a statement nod never runs. Each step
// below changes what the opening reads, and the opening reads as the
// reads one by one do; a forget that starts the chat's count again does
// not bring back what was kept before it.
func TestOpeningKeepsWhatNoWriteChanged(t *testing.T) {
	t.Parallel()
	twoProcesses(t, func(t *testing.T, d, dsn string, db, other *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, other)
		set := proposeCS(t, other)
		if _, err := other.ChangeSets().RejectItem(ctx, chat, set.ID, 1, 42); err != nil {
			t.Fatal(err)
		}
		general := nod.Topic{ChatID: chat}
		req := nod.OpeningRequest{Topic: general, Window: nod.Window{Keep: 40, Step: 20}, Today: "2026-03-12", Tasks: 50, Decisions: 50}
		var last nod.Opening
		check := func(when string, changed bool) {
			t.Helper()
			got, err := db.Conversation().Opening(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			var want nod.Opening
			if want.Focus, err = db.Tasks().FocusTasks(ctx, chat, req.Today, req.Tasks); err != nil {
				t.Fatal(err)
			}
			if want.Open, err = db.ChangeSets().OpenChangeSets(ctx, general); err != nil {
				t.Fatal(err)
			}
			if want.Decisions, err = db.ChangeSets().RecentDecisions(ctx, chat, req.Decisions); err != nil {
				t.Fatal(err)
			}
			got.History, got.Events = nil, nil
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: the opening differs from the reads one by one (-want +got):\n%s", when, diff)
			}
			if changed == cmp.Equal(last, got) {
				t.Fatalf("%s: the opening changed %v, want %v", when, !changed, changed)
			}
			last = got
		}
		check("first", true)
		check("nothing written since", false)
		if _, err := other.Tasks().Apply(ctx, nod.Edit{Topic: general, UserID: 42, Tool: "set_task_priority", TaskID: "T1", Mutate: setPriority(nod.P2), Audit: executed}); err != nil {
			t.Fatal(err)
		}
		check("another process set a priority", true)
		for _, s := range []struct{ what, sql string }{
			{"a checklist item renamed", `UPDATE checklist_items SET title = 'Write more tests' WHERE id = 'c1'`},
			{"a decision's reason", `UPDATE decisions SET reason = 'not now' WHERE chat_id = 100`},
			{"an item of the open set decided", `UPDATE change_items SET status = 'rejected' WHERE set_id = '` + string(set.ID) + `' AND n = 2`},
			{"the set's status", `UPDATE change_sets SET status = 'resolved' WHERE id = '` + string(set.ID) + `'`},
			{"the set back", `UPDATE change_sets SET status = 'pending' WHERE id = '` + string(set.ID) + `'`},
			{"its items gone", `DELETE FROM change_items WHERE set_id = '` + string(set.ID) + `'`},
			{"a checklist item gone", `DELETE FROM checklist_items WHERE id = 'c2'`},
			{"the task trashed", `UPDATE tasks SET deleted_at = 1773300000000000 WHERE id = 'T1'`},
		} {
			storagetest.Exec(t, dsn, s.sql)
			check(s.what, true)
		}
		if d != "sqlite" {
			return
		}
		// The forget deletes the chat's count; the count the chat was
		// kept at comes round again, under another history_gen.
		storagetest.Exec(t, dsn, `UPDATE tasks SET deleted_at = NULL WHERE id = 'T1'`)
		check("the task back", true)
		kept := storagetest.Dump(t, dsn)["chat_versions"]
		if err := other.People().AskForget(ctx, nod.ForgetRequest{UserID: nod.UserID(chat), ChatID: chat, ExpiresAt: clock.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if _, err := other.People().Forget(ctx, chat, nod.UserID(chat)); err != nil {
			t.Fatal(err)
		}
		if rows := storagetest.Dump(t, dsn)["chat_versions"]; len(rows) != 0 || len(kept) != 1 {
			t.Fatalf("chat_versions before the forget %v, after %v: want the chat's row, then none", kept, rows)
		}
		for i := 0; ; i++ {
			rows := storagetest.Dump(t, dsn)["chat_versions"]
			if len(rows) == 1 && rows[0]["v"] == kept[0]["v"] {
				break
			}
			storagetest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO tasks (id, chat_id, title, status, priority, created_at, updated_at) VALUES ('N%d', 100, 'New start %d', 'OPEN', 'P3', 1, 1)`, i, i))
		}
		check("after the forget, at the count kept before it", true)
	})
}

// twoProcesses runs fn on a fresh database of every backend, one after
// the other, opened by two processes: db, the one under test, and other.
func twoProcesses(t *testing.T, fn func(t *testing.T, dialect, dsn string, db, other *storage.DB, clock *fixtures.Clock)) {
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			dsn := storagetest.Migrated(t, d)
			fn(t, d, dsn, storagetest.OpenDSN(t, dsn, clock.Now), storagetest.OpenDSN(t, dsn, clock.Now), clock)
		})
	}
}
