package storage_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// A commit writes every page it touched to SQLite's WAL, and the
// checkpoint writes it again: the writes every turn makes touch few pages.
// Counted in WAL frames (a page each) on a database whose chats already
// have a conversation, one turn's writes in a chat of its own.
func TestTurnWritesFewPages(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	dsn := storagetest.DSN(t, "sqlite")
	db := storagetest.OpenDSN(t, dsn, clock.Now)
	const chats = 200
	// The messages carry their request encodings, as the agent saves them.
	answer := func(chat nod.ChatID, turn string) nod.TurnRecord {
		return nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Turn: turn, Closes: true, Messages: []nod.ChatMessage{
			{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "l", Name: "list_tasks", Arguments: "{}"}},
				Wire: []byte(`{"role":"assistant","tool_calls":[{"id":"l","type":"function","function":{"name":"list_tasks","arguments":"{}"}}]}`)},
			{Role: nod.RoleTool, ToolCallID: "l", Content: "[]"}, // a read's result: later turns leave it out
			{Role: nod.RoleAssistant, Content: "You have no tasks yet.", Wire: []byte(`{"role":"assistant","content":"You have no tasks yet."}`)}}}
	}
	update := int64(0)
	words := func(chat nod.ChatID, turn string) nod.TurnRecord {
		if strings.HasPrefix(turn, "new") { // the turns measured open with their update's mark
			update++
		}
		return nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Turn: turn, Opens: true, Said: "what's on my list?", Update: update,
			Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "what's on my list?", MsgID: 7, Wire: []byte(`{"role":"user","content":"what's on my list?"}`)}}}
	}
	for c := range nod.ChatID(chats) {
		for i := range 10 {
			turn := fmt.Sprint("t", c, i)
			if err := db.Conversation().SaveTurn(t.Context(), words(c+1, turn)); err != nil {
				t.Fatal(err)
			}
			if err := db.Conversation().SaveTurn(t.Context(), answer(c+1, turn)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Reopened, the WAL starts empty and no checkpoint runs below.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = storagetest.OpenDSN(t, dsn, clock.Now)
	wal := func() int64 {
		fi, err := os.Stat(dsn + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	const n, frame = 30, 24 + 4096 // a frame's header and its page
	frames := func(op func(i int) error) float64 {
		before := max(wal(), 32) // the WAL's header
		for i := range n {
			if err := op(i); err != nil {
				t.Fatal(err)
			}
		}
		return float64(wal()-before) / frame / n
	}
	chat := func(i int) nod.ChatID { return nod.ChatID(i*chats/n + 1) }
	got := []float64{
		frames(func(i int) error { _, err := db.Outbox().MarkUpdate(t.Context(), int64(100000+i)); return err }),
		frames(func(i int) error {
			return db.Conversation().SaveTurn(t.Context(), words(chat(i), fmt.Sprint("new", i)))
		}),
		frames(func(i int) error {
			return db.Conversation().SaveTurn(t.Context(), answer(chat(i), fmt.Sprint("new", i)))
		}),
	}
	t.Logf("pages written: an update's mark alone %.1f, person's words with their update's mark %.1f, turn's answer %.1f", got[0], got[1], got[2])
	// Before 00025: 2, 10.1 and 8.4 (a row and an index entry for an
	// update; three indexes of messages and the sequence of their ids; an
	// index of every outbox row ever written). Before 00027 the words
	// wrote 7.2 (the outbox's random ids and their sequence). Before 00035
	// the answer wrote 3.5 and the words 5.0 with their mark apart: the
	// rows carry their request encodings now. Before 00051, whose
	// messages are appended to a table of row ids and keyed by an index,
	// the words wrote 6.0 and the answer 6.0.
	if most := []float64{1, 7.5, 5}; slices.ContainsFunc([]int{0, 1, 2}, func(i int) bool { return got[i] > most[i] }) {
		t.Errorf("pages written %v, want at most %v", got, most)
	}
}

// Migration 00025 stores the conversation by topic: every message keeps
// its topic, number and Telegram id; handled updates and owed messages
// stay as they were; and back down the same holds.
func TestWriteLessMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		for i, thread := range []nod.ThreadID{0, 7, 0, 7, 0} {
			err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat, Thread: thread}, UserID: 42, Turn: fmt.Sprint("t", i), Opens: i == 4, Said: "still owed",
				Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: fmt.Sprint("message ", i), MsgID: 100 + i}}})
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Second)
		}
		if _, err := db.Outbox().MarkUpdate(ctx, 41); err != nil {
			t.Fatal(err)
		}
		check := func(t *testing.T, db *storage.DB) {
			t.Helper()
			if got, want := numbered(t, db, nod.Topic{ChatID: chat}), []string{"message 0", "message 2", "message 4"}; !slices.Equal(got, want) {
				t.Errorf("chat's conversation = %q, want %q", got, want)
			}
			if got, want := numbered(t, db, nod.Topic{ChatID: chat, Thread: 7}), []string{"message 1", "message 3"}; !slices.Equal(got, want) {
				t.Errorf("topic's conversation = %q, want %q", got, want)
			}
			if m, ok, err := db.Conversation().PersonMessage(ctx, chat, 103); err != nil || !ok || m.Content != "message 3" {
				t.Errorf("PersonMessage(103) = %q, %v, %v", m.Content, ok, err)
			}
			if again, err := db.Outbox().MarkUpdate(ctx, 41); err != nil || again {
				t.Errorf("update 41 marked anew (%v, %v): it was handled", again, err)
			}
			if last, err := db.Outbox().LastUpdateID(ctx); err != nil || last != 41 {
				t.Errorf("LastUpdateID = %d, %v", last, err)
			}
		}
		if err := db.MigrateDownTo(ctx, 24); err != nil {
			t.Fatal(err)
		}
		down := storagetest.OpenDSN(t, dsn, clock.Now) // up again
		check(t, down)
		clock.Advance(time.Hour)
		if owed, err := down.Outbox().TakeOwed(ctx, time.Minute); err != nil || len(owed) != 1 || owed[0].Text != "still owed" {
			t.Errorf("owed after the round trip = %+v, %v, want the one answer", owed, err)
		}
	})
}

// Migration 00027 numbers owed messages by their row: what was owed
// stays owed, what was delivered stays delivered, new entries number on
// after the old ones, and back down every entry gets an id again.
func TestOutboxBySeqMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		if err := db.MigrateDownTo(ctx, 26); err != nil {
			t.Fatal(err)
		}
		storagetest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO outbox (id, chat_id, kind, ref, payload, owner, taken_at, delivered_at) VALUES
			('old1', %[1]d, 'answer', 't1', '{"text":"first"}', 'gone', 0, NULL),
			('old2', %[1]d, 'answer', 't2', '{"text":"sent"}', 'gone', 0, 5),
			('old3', %[1]d, 'answer', 't3', '{"text":"third"}', 'gone', 0, NULL)`, chat))
		up := storagetest.OpenDSN(t, dsn, clock.Now)
		owe := func(db *storage.DB, turn, said string) {
			t.Helper()
			if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Turn: turn, Opens: true, Said: said}); err != nil {
				t.Fatal(err)
			}
		}
		owe(up, "t4", "fourth")
		taken := func(db *storage.DB) []string {
			t.Helper()
			clock.Advance(time.Hour)
			owed, err := db.Outbox().TakeOwed(ctx, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, o := range owed {
				out = append(out, o.Ref+" "+o.Text)
			}
			return out
		}
		if got, want := taken(up), []string{"t1 first", "t3 third", "t4 fourth"}; !slices.Equal(got, want) {
			t.Errorf("owed after the migration = %q, want %q", got, want)
		}
		if err := up.Outbox().Delivered(ctx, chat, nod.OwedAnswer, "t1"); err != nil {
			t.Fatal(err)
		}
		if err := up.MigrateDownTo(ctx, 26); err != nil {
			t.Fatal(err)
		}
		storagetest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO outbox (id, chat_id, kind, ref, payload, owner, taken_at) VALUES ('old5', %d, 'answer', 't5', '{"text":"fifth"}', 'gone', 0)`, chat))
		again := storagetest.OpenDSN(t, dsn, clock.Now)
		owe(again, "t6", "sixth")
		if got, want := taken(again), []string{"t3 third", "t4 fourth", "t5 fifth", "t6 sixth"}; !slices.Equal(got, want) {
			t.Errorf("owed after down and up again = %q, want %q", got, want)
		}
	})
}

// A turn reads the topic's conversation: up to a window's messages,
// decoded, a turn's worth of them in a realistic mix (the person's words
// with their Telegram fields, a tool call, its result, the answer).
func BenchmarkHistory(b *testing.B) {
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(b, "sqlite", clock.Now)
	const chat = 1
	for i := range 20 {
		turn := fmt.Sprint("t", i)
		err := db.Conversation().SaveTurn(b.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Turn: turn, Opens: true, Said: "what's on my list?",
			Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "what's on my list?", MsgID: 7 + i, UserID: 42, Speaker: "Ann", At: clock.Now()}}})
		if err != nil {
			b.Fatal(err)
		}
		err = db.Conversation().SaveTurn(b.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Turn: turn, Closes: true, Messages: []nod.ChatMessage{
			{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "call_8f2k", Name: "list_tasks", Arguments: `{"status":"open"}`}}, At: clock.Now()},
			{Role: nod.RoleTool, ToolCallID: "call_8f2k", Content: `{"tasks":[{"id":"t1","title":"Buy milk","priority":"P2"}],"total":1}`, At: clock.Now()},
			{Role: nod.RoleAssistant, Content: "You have one task: **Buy milk** (P2).", At: clock.Now()}}})
		if err != nil {
			b.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	w := nod.Window{Keep: 40, Step: 20}
	b.ReportAllocs()
	for b.Loop() {
		h, err := db.Conversation().History(b.Context(), nod.Topic{ChatID: chat}, w)
		if err != nil || len(h) < 40 {
			b.Fatal(len(h), err)
		}
	}
}

// A turn's opening on SQLite, its conversation kept: the reads a turn
// starts from, as a chat with a few tasks, an open set, decisions and
// talk has them.
func BenchmarkOpening(b *testing.B) {
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(b, "sqlite", clock.Now)
	ctx := b.Context()
	const chat = 1
	for i := range 5 {
		id := nod.TaskID(fmt.Sprint("T", i))
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task",
			Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: id, Title: fmt.Sprint("Task ", i), Status: nod.StatusOpen, Priority: nod.P2,
					Checklist: []nod.ChecklistItem{{ID: nod.ItemID("c" + string(id)), Title: "step"}}}, nil
			}, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 10 {
		err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Messages: []nod.ChatMessage{
			{Role: nod.RoleUser, Content: fmt.Sprint("message ", i), UserID: 42, At: clock.Now()},
			{Role: nod.RoleAssistant, Content: "Noted.", At: clock.Now()}}})
		if err != nil {
			b.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	req := nod.OpeningRequest{Topic: nod.Topic{ChatID: chat}, Window: nod.Window{Keep: 40, Step: 20}, Today: clock.Now().Format(nod.DateLayout), Tasks: 50, Decisions: 20}
	b.ReportAllocs()
	for b.Loop() {
		o, err := db.Conversation().Opening(ctx, req)
		if err != nil || len(o.History) != 20 || len(o.Focus.Tasks) != 5 {
			b.Fatal(len(o.History), len(o.Focus.Tasks), err)
		}
	}
}
