package agent

import (
	"testing"

	"github.com/nodbot/nod"
)

// Checklist lines, and the fallback to a shortened id when the item
// cannot be looked up.
func TestChecklistSummaries(t *testing.T) {
	t.Parallel()
	task := &nod.Task{Checklist: []nod.ChecklistItem{{ID: "c1", Title: "Write tests"}, {ID: "c2", Title: "Update docs", Checked: true}}}
	yes, no := true, false
	rename := "Update API docs"
	for _, c := range []struct {
		change change
		task   *nod.Task
		want   string
	}{
		{addItem{id: "T1", title: "Load test"}, task, `Add: "Load test"`},
		{updateItem{id: "T1", itemID: "c1", checked: &yes}, task, `Check off: "Write tests"`},
		{updateItem{id: "T1", itemID: "c2", checked: &no}, task, `Uncheck: "Update docs"`},
		{updateItem{id: "T1", itemID: "c2", title: &rename, checked: &yes}, task, `Rename: "Update docs" → "Update API docs"`},
		{updateItem{id: "T1", itemID: "2ff860d0-4c1e-4b7a", checked: &yes}, task, "Check off: item 2ff860d0…"},
		{updateItem{id: "T1", itemID: "2ff860d0-4c1e-4b7a", checked: &yes}, nil, "Check off: item 2ff860d0…"},
	} {
		if got := c.change.summary(c.task); got != c.want {
			t.Errorf("summary = %q, want %q", got, c.want)
		}
	}
}
