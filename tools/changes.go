package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/repeat"
)

// Call is one change to one task: a tool call, or one element of an
// exploded batch call. It is rebuilt from its stored tool name and
// arguments when confirmed, so that what is applied is what was shown.
type Call interface {
	Tool() nod.Tool
	// TaskID is the task the change touches; empty for create_task.
	TaskID() nod.TaskID
	Field() nod.Field
	// Args are the arguments as stored with the change.
	Args() json.RawMessage
	// Current is the raw value the change touches in t as it is now; for
	// create_task t is nil.
	Current(t *nod.Task) (string, error)
	// Target is the raw value the change sets.
	Target(t *nod.Task) (string, error)
	// Summary says in English what the change does, for the model and the
	// audit.
	Summary(t *nod.Task) string
	// Apply mutates t (a zero task for create_task); a changed checklist
	// item's checked state is stamped with now and by.
	Apply(t *nod.Task, now time.Time, by nod.Actor) error
}

// Parse rebuilds a stored change item from its tool and arguments; an
// error wraps nod.ErrInvalid.
func Parse(tool nod.Tool, raw json.RawMessage) (Call, error) {
	a, err := Decode(tool, string(raw))
	if err != nil {
		return nil, err
	}
	switch tool {
	case nod.ToolAddItem:
		return parseAddItem(a)
	case nod.ToolUpdateItem:
		return parseUpdateItem(a)
	case nod.ToolRemoveItem:
		return parseRemoveItem(a)
	case nod.ToolSetRepeat:
		return parseRepeat(a)
	}
	parse, ok := parsers[tool]
	if !ok {
		return nil, fmt.Errorf("unknown change %q: %w", tool, nod.ErrInvalid)
	}
	cs, _, err := parse(a)
	if err != nil {
		return nil, err
	}
	if tool == nod.ToolSetReminder && len(cs) == 2 {
		// Clearing a reminder clears its rule too, a change of its own
		// (set_task_repeat) stored apart: this one is the reminder's.
		cs = cs[:1]
	}
	if len(cs) != 1 {
		return nil, fmt.Errorf("change %q holds %d elements: %w", tool, len(cs), nod.ErrInvalid)
	}
	return cs[0], nil
}

// scalar is a change of one field of a task to a new value, kept in the
// field's canonical form (nod.Task.Value): what the ledger, the change
// set's before and after, and staleness checks all compare.
type scalar struct {
	name   nod.Tool
	id     nod.TaskID
	fld    nod.Field
	value  string // the new value, canonical
	raw    json.RawMessage
	render func(v string) string // for the summary
}

func (s scalar) Tool() nod.Tool                      { return s.name }
func (s scalar) TaskID() nod.TaskID                  { return s.id }
func (s scalar) Field() nod.Field                    { return s.fld }
func (s scalar) Args() json.RawMessage               { return s.raw }
func (s scalar) Current(t *nod.Task) (string, error) { return t.Value(s.fld), nil }
func (s scalar) Target(*nod.Task) (string, error)    { return s.value, nil }
func (s scalar) Apply(t *nod.Task, now time.Time, _ nod.Actor) error {
	t.SetValue(s.fld, s.value, now)
	return nil
}
func (s scalar) Summary(*nod.Task) string { return s.render(s.value) }

func taskID(a Args) (nod.TaskID, error) {
	id, _, err := a.Str("task_id", true)
	return nod.TaskID(strings.TrimSpace(id)), err
}

// scalarTool is one tool that sets one field: how it reads its argument
// into the field's canonical value and the argument as stored, and how
// its summary (for the model and the audit, in English) reads.
type scalarTool struct {
	field  nod.Field
	arg    string
	read   func(a Args) (value string, raw any, err error)
	render func(v string) string
}

// parse is the tool's parse function: the task id and the one argument.
func (st scalarTool) parse(a Args) ([]Call, []string, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, nil, err
	}
	value, raw, err := st.read(a)
	if err != nil {
		return nil, nil, err
	}
	return one(scalar{name: a.Tool, id: id, fld: st.field, value: value,
		raw: MustJSON(map[string]any{"task_id": id, st.arg: raw}), render: st.render})
}

// clearOr renders "" as clear and anything else with set.
func clearOr(clear string, set func(v string) string) func(string) string {
	return func(v string) string {
		if v == "" {
			return clear
		}
		return set(v)
	}
}

var (
	parseTitle = scalarTool{field: nod.FieldTitle, arg: "title",
		read: func(a Args) (string, any, error) {
			title, _, err := a.Str("title", true)
			if err != nil {
				return "", nil, err
			}
			title = strings.TrimSpace(title)
			return title, title, a.maxBytes("title", title, nod.MaxTitleLen)
		},
		render: func(v string) string { return fmt.Sprintf("Set title to %q", v) }}.parse

	parseDescription = scalarTool{field: nod.FieldDescription, arg: "description",
		read: func(a Args) (string, any, error) {
			if !a.Present("description") {
				return "", nil, a.Errorf("description", "is required")
			}
			d, _, err := a.Str("description", false)
			if err != nil {
				return "", nil, err
			}
			d = strings.TrimSpace(d)
			return d, d, a.maxBytes("description", d, nod.MaxDescriptionLen)
		},
		render: clearOr("Clear the description", func(string) string { return "Update the description" })}.parse

	parseStatus = scalarTool{field: nod.FieldStatus, arg: "status",
		read: func(a Args) (string, any, error) {
			st, err := a.Status("status")
			return string(st), string(st), err
		},
		render: func(v string) string { return "Set status to " + v }}.parse

	parsePriority = scalarTool{field: nod.FieldPriority, arg: "priority",
		read: func(a Args) (string, any, error) {
			p, _, err := a.priority("priority", true)
			return string(p), string(p), err
		},
		render: func(v string) string { return "Set priority to " + v }}.parse

	parseEstimate = scalarTool{field: nod.FieldEstimate, arg: "estimate_minutes",
		read: func(a Args) (string, any, error) {
			n, _, err := a.Integer("estimate_minutes", true)
			if err != nil {
				return "", nil, err
			}
			if n < 0 {
				return "", nil, a.Errorf("estimate_minutes", "must be 0 or more")
			}
			return strconv.Itoa(n), n, nil
		},
		render: func(v string) string { return "Set estimate to " + v + " minutes" }}.parse

	parseDueDate = scalarTool{field: nod.FieldDue, arg: "due_date",
		read: func(a Args) (string, any, error) {
			if _, ok := a.m["due_date"]; !ok {
				return "", nil, a.Errorf("due_date", "is required (a YYYY-MM-DD date, or null to clear it)")
			}
			d, _, err := a.date("due_date")
			if err != nil || d == "" {
				return "", nil, err
			}
			return d, d, nil
		},
		render: clearOr("Clear the due date", func(v string) string { return "Set due date to " + v })}.parse
)

func one(c Call) ([]Call, []string, error) { return []Call{c}, nil, nil }

// Labels is assign_task_labels: the whole new set (labels), or the
// labels to add and to take away, the others kept (add, remove). A
// removal is what the person's words must cover to run at once
// (docs/design.md §3.5), so a model that only adds says so.
type Labels struct {
	Task        nod.TaskID // the task's id
	Whole       bool
	Set         []string // the new set, with Whole
	Add, Remove []string
}

func parseLabels(a Args) ([]Call, []string, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, nil, err
	}
	c := Labels{Task: id, Whole: a.Present("labels")}
	switch delta := a.Present("add") || a.Present("remove"); {
	case c.Whole && delta:
		return nil, nil, a.Errorf("labels", "goes alone: give either labels (the whole new set) or add and remove (the labels to add and to take away), not both")
	case !c.Whole && !delta:
		return nil, nil, a.Errorf("labels", "is required: the whole new set; or give add and remove, the labels to add and to take away")
	}
	for name, to := range map[string]*[]string{"labels": &c.Set, "add": &c.Add, "remove": &c.Remove} {
		ls, _, err := a.labels(name, false) // normalized, within the count and length limits
		if err != nil {
			return nil, nil, err
		}
		*to = ls
	}
	return one(c)
}

// result is the label set the change leaves on a task labelled cur.
func (c Labels) result(cur []string) []string {
	if c.Whole {
		return c.Set
	}
	out := slices.DeleteFunc(slices.Clone(cur), func(l string) bool {
		return slices.ContainsFunc(c.Remove, func(r string) bool { return strings.EqualFold(r, l) })
	})
	return nod.NormalizeLabels(append(out, c.Add...))
}

func (c Labels) Tool() nod.Tool     { return nod.ToolAssignLabels }
func (c Labels) TaskID() nod.TaskID { return c.Task }
func (c Labels) Field() nod.Field   { return nod.FieldLabels }
func (c Labels) Args() json.RawMessage {
	m := map[string]any{"task_id": c.Task}
	switch {
	case c.Whole:
		m["labels"] = c.Set
	default:
		if len(c.Add) > 0 {
			m["add"] = c.Add
		}
		if len(c.Remove) > 0 {
			m["remove"] = c.Remove
		}
	}
	return MustJSON(m)
}
func (c Labels) Current(t *nod.Task) (string, error) { return t.Value(nod.FieldLabels), nil }
func (c Labels) Target(t *nod.Task) (string, error) {
	ls := c.result(t.Labels)
	if len(ls) > nod.MaxLabels {
		return "", fmt.Errorf("%s: task %q would have more than %d labels: %w", nod.ToolAssignLabels, t.Title, nod.MaxLabels, nod.ErrInvalid)
	}
	return nod.Task{Labels: ls}.Value(nod.FieldLabels), nil
}
func (c Labels) Apply(t *nod.Task, _ time.Time, _ nod.Actor) error {
	v, err := c.Target(t)
	if err == nil {
		t.Labels = nod.ParseLabels(v)
	}
	return err
}

// Summary says the change in English, for the model and the audit.
func (c Labels) Summary(*nod.Task) string {
	if c.Whole {
		if len(c.Set) == 0 {
			return "Remove all labels"
		}
		return "Set labels to " + strings.Join(c.Set, ", ")
	}
	var parts []string
	if len(c.Add) > 0 {
		parts = append(parts, "add "+LabelWord(c.Add)+" "+strings.Join(c.Add, ", "))
	}
	if len(c.Remove) > 0 {
		parts = append(parts, "remove "+LabelWord(c.Remove)+" "+strings.Join(c.Remove, ", "))
	}
	if len(parts) == 0 {
		return "Change no labels"
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// LabelWord is "label" or "labels", as many as ls holds.
func LabelWord(ls []string) string {
	if len(ls) == 1 {
		return "label"
	}
	return "labels"
}

// Create is create_task: a whole new task.
type Create struct {
	t   nod.Task
	raw json.RawMessage
}

func parseCreate(a Args) ([]Call, []string, error) {
	title, _, err := a.Str("title", true)
	if err != nil {
		return nil, nil, err
	}
	t := nod.Task{Title: strings.TrimSpace(title), Status: nod.StatusOpen, Priority: nod.P2}
	if err := a.maxBytes("title", t.Title, nod.MaxTitleLen); err != nil {
		return nil, nil, err
	}
	if d, _, err := a.Str("description", false); err != nil {
		return nil, nil, err
	} else {
		t.Description = strings.TrimSpace(d)
	}
	if p, ok, err := a.priority("priority", false); err != nil {
		return nil, nil, err
	} else if ok {
		t.Priority = p
	}
	if n, ok, err := a.Integer("estimate_minutes", false); err != nil {
		return nil, nil, err
	} else if ok {
		if n < 0 {
			return nil, nil, a.Errorf("estimate_minutes", "must be 0 or more")
		}
		t.EstimateMinutes = &n
	}
	if d, _, err := a.date("due_date"); err != nil {
		return nil, nil, err
	} else {
		t.DueDate = d
	}
	if ls, _, err := a.labels("labels", false); err != nil {
		return nil, nil, err
	} else {
		t.Labels = ls
	}
	if err := (&nod.Task{ID: "new", Title: t.Title, Status: t.Status, Priority: t.Priority, Description: t.Description}).Validate(); err != nil {
		return nil, nil, a.Errorf("description", "is too long")
	}
	return one(NewCreate(t))
}

// NewCreate is the change that creates t, its arguments as stored. The
// priority every new task gets is left out of them, so that what is
// shown and audited of them names no P2 that nobody chose.
func NewCreate(t nod.Task) Create {
	raw := map[string]any{"title": t.Title}
	if t.Priority != nod.P2 {
		raw["priority"] = t.Priority
	}
	if t.Description != "" {
		raw["description"] = t.Description
	}
	if t.EstimateMinutes != nil {
		raw["estimate_minutes"] = *t.EstimateMinutes
	}
	if t.DueDate != "" {
		raw["due_date"] = t.DueDate
	}
	if len(t.Labels) > 0 {
		raw["labels"] = t.Labels
	}
	return Create{t: t, raw: MustJSON(raw)}
}

// NewTask is the task the change creates: without an id unless it was
// given one (NewCreate).
func (c Create) NewTask() nod.Task { return c.t }

func (c Create) Tool() nod.Tool                    { return nod.ToolCreateTask }
func (c Create) TaskID() nod.TaskID                { return "" }
func (c Create) Field() nod.Field                  { return nod.FieldTask }
func (c Create) Args() json.RawMessage             { return c.raw }
func (c Create) Current(*nod.Task) (string, error) { return "", nil }
func (c Create) Target(*nod.Task) (string, error)  { return c.t.Title, nil }
func (c Create) Summary(*nod.Task) string          { return fmt.Sprintf("Create task %q", c.t.Title) }

// Apply creates the task under a new id, or under the id it was given
// when its fields were split off into changes of their own (agent/cover.go).
func (c Create) Apply(t *nod.Task, _ time.Time, _ nod.Actor) error {
	*t = c.t.Clone()
	if t.ID == "" {
		t.ID = nod.TaskID(nod.NewID())
	}
	return nil
}

// Typed fills in what other packages read of item it as values rather
// than from its arguments: the checklist item an update or removal touches
// in t (the task as it is now), before and as proposed, with the reason
// given; the task a create_task would create.
func Typed(c Call, t *nod.Task, it nod.ChangeItem) nod.ChangeItem {
	switch c := c.(type) {
	case Create:
		nt := c.t.Clone()
		it.NewTask = &nt
	case Item:
		it.Reason = c.Reason
		if t == nil {
			return it
		}
		cur, err := c.item(t)
		if err != nil {
			return it
		}
		before := cur.Stamped()
		it.ItemBefore = &before
		if !c.Remove {
			after := before
			if c.Title != nil {
				after.Title = *c.Title
			}
			if c.Checked != nil {
				after.Checked = *c.Checked
			}
			it.ItemAfter = &after
		}
	}
	return it
}

// parseReminder reads set_task_reminder: a local YYYY-MM-DDTHH:MM in the
// chat's zone, or a time in another place's clock ("9 Berlin time" from
// London) with that place's UTC offset, its zone, or both
// (…T09:00+01:00, …T09:00[Europe/Berlin]), which then stays at its
// moment when the chat's zone changes (nod.Task.RemindClock); or null.
// RFC 3339 is read too, as a stored change keeps it. repeat is an
// RRULE read from remind_at's local time, or null to stop repeating: a
// repeating reminder follows the chat's clock, or the named place's
// when remind_at names one ("every Monday at 9 New York time"). A
// repeat is its own change (set_task_repeat) beside the time's; without repeat the rule stays as
// it is, and clearing the reminder clears its rule too.
func parseReminder(a Args) ([]Call, []string, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := a.m["remind_at"]; !ok {
		return nil, nil, a.Errorf("remind_at", "is required (a YYYY-MM-DDTHH:MM local time, or null to clear it)")
	}
	var (
		at    *time.Time
		clock *nod.Clock // another place's, which the time was given in
	)
	if a.Present("remind_at") {
		s, _, err := a.Str("remind_at", true)
		if err != nil {
			return nil, nil, err
		}
		t, c, err := readClock(a, strings.TrimSpace(s))
		if err != nil {
			return nil, nil, err
		}
		at, clock = &t, c
	}
	// A rule keeps the clock of the place it was given in, when the call
	// names the place; otherwise the chat's ("8am wherever I am").
	var place *time.Location
	if clock != nil && clock.Zone != "" {
		place, _ = time.LoadLocation(clock.Zone) // readClock loaded it
	}
	rule, repeats, err := readRepeat(a, at, place)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if rule != "" && clock != nil && place == nil {
		// An offset names no place, and a rule given with one follows the
		// chat's clock: the model is told, or it would count on a clock
		// the reminder does not keep.
		zone := zoneOr(a.Zone)
		notes = append(notes, fmt.Sprintf("remind_at was given in another place's clock (%s) without its zone, so the repeating reminder follows the chat's clock: it repeats at %s in the chat's zone (%s), and keeps that time of day when the chat's zone changes. To repeat at that place's time instead, give its zone in brackets (…T09:00[America/New_York]).",
			nod.ClockTime(*at, *clock), at.In(zone).Format("15:04"), zone))
		clock = nil
	}
	if rule != "" && !a.Now.IsZero() && at.Before(a.Now) {
		// A rule set from a time already past would never fire: it
		// starts at its first occurrence from now on (docs/design.md §10).
		if r, err := repeat.Read(rule); err == nil {
			if next, ok := r.Next(zoneOr(a.Zone), a.Now.Add(-time.Nanosecond)); ok {
				next = nod.Stamp(next)
				at, rule = &next, r.At(next.In(r.In(zoneOr(a.Zone)))).String()
				if clock != nil {
					clock.Offset = offsetAt(next, place)
				}
			}
		}
	}
	value, args := "", map[string]any{"task_id": id, "remind_at": nil}
	if at != nil {
		value = nod.ReminderValue(*at, clock)
		args["remind_at"] = at.In(zoneOr(a.Zone)).Format(time.RFC3339)
		if clock != nil {
			moment, _, _ := strings.Cut(value, "[")
			args["remind_at"], args[clockKey] = value, moment[len(moment)-len("-07:00"):] // the value's own offset
		}
	}
	calls := []Call{scalar{name: a.Tool, id: id, fld: nod.FieldReminder, value: value,
		raw: MustJSON(args),
		render: func(v string) string {
			if at == nil {
				return "Clear the reminder"
			}
			s := "Set reminder to " + at.In(zoneOr(a.Zone)).Format("2006-01-02 15:04")
			if clock != nil {
				s += " (" + nod.ClockTime(*at, *clock) + ")"
			}
			return s
		}}}
	if repeats {
		calls = append(calls, repeatCall(id, rule))
	}
	return calls, notes, nil
}

// clockKey marks, in a reminder's stored arguments, the offset of the
// other place's clock its time was given in: a stored change is read
// back with no zone of the chat's to compare an offset with.
const clockKey = "remind_clock"

// readClock reads remind_at s: the moment, and the clock it was given in
// when that is another place's than the chat's. A call gives a time in
// another place's clock with that place's offset, its zone in brackets
// as RFC 9557 adds one, or both, which must then agree; the clock is the
// chat's own when its offset at that moment is the chat zone's. A stored
// change says so with clockKey. A local time is the chat's.
func readClock(a Args, s string) (time.Time, *nod.Clock, error) {
	zone := zoneOr(a.Zone)
	var place *time.Location
	if base, name, ok := strings.Cut(s, "["); ok && strings.HasSuffix(name, "]") {
		name = strings.TrimSuffix(name, "]")
		loc, err := time.LoadLocation(name)
		if err != nil || name == "" || name == "Local" {
			return time.Time{}, nil, a.Errorf("remind_at", "names the zone %q, which is not an IANA time zone such as Europe/Paris", name)
		}
		s, place = base, loc
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t, err = time.Parse("2006-01-02T15:04Z07:00", s) // as models often leave out the seconds
	}
	switch {
	case err != nil && place == nil:
		t, err = nod.ParseLocal(s, zone)
		if err != nil {
			return time.Time{}, nil, a.Errorf("remind_at", "must be a YYYY-MM-DDTHH:MM local time, or null")
		}
		return nod.Stamp(t), nil, nil
	case err != nil:
		if t, err = nod.ParseLocal(s, place); err != nil {
			return time.Time{}, nil, a.Errorf("remind_at", "must be a YYYY-MM-DDTHH:MM local time, with the place's zone after it in brackets")
		}
	case place != nil:
		if _, off := t.Zone(); off != offsetAt(t, place) {
			return time.Time{}, nil, a.Errorf("remind_at", "gives the offset %s, which is not %s's on that day (%s): give the place's local time with its zone alone", t.Format("-07:00"), place, t.In(place).Format("-07:00"))
		}
	}
	_, off := t.Zone()
	if place != nil {
		off = offsetAt(t, place)
	}
	_, chats := t.In(zone).Zone()
	switch {
	case a.Present(clockKey):
	case a.Zone == nil || place == nil && strings.HasSuffix(strings.ToUpper(s), "Z") || off == chats:
		return nod.Stamp(t), nil, nil
	}
	clock := &nod.Clock{Offset: off}
	if place != nil {
		clock.Zone = place.String()
	}
	return nod.Stamp(t), clock, nil
}

// offsetAt is place's UTC offset, in seconds east, at t.
func offsetAt(t time.Time, place *time.Location) int {
	_, off := t.In(place).Zone()
	return off
}

// readRepeat reads set_task_reminder's repeat: the rule as a task keeps
// it ("" to stop repeating) and whether the call touches it. The rule
// keeps place's clock, or the chat's when place is nil.
func readRepeat(a Args, at *time.Time, place *time.Location) (string, bool, error) {
	if at == nil {
		if a.Present("repeat") {
			return "", false, a.Errorf("repeat", "needs remind_at, the first time it reminds")
		}
		return "", true, nil
	}
	if _, ok := a.m["repeat"]; !ok {
		return "", false, nil
	}
	if !a.Present("repeat") {
		return "", true, nil
	}
	s, _, err := a.Str("repeat", false)
	if err != nil {
		return "", false, err
	}
	if strings.TrimSpace(s) == "" {
		return "", true, nil
	}
	r, err := repeat.Parse(s)
	if err != nil {
		return "", false, a.Errorf("repeat", "must be an RRULE such as FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR: %v", err)
	}
	if place == nil {
		return r.At(at.In(zoneOr(a.Zone))).String(), true, nil
	}
	r = r.At(at.In(place))
	r.Zone = place.String()
	return r.String(), true, nil
}

// parseRepeat reads a stored set_task_repeat: the rule as a task keeps
// it, or null.
func parseRepeat(a Args) (Call, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, err
	}
	rule := ""
	if a.Present("repeat") {
		s, _, err := a.Str("repeat", true)
		if err != nil {
			return nil, err
		}
		if _, err := repeat.Read(s); err != nil {
			return nil, a.Errorf("repeat", "is not a rule: %v", err)
		}
		rule = s
	}
	return repeatCall(id, rule), nil
}

func repeatCall(id nod.TaskID, rule string) Call {
	var raw any
	if rule != "" {
		raw = rule
	}
	return scalar{name: nod.ToolSetRepeat, id: id, fld: nod.FieldRepeat, value: rule,
		raw: MustJSON(map[string]any{"task_id": id, "repeat": raw}),
		render: func(string) string {
			if rule == "" {
				return "Stop repeating the reminder"
			}
			return "Repeat the reminder: " + repeat.Describe(rule) // the time too: at 11 is not the rule rejected at 10
		}}
}

func zoneOr(z *time.Location) *time.Location {
	if z == nil {
		return time.UTC
	}
	return z
}

// Occurrence is what a repeating reminder's ✓ Done does: this time is
// done, the task stays open, and its reminder (and due date, by as many
// days) moves to next, the rule's next occurrence. It is recorded as a
// set_task_reminder, so that Undo takes the reminder back.
func Occurrence(t nod.Task, next time.Time) Call {
	at := nod.Stamp(next)
	due := t.DueDate
	if d, err := time.Parse(nod.DateLayout, t.DueDate); err == nil && t.RemindAt != nil {
		from, _ := time.Parse(nod.DateLayout, nod.LocalDate(*t.RemindAt, next.Location()))
		to, _ := time.Parse(nod.DateLayout, nod.LocalDate(next, next.Location()))
		due = d.AddDate(0, 0, int(to.Sub(from).Hours()/24)).Format(nod.DateLayout)
	}
	return occurrence{id: t.ID, at: at, clock: ruleClock(t.Repeat, at), due: due,
		raw: MustJSON(map[string]any{"task_id": t.ID, "remind_at": next.Format(time.RFC3339), "occurrence_done": true})}
}

// ruleClock is the clock of at, a time of the rule stored: the place's
// the rule keeps, or nil, the chat's. A time moved once into another
// clock ("this Monday's at 9 Paris time") does not carry that clock to
// the rule's next time.
func ruleClock(stored string, at time.Time) *nod.Clock {
	r, err := repeat.Read(stored)
	if err != nil {
		return nil
	}
	if off, ok := r.Offset(at); ok {
		return &nod.Clock{Offset: off, Zone: r.Zone}
	}
	return nil
}

type occurrence struct {
	id    nod.TaskID
	at    time.Time
	clock *nod.Clock
	due   string
	raw   json.RawMessage
}

func (o occurrence) Tool() nod.Tool                      { return nod.ToolSetReminder }
func (o occurrence) TaskID() nod.TaskID                  { return o.id }
func (o occurrence) Field() nod.Field                    { return nod.FieldReminder }
func (o occurrence) Args() json.RawMessage               { return o.raw }
func (o occurrence) Current(t *nod.Task) (string, error) { return t.Value(nod.FieldReminder), nil }
func (o occurrence) Target(*nod.Task) (string, error)    { return nod.ReminderValue(o.at, o.clock), nil }
func (o occurrence) Summary(*nod.Task) string {
	return nod.OccurrenceSummary + "set reminder to " + o.at.Format("2006-01-02 15:04")
}
func (o occurrence) Apply(t *nod.Task, _ time.Time, _ nod.Actor) error {
	at := o.at
	t.RemindAt, t.RemindClock = &at, o.clock
	if t.DueDate != "" {
		t.DueDate = o.due
	}
	return nil
}
