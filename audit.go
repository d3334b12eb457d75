package nod

import (
	"encoding/json"
	"time"
)

// Outcome is what happened to one tool call or decision.
type Outcome string

// Audit outcomes.
const (
	OutcomeExecuted  Outcome = "executed"
	OutcomeQueued    Outcome = "queued"
	OutcomeConfirmed Outcome = "confirmed"
	OutcomeRejected  Outcome = "rejected"
	OutcomeUndone    Outcome = "undone"
	OutcomeFailed    Outcome = "failed"
	OutcomeBlocked   Outcome = "blocked"
	// OutcomeSuperseded: a pending proposal was revised (its old version).
	OutcomeSuperseded Outcome = "superseded"
	// Learned rules (tool "rule"): accepted, declined, revoked.
	OutcomeCreated  Outcome = "created"
	OutcomeDeclined Outcome = "declined"
	OutcomeRevoked  Outcome = "revoked"
)

// AuditEntry is one row of the audit log. Arguments are kept as structured
// JSON, never as rendered text.
type AuditEntry struct {
	ID            int64
	ChatID        int64
	UserID        int64
	Tool          string
	Args          json.RawMessage
	Outcome       Outcome
	UserConfirmed bool
	Verdict       string // the classifier's verdict, if one was asked
	Error         string
	Reason        string
	Duration      time.Duration
	At            time.Time
}

// UndoEntry holds the task before and after one applied change, so that the
// change can be reverted while the task still looks as the change left it.
type UndoEntry struct {
	ID        string
	ChatID    int64
	UserID    int64
	TaskID    string
	Tool      string
	Summary   string
	Before    *Task // nil: the change created the task
	After     *Task // nil: the change removed the task
	CreatedAt time.Time
	ExpiresAt time.Time
	UndoneAt  *time.Time
	// Auto marks a change applied without the person's tap.
	Auto bool
}
