package agent_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/servicetest"
	"github.com/nodbot/nod/formatting"
)

// yesMan answers every action of a classifier request explicit, quoting
// the first clause of the person's latest words: whatever the words say,
// the classifier lets it through.
func yesMan(r openaitest.Request) openaitest.Response {
	lines := strings.Split(r.Messages[1].Content, "\n")
	said := strings.TrimSpace(lines[len(lines)-1])
	said = said[strings.Index(said, ": ")+2:]
	said, _, _ = strings.Cut(said, ",") // nod judges a quote with the clause it stands in
	q, _ := json.Marshal(said)
	var acts []string
	for i := range strings.Count(r.LastUser(), "\n") - 2 {
		acts = append(acts, fmt.Sprintf(`{"index":%d,"level":"explicit","quote":%s,"reasoning":"yes"}`, i, q))
	}
	return openaitest.Text(`{"actions":[` + strings.Join(acts, ",") + `]}`)
}

// answering wires the env's agent to pass on answers in words, as the app
// does, with a classifier that calls every answer explicit.
func (e *env) answering(t *testing.T) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	clf := confidence.New(confidence.Options{BaseURL: e.LLM.URL, Model: clfM, Timeout: 2 * time.Second, Lexicon: formatting.Words}, log)
	d := servicetest.AgentDeps(e.DB, clf)
	d.Answers, d.Words = e.Confirm, answer.NewReader(formatting.AnswerWords())
	e.Agent = agent.New(agent.Options{BaseURL: e.LLM.URL, Model: agentM, StepTimeout: 5 * time.Second, Lexicon: formatting.Words}, d, e.Clock.Now, log)
	e.Clf = yesMan
}

// answer_proposals never confirms an item the person's words of the turn
// refuse (docs/design.md §3.4), even when the classifier calls it
// explicit: words nod reads whole ("yes to 1, 2 not"), words it cannot
// ("1 is fine, 2 not yet"), and a refusal of the whole ("no way"). The
// model is told why and nothing is decided; a call that confirms only
// what the words say yes to goes on to the classifier as before.
func TestAnswerProposalsHeldToTheWords(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		e.Seed(t)
		cs := e.proposeCS(t)
		e.answering(t)
		confirm := func(ns ...int) openaitest.ToolCall {
			return call("x", "answer_proposals", map[string]any{"set": cs.ID, "confirm": ns})
		}
		for _, c := range []struct {
			says string
			ns   []int
			want string
		}{
			{"yes to 1, 2 not", []int{1, 2}, "do not say yes to item 2"},
			{"1 is fine, 2 not yet", []int{1, 2}, "do not say yes to item 2"},
			{"no way", []int{1}, "as a whole"},
		} {
			e.Clock.Advance(time.Minute)
			_, results := e.TurnSaying(t, c.says, confirm(c.ns...))
			if r := results["x"]; !strings.HasPrefix(r, "Not decided: the user's words “"+c.says+"”") || !strings.Contains(r, c.want) {
				t.Errorf("%q, confirm %v: result %q", c.says, c.ns, r)
			}
			if a := e.Audit(t)[0]; a.Tool != nod.ToolAnswerProposals || a.Outcome != nod.OutcomeBlocked {
				t.Errorf("%q: audited %s %s", c.says, a.Tool, a.Outcome)
			}
		}
		set, err := e.DB.ChangeSets().ChangeSet(t.Context(), chat, cs.ID)
		if err != nil || set.Status != nod.SetPending {
			t.Fatalf("set after refused answers: %s, %v", set.Status, err)
		}

		e.Clock.Advance(time.Minute)
		_, results := e.TurnSaying(t, "1 is fine, 2 not yet", confirm(1))
		if r := results["x"]; !strings.HasPrefix(r, "Decided as the user said: item 1 applied.") {
			t.Errorf("a faithful call: result %q", r)
		}
		set, _ = e.DB.ChangeSets().ChangeSet(t.Context(), chat, cs.ID)
		if set.Items[0].Status != nod.ItemConfirmed || set.Items[1].Status != nod.ItemPending {
			t.Errorf("items after the faithful call: %s, %s", set.Items[0].Status, set.Items[1].Status)
		}
	})
}

// A task an answer in words creates has an id the model could not know:
// the result names it, so the next change to it needs no look-up.
func TestAnswerNamesTheTaskItCreated(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, e *env) {
		res, _ := e.Turn(t, call("c", "create_task", `{"title":"Prepare the move"}`))
		if res.Set == nil || len(res.Set.Items) != 1 {
			t.Fatalf("CS = %+v", res.Set)
		}
		e.answering(t)
		_, results := e.TurnSaying(t, "yes", call("x", "answer_proposals", map[string]any{"set": res.Set.ID, "confirm": []int{1}}))
		tasks, err := e.DB.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{Query: "Prepare the move"})
		if err != nil || len(tasks) != 1 {
			t.Fatalf("created: %v, %v", tasks, err)
		}
		want := fmt.Sprintf("Item 1 created task %s %q.", tasks[0].ID, "Prepare the move")
		if r := results["x"]; !strings.HasPrefix(r, "Decided as the user said: item 1 applied.") || !strings.Contains(r, want) {
			t.Errorf("result %q, want it to say %q", r, want)
		}
	})
}
