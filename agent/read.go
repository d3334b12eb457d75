package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// read runs a read-only tool.
func (t *turn) read(ctx context.Context, tool Tool, a tools.Args) (string, error) {
	switch tool.Name {
	case nod.ToolGetTask:
		id, _, err := a.Str("task_id", true)
		if err != nil {
			return "", err
		}
		task, err := t.a.tasks.Task(ctx, t.req.ChatID, nod.TaskID(strings.TrimSpace(id)))
		if errors.Is(err, nod.ErrNotFound) {
			return errorJSON(missingTask(nod.TaskID(id), err)), nil
		}
		if err != nil {
			return "", err
		}
		j := toJSON(task, t.zone, t.a.now())
		j.ReminderAfter = t.afterStay(task)
		done, err := t.a.tasks.DoneTimes(ctx, t.req.ChatID, task, t.a.now().Add(-doneLately))
		if err != nil {
			return "", err
		}
		for _, at := range done {
			j.DoneTimes = append(j.DoneTimes, zoned(at, t.zone))
		}
		return string(tools.MustJSON(j)), nil
	case nod.ToolListTasks:
		var f nod.TaskFilter
		q, _, err := a.Str("query", false)
		if err != nil {
			return "", err
		}
		f.Query = q
		if f.Label, _, err = a.Str("label", false); err != nil {
			return "", err
		}
		f.Label = strings.TrimPrefix(strings.TrimSpace(f.Label), "#")
		if s, ok, err := a.Str("status", false); err != nil {
			return "", err
		} else if ok && strings.TrimSpace(s) != "" {
			if f.Status, err = a.Status("status"); err != nil {
				return "", err
			}
		}
		req := nod.PageRequest{Limit: nod.DefaultPage}
		if n, ok, err := a.Integer("limit", false); err != nil {
			return "", err
		} else if ok {
			if n < 1 {
				return "", a.Errorf("limit", "must be at least 1")
			}
			req.Limit = min(n, nod.MaxPage)
		}
		if req.After, _, err = a.Str("cursor", false); err != nil {
			return "", err
		}
		req.After = strings.TrimSpace(req.After)
		page, err := t.listTasks(ctx, f, req)
		if err != nil {
			return "", err
		}
		return listJSON(page, t.zone, t.a.now()), nil
	}
	return "", fmt.Errorf("%s is not a read-only tool", tool.Name)
}

// doneLately is how far back get_task lists a repeating task's times
// marked done: "what did I do this week?" and the week before.
const doneLately = 14 * 24 * time.Hour

// missingTask says why the task with id cannot be read or changed: in the
// trash, which only the user can undo, or never there (an invented id).
func missingTask(id nod.TaskID, err error) error {
	if errors.Is(err, nod.ErrTrashed) {
		return fmt.Errorf("task %q is in the trash: you cannot read, change or restore it; the user can restore it with /trash, or with the button on nod's message that put it there (Undo on a deletion's, ↪️ Redo on an undone creation's)", id)
	}
	return fmt.Errorf("task %q does not exist; use only ids from list_tasks or get_task, never invent them", id)
}
