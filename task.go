package nod

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status is a task's workflow state, stored upper-case.
type Status string

// The task statuses of the tool contract.
const (
	StatusOpen       Status = "OPEN"
	StatusGroomed    Status = "GROOMED"
	StatusInProgress Status = "IN_PROGRESS"
	StatusBlocked    Status = "BLOCKED"
	StatusOnHold     Status = "ON_HOLD"
	StatusDone       Status = "DONE"
	StatusRejected   Status = "REJECTED"
)

// Statuses lists every valid status in workflow order.
var Statuses = []Status{StatusOpen, StatusGroomed, StatusInProgress, StatusBlocked, StatusOnHold, StatusDone, StatusRejected}

// ParseStatus matches s case-insensitively against the valid statuses.
func ParseStatus(s string) (Status, error) {
	up := Status(strings.ToUpper(strings.TrimSpace(s)))
	if slices.Contains(Statuses, up) {
		return up, nil
	}
	return "", fmt.Errorf("status %q is not one of %s: %w", s, joinValues(Statuses), ErrInvalid)
}

// Priority is P0 (most urgent) to P3.
type Priority string

// The priorities of the tool contract.
const (
	P0 Priority = "P0"
	P1 Priority = "P1"
	P2 Priority = "P2"
	P3 Priority = "P3"
)

// Priorities lists every valid priority, most urgent first.
var Priorities = []Priority{P0, P1, P2, P3}

// ParsePriority matches s case-insensitively against the valid priorities.
func ParsePriority(s string) (Priority, error) {
	up := Priority(strings.ToUpper(strings.TrimSpace(s)))
	if slices.Contains(Priorities, up) {
		return up, nil
	}
	return "", fmt.Errorf("priority %q is not one of %s: %w", s, joinValues(Priorities), ErrInvalid)
}

func joinValues[T ~string](vs []T) string {
	ss := make([]string, len(vs))
	for i, v := range vs {
		ss[i] = string(v)
	}
	return strings.Join(ss, ", ")
}

// DateLayout is the wire and storage form of due dates.
const DateLayout = "2006-01-02"

// ParseDate validates a YYYY-MM-DD date and returns it unchanged.
func ParseDate(s string) (string, error) {
	s = strings.TrimSpace(s)
	if _, err := time.Parse(DateLayout, s); err != nil {
		return "", fmt.Errorf("due date %q is not a YYYY-MM-DD date: %w", s, ErrInvalid)
	}
	return s, nil
}

// Actor says who last set a checklist item's checked state.
type Actor string

// Checklist provenance. Anything else, including empty, reads as ActorUser
// (docs/design.md §5: unknown provenance must be treated as the person's).
const (
	ActorUser  Actor = "user"
	ActorAgent Actor = "agent"
)

// Normalize maps unknown or missing provenance to ActorUser.
func (a Actor) Normalize() Actor {
	if a == ActorAgent {
		return ActorAgent
	}
	return ActorUser
}

// Task is one of a chat's tasks. Every task belongs to exactly one chat.
type Task struct {
	ID              TaskID
	ChatID          ChatID
	Title           string
	Description     string // empty: none
	Status          Status
	Priority        Priority
	EstimateMinutes *int       // nil: no estimate
	DueDate         string     // YYYY-MM-DD, empty: none
	RemindAt        *time.Time // nil: no reminder
	RemindBy        UserID     // who set the reminder; 0: not known
	// RemindClock is another place's clock the reminder was given in
	// ("9 Berlin time" from London): it stays at its moment when the
	// chat's zone changes. nil: the chat's own clock, whose time of day it
	// keeps (docs/design.md §10).
	RemindClock *Clock
	CreatedBy   UserID // who created the task; 0: not known
	// Repeat is the reminder's rule: an RRULE with the local time it was
	// read from (package repeat); empty: the reminder does not repeat.
	Repeat    string
	Labels    []string
	Checklist []ChecklistItem
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt *time.Time // non-nil: in the trash
}

// ChecklistItem is one line of a task's checklist.
type ChecklistItem struct {
	ID        ItemID
	Title     string
	Checked   bool
	CheckedBy Actor
	CheckedAt *time.Time // nil: never set, or set before provenance was kept
}

// Item returns the checklist item with the given id.
func (t *Task) Item(id ItemID) (*ChecklistItem, bool) {
	for i := range t.Checklist {
		if t.Checklist[i].ID == id {
			return &t.Checklist[i], true
		}
	}
	return nil, false
}

// Owner is whose task t is where buttons act on it (a group's card or
// reminder): the person who set its reminder, else who created it; 0
// when nod never knew, and anyone may.
func (t Task) Owner() UserID {
	if t.RemindBy != 0 {
		return t.RemindBy
	}
	return t.CreatedBy
}

// ReminderSent reports whether t's reminder went out by now: its time
// has passed while the task was open. A task closed before its reminder
// was due never gets it.
func (t Task) ReminderSent(now time.Time) bool {
	if t.RemindAt == nil || t.RemindAt.After(now) {
		return false
	}
	closed := t.Status == StatusDone || t.Status == StatusRejected
	return !closed || !t.RemindAt.After(t.UpdatedAt)
}

// RepeatsAfterSent reports whether t's reminder went out by now (not
// ticked off: t is open) and repeats: its rule's next time is the one to
// come.
func (t Task) RepeatsAfterSent(now time.Time) bool {
	return t.Repeat != "" && t.Status != StatusDone && t.Status != StatusRejected && t.ReminderSent(now)
}

// ReminderSilent reports whether t's reminder is still ahead at now on a
// closed task: it goes off only if the task is reopened before then.
func (t Task) ReminderSilent(now time.Time) bool {
	return t.RemindAt != nil && t.RemindAt.After(now) && (t.Status == StatusDone || t.Status == StatusRejected)
}

// Clone returns a deep copy, so that a before snapshot stays intact while the
// after state is built.
func (t Task) Clone() Task {
	c := t
	if t.EstimateMinutes != nil {
		v := *t.EstimateMinutes
		c.EstimateMinutes = &v
	}
	if t.RemindAt != nil {
		r := *t.RemindAt
		c.RemindAt = &r
	}
	c.Labels = slices.Clone(t.Labels)
	c.Checklist = make([]ChecklistItem, len(t.Checklist))
	for i, it := range t.Checklist {
		if it.CheckedAt != nil {
			at := *it.CheckedAt
			it.CheckedAt = &at
		}
		c.Checklist[i] = it
	}
	if t.DeletedAt != nil {
		d := *t.DeletedAt
		c.DeletedAt = &d
	}
	return c
}

// Validate checks the invariants every stored task keeps.
func (t *Task) Validate() error {
	switch {
	case t.ID == "":
		return fmt.Errorf("task has no id: %w", ErrInvalid)
	case strings.TrimSpace(t.Title) == "":
		return fmt.Errorf("task title is empty: %w", ErrInvalid)
	case len(t.Title) > MaxTitleLen:
		return fmt.Errorf("task title is longer than %d bytes: %w", MaxTitleLen, ErrInvalid)
	case len(t.Description) > MaxDescriptionLen:
		return fmt.Errorf("task description is longer than %d bytes: %w", MaxDescriptionLen, ErrInvalid)
	case t.EstimateMinutes != nil && *t.EstimateMinutes < 0:
		return fmt.Errorf("estimate is negative: %w", ErrInvalid)
	}
	if _, err := ParseStatus(string(t.Status)); err != nil {
		return err
	}
	if _, err := ParsePriority(string(t.Priority)); err != nil {
		return err
	}
	if t.DueDate != "" {
		if _, err := ParseDate(t.DueDate); err != nil {
			return err
		}
	}
	return nil
}

// Limits on user- and model-supplied text, generous for people and small
// enough that one task always fits in a prompt. Titles and descriptions
// count bytes; a label counts characters.
const (
	MaxTitleLen       = 500
	MaxDescriptionLen = 100_000
	MaxLabels         = 20
	MaxLabelLen       = 64
	MaxChecklist      = 100
)

// NormalizeLabels trims, drops empty and duplicate labels (case-insensitive,
// first spelling wins) and sorts them, so that a label set compares equal
// however the model ordered it.
func NormalizeLabels(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, l := range in {
		l = strings.TrimSpace(l)
		k := strings.ToLower(l)
		if l == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out
}

// SameContent reports whether two tasks hold the same data, ignoring
// timestamps of the row itself. Undo uses it to tell whether a task still
// looks as a change left it.
func (t Task) SameContent(o Task) bool {
	if t.ID != o.ID || t.Title != o.Title || t.Description != o.Description ||
		t.Status != o.Status || t.Priority != o.Priority || t.DueDate != o.DueDate || t.Value(FieldReminder) != o.Value(FieldReminder) || t.Repeat != o.Repeat ||
		(t.DeletedAt == nil) != (o.DeletedAt == nil) ||
		!slices.Equal(t.Labels, o.Labels) || len(t.Checklist) != len(o.Checklist) {
		return false
	}
	if (t.EstimateMinutes == nil) != (o.EstimateMinutes == nil) ||
		(t.EstimateMinutes != nil && *t.EstimateMinutes != *o.EstimateMinutes) {
		return false
	}
	for i, a := range t.Checklist {
		b := o.Checklist[i]
		if a.ID != b.ID || a.Title != b.Title || a.Checked != b.Checked || a.CheckedBy.Normalize() != b.CheckedBy.Normalize() {
			return false
		}
		if (a.CheckedAt == nil) != (b.CheckedAt == nil) || (a.CheckedAt != nil && !a.CheckedAt.Equal(*b.CheckedAt)) {
			return false
		}
	}
	return true
}
