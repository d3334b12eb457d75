package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// AddItem is one element of add_multiple_checklist_items.
type AddItem struct {
	Task  nod.TaskID // the task's id
	Title string
}

func parseAddItem(a Args) (Call, error) {
	id, err := taskID(a)
	if err != nil {
		return nil, err
	}
	title, _, err := a.Str("title", true)
	if err != nil {
		return nil, err
	}
	title = strings.TrimSpace(title)
	if err := a.maxBytes("title", title, nod.MaxTitleLen); err != nil {
		return nil, err
	}
	return AddItem{Task: id, Title: title}, nil
}

func (c AddItem) Tool() nod.Tool     { return nod.ToolAddItem }
func (c AddItem) TaskID() nod.TaskID { return c.Task }
func (c AddItem) Field() nod.Field   { return nod.FieldChecklist }
func (c AddItem) Args() json.RawMessage {
	return MustJSON(map[string]string{"task_id": string(c.Task), "title": c.Title})
}

// Current is the title of an item that already says the same, if any: an
// add is a no-op, or stale, once such an item exists.
func (c AddItem) Current(t *nod.Task) (string, error) {
	for _, it := range t.Checklist {
		if sameText(it.Title, c.Title) {
			return c.Title, nil
		}
	}
	return "", nil
}
func (c AddItem) Target(*nod.Task) (string, error) { return c.Title, nil }
func (c AddItem) Summary(*nod.Task) string         { return fmt.Sprintf("Add: %q", c.Title) }
func (c AddItem) Apply(t *nod.Task, _ time.Time, _ nod.Actor) error {
	if len(t.Checklist) >= nod.MaxChecklist {
		return fmt.Errorf("task %q already has %d checklist items: %w", t.Title, nod.MaxChecklist, nod.ErrInvalid)
	}
	// A new item is the person's until someone checks it (docs/design.md §2.3).
	t.Checklist = append(t.Checklist, nod.ChecklistItem{ID: nod.ItemID(nod.NewID()), Title: c.Title, CheckedBy: nod.ActorUser})
	return nil
}

// Item is one element of update_checklist_items, or, with remove
// set, of remove_checklist_items: removing an item the person ticked is
// guarded like unticking it (docs/design.md §5).
type Item struct {
	Task    nod.TaskID // the task's id
	ItemID  nod.ItemID
	Title   *string // the new title, if it renames
	Checked *bool   // the new checked state, if it sets one
	Reason  string
	Remove  bool
}

// checkedArg reads an element's checked state: isChecked, as the tool's
// schema names it, or checked, as get_task shows it.
func checkedArg(a Args) (bool, bool, error) {
	if a.Present("isChecked") {
		return a.boolean("isChecked")
	}
	return a.boolean("checked")
}

// itemOf reads the task and checklist item an element names.
func itemOf(a Args) (Item, error) {
	id, err := taskID(a)
	if err != nil {
		return Item{}, err
	}
	itemID, _, err := a.Str("id", true)
	if err != nil {
		return Item{}, err
	}
	return Item{Task: id, ItemID: nod.ItemID(strings.TrimSpace(itemID))}, nil
}

func parseRemoveItem(a Args) (Call, error) {
	c, err := itemOf(a)
	if err != nil {
		return nil, err
	}
	if c.Reason, err = a.Reason(); err != nil {
		return nil, err
	}
	c.Remove = true
	return c, nil
}

func parseUpdateItem(a Args) (Call, error) {
	c, err := itemOf(a)
	if err != nil {
		return nil, err
	}
	if s, ok, err := a.Str("title", false); err != nil {
		return nil, err
	} else if ok && strings.TrimSpace(s) != "" {
		s = strings.TrimSpace(s)
		if err := a.maxBytes("title", s, nod.MaxTitleLen); err != nil {
			return nil, err // as long as a new item's may be
		}
		c.Title = &s
	}
	if b, ok, err := checkedArg(a); err != nil {
		return nil, err
	} else if ok {
		c.Checked = &b
	}
	if c.Reason, err = a.Reason(); err != nil {
		return nil, err
	}
	if c.Title == nil && c.Checked == nil {
		return nil, a.Errorf("items", "element for item %q changes nothing (give isChecked or title)", c.ItemID)
	}
	return c, nil
}

func (c Item) Tool() nod.Tool {
	if c.Remove {
		return nod.ToolRemoveItem
	}
	return nod.ToolUpdateItem
}
func (c Item) TaskID() nod.TaskID { return c.Task }
func (c Item) Field() nod.Field   { return nod.FieldChecklist }
func (c Item) Args() json.RawMessage {
	m := map[string]any{"task_id": c.Task, "id": c.ItemID}
	if c.Remove {
		if c.Reason != "" {
			m["reason"] = c.Reason
		}
		return MustJSON(m)
	}
	if c.Title != nil {
		m["title"] = *c.Title
	}
	if c.Checked != nil {
		m["isChecked"] = *c.Checked
	}
	if c.Reason != "" {
		m["reason"] = c.Reason
	}
	return MustJSON(m)
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

// ItemValue reads a checklist item's raw value, as an edit's or a
// removal's Current and Target give it: the item's title and checked
// state; ok is false for any other value (an added item's is its title).
func ItemValue(v string) (title string, checked bool, ok bool) {
	var st struct {
		Title   string `json:"title"`
		Checked bool   `json:"checked"`
	}
	if json.Unmarshal([]byte(v), &st) != nil || st.Title == "" {
		return "", false, false
	}
	return st.Title, st.Checked, true
}

func (c Item) item(t *nod.Task) (*nod.ChecklistItem, error) {
	it, ok := t.Item(c.ItemID)
	if !ok {
		return nil, fmt.Errorf("checklist item %q is not on task %q: %w", c.ItemID, t.Title, nod.ErrNotFound)
	}
	return it, nil
}

func (c Item) Current(t *nod.Task) (string, error) {
	it, err := c.item(t)
	if err != nil {
		return "", err
	}
	return string(MustJSON(stateOf(it))), nil
}

func (c Item) Target(t *nod.Task) (string, error) {
	it, err := c.item(t)
	if err != nil {
		return "", err
	}
	if c.Remove {
		return "", nil // gone
	}
	s := stateOf(it)
	if c.Title != nil {
		s.Title = *c.Title
	}
	if c.Checked != nil {
		s.Checked = *c.Checked
	}
	return string(MustJSON(s)), nil
}

func (c Item) Summary(t *nod.Task) string {
	old, found := "item "+shortID(c.ItemID), false
	if t != nil {
		if it, ok := t.Item(c.ItemID); ok {
			old, found = fmt.Sprintf("%q", it.Title), true
		}
	}
	if c.Remove {
		return "Remove from the checklist: " + old
	}
	var parts []string
	if c.Title != nil && (!found || old != fmt.Sprintf("%q", *c.Title)) {
		parts = append(parts, fmt.Sprintf("Rename: %s → %q", old, *c.Title))
	}
	if c.Checked != nil && (!found || c.ChangesCheck(t)) {
		verb := "Uncheck"
		if *c.Checked {
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

// ChangesCheck reports whether the change flips the item's checked state
// in t; removing a ticked item takes its tick away too.
func (c Item) ChangesCheck(t *nod.Task) bool {
	it, err := c.item(t)
	if c.Remove {
		return err == nil && it.Checked
	}
	return err == nil && c.Checked != nil && *c.Checked != it.Checked
}

// MinReason is the shortest reason that lets the agent on its own change
// the checked state of an item the person set (docs/design.md §5).
const MinReason = 20

// Sovereign returns why the agent on its own may not flip the checked
// state of the person's item in t, or "" if it may: the item is the
// agent's, the check does not change, or the reason is long enough.
func (c Item) Sovereign(t *nod.Task) string {
	if !c.ChangesCheck(t) {
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
	switch n := len([]rune(c.Reason)); {
	case n == 0:
		return fmt.Sprintf("Not changed: the user set %q %s. Provide a reason (≥ %d characters) citing evidence from after that time to change its checked state.", it.Title, when, MinReason)
	case n < MinReason:
		return fmt.Sprintf("Not changed: the reason for %q is too short (%d characters, minimum %d); the user set it %s. Cite evidence from after that time.", it.Title, n, MinReason, when)
	}
	return ""
}

// TitleOnly drops the check part of the change; ok is false if nothing is
// left.
func (c Item) TitleOnly() (Item, bool) {
	c.Checked, c.Reason = nil, ""
	return c, c.Title != nil && !c.Remove
}

func (c Item) Apply(t *nod.Task, now time.Time, by nod.Actor) error {
	it, err := c.item(t)
	if err != nil {
		return err
	}
	if c.Remove {
		t.Checklist = slices.DeleteFunc(t.Checklist, func(x nod.ChecklistItem) bool { return x.ID == c.ItemID })
		return nil
	}
	if c.Title != nil {
		it.Title = *c.Title
	}
	if c.Checked != nil && *c.Checked != it.Checked {
		it.Checked, it.CheckedBy, it.CheckedAt = *c.Checked, by, &now
	}
	return nil
}

// shortID cuts an id that could not be looked up to 8 characters.
func shortID(id nod.ItemID) string {
	if len(id) > 8 {
		return string(id[:8]) + "…"
	}
	return string(id)
}

// sameText compares texts ignoring case and runs of white space.
func sameText(a, b string) bool { return nod.FoldText(a) == nod.FoldText(b) }

// CheckState names a checked state in English: "checked", "unchecked".
func CheckState(checked bool) string {
	if checked {
		return "checked"
	}
	return "unchecked"
}
