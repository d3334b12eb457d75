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
	ID      string
	ChatID  ChatID
	SetID   string
	ItemID  string
	N       int
	UserID  UserID
	Verdict Verdict
	Reason  string
	Tool    Tool
	TaskID  string // the task the item was about; empty for create_task
	Summary string
	Kind    string // as KindOf names it
	At      time.Time
}

// MaxReasonLen bounds a reason, in characters: a rejection's, in the
// person's words or passed on by the agent, and the agent's for a
// checklist change. Reasons go into every prompt's decision history.
const MaxReasonLen = 500

// Rejection is a rejected change, as the agent checks new proposals
// against it.
type Rejection struct {
	Tool    Tool
	TaskID  string
	Args    []byte
	Summary string
	Reason  string
	At      time.Time
}
