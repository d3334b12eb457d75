package nod

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TimePrecision is the precision at which nod stores and compares times:
// what both databases keep. Times are cut to it before they are stored or
// recorded in a change, so that a value read back equals the one written.
const TimePrecision = time.Microsecond

// Stamp cuts t to TimePrecision, in UTC.
func Stamp(t time.Time) time.Time { return t.UTC().Truncate(TimePrecision) }

// FieldTrash is the pseudo-field that says whether a task is in the trash:
// TrashedValue when it is, "" when it is not.
const FieldTrash Field = "trash"

// TrashedValue is FieldTrash's value for a task in the trash.
const TrashedValue = "trashed"

// Change is what one applied edit did to one task: exactly the fields it
// set and the checklist items it added, edited or removed, each with the
// value it expected to find (Before) and the value it left (After).
// Applying a change is a compare-and-set of just those; undoing it is
// applying its Inverse, so a later change to anything else never conflicts.
type Change struct {
	TaskID TaskID
	// Created marks the change that created the task; its inverse moves the
	// task to the trash.
	Created bool
	Fields  []FieldChange
	Items   []ItemChange
}

// FieldChange is one scalar field of a task, in the canonical form
// Task.Value gives.
type FieldChange struct {
	Field         Field
	Before, After string
}

// ItemChange is one checklist item: Before nil adds it, After nil removes
// it, both set edit it.
type ItemChange struct {
	Before, After *ChecklistItem
	// Prev is the id of the item it follows ("" for the first), so that an
	// item removed and brought back returns to its place.
	Prev ItemID
}

// ID is the id of the checklist item the change touches.
func (c ItemChange) ID() ItemID {
	if c.After != nil {
		return c.After.ID
	}
	return c.Before.ID
}

// Empty reports whether the change changes nothing.
func (c Change) Empty() bool { return !c.Created && len(c.Fields) == 0 && len(c.Items) == 0 }

// Touches reports whether the change sets field f.
func (c Change) Touches(f Field) bool {
	return slices.ContainsFunc(c.Fields, func(fc FieldChange) bool { return fc.Field == f })
}

// RemindsAt returns the time c sets its task's reminder to, when setting
// the reminder to a time is all that c does.
func (c Change) RemindsAt() (time.Time, bool) {
	if c.Created || len(c.Items) > 0 || len(c.Fields) != 1 || c.Fields[0].Field != FieldReminder || c.Fields[0].After == "" {
		return time.Time{}, false
	}
	at, _, err := ParseReminderValue(c.Fields[0].After)
	return at, err == nil
}

// Reopens reports whether c takes its task out of the trash or out of
// DONE or REJECTED: a reminder it kept may be due again.
func (c Change) Reopens() bool {
	for _, f := range c.Fields {
		switch {
		case f.Field == FieldTrash && f.Before == TrashedValue && f.After == "":
			return true
		case f.Field == FieldStatus && (f.Before == string(StatusDone) || f.Before == string(StatusRejected)) &&
			f.After != string(StatusDone) && f.After != string(StatusRejected):
			return true
		}
	}
	return false
}

// Trashes reports whether the change moves its task to the trash.
func (c Change) Trashes() bool {
	return slices.ContainsFunc(c.Fields, func(f FieldChange) bool { return f.Field == FieldTrash && f.After == TrashedValue })
}

// ExpectsTrashed reports whether the change acts on a task in the trash:
// only a restore does. Nothing else may change a trashed task.
func (c Change) ExpectsTrashed() bool {
	for _, f := range c.Fields {
		if f.Field == FieldTrash {
			return f.Before == TrashedValue
		}
	}
	return false
}

// Inverse is the change that undoes c. The inverse of a creation moves
// the task to the trash.
func (c Change) Inverse() Change {
	inv := Change{TaskID: c.TaskID}
	if c.Created {
		inv.Fields = []FieldChange{{Field: FieldTrash, Before: "", After: TrashedValue}}
		return inv
	}
	for _, f := range c.Fields {
		inv.Fields = append(inv.Fields, FieldChange{Field: f.Field, Before: f.After, After: f.Before})
	}
	for _, it := range c.Items {
		inv.Items = append(inv.Items, ItemChange{Before: it.After, After: it.Before, Prev: it.Prev})
	}
	return inv
}

// Rebase returns c expecting t as it is now: each field's and item's
// Before becomes its current value. It is what "undo anyway" applies:
// only c's own fields and items are put back.
func (c Change) Rebase(t Task) Change {
	out := Change{TaskID: c.TaskID, Created: c.Created}
	for _, f := range c.Fields {
		f.Before = t.Value(f.Field)
		if f.Before != f.After {
			out.Fields = append(out.Fields, f)
		}
	}
	for _, ic := range c.Items {
		if cur, ok := t.Item(ic.ID()); ok {
			b := *cur
			ic.Before = &b
		} else {
			ic.Before = nil
		}
		if ic.Before == nil && ic.After == nil {
			continue // to be removed, and already gone
		}
		if ic.Before != nil && ic.After != nil && ic.Before.Same(*ic.After) {
			continue
		}
		out.Items = append(out.Items, ic)
	}
	return out
}

// Conflict returns the first field or item of c whose current value in t
// is not the one c expects, or ok false if there is none.
func (c Change) Conflict(t Task) (Conflict, bool) {
	for _, f := range c.Fields {
		if now := t.Value(f.Field); now != f.Before {
			return Conflict{Field: f.Field, Want: f.Before, Now: now}, true
		}
	}
	for _, ic := range c.Items {
		cur, ok := t.Item(ic.ID())
		switch {
		case ic.Before == nil && !ok, ic.Before != nil && ok && cur.Same(*ic.Before):
			continue
		}
		title := ""
		if ic.Before != nil {
			title = ic.Before.Title
		} else if ic.After != nil {
			title = ic.After.Title
		}
		return Conflict{Field: FieldChecklist, Item: title}, true
	}
	return Conflict{}, false
}

// Conflict says which part of a change no longer holds.
type Conflict struct {
	Field     Field
	Want, Now string // canonical values, for a scalar field
	Item      string // the checklist item's title, for FieldChecklist
	// Twin, for FieldTrash, is when another task of the title was added
	// since the change: bringing the task back would make two. Added is
	// when the task it would bring back was, so a person can tell them
	// apart.
	Twin, Added time.Time
}

// ApplyTo returns t with c applied (without checking Before). now stamps
// a move to the trash.
func (c Change) ApplyTo(t Task, now time.Time) Task {
	t = t.Clone()
	for _, f := range c.Fields {
		t.SetValue(f.Field, f.After, now)
	}
	for _, ic := range c.Items {
		id := ic.ID()
		i := slices.IndexFunc(t.Checklist, func(it ChecklistItem) bool { return it.ID == id })
		switch {
		case ic.After == nil && i >= 0:
			t.Checklist = slices.Delete(t.Checklist, i, i+1)
		case ic.After != nil && i >= 0:
			t.Checklist[i] = *ic.After
		case ic.After != nil:
			at := 0
			if ic.Prev != "" {
				at = len(t.Checklist)
				if p := slices.IndexFunc(t.Checklist, func(it ChecklistItem) bool { return it.ID == ic.Prev }); p >= 0 {
					at = p + 1
				}
			}
			t.Checklist = slices.Insert(t.Checklist, at, *ic.After)
		}
	}
	return t
}

// scalarFields are the fields a FieldChange may name, in the order
// changes list them.
var scalarFields = []Field{FieldTitle, FieldDescription, FieldStatus, FieldPriority, FieldEstimate, FieldDue, FieldReminder, FieldRepeat, FieldLabels, FieldTrash}

// Value is field f of t in canonical form: text as it is, an estimate in
// minutes or "" for none, a due date or "", labels as a JSON array of the
// normalised set, the trash as TrashedValue or "".
func (t Task) Value(f Field) string {
	switch f {
	case FieldTitle:
		return t.Title
	case FieldDescription:
		return t.Description
	case FieldStatus:
		return string(t.Status)
	case FieldPriority:
		return string(t.Priority)
	case FieldEstimate:
		if t.EstimateMinutes == nil {
			return ""
		}
		return strconv.Itoa(*t.EstimateMinutes)
	case FieldDue:
		return t.DueDate
	case FieldReminder:
		if t.RemindAt == nil {
			return ""
		}
		return ReminderValue(*t.RemindAt, t.RemindClock)
	case FieldRepeat:
		return t.Repeat
	case FieldLabels:
		b, _ := json.Marshal(NormalizeLabels(t.Labels))
		return string(b)
	case FieldTrash:
		if t.DeletedAt != nil {
			return TrashedValue
		}
		return ""
	}
	return ""
}

// Clock is another place's clock a reminder was given in ("9 Paris
// time" from London): it stays at its moment when the chat's zone
// changes (docs/design.md §10).
type Clock struct {
	Offset int    // seconds east of UTC at the reminder's moment
	Zone   string // the place's IANA zone ("Europe/Paris"); "" when only the offset was given
}

// ReminderValue is a reminder's canonical form (FieldReminder): RFC 3339
// in UTC, or, for one given in another place's clock, at that clock's
// offset, always as numbers ("+00:00" is London's clock where "Z" is the
// chat's own), with the place's zone after it as RFC 9557 writes one
// ("2026-12-03T09:00:00+01:00[Europe/Paris]").
func ReminderValue(at time.Time, clock *Clock) string {
	at = Stamp(at)
	if clock == nil {
		return at.Format(time.RFC3339)
	}
	v := at.In(time.FixedZone("", clock.Offset)).Format(clockLayout)
	if clock.Zone != "" {
		v += "[" + clock.Zone + "]"
	}
	return v
}

// clockLayout is RFC 3339 whose offset is never written "Z".
const clockLayout = "2006-01-02T15:04:05-07:00"

// ClockTime is at's time of day on another place's clock: "09:00 in
// Paris" for a named place, "09:00 UTC+01:00" for an offset alone.
func ClockTime(at time.Time, clock Clock) string {
	local, where := ClockIn(at, clock)
	return local.Format("15:04") + " " + where
}

// ClockIn is at on another place's clock, and how that clock is named:
// "in Paris" for a named place, its offset ("UTC+01:00") for one alone.
func ClockIn(at time.Time, clock Clock) (time.Time, string) {
	if city := ZoneCity(clock.Zone); city != "" {
		if loc, err := time.LoadLocation(clock.Zone); err == nil {
			return at.In(loc), "in " + city
		}
	}
	local := at.In(time.FixedZone("", clock.Offset))
	return local, local.Format("UTC-07:00")
}

// SameDay reports whether a and b fall on the same date, each read on
// its own clock.
func SameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// ZoneCity is the place an IANA zone is named after ("New York" for
// America/New_York), or "" for a zone named after no place (UTC,
// Etc/GMT+5, CET).
func ZoneCity(zone string) string {
	area, city, ok := strings.Cut(zone, "/")
	if !ok || area == "Etc" {
		return ""
	}
	if i := strings.LastIndexByte(city, '/'); i >= 0 {
		city = city[i+1:] // America/Argentina/Buenos_Aires
	}
	return strings.ReplaceAll(city, "_", " ")
}

// ParseReminderValue reads ReminderValue's form: the moment, and the
// clock it was given in (nil for "Z", the chat's own).
func ParseReminderValue(v string) (time.Time, *Clock, error) {
	zone := ""
	if base, name, ok := strings.Cut(v, "["); ok && strings.HasSuffix(name, "]") {
		v, zone = base, strings.TrimSuffix(name, "]")
	}
	at, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, nil, err
	}
	if strings.HasSuffix(v, "Z") {
		return Stamp(at), nil, nil
	}
	_, off := at.Zone()
	return Stamp(at), &Clock{Offset: off, Zone: zone}, nil
}

// ParseLabels reads labels in the canonical form Value gives them. Text
// that is not that form is read as older versions kept labels in change
// items, comma-joined ("auth, bug").
func ParseLabels(v string) []string {
	var ls []string
	if strings.HasPrefix(v, "[") {
		if json.Unmarshal([]byte(v), &ls) != nil {
			return nil
		}
		return ls
	}
	for _, l := range strings.Split(v, ",") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// SetValue sets field f of t from its canonical form; now stamps a move
// to the trash. A value that does not parse leaves the field unset, which
// Validate then reports.
func (t *Task) SetValue(f Field, v string, now time.Time) {
	switch f {
	case FieldTitle:
		t.Title = v
	case FieldDescription:
		t.Description = v
	case FieldStatus:
		t.Status = Status(v)
	case FieldPriority:
		t.Priority = Priority(v)
	case FieldEstimate:
		t.EstimateMinutes = nil
		if n, err := strconv.Atoi(v); err == nil {
			t.EstimateMinutes = &n
		}
	case FieldDue:
		t.DueDate = v
	case FieldReminder:
		t.RemindAt, t.RemindClock = nil, nil
		if at, clock, err := ParseReminderValue(v); err == nil {
			t.RemindAt, t.RemindClock = &at, clock
		}
	case FieldRepeat:
		t.Repeat = v
	case FieldLabels:
		t.Labels = NormalizeLabels(ParseLabels(v))
	case FieldTrash:
		t.DeletedAt = nil
		if v == TrashedValue {
			at := Stamp(now)
			t.DeletedAt = &at
		}
	}
}

// Same reports whether two checklist items hold the same state, times
// compared at TimePrecision.
func (it ChecklistItem) Same(o ChecklistItem) bool {
	if it.ID != o.ID || it.Title != o.Title || it.Checked != o.Checked || it.CheckedBy.Normalize() != o.CheckedBy.Normalize() {
		return false
	}
	if (it.CheckedAt == nil) != (o.CheckedAt == nil) {
		return false
	}
	return it.CheckedAt == nil || Stamp(*it.CheckedAt).Equal(Stamp(*o.CheckedAt))
}

// Diff is the change that turns before into after: every field that
// differs and every checklist item added, edited or removed (matched by
// id). before nil means after is created. Times are cut to TimePrecision.
func Diff(before *Task, after Task) Change {
	c := Change{TaskID: after.ID}
	if before == nil {
		c.Created = true
		return c
	}
	for _, f := range scalarFields {
		if b, a := before.Value(f), after.Value(f); b != a {
			c.Fields = append(c.Fields, FieldChange{Field: f, Before: b, After: a})
		}
	}
	for i, it := range before.Checklist {
		if _, ok := after.Item(it.ID); !ok {
			c.Items = append(c.Items, ItemChange{Before: stampItem(it), Prev: prevID(before.Checklist, i)})
		}
	}
	for i, it := range after.Checklist {
		old, ok := before.Item(it.ID)
		switch {
		case !ok:
			c.Items = append(c.Items, ItemChange{After: stampItem(it), Prev: prevID(after.Checklist, i)})
		case !old.Same(it):
			c.Items = append(c.Items, ItemChange{Before: stampItem(*old), After: stampItem(it), Prev: prevID(after.Checklist, i)})
		}
	}
	return c
}

func prevID(items []ChecklistItem, i int) ItemID {
	if i == 0 {
		return ""
	}
	return items[i-1].ID
}

func stampItem(it ChecklistItem) *ChecklistItem {
	it = it.Stamped()
	return &it
}

// Stamped is the item as it is stored: provenance normalised, its time
// cut to TimePrecision.
func (it ChecklistItem) Stamped() ChecklistItem {
	it.CheckedBy = it.CheckedBy.Normalize()
	if it.CheckedAt != nil {
		at := Stamp(*it.CheckedAt)
		it.CheckedAt = &at
	}
	return it
}

// String names the change's parts, for logs and errors.
func (c Change) String() string {
	s := "change of task " + string(c.TaskID) + ":"
	if c.Created {
		s += " created"
	}
	for _, f := range c.Fields {
		s += " " + string(f.Field)
	}
	for _, it := range c.Items {
		s += fmt.Sprintf(" item %s", it.ID())
	}
	return s
}

func (c Conflict) Error() string {
	if !c.Twin.IsZero() {
		return fmt.Sprintf("another task of its title was added at %s", c.Twin.UTC().Format(time.RFC3339))
	}
	if c.Field == FieldChecklist {
		return fmt.Sprintf("checklist item %q changed since", c.Item)
	}
	return fmt.Sprintf("%s is %q, not %q", c.Field, c.Now, c.Want)
}

// Unwrap makes a conflict an ErrStale, and a twin's an ErrTwin too.
func (c Conflict) Unwrap() []error {
	if !c.Twin.IsZero() {
		return []error{ErrStale, ErrTwin}
	}
	return []error{ErrStale}
}
