package agent_test

import (
	"strings"
	"testing"
	"time"

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
		e.Seed(t)
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
			e.Clf = explicitly(c.said)
			before := e.Task(t, nod.TaskID(c.task)).Priority
			res, results := e.TurnSaying(t, c.said, call("p", "set_task_priority", map[string]any{"task_id": c.task, "priority": c.priority}))
			got := e.Task(t, nod.TaskID(c.task)).Priority
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
		e.Clf = explicitly("add a task to call the printer, P1, it's urgent")
		res, _ := e.TurnSaying(t, "add a task to call the printer, P1, it's urgent", call("c", "create_task", `{"title":"Call the printer","priority":"P0"}`))
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
		e.Clf = func(openaitest.Request) openaitest.Response {
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

// docs/design.md §3.3: a quote never revives what the person took back,
// a new task among it. The turn that created "Buy milk" ended with a
// question, so its words count in the next; the person undid the
// creation in between, and the model creating it again on those words
// asks.
func TestOldQuoteDoesNotRecreateAnUndoneTask(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Clf = explicitly("add a task: buy milk")
		turn := func(text string) nod.TurnResult {
			t.Helper()
			e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.Clf(r) },
				openaitest.Calls(call("c", "create_task", map[string]any{"title": "Buy milk"})), openaitest.Text("Done. Anything else?")))
			res, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: text})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		res := turn("add a task: buy milk")
		if len(res.Receipts) != 1 {
			t.Fatalf("receipts %+v, want the new task's", res.Receipts)
		}
		e.Clock.Advance(time.Minute)
		if _, err := e.Confirm.Undo(t.Context(), chat, user, res.Receipts[0].Item.UndoID, false); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(time.Minute)
		res = turn("hmm")
		if tasks, _ := e.DB.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(tasks) != 0 || len(res.Receipts) != 0 || res.Set == nil {
			t.Errorf("the undone task came back on old words: tasks %+v, receipts %+v", tasks, res.Receipts)
		}
	})
}
