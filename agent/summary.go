package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// classifierSummary renders a call for the classifier: nod's own template
// over the call's arguments, new values cut to 80 characters. It never uses
// the model's human_summary, and never stored task text: tasks are named by
// id, so a task's content cannot speak to the classifier.
func classifierSummary(tool string, a args) string {
	id := cut(a.text("task_id"))
	switch tool {
	case "create_task":
		s := fmt.Sprintf("create a task titled %q", cut(a.text("title")))
		for _, f := range []string{"priority", "due_date", "estimate_minutes"} {
			if v := a.text(f); v != "" {
				s += fmt.Sprintf(", %s %s", f, cut(v))
			}
		}
		return s
	case "set_task_title":
		return fmt.Sprintf("rename task %s to %q", id, cut(a.text("title")))
	case "update_task_description":
		return fmt.Sprintf("set the description of task %s to %q", id, cut(a.text("description")))
	case "set_task_status":
		return fmt.Sprintf("set the status of task %s to %s", id, cut(a.text("status")))
	case "set_task_priority":
		return fmt.Sprintf("set the priority of task %s to %s", id, cut(a.text("priority")))
	case "update_task_estimate":
		return fmt.Sprintf("set the estimate of task %s to %s minutes", id, cut(a.text("estimate_minutes")))
	case "update_task_due_date":
		if d := a.text("due_date"); d != "" {
			return fmt.Sprintf("set the due date of task %s to %s", id, cut(d))
		}
		return fmt.Sprintf("clear the due date of task %s", id)
	case "assign_task_labels":
		ls, _, _ := a.strings("labels", false)
		return fmt.Sprintf("set the labels of task %s to [%s]", id, cut(strings.Join(ls, ", ")))
	case "add_multiple_checklist_items", "update_checklist_items":
		els, _, _ := a.array("items", false)
		var parts []string
		for _, e := range els {
			ea, ok := element(tool, e)
			if !ok {
				continue
			}
			if tool == "add_multiple_checklist_items" {
				parts = append(parts, fmt.Sprintf("%q", cut(ea.text("title"))))
				continue
			}
			var p []string
			if t := ea.text("title"); t != "" {
				p = append(p, fmt.Sprintf("rename to %q", cut(t)))
			}
			if c, ok, _ := ea.boolean("isChecked"); ok {
				p = append(p, map[bool]string{true: "check", false: "uncheck"}[c])
			}
			parts = append(parts, fmt.Sprintf("item %s: %s", cut(ea.text("id")), strings.Join(p, " and ")))
		}
		if tool == "add_multiple_checklist_items" {
			return fmt.Sprintf("add %d checklist item(s) to task %s: %s", len(parts), id, strings.Join(parts, ", "))
		}
		return fmt.Sprintf("change %d checklist item(s) of task %s: %s", len(parts), id, strings.Join(parts, "; "))
	}
	return tool
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
func cut(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
