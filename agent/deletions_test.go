package agent_test

import (
	"testing"
	"time"

	"github.com/nodbot/nod"
)

// Every delete_task of a step gets its own typed question, in call order
// (a task named twice once), and each call is told that its deletion
// awaits the person: true of each, since each is asked in turn.
func TestEveryDeletionQueued(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t, call("a", "delete_task", `{"task_id":"T2"}`), call("b", "delete_task", `{"task_id":"T1"}`),
			call("c", "delete_task", `{"task_id":"T2"}`))
		for _, id := range []string{"a", "b", "c"} {
			if r := results[id]; r != "Deletion awaits the user's typed confirmation." {
				t.Errorf("call %s: %q", id, r)
			}
		}
		if len(res.Deletions) != 2 || res.Deletions[0].TaskID != "T2" || res.Deletions[1].TaskID != "T1" {
			t.Fatalf("deletions = %+v, want T2 then T1", res.Deletions)
		}
		if d := res.Deletions[1]; d.Title != "Fix login bug" || d.Checklist != 3 || d.Wait != 10*time.Minute || d.UserID != user || d.Asked() {
			t.Errorf("T1's deletion = %+v", d)
		}
		for _, want := range []nod.TaskID{"T2", "T1"} {
			step, err := e.DB.Deletions().AskDeletion(t.Context(), chat, user)
			if err != nil || step.Ask == nil || step.Ask.TaskID != want {
				t.Fatalf("asked %+v, %v; want %s", step.Ask, err, want)
			}
			if ended, err := e.DB.Deletions().EndDeletion(t.Context(), chat, step.Ask.ID); !ended || err != nil {
				t.Fatalf("EndDeletion: %v, %v", ended, err)
			}
		}
		queued := 0
		for _, a := range e.Audit(t) {
			if a.Tool == "delete_task" && a.Outcome == nod.OutcomeQueued {
				queued++
			}
		}
		if queued != 3 {
			t.Errorf("%d delete_task calls audited as queued, want 3", queued)
		}
		for _, id := range []string{"T1", "T2"} {
			e.Task(t, nod.TaskID(id)) // nothing deleted without the typed title
		}
	})
}
