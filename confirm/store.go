package confirm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
)

// The storage the confirmation service needs, as small interfaces grouped
// by what it does with it, each provided by one of storage's repositories.
// Every method is scoped to a chat: a record of another chat is
// nod.ErrNotFound.

// Tasks reads the tasks a tap names.
type Tasks interface {
	// Task returns a task outside the trash; nod.ErrNotFound if there is
	// none (or it is in the trash).
	Task(ctx context.Context, chatID nod.ChatID, id nod.TaskID) (nod.Task, error)
	// ChecklistOwner returns the task holding checklist item itemID;
	// nod.ErrNotFound if no task of the chat holds it.
	ChecklistOwner(ctx context.Context, chatID nod.ChatID, itemID nod.ItemID) (nod.Task, error)
}

// Editor applies a change at once, outside any change set.
type Editor interface {
	// Apply applies an edit with its audit row and undo entry, in one
	// transaction. Errors wrap nod.ErrNotFound (no such task),
	// nod.ErrTrashed (the task is in the trash and the edit may not act
	// there) or are Mutate's own; then nothing was written.
	Apply(ctx context.Context, e nod.Edit) (nod.Applied, error)
}

// Decisions decides the items of change sets, each decision in a
// transaction of its own that authorizes the user and checks the set's
// expiry inside it.
type Decisions interface {
	// ChangeSet returns a set with its items; nod.ErrNotFound if the chat
	// has none of that id.
	ChangeSet(ctx context.Context, chatID nod.ChatID, id nod.SetID) (nod.ChangeSet, error)
	// ConfirmItems confirms pending items ns (nil: every pending item) in
	// order in one transaction: for each, decide computes the task's new
	// state from the task as stored now, and task change, item, set,
	// decision, audit and undo entry are written together; the first item
	// decide refuses (a *nod.Refusal) is recorded so and ends the run.
	// Errors wrap nod.ErrNotFound, nod.ErrForbidden (userID may not decide
	// the set), nod.ErrExpired, nod.ErrDecided (a single item no longer
	// pending: exactly one of concurrent confirmations wins; or nothing
	// pending) or decide's error, and then nothing was written.
	// words, the person's answer that decided them when nod read it
	// itself, are kept with the decisions.
	ConfirmItems(ctx context.Context, chatID nod.ChatID, setID nod.SetID, ns []int, userID nod.UserID, words string, decide nod.Decide) (nod.Decided, error)
	// RejectItem rejects a pending item with its decision and audit row in
	// one transaction; errors as ConfirmItems.
	RejectItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID) (nod.ChangeSet, error)
	// RejectItemBecause is RejectItem with the person's reason, and their
	// answer in words as ConfirmItems keeps it.
	RejectItemBecause(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, reason, words string) (nod.ChangeSet, error)
	// FailItem closes a pending item as stale or failed with a note for the
	// person, audited as failed, in one transaction; errors as RejectItem.
	FailItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, status nod.ItemStatus, note nod.Note) (nod.ChangeSet, error)
	// ReopenItem makes a failed item pending again and its set open, in
	// one transaction; nod.ErrExpired if the set's time is up, nod.ErrDecided
	// if the item is not failed.
	ReopenItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int) (nod.ChangeSet, error)
	// Repropose closes an expired set's pending items and opens a new set
	// of items in one transaction; nod.ErrDecided if it was done before.
	Repropose(ctx context.Context, chatID nod.ChatID, oldID nod.SetID, userID nod.UserID, items []nod.ChangeItem) (*nod.ChangeSet, error)
}

// Undos takes applied changes back and counts those the person took back.
type Undos interface {
	// UndoEntry returns an undo entry; nod.ErrNotFound if the chat has
	// none of that id.
	UndoEntry(ctx context.Context, chatID nod.ChatID, id nod.UndoID) (nod.UndoEntry, error)
	// Undo applies the inverse of an undo entry's change in one
	// transaction. Unless force is set it refuses with nod.ErrStale (a
	// nod.Conflict) when one of the change's own fields or items changed
	// since; other errors wrap nod.ErrNotFound, nod.ErrForbidden (another
	// person's change), nod.ErrDecided (already undone), nod.ErrExpired,
	// nod.ErrSent (its reminder went out since) or nod.ErrTrashed. The
	// result holds the Redo entry and what became of a reminder left in
	// the past.
	Undo(ctx context.Context, chatID nod.ChatID, id nod.UndoID, userID nod.UserID, force bool) (nod.Undone, error)
	// UndoAll undoes each of ids as Undo does, without force, in one
	// transaction: those undone already or expired are left out, any
	// other refusal undoes none (nod.ErrDecided: nothing was left).
	UndoAll(ctx context.Context, chatID nod.ChatID, ids []nod.UndoID, userID nod.UserID) ([]nod.Undone, error)
	// AutoUndosSince counts userID's auto-applied changes undone at or
	// after since and not redone since.
	AutoUndosSince(ctx context.Context, chatID nod.ChatID, userID nod.UserID, since time.Time) (int, error)
}

// Breaker trips the circuit breaker when the person keeps taking back what
// was applied without asking.
type Breaker interface {
	// ChatSettings returns the chat's settings with userID's mode and
	// circuit breaker; a chat never configured has the defaults.
	ChatSettings(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.ChatSettings, error)
	// TripBreaker makes nod ask userID for everything until until,
	// audited as a mode change in one transaction.
	TripBreaker(ctx context.Context, chatID nod.ChatID, userID nod.UserID, until time.Time) error
}

// Rules offers, decides and revokes the rules learned from a person's
// streaks of confirmations.
type Rules interface {
	// OfferRule records a rule's offer in one transaction; false if that
	// kind was offered before (and its rule did not just expire).
	OfferRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, kind string) (nod.Rule, bool, error)
	// Rule returns a rule; nod.ErrNotFound if the chat has none of that id.
	Rule(ctx context.Context, chatID nod.ChatID, id nod.RuleID) (nod.Rule, error)
	// DecideRule accepts or declines an offered rule with its audit row in
	// one transaction; nod.ErrDecided if it is not offered.
	DecideRule(ctx context.Context, chatID nod.ChatID, id nod.RuleID, userID nod.UserID, accept bool) (nod.Rule, error)
	// RevokeRule ends an active rule with its audit row in one
	// transaction; nod.ErrDecided if it is not active.
	RevokeRule(ctx context.Context, chatID nod.ChatID, id nod.RuleID, userID nod.UserID) (nod.Rule, error)
}

// Deletions keeps each person's line of deletions that wait for their
// typed title.
type Deletions interface {
	// WaitingDeletion returns the person's deletion whose question was
	// asked and shown, expired or not; false if none is.
	WaitingDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PendingDeletion, bool, error)
	// EndDeletion takes an answered or cancelled deletion out of its line;
	// false if another caller already did.
	EndDeletion(ctx context.Context, chatID nod.ChatID, id nod.DeletionID) (bool, error)
	// CancelDeletion ends a cancelled deletion, audited with why, and
	// when line is set the rest of its person's line at once; rest holds
	// those whose task was still there.
	CancelDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id nod.DeletionID, line bool, why string) (ended bool, rest []nod.PendingDeletion, err error)
	// Deletion returns deletion id; nod.ErrNotFound once it left its line.
	Deletion(ctx context.Context, chatID nod.ChatID, id nod.DeletionID) (nod.PendingDeletion, error)
	// AskDeletion drops the person's expired question and asks the next
	// in line when none waits (see storage.Deletions.AskDeletion).
	AskDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.DeletionStep, error)
}

// Replies finds the change set a person's words are about, and keeps
// what they said of it: a reading to accept, a rejection's reason.
type Replies interface {
	// ChangeSetByMessage returns the set a message shows; nod.ErrNotFound
	// if none.
	ChangeSetByMessage(ctx context.Context, chatID nod.ChatID, msgID int) (nod.ChangeSet, error)
	// OpenChangeSets returns the topic's open sets, newest first.
	OpenChangeSets(ctx context.Context, at nod.Topic) ([]nod.ChangeSet, error)
	// LatestRejection returns the set's latest rejection.
	LatestRejection(ctx context.Context, setID nod.SetID) (nod.Decision, error)
	// SetReason stores a rejection's reason once.
	SetReason(ctx context.Context, decisionID, reason string) error
	// TakeReading uses a reading of the person's words, once.
	TakeReading(ctx context.Context, chatID nod.ChatID, id string, userID nod.UserID) (nod.Reading, error)
}

// Forgets keeps a person's /forget and forgets them (storage.People).
type Forgets interface {
	// PersonData counts what nod keeps about userID, whose private chat
	// is chatID.
	PersonData(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PersonData, error)
	// AskForget records a /forget waiting for its phrase, replacing one
	// asked before.
	AskForget(ctx context.Context, r nod.ForgetRequest) error
	// ForgetRequest returns userID's waiting /forget, expired or not;
	// false if none waits.
	ForgetRequest(ctx context.Context, userID nod.UserID) (nod.ForgetRequest, bool, error)
	// EndForget ends userID's /forget, cancelled or expired; false if
	// another caller already did.
	EndForget(ctx context.Context, userID nod.UserID) (nod.ForgetRequest, bool, error)
	// Forget deletes what nod keeps about userID and ends their /forget,
	// in one transaction; nod.ErrNotFound if no /forget waits (then
	// nothing was written).
	Forget(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PersonData, error)
}

// Deps are the storage the Service works with, storage's repositories
// provide them, and the words it reads answers with.
type Deps struct {
	Decisions Decisions
	Tasks     Tasks
	Editor    Editor
	Undos     Undos
	Breaker   Breaker
	Rules     Rules
	Deletions Deletions
	Replies   Replies
	// Forgets keeps /forget; nil: nobody can have nod forget them.
	Forgets Forgets
	// ForgetWords are the phrases that confirm a /forget
	// (formatting.Words("forget")), and ConfirmWindow how long one waits
	// for them (default nod.DefaultConfirmWindow).
	ForgetWords   []string
	ConfirmWindow time.Duration
	// Words reads the person's answers in words; nil reads none (only the
	// agent's answer_proposals reach the service then).
	Words *answer.Reader
	// External sends the external calls confirmations claim, and Calls
	// records their outcomes; nil: a claimed call is never sent, and its
	// outcome is reported unknown.
	External Caller
	Calls    Outcomes
}

// Caller sends a call to an operator's MCP server (mcpclient.Hub).
type Caller interface {
	// Call calls a tool; an error means it returned no result.
	Call(ctx context.Context, name nod.Tool, args json.RawMessage) (nod.ExternalResult, error)
}

// Outcomes records what claimed external calls came to (storage.Calls).
type Outcomes interface {
	// Finish records a claimed call's outcome with its audit row.
	Finish(ctx context.Context, c *nod.ExternalCall, audit nod.AuditEntry) error
}
