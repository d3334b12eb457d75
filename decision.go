package nod

import "time"

// Verdict is a person's decision on a change item.
type Verdict string

// Decision verdicts.
const (
	Confirmed Verdict = "confirmed"
	Rejected  Verdict = "rejected"
)

// Decision records one person's verdict on one change item. The chat's
// latest decisions are fed back to the agent.
type Decision struct {
	ID           string
	ChatID       ChatID
	SetID        SetID
	ChangeItemID string // the change item decided, not a checklist item (ItemID)
	N            int
	UserID       UserID
	Verdict      Verdict
	Reason       string
	Tool         Tool
	TaskID       TaskID // the task the item was about; empty for create_task
	Summary      string
	Kind         string // as KindOf names it
	At           time.Time
	Undone       bool // a confirmed item's change is undone now: taken back, not redone since
	Trashed      bool // the task the item was about is in the trash now
}

// MaxReasonLen bounds a reason, in characters: a rejection's, in the
// person's words or passed on by the agent, and the agent's for a
// checklist change. Reasons go into every prompt's decision history.
const MaxReasonLen = 500

// Rejection is a rejected change, as the agent checks new proposals
// against it.
type Rejection struct {
	Tool    Tool
	TaskID  TaskID
	UserID  UserID // who rejected it
	Args    []byte
	Summary string
	Reason  string
	At      time.Time
}

// Decided is the outcome of deciding change-set items: the set as it is
// now, what was applied, and where a run of confirmations stopped.
type Decided struct {
	Set     ChangeSet
	Applied map[int]Applied // by item number
	// Stopped is the item that was refused (its status and note say why),
	// after which no further item was tried; 0 if none was.
	Stopped int
	// Items are the items a run of confirmations was to decide, in order:
	// those named, or those pending when it began.
	Items []int
	// Offer is a learned rule these confirmations earned, to offer.
	Offer *Rule
	// Calls are the external calls the confirmations claimed, in order;
	// the confirmation service sends each once and fills in its outcome.
	Calls []ExternalCall
	// Cards are the messages of the latest cards of the tasks the
	// confirmations changed, by task, as their transaction read them;
	// nil when not read.
	Cards map[TaskID]int
	// Streaks are, for each kind of change (KindOf) these confirmations
	// made, the change sets in which the person confirmed that kind
	// since they last decided otherwise, these included, as their
	// transaction left them: what earns a rule (RuleStreak).
	Streaks map[string]int
}

// Stale is the number of the item that was not applied because its task
// changed since: it waits for Apply anyway or Skip. 0 if none.
func (d Decided) Stale() int {
	if it, ok := d.Set.Item(d.Stopped); ok && it.Status == ItemPending {
		return d.Stopped
	}
	return 0
}

// Failed is the number of the item a run of several confirmations stopped
// at, closed as stale or failed; 0 if none. A single item's refusal is
// told by its status.
func (d Decided) Failed() int {
	if it, ok := d.Set.Item(d.Stopped); ok && it.Status != ItemPending && len(d.Items) > 1 {
		return d.Stopped
	}
	return 0
}
