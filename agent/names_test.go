package agent_test

import (
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// docs/design.md §3.3: words that name a priority ask for that one, and
// words that name one task and nothing of another do not ask to change
// the other. An explicit verdict on such words asks the person, and the
// model is told why; words that name the change, or point at it, run.
func TestQuoteNamesAnotherValueOrTask(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.seed(t)
		for _, c := range []struct {
			said, task, priority string
			why                  string // "" runs at once
		}{
			{"set the login bug to P2", "T1", "P1", "the person's words name the priority P2, not P1"},
			{"setz den Login-Bug auf Prio 2", "T1", "P0", "the person's words name the priority P2, not P0"},
			{"please make the login bug P1 now", "T2", "P1", `the person's words name the task "Fix login bug", not "Update README"`},
			{"raise the login bug from P3 to P0", "T1", "P0", ""},
			{"make the README as urgent as the login bug, P0", "T2", "P0", ""},
			{"the login bug can wait, make it P0", "T2", "P1", "the person's words name the priority P0, not P1"},
			{"the login bug can wait, make it P1", "T2", "P1", ""},
		} {
			e.clf = explicitly(c.said)
			before := e.task(t, c.task).Priority
			res, results := e.turnSaying(t, c.said, call("p", "set_task_priority", map[string]any{"task_id": c.task, "priority": c.priority}))
			got := e.task(t, c.task).Priority
			switch {
			case c.why == "" && (got != nod.Priority(c.priority) || len(res.Receipts) != 1):
				t.Errorf("%q: %s is %s, want %s at once", c.said, c.task, got, c.priority)
			case c.why != "" && (got != before || res.Set == nil):
				t.Errorf("%q: %s is %s, want %s and a change set", c.said, c.task, got, before)
			case c.why != "" && !strings.Contains(results["p"], "because "+c.why):
				t.Errorf("%q: result %q, want it to say %q", c.said, results["p"], c.why)
			}
		}
	})
}

// A new task's priority is a field of its own (§3.5): words that name
// another priority leave it to a tap, and the task is created at once.
func TestNewTaskPriorityNamedOtherwise(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.clf = explicitly("add a task to call the printer, P1, it's urgent")
		res, _ := e.turnSaying(t, "add a task to call the printer, P1, it's urgent", call("c", "create_task", `{"title":"Call the printer","priority":"P0"}`))
		if task := e.newTask(t); task.Priority != nod.P2 {
			t.Errorf("created at %s, want P2 with P0 asking", task.Priority)
		}
		if res.Set == nil || len(res.Set.Items) != 1 || res.Set.Items[0].Tool != nod.ToolSetPriority {
			t.Errorf("set = %+v, want the priority", res.Set)
		}
	})
}

// So do the words quoted for a new task's priority apart, in a burst.
func TestNewTaskPriorityQuotedOtherwise(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.clf = func(openaitest.Request) openaitest.Response {
			return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer",` +
				`"quotes":[{"field":"priority","quote":"oh and make it P1"}],"reasoning":"x"}]}`)
		}
		res, _ := e.turnBurst(t, []string{"add a task to call the printer", "oh and make it P1"},
			call("c", "create_task", `{"title":"Call the printer","priority":"P0"}`))
		if task := e.newTask(t); task.Priority != nod.P2 || res.Set == nil || len(res.Set.Items) != 1 {
			t.Errorf("created at %s, set %+v; want P2 with P0 asking", task.Priority, res.Set)
		}
	})
}
