package agent_test

import (
	"context"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// A turn hands on each step's receipts before the model is asked again,
// each once; a step that applies nothing hands on nothing; the result
// still holds every receipt.
func TestProgressBeforeNextStep(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		e.Clf = explicitly("make the login bug P1 and give it an hour")
		e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.Clf(r) },
			openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
			openaitest.Calls(call("r", "get_task", map[string]any{"task_id": "T1"})),
			openaitest.Calls(call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 60})),
			openaitest.Text("Done."),
		))
		type heard struct {
			asked    int // agent requests made when the turn reported
			receipts []nod.Receipt
		}
		var got []heard
		res, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: "make the login bug P1 and give it an hour",
			Progress: func(_ context.Context, p nod.TurnProgress) {
				got = append(got, heard{len(e.LLM.RequestsFor(agentM)), p.Receipts})
			}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].asked != 1 || got[1].asked != 3 {
			t.Fatalf("reported %+v: want after the first and the third step, before the next request", got)
		}
		if len(got[0].receipts) != 1 || got[0].receipts[0].Item.Field != nod.FieldPriority ||
			len(got[1].receipts) != 1 || got[1].receipts[0].Item.Field != nod.FieldEstimate {
			t.Errorf("receipts reported %+v, then %+v", got[0].receipts, got[1].receipts)
		}
		if len(res.Receipts) != 2 || res.Receipts[0].Item.UndoID != got[0].receipts[0].Item.UndoID {
			t.Errorf("the result holds %d receipts", len(res.Receipts))
		}
	})
}
