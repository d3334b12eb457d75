package agent_test

import (
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
	if _, err := e.db.Apply(t.Context(), nod.Edit{ChatID: chat, UserID: user, Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
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
		e.clf = explicitly("label it backend")
		res, results := e.turnSaying(t, "label it backend", call("l", "assign_task_labels", `{"task_id":"T3","labels":["backend"]}`))
		if got := e.task(t, "T3").Labels; !slices.Equal(got, []string{"backend", "bug"}) {
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
		if _, err := e.confirm.Confirm(t.Context(), chat, user, res.Set.ID, 1); err != nil {
			t.Fatal(err)
		}
		if got := e.task(t, "T3").Labels; !slices.Equal(got, []string{"backend"}) {
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
			if _, err := e.db.Apply(t.Context(), nod.Edit{ChatID: chat, UserID: user, Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
				Mutate: func(*nod.Task) (nod.Task, error) {
					return nod.Task{ID: id, Title: "Task " + id, Status: nod.StatusOpen, Priority: nod.P2, Labels: c.had}, nil
				}}); err != nil {
				t.Fatal(err)
			}
			e.clf = explicitly(c.quote)
			res, results := e.turnSaying(t, c.quote, call("l", "assign_task_labels", `{"task_id":"`+id+`",`+c.args[1:]))
			if got := e.task(t, id).Labels; !slices.Equal(nonNil(got), c.now) {
				t.Errorf("%q %s: labels = %q, want %q (%s)", c.quote, c.args, got, c.now, results["l"])
			}
			if (res.Set != nil) != (c.want != nil) {
				t.Errorf("%q %s: set = %+v", c.quote, c.args, res.Set)
				continue
			}
			if res.Set != nil {
				if _, err := e.confirm.ConfirmAll(t.Context(), chat, user, res.Set.ID); err != nil {
					t.Fatal(err)
				}
				if got := e.task(t, id).Labels; !slices.Equal(nonNil(got), c.want) {
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
			_, results := e.turn(t, call("l", "assign_task_labels", args))
			if !strings.Contains(results["l"], want) {
				t.Errorf("%s: result %q, want %q in it", args, results["l"], want)
			}
		}
	})
}
