package nod

import "time"

// OwedKind is what a person is owed a message about.
type OwedKind string

// Messages owed because of a change.
const (
	// OwedReceipt: the receipt of a change applied without a tap (an
	// explicit request, a rule). Ref is its undo entry.
	OwedReceipt OwedKind = "receipt"
	// OwedSet: the message showing a new change set. Ref is the set.
	OwedSet OwedKind = "set"
	// OwedRefresh: the set's message, edited to show its items as decided
	// now. Ref is the set.
	OwedRefresh OwedKind = "refresh"
	// OwedUndone: the report of an undo, with its Redo. Ref is the redo's
	// undo entry.
	OwedUndone OwedKind = "undone"
	// OwedAnswer: an answer to the person's message, owed from the moment
	// a turn starts until it ends. Ref is the turn; Text what they said.
	// Still owed after a crash, it becomes a message saying nod stopped.
	OwedAnswer OwedKind = "answer"
	// OwedDeletion: the question that asks for a task's title, asked when
	// the deletion came first in its person's line. Ref is the deletion.
	OwedDeletion OwedKind = "deletion"
	// OwedReminder: a task's reminder fell due. Ref is the task's id.
	OwedReminder OwedKind = "reminder"
	// OwedDaily: the chat's daily review fell due. Ref is the local date
	// it is for.
	OwedDaily OwedKind = "daily"
	// OwedCall: the report of an external call's outcome, owed from the
	// moment the call is claimed. Ref is the call. Still owed after a
	// crash, it tells the person the outcome is unknown.
	OwedCall OwedKind = "call"
	// OwedZoneBack: a zone set for a while went back to the zone before
	// it. Ref is the zone change that took it back; Zone says what moved.
	OwedZoneBack OwedKind = "zone_back"
)

// Owed is a message nod owes a person because of a change. It is written
// in the transaction that makes the change, and marked delivered once the
// message went out, so that a change is reported even when nod stops in
// between: the next start delivers what is still owed.
type Owed struct {
	ID      string
	Topic   // where the message goes
	Kind    OwedKind
	Ref     string
	Receipt *Receipt    // for OwedReceipt
	Text    string      // for OwedAnswer
	Zone    *ZoneChange // for OwedZoneBack
	At      time.Time
	// Due is when a reminder or daily review was due: what it is late
	// against.
	Due time.Time
	// User, for a reminder or daily review, is who set it up: it goes out
	// only while they are allowed. 0: set before nod kept it.
	User UserID
	// Missed, for a repeating reminder that fires late, is how many of
	// its earlier times went by without one (nod was not running), the
	// first at MissedFrom: only the latest time goes out.
	Missed     int
	MissedFrom time.Time
	// DueZone, for a reminder due during a stay whose return was claimed
	// with it (nod was down at the stay's end), is the stay's zone: the
	// clock it was due in, which its message names, where the chat's
	// zone is home again when it goes out.
	DueZone string
}

// Receipt is one change applied without a tap (an explicit request,
// trusted mode, a rule): what a turn returns and what the outbox keeps
// until the person is told.
type Receipt struct {
	TaskTitle string
	Item      ChangeItem // what changed; UndoID names its undo entry
	Quote     string     // the person's words that asked for it
	Trusted   bool       // applied because the chat trusts the agent
	// Rule is the learned rule that applied it, if one did; the outbox
	// keeps its ID and reads it back.
	Rule *Rule
	// Call is the external call the person's words ran, for a receipt of
	// one (Item.Field FieldCall): it cannot be undone.
	Call *ExternalCall
}
