package agent

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// docs/design.md §3.3, as a property: for any call of any mutating tool
// on any task, the classifier's line names every field the call changes
// with the value it had, and every label it removes; stored free text
// (a description, checklist titles the person did not write) stays out.
func TestSummaryNamesWhatItReplaces(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 13))
	berlin, _ := time.LoadLocation("Europe/Berlin")
	checked := 0
	for range 3000 {
		task := randomTask(r)
		tool, raw := randomCall(r, task)
		a, err := tools.Decode(tool.Name, raw)
		if err != nil {
			t.Fatalf("%s %s: %v", tool.Name, raw, err)
		}
		a.Zone = berlin
		p, ok := prepareOffline(tool, a, task)
		if !ok {
			continue
		}
		checked++
		s := classifierSummary(p, "", berlin)
		for _, pc := range p.changes {
			for _, want := range expectedParts(pc, a, berlin) {
				if !strings.Contains(s, want) {
					t.Fatalf("%s %s on %+v:\n%s\nlacks %q", tool.Name, raw, task, s, want)
				}
			}
		}
		if task.Description != "" && strings.Contains(s, task.Description) {
			t.Fatalf("%s %s: the stored description shows:\n%s", tool.Name, raw, s)
		}
		for _, it := range task.Checklist {
			if strings.Contains(s, it.Title) {
				t.Fatalf("%s %s: the stored item title %q shows:\n%s", tool.Name, raw, it.Title, s)
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d calls changed something", checked)
	}
	// The chat's zone, the one setting that is not a task's field.
	if s := classifierSummary(&proposal{tool: toolsByName[nod.ToolSetTimezone], zone: berlin}, "", time.UTC); !strings.Contains(s, "UTC → Europe/Berlin") {
		t.Errorf("set_chat_timezone: %s", s)
	}
}

// prepareOffline is validate without storage: the call's changes against
// task, no-ops and unknown items dropped.
func prepareOffline(tool Tool, a tools.Args, task nod.Task) (*proposal, bool) {
	changes, _, err := a.Calls()
	if err != nil {
		return nil, false
	}
	p := &proposal{tool: tool, args: a}
	for _, c := range changes {
		tk := &task
		if c.TaskID() == "" {
			tk = nil
		}
		cur, err := c.Current(tk)
		if err != nil {
			continue
		}
		target, err := c.Target(tk)
		if err != nil || cur == target {
			continue
		}
		p.changes = append(p.changes, prepared{c: c, task: tk, cur: cur, target: target})
	}
	return p, len(p.changes) > 0
}

// expectedParts is what the line must say of one change, worked out
// from the task and the change without the summary's own helpers.
func expectedParts(pc prepared, a tools.Args, zone *time.Location) []string {
	var want []string
	if pc.task != nil {
		want = append(want, fmt.Sprintf("task %q", pc.task.Title))
	}
	switch c := pc.c.(type) {
	case tools.Create:
		want = append(want, fmt.Sprintf("create a task titled %q", c.NewTask().Title))
		if a.Present("priority") {
			want = append(want, "priority: "+string(c.NewTask().Priority))
		}
		if c.NewTask().DueDate != "" {
			want = append(want, "due: "+c.NewTask().DueDate)
		}
		if c.NewTask().EstimateMinutes != nil {
			want = append(want, fmt.Sprintf("estimate: %d minutes", *c.NewTask().EstimateMinutes))
		}
		want = append(want, c.NewTask().Labels...)
		if c.NewTask().Description != "" {
			want = append(want, "description: ")
		}
	case tools.AddItem:
		want = append(want, fmt.Sprintf("%q", c.Title))
	case tools.Item:
		it, _ := pc.task.Item(c.ItemID)
		want = append(want, "item "+string(c.ItemID))
		state := map[bool]string{true: "checked", false: "unchecked"}
		switch {
		case c.Remove:
			want = append(want, fmt.Sprintf("item %s (%s)", c.ItemID, state[it.Checked]))
		case c.Checked != nil && *c.Checked != it.Checked:
			want = append(want, state[it.Checked]+" → "+state[*c.Checked])
		}
		if c.Title != nil && !c.Remove {
			want = append(want, fmt.Sprintf("renamed to %q", *c.Title))
		}
	default:
		want = append(want, oldValue(pc.c.Field(), *pc.task, zone))
		if pc.c.Field() == nod.FieldLabels {
			after := map[string]bool{}
			for _, l := range nod.ParseLabels(pc.target) {
				after[strings.ToLower(l)] = true
			}
			for _, l := range pc.task.Labels {
				if !after[strings.ToLower(l)] {
					want = append(want, "(removes ", l)
				}
			}
		}
	}
	return want
}

// oldValue is "<field>: <value it had> → ", or for a description only
// that it is replaced.
func oldValue(f nod.Field, t nod.Task, zone *time.Location) string {
	v := "none"
	switch f {
	case nod.FieldTitle:
		v = fmt.Sprintf("%q", t.Title)
	case nod.FieldDescription:
		return "description: "
	case nod.FieldStatus:
		v = string(t.Status)
	case nod.FieldPriority:
		v = string(t.Priority)
	case nod.FieldEstimate:
		if t.EstimateMinutes != nil {
			v = fmt.Sprintf("%d minutes", *t.EstimateMinutes)
		}
	case nod.FieldDue:
		if t.DueDate != "" {
			v = t.DueDate
		}
	case nod.FieldReminder:
		if t.RemindAt != nil {
			v = t.RemindAt.In(zone).Format("2006-01-02T15:04")
		}
	case nod.FieldLabels:
		if len(t.Labels) > 0 {
			v = strings.Join(t.Labels, ", ")
		}
	}
	return fmt.Sprintf("%s: %s → ", f, v)
}

var (
	someWords  = []string{"login", "bug", "printer", "invoice", "Release", "Docs", "café", "über", "API", "tests"}
	someLabels = []string{"backend", "bug", "frontend", "ops", "home", "Urgent", "auth"}
)

func someText(r *rand.Rand, n int) string {
	var w []string
	for range 1 + r.IntN(n) {
		w = append(w, someWords[r.IntN(len(someWords))])
	}
	return strings.Join(w, " ")
}

func someLabelSet(r *rand.Rand) []string {
	var ls []string
	for _, l := range someLabels {
		if r.IntN(3) == 0 {
			ls = append(ls, l)
		}
	}
	return ls
}

func someDate(r *rand.Rand) string {
	return time.Date(2026, time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC).Format(nod.DateLayout)
}

// randomTask is a task with any of its fields set or not.
func randomTask(r *rand.Rand) nod.Task {
	t := nod.Task{ID: "T1", Title: "Task " + someText(r, 4), Status: nod.Statuses[r.IntN(len(nod.Statuses))], Priority: nod.Priorities[r.IntN(4)],
		Labels: nod.NormalizeLabels(someLabelSet(r))}
	if r.IntN(2) == 0 {
		t.Description = "Stored " + someText(r, 8) + " text"
	}
	if r.IntN(2) == 0 {
		n := r.IntN(600)
		t.EstimateMinutes = &n
	}
	if r.IntN(2) == 0 {
		t.DueDate = someDate(r)
	}
	if r.IntN(2) == 0 {
		at := time.Date(2026, 3, 1+r.IntN(28), r.IntN(24), 15*r.IntN(4), 0, 0, time.UTC)
		t.RemindAt = &at
	}
	for i := range r.IntN(5) {
		t.Checklist = append(t.Checklist, nod.ChecklistItem{ID: nod.ItemID(fmt.Sprintf("c%d", i+1)), Title: fmt.Sprintf("Stored item %d %s", i+1, someText(r, 2)),
			Checked: r.IntN(2) == 0, CheckedBy: nod.ActorAgent})
	}
	return t
}

// randomCall is a call of a mutating tool on t with arguments a model
// could send.
func randomCall(r *rand.Rand, t nod.Task) (Tool, string) {
	var names []nod.Tool
	for _, tool := range registry {
		if tool.Risk == nod.Mutating && tool.Name != nod.ToolSetTimezone { // the chat's zone is no task's change
			names = append(names, tool.Name)
		}
	}
	name := names[r.IntN(len(names))]
	m := map[string]any{"task_id": t.ID}
	item := func() map[string]any { return map[string]any{"id": fmt.Sprintf("c%d", 1+r.IntN(5))} }
	switch name {
	case nod.ToolCreateTask:
		m = map[string]any{"title": "New " + someText(r, 3)}
		if r.IntN(2) == 0 {
			m["priority"] = string(nod.Priorities[r.IntN(4)])
		}
		if r.IntN(2) == 0 {
			m["due_date"] = someDate(r)
		}
		if r.IntN(2) == 0 {
			m["estimate_minutes"] = r.IntN(300)
		}
		if r.IntN(2) == 0 {
			m["labels"] = someLabelSet(r)
		}
		if r.IntN(2) == 0 {
			m["description"] = "Made up " + someText(r, 5)
		}
	case nod.ToolSetTitle:
		m["title"] = "Renamed " + someText(r, 3)
	case nod.ToolUpdateDescription:
		m["description"] = []string{"", "New " + someText(r, 5)}[r.IntN(2)]
	case nod.ToolSetStatus:
		m["status"] = strings.ToLower(string(nod.Statuses[r.IntN(len(nod.Statuses))]))
	case nod.ToolSetPriority:
		m["priority"] = string(nod.Priorities[r.IntN(4)])
	case nod.ToolUpdateEstimate:
		m["estimate_minutes"] = r.IntN(600)
	case nod.ToolUpdateDueDate:
		m["due_date"] = []any{nil, someDate(r)}[r.IntN(2)]
	case nod.ToolSetReminder:
		m["remind_at"] = []any{nil, fmt.Sprintf("2026-04-%02dT%02d:30", 1+r.IntN(28), r.IntN(24))}[r.IntN(2)]
	case nod.ToolAssignLabels:
		switch r.IntN(3) {
		case 0:
			m["labels"] = someLabelSet(r)
		case 1:
			m["add"] = someLabelSet(r)
		default:
			m["add"], m["remove"] = someLabelSet(r), someLabelSet(r)
		}
	case nod.ToolAddItems:
		m["items"] = []map[string]any{{"title": "Added " + someText(r, 2)}, {"title": "Added " + someText(r, 2)}}
	case nod.ToolUpdateItems:
		var els []map[string]any
		for range 1 + r.IntN(3) {
			e := item()
			if r.IntN(2) == 0 {
				e["isChecked"] = r.IntN(2) == 0
			}
			if r.IntN(2) == 0 || len(e) == 1 {
				e["title"] = "Renamed " + someText(r, 2)
			}
			els = append(els, e)
		}
		m["items"] = els
	case nod.ToolRemoveItems:
		m["items"] = []map[string]any{item(), item()}
	}
	b, _ := json.Marshal(m)
	return toolsByName[name], string(b)
}
