package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// explicitly answers every action explicit, quoting quote.
func explicitly(quote string) func(openaitest.Request) openaitest.Response {
	return func(openaitest.Request) openaitest.Response {
		return openaitest.Text(fmt.Sprintf(`{"actions":[{"index":0,"level":"explicit","quote":%q,"reasoning":"asked"}]}`, quote))
	}
}

func (e *env) seedLabelled(t *testing.T, labels ...string) {
	t.Helper()
	if _, err := e.DB.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{ID: "T3", Title: "Fix login bug", Status: nod.StatusOpen, Priority: nod.P2, Labels: labels}, nil
		}}); err != nil {
		t.Fatal(err)
	}
}

// docs/design.md §3.5: the whole new set from words that ask only to add
// a label: the addition applies at once, the removal the words do not
// cover waits for a tap, its before the set as the addition left it.
func TestLabelRemovalNeedsWords(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.seedLabelled(t, "bug")
		e.Clf = explicitly("label it backend")
		res, results := e.TurnSaying(t, "label it backend", call("l", "assign_task_labels", `{"task_id":"T3","labels":["backend"]}`))
		if got := e.Task(t, "T3").Labels; !slices.Equal(got, []string{"backend", "bug"}) {
			t.Fatalf("labels = %q, want backend added and bug kept", got)
		}
		if len(res.Receipts) != 1 || res.Receipts[0].Quote != "label it backend" || res.Receipts[0].Item.Before != `["bug"]` || res.Receipts[0].Item.After != `["backend","bug"]` {
			t.Errorf("receipts = %+v", res.Receipts)
		}
		if res.Set == nil || len(res.Set.Items) != 1 {
			t.Fatalf("set = %+v, want the removal", res.Set)
		}
		if it := res.Set.Items[0]; it.Tool != nod.ToolAssignLabels || it.Before != `["backend","bug"]` || it.After != `["backend"]` {
			t.Errorf("queued %+v", it)
		}
		if r := results["l"]; !strings.Contains(r, `"bug"`) || !strings.Contains(r, "waits for the user's tap") {
			t.Errorf("result = %s", r)
		}
		if _, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1); err != nil {
			t.Fatal(err)
		}
		if got := e.Task(t, "T3").Labels; !slices.Equal(got, []string{"backend"}) {
			t.Errorf("after the tap labels = %q", got)
		}
	})
}

// Words that name the label, or ask to remove, replace or keep only,
// cover a removal: the whole call applies at once. A removal alone that
// no words cover waits whole.
func TestLabelRemovalWords(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		for i, c := range []struct {
			quote, args string
			now, want   []string // labels after the turn, and once the set is confirmed
			had         []string // labels before, if not [bug]
		}{
			{"replace bug with backend", `{"labels":["backend"]}`, []string{"backend"}, nil, nil},
			{"only backend please", `{"labels":["backend"]}`, []string{"backend"}, nil, nil},
			{"nur noch backend", `{"labels":["backend"]}`, []string{"backend"}, nil, nil},
			{"bug is wrong, it's backend", `{"labels":["backend"]}`, []string{"backend"}, nil, nil},
			{"entferne das Label", `{"labels":[]}`, []string{}, nil, nil},
			{"tag it backend", `{"add":["backend"]}`, []string{"backend", "bug"}, nil, nil},
			{"drop the bug label", `{"remove":["BUG"]}`, []string{}, nil, nil},
			{"tidy the labels", `{"remove":["bug"]}`, []string{"bug"}, []string{}, nil},
			{"add frontend", `{"add":["frontend"],"remove":["bug"]}`, []string{"bug", "frontend"}, []string{"frontend"}, nil},
			{"remove bug, add backend", `{"labels":["backend"]}`, []string{"backend", "ops"}, []string{"backend"}, []string{"bug", "ops"}},
			{"remove all labels", `{"labels":[]}`, []string{}, nil, []string{"bug", "ops"}},
			{"add backend wegen des Logins", `{"labels":["backend"]}`, []string{"backend", "bug"}, []string{"backend"}, nil},
		} {
			if c.had == nil {
				c.had = []string{"bug"}
			}
			id := fmt.Sprintf("L%d", i)
			if _, err := e.DB.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
				Mutate: func(*nod.Task) (nod.Task, error) {
					return nod.Task{ID: nod.TaskID(id), Title: "Task " + id, Status: nod.StatusOpen, Priority: nod.P2, Labels: c.had}, nil
				}}); err != nil {
				t.Fatal(err)
			}
			e.Clf = explicitly(c.quote)
			res, results := e.TurnSaying(t, c.quote, call("l", "assign_task_labels", `{"task_id":"`+id+`",`+c.args[1:]))
			if got := e.Task(t, nod.TaskID(id)).Labels; !slices.Equal(nonNil(got), c.now) {
				t.Errorf("%q %s: labels = %q, want %q (%s)", c.quote, c.args, got, c.now, results["l"])
			}
			if (res.Set != nil) != (c.want != nil) {
				t.Errorf("%q %s: set = %+v", c.quote, c.args, res.Set)
				continue
			}
			if res.Set != nil {
				if _, err := e.Confirm.ConfirmAll(t.Context(), chat, user, res.Set.ID); err != nil {
					t.Fatal(err)
				}
				if got := e.Task(t, nod.TaskID(id)).Labels; !slices.Equal(nonNil(got), c.want) {
					t.Errorf("%q %s: confirmed, labels = %q, want %q", c.quote, c.args, got, c.want)
				}
			}
		}
	})
}

func nonNil(ls []string) []string {
	if ls == nil {
		return []string{}
	}
	return ls
}

// assign_task_labels takes add and remove beside the whole set, never
// both at once, and at least one of them.
func TestLabelArguments(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.seedLabelled(t, "bug")
		for args, want := range map[string]string{
			`{"task_id":"T3","labels":["a"],"add":["b"]}`: "either",
			`{"task_id":"T3"}`:                            "labels",
			`{"task_id":"T3","add":"b"}`:                  "add",
			`{"task_id":"T3","remove":["nope"]}`:          "already",
		} {
			_, results := e.Turn(t, call("l", "assign_task_labels", args))
			if !strings.Contains(results["l"], want) {
				t.Errorf("%s: result %q, want %q in it", args, results["l"], want)
			}
		}
	})
}

// turnBurst is turnSaying with more of the person's messages taken into
// the turn before its first step, as a burst is.
func (e *env) turnBurst(t *testing.T, texts []string, calls ...openaitest.ToolCall) (nod.TurnResult, map[string]string) {
	t.Helper()
	e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.Clf(r) },
		openaitest.Calls(calls...), openaitest.Text("ok")))
	more := texts[1:]
	res, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: texts[0], More: func(context.Context) []nod.ChatMessage {
		var out []nod.ChatMessage
		for _, m := range more {
			out = append(out, nod.ChatMessage{Content: m, UserID: user})
		}
		more = nil
		return out
	}})
	if err != nil {
		t.Fatalf("Turn: %v", err)
	}
	reqs := e.LLM.RequestsFor(agentM)
	return res, reqs[len(reqs)-1].ToolResults()
}

const printer = `{"title":"Call the printer","priority":"P0","due_date":"2026-03-13","estimate_minutes":15,"labels":["office"],"description":"Ask about the paper jam"}`

// newTask returns the chat's one task that is not seeded.
func (e *env) newTask(t *testing.T) nod.Task {
	t.Helper()
	tasks, err := e.DB.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks = %+v, %v", tasks, err)
	}
	return tasks[0]
}

// docs/design.md §3.5: a new task's fields that no words of the person's
// name wait for a tap; the task itself, which their words asked for, is
// created at once.
func TestCreateFieldsNeedWords(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Clf = explicitly("add a task to call the printer")
		res, results := e.TurnSaying(t, "add a task to call the printer", call("c", "create_task", printer))
		task := e.newTask(t)
		if task.Title != "Call the printer" || task.Priority != nod.P2 || task.DueDate != "" || task.EstimateMinutes != nil || len(task.Labels) != 0 || task.Description != "" {
			t.Errorf("created %+v, want the title alone", task)
		}
		if len(res.Receipts) != 1 || res.Receipts[0].Item.Tool != nod.ToolCreateTask || res.Receipts[0].Quote != "add a task to call the printer" {
			t.Errorf("receipts = %+v", res.Receipts)
		}
		if res.Set == nil {
			t.Fatalf("nothing asks")
		}
		var tools []string
		for _, it := range res.Set.Items {
			if it.TaskID != task.ID {
				t.Errorf("item %+v is not on the new task", it)
			}
			tools = append(tools, string(it.Tool))
		}
		if want := []string{"set_task_priority", "update_task_estimate", "update_task_due_date", "assign_task_labels", "update_task_description"}; !slices.Equal(tools, want) {
			t.Errorf("queued %v, want %v", tools, want)
		}
		if r := results["c"]; !strings.Contains(r, `"id":"`+string(task.ID)+`"`) || !strings.Contains(r, `its priority P0, estimate 15 minutes, due date 2026-03-13, label \"office\" and description wait for the user's tap`) {
			t.Errorf("result = %s", r)
		}
		if _, err := e.Confirm.ConfirmAll(t.Context(), chat, user, res.Set.ID); err != nil {
			t.Fatal(err)
		}
		task = e.Task(t, task.ID)
		if task.Priority != nod.P0 || task.DueDate != "2026-03-13" || *task.EstimateMinutes != 15 || !slices.Equal(task.Labels, []string{"office"}) || task.Description != "Ask about the paper jam" {
			t.Errorf("confirmed: %+v", task)
		}
	})
}

// Words that name every field cover them all: one receipt, nothing asks.
func TestCreateFieldsNamed(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		said := "add a task to call the printer, urgent, due friday, 15 min, label it office: ask about the paper jam"
		e.Clf = explicitly(said)
		res, _ := e.TurnSaying(t, said, call("c", "create_task", printer))
		if res.Set != nil || len(res.Receipts) != 1 {
			t.Fatalf("set %+v, %d receipts", res.Set, len(res.Receipts))
		}
		if task := e.newTask(t); task.Priority != nod.P0 || task.DueDate != "2026-03-13" || len(task.Labels) != 1 || task.Description == "" {
			t.Errorf("created %+v", task)
		}
	})
}

// A burst: the classifier quotes each field's own message. Each field
// applies with its own receipt and quote; a field quoted with words the
// person never wrote asks.
func TestCreateFieldsQuotedApart(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Clf = func(openaitest.Request) openaitest.Response {
			return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer",` +
				`"quotes":[{"field":"priority","quote":"oh and it's urgent"},{"field":"due_date","quote":"due friday"},{"field":"labels","quote":"file it under office"}],"reasoning":"x"}]}`)
		}
		res, _ := e.turnBurst(t, []string{"add a task to call the printer", "oh and it's urgent", "due friday"},
			call("c", "create_task", `{"title":"Call the printer","priority":"P0","due_date":"2026-03-13","labels":["office"]}`))
		task := e.newTask(t)
		if task.Priority != nod.P0 || task.DueDate != "2026-03-13" || len(task.Labels) != 0 {
			t.Errorf("created %+v; want P0, due, and no unquoted label", task)
		}
		var quotes []string
		for _, r := range res.Receipts {
			quotes = append(quotes, string(r.Item.Tool)+": "+r.Quote)
		}
		if want := []string{"create_task: add a task to call the printer", "set_task_priority: oh and it's urgent", "update_task_due_date: due friday"}; !slices.Equal(quotes, want) {
			t.Errorf("receipts %q, want %q", quotes, want)
		}
		if res.Set == nil || len(res.Set.Items) != 1 || res.Set.Items[0].Tool != nod.ToolAssignLabels {
			t.Errorf("set = %+v, want the label", res.Set)
		}
	})
}
