package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// Texts the model receives; outside tests script against some of them.
const (
	resultQueued   = "Proposal queued for user review."
	resultDeletion = "Deletion awaits the user's typed confirmation."
)

// turn is the state of one agent turn.
type turn struct {
	a       *Agent
	req     Request
	started time.Time
	msgs    []nod.ChatMessage
	audit   []nod.AuditEntry
	items   []nod.ChangeItem
	fields  map[string]bool // task id + field proposed in this turn
}

// call runs one tool call and returns its result for the model. It never
// fails: every problem becomes a result the model can act on.
func (t *turn) call(ctx context.Context, call nod.ToolCall) string {
	start := time.Now()
	entry := nod.AuditEntry{UserID: t.req.UserID, Tool: call.Name, Args: []byte("{}")}
	record := func(o nod.Outcome, errText string) {
		entry.Outcome, entry.Error, entry.Duration, entry.At = o, errText, time.Since(start), t.a.now()
		t.audit = append(t.audit, entry)
	}
	tool, ok := Lookup(call.Name)
	if !ok {
		err := fmt.Sprintf("unknown tool %q: it does not exist and nothing was done; use only the tools you were given", call.Name)
		record(nod.OutcomeFailed, err)
		return errorJSON(errors.New(err))
	}
	entry.Tool = tool.Name
	a, err := decodeArgs(tool.Name, call.Arguments)
	if err != nil {
		record(nod.OutcomeFailed, userError(err))
		return errorJSON(err)
	}
	entry.Args = a.JSON()
	switch tool.Risk {
	case nod.ReadOnly:
		out, err := t.read(ctx, tool, a)
		if err != nil {
			record(nod.OutcomeFailed, userError(err))
			return errorJSON(err)
		}
		record(nod.OutcomeExecuted, "")
		return out
	case nod.Destructive:
		if _, _, err := a.str("task_id", true); err != nil {
			record(nod.OutcomeFailed, userError(err))
			return errorJSON(err)
		}
		err := "delete_task needs the user's typed confirmation, which this version of nod cannot ask for yet; nothing was deleted. Tell the user to delete it themselves or to keep it."
		record(nod.OutcomeBlocked, err)
		return errorJSON(errors.New(err))
	}
	out, queued, err := t.propose(ctx, tool, a)
	switch {
	case err != nil:
		record(nod.OutcomeFailed, userError(err))
		return errorJSON(err)
	case queued == 0:
		record(nod.OutcomeBlocked, out)
	default:
		record(nod.OutcomeQueued, "")
	}
	return out
}

// read runs a read-only tool.
func (t *turn) read(ctx context.Context, tool Tool, a args) (string, error) {
	switch tool.Name {
	case "get_task":
		id, _, err := a.str("task_id", true)
		if err != nil {
			return "", err
		}
		task, err := t.a.store.Task(ctx, t.req.ChatID, strings.TrimSpace(id))
		if errors.Is(err, nod.ErrNotFound) {
			return errorJSON(fmt.Errorf("task %q does not exist; use only ids from list_tasks, never invent them", id)), nil
		}
		if err != nil {
			return "", err
		}
		return TaskJSON(task), nil
	case "list_tasks":
		var f nod.TaskFilter
		q, _, err := a.str("query", false)
		if err != nil {
			return "", err
		}
		f.Query = q
		if s, ok, err := a.str("status", false); err != nil {
			return "", err
		} else if ok && strings.TrimSpace(s) != "" {
			if f.Status, err = a.status("status"); err != nil {
				return "", err
			}
		}
		tasks, err := t.a.store.ListTasks(ctx, t.req.ChatID, f)
		if err != nil {
			return "", err
		}
		out := struct {
			Tasks []taskJSON `json:"tasks"`
		}{Tasks: make([]taskJSON, 0, len(tasks))}
		for _, task := range tasks {
			out.Tasks = append(out.Tasks, toJSON(task))
		}
		return string(mustJSON(out)), nil
	}
	return "", fmt.Errorf("%s is not a read-only tool", tool.Name)
}

// propose turns a mutating call into change items of the turn's set. It
// returns the result for the model and how many items were queued; what
// was dropped is explained one line per kind.
func (t *turn) propose(ctx context.Context, tool Tool, a args) (string, int, error) {
	changes, notes, err := tool.parse(a)
	if err != nil {
		return "", 0, err
	}
	var (
		queued    int
		missing   []string // invented checklist item ids
		redundant []string
		overflow  []string
	)
	tasks := map[string]*nod.Task{}
	for _, c := range changes {
		var task *nod.Task
		if id := c.task(); id != "" {
			if task = tasks[id]; task == nil {
				got, err := t.a.store.Task(ctx, t.req.ChatID, id)
				if errors.Is(err, nod.ErrNotFound) {
					return "", 0, fmt.Errorf("%s: task %q does not exist; use only ids from list_tasks or get_task, never invent them: %w", tool.Name, id, nod.ErrInvalid)
				}
				if err != nil {
					return "", 0, err
				}
				task = &got
				tasks[id] = task
			}
		}
		cur, err := c.current(task)
		if errors.Is(err, nod.ErrNotFound) {
			missing = append(missing, itemIDOf(c))
			continue
		}
		if err != nil {
			return "", 0, err
		}
		target, err := c.target(task)
		if err != nil {
			return "", 0, err
		}
		if cur == target {
			redundant = append(redundant, noopReason(c, task))
			continue
		}
		if t.proposedInTurn(c, task) {
			redundant = append(redundant, fmt.Sprintf("%q is already proposed in this turn", strings.TrimPrefix(c.summary(task), "Add: ")))
			continue
		}
		if key := fieldKey(c); key != "" && t.fields[key] {
			return "", 0, fmt.Errorf("%s: a %s change for %q is already proposed in this turn; propose each field once: %w", tool.Name, c.field(), task.Title, nod.ErrInvalid)
		}
		if len(t.items) >= nod.MaxItems {
			overflow = append(overflow, c.summary(task))
			continue
		}
		if key := fieldKey(c); key != "" {
			t.fields[key] = true
		}
		t.items = append(t.items, nod.ChangeItem{
			Tool: c.tool(), TaskID: c.task(), Args: c.args(), Summary: c.summary(task),
			Field: c.field(), Before: cur, After: target,
		})
		queued++
	}
	var lines []string
	if queued > 0 {
		lines = append(lines, resultQueued)
	}
	if len(redundant) == 1 && len(changes) == 1 {
		lines = append(lines, redundant[0])
	} else if len(redundant) > 0 {
		lines = append(lines, fmt.Sprintf("Skipped %d redundant item(s): %s.", len(redundant), strings.Join(redundant, "; ")))
	}
	if len(missing) > 0 {
		lines = append(lines, fmt.Sprintf("Not queued: %s are not checklist items of this task; use only item ids from get_task, never invent them.", strings.Join(missing, ", ")))
	}
	if len(overflow) > 0 {
		lines = append(lines, fmt.Sprintf("The change set is full (%d items); not queued: %s.", nod.MaxItems, strings.Join(overflow, "; ")))
	}
	lines = append(lines, notes...)
	return strings.Join(lines, "\n"), queued, nil
}

// proposedInTurn reports whether an identical change is already queued.
func (t *turn) proposedInTurn(c change, task *nod.Task) bool {
	for _, it := range t.items {
		if it.Tool == c.tool() && it.TaskID == c.task() && sameText(it.Summary, c.summary(task)) {
			return true
		}
	}
	return false
}

// fieldKey names the scalar field a change sets; checklist changes and new
// tasks have none, since several of them in one turn are fine.
func fieldKey(c change) string {
	switch c.field() {
	case nod.FieldChecklist, nod.FieldTask:
		return ""
	}
	return c.task() + "/" + string(c.field())
}

func itemIDOf(c change) string {
	if u, ok := c.(updateItem); ok {
		return u.itemID
	}
	return c.task()
}

// noopReason says why a change would change nothing.
func noopReason(c change, task *nod.Task) string {
	switch c.field() {
	case nod.FieldTitle:
		return fmt.Sprintf("Skipped: title is already %q.", task.Title)
	case nod.FieldDescription:
		return "Skipped: description is already that text."
	case nod.FieldStatus:
		return fmt.Sprintf("Skipped: status is already %s.", task.Status)
	case nod.FieldPriority:
		return fmt.Sprintf("Skipped: priority is already %s.", task.Priority)
	case nod.FieldEstimate:
		return fmt.Sprintf("Skipped: estimate is already %s minutes.", estimateString(task.EstimateMinutes))
	case nod.FieldDue:
		if task.DueDate == "" {
			return "Skipped: due date is already none."
		}
		return fmt.Sprintf("Skipped: due date is already %s.", task.DueDate)
	case nod.FieldLabels:
		ls := strings.Join(nod.NormalizeLabels(task.Labels), ", ")
		if ls == "" {
			ls = "none"
		}
		return fmt.Sprintf("Skipped: labels are already %s.", ls)
	}
	switch c := c.(type) {
	case addItem:
		return fmt.Sprintf("%q is already on the task", c.title)
	case updateItem:
		it, _ := task.Item(c.itemID)
		if c.checked != nil && c.title == nil {
			state := "unchecked"
			if *c.checked {
				state = "checked"
			}
			return fmt.Sprintf("%q is already %s", it.Title, state)
		}
		return fmt.Sprintf("%q already reads like that", it.Title)
	}
	return "Skipped: nothing would change."
}
