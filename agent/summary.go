package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nodbot/nod"
)

// classifierSummary renders a call for the classifier: nod's own template
// over the call's arguments, new values cut to 80 characters, covering
// every field the call sets, so that nothing the person did not ask for
// rides along unseen. It never uses the model's human_summary. The task is
// named by its title (cut to 60); other stored text stays out: a checklist
// item is named by its title only when the person's own words (said)
// contain it, else by its id.
func classifierSummary(tool nod.Tool, a args, task *nod.Task, said string) string {
	name := "task " + cut(a.text("task_id"))
	if task != nil {
		name = fmt.Sprintf("task %q", cutTo(task.Title, 60))
	}
	switch tool {
	case nod.ToolCreateTask:
		s := fmt.Sprintf("create a task titled %q", cut(a.text("title")))
		for _, f := range []string{"priority", "due_date", "estimate_minutes"} {
			if v := a.text(f); v != "" && v != "null" {
				s += fmt.Sprintf(", %s %s", strings.ReplaceAll(f, "_", " "), cut(v))
			}
		}
		if ls, _, _ := a.strings("labels", false); len(ls) > 0 {
			s += fmt.Sprintf(", labels [%s]", cut(strings.Join(ls, ", ")))
		}
		if d := a.text("description"); strings.TrimSpace(d) != "" && d != "null" {
			s += fmt.Sprintf(", description %q", cut(d))
		}
		return s
	case nod.ToolSetTitle:
		return fmt.Sprintf("rename %s to %q", name, cut(a.text("title")))
	case nod.ToolUpdateDescription:
		return fmt.Sprintf("set the description of %s to %q", name, cut(a.text("description")))
	case nod.ToolSetStatus:
		return fmt.Sprintf("set the status of %s to %s", name, cut(a.text("status")))
	case nod.ToolSetPriority:
		return fmt.Sprintf("set the priority of %s to %s", name, cut(a.text("priority")))
	case nod.ToolUpdateEstimate:
		return fmt.Sprintf("set the estimate of %s to %s minutes", name, cut(a.text("estimate_minutes")))
	case nod.ToolUpdateDueDate:
		if d := a.text("due_date"); d != "" && d != "null" {
			return fmt.Sprintf("set the due date of %s to %s", name, cut(d))
		}
		return fmt.Sprintf("clear the due date of %s", name)
	case nod.ToolSetReminder:
		if r := a.text("remind_at"); r != "" && r != "null" {
			return fmt.Sprintf("set a reminder on %s for %s (%s)", name, cut(r), zoneOr(a.zone))
		}
		return fmt.Sprintf("clear the reminder of %s", name)
	case nod.ToolSetTimezone:
		return fmt.Sprintf("set the chat's time zone to %s", cut(a.text("timezone")))
	case nod.ToolAssignLabels:
		ls, _, _ := a.strings("labels", false)
		return fmt.Sprintf("set the labels of %s to [%s]", name, cut(strings.Join(ls, ", ")))
	case nod.ToolAddItems, nod.ToolUpdateItems, nod.ToolRemoveItems:
		return checklistSummary(tool, a, name, task, said)
	}
	return string(tool)
}

// checklistSummary renders a batch checklist call, one part per element.
func checklistSummary(tool nod.Tool, a args, name string, task *nod.Task, said string) string {
	els, _, _ := a.array("items", false)
	var parts []string
	for _, e := range els {
		ea, ok := element(tool, e)
		if !ok {
			continue
		}
		if tool == nod.ToolAddItems {
			parts = append(parts, fmt.Sprintf("%q", cut(ea.text("title"))))
			continue
		}
		item := itemName(task, ea.text("id"), said)
		if tool == nod.ToolRemoveItems {
			parts = append(parts, item)
			continue
		}
		var p []string
		if t := ea.text("title"); t != "" {
			p = append(p, fmt.Sprintf("rename to %q", cut(t)))
		}
		if c, ok, _ := checkedArg(ea); ok {
			p = append(p, map[bool]string{true: "check", false: "uncheck"}[c])
		}
		parts = append(parts, fmt.Sprintf("%s: %s", item, strings.Join(p, " and ")))
	}
	switch tool {
	case nod.ToolAddItems:
		return fmt.Sprintf("add %s to the checklist of %s: %s", countItems(len(parts)), name, strings.Join(parts, ", "))
	case nod.ToolRemoveItems:
		return fmt.Sprintf("remove %s from the checklist of %s: %s", countItems(len(parts)), name, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("change %s of the checklist of %s: %s", countItems(len(parts)), name, strings.Join(parts, "; "))
}

func countItems(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// itemName names a checklist item for the classifier: by its title when
// the person's words contain it, else by its id.
func itemName(task *nod.Task, id, said string) string {
	if task != nil {
		if it, ok := task.Item(strings.TrimSpace(id)); ok && it.Title != "" && strings.Contains(nod.FoldText(said), nod.FoldText(it.Title)) {
			return fmt.Sprintf("item %q", cut(it.Title))
		}
	}
	return "item " + cut(id)
}

// text returns a field as text whatever its JSON type; empty if absent.
func (a args) text(name string) string {
	if !a.present(name) {
		return ""
	}
	var s string
	if json.Unmarshal(a.m[name], &s) == nil {
		return s
	}
	return string(a.m[name])
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
