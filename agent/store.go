package agent

import (
	"context"
	"time"

	"github.com/nodbot/nod"
)

// Store is the storage the agent needs. Every method is scoped to a chat:
// a record of another chat is nod.ErrNotFound.
type Store interface {
	// Task returns a task outside the trash.
	Task(ctx context.Context, chatID int64, id string) (nod.Task, error)
	ListTasks(ctx context.Context, chatID int64, f nod.TaskFilter) ([]nod.Task, error)
	// History returns up to limit of the latest messages, oldest first.
	History(ctx context.Context, chatID int64, limit int) ([]nod.ChatMessage, error)
	// RecentDecisions returns the latest decisions, newest first.
	RecentDecisions(ctx context.Context, chatID int64, limit int) ([]nod.Decision, error)
	// SaveTurn writes a turn's messages, audit rows and change set in one
	// transaction; the set gets its id and item numbers.
	SaveTurn(ctx context.Context, t nod.TurnRecord) error
	AddAudit(ctx context.Context, entries ...nod.AuditEntry) error
	// Apply applies an edit at once with its audit row and undo entry, in
	// one transaction.
	Apply(ctx context.Context, e nod.Edit) (nod.Applied, error)
	// ChatSettings returns the chat's mode and circuit breaker.
	ChatSettings(ctx context.Context, chatID int64) (nod.ChatSettings, error)
	// OpenChangeSets returns the pending and partially resolved sets,
	// newest first.
	OpenChangeSets(ctx context.Context, chatID int64) ([]nod.ChangeSet, error)
	// Events returns what happened outside the conversation after since,
	// oldest first.
	Events(ctx context.Context, chatID int64, since time.Time) ([]nod.Event, error)
	// UndoneSince returns the changes the person undid at or after since.
	UndoneSince(ctx context.Context, chatID int64, since time.Time) ([]nod.UndoEntry, error)
	// RecentRejections returns rejections made at or after since.
	RecentRejections(ctx context.Context, chatID int64, since time.Time) ([]nod.Rejection, error)
	ChangeSet(ctx context.Context, chatID int64, id string) (nod.ChangeSet, error)
	// Rules returns the chat's learned rules in force at now.
	Rules(ctx context.Context, chatID int64, now time.Time) ([]nod.Rule, error)
	// ReviseItem replaces a pending item under its number and audits the
	// old version as superseded, in one transaction; nod.ErrDecided if the
	// item is no longer pending.
	ReviseItem(ctx context.Context, chatID int64, setID string, n int, userID int64, it nod.ChangeItem) (nod.ChangeSet, error)
}

// DecisionStore is the storage the confirmation service needs.
type DecisionStore interface {
	ChangeSet(ctx context.Context, chatID int64, id string) (nod.ChangeSet, error)
	// ConfirmItems confirms pending items in order in one transaction:
	// for each, decide computes the task's new state from the task as
	// stored now, and task change, item, set, decision, audit and undo
	// entry are written together; the first item decide refuses (a
	// *nod.Refusal) is recorded so and ends the run. Errors wrap
	// nod.ErrNotFound, nod.ErrExpired, nod.ErrDecided (a single item no
	// longer pending: exactly one of concurrent confirmations wins) or
	// decide's error, and then nothing was written.
	ConfirmItems(ctx context.Context, chatID int64, setID string, ns []int, userID int64, decide nod.Decide) (nod.Confirmation, error)
	// RejectItem rejects a pending item with its decision and audit row in
	// one transaction; errors as ConfirmItem.
	RejectItem(ctx context.Context, chatID int64, setID string, n int, userID int64) (nod.ChangeSet, error)
	// RejectItemBecause is RejectItem with the person's reason.
	RejectItemBecause(ctx context.Context, chatID int64, setID string, n int, userID int64, reason string) (nod.ChangeSet, error)
	// FailItem closes a pending item as stale or failed with a note for the
	// person, audited as failed; errors as ConfirmItem.
	FailItem(ctx context.Context, chatID int64, setID string, n int, userID int64, status nod.ItemStatus, note string) (nod.ChangeSet, error)
	// Apply applies an edit at once with its audit row and undo entry.
	Apply(ctx context.Context, e nod.Edit) (nod.Applied, error)
	// Undo applies the inverse of an undo entry's change in one
	// transaction. Unless force is set it refuses with nod.ErrStale (a
	// nod.Conflict) when one of the change's own fields or items changed
	// since; other errors wrap nod.ErrNotFound, nod.ErrForbidden (another
	// person's change), nod.ErrDecided (already undone), nod.ErrExpired or
	// nod.ErrTrashed.
	Undo(ctx context.Context, chatID int64, id string, userID int64, force bool) (nod.UndoEntry, error)
	UndoEntry(ctx context.Context, chatID int64, id string) (nod.UndoEntry, error)
	ChecklistOwner(ctx context.Context, chatID int64, itemID string) (nod.Task, error)
	ChatSettings(ctx context.Context, chatID int64) (nod.ChatSettings, error)
	// AutoUndosSince counts auto-applied changes undone at or after since.
	AutoUndosSince(ctx context.Context, chatID int64, since time.Time) (int, error)
	// TripBreaker makes the chat ask for everything until until.
	TripBreaker(ctx context.Context, chatID int64, until time.Time) error
	// ReopenItem makes a failed item pending again.
	ReopenItem(ctx context.Context, chatID int64, setID string, n int) (nod.ChangeSet, error)
	// Task returns a task outside the trash.
	Task(ctx context.Context, chatID int64, id string) (nod.Task, error)
	// Repropose closes an expired set's pending items and opens a new set
	// of items in one transaction; nod.ErrDecided if it was done before.
	Repropose(ctx context.Context, chatID int64, oldID string, userID int64, items []nod.ChangeItem) (*nod.ChangeSet, error)
	// KindDecisions returns a person's latest decisions on one kind of
	// change, newest first.
	KindDecisions(ctx context.Context, chatID, userID int64, kind string, limit int) ([]nod.Decision, error)
	// OfferRule records a rule's offer; false if that kind was offered
	// before (and its rule did not just expire).
	OfferRule(ctx context.Context, chatID, userID int64, kind string) (nod.Rule, bool, error)
	Rule(ctx context.Context, chatID int64, id string) (nod.Rule, error)
	// DecideRule and RevokeRule move a rule on with its audit row in one
	// transaction; nod.ErrDecided if it is not offered, or not active.
	DecideRule(ctx context.Context, chatID int64, id string, userID int64, accept bool) (nod.Rule, error)
	RevokeRule(ctx context.Context, chatID int64, id string, userID int64) (nod.Rule, error)
}
