package tools_test

import (
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// Checklist lines, and the fallback to a shortened id when the item
// cannot be looked up.
func TestChecklistSummaries(t *testing.T) {
	t.Parallel()
	task := &nod.Task{Checklist: []nod.ChecklistItem{{ID: "c1", Title: "Write tests"}, {ID: "c2", Title: "Update docs", Checked: true}}}
	yes, no := true, false
	rename := "Update API docs"
	for _, c := range []struct {
		change tools.Call
		task   *nod.Task
		want   string
	}{
		{tools.AddItem{Task: "T1", Title: "Load test"}, task, `Add: "Load test"`},
		{tools.Item{Task: "T1", ItemID: "c1", Checked: &yes}, task, `Check off: "Write tests"`},
		{tools.Item{Task: "T1", ItemID: "c2", Checked: &no}, task, `Uncheck: "Update docs"`},
		{tools.Item{Task: "T1", ItemID: "c2", Title: &rename, Checked: &yes}, task, `Rename: "Update docs" → "Update API docs"`},
		{tools.Item{Task: "T1", ItemID: "2ff860d0-4c1e-4b7a", Checked: &yes}, task, "Check off: item 2ff860d0…"},
		{tools.Item{Task: "T1", ItemID: "2ff860d0-4c1e-4b7a", Checked: &yes}, nil, "Check off: item 2ff860d0…"},
	} {
		if got := c.change.Summary(c.task); got != c.want {
			t.Errorf("summary = %q, want %q", got, c.want)
		}
	}
}

// A checklist edit's raw value reads back as the item's title and state;
// an added item's, its bare title, does not.
func TestItemValue(t *testing.T) {
	t.Parallel()
	task := &nod.Task{Checklist: []nod.ChecklistItem{{ID: "c2", Title: "Update docs", Checked: true}}}
	no := false
	cur, err := tools.Item{Task: "T1", ItemID: "c2", Checked: &no}.Current(task)
	if err != nil {
		t.Fatal(err)
	}
	if title, checked, ok := tools.ItemValue(cur); title != "Update docs" || !checked || !ok {
		t.Errorf("ItemValue(%s) = %q, %v, %v; want \"Update docs\", true, true", cur, title, checked, ok)
	}
	if _, _, ok := tools.ItemValue("Load test"); ok {
		t.Errorf("ItemValue(%q) is an item", "Load test")
	}
}

// A new task's stored arguments name its priority only when the call
// did: the P2 every task gets is nobody's choice, and a change set or an
// audit row that shows it would say otherwise.
func TestCreateArgsNameNoDefaultPriority(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{{`{"title":"Buy milk"}`, false}, {`{"title":"Buy milk","priority":"P1"}`, true}} {
		call, err := tools.Parse(nod.ToolCreateTask, []byte(c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		if got := strings.Contains(string(call.Args()), `"priority"`); got != c.want {
			t.Errorf("%s stored as %s", c.args, call.Args())
		}
		if p := call.(tools.Create).NewTask().Priority; p == "" {
			t.Errorf("%s: a new task without a priority", c.args)
		}
	}
}
