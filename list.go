package nod

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

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

// ListRef is where a /tasks button leads: a page of a list (Done, Label)
// numbered Page, read from Cursor ("" for the first page) in the
// direction of the button's PageLater or PageEarlier.
type ListRef struct {
	Label  string
	Done   bool
	Page   int
	Cursor string
}

// MaxActionID bounds an Action's ID: callback data is a version, a kind
// letter, '.', the ID and ".N", at most Telegram's 64 bytes.
const MaxActionID = 58

// ID renders the ref as an action ID ("o2_k3", "d1__aG9tZQ": view, page,
// cursor and the label in base64url); false when the label is too long
// to fit.
func (r ListRef) ID() (string, bool) {
	view := "o"
	if r.Done {
		view = "d"
	}
	id := view + strconv.Itoa(max(r.Page, 1)) + "_" + r.Cursor
	if l := FoldLabel(r.Label); l != "" {
		id += "_" + base64.RawURLEncoding.EncodeToString([]byte(l))
	}
	return id, len(id) <= MaxActionID
}

// ParseListRef reads an ID that ListRef.ID rendered. An ID without '_'
// is a bare cursor, as /tasks buttons carried before there were views:
// the open list, its page unknown (0).
func ParseListRef(id string) (ListRef, error) {
	head, rest, ok := strings.Cut(id, "_")
	if !ok {
		return ListRef{Cursor: id}, nil
	}
	bad := fmt.Errorf("list button %q: %w", id, ErrInvalid)
	if len(head) < 2 || (head[0] != 'o' && head[0] != 'd') {
		return ListRef{}, bad
	}
	page, err := strconv.Atoi(head[1:])
	if err != nil || page < 1 {
		return ListRef{}, bad
	}
	r := ListRef{Done: head[0] == 'd', Page: page}
	cur, label, _ := strings.Cut(rest, "_")
	r.Cursor = cur
	if label != "" {
		b, err := base64.RawURLEncoding.DecodeString(label)
		if err != nil || !utf8.Valid(b) {
			return ListRef{}, bad
		}
		r.Label = string(b)
	}
	return r, nil
}

// TodayList is what /today shows of a local day: open tasks overdue or
// due that day (Due: by due date, then priority, then the newest, at most
// a page; DueTotal counts them all), and open tasks with a reminder
// during that day (Reminders: by time, at most a page), whether they went
// out already or are still to come. Done are the open repeating tasks
// whose reminder of that day was marked done (✓ Done on this time): their
// reminder moved on to a later day.
type TodayList struct {
	Due       []Task
	DueTotal  int
	Reminders []Task
	Done      []DoneReminder
}

// DoneReminder is a repeating reminder's time At that day, marked done.
type DoneReminder struct {
	Task Task
	At   time.Time
}
