package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/servicetest"
	"github.com/nodbot/nod/formatting"
)

const (
	chat   = 100
	user   = 42
	agentM = servicetest.AgentModel
	clfM   = servicetest.ClfModel
)

// env is one backend's agent and confirmation service, wired as the app
// wires them; the tests add helpers of their own.
type env struct{ *servicetest.Env }

// forEachDialect runs fn on every backend (servicetest.ForEachDialect).
func forEachDialect(t *testing.T, fn func(t *testing.T, e *env)) {
	servicetest.ForEachDialect(t, func(t *testing.T, e *servicetest.Env) { fn(t, &env{e}) })
}

var titles = fixtures.ChecklistTitles

func call(id, name string, args any) openaitest.ToolCall { return openaitest.Call(id, name, args) }

// The registry's risks and batch tools (docs/design.md §2.1).
func TestRegistry(t *testing.T) {
	t.Parallel()
	want := map[string]nod.Risk{"list_tasks": nod.ReadOnly, "get_task": nod.ReadOnly, "delete_task": nod.Destructive, "answer_proposals": nod.Decides}
	for _, n := range []string{"create_task", "set_task_title", "update_task_description", "set_task_status", "set_task_priority",
		"update_task_estimate", "update_task_due_date", "set_task_reminder", "set_chat_timezone", "assign_task_labels", "add_multiple_checklist_items", "update_checklist_items", "remove_checklist_items"} {
		want[n] = nod.Mutating
	}
	seen := map[nod.Tool]bool{}
	var explode []string
	for _, tool := range agent.Tools() {
		if seen[tool.Name] {
			t.Errorf("tool %s listed twice", tool.Name)
		}
		seen[tool.Name] = true
		if r, ok := want[string(tool.Name)]; !ok || r != tool.Risk {
			t.Errorf("tool %s has risk %v, want %v (listed: %v)", tool.Name, tool.Risk, r, ok)
		}
		if tool.Explodes() {
			explode = append(explode, string(tool.Name))
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d tools, want %d", len(seen), len(want))
	}
	if !slices.Equal(explode, []string{"add_multiple_checklist_items", "update_checklist_items", "remove_checklist_items"}) {
		t.Errorf("exploding tools = %v", explode)
	}
	// Aliases resolve before the policy is looked up.
	for alias, name := range map[string]nod.Tool{"update_task_title": "set_task_title", "set_task_estimate": "update_task_estimate",
		"set_task_due_date": "update_task_due_date", "update_task_priority": "set_task_priority", "update_task_status": "set_task_status", " Set_Task_Priority ": "set_task_priority"} {
		if tool, ok := agent.Lookup(alias); !ok || tool.Name != name {
			t.Errorf("Lookup(%q) = %s, %v; want %s", alias, tool.Name, ok, name)
		}
	}
	if _, ok := agent.Lookup("archive_task"); ok {
		t.Errorf("Lookup(archive_task) found a tool")
	}
}

// An unknown tool never runs, is answered with an error naming it and
// audited as failed.
func TestUnknownTool(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t, call("x", "archive_task", map[string]string{"task_id": "T1"}))
		if res.Set != nil || !strings.Contains(results["x"], "archive_task") || !strings.Contains(results["x"], `"error"`) {
			t.Errorf("result %q, set %v", results["x"], res.Set)
		}
		if e.Task(t, "T1").Status != nod.StatusInProgress {
			t.Errorf("T1 changed")
		}
		audit := e.Audit(t)
		if len(audit) != 1 || audit[0].Tool != "archive_task" || audit[0].Outcome != nod.OutcomeFailed {
			t.Errorf("audit = %+v", audit)
		}
	})
}

// A queued call's result, its item, and the stored conversation.
func TestQueuedTitle(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t, call("c1", "set_task_title", map[string]string{"task_id": "T1", "title": "Fix login redirect bug"}))
		if results["c1"] != "Proposal queued for user review." {
			t.Errorf("result = %q", results["c1"])
		}
		if e.Task(t, "T1").Title != "Fix login bug" {
			t.Errorf("title changed before confirmation")
		}
		if res.Set == nil || len(res.Set.Items) != 1 {
			t.Fatalf("set = %+v", res.Set)
		}
		it := res.Set.Items[0]
		if it.Tool != "set_task_title" || it.Status != nod.ItemPending || string(it.Args) != `{"task_id":"T1","title":"Fix login redirect bug"}` {
			t.Errorf("item = %+v", it)
		}
		stored, err := e.DB.ChangeSets().ChangeSet(t.Context(), chat, res.Set.ID)
		if err != nil || stored.Status != nod.SetPending || stored.UserID != user {
			t.Errorf("stored set = %+v, %v", stored, err)
		}
		hist, _ := e.DB.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 100})
		calls, answers := 0, 0
		for _, m := range hist {
			for _, tc := range m.ToolCalls {
				if tc.ID == "c1" {
					calls++
				}
			}
			if m.ToolCallID == "c1" {
				answers++
			}
		}
		if calls != 1 || answers != 1 {
			t.Errorf("conversation has the call %d times and %d results", calls, answers)
		}
	})
}

// Arguments sent as a string, in a fence or encoded twice are read
// as if sent plainly.
func TestArgumentRecovery(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		plain := `{"task_id":"T1","priority":"P1"}`
		twice, _ := json.Marshal(plain)
		res, results := e.Turn(t,
			call("a", "add_multiple_checklist_items", `{"task_id":"T1","items":"[{\"title\":\"Load test\"},{\"title\":\"Review session TTL\"}]"}`),
			call("b", "set_task_priority", "```json\n"+plain+"\n```"),
			call("c", "update_task_estimate", string(twice[:len(twice)-1])+`"`), // same as twice
		)
		_ = results
		for _, id := range []string{"a", "b"} {
			if results[id] != "Proposal queued for user review." {
				t.Errorf("result %s = %q", id, results[id])
			}
		}
		var tools []string
		for _, it := range res.Set.Items {
			tools = append(tools, string(it.Tool))
		}
		if !slices.Equal(tools, []string{"add_checklist_item", "add_checklist_item", "set_task_priority"}) {
			t.Errorf("items = %v", tools)
		}
	})
}

// The argument object encoded once more as a JSON string.
func TestArgumentsEncodedTwice(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		twice, _ := json.Marshal(`{"task_id":"T1","estimate_minutes":90}`)
		res, results := e.Turn(t, call("c", "update_task_estimate", string(twice)))
		if results["c"] != "Proposal queued for user review." || res.Set == nil || res.Set.Items[0].After != "90" {
			t.Errorf("result %q, set %+v", results["c"], res.Set)
		}
	})
}

// A model request says it is JSON and carries the API key nod was given,
// and never an admin key from the environment (openai-go reads
// OPENAI_ADMIN_KEY), with or without an API key.
func TestModelRequestHeaders(t *testing.T) {
	t.Setenv("OPENAI_ADMIN_KEY", "sk-admin-secret")
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		log := slog.New(slog.DiscardHandler)
		clf := confidence.New(confidence.Options{BaseURL: e.LLM.URL, Model: clfM, Timeout: 2 * time.Second, Lexicon: formatting.Words}, log)
		for key, want := range map[string]string{"": "", "sk-model": "Bearer sk-model"} {
			a := agent.New(agent.Options{BaseURL: e.LLM.URL, APIKey: key, Model: agentM, StepTimeout: 5 * time.Second, Lexicon: formatting.Words},
				servicetest.AgentDeps(e.DB, clf), e.Clock.Now, log)
			e.LLM.Handle(func(openaitest.Request) openaitest.Response { return openaitest.Text("Nothing to do.") })
			if _, err := a.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: "hi"}); err != nil {
				t.Fatal(err)
			}
			reqs := e.LLM.RequestsFor(agentM)
			r := reqs[len(reqs)-1]
			if r.Authorization != want || r.ContentType != "application/json" {
				t.Errorf("API key %q: Authorization %q, Content-Type %q; want %q, application/json", key, r.Authorization, r.ContentType, want)
			}
		}
	})
}

// The agent reads the answer's bytes itself: arguments sent as the object
// itself (some servers do), null content and a missing call id are read
// as the API means them; an answer that is not JSON is the model's fault.
func TestAnswerAsServersSendIt(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		answer := `{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"type":"function","function":{"name":"update_task_estimate","arguments":{"task_id":"T1","estimate_minutes":90}}}]}}],
			"usage":{"prompt_tokens":12,"completion_tokens":3}}`
		e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.Clf(r) },
			openaitest.Response{Body: answer}, openaitest.Text("ok")))
		res, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: "90 minutes for T1"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Set == nil || len(res.Set.Items) != 1 || res.Set.Items[0].After != "90" {
			t.Fatalf("set %+v", res.Set)
		}
		reqs := e.LLM.RequestsFor(agentM)
		last := reqs[len(reqs)-1]
		if got := last.ToolResults(); len(got) != 1 {
			t.Errorf("tool results %v: the call without an id got none of its own", got)
		}
		e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.Clf(r) },
			openaitest.Response{Body: `{"choices":[{"message":`}))
		if _, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: "and again"}); !errors.Is(err, nod.ErrModel) {
			t.Errorf("a truncated answer: %v, want nod.ErrModel", err)
		}
		// Bytes that are not UTF-8, either way, go through as U+FFFD, as
		// encoding/json lets them: neither side's slip fails the turn.
		e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.Clf(r) },
			openaitest.Response{Body: "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"Noted \xff.\"}}]}"}))
		res, err = e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: "caf\xe9 at 5"})
		if err != nil || res.Text != "Noted \uFFFD." {
			t.Errorf("an answer with a byte that is not UTF-8: %q, %v", res.Text, err)
		}
		reqs = e.LLM.RequestsFor(agentM)
		if msgs := reqs[len(reqs)-1].Messages; msgs[len(msgs)-1].Content != "caf\uFFFD at 5" {
			t.Errorf("the person's words that are not UTF-8 went out as %q", msgs[len(msgs)-1].Content)
		}
	})
}

// Bad arguments get an error naming tool and field, never echoing the
// arguments; nothing is queued and the loop goes on.
func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		cases := []struct {
			id, tool, args string
			want           []string
		}{
			{"1", "set_task_priority", `set it to P1 please`, []string{"set_task_priority", "JSON object"}},
			{"2", "add_multiple_checklist_items", `{"task_id":"T1","items":"[{title: Write"}`, []string{"add_multiple_checklist_items", `"items"`}},
			{"3", "set_task_priority", `{"task_id":"T1"}`, []string{"set_task_priority", `"priority"`, "required"}},
			{"4", "set_task_priority", `{"task_id":"T1","priority":"P5"}`, []string{`"priority"`, "P0, P1, P2, P3"}},
			{"5", "set_task_status", `{"task_id":"T1","status":"CLOSED"}`, []string{`"status"`, "OPEN, GROOMED, IN_PROGRESS, BLOCKED, ON_HOLD, DONE, REJECTED"}},
			{"6", "update_task_estimate", `{"task_id":"T1","estimate_minutes":-30}`, []string{`"estimate_minutes"`}},
			{"7", "update_task_due_date", `{"task_id":"T1","due_date":"15/03/2026"}`, []string{`"due_date"`, "YYYY-MM-DD"}},
			{"8", "add_multiple_checklist_items", `{"task_id":"T1","items":[]}`, []string{`"items"`}},
			{"9", "set_task_title", `{"task_id":"T-404","title":"x"}`, []string{"T-404", "does not exist"}},
		}
		var calls []openaitest.ToolCall
		for _, c := range cases {
			calls = append(calls, call(c.id, c.tool, c.args))
		}
		res, results := e.Turn(t, calls...)
		for _, c := range cases {
			r := results[c.id]
			if !strings.Contains(r, `"error"`) {
				t.Errorf("%s %s: result %q is not an error", c.tool, c.args, r)
			}
			for _, w := range c.want {
				if !strings.Contains(r, strings.ReplaceAll(w, `"`, `\"`)) {
					t.Errorf("%s %s: result %q lacks %q", c.tool, c.args, r, w)
				}
			}
			if len(c.args) > 12 && strings.Contains(r, c.args) {
				t.Errorf("%s: result echoes the arguments", c.tool)
			}
		}
		if res.Set != nil {
			t.Errorf("invalid calls queued %d items", len(res.Set.Items))
		}
	})
}

// No-ops are dropped with an exact reason.
func TestNoOps(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		cases := map[string]openaitest.ToolCall{
			"Skipped: priority is already P3.":           call("1", "set_task_priority", `{"task_id":"T1","priority":"P3"}`),
			"Skipped: status is already IN_PROGRESS.":    call("2", "set_task_status", `{"task_id":"T1","status":"in_progress"}`),
			"Skipped: due date is already 2026-03-15.":   call("3", "update_task_due_date", `{"task_id":"T1","due_date":"2026-03-15"}`),
			`Skipped: title is already "Fix login bug".`: call("4", "set_task_title", `{"task_id":"T1","title":"  Fix login bug "}`),
			"Skipped: labels are already backend, bug.":  call("5", "assign_task_labels", `{"task_id":"T1","labels":["bug","backend"]}`),
			"Skipped: due date is already none.":         call("6", "update_task_due_date", `{"task_id":"T2","due_date":null}`),
			"Skipped: estimate is already 120 minutes.":  call("7", "update_task_estimate", `{"task_id":"T1","estimate_minutes":120}`),
		}
		var calls []openaitest.ToolCall
		for _, c := range cases {
			calls = append(calls, c)
		}
		res, results := e.Turn(t, calls...)
		for want, c := range cases {
			if results[c.ID] != want {
				t.Errorf("%s %s = %q, want %q", c.Name, c.Arguments, results[c.ID], want)
			}
		}
		if res.Set != nil {
			t.Errorf("a turn of no-ops stored a set")
		}
	})
}

// A skipped call does not use up the field; a second change of it in
// the same turn is an error.
func TestOneProposalPerFieldPerTurn(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t,
			call("a", "set_task_priority", `{"task_id":"T1","priority":"P3"}`),
			call("b", "set_task_priority", `{"task_id":"T1","priority":"P1"}`),
			call("c", "set_task_priority", `{"task_id":"T1","priority":"P2"}`),
		)
		if results["b"] != "Proposal queued for user review." || !strings.Contains(results["c"], `already proposed in this turn`) ||
			!strings.Contains(results["c"], "Fix login bug") {
			t.Errorf("results = %q", results)
		}
		if res.Set == nil || len(res.Set.Items) != 1 || res.Set.Items[0].After != "P1" {
			t.Errorf("set = %+v", res.Set)
		}
	})
}

// A turn that only reads stores no set.
func TestReadOnlyTurn(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t, call("l", "list_tasks", `{"query":"LOGIN"}`), call("g", "get_task", `{"task_id":"T1"}`))
		var list struct {
			Tasks []map[string]any `json:"tasks"`
		}
		if err := json.Unmarshal([]byte(results["l"]), &list); err != nil || len(list.Tasks) != 1 || list.Tasks[0]["id"] != "T1" {
			t.Errorf("list_tasks = %s", results["l"])
		}
		var task struct {
			ID          string  `json:"id"`
			Description *string `json:"description"`
			Estimate    *int    `json:"estimate_minutes"`
			DueDate     *string `json:"due_date"`
			Checklist   []struct {
				ID        string  `json:"id"`
				CheckedBy string  `json:"checked_by"`
				CheckedAt *string `json:"checked_at"`
			} `json:"checklist"`
		}
		if err := json.Unmarshal([]byte(results["g"]), &task); err != nil {
			t.Fatal(err)
		}
		if task.ID != "T1" || *task.Estimate != 120 || *task.DueDate != "2026-03-15" || len(task.Checklist) != 3 ||
			task.Checklist[0].CheckedAt != nil || task.Checklist[1].CheckedBy != "agent" || *task.Checklist[2].CheckedAt != "2026-03-10T09:00:00Z" {
			t.Errorf("get_task = %s", results["g"])
		}
		if res.Set != nil {
			t.Errorf("a read-only turn stored a set")
		}
		audit := e.Audit(t)
		if len(audit) != 2 || audit[0].Outcome != nod.OutcomeExecuted || string(audit[1].Args) != `{"query":"LOGIN"}` {
			t.Errorf("audit = %+v", audit)
		}
	})
}

// proposeCS queues a two-item set on T1: estimate 90, then the title.
func (e *env) proposeCS(t *testing.T) nod.ChangeSet {
	t.Helper()
	res, _ := e.Turn(t,
		call("a", "update_task_estimate", `{"task_id":"T1","estimate_minutes":90}`),
		call("b", "set_task_title", `{"task_id":"T1","title":"Fix login redirect bug"}`),
	)
	if res.Set == nil || len(res.Set.Items) != 2 {
		t.Fatalf("CS = %+v", res.Set)
	}
	return *res.Set
}

// ✓ 1 applies item 1 alone, with every record, from storage alone.
func TestConfirmOne(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		cs := e.proposeCS(t)
		// A fresh service, as after a restart or on another replica.
		fresh := confirm.New(servicetest.ConfirmDeps(e.DB), e.Clock.Now, slog.New(slog.DiscardHandler), nil)
		d, err := fresh.Confirm(t.Context(), chat, user, cs.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if *e.Task(t, "T1").EstimateMinutes != 90 || e.Task(t, "T1").Title != "Fix login bug" {
			t.Errorf("T1 after ✓ 1: %+v", e.Task(t, "T1"))
		}
		if d.Set.Status != nod.SetPartiallyResolved || d.Set.Items[0].Status != nod.ItemConfirmed || d.Set.Items[1].Status != nod.ItemPending {
			t.Errorf("set after ✓ 1: %+v", d.Set)
		}
		u, err := e.DB.Undo().UndoEntry(t.Context(), chat, d.Set.Items[0].UndoID)
		want := []nod.FieldChange{{Field: nod.FieldEstimate, Before: "120", After: "90"}}
		if err != nil || !slices.Equal(u.Change.Fields, want) || len(u.Change.Items) != 0 {
			t.Errorf("undo entry: %+v, %v", u, err)
		}
		ds, _ := e.DB.ChangeSets().RecentDecisions(t.Context(), chat, 10)
		if len(ds) != 1 || ds[0].N != 1 || ds[0].Verdict != nod.Confirmed || ds[0].UserID != user {
			t.Errorf("decisions = %+v", ds)
		}
	})
}

// A decided item cannot be decided again; the last decision
// resolves the set.
func TestDecidedItemsStayDecided(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		cs := e.proposeCS(t)
		if _, err := e.Confirm.Reject(t.Context(), chat, user, cs.ID, 2); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Confirm.Confirm(t.Context(), chat, user, cs.ID, 2); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("✓ 2 after ✗ 2: %v, want ErrDecided", err)
		}
		d, err := e.Confirm.Confirm(t.Context(), chat, user, cs.ID, 1)
		if err != nil || d.Set.Status != nod.SetResolved || d.Set.ResolvedAt == nil {
			t.Fatalf("✓ 1: %+v, %v", d.Set, err)
		}
		resolvedAt := *d.Set.ResolvedAt
		if _, err := e.Confirm.Reject(t.Context(), chat, user, cs.ID, 1); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("✗ 1 after ✓ 1: %v, want ErrDecided", err)
		}
		e.Clock.Advance(time.Hour)
		e.Confirm.ConfirmAll(t.Context(), chat, user, cs.ID)
		again, _ := e.DB.ChangeSets().ChangeSet(t.Context(), chat, cs.ID)
		if !again.ResolvedAt.Equal(resolvedAt) {
			t.Errorf("resolved_at moved from %v to %v", resolvedAt, again.ResolvedAt)
		}
		if e.Task(t, "T1").Title != "Fix login bug" {
			t.Errorf("the rejected title was applied")
		}
		ds, _ := e.DB.ChangeSets().RecentDecisions(t.Context(), chat, 10)
		if len(ds) != 2 {
			t.Errorf("%d decisions, want 2", len(ds))
		}
	})
}

// Out-of-range items, another chat, another user, unknown sets.
func TestDecisionsRefused(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		cs := e.proposeCS(t)
		for _, c := range []struct {
			name string
			chat nod.ChatID
			user nod.UserID
			set  nod.SetID
			n    int
			want error
		}{
			{"item 5", chat, user, cs.ID, 5, nod.ErrNotFound},
			{"item 0", chat, user, cs.ID, 0, nod.ErrNotFound},
			{"item -1", chat, user, cs.ID, -1, nod.ErrNotFound},
			{"unknown set", chat, user, "zzzzzzzzzz", 1, nod.ErrNotFound},
			{"chat 200", 200, user, cs.ID, 1, nod.ErrNotFound},
			{"another user", chat, 43, cs.ID, 1, nod.ErrForbidden},
		} {
			if _, err := e.Confirm.Confirm(t.Context(), c.chat, c.user, c.set, c.n); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
		for _, a := range e.Audit(t) {
			if a.Outcome != nod.OutcomeQueued {
				t.Errorf("a refused decision wrote %s", a.Outcome)
			}
		}
		if *e.Task(t, "T1").EstimateMinutes != 120 {
			t.Errorf("a refused decision changed T1")
		}
	})
}

// Rejected and already pending proposals are not queued
// again; a confirmed one does not block.
func TestRepeatsFiltered(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		first, _ := e.Turn(t,
			call("a", "set_task_priority", `{"task_id":"T1","priority":"P1"}`),
			call("b", "add_multiple_checklist_items", `{"task_id":"T1","items":[{"title":"Write release notes"}]}`),
			call("c", "set_task_title", `{"task_id":"T1","title":"Fix login redirect bug"}`),
			call("d", "update_task_estimate", `{"task_id":"T1","estimate_minutes":60}`),
		)
		for _, n := range []int{1, 2} {
			if _, err := e.Confirm.Reject(t.Context(), chat, user, first.Set.ID, n); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Confirm.Confirm(t.Context(), chat, user, first.Set.ID, 4); err != nil {
			t.Fatal(err)
		}
		res, results := e.Turn(t,
			call("a", "set_task_priority", `{"priority":"P1","task_id":"T1","confidence":"high"}`),
			call("b", "add_multiple_checklist_items", `{"task_id":"T1","items":[{"title":"write  release notes"},{"title":"Tag v1.2"}]}`),
			call("c", "set_task_title", `{"title":"Fix login redirect bug","task_id":"T1","human_summary":"Rename for clarity"}`),
			call("d", "update_task_due_date", `{"task_id":"T1","due_date":"2026-03-20"}`),
			call("e", "update_task_estimate", `{"task_id":"T1","estimate_minutes":45}`),
		)
		if r := results["a"]; !strings.Contains(r, "rejected") || strings.Contains(r, "Proposal queued") {
			t.Errorf("rejected priority: %q", r)
		}
		if r := results["b"]; !strings.HasPrefix(r, "Proposal queued for user review.\n") || !strings.Contains(r, "rejected") {
			t.Errorf("batch with a rejected title: %q", r)
		}
		if r := results["c"]; !strings.Contains(r, "already awaits") {
			t.Errorf("identical pending title: %q", r)
		}
		var got []string
		for _, it := range res.Set.Items {
			got = append(got, it.Summary)
		}
		if want := []string{`Add: "Tag v1.2"`, "Set due date to 2026-03-20", "Set estimate to 45 minutes"}; !slices.Equal(got, want) {
			t.Errorf("queued %q, want %q", got, want)
		}
		blocked := 0
		for _, a := range e.Audit(t) {
			if a.Outcome == nod.OutcomeBlocked {
				blocked++
			}
		}
		if blocked != 2 {
			t.Errorf("%d blocked audit rows, want 2 (priority, title)", blocked)
		}
		// After 30 days a rejection no longer blocks.
		e.Clock.Advance(31 * 24 * time.Hour)
		if _, results := e.Turn(t, call("a", "set_task_priority", `{"task_id":"T1","priority":"P1"}`)); results["a"] != "Proposal queued for user review." {
			t.Errorf("after 31 days: %q", results["a"])
		}
	})
}

// Undo of every mutating tool restores the exact previous state.
func TestUndoEveryTool(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		for _, c := range []openaitest.ToolCall{
			call("1", "set_task_title", `{"task_id":"T1","title":"Fix login redirect bug"}`),
			call("2", "update_task_description", `{"task_id":"T1","description":"New text."}`),
			call("3", "set_task_status", `{"task_id":"T1","status":"DONE"}`),
			call("4", "set_task_priority", `{"task_id":"T1","priority":"P0"}`),
			call("5", "update_task_estimate", `{"task_id":"T1","estimate_minutes":5}`),
			call("6", "update_task_due_date", `{"task_id":"T1","due_date":null}`),
			call("7", "assign_task_labels", `{"task_id":"T1","labels":["x"]}`),
			call("8", "add_multiple_checklist_items", `{"task_id":"T1","items":[{"title":"Design mockup"},{"title":"Implement API"}]}`),
			call("9", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c2","isChecked":false,"title":"Docs"}]}`),
		} {
			before := e.Task(t, "T1")
			res, _ := e.Turn(t, c)
			if res.Set == nil {
				t.Fatalf("%s: nothing queued", c.Name)
			}
			d, err := e.Confirm.ConfirmAll(t.Context(), chat, user, res.Set.ID)
			if err != nil || len(d.Applied) != len(res.Set.Items) {
				t.Fatalf("%s: %v, applied %d", c.Name, err, len(d.Applied))
			}
			if e.Task(t, "T1").SameContent(before) {
				t.Fatalf("%s changed nothing", c.Name)
			}
			// Batch items undo one by one, newest first.
			for i := len(res.Set.Items) - 1; i >= 0; i-- {
				if _, err := e.Confirm.Undo(t.Context(), chat, user, d.Applied[res.Set.Items[i].N].Undo.ID, false); err != nil {
					t.Fatalf("%s: undo item %d: %v", c.Name, i+1, err)
				}
			}
			if after := e.Task(t, "T1"); !after.SameContent(before) {
				t.Errorf("%s: undo left %+v, want %+v", c.Name, after, before)
			}
		}
		// Undoing a create sends the task to the trash; redoing brings it back.
		res, _ := e.Turn(t, call("c", "create_task", `{"title":"Write postmortem","priority":"P2"}`))
		d, _ := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1)
		id := d.Applied[1].After.ID
		u, err := e.Confirm.Undo(t.Context(), chat, user, d.Applied[1].Undo.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.DB.Tasks().Task(t.Context(), chat, id); err == nil {
			t.Errorf("undone create still listed")
		}
		if _, err := e.Confirm.Undo(t.Context(), chat, user, u.Redo.ID, false); err != nil {
			t.Fatal(err)
		}
		if task := e.Task(t, id); task.Title != "Write postmortem" || task.Priority != nod.P2 {
			t.Errorf("redone create = %+v", task)
		}
	})
}

// The latest 20 decisions reach the prompt, newest first, reasons on
// one line.
func TestDecisionHistoryInPrompt(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		var calls []openaitest.ToolCall
		for i := range 10 {
			calls = append(calls, call(fmt.Sprint(i), "add_multiple_checklist_items", fmt.Sprintf(`{"task_id":"T2","items":[{"title":"Step %d"}]}`, i)))
		}
		for round := range 3 {
			res, _ := e.Turn(t, calls...)
			for n := range res.Set.Items {
				if round == 2 && n > 4 {
					break
				}
				e.Confirm.Reject(t.Context(), chat, user, res.Set.ID, n+1)
			}
			for i := range calls {
				calls[i] = call(fmt.Sprint(i), "add_multiple_checklist_items", fmt.Sprintf(`{"task_id":"T2","items":[{"title":"Round %d step %d"}]}`, round+1, i))
			}
		}
		ds, _ := e.DB.ChangeSets().RecentDecisions(t.Context(), chat, 100)
		if len(ds) != 25 {
			t.Fatalf("%d decisions", len(ds))
		}
		latest, _ := e.DB.ChangeSets().LatestRejection(t.Context(), ds[0].SetID)
		e.DB.ChangeSets().SetReason(t.Context(), latest.ID, "P1 is for outages\n   only")
		e.Turn(t, call("l", "list_tasks", `{}`))
		sys := e.LLM.RequestsFor(agentM)[len(e.LLM.RequestsFor(agentM))-1].System()
		if n := strings.Count(sys, "- rejected: "); n != 20 {
			t.Errorf("%d decision lines, want 20", n)
		}
		if !strings.Contains(sys, `(the user's reason: "P1 is for outages only")`) {
			t.Errorf("reason not collapsed:\n%s", sys)
		}
		if i, j := strings.Index(sys, "Round 2 step 4"), strings.Index(sys, "Round 2 step 0"); i < 0 || j < i {
			t.Errorf("not newest first")
		}
	})
}

// A new value for a field an open set proposes supersedes it:
// never two open items for one field.
func TestSupersede(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		first, _ := e.Turn(t, call("a", "update_task_estimate", `{"task_id":"T1","estimate_minutes":60}`),
			call("b", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c1","title":"Write unit tests"}]}`))
		second, results := e.Turn(t, call("c", "update_task_estimate", `{"task_id":"T1","estimate_minutes":90}`),
			call("d", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c1","title":"Write integration tests"}]}`))
		if results["c"] != "Proposal queued for user review." || len(second.Superseded) != 1 || second.Superseded[0] != first.Set.ID {
			t.Fatalf("results %q, superseded %v", results, second.Superseded)
		}
		old, _ := e.DB.ChangeSets().ChangeSet(t.Context(), chat, first.Set.ID)
		if old.Status != nod.SetResolved || old.Items[0].Status != nod.ItemStale || old.Items[0].Note.Key != nod.NoteSuperseded {
			t.Errorf("old set = %s, item %s %v", old.Status, old.Items[0].Status, old.Items[0].Note)
		}
		open, _ := e.DB.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{ChatID: chat})
		if len(open) != 1 || open[0].ID != second.Set.ID {
			t.Errorf("%d open sets", len(open))
		}
	})
}

// Every tool's schema is valid JSON Schema as strict endpoints read it: a
// "required" list, if present, is a list (found in a play-test: an empty
// one was sent as null).
func TestToolSchemasRequiredIsAList(t *testing.T) {
	t.Parallel()
	for _, tool := range agent.Tools() {
		if r, ok := tool.Params["required"]; ok {
			if l, isList := r.([]string); !isList || len(l) == 0 {
				t.Errorf("tool %s: required = %#v", tool.Name, r)
			}
		}
	}
}

// A turn's set holds nod.MaxItems items. The agent is told so up front,
// and a call past it is answered with what was left out and when to
// propose it again, not queued.
func TestFullSetTellsTheAgent(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		var items []map[string]string
		for i := range nod.MaxItems {
			items = append(items, map[string]string{"title": fmt.Sprintf("Step %d", i+1)})
		}
		res, results := e.Turn(t, call("a", "add_multiple_checklist_items", map[string]any{"task_id": "T2", "items": items}),
			call("b", "set_task_priority", map[string]string{"task_id": "T2", "priority": "P1"}))
		if res.Set == nil || len(res.Set.Items) != nod.MaxItems {
			t.Fatalf("set = %+v", res.Set)
		}
		want := fmt.Sprintf("The change set is full (%d items); not queued: Set priority to P1. Propose it again in a later turn, once the user has decided some of the waiting items.", nod.MaxItems)
		if results["b"] != want {
			t.Errorf("result of the call past the cap = %q, want %q", results["b"], want)
		}
		sys := e.LLM.RequestsFor(agentM)[0].System()
		if !strings.Contains(sys, fmt.Sprintf("at most %d items, each checklist item counting as one, and each field a change sets (a repeating reminder is two: its time and its repeat)", nod.MaxItems)) {
			t.Errorf("the agent was not told the cap:\n%s", sys)
		}
	})
}

// In a chat longer than the history window, a turn's history is the
// previous turn's history plus what came since, except when the window's
// start moves, every Step messages: a provider's prompt cache keeps
// reusing it. (Sliding the start with every message broke it every turn.)
func TestHistoryStaysAPrefixAcrossTurns(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		const turns = 40 // four messages each: the person, the call, its result, the reply
		var prev []openaitest.Message
		breaks := 0
		for i := range turns {
			e.TurnSaying(t, fmt.Sprintf("what is on my list? (%d)", i), call("l", "list_tasks", `{}`))
			reqs := e.LLM.RequestsFor(agentM)
			first := reqs[len(reqs)-2].Messages[1:] // the turn's first request, after the system prompt
			if prev != nil && !slices.EqualFunc(prev, first[:min(len(prev), len(first))], sameMessage) {
				breaks++
			}
			prev = first
		}
		// Up to 156 stored messages against a window of 40 whose start moves
		// 20 at a time: it moves at 60, 80, 100, 120 and 140.
		t.Logf("%d turns, the history not a prefix of the next turn's %d times", turns, breaks)
		if breaks > 5 {
			t.Errorf("the history was not a prefix of the next turn's %d times in %d turns, want at most 5", breaks, turns)
		}
		if n := len(prev); n < 40 || n >= 60 {
			t.Errorf("the last turn sent %d messages of history, want 40 to 59", n)
		}
	})
}

func sameMessage(a, b openaitest.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID && slices.Equal(a.ToolCalls, b.ToolCalls)
}

// A task in the trash is not an invented id: get_task, a change and a
// deletion of it say where it is and who can bring it back, so that the
// agent points the person to /trash instead of recreating the task.
func TestTrashedTaskToldAsTrashed(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		if _, err := e.Confirm.Delete(t.Context(), chat, user, nod.PendingDeletion{Topic: nod.Topic{ChatID: chat}, UserID: user, TaskID: "T2", Title: "Update README"}); err != nil {
			t.Fatal(err)
		}
		res, results := e.Turn(t, call("g", "get_task", `{"task_id":"T2"}`), call("p", "set_task_priority", `{"task_id":"T2","priority":"P1"}`),
			call("d", "delete_task", `{"task_id":"T2"}`), call("x", "get_task", `{"task_id":"T-404"}`))
		for _, id := range []string{"g", "p", "d"} {
			if r := results[id]; !strings.Contains(r, `"error"`) || !strings.Contains(r, "is in the trash") || !strings.Contains(r, "/trash") || strings.Contains(r, "invent") {
				t.Errorf("call %s on a trashed task: %q", id, r)
			}
		}
		if r := results["x"]; !strings.Contains(r, "does not exist") || !strings.Contains(r, "never invent") {
			t.Errorf("get_task of an invented id: %q", r)
		}
		if res.Set != nil || len(res.Deletions) != 0 {
			t.Errorf("a call on a trashed task was queued: set %v, deletions %v", res.Set, res.Deletions)
		}
	})
}

// What the agent is told of the person's doings reads without escapes,
// even when a summary quotes a title itself.
func TestEventNotesQuoteTypographically(t *testing.T) {
	at := time.Date(2026, 11, 24, 6, 33, 0, 0, time.UTC)
	got := agent.EventNotes([]nod.Event{{At: at, Kind: nod.EventUndone, Summary: `Delete "Write release notes"`, Task: "Write release notes"}}, 42, false, time.UTC)
	want := `the user undid “Delete "Write release notes"” on task “Write release notes”: that change is taken back`
	if !strings.Contains(got, want) || strings.Contains(got, `\"`) {
		t.Errorf("notes = %q, want them to hold %q", got, want)
	}
}

// Event times and a reminder's new time are the chat's, as the rest of
// what the agent is told: a snooze in Berlin reads in Berlin's time.
func TestEventNotesInTheChatsZone(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	at := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	got := agent.EventNotes([]nod.Event{{At: at, Kind: nod.EventSnoozed, Task: "Fix login bug", Value: "2026-11-24T09:00:00Z"}}, 42, false, berlin)
	if want := "- 2026-11-24 09:00 the user snoozed the reminder of “Fix login bug” to 2026-11-24 10:00: it goes out again then"; !strings.Contains(got, want) {
		t.Errorf("notes = %q, want them to hold %q", got, want)
	}
}

// ✓ Done on a repeating reminder is told as this time done and the next
// to come, with their days, never as a reminder put off.
func TestEventNotesOccurrenceDone(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	at := time.Date(2026, 11, 30, 7, 5, 0, 0, time.UTC)
	got := agent.EventNotes([]nod.Event{{At: at, Kind: nod.EventOccurrenceDone, Task: "Check the mail", Reason: "2026-11-30T07:00:00Z", Value: "2026-12-01T07:00:00Z"}}, 42, false, berlin)
	if want := "the user marked the repeating task “Check the mail” done for Mon 2026-11-30 08:00; the task stays open, its next reminder is Tue 2026-12-01 08:00"; !strings.Contains(got, want) || strings.Contains(got, "come again") {
		t.Errorf("notes = %q, want them to hold %q", got, want)
	}
}

// In a group another member's mode change is told as theirs: modes are per
// person, and the turn's own mode is the one the prompt states.
func TestEventNotesModeIsThePersons(t *testing.T) {
	at := time.Date(2026, 11, 24, 6, 33, 0, 0, time.UTC)
	events := []nod.Event{{At: at, Kind: nod.EventMode, Value: "trusted", UserID: 43}}
	if got := agent.EventNotes(events, 42, true, time.UTC); !strings.Contains(got, "member 43 switched their own mode to trusted") {
		t.Errorf("a group: %q", got)
	}
	if got := agent.EventNotes(events, 43, true, time.UTC); !strings.HasSuffix(got, "member 43 switched their own mode to trusted") {
		t.Errorf("the person's own: %q", got)
	}
}

// A turn splices in the encodings its conversation's messages were
// stored with, and its request is byte for byte the one the agent wrote
// when it decoded every stored message and encoded it again: past reads
// left out, an edited line marked, markup and quotes as they were.
func TestStoredEncodingsMakeTheSameRequest(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		ctx, at := t.Context(), nod.Topic{ChatID: chat}
		e.TurnSaying(t, `what is on my list? <b>&</b> "now"`, call("l", "list_tasks", `{}`))
		e.TurnSaying(t, "and T1?", call("g", "get_task", `{"task_id":"T1"}`))
		say := func(req nod.TurnRequest) {
			t.Helper()
			e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.Clf(r) }, openaitest.Text("Noted?")))
			req.Topic, req.UserID = at, user
			if _, err := e.Agent.Turn(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
		say(nod.TurnRequest{Text: "café at 5", MsgID: 30, ReplyTo: "nod's message “Noted?”"})
		say(nod.TurnRequest{Text: "café at 6", MsgID: 30, EditOf: 30, Edits: "café at 5"})
		history, err := e.DB.Conversation().History(ctx, at, nod.Window{Keep: 1000})
		if err != nil {
			t.Fatal(err)
		}
		stored := 0
		for _, m := range history {
			read := m.ToolCallID == "l" || m.ToolCallID == "g" // later turns leave a read's result out
			if len(m.Wire) > 0 == read {
				t.Errorf("%s message %q stored %q", m.Role, m.Content, m.Wire)
			}
			if len(m.Wire) > 0 {
				stored++
			}
		}
		if stored < 10 {
			t.Fatalf("%d of %d messages stored their encoding", stored, len(history))
		}
		say(nod.TurnRequest{Text: "and now?"})
		reqs := e.LLM.RequestsFor(agentM)
		raw := reqs[len(reqs)-1].Raw
		var req struct {
			Model    string            `json:"model"`
			Messages []json.RawMessage `json:"messages"`
			Tools    json.RawMessage   `json:"tools"`
		}
		var system struct{ Content string }
		if err := json.Unmarshal(raw, &req); err != nil || json.Unmarshal(req.Messages[0], &system) != nil {
			t.Fatalf("the request does not read: %v\n%s", err, raw)
		}
		want := agent.EncodedAfresh(req.Model, system.Content, req.Tools, history, []nod.ChatMessage{{Role: nod.RoleUser, Content: "and now?"}})
		if !bytes.Equal(raw, want) {
			t.Errorf("the request with stored encodings:\n%s\nencoded afresh:\n%s", raw, want)
		}
	})
}

// Each way the chat's zone was set outside a turn reads as what it was:
// the agent's offer taken, declined or undone, or the person's own /tz or
// location.
func TestEventNotesZone(t *testing.T) {
	at := time.Date(2026, 11, 30, 7, 5, 0, 0, time.UTC)
	for _, c := range []struct {
		e    nod.Event
		want string
	}{
		{nod.Event{Kind: nod.EventZone, Value: "Europe/Berlin", Reason: "confirmed"}, "the user confirmed your proposal to set the chat's time zone to Europe/Berlin (it was nod's default)"},
		{nod.Event{Kind: nod.EventZone, Value: "Asia/Tokyo", Reason: "rejected"}, "the user declined your proposal to set the chat's time zone to Asia/Tokyo: it stays as it was"},
		{nod.Event{Kind: nod.EventZone, Value: "", Summary: "Europe/Berlin", Reason: "undone"}, "the user undid the time zone change: the chat's time zone is nod's default again"},
		{nod.Event{Kind: nod.EventZone, Value: "America/New_York", Summary: "America/New_York", Reason: "undone"}, "the user undid the change of the stay's end: the chat stays on America/New_York time"},
		{nod.Event{Kind: nod.EventZone, Value: "Europe/Lisbon", Summary: "Europe/Berlin", Reason: "location"}, "the user shared their location, which set the chat's time zone to Europe/Lisbon (it was Europe/Berlin)"},
		{nod.Event{Kind: nod.EventZone, Value: "Europe/Lisbon", Summary: "Europe/Berlin", Reason: "tz"}, "the user set the chat's time zone to Europe/Lisbon with /tz (it was Europe/Berlin)"},
		{nod.Event{Kind: nod.EventZone, Value: "Europe/Lisbon", Summary: "Europe/Berlin", Reason: "tz", Reminders: 2}, "with /tz (it was Europe/Berlin); the 2 upcoming reminders kept their clock times, now in Europe/Lisbon"},
		{nod.Event{Kind: nod.EventZone, Value: "Europe/Berlin", Summary: "Europe/Lisbon", Reason: "undone", Reminders: 2}, "is Europe/Berlin again; the 2 reminders the change had moved are back at their times before it, the others stay"},
	} {
		c.e.At = at
		if got := agent.EventNotes([]nod.Event{c.e}, 42, false, time.UTC); !strings.Contains(got, c.want) {
			t.Errorf("%s: notes = %q, want them to hold %q", c.e.Reason, got, c.want)
		}
	}
}

// A task an event names from its record comes with its id: two tasks can
// share a title, and the agent's tools take ids.
func TestEventNotesNameTheTaskByID(t *testing.T) {
	at := time.Date(2026, 11, 30, 7, 5, 0, 0, time.UTC)
	got := agent.EventNotes([]nod.Event{{At: at, Kind: nod.EventDeleted, Task: "Call the bank", TaskID: "vigfkv5jke"}, {At: at, Kind: nod.EventRestored, Task: "Call the bank"}}, 42, false, time.UTC)
	for _, want := range []string{"the user deleted the task “Call the bank” (id vigfkv5jke), which is in the trash now", "the user restored the task “Call the bank” from the trash"} {
		if !strings.Contains(got, want) {
			t.Errorf("notes = %q, want them to hold %q", got, want)
		}
	}
}

// A time the agent reads carries its zone's offset even when that is
// UTC's: "Z" would read as UTC (a play-test's model took Lisbon's 09:00
// in winter for a time in UTC).
func TestZonedTimesKeepTheirOffset(t *testing.T) {
	lisbon := time.FixedZone("WET", 0) // Lisbon in winter, without the zone database
	at := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		zone *time.Location
		want string
	}{{lisbon, "2026-12-04T09:00:00+00:00"}, {time.UTC, "2026-12-04T09:00:00Z"}, {time.FixedZone("CET", 3600), "2026-12-04T10:00:00+01:00"}} {
		if got := agent.Zoned(at, c.zone); got != c.want {
			t.Errorf("in %s: %s, want %s", c.zone, got, c.want)
		}
	}
}

// failOnce is the database's editor failing its first write, as a
// dropped connection would.
type failOnce struct {
	agent.Editor
	failed bool
}

func (f *failOnce) Apply(ctx context.Context, e nod.Edit) (nod.Applied, error) {
	if !f.failed {
		f.failed = true
		return nod.Applied{}, errors.New("connection reset by peer")
	}
	return f.Editor.Apply(ctx, e)
}

// A change whose write failed did not happen: the model may make it
// again in the same turn, and is not told it is "already proposed".
// Played, a failed call and its retry contradicted each other, and the
// model could not tell the person whether the change was lost.
func TestFailedChangeMayBeMadeAgain(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		log := slog.New(slog.DiscardHandler)
		clf := confidence.New(confidence.Options{BaseURL: e.LLM.URL, Model: clfM, Timeout: 2 * time.Second, Lexicon: formatting.Words}, log)
		deps := servicetest.AgentDeps(e.DB, clf)
		deps.Editor = &failOnce{Editor: deps.Editor}
		a := agent.New(agent.Options{BaseURL: e.LLM.URL, Model: agentM, StepTimeout: 5 * time.Second, Lexicon: formatting.Words}, deps, e.Clock.Now, log)
		const said = "raise the login bug to P1"
		set := call("p", "set_task_priority", `{"task_id":"T1","priority":"P1"}`)
		e.LLM.Handle(openaitest.Script(agentM, func(openaitest.Request) openaitest.Response {
			return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"` + said + `","reasoning":"asked"}]}`)
		}, openaitest.Calls(set), openaitest.Calls(set), openaitest.Text("P1.")))
		if _, err := a.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: said}); err != nil {
			t.Fatal(err)
		}
		reqs := e.LLM.RequestsFor(agentM)
		first, again := reqs[1].ToolResults()["p"], reqs[2].ToolResults()["p"]
		if !strings.Contains(first, "connection reset") {
			t.Errorf("the failed call = %s", first)
		}
		if strings.Contains(again, "already") || strings.Contains(again, "error") {
			t.Errorf("the call made again = %s", again)
		}
		if got := e.Task(t, "T1").Priority; got != nod.P1 {
			t.Errorf("priority %s, want P1", got)
		}
	})
}
