package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/storage/storagetest"
	"go.uber.org/fx"
)

func postgresHarness(t *testing.T) *harness {
	t.Helper()
	for _, d := range storagetest.Dialects(t) {
		if d == "postgres" {
			return newHarnessOn(t, storagetest.DSN(t, "postgres"))
		}
	}
	t.Skip("PostgreSQL is not reachable (CI requires it; see storagetest.Dialects)")
	return nil
}

// The change-set flows on PostgreSQL: propose, decide one by one, double
// tap, confirm all.
func TestChangeSetsOnPostgres(t *testing.T) {
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
	firstPassOnly(t, "one PostgreSQL pass is enough")
	h := postgresHarness(t)
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "replica-secret"
	h.seedT1()
	h.raiseT1()
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	addrRE := regexp.MustCompile(`listening addr=(\S+)`)
	first := "http://" + addrRE.FindStringSubmatch(h.logs.String())[1] + "/hook"

	// The second replica: same database, same fakes, its own listener.
	logs2 := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, func(k string) string { return h.env[k] }, logs2, logs2, fx.Decorate(func() clock { return h.clock.Now }))
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("second replica: %v", err)
		}
	})
	h.tg.Wait("the second replica to listen", func() bool { return addrRE.MatchString(logs2.String()) })
	second := "http://" + addrRE.FindStringSubmatch(logs2.String())[1] + "/hook"

	h.tg.SetWebhookTarget(first)
	h.tg.SendText(chat, user, "raise the login bug")
	set := h.changeSetMessage(chat, 2)
	b, _ := set.Button("✓ 1")
	h.tg.SetWebhookTarget("")
	id := h.tg.Press(chat, user, set.ID, b.Data) // queued, not posted
	raw := h.tg.LastUpdate()
	for _, target := range []string{first, second} {
		go h.tg.PostWebhook(target, "replica-secret", raw)
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
