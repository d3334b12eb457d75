package agent_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nodbot/nod"
)

// A proposed create_task and removal are stored with the values other
// packages read: the new task, the item removed and the reason.
func TestProposalsCarryTypedValues(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, _ := e.review(t,
			call("1", "create_task", `{"title":"Buy milk","priority":"p1","due_date":"2026-03-20","estimate_minutes":15,"labels":["home"],"description":"2 litres"}`),
			call("2", "remove_checklist_items", `{"task_id":"T1","items":[{"id":"c1","reason":"Tests exist already"}]}`))
		if res.Set == nil || len(res.Set.Items) != 2 {
			t.Fatalf("set = %+v", res.Set)
		}
		stored, err := e.DB.ChangeSets().ChangeSet(t.Context(), chat, res.Set.ID)
		if err != nil {
			t.Fatal(err)
		}
		fifteen := 15
		wantTask := &nod.Task{Title: "Buy milk", Status: nod.StatusOpen, Priority: nod.P1, DueDate: "2026-03-20", EstimateMinutes: &fifteen,
			Labels: []string{"home"}, Description: "2 litres"}
		if diff := cmp.Diff(wantTask, stored.Items[0].NewTask); diff != "" {
			t.Errorf("stored NewTask (-want +got):\n%s", diff)
		}
		rm := stored.Items[1]
		if rm.Reason != "Tests exist already" || rm.ItemBefore == nil || rm.ItemBefore.ID != "c1" || rm.ItemAfter != nil {
			t.Errorf("stored removal: reason %q, before %+v, after %+v", rm.Reason, rm.ItemBefore, rm.ItemAfter)
		}
	})
}
