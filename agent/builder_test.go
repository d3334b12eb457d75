package agent_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
)

func summaries(s *nod.ChangeSet) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, it := range s.Items {
		out = append(out, it.Summary)
	}
	return out
}

// Items in call order; batches explode with their own summaries.
func TestBatchExplosion(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t,
			call("a", "add_multiple_checklist_items", `{"task_id":"T1","items":[{"title":"Design mockup"},{"title":"Implement API"},{"title":"Load test"}],"human_summary":"Add three steps"}`),
			call("b", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c1","isChecked":true,"reason":"The user said the tests are all written now."},{"id":"c2","title":"Update API docs","isChecked":true}]}`),
		)
		if results["a"] != "Proposal queued for user review." || results["b"] != "Proposal queued for user review." {
			t.Errorf("results = %q", results)
		}
		want := []string{`Add: "Design mockup"`, `Add: "Implement API"`, `Add: "Load test"`, `Check off: "Write tests"`, `Rename: "Update docs" → "Update API docs"`}
		if got := summaries(res.Set); !slices.Equal(got, want) {
			t.Errorf("items\n got %q\nwant %q", got, want)
		}
		if string(res.Set.Items[0].Args) != `{"task_id":"T1","title":"Design mockup"}` || res.Set.Items[3].Tool != "update_checklist_item" {
			t.Errorf("item args %s, tool %s", res.Set.Items[0].Args, res.Set.Items[3].Tool)
		}
		// Issue test 1: confirm four, reject one.
		for n := 1; n <= 5; n++ {
			var err error
			if n == 2 {
				_, err = e.Confirm.Reject(t.Context(), chat, user, res.Set.ID, n)
			} else {
				_, err = e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, n)
			}
			if err != nil {
				t.Fatalf("item %d: %v", n, err)
			}
		}
		task := e.Task(t, "T1")
		var titles []string
		for _, it := range task.Checklist {
			titles = append(titles, it.Title)
		}
		if !slices.Equal(titles, []string{"Write tests", "Update API docs", "Write migration notes", "Design mockup", "Load test"}) {
			t.Errorf("checklist = %q", titles)
		}
		if ds, _ := e.DB.ChangeSets().RecentDecisions(t.Context(), chat, 20); len(ds) != 5 {
			t.Errorf("%d decisions, want 5", len(ds))
		}
	})
}

// Invented item ids, redundant and malformed elements.
func TestBatchFilters(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t,
			call("a", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c1","isChecked":true,"reason":"The user said the tests are all written now."},{"id":"c-999","isChecked":true},{"id":"c9","isChecked":true}]}`),
			call("b", "add_multiple_checklist_items", `{"task_id":"T1","items":[{"title":"write tests "},{"title":"Deploy app"},{"title":"Deploy App"}]}`),
			call("c", "add_multiple_checklist_items", `{"task_id":"T1","items":[{"title":"Valid item"},"not-a-map",42,{"title":"   "}]}`),
			call("d", "add_multiple_checklist_items", `{"task_id":"T1","items":["x",{"title":""}]}`),
		)
		if r := results["a"]; !strings.HasPrefix(r, "Proposal queued for user review.\n") || !strings.Contains(r, "c-999, c9") || !strings.Contains(r, "never invent") {
			t.Errorf("invented ids: %q", r)
		}
		if r := results["b"]; !strings.Contains(r, "Skipped 2 redundant item(s)") || !strings.Contains(r, "already on the task") || !strings.Contains(r, "already proposed in this turn") {
			t.Errorf("redundant: %q", r)
		}
		if r := results["c"]; !strings.Contains(r, "Skipped 3 malformed item(s)") || !strings.Contains(r, `{"title": "…"}`) {
			t.Errorf("malformed: %q", r)
		}
		if r := results["d"]; strings.Contains(r, "queued") || !strings.Contains(r, "malformed") {
			t.Errorf("all malformed: %q", r)
		}
		want := []string{`Check off: "Write tests"`, `Add: "Deploy app"`, `Add: "Valid item"`}
		if got := summaries(res.Set); !slices.Equal(got, want) {
			t.Errorf("items %q, want %q", got, want)
		}
		// A later step of another turn with "Deploy app" queues it? It
		// is already pending: not queued twice.
		_, results = e.Turn(t, call("e", "add_multiple_checklist_items", `{"task_id":"T1","items":[{"title":"Deploy app"},{"title":"Rollback plan"}]}`))
		if r := results["e"]; !strings.Contains(r, "already awaits") {
			t.Errorf("pending repeat: %q", r)
		}
	})
}

// The set holds ten items; the rest is named, not queued.
func TestSetCap(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		var items []string
		for i := 1; i <= 12; i++ {
			items = append(items, fmt.Sprintf(`{"title":"Step %d"}`, i))
		}
		res, results := e.Turn(t, call("a", "add_multiple_checklist_items", `{"task_id":"T2","items":[`+strings.Join(items, ",")+`]}`))
		if len(res.Set.Items) != 10 || !strings.Contains(results["a"], "full (10 items)") ||
			!strings.Contains(results["a"], `"Step 11"`) || !strings.Contains(results["a"], `"Step 12"`) {
			t.Errorf("%d items, result %q", len(res.Set.Items), results["a"])
		}
		res, results = e.Turn(t, call("b", "add_multiple_checklist_items", `{"task_id":"T1","items":[`+strings.Join(items[:10], ",")+`]}`))
		if len(res.Set.Items) != 10 || results["b"] != "Proposal queued for user review." {
			t.Errorf("ten: %d items, %q", len(res.Set.Items), results["b"])
		}
	})
}
