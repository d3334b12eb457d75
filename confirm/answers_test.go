package confirm_test

import (
	"errors"
	"testing"
	"time"

	"github.com/nodbot/nod"
)

// askIn queues a deletion of T1 asked in topic thread, asks it and shows
// it, as the bot does.
func (e *env) askIn(t *testing.T, thread nod.ThreadID) nod.PendingDeletion {
	t.Helper()
	ctx := t.Context()
	d := nod.PendingDeletion{Topic: nod.Topic{ChatID: chat, Thread: thread}, UserID: user, TaskID: "T1", Title: "Fix login bug", Wait: 10 * time.Minute}
	if err := e.DB.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat, Thread: thread}, UserID: user, Deletions: []nod.PendingDeletion{d}}); err != nil {
		t.Fatal(err)
	}
	step, err := e.Confirm.AskDeletion(ctx, chat, user)
	if err != nil || step.Ask == nil {
		t.Fatalf("AskDeletion = %+v, %v", step, err)
	}
	if err := e.DB.Messages().SetDeletionMessage(ctx, chat, step.Ask.ID, 7); err != nil {
		t.Fatal(err)
	}
	return *step.Ask
}

// docs/design.md §3.4 rule 1, decided by the service: a deletion asked in
// a topic is answered only there, a near miss keeps it open, the title
// deletes the task once across deliveries of the same message, and a
// question whose time ran out is reported expired and deletes nothing.
func TestAnswerDeletion(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		e.Seed(t)
		e.askIn(t, 5)

		if a, err := e.Confirm.AnswerDeletion(ctx, nod.Topic{ChatID: chat}, user, "Fix login bug", false); err != nil || a.Outcome != nod.DeletionNone {
			t.Errorf("answered in another topic: %+v, %v; want it not taken", a, err)
		}
		if a, err := e.Confirm.AnswerDeletion(ctx, nod.Topic{ChatID: chat, Thread: 5}, user, "Fix lgin bug", false); err != nil || a.Outcome != nod.DeletionAgain {
			t.Errorf("near miss: %+v, %v; want asked again", a, err)
		}
		if _, ok, _ := e.DB.Deletions().WaitingDeletion(ctx, chat, user); !ok {
			t.Fatal("the question ended on a near miss")
		}
		a, err := e.Confirm.AnswerDeletion(ctx, nod.Topic{ChatID: chat, Thread: 5}, user, "fix LOGIN bug", false)
		if err != nil || a.Outcome != nod.DeletionDeleted || a.Applied.Undo.ID == "" || !a.Ended() {
			t.Fatalf("title: %+v, %v; want deleted, undoable", a, err)
		}
		if _, err := e.DB.Tasks().Task(ctx, chat, "T1"); err == nil {
			t.Error("T1 is not in the trash")
		}
		if a, err := e.Confirm.AnswerDeletion(ctx, nod.Topic{ChatID: chat, Thread: 5}, user, "fix LOGIN bug", false); err != nil || a.Outcome != nod.DeletionNone {
			t.Errorf("a second delivery: %+v, %v; want nothing taken", a, err)
		}

		if _, err := e.Confirm.Restore(ctx, nod.Topic{ChatID: chat}, user, "T1"); err != nil {
			t.Fatal(err)
		}
		e.askIn(t, 0)
		e.Clock.Advance(11 * time.Minute)
		a, err = e.Confirm.AnswerDeletion(ctx, nod.Topic{ChatID: chat}, user, "Fix login bug", false)
		if err != nil || a.Outcome != nod.DeletionExpired || !a.Ended() {
			t.Errorf("after its time: %+v, %v; want expired", a, err)
		}
		if _, err := e.DB.Tasks().Task(ctx, chat, "T1"); err != nil {
			t.Errorf("an expired question deleted T1: %v", err)
		}
	})
}

// A deletion's ✗ keeps it for the person asked, on the message that
// asked, once: another person, another message and a second tap change
// nothing.
func TestKeepDeletion(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		e.Seed(t)
		d := e.askIn(t, 0)
		if _, err := e.Confirm.KeepDeletion(ctx, chat, user+1, 7, d.ID, false); !errors.Is(err, nod.ErrForbidden) {
			t.Errorf("another person's tap: %v; want forbidden", err)
		}
		if _, err := e.Confirm.KeepDeletion(ctx, chat, user, 8, d.ID, false); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("a tap on another message: %v; want not found", err)
		}
		a, err := e.Confirm.KeepDeletion(ctx, chat, user, 7, d.ID, false)
		if err != nil || a.Outcome != nod.DeletionCancelled || a.Deletion.ID != d.ID || len(a.Rest) != 0 {
			t.Fatalf("the tap: %+v, %v; want it cancelled", a, err)
		}
		if _, err := e.Confirm.KeepDeletion(ctx, chat, user, 7, d.ID, false); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("a second tap: %v; want decided", err)
		}
		if _, ok, _ := e.DB.Deletions().WaitingDeletion(ctx, chat, user); ok {
			t.Error("the question still waits")
		}
		if _, err := e.DB.Tasks().Task(ctx, chat, "T1"); err != nil {
			t.Errorf("a kept task is gone: %v", err)
		}
	})
}
