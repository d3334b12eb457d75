package storage_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// seedTask stores a plain task of the chat.
func seedTask(t *testing.T, db *storage.DB, id nod.TaskID, title string) {
	t.Helper()
	task := nod.Task{ID: id, Title: title, Status: nod.StatusOpen, Priority: nod.P2}
	_, err := db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task",
		Mutate: func(*nod.Task) (nod.Task, error) { return task, nil }, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}})
	if err != nil {
		t.Fatal(err)
	}
}

func deletion(user nod.UserID, task nod.TaskID, title string) nod.PendingDeletion {
	return nod.PendingDeletion{Topic: nod.Topic{ChatID: chat}, UserID: user, TaskID: task, Title: title, Wait: 10 * time.Minute}
}

// asked moves the person's line on and returns the deletion it asked.
func asked(t *testing.T, db *storage.DB, user nod.UserID) nod.DeletionStep {
	t.Helper()
	step, err := db.Deletions().AskDeletion(t.Context(), chat, user)
	if err != nil {
		t.Fatal(err)
	}
	return step
}

func askedTask(step nod.DeletionStep) nod.TaskID {
	if step.Ask == nil {
		return ""
	}
	return step.Ask.TaskID
}

// A person's deletions wait in line in call order, once per task; one
// question is asked at a time, answerable once shown, and the next is
// asked when it ends or expires. Another person's line is their own.
func TestDeletionLine(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		seedTask(t, db, "T2", "Update README")
		seedTask(t, db, "T3", "Plan the offsite")
		err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Deletions: []nod.PendingDeletion{
			deletion(42, "T1", "Fix login bug"), deletion(42, "T2", "Update README"), deletion(42, "T1", "Fix login bug")}})
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := db.Settings().ChatSettings(ctx, chat, 42); s.DeletionAsked {
			t.Errorf("a question waits before any was asked")
		}
		first := asked(t, db, 42)
		if askedTask(first) != "T1" || len(first.Expired) != 0 || !first.Ask.ExpiresAt.Equal(clock.Now().Add(10*time.Minute)) {
			t.Fatalf("first step = %+v", first)
		}
		owed, err := db.Outbox().TakeOwed(ctx, 0)
		if err != nil || len(owed) != 1 || owed[0].Kind != nod.OwedDeletion || owed[0].Ref != string(first.Ask.ID) {
			t.Fatalf("owed after asking = %+v, %v", owed, err)
		}
		if again := asked(t, db, 42); again.Ask != nil || len(again.Expired) != 0 {
			t.Errorf("asked again while T1's question waits: %+v", again)
		}
		if _, ok, _ := db.Deletions().WaitingDeletion(ctx, chat, 42); ok {
			t.Errorf("a question not shown yet takes answers")
		}

		clock.Advance(2 * time.Minute) // the question is shown late: it waits its full time from then
		if err := db.Messages().SetDeletionMessage(ctx, chat, first.Ask.ID, 7); err != nil {
			t.Fatal(err)
		}
		d, ok, err := db.Deletions().WaitingDeletion(ctx, chat, 42)
		if err != nil || !ok || d.TaskID != "T1" || d.MessageID != 7 || !d.ExpiresAt.Equal(clock.Now().Add(10*time.Minute)) {
			t.Fatalf("waiting = %+v, %v, %v", d, ok, err)
		}
		for user, want := range map[nod.UserID]bool{42: true, 43: false} {
			if s, _ := db.Settings().ChatSettings(ctx, chat, user); s.DeletionAsked != want {
				t.Errorf("user %d: DeletionAsked = %v, want %v", user, s.DeletionAsked, want)
			}
		}
		if _, ok, _ := db.Deletions().WaitingDeletion(ctx, chat, 43); ok {
			t.Errorf("another person's words answer 42's question")
		}

		if ended, err := db.Deletions().EndDeletion(ctx, chat, d.ID); !ended || err != nil {
			t.Fatalf("EndDeletion = %v, %v", ended, err)
		}
		if ended, _ := db.Deletions().EndDeletion(ctx, chat, d.ID); ended {
			t.Errorf("a deletion ended twice")
		}
		second := asked(t, db, 42)
		if askedTask(second) != "T2" {
			t.Fatalf("second step = %+v", second)
		}
		if err := db.Messages().SetDeletionMessage(ctx, chat, second.Ask.ID, 9); err != nil {
			t.Fatal(err)
		}
		if due, _ := db.Deletions().DeletionsDue(ctx, clock.Now()); len(due) != 0 {
			t.Errorf("due before the time is up: %+v", due)
		}
		clock.Advance(10 * time.Minute)
		due, err := db.Deletions().DeletionsDue(ctx, clock.Now())
		if err != nil || len(due) != 1 || due[0].UserID != 42 || due[0].TaskID != "T2" {
			t.Fatalf("due after the time is up = %+v, %v", due, err)
		}
		last := asked(t, db, 42)
		if last.Ask != nil || len(last.Expired) != 1 || last.Expired[0].TaskID != "T2" || last.Expired[0].MessageID != 9 {
			t.Errorf("after expiry = %+v", last)
		}
		if due, _ := db.Deletions().DeletionsDue(ctx, clock.Now()); len(due) != 0 {
			t.Errorf("due with an empty line: %+v", due)
		}
		if _, err := db.Deletions().Deletion(ctx, chat, second.Ask.ID); err == nil {
			t.Errorf("an expired deletion is still in its line")
		}

		// Another person's line, beside 42's: each asks its own.
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Deletions: []nod.PendingDeletion{deletion(42, "T3", "Plan the offsite")}}); err != nil {
			t.Fatal(err)
		}
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 43, Deletions: []nod.PendingDeletion{deletion(43, "T1", "Fix login bug")}}); err != nil {
			t.Fatal(err)
		}
		// Cut short before asking: the first in line is due, for each person.
		if due, _ := db.Deletions().DeletionsDue(ctx, clock.Now()); len(due) != 2 {
			t.Errorf("due lines = %+v, want 42's and 43's", due)
		}
		if a, b := asked(t, db, 42), asked(t, db, 43); askedTask(a) != "T3" || askedTask(b) != "T1" || b.Ask.UserID != 43 {
			t.Errorf("asked %+v and %+v", a, b)
		}
	})
}

// A deletion whose task went to the trash while it waited in line is
// dropped without a question; of callers racing to ask, one does.
func TestDeletionLineSkipsTrashedAndAsksOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		seedTask(t, db, "T2", "Update README")
		err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Deletions: []nod.PendingDeletion{
			deletion(42, "T1", "Fix login bug"), deletion(42, "T2", "Update README")}})
		if err != nil {
			t.Fatal(err)
		}
		now := clock.Now()
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: "delete_task", Audit: nod.AuditEntry{Outcome: nod.OutcomeConfirmed},
			Mutate: func(cur *nod.Task) (nod.Task, error) { cur.DeletedAt = &now; return *cur, nil }}); err != nil {
			t.Fatal(err)
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			asks  []string
			fails []error
		)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				step, err := db.Deletions().AskDeletion(ctx, chat, 42)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					fails = append(fails, err)
				}
				if step.Ask != nil {
					asks = append(asks, string(step.Ask.TaskID))
				}
			}()
		}
		wg.Wait()
		if len(fails) > 0 || len(asks) != 1 || asks[0] != "T2" {
			t.Errorf("8 racing askers asked %v (errors %v), want T2 once", asks, fails)
		}
	})
}

// Callback data counts on the messages it was sent with or edited into,
// in its own chat only; a message with no record is told apart.
func TestButtonMessages(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		ctx := t.Context()
		if err := db.Messages().BindButtons(ctx, chat, 5, []string{"1u.a", "1c.s.1", "1u.a"}); err != nil {
			t.Fatal(err)
		}
		if err := db.Messages().BindButtons(ctx, chat, 5, []string{"1u.a"}); err != nil {
			t.Fatalf("binding again: %v", err)
		}
		if err := db.Messages().BindButtons(ctx, chat, 6, []string{"1u.b"}); err != nil {
			t.Fatal(err)
		}
		if err := db.Messages().BindButtons(ctx, chat, 8, nil); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			chat           nod.ChatID
			msg            int
			data           string
			sent, recorded bool
		}{
			{chat, 5, "1u.a", true, true},
			{chat, 5, "1c.s.1", true, true},
			{chat, 6, "1u.a", false, true},      // another message of the chat
			{chat + 1, 5, "1u.a", false, false}, // another chat
			{chat, 7, "1u.a", false, false},     // a message with no buttons recorded
			{chat, 8, "1u.a", false, false},     // nor any to record
		} {
			sent, recorded, err := db.Messages().ButtonSentWith(ctx, c.chat, c.msg, c.data)
			if err != nil || sent != c.sent || recorded != c.recorded {
				t.Errorf("ButtonSentWith(%d, %d, %q) = %v, %v, %v; want %v, %v", c.chat, c.msg, c.data, sent, recorded, err, c.sent, c.recorded)
			}
		}
		// Edited into message 6 as well: it counts on both.
		if err := db.Messages().BindButtons(ctx, chat, 6, []string{"1u.a"}); err != nil {
			t.Fatal(err)
		}
		for _, msg := range []int{5, 6} {
			if sent, _, _ := db.Messages().ButtonSentWith(ctx, chat, msg, "1u.a"); !sent {
				t.Errorf("1u.a does not count on message %d", msg)
			}
		}
	})
}

// Migration 00017 keeps a deletion that waited for its title before: it
// is the first of its person's line, asked, with its message and time,
// and a new deletion waits behind it.
func TestDeletionLineMigration(t *testing.T) {
	t.Parallel()
	reopenable(t, func(t *testing.T, dsn string, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		seedT1(t, db)
		seedTask(t, db, "T2", "Update README")
		if err := db.MigrateDownTo(ctx, 16); err != nil {
			t.Fatal(err)
		}
		now := clock.Now()
		storagetest.Exec(t, dsn, fmt.Sprintf(`INSERT INTO pending_deletions (chat_id, user_id, task_id, title, created_at, expires_at, message_id)
			VALUES (%d, 42, 'T1', 'Fix login bug', %d, %d, 7)`, chat, now.UnixMicro(), now.Add(10*time.Minute).UnixMicro()))
		migrated := storagetest.OpenDSN(t, dsn, clock.Now)
		d, ok, err := migrated.Deletions().WaitingDeletion(ctx, chat, 42)
		if err != nil || !ok || d.TaskID != "T1" || d.MessageID != 7 || d.Wait != 10*time.Minute || !d.ExpiresAt.Equal(now.Add(10*time.Minute)) {
			t.Fatalf("after the migration: %+v, %v, %v", d, ok, err)
		}
		if err := migrated.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Deletions: []nod.PendingDeletion{deletion(42, "T2", "Update README")}}); err != nil {
			t.Fatal(err)
		}
		if step := asked(t, migrated, 42); step.Ask != nil {
			t.Errorf("asked %s while the migrated question waits", step.Ask.TaskID)
		}
		if ended, err := migrated.Deletions().EndDeletion(ctx, chat, d.ID); !ended || err != nil {
			t.Fatalf("EndDeletion: %v, %v", ended, err)
		}
		if step := asked(t, migrated, 42); askedTask(step) != "T2" {
			t.Errorf("after the migrated question: %+v", step)
		}
	})
}
