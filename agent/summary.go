package agent

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/repeat"
	"github.com/nodbot/nod/tools"
)

// classifierSummary renders a call for the classifier: nod's own template
// over the call's changes as validated, never the model's human_summary.
// For every field the call sets it says the value it replaces as well as
// the new one ("priority: P3 → P1", "labels: bug → backend (removes
// bug)"), new values cut to 80 characters, so that nothing the person did
// not ask for rides along or goes away unseen (docs/design.md §3.3). The
// task is named by its title (cut to 60); other stored text stays out: a
// replaced description is said to be replaced, and a checklist item is
// named by its title only when the person's own words (said) contain it,
// else by its id. chat is the chat's zone as it is, for set_chat_timezone.
func classifierSummary(p *proposal, said string, chat *time.Location) string {
	if p.zone != nil {
		line := fmt.Sprintf("set the chat's time zone: %s → %s", zoneOr(chat), p.zone)
		if !p.stay.Until.IsZero() {
			line += fmt.Sprintf(" until %s, then back to %s", p.stay.Until.In(p.zone).Format("2006-01-02T15:04"), p.stay.BackFrom(zoneOr(chat).String()))
		}
		return line
	}
	if p.ext != nil {
		return "call " + externalSummary(p.ext.tool.Name, p.ext.args)
	}
	if len(p.changes) == 0 {
		return string(p.tool.Name)
	}
	pc := p.changes[0]
	name := "task " + cut(string(pc.c.TaskID()))
	if pc.task != nil {
		name = fmt.Sprintf("task %q", cutTo(pc.task.Title, 60))
	}
	switch c := pc.c.(type) {
	case tools.Create:
		return createSummary(c.NewTask(), p.args)
	case tools.AddItem, tools.Item:
		return checklistSummary(p, name, said)
	}
	if (nod.ChangeItem{Tool: pc.c.Tool(), Summary: pc.c.Summary(pc.task)}).CompletesOccurrence() { // a repeating reminder's task said done (thisTimeOnly)
		return fmt.Sprintf("%s: mark this time of its repeating reminder done (the task stays open; %s)", name, fieldLine(pc.c.Field(), pc.cur, pc.target, zoneOr(p.args.Zone)))
	}
	line := fmt.Sprintf("%s: %s", name, fieldLine(pc.c.Field(), pc.cur, pc.target, zoneOr(p.args.Zone)))
	// A call that sets more than one field (a reminder and its repeat) is
	// one action: the classifier judges it by every field it sets.
	for _, more := range p.changes[1:] {
		if more.c.TaskID() == pc.c.TaskID() && more.c.Field() != pc.c.Field() {
			line += "; " + fieldLine(more.c.Field(), more.cur, more.target, zoneOr(p.args.Zone))
		}
	}
	return line
}

// fieldLine says a field's change, old value first: "priority: P3 → P1".
// A description's old text is stored text and never shown.
func fieldLine(f nod.Field, before, after string, zone *time.Location) string {
	switch f {
	case nod.FieldDescription:
		old := "none"
		if before != "" {
			old = "(stored text, not shown)"
		}
		return fmt.Sprintf("description: %s → %s", old, textValue(after))
	case nod.FieldTitle:
		return fmt.Sprintf("title: %q → %q", cutTo(before, 60), cut(after))
	case nod.FieldLabels:
		line := fmt.Sprintf("labels: %s → %s", cut(labelList(nod.ParseLabels(before))), cut(labelList(nod.ParseLabels(after))))
		if gone := removedLabels(before, after); len(gone) > 0 {
			line += fmt.Sprintf(" (removes %s)", cut(strings.Join(gone, ", ")))
		}
		return line
	case nod.FieldReminder:
		line := fmt.Sprintf("reminder: %s → %s (%s)", reminderValue(before, zone), reminderValue(after, zone), zone)
		if at, clock, err := nod.ParseReminderValue(after); err == nil && clock != nil {
			// "9 Berlin time" reads as they said it.
			there, where := nod.ClockIn(at, *clock)
			if nod.SameDay(there, at.In(zone)) {
				line += ", given as " + there.Format("15:04") + " " + where
			} else { // the 1st in Sydney is the 31st in London
				line += ", given as " + there.Format("2006-01-02T15:04") + " " + where
			}
		}
		return line
	case nod.FieldRepeat:
		return fmt.Sprintf("repeat: %s → %s", repeatValue(before), repeatValue(after))
	}
	// A field is named as the classifier's per-field quotes name it
	// (confidence.FieldName): "due", "estimate".
	return fmt.Sprintf("%s: %s → %s", f, scalarValue(f, before), cut(scalarValue(f, after)))
}

// scalarValue renders a canonical value for the classifier; "" is none.
func scalarValue(f nod.Field, v string) string {
	switch {
	case v == "":
		return "none"
	case f == nod.FieldEstimate:
		return v + " minutes"
	}
	return v
}

func textValue(v string) string {
	if v == "" {
		return "none"
	}
	return strconv.Quote(cut(v))
}

func labelList(ls []string) string {
	if len(ls) == 0 {
		return "none"
	}
	return strings.Join(ls, ", ")
}

// repeatValue renders a stored rule as its RRULE, the time of day it
// repeats at (a new time of a daily rule is the same RRULE) and the clock
// it keeps: the chat's, whichever zone it is in ("wherever I am"), or a
// place's ("9 their time").
func repeatValue(v string) string {
	if v == "" {
		return "none"
	}
	if r, err := repeat.Read(v); err == nil && r.Zone != "" {
		return repeat.Describe(v) + " (whatever the chat's zone)"
	}
	return repeat.Describe(v) + " (follows the chat's zone)"
}

// reminderValue renders a reminder's canonical time as the local time the
// person gives it, in zone.
func reminderValue(v string, zone *time.Location) string {
	at, _, err := nod.ParseReminderValue(v)
	if err != nil {
		return "none"
	}
	return at.In(zone).Format("2006-01-02T15:04")
}

// removedLabels lists the labels of canonical set before that after lacks,
// compared ignoring case.
func removedLabels(before, after string) []string {
	keep := map[string]bool{}
	for _, l := range nod.ParseLabels(after) {
		keep[strings.ToLower(l)] = true
	}
	var gone []string
	for _, l := range nod.ParseLabels(before) {
		if !keep[strings.ToLower(l)] {
			gone = append(gone, l)
		}
	}
	return gone
}

// createSummary names a new task and every field the call gives it,
// each as the classifier's per-field quotes name it.
func createSummary(t nod.Task, a tools.Args) string {
	var fs []string
	if a.Present("priority") {
		fs = append(fs, "priority: "+string(t.Priority))
	}
	if t.DueDate != "" {
		fs = append(fs, "due: "+t.DueDate)
	}
	if t.EstimateMinutes != nil {
		fs = append(fs, fmt.Sprintf("estimate: %d minutes", *t.EstimateMinutes))
	}
	if len(t.Labels) > 0 {
		fs = append(fs, "labels: "+cut(strings.Join(t.Labels, ", ")))
	}
	if t.Description != "" {
		fs = append(fs, "description: "+textValue(t.Description))
	}
	s := fmt.Sprintf("create a task titled %q", cut(t.Title))
	if len(fs) > 0 {
		s += " with " + strings.Join(fs, "; ")
	}
	return s
}

// checklistSummary renders a batch checklist call, one part per change:
// what it adds, and the state each changed item leaves.
func checklistSummary(p *proposal, name, said string) string {
	var parts []string
	for _, pc := range p.changes {
		switch c := pc.c.(type) {
		case tools.AddItem:
			parts = append(parts, fmt.Sprintf("%q", cut(c.Title)))
		case tools.Item:
			parts = append(parts, itemLine(c, pc.task, said))
		}
	}
	switch p.tool.Name {
	case nod.ToolAddItems:
		return fmt.Sprintf("add %s to the checklist of %s: %s", countItems(len(parts)), name, strings.Join(parts, ", "))
	case nod.ToolRemoveItems:
		return fmt.Sprintf("remove %s from the checklist of %s: %s", countItems(len(parts)), name, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("change %s of the checklist of %s: %s", countItems(len(parts)), name, strings.Join(parts, "; "))
}

// itemLine says what a change does to one checklist item: a removal names
// the state it takes away, an edit the new title and the checked state
// before and after.
func itemLine(c tools.Item, task *nod.Task, said string) string {
	item := itemName(task, c.ItemID, said)
	var it *nod.ChecklistItem
	if task != nil {
		it, _ = task.Item(c.ItemID)
	}
	if c.Remove {
		if it == nil {
			return item
		}
		return fmt.Sprintf("%s (%s)", item, tools.CheckState(it.Checked))
	}
	var p []string
	if c.Title != nil {
		p = append(p, fmt.Sprintf("renamed to %q", cut(*c.Title)))
	}
	if c.Checked != nil && (it == nil || it.Checked != *c.Checked) {
		p = append(p, fmt.Sprintf("%s → %s", tools.CheckState(!*c.Checked), tools.CheckState(*c.Checked)))
	}
	return item + ": " + strings.Join(p, ", ")
}

func countItems(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// itemName names a checklist item for the classifier: by its title when
// the person's words contain it, else by its id.
func itemName(task *nod.Task, id nod.ItemID, said string) string {
	if task != nil {
		if it, ok := task.Item(nod.ItemID(strings.TrimSpace(string(id)))); ok && it.Title != "" && strings.Contains(nod.FoldText(said), nod.FoldText(it.Title)) {
			return fmt.Sprintf("item %q", cut(it.Title))
		}
	}
	return "item " + cut(string(id))
}

// cut shortens a value to 80 characters.
func cut(s string) string { return cutTo(s, 80) }

// cutTo shortens s, white space folded, to n characters.
func cutTo(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// zoneOr is z, or UTC for a chat that has none.
func zoneOr(z *time.Location) *time.Location {
	if z == nil {
		return time.UTC
	}
	return z
}
