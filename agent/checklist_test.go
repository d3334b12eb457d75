package agent_test

import (
	"slices"
	"strings"
	"testing"
)

// docs/design.md §2.1: remove_checklist_items explodes like the other batch tools;
// removing an unticked item is proposed as is, removing one the person
// ticked needs a reason from the agent on its own (like unticking it);
// confirmed, the item is gone, and Undo puts it back in its place.
func TestRemoveChecklistItems(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.review(t, call("r", "remove_checklist_items", `{"task_id":"T1","items":[{"id":"c1"},{"id":"c3"},{"id":"c-999"}]}`))
		if res.Set == nil || len(res.Set.Items) != 1 || res.Set.Items[0].Tool != "remove_checklist_item" {
			t.Fatalf("set = %+v, want one removal", res.Set)
		}
		for _, w := range []string{`"Write migration notes"`, "≥ 20", "c-999"} {
			if !strings.Contains(results["r"], w) {
				t.Errorf("result = %q, want %q in it", results["r"], w)
			}
		}
		if got := res.Set.Items[0].Summary; got != `Remove from the checklist: "Write tests"` {
			t.Errorf("summary = %q", got)
		}
		d, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := titles(e.Task(t, "T1")); !slices.Equal(got, []string{"Update docs", "Write migration notes"}) {
			t.Errorf("checklist after the removal = %q", got)
		}
		if _, err := e.Confirm.Undo(t.Context(), chat, user, d.Applied[1].Undo.ID, false); err != nil {
			t.Fatal(err)
		}
		if got := titles(e.Task(t, "T1")); !slices.Equal(got, []string{"Write tests", "Update docs", "Write migration notes"}) {
			t.Errorf("checklist after undoing the removal = %q", got)
		}
		// With a reason, the ticked item's removal is proposed, and shown
		// with the reason.
		res, _ = e.review(t, call("r", "remove_checklist_items", `{"task_id":"T1","items":[{"id":"c3","reason":"The user said at 17:30 the notes are obsolete now"}]}`))
		if res.Set == nil || len(res.Set.Items) != 1 {
			t.Fatalf("removal with a reason: set = %+v", res.Set)
		}
	})
}

// get_task shows "checked"; update_checklist_items takes it as well as
// "isChecked", so a model that echoes what it read is understood.
func TestCheckedAlias(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t, call("u", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c2","checked":false}]}`))
		if res.Set == nil || len(res.Set.Items) != 1 || results["u"] != "Proposal queued for user review." {
			t.Fatalf("set = %+v, result %q", res.Set, results["u"])
		}
		if got := res.Set.Items[0].Summary; got != `Uncheck: "Update docs"` {
			t.Errorf("summary = %q", got)
		}
	})
}

// docs/design.md §3.3: the classifier's action list names the task by its title and
// covers every field a call sets; a checklist item is named by its title
// only when the person said it.
func TestClassifierSeesTitlesAndEveryField(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		e.TurnSaying(t, "add a task to buy milk and tick write tests",
			call("c", "create_task", `{"title":"Buy milk","labels":["home","errands"],"description":"Two litres, organic","due_date":"2026-03-20"}`),
			call("p", "set_task_priority", `{"task_id":"T1","priority":"P1"}`),
			call("u", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c1","isChecked":true},{"id":"c2","isChecked":false}]}`),
			call("r", "remove_checklist_items", `{"task_id":"T1","items":[{"id":"c3","reason":"the person said the notes moved to the wiki"}]}`),
		)
		reqs := e.LLM.RequestsFor(clfM)
		if len(reqs) != 1 {
			t.Fatalf("%d classifier requests", len(reqs))
		}
		list := reqs[0].Messages[len(reqs[0].Messages)-1].Content
		for _, want := range []string{
			`0. create_task: create a task titled "Buy milk" with due: 2026-03-20; labels: errands, home; description: "Two litres, organic"`,
			`1. set_task_priority: task "Fix login bug": priority: P3 → P1`,
			`2. update_checklist_items: change 2 items of the checklist of task "Fix login bug": item "Write tests": unchecked → checked; item c2: checked → unchecked`,
			`3. remove_checklist_items: remove 1 item from the checklist of task "Fix login bug": item c3 (checked)`,
		} {
			if !strings.Contains(list, want) {
				t.Errorf("action list lacks %q:\n%s", want, list)
			}
		}
		for _, never := range []string{"T1", "Users are logged out", "Update docs", "Write migration notes"} {
			if strings.Contains(list, never) {
				t.Errorf("action list shows %q:\n%s", never, list)
			}
		}
	})
}
