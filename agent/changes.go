package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// change is one change to one task: a tool call, or one element of an
// exploded batch call. It is rebuilt from its stored tool name and
// arguments when confirmed, so that what is applied is what was shown.
type change interface {
	tool() nod.Tool
	task() string // empty for create_task
	field() nod.Field
	args() json.RawMessage
	// current is the raw value the change touches in t as it is now; for
	// create_task t is nil.
	current(t *nod.Task) (string, error)
	// target is the raw value the change sets.
	target(t *nod.Task) (string, error)
	summary(t *nod.Task) string
	// apply mutates t (a zero task for create_task).
	apply(t *nod.Task, ac applyCtx) error
}

// applyCtx says when and on whose authority a change is applied; a changed
// checklist item's checked state is stamped with both.
type applyCtx struct {
	now time.Time
	by  nod.Actor
}

// parseChange rebuilds a stored change item.
func parseChange(tool nod.Tool, raw json.RawMessage) (change, error) {
	a, err := decodeArgs(tool, string(raw))
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
	}
	t, ok := mutatingTools[tool]
	if !ok || t.parse == nil {
		return nil, fmt.Errorf("unknown change %q: %w", tool, nod.ErrInvalid)
	}
	cs, _, err := t.parse(a)
	if err != nil {
		return nil, err
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
	id     string
	fld    nod.Field
	value  string // the new value, canonical
	raw    json.RawMessage
	render func(v string) string // for the summary
}

func (s scalar) tool() nod.Tool                      { return s.name }
func (s scalar) task() string                        { return s.id }
func (s scalar) field() nod.Field                    { return s.fld }
func (s scalar) args() json.RawMessage               { return s.raw }
func (s scalar) current(t *nod.Task) (string, error) { return t.Value(s.fld), nil }
func (s scalar) target(*nod.Task) (string, error)    { return s.value, nil }
func (s scalar) apply(t *nod.Task, ac applyCtx) error {
	t.SetValue(s.fld, s.value, ac.now)
	return nil
}
func (s scalar) summary(*nod.Task) string { return s.render(s.value) }

func taskID(a args) (string, error) {
	id, _, err := a.str("task_id", true)
	return strings.TrimSpace(id), err
}

// scalarTool is one tool that sets one field: how it reads its argument
// into the field's canonical value and the argument as stored, and how
// its summary (for the model and the audit, in English) reads.
type scalarTool struct {
	field  nod.Field
	arg    string
	read   func(a args) (value string, raw any, err error)
	render func(v string) string
}

// parse is the tool's parse function: the task id and the one argument.
func (st scalarTool) parse(a args) ([]change, []string, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, nil, err
	}
	value, raw, err := st.read(a)
	if err != nil {
		return nil, nil, err
	}
	return one(scalar{name: a.tool, id: id, fld: st.field, value: value,
		raw: mustJSON(map[string]any{"task_id": id, st.arg: raw}), render: st.render})
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
		read: func(a args) (string, any, error) {
			title, _, err := a.str("title", true)
			if err != nil {
				return "", nil, err
			}
			title = strings.TrimSpace(title)
			return title, title, a.maxBytes("title", title, nod.MaxTitleLen)
		},
		render: func(v string) string { return fmt.Sprintf("Set title to %q", v) }}.parse

	parseDescription = scalarTool{field: nod.FieldDescription, arg: "description",
		read: func(a args) (string, any, error) {
			if !a.present("description") {
				return "", nil, a.errorf("description", "is required")
			}
			d, _, err := a.str("description", false)
			if err != nil {
				return "", nil, err
			}
			d = strings.TrimSpace(d)
			return d, d, a.maxBytes("description", d, nod.MaxDescriptionLen)
		},
		render: clearOr("Clear the description", func(string) string { return "Update the description" })}.parse

	parseStatus = scalarTool{field: nod.FieldStatus, arg: "status",
		read: func(a args) (string, any, error) {
			st, err := a.status("status")
			return string(st), string(st), err
		},
		render: func(v string) string { return "Set status to " + v }}.parse

	parsePriority = scalarTool{field: nod.FieldPriority, arg: "priority",
		read: func(a args) (string, any, error) {
			p, _, err := a.priority("priority", true)
			return string(p), string(p), err
		},
		render: func(v string) string { return "Set priority to " + v }}.parse

	parseEstimate = scalarTool{field: nod.FieldEstimate, arg: "estimate_minutes",
		read: func(a args) (string, any, error) {
			n, _, err := a.integer("estimate_minutes", true)
			if err != nil {
				return "", nil, err
			}
			if n < 0 {
				return "", nil, a.errorf("estimate_minutes", "must be 0 or more")
			}
			return strconv.Itoa(n), n, nil
		},
		render: func(v string) string { return "Set estimate to " + v + " minutes" }}.parse

	parseDueDate = scalarTool{field: nod.FieldDue, arg: "due_date",
		read: func(a args) (string, any, error) {
			if _, ok := a.m["due_date"]; !ok {
				return "", nil, a.errorf("due_date", "is required (a YYYY-MM-DD date, or null to clear it)")
			}
			d, _, err := a.date("due_date")
			if err != nil || d == "" {
				return "", nil, err
			}
			return d, d, nil
		},
		render: clearOr("Clear the due date", func(v string) string { return "Set due date to " + v })}.parse
)

func one(c change) ([]change, []string, error) { return []change{c}, nil, nil }

// labelsChange is assign_task_labels: the whole new set (labels), or the
// labels to add and to take away, the others kept (add, remove). A
// removal is what the person's words must cover to run at once
// (docs/design.md §3.5), so a model that only adds says so.
type labelsChange struct {
	id          string
	whole       bool
	set         []string // the new set, with whole
	add, remove []string
}

func parseLabels(a args) ([]change, []string, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, nil, err
	}
	c := labelsChange{id: id, whole: a.present("labels")}
	switch delta := a.present("add") || a.present("remove"); {
	case c.whole && delta:
		return nil, nil, a.errorf("labels", "goes alone: give either labels (the whole new set) or add and remove (the labels to add and to take away), not both")
	case !c.whole && !delta:
		return nil, nil, a.errorf("labels", "is required: the whole new set; or give add and remove, the labels to add and to take away")
	}
	for name, to := range map[string]*[]string{"labels": &c.set, "add": &c.add, "remove": &c.remove} {
		ls, _, err := a.labels(name, false) // normalized, within the count and length limits
		if err != nil {
			return nil, nil, err
		}
		*to = ls
	}
	return one(c)
}

// result is the label set the change leaves on a task labelled cur.
func (c labelsChange) result(cur []string) []string {
	if c.whole {
		return c.set
	}
	out := slices.DeleteFunc(slices.Clone(cur), func(l string) bool {
		return slices.ContainsFunc(c.remove, func(r string) bool { return strings.EqualFold(r, l) })
	})
	return nod.NormalizeLabels(append(out, c.add...))
}

func (c labelsChange) tool() nod.Tool   { return nod.ToolAssignLabels }
func (c labelsChange) task() string     { return c.id }
func (c labelsChange) field() nod.Field { return nod.FieldLabels }
func (c labelsChange) args() json.RawMessage {
	m := map[string]any{"task_id": c.id}
	switch {
	case c.whole:
		m["labels"] = c.set
	default:
		if len(c.add) > 0 {
			m["add"] = c.add
		}
		if len(c.remove) > 0 {
			m["remove"] = c.remove
		}
	}
	return mustJSON(m)
}
func (c labelsChange) current(t *nod.Task) (string, error) { return t.Value(nod.FieldLabels), nil }
func (c labelsChange) target(t *nod.Task) (string, error) {
	ls := c.result(t.Labels)
	if len(ls) > nod.MaxLabels {
		return "", fmt.Errorf("%s: task %q would have more than %d labels: %w", nod.ToolAssignLabels, t.Title, nod.MaxLabels, nod.ErrInvalid)
	}
	return nod.Task{Labels: ls}.Value(nod.FieldLabels), nil
}
func (c labelsChange) apply(t *nod.Task, _ applyCtx) error {
	v, err := c.target(t)
	if err == nil {
		t.Labels = nod.ParseLabels(v)
	}
	return err
}

// summary says the change in English, for the model and the audit.
func (c labelsChange) summary(*nod.Task) string {
	if c.whole {
		if len(c.set) == 0 {
			return "Remove all labels"
		}
		return "Set labels to " + strings.Join(c.set, ", ")
	}
	var parts []string
	if len(c.add) > 0 {
		parts = append(parts, "add "+labelWord(c.add)+" "+strings.Join(c.add, ", "))
	}
	if len(c.remove) > 0 {
		parts = append(parts, "remove "+labelWord(c.remove)+" "+strings.Join(c.remove, ", "))
	}
	if len(parts) == 0 {
		return "Change no labels"
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:]
}

func labelWord(ls []string) string {
	if len(ls) == 1 {
		return "label"
	}
	return "labels"
}

// createTask is create_task: a whole new task.
type createTask struct {
	t   nod.Task
	raw json.RawMessage
}

func parseCreate(a args) ([]change, []string, error) {
	title, _, err := a.str("title", true)
	if err != nil {
		return nil, nil, err
	}
	t := nod.Task{Title: strings.TrimSpace(title), Status: nod.StatusOpen, Priority: nod.P2}
	if err := a.maxBytes("title", t.Title, nod.MaxTitleLen); err != nil {
		return nil, nil, err
	}
	if d, _, err := a.str("description", false); err != nil {
		return nil, nil, err
	} else {
		t.Description = strings.TrimSpace(d)
	}
	if p, ok, err := a.priority("priority", false); err != nil {
		return nil, nil, err
	} else if ok {
		t.Priority = p
	}
	if n, ok, err := a.integer("estimate_minutes", false); err != nil {
		return nil, nil, err
	} else if ok {
		if n < 0 {
			return nil, nil, a.errorf("estimate_minutes", "must be 0 or more")
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
		return nil, nil, a.errorf("description", "is too long")
	}
	return one(newCreate(t))
}

// newCreate is the change that creates t, its arguments as stored.
func newCreate(t nod.Task) createTask {
	raw := map[string]any{"title": t.Title, "priority": t.Priority}
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
	return createTask{t: t, raw: mustJSON(raw)}
}

func (c createTask) tool() nod.Tool                    { return nod.ToolCreateTask }
func (c createTask) task() string                      { return "" }
func (c createTask) field() nod.Field                  { return nod.FieldTask }
func (c createTask) args() json.RawMessage             { return c.raw }
func (c createTask) current(*nod.Task) (string, error) { return "", nil }
func (c createTask) target(*nod.Task) (string, error)  { return c.t.Title, nil }
func (c createTask) summary(*nod.Task) string          { return fmt.Sprintf("Create task %q", c.t.Title) }

// apply creates the task under a new id, or under the id it was given
// when its fields were split off into changes of their own (cover.go).
func (c createTask) apply(t *nod.Task, _ applyCtx) error {
	*t = c.t.Clone()
	if t.ID == "" {
		t.ID = nod.NewID()
	}
	return nil
}

// addItem is one element of add_multiple_checklist_items.
type addItem struct {
	id    string
	title string
}

func parseAddItem(a args) (change, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, err
	}
	title, _, err := a.str("title", true)
	if err != nil {
		return nil, err
	}
	title = strings.TrimSpace(title)
	if err := a.maxBytes("title", title, nod.MaxTitleLen); err != nil {
		return nil, err
	}
	return addItem{id: id, title: title}, nil
}

func (c addItem) tool() nod.Tool   { return nod.ToolAddItem }
func (c addItem) task() string     { return c.id }
func (c addItem) field() nod.Field { return nod.FieldChecklist }
func (c addItem) args() json.RawMessage {
	return mustJSON(map[string]string{"task_id": c.id, "title": c.title})
}

// current is the title of an item that already says the same, if any: an
// add is a no-op, or stale, once such an item exists.
func (c addItem) current(t *nod.Task) (string, error) {
	for _, it := range t.Checklist {
		if sameText(it.Title, c.title) {
			return c.title, nil
		}
	}
	return "", nil
}
func (c addItem) target(*nod.Task) (string, error) { return c.title, nil }
func (c addItem) summary(*nod.Task) string         { return fmt.Sprintf("Add: %q", c.title) }
func (c addItem) apply(t *nod.Task, _ applyCtx) error {
	if len(t.Checklist) >= nod.MaxChecklist {
		return fmt.Errorf("task %q already has %d checklist items: %w", t.Title, nod.MaxChecklist, nod.ErrInvalid)
	}
	// A new item is the person's until someone checks it (docs/design.md §2.3).
	t.Checklist = append(t.Checklist, nod.ChecklistItem{ID: nod.NewID(), Title: c.title, CheckedBy: nod.ActorUser})
	return nil
}

// updateItem is one element of update_checklist_items, or, with remove
// set, of remove_checklist_items: removing an item the person ticked is
// guarded like unticking it (docs/design.md §5).
type updateItem struct {
	id      string
	itemID  string
	title   *string
	checked *bool
	reason  string
	remove  bool
}

// checkedArg reads an element's checked state: isChecked, as the tool's
// schema names it, or checked, as get_task shows it.
func checkedArg(a args) (bool, bool, error) {
	if a.present("isChecked") {
		return a.boolean("isChecked")
	}
	return a.boolean("checked")
}

// itemOf reads the task and checklist item an element names.
func itemOf(a args) (updateItem, error) {
	id, err := taskID(a)
	if err != nil {
		return updateItem{}, err
	}
	itemID, _, err := a.str("id", true)
	if err != nil {
		return updateItem{}, err
	}
	return updateItem{id: id, itemID: strings.TrimSpace(itemID)}, nil
}

func parseRemoveItem(a args) (change, error) {
	c, err := itemOf(a)
	if err != nil {
		return nil, err
	}
	if c.reason, err = a.reason(); err != nil {
		return nil, err
	}
	c.remove = true
	return c, nil
}

func parseUpdateItem(a args) (change, error) {
	c, err := itemOf(a)
	if err != nil {
		return nil, err
	}
	if s, ok, err := a.str("title", false); err != nil {
		return nil, err
	} else if ok && strings.TrimSpace(s) != "" {
		s = strings.TrimSpace(s)
		if err := a.maxBytes("title", s, nod.MaxTitleLen); err != nil {
			return nil, err // as long as a new item's may be
		}
		c.title = &s
	}
	if b, ok, err := checkedArg(a); err != nil {
		return nil, err
	} else if ok {
		c.checked = &b
	}
	if c.reason, err = a.reason(); err != nil {
		return nil, err
	}
	if c.title == nil && c.checked == nil {
		return nil, a.errorf("items", "element for item %q changes nothing (give isChecked or title)", c.itemID)
	}
	return c, nil
}

func (c updateItem) tool() nod.Tool {
	if c.remove {
		return nod.ToolRemoveItem
	}
	return nod.ToolUpdateItem
}
func (c updateItem) task() string     { return c.id }
func (c updateItem) field() nod.Field { return nod.FieldChecklist }
func (c updateItem) args() json.RawMessage {
	m := map[string]any{"task_id": c.id, "id": c.itemID}
	if c.remove {
		if c.reason != "" {
			m["reason"] = c.reason
		}
		return mustJSON(m)
	}
	if c.title != nil {
		m["title"] = *c.title
	}
	if c.checked != nil {
		m["isChecked"] = *c.checked
	}
	if c.reason != "" {
		m["reason"] = c.reason
	}
	return mustJSON(m)
}

// itemState is a checklist item's raw value: what a change compares for
// staleness, with its provenance so that a re-tick by the person makes a
// pending change stale too.
type itemState struct {
	Title   string     `json:"title"`
	Checked bool       `json:"checked"`
	By      nod.Actor  `json:"by"`
	At      *time.Time `json:"at,omitempty"`
}

func stateOf(it *nod.ChecklistItem) itemState {
	return itemState{it.Title, it.Checked, it.CheckedBy.Normalize(), it.CheckedAt}
}

func (c updateItem) item(t *nod.Task) (*nod.ChecklistItem, error) {
	it, ok := t.Item(c.itemID)
	if !ok {
		return nil, fmt.Errorf("checklist item %q is not on task %q: %w", c.itemID, t.Title, nod.ErrNotFound)
	}
	return it, nil
}

func (c updateItem) current(t *nod.Task) (string, error) {
	it, err := c.item(t)
	if err != nil {
		return "", err
	}
	return string(mustJSON(stateOf(it))), nil
}

func (c updateItem) target(t *nod.Task) (string, error) {
	it, err := c.item(t)
	if err != nil {
		return "", err
	}
	if c.remove {
		return "", nil // gone
	}
	s := stateOf(it)
	if c.title != nil {
		s.Title = *c.title
	}
	if c.checked != nil {
		s.Checked = *c.checked
	}
	return string(mustJSON(s)), nil
}

func (c updateItem) summary(t *nod.Task) string {
	old, found := "item "+shortID(c.itemID), false
	if t != nil {
		if it, ok := t.Item(c.itemID); ok {
			old, found = fmt.Sprintf("%q", it.Title), true
		}
	}
	if c.remove {
		return "Remove from the checklist: " + old
	}
	var parts []string
	if c.title != nil && (!found || old != fmt.Sprintf("%q", *c.title)) {
		parts = append(parts, fmt.Sprintf("Rename: %s → %q", old, *c.title))
	}
	if c.checked != nil && (!found || c.changesCheck(t)) {
		verb := "Uncheck"
		if *c.checked {
			verb = "Check off"
		}
		if len(parts) > 0 {
			parts = append(parts, strings.ToLower(verb))
		} else {
			parts = append(parts, verb+": "+old)
		}
	}
	return strings.Join(parts, " and ")
}

// changesCheck reports whether the change flips the item's checked state;
// removing a ticked item takes its tick away too.
func (c updateItem) changesCheck(t *nod.Task) bool {
	it, err := c.item(t)
	if c.remove {
		return err == nil && it.Checked
	}
	return err == nil && c.checked != nil && *c.checked != it.Checked
}

// minReason is the shortest reason that lets the agent on its own change
// the checked state of an item the person set (docs/design.md §5).
const minReason = 20

// sovereign returns why the agent on its own may not flip the checked
// state of the person's item, or "" if it may: the item is the agent's,
// the check does not change, or the reason is long enough.
func (c updateItem) sovereign(t *nod.Task) string {
	if !c.changesCheck(t) {
		return ""
	}
	it, _ := c.item(t)
	if it.CheckedBy.Normalize() != nod.ActorUser {
		return ""
	}
	when := "at an unknown time"
	if it.CheckedAt != nil {
		when = "at " + it.CheckedAt.UTC().Format(time.RFC3339)
	}
	switch n := len([]rune(c.reason)); {
	case n == 0:
		return fmt.Sprintf("Not changed: the user set %q %s. Provide a reason (≥ %d characters) citing evidence from after that time to change its checked state.", it.Title, when, minReason)
	case n < minReason:
		return fmt.Sprintf("Not changed: the reason for %q is too short (%d characters, minimum %d); the user set it %s. Cite evidence from after that time.", it.Title, n, minReason, when)
	}
	return ""
}

// titleOnly drops the check part of the change; ok is false if nothing is
// left.
func (c updateItem) titleOnly() (updateItem, bool) {
	c.checked, c.reason = nil, ""
	return c, c.title != nil && !c.remove
}

func (c updateItem) apply(t *nod.Task, ac applyCtx) error {
	it, err := c.item(t)
	if err != nil {
		return err
	}
	if c.remove {
		t.Checklist = slices.DeleteFunc(t.Checklist, func(x nod.ChecklistItem) bool { return x.ID == c.itemID })
		return nil
	}
	if c.title != nil {
		it.Title = *c.title
	}
	if c.checked != nil && *c.checked != it.Checked {
		now := ac.now
		it.Checked, it.CheckedBy, it.CheckedAt = *c.checked, ac.by, &now
	}
	return nil
}

// shortID cuts an id that could not be looked up to 8 characters.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

// sameText compares texts ignoring case and runs of white space.
func sameText(a, b string) bool { return nod.FoldText(a) == nod.FoldText(b) }

// typed fills in what other packages read of item it as values rather
// than from its arguments: the checklist item an update or removal touches
// in t (the task as it is now), before and as proposed, with the reason
// given; the task a create_task would create.
func typed(c change, t *nod.Task, it nod.ChangeItem) nod.ChangeItem {
	switch c := c.(type) {
	case createTask:
		nt := c.t.Clone()
		it.NewTask = &nt
	case updateItem:
		it.Reason = c.reason
		if t == nil {
			return it
		}
		cur, err := c.item(t)
		if err != nil {
			return it
		}
		before := cur.Stamped()
		it.ItemBefore = &before
		if !c.remove {
			after := before
			if c.title != nil {
				after.Title = *c.title
			}
			if c.checked != nil {
				after.Checked = *c.checked
			}
			it.ItemAfter = &after
		}
	}
	return it
}

// parseReminder reads set_task_reminder: a local YYYY-MM-DDTHH:MM in the
// chat's zone (or RFC 3339, as a stored change keeps it), or null.
func parseReminder(a args) ([]change, []string, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := a.m["remind_at"]; !ok {
		return nil, nil, a.errorf("remind_at", "is required (a YYYY-MM-DDTHH:MM local time, or null to clear it)")
	}
	var at *time.Time
	if a.present("remind_at") {
		s, _, err := a.str("remind_at", true)
		if err != nil {
			return nil, nil, err
		}
		zone := a.zone
		if zone == nil {
			zone = time.UTC
		}
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
		if err != nil {
			if t, err = nod.ParseLocal(s, zone); err != nil {
				return nil, nil, a.errorf("remind_at", "must be a YYYY-MM-DDTHH:MM local time, or null")
			}
		}
		t = nod.Stamp(t)
		at = &t
	}
	value, raw := "", any(nil)
	if at != nil {
		value = at.Format(time.RFC3339)
		raw = at.In(zoneOr(a.zone)).Format(time.RFC3339)
	}
	return one(scalar{name: a.tool, id: id, fld: nod.FieldReminder, value: value,
		raw: mustJSON(map[string]any{"task_id": id, "remind_at": raw}),
		render: func(v string) string {
			if at == nil {
				return "Clear the reminder"
			}
			return "Set reminder to " + at.In(zoneOr(a.zone)).Format("2006-01-02 15:04")
		}})
}

func zoneOr(z *time.Location) *time.Location {
	if z == nil {
		return time.UTC
	}
	return z
}

func checkState(checked bool) string {
	if checked {
		return "checked"
	}
	return "unchecked"
}
