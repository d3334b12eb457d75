package agent

import (
	"context"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
)

// The storage the agent and its confirmation service need, as small
// interfaces grouped by what they do with it, each provided by one of
// storage's repositories (storage.Tasks, storage.ChangeSets, …). Every method is scoped to a chat: a record of another chat is
// nod.ErrNotFound. Reads are single statements; writes say what they
// write together.

// Tasks reads a chat's tasks.
type Tasks interface {
	// Task returns a task outside the trash; nod.ErrNotFound if there is
	// none (or it is in the trash).
	Task(ctx context.Context, chatID nod.ChatID, id string) (nod.Task, error)
	// TaskPage returns a page of the tasks outside the trash that f
	// matches, oldest first, with how many it matches in all; a malformed
	// cursor is nod.ErrInvalid.
	TaskPage(ctx context.Context, chatID nod.ChatID, f nod.TaskFilter, p nod.PageRequest) (nod.TaskPage, error)
	// FocusTasks returns up to limit tasks outside the trash that matter
	// most on day today (YYYY-MM-DD), most first, with how many tasks the
	// chat has; it reads no more however many that is.
	FocusTasks(ctx context.Context, chatID nod.ChatID, today string, limit int) (nod.TaskPage, error)
	// TaskTitles returns the titles of those of ids that name the chat's
	// tasks, in the trash or not.
	TaskTitles(ctx context.Context, chatID nod.ChatID, ids []string) (map[string]string, error)
	// ChecklistOwner returns the task holding checklist item itemID;
	// nod.ErrNotFound if no task of the chat holds it.
	ChecklistOwner(ctx context.Context, chatID nod.ChatID, itemID string) (nod.Task, error)
}

// Editor applies a change at once, outside any change set.
type Editor interface {
	// Apply applies an edit with its audit row and undo entry, in one
	// transaction. Errors wrap nod.ErrNotFound (no such task),
	// nod.ErrTrashed (the task is in the trash and the edit may not act
	// there) or are Mutate's own; then nothing was written.
	Apply(ctx context.Context, e nod.Edit) (nod.Applied, error)
}

// Settings reads the chat's settings a turn runs under.
type Settings interface {
	// ChatSettings returns the chat's settings with userID's mode and
	// circuit breaker; a chat never configured has the defaults.
	ChatSettings(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.ChatSettings, error)
}

// Conversation is what a turn starts from and what it leaves behind.
type Conversation interface {
	// History returns the topic's latest messages in window w, oldest
	// first.
	History(ctx context.Context, at nod.Topic, w nod.Window) ([]nod.ChatMessage, error)
	// Events returns what happened outside the topic's conversation after
	// since, oldest first.
	Events(ctx context.Context, at nod.Topic, since time.Time) ([]nod.Event, error)
	// SaveTurn writes a turn's messages, audit rows and change set in one
	// transaction; the set gets its id and item numbers.
	SaveTurn(ctx context.Context, t nod.TurnRecord) error
}

// Proposals reads the change sets waiting for the person and revises
// their items.
type Proposals interface {
	// ChangeSet returns a set with its items; nod.ErrNotFound if the chat
	// has none of that id.
	ChangeSet(ctx context.Context, chatID nod.ChatID, id string) (nod.ChangeSet, error)
	// OpenChangeSets returns the topic's pending and partially resolved
	// sets, newest first.
	OpenChangeSets(ctx context.Context, at nod.Topic) ([]nod.ChangeSet, error)
	// ReviseItem replaces a pending item under its number and audits the
	// old version as superseded, in one transaction; nod.ErrDecided if the
	// item is no longer pending.
	ReviseItem(ctx context.Context, chatID nod.ChatID, setID string, n int, userID nod.UserID, it nod.ChangeItem) (nod.ChangeSet, error)
}

// Memory is what the person decided on proposals before: what the prompt
// recalls and what new proposals are checked against.
type Memory interface {
	// RecentDecisions returns the latest decisions, newest first.
	RecentDecisions(ctx context.Context, chatID nod.ChatID, limit int) ([]nod.Decision, error)
	// RecentRejections returns rejections made at or after since.
	RecentRejections(ctx context.Context, chatID nod.ChatID, since time.Time) ([]nod.Rejection, error)
}

// Undone is what the person took back: new proposals are checked against
// it as against Memory.
type Undone interface {
	// UndoneSince returns the changes the person undid at or after since.
	UndoneSince(ctx context.Context, chatID nod.ChatID, since time.Time) ([]nod.UndoEntry, error)
}

// Rulebook reads the rules the chat learned, which new proposals follow.
type Rulebook interface {
	// Rules returns the chat's learned rules in force at now.
	Rules(ctx context.Context, chatID nod.ChatID, now time.Time) ([]nod.Rule, error)
}

// Decisions decides the items of change sets, each decision in a
// transaction of its own that authorizes the user and checks the set's
// expiry inside it.
type Decisions interface {
	// ChangeSet returns a set with its items; nod.ErrNotFound if the chat
	// has none of that id.
	ChangeSet(ctx context.Context, chatID nod.ChatID, id string) (nod.ChangeSet, error)
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
	ConfirmItems(ctx context.Context, chatID nod.ChatID, setID string, ns []int, userID nod.UserID, words string, decide nod.Decide) (nod.Confirmation, error)
	// RejectItem rejects a pending item with its decision and audit row in
	// one transaction; errors as ConfirmItems.
	RejectItem(ctx context.Context, chatID nod.ChatID, setID string, n int, userID nod.UserID) (nod.ChangeSet, error)
	// RejectItemBecause is RejectItem with the person's reason, and their
	// answer in words as ConfirmItems keeps it.
	RejectItemBecause(ctx context.Context, chatID nod.ChatID, setID string, n int, userID nod.UserID, reason, words string) (nod.ChangeSet, error)
	// FailItem closes a pending item as stale or failed with a note for the
	// person, audited as failed, in one transaction; errors as RejectItem.
	FailItem(ctx context.Context, chatID nod.ChatID, setID string, n int, userID nod.UserID, status nod.ItemStatus, note nod.Note) (nod.ChangeSet, error)
	// ReopenItem makes a failed item pending again and its set open, in
	// one transaction; nod.ErrExpired if the set's time is up, nod.ErrDecided
	// if the item is not failed.
	ReopenItem(ctx context.Context, chatID nod.ChatID, setID string, n int) (nod.ChangeSet, error)
	// Repropose closes an expired set's pending items and opens a new set
	// of items in one transaction; nod.ErrDecided if it was done before.
	Repropose(ctx context.Context, chatID nod.ChatID, oldID string, userID nod.UserID, items []nod.ChangeItem) (*nod.ChangeSet, error)
}

// Undos takes applied changes back and counts those the person took back.
type Undos interface {
	// UndoEntry returns an undo entry; nod.ErrNotFound if the chat has
	// none of that id.
	UndoEntry(ctx context.Context, chatID nod.ChatID, id string) (nod.UndoEntry, error)
	// Undo applies the inverse of an undo entry's change in one
	// transaction. Unless force is set it refuses with nod.ErrStale (a
	// nod.Conflict) when one of the change's own fields or items changed
	// since; other errors wrap nod.ErrNotFound, nod.ErrForbidden (another
	// person's change), nod.ErrDecided (already undone), nod.ErrExpired,
	// nod.ErrSent (its reminder went out since) or nod.ErrTrashed. The
	// result holds the Redo entry and what became of a reminder left in
	// the past.
	Undo(ctx context.Context, chatID nod.ChatID, id string, userID nod.UserID, force bool) (nod.Undone, error)
	// AutoUndosSince counts userID's auto-applied changes undone at or
	// after since.
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
	// KindDecisions returns a person's latest decisions on one kind of
	// change, newest first.
	KindDecisions(ctx context.Context, chatID nod.ChatID, userID nod.UserID, kind string, limit int) ([]nod.Decision, error)
	// OfferRule records a rule's offer in one transaction; false if that
	// kind was offered before (and its rule did not just expire).
	OfferRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, kind string) (nod.Rule, bool, error)
	// Rule returns a rule; nod.ErrNotFound if the chat has none of that id.
	Rule(ctx context.Context, chatID nod.ChatID, id string) (nod.Rule, error)
	// DecideRule accepts or declines an offered rule with its audit row in
	// one transaction; nod.ErrDecided if it is not offered.
	DecideRule(ctx context.Context, chatID nod.ChatID, id string, userID nod.UserID, accept bool) (nod.Rule, error)
	// RevokeRule ends an active rule with its audit row in one
	// transaction; nod.ErrDecided if it is not active.
	RevokeRule(ctx context.Context, chatID nod.ChatID, id string, userID nod.UserID) (nod.Rule, error)
}

// Deps are what an Agent works with, each a small interface of its own:
// storage's repositories provide the storage ones, confidence.Classifier
// the classifier and Confirmations the answers.
type Deps struct {
	Tasks        Tasks
	Editor       Editor
	Settings     Settings
	Conversation Conversation
	Proposals    Proposals
	Memory       Memory
	Undone       Undone
	Rulebook     Rulebook
	Classifier   Classifier
	// Answers passes on decisions the person stated in words
	// (answer_proposals), and Words reads those words as nod's own reader
	// does, so that a call never confirms what they refuse; with either
	// nil, the tool answers that it is unavailable.
	Answers Answerer
	Words   *answer.Reader
	// Zones sets the chat's time zone (set_chat_timezone); nil: the tool
	// never applies.
	Zones Zones
}

// Zones sets a chat's time zone.
type Zones interface {
	// SetTimeZone sets the chat's zone and records the change, with its
	// audit row under tool, for its Undo; in one transaction.
	SetTimeZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string, def *time.Location, tool nod.Tool) (nod.ZoneChange, error)
	// ProposeZone records a zone change that waits for the person's tap,
	// with its audit row.
	ProposeZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string) (nod.ZoneChange, error)
	// AskedZone records that the agent was told to ask where the person
	// is, and reports whether this was the first time.
	AskedZone(ctx context.Context, chatID nod.ChatID) (bool, error)
}

// ConfirmDeps are what Confirmations work with; storage's repositories
// provide them all.
type ConfirmDeps struct {
	Decisions Decisions
	Tasks     Tasks
	Editor    Editor
	Undos     Undos
	Breaker   Breaker
	Rules     Rules
}
