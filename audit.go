package nod

import (
	"encoding/json"
	"strings"
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
	OutcomeRedone    Outcome = "redone"
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
	ChatID        ChatID
	UserID        UserID
	Tool          Tool
	Args          json.RawMessage
	Outcome       Outcome
	UserConfirmed bool
	Verdict       string // the classifier's verdict, if one was asked
	Error         string
	Reason        string
	Duration      time.Duration
	At            time.Time
	// Redacted marks a row whose content (who, arguments, verdict, error,
	// reason) was removed when nod forgot its person; its link stays.
	Redacted bool
}

// Arg is the recorded call's argument name as text, for showing the row:
// a string as it is, any other value but null as its JSON; "" for null,
// when absent, or when Args is not an object.
func (a AuditEntry) Arg(name string) string {
	raw := a.arg(name)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.Trim(string(raw), `"`)
}

// HasArg reports whether the recorded call names argument name, null or
// not.
func (a AuditEntry) HasArg(name string) bool { return a.arg(name) != nil }

// ArgList is the recorded call's argument name as a list of strings (such
// as labels); nil when it is not one.
func (a AuditEntry) ArgList(name string) []string {
	var ls []string
	if json.Unmarshal(a.arg(name), &ls) != nil {
		return nil
	}
	return ls
}

// ArgTitles is the recorded call's argument name as a list of objects
// (checklist items), each one's title, "" where it has none; nil when it
// is not such a list.
func (a AuditEntry) ArgTitles(name string) []string {
	var items []struct {
		Title string `json:"title"`
	}
	if json.Unmarshal(a.arg(name), &items) != nil {
		return nil
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Title
	}
	return out
}

func (a AuditEntry) arg(name string) json.RawMessage {
	var args map[string]json.RawMessage
	json.Unmarshal(a.Args, &args)
	return args[name]
}

// UndoEntry records one applied change so that it can be reverted: the
// change itself (the fields and items it touched, before and after), not a
// snapshot of the task.
type UndoEntry struct {
	ID UndoID
	// Topic is where the change was made: /undo there takes it back.
	Topic
	UserID UserID // who made the change; only they may undo it
	TaskID TaskID
	Tool   Tool
	// Summary is the change the entry belongs to as the model was told it
	// (English, for the model and the audit); people read summaries
	// rendered from Change in their language. A redo's Summary is the
	// undone change's own.
	Summary string
	Change  Change
	// Title is the task's title as stored now (or when it was purged, the
	// last one known), for messages about the entry.
	Title     string
	CreatedAt time.Time
	ExpiresAt time.Time
	UndoneAt  *time.Time
	// Auto marks a change applied without the person's tap.
	Auto bool
	// Reverts is the entry this one undoes: set for the redo of an undo.
	Reverts UndoID
	// Redoes says taking this entry back applies its change again: it is
	// an Undo's entry, an odd step along the chain. Reverts alone does
	// not say it: the Undo of a Redo reverts the Redo's entry and takes
	// the change back.
	Redoes bool
	// Root is the change's first entry, for a later one of its chain (a
	// redo, or the undo of a redo); "" for the first.
	Root UndoID
	// UndoneNow says, of a change's first entry, whether the change is
	// undone now: taken back, and not put back by a Redo since. UndoneAt
	// says only that the entry was used.
	UndoneNow bool
}

// OccurrenceSummary begins the summary of ✓ Done on a repeating reminder
// (this time done, the reminder moved to the next): what tells its undo
// entry from a snooze's, both a set_task_reminder.
const OccurrenceSummary = "Done this time; "

// CompletesOccurrence reports whether u is the entry of ✓ Done on a
// repeating reminder.
func (u UndoEntry) CompletesOccurrence() bool { return completesOccurrence(u.Tool, u.Summary) }

// CompletesOccurrence reports whether it marks this time of a repeating
// reminder done: its ✓ Done, or "done" said of its task.
func (it ChangeItem) CompletesOccurrence() bool { return completesOccurrence(it.Tool, it.Summary) }

func completesOccurrence(tool Tool, summary string) bool {
	return tool == ToolSetReminder && strings.HasPrefix(summary, OccurrenceSummary)
}
