package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/cmd/internal/app"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage/storagetest"
)

func postgresHarness(t *testing.T) *harness {
	t.Helper()
	for _, d := range storagetest.Dialects(t) {
		if d == "postgres" {
			return newHarnessOn(t, storagetest.Migrated(t, "postgres"))
		}
	}
	t.Skip("PostgreSQL is not reachable (CI requires it; see storagetest.Dialects)")
	return nil
}

// The change-set flows on PostgreSQL: propose, decide one by one, double
// tap, confirm all.
func TestChangeSetsOnPostgres(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "the PostgreSQL pass covers this suite")
	h := postgresHarness(t)
	h.seedT1()
	h.script(
		openaitest.Calls(
			call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
			call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90}),
			call("c", "add_multiple_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]string{{"title": "Load test"}, {"title": "Canary"}}}),
		),
		openaitest.Text("Four ideas."),
	)
	h.start()
	h.tg.SendText(chat, user, "tidy up")
	set := h.changeSetMessage(chat, 2)
	b, _ := set.Button("✓ 1")
	a1, a2 := h.tg.Press(chat, user, set.ID, b.Data), h.tg.Press(chat, user, set.ID, b.Data)
	h.tg.WaitAnswer(a1)
	h.tg.WaitAnswer(a2)
	h.tap(chat, user, set.ID, "✗ 2")
	h.tap(chat, user, set.ID, "✓ All")
	task := h.task("T1")
	if task.Priority != nod.P1 || *task.EstimateMinutes != 120 || len(task.Checklist) != 5 {
		t.Errorf("T1 = %s, %d, %d items", task.Priority, *task.EstimateMinutes, len(task.Checklist))
	}
	confirmed := h.count(nod.OutcomeConfirmed)
	if confirmed != 3 {
		t.Errorf("%d confirmed audit rows, want 3", confirmed)
	}
}

// Two replicas on one PostgreSQL, in webhook mode, both receive the same
// button press: it is applied exactly once.
func TestTwoReplicasApplyOnce(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "one PostgreSQL pass is enough")
	h := postgresHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "replica-secret-0123"
	h.seedT1()
	h.raiseT1()
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	first, second, logs2 := h.replicas()

	h.tg.Wire().SetWebhookTarget(first)
	h.tg.SendText(chat, user, "raise the login bug")
	set := h.changeSetMessage(chat, 2)
	b, _ := set.Button("✓ 1")
	h.tg.Wire().SetWebhookTarget("")
	id := h.tg.Press(chat, user, set.ID, b.Data) // queued, not posted
	raw := h.tg.Wire().LastUpdate()
	for _, target := range []string{first, second} {
		go h.tg.Wire().PostWebhook(target, "replica-secret-0123", raw)
	}
	h.tg.WaitAnswer(id)
	h.tg.Wait("both replicas to take the update", func() bool {
		return strings.Contains(h.logs.String()+logs2.String(), "duplicate update ignored")
	})
	confirmed := h.count(nod.OutcomeConfirmed)
	if confirmed != 1 || h.task("T1").Priority != nod.P1 {
		t.Errorf("%d confirmations, priority %s", confirmed, h.task("T1").Priority)
	}
}

// Two replicas on one PostgreSQL both receive the same message: one turn
// answers it, its update recorded by the turn's first write, and the
// other replica drops it before asking the model.
func TestTwoReplicasTurnOnce(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "one PostgreSQL pass is enough")
	h := postgresHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "replica-secret-0123"
	h.llm.Handle(func(r openaitest.Request) openaitest.Response { return openaitest.Text("heard: " + r.LastUser()) })
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	first, second, logs2 := h.replicas()

	h.tg.Wire().SetWebhookTarget("")
	h.tg.SendText(chat, user, "what's on my list?") // queued, not posted
	raw := h.tg.Wire().LastUpdate()
	for _, target := range []string{first, second} {
		go h.tg.Wire().PostWebhook(target, "replica-secret-0123", raw)
	}
	h.tg.WaitBotMessages(chat, 1)
	h.tg.Wait("both replicas to take the update", func() bool {
		return strings.Contains(h.logs.String()+logs2.String(), "duplicate update ignored")
	})
	if n := len(h.llm.RequestsFor(agentM)); n != 1 {
		t.Errorf("the model was asked %d times, want once", n)
	}
	if n := len(h.tg.BotMessages(chat)); n != 1 {
		t.Errorf("%d answers, want 1", n)
	}
}

var addrRE = regexp.MustCompile(`listening addr=(\S+)`)

// replicas returns the webhook URL of the running nod and of a second
// replica it starts on the same database and fakes, stopped when the test
// ends, with the second's logs.
func (h *harness) replicas() (first, second string, logs2 *fixtures.LogBuffer) {
	h.t.Helper()
	first = "http://" + addrRE.FindStringSubmatch(h.logs.String())[1] + "/hook"
	hooks := len(h.tg.Calls("setWebhook"))
	logs2 = &fixtures.LogBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, func(k string) string { return h.env[k] }, logs2, logs2, app.WithClock(h.clock.Now))
	}()
	h.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Errorf("second replica: %v", err)
		}
	})
	// Listening is not yet taking updates (503): a replica takes them
	// from just before it registers its webhook.
	h.tg.Wait("the second replica to take updates", func() bool {
		return addrRE.MatchString(logs2.String()) && len(h.tg.Calls("setWebhook")) > hooks
	})
	return first, "http://" + addrRE.FindStringSubmatch(logs2.String())[1] + "/hook", logs2
}

// Fifty taps on different checklist items of one task, each pressed twice
// and delivered to both replicas at once, and ✓ All racing every ✓ n of a
// sixth set: every confirmed change is on the task, exactly once, with
// one decision, audit row and undo entry each, and every set's message
// ends showing it.
func TestConcurrentTapsOnTwoReplicas(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "it sets up PostgreSQL itself")
	h := postgresHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "replica-secret-0123"
	const items = 60
	big := nod.Task{ID: "T5", Title: "Big checklist"}
	for i := range items {
		big.Checklist = append(big.Checklist, nod.ChecklistItem{ID: nod.ItemID(fmt.Sprintf("i%02d", i)), Title: fmt.Sprintf("Step %d", i), CheckedBy: nod.ActorAgent})
	}
	h.seed(chat, big)
	var turns []openaitest.Response
	for s := range items / 10 {
		var elems []map[string]any
		for i := range 10 {
			elems = append(elems, map[string]any{"id": fmt.Sprintf("i%02d", s*10+i), "isChecked": true})
		}
		turns = append(turns, openaitest.Calls(call("c", "update_checklist_items", map[string]any{"task_id": "T5", "items": elems})), openaitest.Text("Ten ticks."))
	}
	h.script(turns...)
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	first, second, logs2 := h.replicas()
	h.tg.Wire().SetWebhookTarget(first)
	var sets []telegramtest.Message
	for s := range items / 10 {
		h.tg.SendText(chat, user, fmt.Sprintf("tick the next ten, part %d", s+1))
		sets = append(sets, h.changeSetMessage(chat, 2*(s+1)))
	}
	h.tg.Wire().SetWebhookTarget("")

	// Queue every press first, then deliver them all at once.
	type delivery struct {
		target string
		raw    []byte
	}
	var (
		answers    []string
		deliveries []delivery
	)
	press := func(m telegramtest.Message, button, target string) {
		i := slices.IndexFunc(m.Buttons(), func(b telegramtest.Button) bool {
			return b.Text == button || strings.HasPrefix(b.Text, button+" ")
		})
		if i < 0 {
			t.Fatalf("no %q on message %d: %v", button, m.ID, buttonTexts(m))
		}
		answers = append(answers, h.tg.Press(chat, user, m.ID, m.Buttons()[i].Data))
		deliveries = append(deliveries, delivery{target, h.tg.Wire().LastUpdate()})
	}
	for _, m := range sets[:5] {
		for n := 1; n <= 10; n++ {
			press(m, fmt.Sprintf("✓ %d", n), first) // a double tap: one update to each replica
			press(m, fmt.Sprintf("✓ %d", n), second)
		}
	}
	press(sets[5], "✓ All", first)
	for n := 1; n <= 10; n++ {
		press(sets[5], fmt.Sprintf("✓ %d", n), second)
	}
	var wg sync.WaitGroup
	for _, d := range deliveries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.tg.Wire().PostWebhook(d.target, "replica-secret-0123", d.raw)
		}()
	}
	wg.Wait()
	for _, id := range answers {
		h.tg.WaitAnswer(id)
	}
	// Each replica edits the messages after its taps, in whatever order
	// their edits land: once both are done, every message shows its set
	// as it is, with no ✓ or ✗ left on a decided item.
	h.tg.Wait("both replicas' presses to settle", func() bool {
		one, ok1 := h.metricOf(h.logs.String(), "nod_presses_in_flight")
		two, ok2 := h.metricOf(logs2.String(), "nod_presses_in_flight")
		return ok1 && ok2 && one == 0 && two == 0
	})
	for _, m := range sets {
		now, _ := h.tg.Message(chat, m.ID)
		for _, b := range now.Buttons() {
			if strings.HasPrefix(b.Text, "✓") || strings.HasPrefix(b.Text, "✗") {
				t.Errorf("message %d still offers %q after every item was decided:\n%s", m.ID, b.Text, now.Text)
			}
		}
	}

	task := h.task("T5")
	lost := 0
	for _, it := range task.Checklist {
		if !it.Checked {
			lost++
		}
	}
	confirmed, undos := 0, map[nod.UndoID]bool{}
	for _, m := range sets {
		s := mustSet(t, h, m.ID)
		for _, it := range s.Items {
			if it.Status == nod.ItemConfirmed {
				confirmed++
				undos[it.UndoID] = true
			}
		}
		if s.Status != nod.SetResolved {
			t.Errorf("set of message %d is %s", m.ID, s.Status)
		}
	}
	decisions, _ := h.db.ChangeSets().RecentDecisions(t.Context(), chat, 1000)
	audited := h.count(nod.OutcomeConfirmed)
	t.Logf("%d presses over 2 replicas: %d items confirmed, %d lost updates, %d decisions, %d audit rows, %d undo entries",
		len(deliveries), confirmed, lost, len(decisions), audited, len(undos))
	if lost != 0 || confirmed != items || len(decisions) != items || audited != items || len(undos) != items {
		t.Errorf("want each of %d items applied exactly once", items)
	}
}

// On PostgreSQL other replicas may be running, so a message owed by
// another process is taken over only once that process has had its time
// (NOD_UPDATE_TIMEOUT and a margin): a replica that applied a change and
// died before reporting it is covered by the one that lives.
func TestOwedTakenOverOnPostgres(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "it sets up PostgreSQL itself")
	h := postgresHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedT1()
	h.start()
	// The replica that died: it applied an explicit change with its receipt
	// owed, and never sent it.
	if _, err := h.db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, TaskID: "T1", Tool: "set_task_priority", Auto: true,
		Args: []byte(`{"task_id":"T1","priority":"P1"}`), Summary: "Set priority to P1",
		Mutate:  func(cur *nod.Task) (nod.Task, error) { cur.Priority = nod.P1; return *cur, nil },
		Audit:   nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Receipt: &nod.Receipt{Item: nod.ChangeItem{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"}, Quote: "make it P1"},
	}); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	h.sweeps(2)
	if n := len(h.tg.BotMessages(chat)); n != 0 {
		t.Fatalf("a live replica's message was taken within its time: %d messages", n)
	}
	h.clock.Advance(5 * time.Minute)
	late := h.tg.WaitBotMessages(chat, 1)[0]
	if !strings.Contains(late.Text, "I stopped before I could tell you") || !strings.Contains(late.Text, "Priority: P3 → P1") || !hasButton(late, "↩️ Undo") {
		t.Errorf("late receipt = %q %v", late.Text, buttonTexts(late))
	}
}

// Two replicas sweeping one PostgreSQL at once: 300 reminders due in the
// same minute each fire exactly once.
func TestTwoReplicasRemindOnce(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "one PostgreSQL pass is enough")
	h := postgresHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "replica-secret-0123"
	h.env["NOD_SWEEP_INTERVAL"] = "5ms"
	const n = 300
	at := fixtures.DefaultNow.Add(time.Hour)
	for i := range n {
		h.seed(chat, nod.Task{ID: nod.TaskID(fmt.Sprintf("R%03d", i)), Title: fmt.Sprintf("Reminder %03d", i), RemindAt: &at})
	}
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	_, _, logs2 := h.replicas()
	h.clock.Set(at.Add(30 * time.Second))
	h.tg.Wait("every reminder", func() bool { return len(h.tg.BotMessages(chat)) >= n })
	h.sweeps(5)
	seen := map[string]int{}
	for _, m := range h.tg.BotMessages(chat) {
		if i := strings.Index(m.Text, "Reminder "); i >= 0 {
			seen[m.Text[i:i+12]]++
		}
	}
	if len(seen) != n || len(h.tg.BotMessages(chat)) != n {
		t.Fatalf("%d reminders sent for %d tasks, want %d each once", len(h.tg.BotMessages(chat)), len(seen), n)
	}
	one, two := strings.Count(h.logs.String(), "reminder sent"), strings.Count(logs2.String(), "reminder sent")
	t.Logf("replica 1 sent %d, replica 2 sent %d", one, two)
}
