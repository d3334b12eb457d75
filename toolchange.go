package nod

import (
	"encoding/json"
	"time"
)

// ToolChange is one change to one task as a tool call states it, rebuilt
// from a change item's tool name and arguments so that what is applied is
// what the person was shown. The agent's tools define them; the
// confirmation service applies them on the person's behalf.
type ToolChange interface {
	Tool() Tool
	// TaskID is the task the change touches; empty for create_task.
	TaskID() string
	Field() Field
	// Args are the arguments as stored with the change.
	Args() json.RawMessage
	// Current is the raw value the change touches in t as it is now; for
	// create_task t is nil.
	Current(t *Task) (string, error)
	// Target is the raw value the change sets.
	Target(t *Task) (string, error)
	// Summary says in English what the change does, for the audit.
	Summary(t *Task) string
	// Apply mutates t (a zero task for create_task); a changed checklist
	// item's checked state is stamped with now and by.
	Apply(t *Task, now time.Time, by Actor) error
}
