package nod

import (
	"context"
	"time"
)

// TurnRequest is one turn's input: a message of the person's, or a
// /review.
type TurnRequest struct {
	// Topic is where the turn runs: its history, its change sets and its
	// undo are the topic's.
	Topic
	UserID UserID
	Text   string
	// Speaker names the person in a group ("Alice (1001)"), where every
	// line of the conversation says who spoke; empty in a private chat.
	Speaker string
	// Group marks a turn in a group chat, also one with no speaker (a
	// review): what is the whole group's, such as its time zone, is not
	// one member's to set.
	Group bool
	// ReplyTo says what the message replies to, if it replies to one:
	// "nod's message “…”", shortened.
	ReplyTo string
	// MsgID is the person's Telegram message; Forwarded, EditOf and Edits
	// say whose words a forwarded one carries and what an edit replaces,
	// as ChatMessage has them.
	MsgID     int
	Forwarded string
	EditOf    int
	Edits     string
	// Review makes a proactive turn: the agent looks over the tasks with no
	// request of the person's, and everything it proposes needs confirmation.
	Review bool
	// Daily marks a review nod started itself at the time the person set
	// with /daily: nobody sent anything.
	Daily bool
	// Resume makes the turn of a command that may answer the agent's
	// question (/tz, where it asked where the person is): it runs only
	// while the conversation ends with the agent asking this person
	// something, and otherwise ends with ErrNotAsked, nothing written.
	Resume bool
	// Revise, if set, is the pending item the person's reply revises.
	Revise *ItemRef
	// ReplySet is the change set whose message the person's message
	// replies to, if it does.
	ReplySet SetID
	// Lang is the language nod writes to the chat in, for the agent's own
	// replies.
	Lang string
	// Settings are the chat's settings as the caller read them for this
	// update; nil: the turn reads them.
	Settings *ChatSettings
	// SettingsKept says Settings are a reading the process kept rather
	// than read for this update: the turn's first write checks them, and
	// when the chat's moved since, the turn ends with ErrSettingsMoved
	// having written nothing, for the caller to route the message again.
	SettingsKept bool
	// More, if set, returns the person's messages that arrived since the
	// turn last asked, in order, for the turn to take in before its next
	// step. Once it returns none, the turn takes no more: later messages
	// start a turn of their own.
	More func(ctx context.Context) []ChatMessage
	// Progress, if set, hears what the turn applied as soon as a step's
	// calls are decided, before the model is asked again, so that the
	// receipts go out while it writes on. Each call carries only what no
	// call before it did; the result still holds everything.
	Progress func(ctx context.Context, p TurnProgress)
	// Update, if not 0, is the Telegram update the turn answers, recorded
	// as handled in the write that keeps the person's words: a redelivery
	// finds it there, and the turn ends with ErrHandled before the
	// model is asked.
	Update int64
	// Opened, if set, hears that the turn's opening was saved, just before
	// the model is first asked: "typing…" goes out then, never for a
	// redelivery.
	Opened func(ctx context.Context)
	// MayChangeChat, asked only when a call would change what is the
	// whole chat's (its time zone), reports whether the turn's person may:
	// in a group its owner and administrators, as Telegram says then. Nil
	// in a group: nobody may.
	MayChangeChat func(ctx context.Context) bool
}

// TurnProgress is what a turn applied since it last reported: what the
// person can be told before the model's next step.
type TurnProgress struct {
	Receipts []Receipt // changes applied at once, in order
	Notices  []Note
	// Zone is the chat's time zone change applied since, if any, and
	// ZoneQuote the person's words that asked for it.
	Zone      *ZoneChange
	ZoneQuote string
	// ZoneOffer is the zone the turn proposed so far, if any: as in
	// TurnResult, the turn reads dates and times in it.
	ZoneOffer *ZoneChange
}

// InGroup reports whether the turn is in a group chat: one with a
// speaker, or a review marked Group.
func (r TurnRequest) InGroup() bool { return r.Group || r.Speaker != "" }

// TurnResult is what a turn produced for the person.
type TurnResult struct {
	Receipts []Receipt  // changes applied at once
	Notices  []Note     // what needed no change, or was left as the person set it
	Text     string     // the agent's final reply; may be empty
	Set      *ChangeSet // proposals to show; nil if none
	// Deletions each wait for the person to type a task's title to
	// delete it; they are asked one at a time, in this order.
	Deletions []PendingDeletion
	// Superseded are the older sets whose items this turn replaced; their
	// messages need refreshing.
	Superseded []SetID
	// Revised is the set whose item the turn revised in place, if any.
	Revised *ChangeSet
	// Answered are the sets the turn decided items of, in the person's
	// words; Readings wait for the person's tap.
	Answered []SetID
	Readings []Reading
	// Zone is the chat's time zone change the turn applied, if any, and
	// ZoneQuote the person's words that asked for it.
	Zone      *ZoneChange
	ZoneQuote string
	// ZoneOffer is a zone change the turn proposed: it waits for a tap.
	ZoneOffer *ZoneChange
	// RuleOffer is a learned rule the person's answer in words earned, to
	// offer as a tap's would.
	RuleOffer      *Rule
	StepsExhausted bool // the turn was cut at MaxSteps
	Steps          int
	// Turn names the turn once it started, also when it failed: the
	// person is owed an answer until told (nod.OwedAnswer).
	Turn string
}

// Undone is the outcome of an undo.
type Undone struct {
	Redo UndoEntry // undoes the undo
	// Redone is set when the entry undone was itself an undo: the change
	// is applied again, and Redo takes it back once more.
	Redone bool
	// Breaker is set when this undo tripped the circuit breaker: the chat
	// now asks for everything, and Previous is the mode to go back to.
	Breaker  bool
	Previous Mode
	// Reminder is what became of a reminder the undo left at a time that
	// has passed.
	Reminder ReminderBack
	// Held is the time of the reminder ahead of a task the undo moved
	// into the trash: it does not go off while the task is there.
	Held time.Time
	// Resumed is the time of the reminder ahead of a task the undo
	// brought back from the trash: it goes off at its time again.
	Resumed time.Time
}

// UndoneAll is what an Undo all of a receipt of many changes did: each
// change it took back, and whether the circuit breaker tripped (Breaker,
// Previous as in Undone).
type UndoneAll struct {
	Undone   []Undone
	Breaker  bool
	Previous Mode
}

// HeldReminder is the time of t's reminder that its move into the trash
// holds back, or zero: one ahead of now, which goes off at its time only
// if the task is restored by then.
func HeldReminder(t Task, now time.Time) time.Time {
	if t.DeletedAt == nil {
		return time.Time{}
	}
	return ReminderAhead(t, now)
}

// ReminderAhead is the time of t's reminder if it is after now, or zero.
func ReminderAhead(t Task, now time.Time) time.Time {
	if t.RemindAt == nil || !t.RemindAt.After(now) {
		return time.Time{}
	}
	return *t.RemindAt
}

// ReminderBack is what became of a reminder that an undo put back at a
// time that has passed, or left there on a task it reopened or restored
// (docs/design.md §10): one that went out at that time (Sent) does not
// go out again; one that never did goes out now.
type ReminderBack struct {
	At   time.Time // zero: the undo left no such reminder
	Sent bool
}
