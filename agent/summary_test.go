package agent_test

import (
	"strings"
	"testing"
)

// docs/design.md §3.3: the classifier's action line says, for each field a
// call sets, what it replaces as well as what it sets; stored free text
// (the description) is said to be replaced, never shown.
func TestClassifierSeesWhatACallReplaces(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		e.TurnSaying(t, "tidy up the login bug",
			call("1", "set_task_title", `{"task_id":"T1","title":"Fix the login redirect"}`),
			call("2", "update_task_description", `{"task_id":"T1","description":"New text."}`),
			call("3", "set_task_status", `{"task_id":"T1","status":"done"}`),
			call("4", "update_task_estimate", `{"task_id":"T1","estimate_minutes":90}`),
			call("5", "update_task_due_date", `{"task_id":"T1","due_date":null}`),
			call("6", "set_task_reminder", `{"task_id":"T1","remind_at":"2026-03-12T09:00"}`),
			call("7", "assign_task_labels", `{"task_id":"T1","labels":["backend","auth"]}`),
			call("8", "set_task_priority", `{"task_id":"T2","priority":"P0"}`),
		)
		reqs := e.LLM.RequestsFor(clfM)
		if len(reqs) != 1 {
			t.Fatalf("%d classifier requests", len(reqs))
		}
		list := reqs[0].LastUser()
		for _, want := range []string{
			`0. set_task_title: task "Fix login bug": title: "Fix login bug" → "Fix the login redirect"`,
			`1. update_task_description: task "Fix login bug": description: (stored text, not shown) → "New text."`,
			`2. set_task_status: task "Fix login bug": status: IN_PROGRESS → DONE`,
			`3. update_task_estimate: task "Fix login bug": estimate: 120 minutes → 90 minutes`,
			`4. update_task_due_date: task "Fix login bug": due: 2026-03-15 → none`,
			`5. set_task_reminder: task "Fix login bug": reminder: none → 2026-03-12T09:00 (UTC)`,
			`6. assign_task_labels: task "Fix login bug": labels: backend, bug → auth, backend (removes bug)`,
			`7. set_task_priority: task "Update README": priority: P2 → P0`,
		} {
			if !strings.Contains(list, want+"\n") {
				t.Errorf("action list lacks %q:\n%s", want, list)
			}
		}
		if strings.Contains(list, "Users are logged out") {
			t.Errorf("the action list shows the stored description:\n%s", list)
		}
	})
}

// A reminder that repeats is one action with two fields: the classifier's
// line names the rule as well as the time, so that "remind me at 8"
// never covers an "every weekday" the person did not say.
func TestClassifierSeesARemindersRepeat(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		e.TurnSaying(t, "remind me every weekday at 8 about the login bug",
			call("1", "set_task_reminder", `{"task_id":"T1","remind_at":"2026-03-12T08:00","repeat":"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}`),
		)
		reqs := e.LLM.RequestsFor(clfM)
		if len(reqs) != 1 {
			t.Fatalf("%d classifier requests", len(reqs))
		}
		want := `0. set_task_reminder: task "Fix login bug": reminder: none → 2026-03-12T08:00 (UTC); repeat: none → FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR at 08:00 (follows the chat's zone)`
		if list := reqs[0].LastUser(); !strings.Contains(list, want+"\n") {
			t.Errorf("action list lacks %q:\n%s", want, list)
		}
	})
}

// A rule kept in a place's clock says so to the classifier, which checks
// "9 their time" against it as it checks "wherever I am" against the
// chat's.
func TestClassifierSeesARulesPlace(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		e.TurnSaying(t, "remind me every weekday at 9 new york time about the login bug",
			call("1", "set_task_reminder", `{"task_id":"T1","remind_at":"2026-03-12T09:00[America/New_York]","repeat":"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}`),
		)
		reqs := e.LLM.RequestsFor(clfM)
		if len(reqs) != 1 {
			t.Fatalf("%d classifier requests", len(reqs))
		}
		want := `repeat: none → FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR at 09:00 in America/New_York (whatever the chat's zone)`
		if list := reqs[0].LastUser(); !strings.Contains(list, want+"\n") {
			t.Errorf("action list lacks %q:\n%s", want, list)
		}
	})
}
