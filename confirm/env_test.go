package confirm_test

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/confirm"
	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// The service decides what the agent proposed: these tests let the agent
// propose on the fake model endpoint, as the app does.

const (
	chat   = 100
	user   = 42
	agentM = "agent-model"
	clfM   = "clf-model"
)

type env struct {
	dsn string
	// clf answers classifier requests; by default with no verdicts, so
	// every change needs confirmation.
	clf     func(openaitest.Request) openaitest.Response
	db      *storage.DB
	llm     *openaitest.Server
	agent   *agent.Agent
	confirm *confirm.Service
	clock   *fixtures.Clock
}

// forEachDialect runs fn with an agent on a fresh database of every
// backend and a fake model endpoint.
func forEachDialect(t *testing.T, fn func(t *testing.T, e *env)) {
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			dsn := storagetest.DSN(t, d)
			db := storagetest.OpenDSN(t, dsn, clock.Now)
			llm := openaitest.New(t)
			log := slog.New(slog.DiscardHandler)
			clf := confidence.New(confidence.Options{BaseURL: llm.URL, Model: clfM, Timeout: 2 * time.Second, Lexicon: formatting.Words}, log)
			fn(t, &env{
				db: db, dsn: dsn, llm: llm, clock: clock,
				clf:     func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) },
				agent:   agent.New(agent.Options{BaseURL: llm.URL, Model: agentM, StepTimeout: 5 * time.Second, Lexicon: formatting.Words}, deps(db, clf), clock.Now, log),
				confirm: confirm.New(confirmDeps(db), clock.Now, log, nil),
			})
		})
	}
}

// deps wires an agent to db and clf as the app does, without answers.
func deps(db *storage.DB, clf agent.Classifier) agent.Deps {
	return agent.Deps{Tasks: db.Tasks(), Editor: db.Tasks(), Settings: db.Settings(), Conversation: db.Conversation(), Proposals: db.ChangeSets(), Memory: db.ChangeSets(), Undone: db.Undo(), Rulebook: db.Rules(), Classifier: clf}
}

// confirmDeps wires a confirmation service to db as the app does.
func confirmDeps(db *storage.DB) confirm.Deps {
	return confirm.Deps{Decisions: db.ChangeSets(), Tasks: db.Tasks(), Editor: db.Tasks(), Undos: db.Undo(), Breaker: db.Settings(), Rules: db.Rules(), Deletions: db.Deletions(), Replies: db.ChangeSets(), Words: answer.NewReader(formatting.AnswerWords())}
}

var titles = fixtures.ChecklistTitles

func est(n int) *int { return &n }

// seedT1 stores T1 and T2 of the default fixture.
func (e *env) seed(t *testing.T) {
	t.Helper()
	c2 := time.Date(2026, 3, 9, 18, 0, 0, 0, time.UTC)
	c3 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	for _, task := range []nod.Task{
		{ID: "T1", Title: "Fix login bug", Description: "Users are logged out after 5 minutes.",
			Status: nod.StatusInProgress, Priority: nod.P3, EstimateMinutes: est(120), DueDate: "2026-03-15", Labels: []string{"backend", "bug"},
			Checklist: []nod.ChecklistItem{
				{ID: "c1", Title: "Write tests", CheckedBy: nod.ActorUser},
				{ID: "c2", Title: "Update docs", Checked: true, CheckedBy: nod.ActorAgent, CheckedAt: &c2},
				{ID: "c3", Title: "Write migration notes", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &c3},
			}},
		{ID: "T2", Title: "Update README", Status: nod.StatusOpen, Priority: nod.P2,
			Checklist: []nod.ChecklistItem{{ID: "c9", Title: "Fix badge links", CheckedBy: nod.ActorUser}}},
	} {
		if _, err := e.db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, Tool: "seed",
			Mutate: func(*nod.Task) (nod.Task, error) { return task, nil }, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}}); err != nil {
			t.Fatal(err)
		}
	}
}

// turn runs one turn in which the model makes calls, then answers "ok";
// it returns the result and the tool results by call id.
func (e *env) turn(t *testing.T, calls ...openaitest.ToolCall) (nod.TurnResult, map[string]string) {
	t.Helper()
	return e.turnSaying(t, "please", calls...)
}

// turnSaying is turn with the person's text.
func (e *env) turnSaying(t *testing.T, text string, calls ...openaitest.ToolCall) (nod.TurnResult, map[string]string) {
	t.Helper()
	before := len(e.llm.RequestsFor(agentM))
	e.llm.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return e.clf(r) },
		openaitest.Calls(calls...), openaitest.Text("ok")))
	res, err := e.agent.Turn(t.Context(), nod.TurnRequest{Topic: nod.Topic{ChatID: chat}, UserID: user, Text: text})
	if err != nil {
		t.Fatalf("Turn: %v", err)
	}
	reqs := e.llm.RequestsFor(agentM)
	if len(reqs) != before+2 {
		t.Fatalf("%d model requests in the turn, want 2", len(reqs)-before)
	}
	return res, reqs[len(reqs)-1].ToolResults()
}

func (e *env) task(t *testing.T, id nod.TaskID) nod.Task {
	t.Helper()
	task, err := e.db.Tasks().Task(t.Context(), chat, id)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// audit returns the chat's audit rows, newest first, without the seeding.
func (e *env) audit(t *testing.T) []nod.AuditEntry {
	t.Helper()
	all, err := e.db.Audit().Audit(t.Context(), chat, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(all, func(a nod.AuditEntry) bool { return a.Tool == "seed" })
}
