package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// review runs a /review turn in which the model makes calls.
func (e *env) review(t *testing.T, calls ...openaitest.ToolCall) (nod.TurnResult, map[string]string) {
	t.Helper()
	e.LLM.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response {
		t.Errorf("a review asked the classifier")
		return openaitest.Text("{}")
	}, openaitest.Calls(calls...), openaitest.Text("ok")))
	res, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Review: true})
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.LLM.RequestsFor(agentM)
	return res, reqs[len(reqs)-1].ToolResults()
}

func (e *env) item(t *testing.T, id nod.ItemID) nod.ChecklistItem {
	t.Helper()
	task := e.Task(t, "T1")
	it, ok := task.Item(id)
	if !ok {
		t.Fatalf("no item %s", id)
	}
	return *it
}

var c3At = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

// Without a reason of 20 characters the agent on its own does
// not touch the person's items.
func TestSovereigntyNeedsAReason(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.review(t,
			call("1", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c3","isChecked":false}]}`),
			call("2", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c1","isChecked":true}]}`),
			call("3", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c3","isChecked":false,"reason":"      "}]}`),
			call("4", "update_checklist_items", `{"task_id":"T2","items":[{"id":"c9","isChecked":true,"reason":"  Said not done today  "}]}`),
		)
		for id, want := range map[string][]string{
			"1": {`"Write migration notes"`, "2026-03-10T09:00:00Z", "≥ 20"},
			"2": {`"Write tests"`, "unknown time"},
			"3": {`"Write migration notes"`, "≥ 20"},
			"4": {"too short", "19 characters"},
		} {
			for _, w := range want {
				if !strings.Contains(results[id], w) {
					t.Errorf("result %s = %q, want %q in it", id, results[id], w)
				}
			}
			if strings.Contains(results[id], "Proposal queued") {
				t.Errorf("result %s says queued", id)
			}
		}
		if res.Set != nil {
			t.Errorf("a blocked override was queued: %+v", res.Set.Items)
		}
		if c3 := e.item(t, "c3"); !c3.Checked || c3.CheckedBy != nod.ActorUser || !c3.CheckedAt.Equal(c3At) {
			t.Errorf("c3 = %+v", c3)
		}
		audit := e.Audit(t)
		if audit[len(audit)-1].Outcome != nod.OutcomeBlocked || !strings.Contains(audit[len(audit)-1].Error, "Write migration notes") {
			t.Errorf("first audit row = %+v", audit[len(audit)-1])
		}
		// Twenty characters are enough.
		res, results = e.review(t, call("5", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c3","isChecked":false,"reason":"Said not done today."}]}`))
		if results["5"] != "Proposal queued for user review." || res.Set == nil {
			t.Errorf("a 20-character reason: %q", results["5"])
		}
	})
}

// A review's override with a reason, confirmed by the person, stamps
// the person; its audit row carries the reason; Undo restores provenance.
func TestSovereigntyOverrideConfirmed(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		reason := "User said at 17:30 the notes lack the rollback part"
		res, _ := e.review(t, call("1", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c3","isChecked":false,"reason":"`+reason+`"}]}`))
		if res.Set == nil || res.Set.Items[0].Summary != `Uncheck: "Write migration notes"` {
			t.Fatalf("set = %+v", res.Set)
		}
		// What formatting shows is stored as values: the reason, the item
		// as the person set it and as proposed.
		stored, err := e.DB.ChangeSets().ChangeSet(t.Context(), chat, res.Set.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := nod.ChecklistItem{ID: "c3", Title: "Write migration notes", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &c3At}
		it := stored.Items[0]
		if b, a := it.ItemBefore, it.ItemAfter; it.Reason != reason || b == nil || !b.Same(want) || a == nil || a.Checked || a.Title != want.Title {
			t.Errorf("stored item: reason %q, before %+v, after %+v", it.Reason, b, a)
		}
		d, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		c3 := e.item(t, "c3")
		if c3.Checked || c3.CheckedBy != nod.ActorUser || !c3.CheckedAt.Equal(fixturesNow) {
			t.Errorf("c3 after ✓ = %+v", c3)
		}
		if a := e.Audit(t)[0]; a.Outcome != nod.OutcomeConfirmed || a.Reason != reason {
			t.Errorf("audit = %+v", a)
		}
		if _, err := e.Confirm.Undo(t.Context(), chat, user, d.Set.Items[0].UndoID, false); err != nil {
			t.Fatal(err)
		}
		if c3 := e.item(t, "c3"); !c3.Checked || c3.CheckedBy != nod.ActorUser || !c3.CheckedAt.Equal(c3At) {
			t.Errorf("c3 after Undo = %+v", c3)
		}
	})
}

var fixturesNow = time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)

// Trusted mode skips the question, not the guard.
func TestSovereigntyTrusted(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		if err := e.DB.Settings().SetMode(t.Context(), chat, user, nod.ModeTrusted); err != nil {
			t.Fatal(err)
		}
		res, results := e.Turn(t, call("1", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c2","isChecked":false},{"id":"c3","isChecked":false}]}`))
		if c2 := e.item(t, "c2"); c2.Checked || c2.CheckedBy != nod.ActorAgent || !c2.CheckedAt.Equal(fixturesNow) {
			t.Errorf("c2 = %+v", c2)
		}
		if c3 := e.item(t, "c3"); !c3.Checked {
			t.Errorf("c3 unchecked in trusted mode without a reason")
		}
		if len(res.Receipts) != 1 || res.Receipts[0].Item.Summary != `Uncheck: "Update docs"` {
			t.Errorf("receipts = %+v", res.Receipts)
		}
		if len(res.Notices) != 1 || res.Notices[0].Key != nod.NoteLeftAsSet || res.Notices[0].Arg(0) != "Write migration notes" {
			t.Errorf("notices = %q", res.Notices)
		}
		if !strings.Contains(results["1"], "Write migration notes") {
			t.Errorf("result = %q", results["1"])
		}
	})
}

// A rename alone leaves provenance; a blocked check keeps the rename.
func TestSovereigntyRename(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		res, results := e.Turn(t, call("1", "update_checklist_items",
			`{"task_id":"T1","items":[{"id":"c3","title":"Write migration and rollback notes","isChecked":false}]}`))
		if !strings.HasPrefix(results["1"], "Proposal queued for user review.\nNot changed") {
			t.Errorf("result = %q", results["1"])
		}
		if _, err := e.Confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1); err != nil {
			t.Fatal(err)
		}
		c3 := e.item(t, "c3")
		if c3.Title != "Write migration and rollback notes" || !c3.Checked || c3.CheckedBy != nod.ActorUser || !c3.CheckedAt.Equal(c3At) {
			t.Errorf("c3 = %+v", c3)
		}
	})
}

// The person's words count only if sent at or after the item was
// set.
func TestSovereigntyExplicitQuote(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		// The request came before the person re-checked c3 at 09:00.
		e.Clock.Set(time.Date(2026, 3, 10, 8, 30, 0, 0, time.UTC))
		e.LLM.Handle(openaitest.Script(agentM, nil, openaitest.Text("Later.")))
		if _, err := e.Agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: "uncheck write migration notes"}); err != nil {
			t.Fatal(err)
		}
		e.Clock.Set(fixturesNow)
		e.Clf = func(openaitest.Request) openaitest.Response {
			return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"uncheck write migration notes"}]}`)
		}
		res, results := e.TurnSaying(t, "what's left on the login bug?", call("1", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c3","isChecked":false}]}`))
		if !e.item(t, "c3").Checked || len(res.Receipts) != 0 || res.Set != nil || !strings.Contains(results["1"], "Not changed") {
			t.Errorf("an old quote unchecked c3: %q, %d receipts", results["1"], len(res.Receipts))
		}
		// The same words, now.
		res, _ = e.TurnSaying(t, "uncheck write migration notes, the reviewer found gaps", call("2", "update_checklist_items", `{"task_id":"T1","items":[{"id":"c3","isChecked":false}]}`))
		c3 := e.item(t, "c3")
		if c3.Checked || c3.CheckedBy != nod.ActorUser || !c3.CheckedAt.Equal(fixturesNow) || len(res.Receipts) != 1 || res.Receipts[0].Quote != "uncheck write migration notes" {
			t.Errorf("explicit now: c3 %+v, receipts %+v", c3, res.Receipts)
		}
	})
}

// A learned rule is the agent on its own: it applies a change of its kind
// to the agent's own item at once (stamped agent), but never flips the
// person's item, which waits for their tap with its reason.
func TestRuleNeverOverridesThePersonsItem(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		r, _, err := e.DB.Rules().OfferRule(t.Context(), chat, user, "update_checklist_item")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.DB.Rules().DecideRule(t.Context(), chat, r.ID, user, true); err != nil {
			t.Fatal(err)
		}
		res, results := e.Turn(t, call("1", "update_checklist_items",
			`{"task_id":"T1","items":[{"id":"c2","isChecked":false},{"id":"c3","isChecked":false,"reason":"The user said the notes are missing a part"}]}`))
		if c2 := e.item(t, "c2"); c2.Checked || c2.CheckedBy != nod.ActorAgent {
			t.Errorf("c2 = %+v, want unchecked by the rule", c2)
		}
		if c3 := e.item(t, "c3"); !c3.Checked {
			t.Errorf("the rule unchecked the person's item")
		}
		if len(res.Receipts) != 1 || res.Receipts[0].Rule == nil || res.Receipts[0].Rule.ID != r.ID {
			t.Errorf("receipts = %+v", res.Receipts)
		}
		if res.Set == nil || len(res.Set.Items) != 1 || res.Set.Items[0].Summary != `Uncheck: "Write migration notes"` {
			t.Errorf("set = %+v", res.Set)
		}
		if !strings.Contains(results["1"], "1 change of this call was queued for user review") {
			t.Errorf("result = %q", results["1"])
		}
	})
}
