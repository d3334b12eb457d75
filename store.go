package nod

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// TaskFilter narrows a task listing.
type TaskFilter struct {
	Query  string // case-insensitive substring of title or description
	Status Status // empty: any
	Label  string // a label the task carries, case-insensitive; empty: any
}

// Match reports whether t passes the filter.
func (f TaskFilter) Match(t Task) bool {
	if f.Status != "" && t.Status != f.Status {
		return false
	}
	if l := FoldLabel(f.Label); l != "" && !slices.ContainsFunc(t.Labels, func(have string) bool { return FoldLabel(have) == l }) {
		return false
	}
	q := strings.ToLower(strings.TrimSpace(f.Query))
	return q == "" || strings.Contains(strings.ToLower(t.Title), q) || strings.Contains(strings.ToLower(t.Description), q)
}

// Listing limits: a page of list_tasks holds DefaultPage tasks unless the
// agent asks for fewer or more, and never more than MaxPage.
const (
	DefaultPage = 50
	MaxPage     = 200
)

// PageRequest says which page of a listing to read: the Limit tasks after
// cursor After ("" from the first task), or, when Before is set, the
// Limit tasks before cursor Before.
type PageRequest struct {
	After, Before string
	Limit         int
}

// TaskPage is part of a listing of a chat's tasks, in listing order (the
// order tasks were created in) unless its reader says otherwise.
type TaskPage struct {
	Tasks []Task
	// Cursors[i] marks Tasks[i]'s place in the listing: a page read after
	// it starts with the task that follows. Cursors are opaque; they
	// compare with CompareCursors as their tasks are listed.
	Cursors []string
	// Total counts every task the listing holds, on every page.
	Total int
	// Earlier and Later say whether the listing holds tasks before the
	// page's first task and after its last, as far as the read could
	// tell: a page read after a cursor has tasks before it, and one read
	// before a cursor has tasks after it, though they may have gone to
	// the trash since.
	Earlier, Later bool
	// Done counts, for a TaskList of open tasks, the done and rejected
	// tasks the same label holds (what the list's "Done" page shows).
	Done int
}

// CompareCursors orders two cursors as their tasks are listed: cursors
// are digits of one base, written without leading zeros.
func CompareCursors(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// Mutate computes a task's new state inside the transaction that stores
// it. current is the task as stored now, or nil when the edit creates a
// task. An error aborts the whole transaction.
type Mutate func(current *Task) (Task, error)

// Edit is one change to apply to a task and the records to keep of it.
type Edit struct {
	// Topic is where the change is made: its undo entry, its receipt and a
	// reminder it sets belong there.
	Topic
	UserID  UserID
	TaskID  TaskID // empty: Mutate creates a task
	Tool    Tool
	Args    json.RawMessage
	Summary string
	Mutate  Mutate
	// Auto marks a change applied without the person's tap (an explicit
	// request, trusted mode).
	Auto bool
	// Trashed lets the edit act on a task in the trash (restoring it).
	Trashed bool
	// Audit carries what the caller knows (outcome, user_confirmed, verdict,
	// reason, duration); storage fills in the rest.
	Audit AuditEntry
	// Receipt, if set, is owed to the person for this change: it is
	// recorded with the change (its UndoID filled in) and delivered even if
	// the process stops before the turn ends.
	Receipt *Receipt
}

// Applied is the outcome of an applied edit.
type Applied struct {
	Before *Task // nil: the task was created
	After  Task
	Undo   UndoEntry // holds the Change that was written
	// Overtook are the waiting proposals the change closed: they would
	// have set what it set (docs/design.md §4).
	Overtook []ItemRef
}

// Decide computes, inside the transaction that applies it, the new state
// of the task of a change item being confirmed. current is the task as
// stored now (nil for create_task). A *Refusal keeps the item from being
// applied; any other error aborts the whole transaction.
type Decide func(it ChangeItem, current *Task) (Task, error)

// Refusal is why a confirmed item was not applied. Status ItemPending
// keeps the item open with the note (it waits for "apply anyway" or
// "skip"); ItemStale and ItemFailed close it.
type Refusal struct {
	Status ItemStatus
	Note   Note
}

func (r *Refusal) Error() string { return "not applied: " + string(r.Status) + " " + r.Note.Key }

// TurnRecord is what one agent turn leaves behind, written at once so that
// a crash mid-turn leaves no half of it.
type TurnRecord struct {
	Topic  // where the turn runs; its messages and set are the topic's
	UserID UserID
	// Turn names the turn the record belongs to; a turn is saved in parts
	// as it goes, so that a crash keeps what the person said. The part
	// that Opens it owes the person an answer to Said; the part that
	// Closes it settles that.
	Turn          string
	Opens, Closes bool
	// Update, if not 0, is recorded as handled first; if it was handled
	// before, nothing is saved and the save fails with ErrHandled.
	Update   int64
	Said     string
	Messages []ChatMessage
	Audit    []AuditEntry
	Set      *ChangeSet // nil: nothing was proposed
	// Deletions join the end of the person's line of typed questions, in
	// call order; saving asks none of them (see PendingDeletion).
	Deletions []PendingDeletion
	// Readings are decisions nod read from the person's words but could
	// not verify: each waits for the person's tap to apply.
	Readings []Reading
	// Supersede closes these pending items of older sets: the turn proposes
	// another value for the same field.
	Supersede []ItemRef
	// Withdraw closes these pending items: the person edited the message
	// they were proposed from.
	Withdraw []ItemRef
}

// ItemRef names item N of change set SetID.
type ItemRef struct {
	SetID SetID
	N     int
}

// PendingDeletion is a delete_task waiting for the person who asked to
// type the task's title. Each person's deletions wait in line and are
// asked one at a time, in the order the agent called them: the next is
// asked once the one before is answered, cancelled or expired.
type PendingDeletion struct {
	ID DeletionID // given when it joins the line
	// Topic is where the deletion was asked for: its question is asked
	// there, and answered only there.
	Topic
	UserID    UserID
	TaskID    TaskID
	Title     string
	Checklist int // items that go with the task
	// Wait is how long the question waits for the title once asked.
	Wait time.Duration
	// ExpiresAt is when the asked question stops waiting; zero while the
	// deletion waits in line.
	ExpiresAt time.Time
	MessageID int // the prompt that asks for the title; 0 until sent
}

// Asked reports whether the deletion's question has been asked.
func (d PendingDeletion) Asked() bool { return !d.ExpiresAt.IsZero() }

// DeletionStep is what moving a person's line of deletions on did: the
// questions whose time ran out, and the one asked now, if any.
type DeletionStep struct {
	Expired []PendingDeletion
	Ask     *PendingDeletion
	Behind  int // how many wait in line after Ask
}

// Reading is nod's reading of a decision the person stated in words on a
// change set ("3 bis 5 passt, 7 auch"), shown with one button to accept
// it. It decides nothing until the person who said it taps it, once.
//
// A reading nod makes itself of a whole answer (docs/design.md §3.4 rule
// 2) is decided at once, with the person's Words kept beside the
// decisions, for the agent to see what was read.
type Reading struct {
	ID      string
	ChatID  ChatID
	UserID  UserID
	SetID   SetID
	Confirm []int
	Reject  []int
	Reason  string
	Words   string
	At      time.Time
}
