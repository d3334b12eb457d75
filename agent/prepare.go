package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/repeat"
	"github.com/nodbot/nod/tools"
)

// proposal is a mutating call, validated and compared with the tasks as
// they are, waiting to be routed.
type proposal struct {
	idx     int
	start   time.Time
	tool    Tool
	args    tools.Args
	changes []prepared
	dropped []string       // one line per kind of dropped element
	answer  *answerCall    // answer_proposals: a decision stated in words
	ext     *externalCall  // a call of an external tool (external.go)
	zone    *time.Location // set_chat_timezone: the zone asked for
	city    *nod.City      // the city that named it, nil for a zone's name
	stay    nod.Stay       // when, and where, the chat goes from zone; zero: it stays
}

// prepared is one change of a proposal with the values it was read with.
type prepared struct {
	c           tools.Call
	task        *nod.Task // nil for create_task
	cur, target string
	rule        *nod.Rule // the learned rule that applies it without asking
	// quote is the person's words for this part of a call, when they are
	// not the verdict's quote (a field of a new task asked for apart).
	quote string
}

// prepare runs a call that needs no routing and returns its result, or
// returns the proposal a mutating call makes. It never fails: every
// problem becomes a result the model can act on.
func (t *turn) prepare(ctx context.Context, call nod.ToolCall) (*proposal, string) {
	if nod.Tool(call.Name).External() {
		// Exactly as offered: no alias or folding ever maps a name onto
		// an external tool.
		return t.prepareExternal(ctx, call)
	}
	start := time.Now()
	tool, ok := Lookup(call.Name)
	if !ok {
		err := fmt.Sprintf("unknown tool %q: it does not exist and nothing was done; use only the tools you were given", call.Name)
		t.record(start, nod.Tool(call.Name), nil, nod.OutcomeFailed, err)
		return nil, errorJSON(errors.New(err))
	}
	a, err := tools.Decode(tool.Name, call.Arguments)
	if err != nil {
		t.record(start, tool.Name, nil, nod.OutcomeFailed, nod.Detail(err))
		return nil, errorJSON(err)
	}
	a.Zone, a.Now = t.reading(), t.a.now()
	if tool.Name == nod.ToolSetTimezone {
		return t.prepareZone(start, tool, a)
	}
	switch tool.Risk {
	case nod.ReadOnly:
		out, err := t.read(ctx, tool, a)
		if err != nil {
			t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, nod.Detail(err))
			return nil, errorJSON(err)
		}
		t.record(start, tool.Name, a.JSON(), nod.OutcomeExecuted, "")
		return nil, out
	case nod.Decides:
		call, err := t.prepareAnswer(ctx, a)
		if err != nil {
			t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, nod.Detail(err))
			return nil, errorJSON(err)
		}
		if why := t.refusedByWords(call); why != "" {
			t.record(start, tool.Name, a.JSON(), nod.OutcomeBlocked, why)
			return nil, "Not decided: " + why
		}
		return &proposal{start: start, tool: tool, args: a, answer: call}, ""
	case nod.Destructive:
		out, err := t.askDeletion(ctx, a)
		if err != nil {
			t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, nod.Detail(err))
			return nil, errorJSON(err)
		}
		t.record(start, tool.Name, a.JSON(), nod.OutcomeQueued, "")
		return nil, out
	}
	p, err := t.validate(ctx, tool, a)
	if err != nil {
		t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, nod.Detail(err))
		return nil, errorJSON(err)
	}
	p.start = start
	if len(p.changes) == 0 {
		out := strings.Join(p.dropped, "\n")
		t.record(start, tool.Name, a.JSON(), nod.OutcomeBlocked, out)
		return nil, out
	}
	return p, ""
}

// askDeletion never deletes: it asks the person to type the task's title,
// whatever the mode and whatever the classifier would say.
func (t *turn) askDeletion(ctx context.Context, a tools.Args) (string, error) {
	id, _, err := a.Str("task_id", true)
	if err != nil {
		return "", err
	}
	task, err := t.a.tasks.Task(ctx, t.req.ChatID, nod.TaskID(strings.TrimSpace(id)))
	if errors.Is(err, nod.ErrNotFound) {
		return "", fmt.Errorf("delete_task: %w: %w", missingTask(nod.TaskID(id), err), nod.ErrInvalid)
	}
	if err != nil {
		return "", err
	}
	for _, d := range t.deletions {
		if d.TaskID == task.ID {
			return resultDeletion, nil // its question is asked once
		}
	}
	// Each call gets its own question, asked after the ones before it.
	t.deletions = append(t.deletions, nod.PendingDeletion{Topic: t.req.Topic, UserID: t.req.UserID, TaskID: task.ID, Title: task.Title,
		Checklist: len(task.Checklist), Wait: t.a.opts.ConfirmWindow})
	return resultDeletion, nil
}

// validate parses a mutating call and compares each of its changes with
// the task as it is, dropping no-ops, repeats and invented item ids.
func (t *turn) validate(ctx context.Context, tool Tool, a tools.Args) (*proposal, error) {
	changes, notes, err := a.Calls()
	if err != nil {
		return nil, err
	}
	p := &proposal{tool: tool, args: a}
	var missing, redundant []string
	tasks := map[nod.TaskID]*nod.Task{}
	for _, c := range changes {
		var task *nod.Task
		if id := c.TaskID(); id != "" {
			if task = tasks[id]; task == nil {
				got, err := t.a.tasks.Task(ctx, t.req.ChatID, id)
				if errors.Is(err, nod.ErrNotFound) {
					return nil, fmt.Errorf("%s: %w: %w", tool.Name, missingTask(id, err), nod.ErrInvalid)
				}
				if err != nil {
					return nil, err
				}
				task = &got
				tasks[id] = task
			}
		}
		if occ, note := t.thisTimeOnly(c, task); occ != nil {
			c = occ
			notes = append(notes, note)
		}
		cur, err := c.Current(task)
		if errors.Is(err, nod.ErrNotFound) {
			missing = append(missing, itemIDOf(c))
			continue
		}
		if err != nil {
			return nil, err
		}
		target, err := c.Target(task)
		if err != nil {
			return nil, err
		}
		t.readInNamed(c, task, target)
		if cur == target && c.Field() == nod.FieldRepeat && target == "" {
			continue // a cleared reminder's rule goes with it; none to clear is nothing to say
		}
		if cur == target || c.Field() == nod.FieldRepeat && repeat.Restarts(cur, target, t.reading()) {
			redundant = append(redundant, noopReason(c, task, t.reading()))
			continue
		}
		if whose := t.othersReminder(c, task, target); whose != 0 {
			return nil, fmt.Errorf("%s: the reminder of %q is member %d's, who set it; in a group only they can move or clear it, or close the task it reminds of, and a task has one reminder: %w", tool.Name, task.Title, whose, nod.ErrInvalid)
		}
		seen := seenKey(c, task)
		if t.seen[seen] {
			redundant = append(redundant, fmt.Sprintf("%q is already proposed in this turn", strings.TrimPrefix(c.Summary(task), "Add: ")))
			continue
		}
		key := fieldKey(c)
		if key != "" && t.fields[key] {
			return nil, fmt.Errorf("%s: a %s change for %q is already proposed in this turn; propose each field once: %w", tool.Name, c.Field(), task.Title, nod.ErrInvalid)
		}
		// Reserved now, so that later calls of the same step see them; not a
		// check the guard may still block, so the agent can retry it with a
		// reason.
		if u, ok := c.(tools.Item); !ok || u.Sovereign(task) == "" {
			t.seen[seen] = true
		}
		if key != "" {
			t.fields[key] = true
		}
		p.changes = append(p.changes, prepared{c: c, task: task, cur: cur, target: target})
	}
	if len(redundant) == 1 && len(changes) == 1 {
		p.dropped = append(p.dropped, redundant[0])
		if !t.req.Review {
			t.notices = append(t.notices, noopNote(changes[0], tasks[changes[0].TaskID()]))
		}
	} else if len(redundant) > 0 {
		p.dropped = append(p.dropped, fmt.Sprintf("Skipped %d redundant item(s): %s.", len(redundant), strings.Join(redundant, "; ")))
	}
	if len(missing) > 0 {
		p.dropped = append(p.dropped, fmt.Sprintf("Not queued: %s are not checklist items of this task; use only item ids from get_task, never invent them.", strings.Join(missing, ", ")))
	}
	p.dropped = append(p.dropped, notes...)
	return p, nil
}

// thisTimeOnly reads "done" said of a task whose reminder repeats as the
// reminder's ✓ Done does: this time is done, and the task stays open and
// reminds at the rule's next time; nil for any other change. Played, "I
// watered them" closed a weekly chore for good, while the model told the
// person its reminder was still set. A step that changes the repeat too
// closes the task as asked.
func (t *turn) thisTimeOnly(c tools.Call, task *nod.Task) (tools.Call, string) {
	if c.Field() != nod.FieldStatus || task == nil || task.Repeat == "" || task.RemindAt == nil ||
		task.Status == nod.StatusDone || task.Status == nod.StatusRejected || t.fields[taskField(task.ID, nod.FieldRepeat)] {
		return nil, ""
	}
	if target, err := c.Target(task); err != nil || target != string(nod.StatusDone) {
		return nil, ""
	}
	rule, err := repeat.Read(task.Repeat)
	if err != nil {
		return nil, ""
	}
	from := t.a.now()
	if task.RemindAt.After(from) {
		from = *task.RemindAt
	}
	next, ok := rule.Next(t.zone, from)
	if !ok {
		return nil, "" // its last time: done is done
	}
	occ := tools.Occurrence(*task, next.In(t.zone))
	moved := ""
	if task.DueDate != "" {
		// Said: played, the person asked which Saturday "due Sat" was.
		after := *task
		if occ.Apply(&after, t.a.now(), nod.ActorUser) == nil && after.DueDate != task.DueDate {
			moved = fmt.Sprintf(", its due date moved with it from %s to %s", task.DueDate, after.DueDate)
		}
	}
	return occ, fmt.Sprintf("%q has a repeating reminder: only this time is done, as its reminder's ✓ Done button does, and the task stays open and reminds next at %s%s. To end it for good, clear its repeat first (set_task_reminder with repeat null), then set its status.",
		task.Title, zoned(next, t.zone), moved)
}

// seenKey names change c of task among those a turn proposed or made.
func seenKey(c tools.Call, task *nod.Task) string {
	return string(c.Tool()) + "/" + string(c.TaskID()) + "/" + nod.FoldText(c.Summary(task))
}

// unreserve gives back what validate reserved for changes that did not
// happen after all (their call failed when it ran): the model may make
// them again in this turn, and is not told that they are "already
// proposed".
func (t *turn) unreserve(changes []prepared) {
	for _, pc := range changes {
		delete(t.seen, seenKey(pc.c, pc.task))
		if key := fieldKey(pc.c); key != "" {
			delete(t.fields, key)
		}
	}
}

// othersReminder is the member whose upcoming reminder change c would
// move or clear in a group, or 0: a reminder belongs to whoever set it
// (docs/design.md §10), in words as in taps. One that went out is
// nobody's to keep.
func (t *turn) othersReminder(c tools.Call, task *nod.Task, target string) nod.UserID {
	// Closing the task ends its reminder as surely as clearing it: played,
	// another member's "done" silenced a reminder its person counted on.
	closes := c.Field() == nod.FieldStatus && (target == string(nod.StatusDone) || target == string(nod.StatusRejected))
	if !t.req.InGroup() || c.Field() != nod.FieldReminder && c.Field() != nod.FieldRepeat && !closes || task == nil || task.RemindAt == nil || !task.RemindAt.After(t.a.now()) {
		return 0
	}
	if task.RemindBy == 0 || task.RemindBy == t.req.UserID {
		return 0
	}
	return task.RemindBy
}

// fieldKey names the scalar field a change sets; checklist changes and new
// tasks have none, since several of them in one turn are fine.
func fieldKey(c tools.Call) string {
	switch c.Field() {
	case nod.FieldChecklist, nod.FieldTask:
		return ""
	}
	return taskField(c.TaskID(), c.Field())
}

// taskField is fieldKey's name for field f of task id.
func taskField(id nod.TaskID, f nod.Field) string { return string(id) + "/" + string(f) }

func itemIDOf(c tools.Call) string {
	if u, ok := c.(tools.Item); ok {
		return string(u.ItemID)
	}
	return string(c.TaskID())
}

// noopReason says why a change would change nothing; a reminder's time
// reads in zone, as the model writes it.
func noopReason(c tools.Call, task *nod.Task, zone *time.Location) string {
	switch c.Field() {
	case nod.FieldTitle:
		return fmt.Sprintf("Skipped: title is already %q.", task.Title)
	case nod.FieldDescription:
		return "Skipped: description is already that text."
	case nod.FieldStatus:
		return fmt.Sprintf("Skipped: status is already %s.", task.Status)
	case nod.FieldPriority:
		return fmt.Sprintf("Skipped: priority is already %s.", task.Priority)
	case nod.FieldEstimate:
		return fmt.Sprintf("Skipped: estimate is already %s minutes.", task.Value(nod.FieldEstimate))
	case nod.FieldDue:
		if task.DueDate == "" {
			return "Skipped: due date is already none."
		}
		return fmt.Sprintf("Skipped: due date is already %s.", task.DueDate)
	case nod.FieldReminder:
		if task.RemindAt == nil {
			return "Skipped: the task has no reminder already."
		}
		return fmt.Sprintf("Skipped: the reminder is already at %s (%s).", task.RemindAt.In(zone).Format("2006-01-02T15:04"), zone)
	case nod.FieldRepeat:
		return fmt.Sprintf("Skipped: the reminder already repeats %s.", repeat.Show(task.Repeat))
	case nod.FieldLabels:
		ls := strings.Join(nod.NormalizeLabels(task.Labels), ", ")
		if ls == "" {
			ls = "none"
		}
		return fmt.Sprintf("Skipped: labels are already %s.", ls)
	}
	switch c := c.(type) {
	case tools.AddItem:
		return fmt.Sprintf("%q is already on the task", c.Title)
	case tools.Item:
		it, _ := task.Item(c.ItemID)
		if c.Checked != nil && c.Title == nil {
			return fmt.Sprintf("%q is already %s", it.Title, tools.CheckState(*c.Checked))
		}
		return fmt.Sprintf("%q already reads like that", it.Title)
	}
	return "Skipped: nothing would change."
}

// noopNote tells the person why a change they asked for changes nothing.
func noopNote(c tools.Call, task *nod.Task) nod.Note {
	switch c := c.(type) {
	case tools.AddItem:
		return nod.Note{Key: nod.NoteNoopItem, Args: []string{c.Title, "present"}}
	case tools.Item:
		it, _ := task.Item(c.ItemID)
		state := "same"
		if c.Checked != nil && c.Title == nil {
			state = tools.CheckState(*c.Checked)
		}
		return nod.Note{Key: nod.NoteNoopItem, Args: []string{it.Title, state}}
	}
	if task == nil {
		return nod.Note{Key: nod.NoteAlready}
	}
	cur, _ := c.Current(task)
	// Named: a turn's notices may be of several tasks.
	return nod.Note{Key: nod.NoteNoop, Args: []string{string(c.Field()), cur, task.Title}}
}
