package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/cmd/internal/app"
	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// The fixture the end-to-end tests share: one chat, its allowed person, a
// stranger, and the two models (named apart, so that a test can tell an
// agent request from a classifier request). seedT1 stores the usual task.
const (
	chat     = 100
	user     = 42
	stranger = 666
	agentM   = "agent-model"
	clfM     = "clf-model"
)

// harness runs nod as main would, against fake Telegram and LLM servers
// and a real SQLite file, on a settable clock.
type harness struct {
	t     *testing.T
	tg    *telegramtest.Server
	llm   *openaitest.Server
	clock *fixtures.Clock
	dsn   string
	env   map[string]string
	logs  *fixtures.LogBuffer
	db    *storage.DB // a second connection, for assertions and seeding
	// clf answers classifier requests; by default with no verdicts, so
	// every change needs confirmation.
	clf func(openaitest.Request) openaitest.Response

	cancel context.CancelFunc
	done   chan error
	proc   *process // nod running as its own process, if it is
}

// newHarness runs on a SQLite file, or on a PostgreSQL schema of its own
// when NOD_E2E_POSTGRES is set (CI runs this package both ways).
func newHarness(t *testing.T) *harness {
	t.Helper()
	if os.Getenv("NOD_E2E_POSTGRES") != "" {
		return newHarnessOn(t, storagetest.Migrated(t, "postgres"))
	}
	return newHarnessOn(t, storagetest.Migrated(t, "sqlite"))
}

// firstPassOnly skips a test in the PostgreSQL pass: it needs SQLite
// itself, or it sets up PostgreSQL on its own in the first pass.
func firstPassOnly(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("NOD_E2E_POSTGRES") != "" {
		t.Skip("runs in the first (SQLite) pass only: " + why)
	}
}

// newHarnessOn is newHarness on the database dsn.
func newHarnessOn(t *testing.T, dsn string) *harness {
	t.Helper()
	h := &harness{
		t: t, tg: telegramtest.New(t), llm: openaitest.New(t),
		clock: fixtures.NewClock(fixtures.DefaultNow), dsn: dsn, logs: &fixtures.LogBuffer{},
		clf: func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) },
	}
	h.env = map[string]string{
		"TELEGRAM_BOT_TOKEN": telegramtest.Token, "TELEGRAM_API_URL": h.tg.URL,
		"OPENAI_BASE_URL": h.llm.URL, "OPENAI_API_KEY": "sk-test-secret-key",
		"NOD_MODEL": agentM, "NOD_CLASSIFIER_MODEL": clfM,
		"NOD_DB": h.dsn, "NOD_ALLOWED_USERS": "42,43", "NOD_HTTP_ADDR": "127.0.0.1:0",
		"NOD_STEP_TIMEOUT": "5s",
		// Tests send many messages to one chat quickly; TestRateLimits keeps
		// Telegram's real limits.
		"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000", "NOD_RATE_GROUP": "60000", "NOD_RATE_GLOBAL": "1000",
	}
	h.db = storage.New(storage.Options{DSN: h.dsn}, h.clock.Now, slog.New(slog.DiscardHandler))
	if err := h.db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.db.Close()
		if t.Failed() {
			t.Logf("nod's log, its last lines:\n%s", h.logs.Tail(60))
		}
	})
	return h
}

// start runs nod until the test ends, and waits until it polls.
func (h *harness) start() {
	h.t.Helper()
	polls := len(h.tg.Calls("getUpdates"))
	h.startWhen(func() bool { return len(h.tg.Calls("getUpdates")) > polls })
}

// startWhen runs nod until the test ends, and waits until ready holds.
func (h *harness) startWhen(ready func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	runs := strings.Count(h.logs.String(), "msg=running")
	go func() {
		h.done <- run(ctx, nil, func(k string) string { return h.env[k] }, h.logs, h.logs,
			app.WithClock(h.clock.Now), app.WithTimer(h.clock.After))
	}()
	h.tg.Wait("nod to poll", func() bool {
		select {
		case err := <-h.done:
			h.t.Fatalf("nod stopped at start: %v\n%s", err, h.logs)
		default:
		}
		return ready()
	})
	// Start has returned: a test that ends at once stops a started nod.
	h.tg.Wait("nod to finish starting", func() bool { return strings.Count(h.logs.String(), "msg=running") > runs })
	h.t.Cleanup(h.stop)
}

// stop stops nod and checks it stopped cleanly. Safe to call twice.
func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("nod stopped with %v", err)
		}
	case <-time.After(30 * time.Second):
		h.t.Errorf("nod did not stop within 30s")
	}
	h.cancel = nil
	if strings.Contains(h.logs.String(), telegramtest.Token) || strings.Contains(h.logs.String(), "sk-test-secret-key") ||
		(h.env["NOD_AUDIT_KEY"] != "" && strings.Contains(h.logs.String(), h.env["NOD_AUDIT_KEY"])) {
		h.t.Errorf("a secret appears in the logs")
	}
}

// script answers agent requests in order.
func (h *harness) script(responses ...openaitest.Response) {
	h.llm.Handle(openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return h.clf(r) }, responses...))
}

// seed stores a task of chat and returns it.
func (h *harness) seed(chatID int64, t nod.Task) nod.Task {
	h.t.Helper()
	if t.ID == "" {
		t.ID = nod.TaskID(nod.NewID())
	}
	if t.Status == "" {
		t.Status = nod.StatusOpen
	}
	if t.Priority == "" {
		t.Priority = nod.P2
	}
	a, err := h.db.Tasks().Apply(h.t.Context(), nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(chatID)}, UserID: user, Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(*nod.Task) (nod.Task, error) { return t, nil }})
	if err != nil {
		h.t.Fatalf("seed %q: %v", t.Title, err)
	}
	return a.After
}

// seedT1 stores the default fixture's T1.
func (h *harness) seedT1() nod.Task {
	est := 120
	c3 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	c2 := time.Date(2026, 3, 9, 18, 0, 0, 0, time.UTC)
	return h.seed(chat, nod.Task{ID: "T1", Title: "Fix login bug", Description: "Users are logged out after 5 minutes.",
		Status: nod.StatusInProgress, Priority: nod.P3, EstimateMinutes: &est, DueDate: "2026-03-15", Labels: []string{"backend", "bug"},
		Checklist: []nod.ChecklistItem{
			{ID: "c1", Title: "Write tests", CheckedBy: nod.ActorUser},
			{ID: "c2", Title: "Update docs", Checked: true, CheckedBy: nod.ActorAgent, CheckedAt: &c2},
			{ID: "c3", Title: "Write migration notes", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &c3},
		}})
}

func (h *harness) task(id nod.TaskID) nod.Task {
	h.t.Helper()
	t, err := h.db.Tasks().Task(h.t.Context(), chat, id)
	if err != nil {
		h.t.Fatalf("task %s: %v", id, err)
	}
	return t
}

func (h *harness) audit(chatID int64) []nod.AuditEntry {
	h.t.Helper()
	a, err := h.db.Audit().Audit(h.t.Context(), nod.ChatID(chatID), 1000)
	if err != nil {
		h.t.Fatal(err)
	}
	return a
}

// count returns how many of the chat's audit rows have outcome o.
func (h *harness) count(o nod.Outcome) int {
	n := 0
	for _, a := range h.audit(chat) {
		if a.Outcome == o {
			n++
		}
	}
	return n
}

// outcomes lists audit outcomes oldest first, as "tool:outcome".
func outcomes(entries []nod.AuditEntry) []string {
	var out []string
	for i := len(entries) - 1; i >= 0; i-- {
		out = append(out, string(entries[i].Tool)+":"+string(entries[i].Outcome))
	}
	return out
}

// changeSetMessage waits for the bot's n-th message in chat and checks it
// is a change set (it has a ✓ button).
func (h *harness) changeSetMessage(chatID int64, n int) telegramtest.Message {
	h.t.Helper()
	msgs := h.tg.WaitBotMessages(chatID, n)
	m := msgs[n-1]
	if _, ok := m.Button("✓ 1"); !ok {
		h.t.Fatalf("message %d is not a change set: %q %v", n, m.Text, m.Buttons())
	}
	// nod records which message shows the set right after sending it.
	h.tg.Wait("the set's message to be recorded", func() bool {
		_, err := h.db.ChangeSets().ChangeSetByMessage(h.t.Context(), nod.ChatID(chatID), m.ID)
		return err == nil
	})
	return m
}

// tap presses a button and waits for the answer to the press, then for
// the edits and messages that follow the answer.
func (h *harness) tap(chatID, userID int64, msgID int, prefix string) string {
	h.t.Helper()
	ans := h.tg.WaitAnswer(h.tg.Tap(chatID, userID, msgID, prefix))
	h.settle()
	return ans
}

// settle waits until nod handles no button press, as its own metric
// nod_presses_in_flight says: a press is answered first and its message
// edited after.
func (h *harness) settle() {
	h.t.Helper()
	h.tg.Wait("button presses to settle", func() bool { v, ok := h.metric("nod_presses_in_flight"); return ok && v == 0 })
}

// settleMessages waits until nod handles no message, as its own metric
// nod_messages_in_flight says.
func (h *harness) settleMessages() {
	h.t.Helper()
	h.tg.Wait("messages to settle", func() bool { v, ok := h.metric("nod_messages_in_flight"); return ok && v == 0 })
}

// sweeps waits until nod has run n more sweeps.
func (h *harness) sweeps(n int) {
	h.t.Helper()
	start, _ := h.metric("nod_sweeps_total")
	h.tg.Wait("sweeps to run", func() bool { v, _ := h.metric("nod_sweeps_total"); return v >= start+float64(n) })
}

// metric reads one unlabelled metric from nod's /metrics.
func (h *harness) metric(name string) (float64, bool) {
	h.t.Helper()
	logs := h.logs.String()
	if h.proc != nil {
		logs = h.proc.logs.String()
	}
	return h.metricOf(logs, name)
}

// metricOf reads one unlabelled metric from the /metrics of the nod that
// wrote logs.
func (h *harness) metricOf(logs, name string) (float64, bool) {
	h.t.Helper()
	all := addrRE.FindAllStringSubmatch(logs, -1)
	if all == nil {
		h.t.Fatalf("nod has not logged its address")
	}
	resp, err := http.Get("http://" + all[len(all)-1][1] + "/metrics") // the latest start's address
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// raiseT1 is the model's turn in many tests: propose P1 for T1, then ask.
func (h *harness) raiseT1() {
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Raise it?"))
}

// startWithRaise is the start of many tests: T1 seeded, nod started, the
// person's text answered with a proposal to raise T1 to P1; it returns the
// change-set message.
func (h *harness) startWithRaise(text string) telegramtest.Message {
	h.t.Helper()
	h.seedT1()
	h.raiseT1()
	h.start()
	h.tg.SendText(chat, user, text)
	return h.changeSetMessage(chat, 2)
}

func call(id, name string, args any) openaitest.ToolCall { return openaitest.Call(id, name, args) }

func buttonTexts(m telegramtest.Message) []string {
	var out []string
	for _, b := range m.Buttons() {
		out = append(out, b.Text)
	}
	return out
}

// get fetches path from nod's health and metrics listener.
func (h *harness) get(path string) (int, string) {
	h.t.Helper()
	addr := regexp.MustCompile(`listening addr=(\S+)`).FindStringSubmatch(h.logs.String())[1]
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metrics returns nod's metrics in Prometheus's text format.
func (h *harness) metrics() string {
	h.t.Helper()
	_, m := h.get("/metrics")
	return m
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// deleteT1 has the person ask to delete T1 in words, the model call
// delete_task as a real one does (saying only that it goes to the trash
// once confirmed), and the person type the title back; msgs is how many
// messages the bot has sent before.
func (h *harness) deleteT1(words string, msgs int) {
	h.t.Helper()
	h.askDeleteT1(words, msgs)
	h.tg.SendText(chat, user, "Fix login bug")
	h.tg.WaitBotMessages(chat, msgs+3)
}

// askDeleteT1 is deleteT1 up to nod's question, which it returns once
// nod has recorded it (from then on it takes the typed title).
func (h *harness) askDeleteT1(words string, msgs int) telegramtest.Message {
	h.t.Helper()
	h.clf = answer("explicit:" + words)
	h.script(openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})), openaitest.Text("It goes to the trash once you confirm."))
	h.tg.SendText(chat, user, words)
	ask := h.tg.WaitBotMessages(chat, msgs+2)[msgs+1] // the reply, then nod's question
	h.shown(chat, user, "T1")
	return ask
}

// trashBehind moves task id of chatID to the trash behind nod's back, as
// another replica or device would: nod learns of it only by reading.
func (h *harness) trashBehind(chatID int64, id nod.TaskID) {
	h.t.Helper()
	now := h.clock.Now()
	if _, err := h.db.Tasks().Apply(h.t.Context(), nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(chatID)}, UserID: user, TaskID: id, Tool: nod.ToolDeleteTask, Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(t *nod.Task) (nod.Task, error) { c := t.Clone(); c.DeletedAt = &now; return c, nil }}); err != nil {
		h.t.Fatal(err)
	}
}

// withButton waits for the first bot message in chatID that has a button
// labelled label, and returns it.
func (h *harness) withButton(chatID int64, label string) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.tg.Wait("a message with "+label, func() bool {
		for _, m := range h.tg.BotMessages(chatID) {
			if hasButton(m, label) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}
