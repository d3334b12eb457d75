package storage_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// A forum topic's conversation is its own: its history is numbered and
// read apart from the chat's, its open sets and latest undo are its own,
// and what it owes goes to it; a set or undo entry named by id is found
// from anywhere in the chat.
func TestTopicsKeepConversationsApart(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		general, topic := nod.Topic{ChatID: chat}, nod.Topic{ChatID: chat, Thread: 7}
		say := func(at nod.Topic, text string) {
			t.Helper()
			if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: at, UserID: 42,
				Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: text}, {Role: nod.RoleAssistant, Content: "re: " + text}}}); err != nil {
				t.Fatal(err)
			}
		}
		say(general, "in the chat")
		say(topic, "in topic 7")
		say(general, "again in the chat")
		for at, want := range map[nod.Topic][]string{
			general: {"in the chat", "re: in the chat", "again in the chat", "re: again in the chat"},
			topic:   {"in topic 7", "re: in topic 7"},
		} {
			if got := numbered(t, db, at); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("History(%+v) = %q, want %q", at, got, want)
			}
		}

		set := &nod.ChangeSet{Items: []nod.ChangeItem{{Tool: "set_task_priority", TaskID: "T1", Args: []byte(`{"task_id":"T1","priority":"P1"}`),
			Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"}}}
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat, Thread: 7}, UserID: 42, Set: set}); err != nil {
			t.Fatal(err)
		}
		if set.Thread != 7 || set.AfterSeq != 2 {
			t.Errorf("set saved in topic 7: thread %d, after message %d; want 7, 2 (the topic's count)", set.Thread, set.AfterSeq)
		}
		if open, err := db.ChangeSets().OpenChangeSets(ctx, general); err != nil || len(open) != 0 {
			t.Errorf("OpenChangeSets(chat) = %d sets, %v; want none: the set is topic 7's", len(open), err)
		}
		if open, err := db.ChangeSets().OpenChangeSets(ctx, topic); err != nil || len(open) != 1 || open[0].ID != set.ID || open[0].Thread != 7 {
			t.Errorf("OpenChangeSets(topic 7) = %+v, %v", open, err)
		}
		if got, err := db.ChangeSets().ChangeSet(ctx, chat, set.ID); err != nil || got.Thread != 7 {
			t.Errorf("ChangeSet by id = thread %d, %v", got.Thread, err)
		}
		owed, err := db.Outbox().TakeOwed(ctx, 0)
		if err != nil || len(owed) != 1 || owed[0].Kind != nod.OwedSet || owed[0].Thread != 7 {
			t.Fatalf("owed after the set = %+v, %v; want its message owed to topic 7", owed, err)
		}
		db.Outbox().Delivered(ctx, chat, nod.OwedSet, string(set.ID))

		// A decision on topic 7's set is an event of topic 7's conversation.
		clock.Advance(time.Minute)
		since := clock.Now()
		clock.Advance(time.Minute)
		if _, err := db.ChangeSets().RejectItem(ctx, chat, set.ID, 1, 42); err != nil {
			t.Fatal(err)
		}
		for at, want := range map[nod.Topic]int{general: 0, topic: 1} {
			if es, err := db.Conversation().Events(ctx, at, since); err != nil || len(es) != want {
				t.Errorf("Events(%+v) = %+v, %v; want %d", at, es, err, want)
			}
		}

		// A change made in topic 7 is undone from there, not from the chat;
		// its receipt and the undo's report go there.
		applied, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat, Thread: 7}, UserID: 42, TaskID: "T1", Tool: "set_task_priority", Summary: "Set priority to P2",
			Mutate: setPriority(nod.P2), Audit: executed, Receipt: &nod.Receipt{Item: nod.ChangeItem{Tool: "set_task_priority", Summary: "Set priority to P2"}}})
		if err != nil {
			t.Fatal(err)
		}
		if u, err := db.Undo().LatestUndo(ctx, general, 42); err != nil || u.ID == applied.Undo.ID || u.Tool != "create_task" {
			t.Errorf("LatestUndo(chat) = %s %s, %v; want T1's creation, made outside topics: the change is topic 7's", u.Tool, u.ID, err)
		}
		u, err := db.Undo().LatestUndo(ctx, topic, 42)
		if err != nil || u.ID != applied.Undo.ID || u.Thread != 7 {
			t.Fatalf("LatestUndo(topic 7) = %+v, %v", u, err)
		}
		clock.Advance(time.Minute)
		undone, err := db.Undo().Undo(ctx, chat, u.ID, 42, false)
		redo := undone.Redo
		if err != nil || redo.Thread != 7 {
			t.Fatalf("Undo = %+v, %v; want the redo in topic 7", redo, err)
		}
		clock.Advance(time.Minute)
		owed, err = db.Outbox().TakeOwed(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		sent := map[nod.OwedKind]nod.ThreadID{} // a refresh is an edit: it names no topic
		for _, o := range owed {
			if o.Kind != nod.OwedRefresh {
				sent[o.Kind] = o.Thread
			}
		}
		if want := map[nod.OwedKind]int{nod.OwedReceipt: 7, nod.OwedUndone: 7}; fmt.Sprint(sent) != fmt.Sprint(want) {
			t.Errorf("owed messages and their threads = %v, want %v", sent, want)
		}
		if es, err := db.Conversation().Events(ctx, general, since); err != nil || len(es) != 0 {
			t.Errorf("Events(chat) after topic 7's undo = %+v, %v; want none", es, err)
		}
		// Recorded before the message goes out: a send that fails and is
		// tried again records it once.
		for range 2 {
			if err := db.Outbox().Interrupted(ctx, topic, "hello?", "r1"); err != nil {
				t.Fatal(err)
			}
		}
		for at, want := range map[nod.Topic]int{general: 0, topic: 3} {
			if es, err := db.Conversation().Events(ctx, at, since); err != nil || len(es) != want {
				t.Errorf("Events(%+v) after nod stopped in topic 7 = %+v, %v; want %d", at, es, err, want)
			}
		}
	})
}

// numbered returns the texts of topic at's history, and fails the test
// unless the topic numbers them 1, 2, 3, … as its own.
func numbered(t *testing.T, db *storage.DB, at nod.Topic) []string {
	t.Helper()
	h, err := db.Conversation().History(t.Context(), at, nod.Window{Keep: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, m := range h {
		got = append(got, m.Content)
		if m.Seq != int64(i+1) {
			t.Errorf("History(%+v)[%d] is numbered %d: a topic numbers its own messages", at, i, m.Seq)
		}
	}
	return got
}

// A reminder set in a topic, and a daily review set there, fall due to
// that topic; a reminder set outside topics, to the chat.
func TestTopicsOfWhatFallsDue(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		remindAt := func(id string, thread nod.ThreadID, at time.Time) {
			t.Helper()
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat, Thread: thread}, UserID: 42, TaskID: nod.TaskID(id), Tool: "set_task_reminder", Audit: executed,
				Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = &at; return *cur, nil }})
			if err != nil {
				t.Fatal(err)
			}
		}
		due := clock.Now().Add(time.Hour)
		remindAt("T1", 7, due)
		created := due
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat, Thread: 9}, UserID: 42, Tool: "create_task", Audit: executed,
			Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: "T2", Title: "Book flights", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &created}, nil
			}}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed,
			Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: "T3", Title: "Call mum", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &created}, nil
			}}); err != nil {
			t.Fatal(err)
		}
		if err := db.Schedule().SetDaily(ctx, nod.Topic{ChatID: chat, Thread: 11}, 42, "13:00", false, time.UTC); err != nil {
			t.Fatal(err)
		}
		owed, err := db.Schedule().ClaimDue(ctx, clock.Now().Add(48*time.Hour), time.UTC, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]nod.ThreadID{}
		for _, o := range owed {
			got[o.Ref[:min(len(o.Ref), 2)]+" "+string(o.Kind)] = o.Thread
		}
		want := map[string]int{"T1 reminder": 7, "T2 reminder": 9, "T3 reminder": 0, "20 daily": 11}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("what fell due, with its thread = %v, want %v", got, want)
		}
	})
}

// Migration 00021 leaves every conversation where it was, outside topics;
// rolled back, a topic's messages join their chat's conversation in the
// order they were written, numbered as one.
func TestTopicsMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		for i, thread := range []nod.ThreadID{0, 7, 0} {
			if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat, Thread: thread}, UserID: 42,
				Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: fmt.Sprint("message ", i)}}}); err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Second) // the order they were stored in is their times' since 00025
		}
		if err := db.MigrateDownTo(ctx, 20); err != nil {
			t.Fatal(err)
		}
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		if got, want := numbered(t, migrated, nod.Topic{ChatID: chat}), []string{"message 0", "message 1", "message 2"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("History after 00021 down and up = %q, want %q", got, want)
		}
		if h, _ := migrated.Conversation().History(ctx, nod.Topic{ChatID: chat, Thread: 7}, nod.Window{Keep: 10}); len(h) != 0 {
			t.Errorf("topic 7 kept %d messages through the round trip; they went to the chat", len(h))
		}
	})
}
