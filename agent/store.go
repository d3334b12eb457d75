package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
)

// The storage the agent needs, as small interfaces grouped by what they
// do with it, each provided by one of storage's repositories
// (storage.Tasks, storage.Conversation, …). Every method is scoped to a chat: a record of another chat is
// nod.ErrNotFound. Reads are single statements; writes say what they
// write together.

// Tasks reads a chat's tasks.
type Tasks interface {
	// Task returns a task outside the trash; nod.ErrNotFound if there is
	// none (or it is in the trash).
	Task(ctx context.Context, chatID nod.ChatID, id nod.TaskID) (nod.Task, error)
	// TaskPage returns a page of the tasks outside the trash that f
	// matches, oldest first, with how many it matches in all; a malformed
	// cursor is nod.ErrInvalid.
	TaskPage(ctx context.Context, chatID nod.ChatID, f nod.TaskFilter, p nod.PageRequest) (nod.TaskPage, error)
	// TaskTitles returns the titles of those of ids that name the chat's
	// tasks, in the trash or not.
	TaskTitles(ctx context.Context, chatID nod.ChatID, ids []nod.TaskID) (map[nod.TaskID]string, error)
	// DoneTimes returns the times of t's repeating reminder from since
	// on that the person marked done and did not undo, oldest first.
	DoneTimes(ctx context.Context, chatID nod.ChatID, t nod.Task, since time.Time) ([]time.Time, error)
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
	// Opening reads what a turn starts from together: its history, the
	// events after it, and what the system prompt lists.
	Opening(ctx context.Context, r nod.OpeningRequest) (nod.Opening, error)
	// SaveTurn writes a turn's messages, audit rows and change set in one
	// transaction; the set gets its id and item numbers.
	SaveTurn(ctx context.Context, t nod.TurnRecord) error
}

// Proposals reads the change sets waiting for the person and revises
// their items.
type Proposals interface {
	// ChangeSet returns a set with its items; nod.ErrNotFound if the chat
	// has none of that id.
	ChangeSet(ctx context.Context, chatID nod.ChatID, id nod.SetID) (nod.ChangeSet, error)
	// OpenChangeSets returns the topic's pending and partially resolved
	// sets, newest first.
	OpenChangeSets(ctx context.Context, at nod.Topic) ([]nod.ChangeSet, error)
	// ReviseItem replaces a pending item under its number and audits the
	// old version as superseded, in one transaction; nod.ErrDecided if the
	// item is no longer pending.
	ReviseItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, it nod.ChangeItem) (nod.ChangeSet, error)
}

// Memory is what the person decided on proposals before: what the prompt
// recalls and what new proposals are checked against.
type Memory interface {
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

// Deps are what an Agent works with, each a small interface of its own:
// storage's repositories provide the storage ones, confidence.Classifier
// the classifier and the confirmation service the answers.
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
	// Cities finds the place a city's name given to set_chat_timezone
	// means (place.Finder.FindCity); nil: only IANA names are taken.
	Cities Cities
	// External offers the tools of the operator's MCP servers and calls
	// them, and Calls claims each call before it is sent and records its
	// outcome (docs/design.md §16); with either nil, the agent offers none.
	External External
	Calls    Calls
}

// Cities finds places by name, offline, with the zone at each.
type Cities interface {
	FindCity(name string) (nod.CityMatch, error)
}

// External is the operator's MCP servers (mcpclient.Hub).
type External interface {
	// Tools lists the tools of the servers connected now, by name.
	Tools() []nod.ExternalTool
	// Unavailable names the configured servers not connected now.
	Unavailable() []string
	// Call calls a tool; its result is bounded. An error means it
	// returned no result: it may not have been sent at all (the server
	// is down), or it was and its answer was lost.
	Call(ctx context.Context, name nod.Tool, args json.RawMessage) (nod.ExternalResult, error)
}

// Calls claims external calls and records their outcomes
// (storage.Calls).
type Calls interface {
	// Claim records a call as claimed, with the report of its outcome
	// owed, before it is sent; it sets the call's ID.
	Claim(ctx context.Context, c *nod.ExternalCall) error
	// Finish records a claimed call's outcome with its audit row.
	Finish(ctx context.Context, c *nod.ExternalCall, audit nod.AuditEntry) error
}

// Zones sets a chat's time zone.
type Zones interface {
	// SetTimeZoneUntil sets the chat's zone and records the change, with
	// its audit row under tool, for its Undo; in one transaction. The
	// reminders of the tasks in keep stay where they are.
	// At stay.Until, unless zero, the chat goes back to the zone it had,
	// or to stay.Back.
	SetTimeZoneUntil(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string, def *time.Location, tool nod.Tool, keep []nod.TaskID, stay nod.Stay) (nod.ZoneChange, error)
	// ProposeZone records a zone change that waits for the person's tap,
	// with its audit row, and stay as SetTimeZoneUntil takes it.
	ProposeZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string, stay nod.Stay) (nod.ZoneChange, error)
	// AskedZone records that the agent was told to ask where the person
	// is, and reports whether this was the first time.
	AskedZone(ctx context.Context, chatID nod.ChatID) (bool, error)
	// KeepLocal records, on a proposed zone change, the reminders read
	// in its zone, by task, at the moments their calls set: accepting it
	// leaves each there while it still is.
	KeepLocal(ctx context.Context, chatID nod.ChatID, id string, kept map[nod.TaskID][]time.Time) error
}
