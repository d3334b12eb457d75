package nod

import "slices"

// Note is a remark nod makes to the person about a change: why an item
// waits or was closed, or why a change was not needed. It is stored as a
// key and values, so that each language renders it in its own words.
type Note struct {
	Key  string   `json:"note"`
	Args []string `json:"args,omitempty"`
}

// Note keys.
const (
	NoteSkipped     = "skipped"      // the person kept the task as it is
	NoteInvalid     = "invalid"      // the stored change no longer parses
	NoteTaskGone    = "task_gone"    // the task is in the trash or deleted
	NoteItemGone    = "item_gone"    // the checklist item is gone
	NoteCannot      = "cannot"       // args: why, in English
	NoteAlready     = "already"      // the task already is as the change would make it
	NoteAlreadyItem = "already_item" // args: item title, "checked" or "unchecked"
	NoteChanged     = "changed"      // args: field; the text changed since
	NoteNow         = "now"          // args: field, value now; the value changed since
	NoteReproposed  = "reproposed"
	NoteSuperseded  = "superseded" // args: "direct" and who made it, when a change applied at once overtook it
	NoteWithdrawn   = "withdrawn"  // the person edited the words it came from
	NoteNoop        = "noop"       // args: field, value, the task's title; a change that changes nothing
	NoteNoopItem    = "noop_item"  // args: item title, "checked", "unchecked" or "same"
	NoteLeftAsSet   = "left"       // args: item title; the agent left the person's item alone
)

// IsZero reports whether n is no note.
func (n Note) IsZero() bool { return n.Key == "" }

// Equal reports whether n and o say the same.
func (n Note) Equal(o Note) bool { return n.Key == o.Key && slices.Equal(n.Args, o.Args) }

// Arg returns the i-th value, or "".
func (n Note) Arg(i int) string {
	if i < len(n.Args) {
		return n.Args[i]
	}
	return ""
}
