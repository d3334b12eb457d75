package storage_test

import (
	"errors"
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
// reads: as the window slides, with another process writing between (the
// lines this process saved it keeps as it saved them, where History
// decodes them), and
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
			// What the turn said back, as the agent saves it: a call with
			// its request encoding, its result, and a last line; in turns
			// of two lines its text is one JSON does not keep byte for byte.
			last := "Noted."
			if len(texts) == 2 {
				last = "Noted \xff."
			}
			msgs = append(msgs,
				nod.ChatMessage{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "c1", Name: "list_tasks", Arguments: `{"status":"OPEN"}`}},
					Wire: []byte(`{"role":"assistant","tool_calls":[]}`)},
				nod.ChatMessage{Role: nod.RoleTool, ToolCallID: "c1", Content: "[]", At: clock.Now().Add(time.Nanosecond)},
				nod.ChatMessage{Role: nod.RoleAssistant, Content: last, Wire: []byte(`{"role":"assistant","content":"Noted"}`)})
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

// A turn's opening saves the person's words with its reads (on
// PostgreSQL in one round trip) only when nothing stands in the way, and
// otherwise writes nothing at all: not when events came after the
// conversation's last message (the turn's note on them goes first), not
// when the settings the message was routed by moved in another process,
// not for a redelivery. The conversation it returns never holds the
// words it saved, also when a forget made it read the topic afresh.
func TestOpeningSavesTheWords(t *testing.T) {
	t.Parallel()
	twoProcesses(t, func(t *testing.T, d, dsn string, db, other *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		at := nod.Topic{ChatID: chat}
		w := nod.Window{Keep: 40, Step: 20}
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: at, UserID: 42,
			Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "hi", UserID: 42}, {Role: nod.RoleAssistant, Content: "Hello."}}}); err != nil {
			t.Fatal(err)
		}
		settings, err := db.Settings().ChatSettings(ctx, chat, 42)
		if err != nil {
			t.Fatal(err)
		}
		kept, ok := db.Settings().KeptSettings(chat, 42)
		if postgres := d == "postgres"; ok != postgres || (settings.Digest != "") != postgres || ok && kept != settings {
			t.Fatalf("on %s the reading %+v is kept as %+v (%v)", d, settings, kept, ok)
		}
		start := func(update int64, text string, s *nod.ChatSettings) (nod.Opening, error) {
			t.Helper()
			clock.Advance(time.Minute)
			words := nod.TurnRecord{Topic: at, UserID: 42, Turn: fmt.Sprintf("turn-%d", update), Opens: true, Update: update, Said: text,
				Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: text, UserID: 42, MsgID: int(update)}}}
			return db.Conversation().Opening(ctx, nod.OpeningRequest{Topic: at, Window: w, Today: "2026-03-12", Tasks: 5, Decisions: 5, Words: &words, Settings: s})
		}
		last := func() string {
			t.Helper()
			h, err := db.Conversation().History(ctx, at, w)
			if err != nil || len(h) == 0 {
				t.Fatalf("history %v, %v", h, err)
			}
			return h[len(h)-1].Content
		}
		unchanged := func(what string, before map[string][]storagetest.Row) {
			t.Helper()
			if diff := cmp.Diff(before, storagetest.Dump(t, dsn)); diff != "" {
				t.Errorf("%s wrote (-before +after):\n%s", what, diff)
			}
		}

		got, err := start(501, "what's due?", &kept)
		if err != nil || !got.Saved || len(got.Events) != 0 || len(got.History) != 2 || got.History[1].Content != "Hello." || len(got.Focus.Tasks) != 1 {
			t.Fatalf("a plain start = %+v, %v; want its words saved and a conversation without them", got, err)
		}
		if l := last(); l != "what's due?" {
			t.Errorf("the conversation ends with %q, want the words saved", l)
		}
		if first, err := db.Outbox().MarkUpdate(ctx, 501); err != nil || first {
			t.Errorf("the start left update 501 unmarked (%v, %v)", first, err)
		}
		if owed, err := db.Outbox().TakeOwed(ctx, -time.Hour); err != nil || len(owed) != 1 || owed[0].Kind != nod.OwedAnswer || owed[0].Ref != "turn-501" {
			t.Errorf("owed after the start: %+v, %v; want the answer to turn-501", owed, err)
		}

		// The person rejects a proposal outside the conversation: the next
		// start reads the event and leaves the words to the turn.
		set := proposeCS(t, db)
		clock.Advance(time.Minute)
		if _, err := db.ChangeSets().RejectItem(ctx, chat, set.ID, 1, 42); err != nil {
			t.Fatal(err)
		}
		before := storagetest.Dump(t, dsn)
		got, err = start(502, "and now?", &kept)
		if err != nil || got.Saved || len(got.Events) != 1 || got.Events[0].Kind != nod.EventRejected {
			t.Fatalf("a start after an event = saved %v, events %+v, %v; want the event and nothing saved", got.Saved, got.Events, err)
		}
		unchanged("a start after an event", before)

		// The turn saves its note and the words; another process changes
		// the person's mode. A start routed by the reading kept before
		// writes nothing on PostgreSQL; a fresh reading starts.
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: at, UserID: 42, Update: 502,
			Messages: []nod.ChatMessage{{Role: nod.RoleEvent, Content: "rejected"}, {Role: nod.RoleUser, Content: "and now?", UserID: 42}}}); err != nil {
			t.Fatal(err)
		}
		if err := other.Settings().SetMode(ctx, chat, 42, nod.ModeAlways); err != nil {
			t.Fatal(err)
		}
		before = storagetest.Dump(t, dsn)
		got, err = start(503, "go on", &kept)
		if d == "postgres" {
			if !errors.Is(err, nod.ErrSettingsMoved) {
				t.Fatalf("a start by settings that moved = %+v, %v; want ErrSettingsMoved", got, err)
			}
			unchanged("a start by settings that moved", before)
			fresh, rerr := db.Settings().ChatSettings(ctx, chat, 42)
			if rerr != nil || fresh.Mode != nod.ModeAlways || fresh.Digest == kept.Digest {
				t.Fatalf("read afresh: %+v, %v", fresh, rerr)
			}
			got, err = start(503, "go on", &fresh)
		}
		if err != nil || !got.Saved || last() != "go on" {
			t.Fatalf("a start by the settings as they are = saved %v, %v, last %q", got.Saved, err, last())
		}

		// A redelivery of the first update writes nothing.
		before = storagetest.Dump(t, dsn)
		if _, err := start(501, "what's due?", nil); !errors.Is(err, nod.ErrHandled) {
			t.Errorf("a redelivered start: %v, want ErrHandled", err)
		}
		unchanged("a redelivered start", before)

		// Another process forgets someone: what this one kept of the
		// conversation is read afresh, and still ends before the words.
		if err := other.People().AskForget(ctx, nod.ForgetRequest{UserID: 7001, ChatID: 7001, ExpiresAt: clock.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if _, err := other.People().Forget(ctx, 7001, 7001); err != nil {
			t.Fatal(err)
		}
		got, err = start(504, "after the forget", nil)
		want, herr := db.Conversation().History(ctx, at, w)
		if err != nil || herr != nil || !got.Saved {
			t.Fatalf("a start after a forget: saved %v, %v, %v", got.Saved, err, herr)
		}
		if diff := cmp.Diff(want[:len(want)-1], got.History); diff != "" || want[len(want)-1].Content != "after the forget" {
			t.Errorf("after a forget the opening's conversation differs from History without the words (-want +got):\n%s", diff)
		}
	})
}
