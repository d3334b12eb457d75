package nod

import "strings"

// TaskList selects a page of /tasks: the open tasks in the order that
// needs the person (overdue and due within SoonDays by due date, then by
// priority, then the newest), or the done and rejected ones, the newest
// first.
type TaskList struct {
	Label string // only tasks carrying this label, case-insensitive; empty: all
	Done  bool
	Today string // the chat's local date, YYYY-MM-DD: what is overdue and due soon
}

// SoonDays is how many days ahead a due date puts a task among the first
// of /tasks.
const SoonDays = 7

// FoldLabel is the form labels are compared in: trimmed and in lower
// case, as stored labels are trimmed (NormalizeLabels).
func FoldLabel(l string) string { return strings.ToLower(strings.TrimSpace(l)) }
