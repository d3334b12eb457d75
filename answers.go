package nod

// DeletionOutcome is what a person's message did to the deletion that
// waits for them to type its title (docs/design.md §3.4, rule 1).
type DeletionOutcome int

const (
	// DeletionNone: no question of theirs waits in the message's topic,
	// or another delivery of the message answered it; the message is read
	// as any other.
	DeletionNone DeletionOutcome = iota
	// DeletionExpired: its time ran out; the message is read as any other.
	DeletionExpired
	// DeletionAgain: a near miss of the title (a typo or two); the
	// question stays open.
	DeletionAgain
	// DeletionCancelled: anything but the title; the question ended, and
	// the rest of the person's line with it.
	DeletionCancelled
	// DeletionDeleted: the title; the question ended and the task went
	// to the trash.
	DeletionDeleted
)

// KeptInWords is the audited reason of a deletion cancelled by a
// message that was not the task's title: nod answers such a message
// itself ("Nothing was deleted: …"), which the agent is told, or it says
// so again.
const KeptInWords = "did not type the task's title"

// DeletionAnswer is what a message did to a waiting deletion.
type DeletionAnswer struct {
	Outcome  DeletionOutcome
	Deletion PendingDeletion // the question answered, unless DeletionNone
	// Bare is set when a cancelling message was a bare yes or no: it ends
	// there, and is not read again.
	Bare bool
	// Yes is set when a cancelling message said yes ("yes but keep the
	// coffee"): a yes is not the title, which nod says, as played the
	// person took it for one.
	Yes     bool
	Applied Applied // the deletion, when DeletionDeleted
	// Rest is the rest of the person's line, cancelled with it when
	// DeletionCancelled: they are not asked about these either.
	Rest []PendingDeletion
}

// Ended reports whether the question ended (answered, cancelled or
// expired): the person's next deletion is then asked.
func (a DeletionAnswer) Ended() bool {
	return a.Outcome == DeletionExpired || a.Outcome == DeletionCancelled || a.Outcome == DeletionDeleted
}

// WordsOutcome is what a yes/no in words did to the change set it is
// about (docs/design.md §3.4, rule 2).
type WordsOutcome int

const (
	// WordsNone: not an answer read whole, or no set it could be about;
	// the message is for the agent.
	WordsNone WordsOutcome = iota
	// WordsNothingLeft: the set it is about is no longer open.
	WordsNothingLeft
	// WordsUnknown: it names an item the set does not have (Unknown).
	WordsUnknown
	// WordsDecided: the items it names were decided (Decided, Rejected).
	WordsDecided
)

// WordsAnswer is what the person's words decided on a change set.
type WordsAnswer struct {
	Outcome WordsOutcome
	Set     ChangeSet // the set the words are about
	// Unknown is the first item number named that the set does not have.
	Unknown int
	// Reading is what was decided: nod's own reading, or the one the
	// person accepted.
	Reading  Reading
	Decided  Decided
	Rejected int // how many items were rejected
}

// ReasonOutcome is what a reply to a change set did as a rejection's
// reason (docs/design.md §3.4, rule 3).
type ReasonOutcome int

const (
	// ReasonNone: not a reason; the message is for the agent.
	ReasonNone ReasonOutcome = iota
	// ReasonTooLong: a reason over MaxReasonLen, not stored (a cut one
	// may say the opposite); the rejection still waits for one.
	ReasonTooLong
	// ReasonNoted: stored as the latest rejection's reason.
	ReasonNoted
)
