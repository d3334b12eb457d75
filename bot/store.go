package bot

import (
	"context"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/sweep"
)

// Updates records the updates handled, so that a redelivered one is handled once.
type Updates interface {
	// MarkUpdate records an update id; false means it was handled before.
	MarkUpdate(ctx context.Context, id int64) (bool, error)
	LastUpdateID(ctx context.Context) (int64, error)
}

// Tasks reads a chat's tasks and its trash.
type Tasks interface {
	Task(ctx context.Context, chatID nod.ChatID, id nod.TaskID) (nod.Task, error)
	// SameTitle reports whether another live task has task id's title.
	SameTitle(ctx context.Context, chatID nod.ChatID, id nod.TaskID, title string) (bool, error)
	// ListPage returns a page of /tasks (open tasks by what needs the
	// person, or done ones), with how many each list holds.
	ListPage(ctx context.Context, chatID nod.ChatID, l nod.TaskList, p nod.PageRequest) (nod.TaskPage, error)
	// TodayList returns what /today shows of the local day today that
	// runs from from to to.
	TodayList(ctx context.Context, chatID nod.ChatID, today string, from, to time.Time, limit int) (nod.TodayList, error)
	// TaskTitles returns the titles of those of ids that name the chat's
	// tasks, in the trash or not.
	TaskTitles(ctx context.Context, chatID nod.ChatID, ids []nod.TaskID) (map[nod.TaskID]string, error)
	Trash(ctx context.Context, chatID nod.ChatID) ([]nod.Task, error)
}

// AuditLog reads a chat's audit log (/audit).
type AuditLog interface {
	// Audit returns the latest entries, newest first.
	Audit(ctx context.Context, chatID nod.ChatID, limit int) ([]nod.AuditEntry, error)
}

// Sets reads change sets.
type Sets interface {
	ChangeSet(ctx context.Context, chatID nod.ChatID, id nod.SetID) (nod.ChangeSet, error)
	ChangeSetByMessage(ctx context.Context, chatID nod.ChatID, msgID int) (nod.ChangeSet, error)
	ChangeSetByUndo(ctx context.Context, chatID nod.ChatID, undoID nod.UndoID) (nod.ChangeSet, error)
	// OpenChangeSets returns the topic's open sets, newest first.
	OpenChangeSets(ctx context.Context, at nod.Topic) ([]nod.ChangeSet, error)
}

// Undos reads the undo entries of applied changes.
type Undos interface {
	UndoEntry(ctx context.Context, chatID nod.ChatID, id nod.UndoID) (nod.UndoEntry, error)
	// LatestUndo returns userID's newest change in the topic still
	// undoable.
	LatestUndo(ctx context.Context, at nod.Topic, userID nod.UserID) (nod.UndoEntry, error)
}

// Chats keeps a chat's settings (mode, language).
type Chats interface {
	ChatSettings(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.ChatSettings, error)
	// KeptSettings returns the settings as the process last read them,
	// where a read costs a round trip; false where it keeps none. A turn
	// routed by them checks them (nod.TurnRequest.SettingsKept).
	KeptSettings(chatID nod.ChatID, userID nod.UserID) (nod.ChatSettings, bool)
	// PressSettings is ChatSettings of no member, read together with
	// whether data was recorded with message msgID and whether any
	// button of that message was.
	PressSettings(ctx context.Context, chatID nod.ChatID, msgID int, data string) (s nod.ChatSettings, sent, recorded bool, err error)
	SetMode(ctx context.Context, chatID nod.ChatID, userID nod.UserID, m nod.Mode) error
	// SetLanguage sets the chat's chosen language; empty follows Telegram.
	SetLanguage(ctx context.Context, chatID nod.ChatID, code string) error
	// SeeLanguage remembers the language_code Telegram reported in a chat.
	SeeLanguage(ctx context.Context, chatID nod.ChatID, code string) error
}

// Rulebook reads a chat's learned rules.
type Rulebook interface {
	// Rules returns the chat's learned rules in force at now.
	Rules(ctx context.Context, chatID nod.ChatID, now time.Time) ([]nod.Rule, error)
	// Streaks returns how far the person has come toward a rule of each
	// kind nod may still offer them, the longest first.
	Streaks(ctx context.Context, chatID nod.ChatID, userID nod.UserID, now time.Time) ([]nod.Streak, error)
}

// Conversation finds what the person said in an earlier message, for an
// edit of that message.
type Conversation interface {
	// PersonMessage returns the latest conversation line that holds the
	// person's message msgID, and whether there is one.
	PersonMessage(ctx context.Context, chatID nod.ChatID, msgID int) (nod.ChatMessage, bool, error)
}

// Messages remembers which Telegram message shows what, to edit it later.
type Messages interface {
	SetMessageID(ctx context.Context, setID nod.SetID, messageID int) error
	// SetCardMessage and CardMessages remember the latest card of a task.
	SetCardMessage(ctx context.Context, chatID nod.ChatID, taskID nod.TaskID, msgID int) error
	CardMessages(ctx context.Context, chatID nod.ChatID, tasks []nod.TaskID) (map[nod.TaskID]int, error)
	SetRuleMessage(ctx context.Context, id nod.RuleID, messageID int) error
	// SetDeletionMessage records the message that asks a deletion's
	// question; the question waits its full time from then.
	SetDeletionMessage(ctx context.Context, chatID nod.ChatID, id nod.DeletionID, msgID int) error
	// SetForgetMessage records the prompt of userID's /forget.
	SetForgetMessage(ctx context.Context, userID nod.UserID, msgID int) error
}

// Buttons remembers which callback data each message carries, sent with
// it or edited into it: a press counts only on a message that carried
// its data, and a tap's message is found again by the Undo it showed.
type Buttons interface {
	// BindButtons records which callback data a message carries.
	BindButtons(ctx context.Context, chatID nod.ChatID, msgID int, data []string) error
	// ButtonMessages returns the messages recorded with data, newest
	// first; MessageButtons the data recorded with message msgID.
	ButtonMessages(ctx context.Context, chatID nod.ChatID, data string) ([]int, error)
	MessageButtons(ctx context.Context, chatID nod.ChatID, msgID int) ([]string, error)
	// NumberedButtons returns the chat's buttons whose data is data or
	// data numbered (an Undo n of a receipt of several), newest first.
	NumberedButtons(ctx context.Context, chatID nod.ChatID, data string) ([]nod.SentButton, error)
}

// Deletions reads a deletion owed its question, to show it.
type Deletions interface {
	// Deletion returns a deletion still in its line; nod.ErrNotFound once
	// it has left.
	Deletion(ctx context.Context, chatID nod.ChatID, id nod.DeletionID) (nod.PendingDeletion, error)
}

// Answers decides what the person's words answer, in the order of
// docs/design.md §3.4 (confirm.Service); the bot says what happened.
type Answers interface {
	// AnswerDeletion answers the person's waiting deletion in topic at;
	// AskDeletion moves their line of deletions on.
	AnswerDeletion(ctx context.Context, at nod.Topic, userID nod.UserID, text string, spoken bool) (nod.DeletionAnswer, error)
	AskDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.DeletionStep, error)
	// AnswerInWords decides a yes/no read whole, on the set of message
	// replyTo or the topic's newest; AcceptReading decides a reading the
	// person tapped, once.
	AnswerInWords(ctx context.Context, at nod.Topic, userID nod.UserID, replyTo int, text string) (nod.WordsAnswer, error)
	AcceptReading(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string) (nod.WordsAnswer, error)
	// Reason stores a reply as a rejection's reason; Revision is the
	// pending item a reply revises, nil if none.
	Reason(ctx context.Context, chatID nod.ChatID, userID nod.UserID, replyTo int, text string) (nod.ReasonOutcome, error)
	Revision(ctx context.Context, chatID nod.ChatID, userID nod.UserID, replyTo int, text string) *nod.ItemRef
	// AskForget records the person's /forget in their private chat and
	// counts what it would delete; AnswerForget answers it with their
	// next message there (docs/design.md §6.1).
	AskForget(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PersonData, nod.ForgetRequest, error)
	AnswerForget(ctx context.Context, chatID nod.ChatID, userID nod.UserID, text string) (nod.ForgetAnswer, error)
}

// Keeper keeps a change set open for longer: the Keep button.
type Keeper interface {
	// KeepSet gives an open set another TTL, for a person who may decide
	// it; nod.ErrForbidden if they may not, nod.ErrExpired if it is not
	// open.
	KeepSet(ctx context.Context, chatID nod.ChatID, id nod.SetID, userID nod.UserID) (nod.ChangeSet, error)
}

// Outbox settles the messages owed for changes once they are delivered.
type Outbox interface {
	// Delivered marks owed messages as sent.
	Delivered(ctx context.Context, chatID nod.ChatID, kind nod.OwedKind, refs ...string) error
	// OwedRefreshes lists the chat's sets whose messages are owed an edit.
	OwedRefreshes(ctx context.Context, chatID nod.ChatID) ([]nod.SetID, error)
	// RefreshShown marks the set's owed refreshes delivered if the set is
	// still decided as shown, and reports whether it did.
	RefreshShown(ctx context.Context, shown nod.ChangeSet) (bool, error)
	// Receipts returns the kept receipts of the changes ids name, in that
	// order, leaving out a change that has none.
	Receipts(ctx context.Context, chatID nod.ChatID, ids []nod.UndoID) ([]nod.Receipt, error)
	// Interrupted records, for the agent's next turn in topic at, that nod
	// stopped before answering said and is telling the person so, once per
	// owed answer ref.
	Interrupted(ctx context.Context, at nod.Topic, said, ref string) error
}

// Sweeper decides what happens on nod's own clock (sweep.Sweeper); the
// bot shows and sends what it reports, and settles what it sent.
type Sweeper interface {
	// TakeOwed takes what the outbox owes, grouped for delivery; Gone
	// settles an owed message whose record could not be read, and
	// Deletion says whether an owed deletion's question is still shown.
	TakeOwed(ctx context.Context, grace time.Duration) sweep.Owed
	Gone(ctx context.Context, o nod.Owed, err error)
	Deletion(ctx context.Context, o nod.Owed, d nod.PendingDeletion, err error) bool
	// Schedule claims the reminders and reviews due and hands each to
	// deliver; Reminder and Review say whether a claimed one still goes
	// out, settling it when not.
	Schedule(ctx context.Context, now time.Time, deliver func(context.Context, nod.Owed))
	Reminder(ctx context.Context, o nod.Owed) (nod.Task, bool)
	Review(ctx context.Context, o nod.Owed, settings *nod.ChatSettings) bool
	// Run reports the sets expired and warned and the deletions due;
	// Tidy then purges and prunes what is old.
	Run(ctx context.Context, now time.Time) sweep.Report
	Tidy(ctx context.Context, now time.Time)
}

// Decider decides a change set's items for a person; see confirm.Service for the errors.
type Decider interface {
	Confirm(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error)
	Reject(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error)
	ConfirmAll(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID) (nod.Decided, error)
	ConfirmSome(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, ns []int) (nod.Decided, error)
	RejectAll(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID) (nod.Decided, error)
	// RunCalls sends the external calls a tap's confirmation claimed,
	// each once, and fills in their outcomes.
	RunCalls(ctx context.Context, d *nod.Decided)
}

// Mender settles items that could not simply apply: stale, failed or expired ones.
type Mender interface {
	ApplyAnyway(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error)
	Skip(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error)
	Retry(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID, n int) (nod.Decided, error)
	Repropose(ctx context.Context, chatID nod.ChatID, userID nod.UserID, setID nod.SetID) (*nod.ChangeSet, int, error)
}

// Changer makes the person's own changes: undo, a tick on a task card, a
// restore, a deletion kept by its ✗.
type Changer interface {
	Undo(ctx context.Context, chatID nod.ChatID, userID nod.UserID, undoID nod.UndoID, force bool) (nod.Undone, error)
	// UndoAll undoes the changes of a receipt of many in one transaction;
	// those undone already are left out.
	UndoAll(ctx context.Context, chatID nod.ChatID, userID nod.UserID, ids []nod.UndoID) (nod.UndoneAll, error)
	// Toggle and Restore make the change in topic at, where the person
	// tapped.
	Toggle(ctx context.Context, at nod.Topic, userID nod.UserID, itemID nod.ItemID, want int) (nod.Applied, error)
	Restore(ctx context.Context, at nod.Topic, userID nod.UserID, taskID nod.TaskID) (nod.Applied, error)
	// KeepDeletion cancels an asked deletion from a tap on its question.
	KeepDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID, msgID int, id nod.DeletionID, line bool) (nod.DeletionAnswer, error)
	// Chain follows undo entry u's chain of reverts back to the change it
	// started from; odd says taking u back would apply that change again.
	Chain(ctx context.Context, chatID nod.ChatID, u nod.UndoEntry) (root nod.UndoEntry, odd bool)
}

// RuleDecider answers a learned rule's offer and revokes rules.
type RuleDecider interface {
	DecideRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id nod.RuleID, accept bool) (nod.Rule, error)
	RevokeRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id nod.RuleID) (nod.Rule, error)
}

// Days keeps the chat's place in the day: its time zone and its daily
// review.
type Days interface {
	// SetTimeZone sets the chat's zone (empty: the default def) and
	// records the change for its Undo; UndoZone puts the zone before it
	// back (see storage.Schedule.UndoZone for the errors).
	SetTimeZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zone string, def *time.Location, tool nod.Tool, keep []nod.TaskID) (nod.ZoneChange, error)
	UndoZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string, def *time.Location) (nod.ZoneChange, error)
	// AskZones records a proposal for each zone of the places a name
	// given to /tz may mean, for the person to choose one (DecideZone).
	AskZones(ctx context.Context, chatID nod.ChatID, userID nod.UserID, zones []string) ([]nod.ZoneChange, error)
	// DecideZone sets or declines a zone the agent proposed, once.
	DecideZone(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string, accept bool, def *time.Location) (nod.ZoneChange, error)
	// SetDaily turns the daily review on at a local HH:MM, or off (""),
	// delivered to topic at.
	SetDaily(ctx context.Context, at nod.Topic, userID nod.UserID, hhmm string, quiet bool, def *time.Location) error
}

// Reminders makes the changes a reminder's buttons ask for, as the
// person's own: applied at once, audited, undoable in the reminder's topic.
type Reminders interface {
	// MarkDone sets the task's status to DONE; nod.ErrDecided if it is.
	MarkDone(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, zone *time.Location) (nod.Applied, error)
	// Remind sets the task's reminder to at.
	Remind(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, at time.Time) (nod.Applied, error)
	// CardDone, CardSnooze and Reopen are a task card's buttons: each
	// applies only to the task as the card showed it (its reminder at
	// shown, zero for none), else nod.ErrDecided.
	CardDone(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, zone *time.Location, shown time.Time) (nod.Applied, error)
	CardSnooze(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID, at, shown time.Time) (nod.Applied, error)
	Reopen(ctx context.Context, where nod.Topic, userID nod.UserID, taskID nod.TaskID) (nod.Applied, error)
}

// Places maps a shared location to its time zone, offline; sea is true
// for a point where no country's time applies. FindCity finds the places
// a name given to /tz means (place.Finder.FindCity); CityByID is one of
// them again, for a tap on a button that chose it.
type Places interface {
	Zone(lat, lng float64) (zone string, sea bool, err error)
	FindCity(name string) (nod.CityMatch, error)
	CityByID(id int) (c nod.City, found bool, err error)
}

// Transcriber turns a voice message into the person's words.
type Transcriber interface {
	// Transcribe returns what is said in audio, a file called name (its
	// extension names the format) of type mimeType; "" when nothing is
	// said. Any error means there is no transcript: the endpoint failed,
	// timed out or answered nonsense.
	Transcribe(ctx context.Context, audio []byte, name, mimeType string) (string, error)
}

// People keeps the names a group's members go by, so that what nod says
// about a person names them.
type People interface {
	// SaveMember records the name userID goes by in chatID.
	SaveMember(ctx context.Context, chatID nod.ChatID, userID nod.UserID, name string) error
	// MemberName is that name, "" if never seen.
	MemberName(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (string, error)
}

// Exporter reads a person's data for /export and records that it went.
type Exporter interface {
	// Export reads what scope holds in one read-only transaction and
	// calls write with it while the read lasts (storage.Exports.Export):
	// the export's sequences must not be walked after write returns.
	Export(ctx context.Context, scope nod.ExportScope, write func(nod.Export) error) error
	// RecordExport appends the export's audit row (tool "export").
	RecordExport(ctx context.Context, a nod.AuditEntry) error
}

// Deps are what a Bot works with, each a small interface of its own:
// storage's repositories provide the reading and bookkeeping ones, the
// agent and confirm.Service the deciding ones, sweep.Sweeper the sweep.
type Deps struct {
	Updates      Updates
	Tasks        Tasks
	Audit        AuditLog
	Sets         Sets
	Undos        Undos
	Chats        Chats
	Rulebook     Rulebook
	Conversation Conversation
	Messages     Messages
	Buttons      Buttons
	Deletions    Deletions
	Answers      Answers
	Keeper       Keeper
	Outbox       Outbox
	Sweep        Sweeper
	Turner       Turner
	Decider      Decider
	Mender       Mender
	Changer      Changer
	Rules        RuleDecider
	Days         Days
	Reminders    Reminders
	Places       Places // nil: a shared location is not read
	People       People // nil: members' names are not kept
	// Transcriber hears voice messages and audio files; nil: they are
	// answered as messages nod cannot read.
	Transcriber Transcriber
	Exports     Exporter
	// Calls reads external calls for the reports of their outcomes; nil:
	// an owed report is dropped.
	Calls Calls
}

// Calls reads the external calls whose outcome a person is owed
// (storage.Calls).
type Calls interface {
	// Settle returns a call for the report of its outcome; a call still
	// claimed by a process that stopped is marked unknown first, never
	// to be sent again.
	Settle(ctx context.Context, chatID nod.ChatID, id string) (nod.ExternalCall, error)
}
