package main

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage/storagetest"
)

// delete_task asks for the typed title in every mode; "yes"
// cancels; the title moves the task to the trash with Undo; /trash
// restores it whole; 30 days later it is purged.
func TestTypedDeletionTrashRestorePurge(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedT1()
	h.clf = answer("explicit:delete the task Fix login bug")
	del := func() {
		h.script(openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})), openaitest.Text("Please confirm."))
	}
	del()
	h.start()
	h.tg.SendText(chat, user, "delete the task Fix login bug")
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[1].Text, "Delete “Fix login bug”</b> and its 3 checklist items") {
		t.Errorf("ask = %q", msgs[1].Text)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["d"]; r != "Deletion awaits the user's typed confirmation." {
		t.Errorf("tool result = %q", r)
	}
	if n := len(h.llm.RequestsFor(clfM)); n != 0 {
		t.Errorf("delete_task was classified")
	}
	h.tg.SendText(chat, user, "yes")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "Nothing was deleted") {
		t.Errorf("after yes: %q", m.Text)
	}
	h.task("T1")

	del()
	h.tg.SendText(chat, user, "delete the task Fix login bug")
	h.tg.WaitBotMessages(chat, 5)
	h.tg.SendText(chat, user, "  fix LOGIN bug ")
	done := h.tg.WaitBotMessages(chat, 6)[5]
	if !strings.Contains(done.Text, "Moved “Fix login bug” to the trash") || !hasButton(done, "↩️ Undo") {
		t.Errorf("deleted reply = %q %v", done.Text, buttonTexts(done))
	}
	if _, err := h.db.Tasks().Task(t.Context(), chat, "T1"); err == nil {
		t.Fatalf("T1 still listed after deletion")
	}
	if got := outcomes(h.audit(chat)); got[len(got)-1] != "delete_task:confirmed" {
		t.Errorf("audit ends %v", got)
	}
	h.tg.SendText(chat, user, "/trash")
	trash := h.tg.WaitBotMessages(chat, 7)[6]
	h.tap(chat, user, trash.ID, "♻️ Restore Fix login bug")
	// The list of that one task becomes the restore's receipt: it no
	// longer offers to restore what is back.
	back := h.tg.WaitMessage(chat, trash.ID, "the list to say it is restored", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Restored “Fix login bug” with its 3 checklist items.")
	})
	if !hasButton(back, "↩️ Undo") || hasButton(back, "♻️ Restore Fix login bug") || len(h.tg.BotMessages(chat)) != 7 {
		t.Errorf("after Restore the list reads %q %v, and %d messages", back.Text, buttonTexts(back), len(h.tg.BotMessages(chat)))
	}
	restored := h.task("T1")
	c3, _ := restored.Item("c3")
	if len(restored.Checklist) != 3 || c3.CheckedBy != nod.ActorUser || !c3.CheckedAt.Equal(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("restored = %+v", restored.Checklist)
	}
	// Delete again and let 30 days pass: purged.
	del()
	h.tg.SendText(chat, user, "delete the task Fix login bug")
	h.tg.WaitBotMessages(chat, 9)
	h.tg.SendText(chat, user, "Fix login bug")
	h.tg.WaitBotMessages(chat, 10)
	h.clock.Advance(30*24*time.Hour + time.Minute)
	h.tg.Wait("the trash to be purged", func() bool {
		trash, _ := h.db.Tasks().Trash(t.Context(), chat)
		return len(trash) == 0
	})
}

// Partial answers: "ok" confirms the newest set only; "yes to 2"
// confirms only item 2; "no" rejects.
func TestTextAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	propose := func(n int, calls ...openaitest.ToolCall) telegramtest.Message {
		h.script(openaitest.Calls(calls...), openaitest.Text("ok?"))
		h.tg.SendText(chat, user, "suggest something")
		return h.changeSetMessage(chat, n)
	}
	x := propose(2, call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}))
	y := propose(4, call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90}),
		call("c", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-20"}))
	h.tg.SendText(chat, user, "yes to 2")
	h.tg.WaitBotMessages(chat, 5)
	task := h.task("T1")
	if task.DueDate != "2026-03-20" || *task.EstimateMinutes != 120 || task.Priority != nod.P3 {
		t.Errorf("after 'yes to 2': due %s, estimate %d, priority %s", task.DueDate, *task.EstimateMinutes, task.Priority)
	}
	y = h.tg.WaitMessage(chat, y.ID, "Y edited", func(m telegramtest.Message) bool { return !hasButton(m, "✓ 2") })
	h.tg.SendText(chat, user, "👍")
	h.tg.WaitBotMessages(chat, 6)
	if *h.task("T1").EstimateMinutes != 90 || h.task("T1").Priority != nod.P3 {
		t.Errorf("👍 did not confirm the newest set only")
	}
	h.tg.SendText(chat, user, "no")
	h.tg.WaitBotMessages(chat, 7)
	x = h.tg.WaitMessage(chat, x.ID, "X resolved", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied 0 of 1") })
	if h.task("T1").Priority != nod.P3 {
		t.Errorf("'no' applied something")
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 4 {
		t.Errorf("%d agent requests: an answer reached the agent", n)
	}
}

// A reply after a rejection is its reason, stored and fed back
// to the agent in the next request.
func TestRejectionReason(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(
		openaitest.Calls(call("a", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90}),
			call("b", "set_task_title", map[string]any{"task_id": "T1", "title": "Fix login redirect bug"})),
		openaitest.Text("ok?"),
	)
	h.start()
	h.tg.SendText(chat, user, "improve the login task")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✗ 1")
	h.tg.ReplyText(chat, user, set.ID, "Not needed, the estimate is fine")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "Noted") {
		t.Errorf("reason reply answered %q", m.Text)
	}
	ds, _ := h.db.ChangeSets().RecentDecisions(t.Context(), chat, 10)
	if len(ds) != 1 || ds[0].Reason != "Not needed, the estimate is fine" || ds[0].Verdict != nod.Rejected {
		t.Errorf("decisions = %+v", ds)
	}
	h.script(openaitest.Text("Understood."))
	h.tg.SendText(chat, user, "what else?")
	h.tg.WaitBotMessages(chat, 4)
	sys := h.llm.RequestsFor(agentM)[2].System()
	if !strings.Contains(sys, `- rejected: Set estimate to 90 minutes on task "Fix login bug" (the user's reason: "Not needed, the estimate is fine")`) {
		t.Errorf("system prompt lacks the decision:\n%s", sys)
	}
	if !strings.Contains(sys, `, item 2: Set title to "Fix login redirect bug" (task "Fix login bug")`) {
		t.Errorf("system prompt lacks the pending item")
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 3 {
		t.Errorf("the reason reached the agent as a request")
	}
}

// Expiry: after the TTL the set's message says so and loses its buttons;
// an old button is refused.
func TestExpiry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedT1()
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("ok?"))
	h.start()
	h.tg.SendText(chat, user, "raise it")
	set := h.changeSetMessage(chat, 2)
	b, _ := set.Button("✓ 1")
	h.clock.Advance(7*24*time.Hour + time.Minute)
	set = h.tg.WaitMessage(chat, set.ID, "the set to expire", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "expired") })
	if got := buttonTexts(set); len(got) != 1 || got[0] != "🔁 Re-propose" {
		t.Errorf("expired set's buttons = %v, want only Re-propose", got)
	}
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, set.ID, b.Data)); !strings.Contains(ans, "This proposal expired") {
		t.Errorf("old button answered %q", ans)
	}
	if h.task("T1").Priority != nod.P3 {
		t.Errorf("expired item applied")
	}
	// Re-propose: a fresh set, checked against the task as it is now.
	rb, _ := set.Button("🔁 Re-propose")
	if ans := h.tap(chat, user, set.ID, "🔁 Re-propose"); ans != "Re-proposed 1." {
		t.Errorf("Re-propose answered %q", ans)
	}
	fresh := h.changeSetMessage(chat, 3)
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, set.ID, rb.Data)); !strings.Contains(ans, "already") {
		t.Errorf("second Re-propose answered %q", ans)
	}
	h.tap(chat, user, fresh.ID, "✓ 1")
	if h.task("T1").Priority != nod.P1 {
		t.Errorf("the re-proposed item did not apply")
	}
	// A set whose change is no longer needed re-proposes nothing.
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P0"})), openaitest.Text("ok?"))
	h.tg.SendText(chat, user, "P0 then")
	p0 := h.changeSetMessage(chat, 5)
	h.clock.Advance(8 * 24 * time.Hour)
	h.tg.WaitMessage(chat, p0.ID, "P0 set to expire", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "expired") })
	h.db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, TaskID: "T1", Tool: "set_task_priority", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(c *nod.Task) (nod.Task, error) { c.Priority = nod.P0; return *c, nil }})
	if ans := h.tap(chat, user, p0.ID, "🔁 Re-propose"); !strings.Contains(ans, "Nothing in it still makes sense") {
		t.Errorf("Re-propose of a done change answered %q", ans)
	}
}

// /review asks everything without a classifier; any allowed user
// of the chat may decide; lines grouped by task.
func TestReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.seed(chat, nod.Task{ID: "T2", Title: "Update README"})
	h.clf = answer("explicit:x", "explicit:x", "explicit:x")
	h.script(
		openaitest.Calls(
			call("a", "set_task_priority", map[string]any{"task_id": "T2", "priority": "P1"}),
			call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 60}),
			call("c", "add_multiple_checklist_items", map[string]any{"task_id": "T2", "items": []map[string]string{{"title": "Add badges"}}}),
		),
		openaitest.Text("A few suggestions."),
	)
	h.start()
	h.tg.SendText(chat, user, "/review")
	set := h.changeSetMessage(chat, 2)
	if n := len(h.llm.RequestsFor(clfM)); n != 0 {
		t.Errorf("%d classifier requests in a review", n)
	}
	// The review's instruction is nod's, in the system prompt; the only
	// user message is what the person sent.
	if r := h.llm.RequestsFor(agentM)[0]; r.LastUser() != "/review" || !strings.Contains(r.System(), "The user sent /review: review their tasks on your own") {
		t.Errorf("review request: user %q, system lacks the instruction", r.LastUser())
	}
	text := telegramtest.Message{Text: set.Text}.Text
	if i, j := strings.Index(text, "Update README"), strings.Index(text, "Fix login bug"); i < 0 || j < i || strings.Count(text, "Update README") != 1 {
		t.Errorf("not grouped by task:\n%s", text)
	}
	if ans := h.tap(chat, 43, set.ID, "✓ 3"); !strings.Contains(ans, "Applied") {
		t.Errorf("another allowed user's tap on a review set: %q", ans)
	}
}

// A proposal whose field changed since it was proposed
// is not applied silently: "now 90" is shown with Apply anyway and Skip.
func TestStaleProposal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	propose := func(n int, minutes int) telegramtest.Message {
		h.clf = answer("needs")
		h.script(openaitest.Calls(call("e", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": minutes})), openaitest.Text("ok?"))
		h.tg.SendText(chat, user, "estimate it")
		return h.changeSetMessage(chat, n)
	}
	explicit := func(n, minutes int) telegramtest.Message {
		h.clf = answer(fmt.Sprintf("explicit:make it %d", minutes))
		h.script(openaitest.Calls(call("e", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": minutes})), openaitest.Text("done"))
		h.tg.SendText(chat, user, fmt.Sprintf("make it %d", minutes))
		return h.tg.WaitBotMessages(chat, n)[n-2]
	}
	// An applied change supersedes a waiting proposal of the same field
	// (docs/design.md §4), so staleness comes from elsewhere: an undo of the change
	// the proposal was made against.
	receipt := explicit(2, 90)
	first := propose(4, 60)
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	ans := h.tap(chat, user, first.ID, "✓ 1")
	if ans != "Not applied. The estimate is now 2 h." || *h.task("T1").EstimateMinutes != 120 {
		t.Errorf("stale ✓ answered %q; estimate %d", ans, *h.task("T1").EstimateMinutes)
	}
	first = h.tg.WaitMessage(chat, first.ID, "Apply anyway offered", func(m telegramtest.Message) bool { return hasButton(m, "⚠️ Apply anyway 1") })
	if !hasButton(first, "Skip 1") || hasButton(first, "✓ 1") || !strings.Contains(first.Text, "now 2 h") {
		t.Errorf("stale item shows %q %v", first.Text, buttonTexts(first))
	}
	h.tap(chat, user, first.ID, "⚠️ Apply anyway 1")
	if *h.task("T1").EstimateMinutes != 60 {
		t.Errorf("Apply anyway did not apply")
	}
	u, _ := h.db.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: chat}, user)
	if want := []nod.FieldChange{{Field: nod.FieldEstimate, Before: "120", After: "60"}}; !slices.Equal(u.Change.Fields, want) {
		t.Errorf("undo entry change = %+v, want %+v", u.Change.Fields, want)
	}
	// Skip keeps the value as it is now and writes no undo entry.
	receipt = explicit(7, 45)
	third := propose(9, 30)
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	h.tap(chat, user, third.ID, "✓ 1")
	h.tg.WaitMessage(chat, third.ID, "Skip offered", func(m telegramtest.Message) bool { return hasButton(m, "Skip 1") })
	before, _ := h.db.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: chat}, user)
	h.tap(chat, user, third.ID, "Skip 1")
	h.tg.WaitMessage(chat, third.ID, "skipped", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied 0 of 1") })
	after, _ := h.db.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: chat}, user)
	if *h.task("T1").EstimateMinutes != 60 || before.ID != after.ID {
		t.Errorf("Skip: estimate %d, new undo entry %v", *h.task("T1").EstimateMinutes, before.ID != after.ID)
	}
}

// An item already in its target state is stale, not "applied".
func TestAlreadyDone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Calls(call("u", "update_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]any{{"id": "c1", "isChecked": true, "reason": "The user said today the tests are written."}}})), openaitest.Text("ok?"))
	h.start()
	h.tg.SendText(chat, user, "tick tests")
	set := h.changeSetMessage(chat, 2)
	h.tg.SendText(chat, user, "/tasks")
	list := h.tg.WaitBotMessages(chat, 3)[2]
	h.tap(chat, user, list.ID, "🔄 Fix login bug")
	card := h.tg.WaitBotMessages(chat, 4)[3]
	// The person's own tick supersedes the proposal (docs/design.md §4): the set
	// says so, and a late ✓ 1 decides nothing.
	h.tap(chat, user, card.ID, "⬜ Write tests")
	b, _ := set.Button("✓ 1")
	ans := h.tg.WaitAnswer(h.tg.Press(chat, user, set.ID, b.Data))
	if !strings.Contains(ans, "already") {
		t.Errorf("answer = %q", ans)
	}
	// Nobody decided it: the person's own tick closed it.
	set = h.tg.WaitMessage(chat, set.ID, "resolved", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Nothing from it was applied.") })
	if hasButton(set, "Undo") {
		t.Errorf("a stale item offers Undo")
	}
}

// Confirm-all stops at a failure and offers Retry, Skip and Abort.
func TestConfirmAllStopsAtFailure(t *testing.T) {
	t.Parallel()
	for _, choice := range []string{"⏭ Skip", "⛔ Abort"} {
		t.Run(choice, func(t *testing.T) {
			h := newHarness(t)
			h.seedT1()
			h.seed(chat, nod.Task{ID: "T2", Title: "Update README"})
			h.script(
				openaitest.Calls(
					call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
					call("b", "update_task_due_date", map[string]any{"task_id": "T2", "due_date": "2026-03-31"}),
					call("c", "add_multiple_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]string{{"title": "Load test"}}}),
				),
				openaitest.Text("ok?"),
			)
			h.start()
			h.tg.SendText(chat, user, "/review")
			set := h.changeSetMessage(chat, 2)
			// T2 is gone after the proposal without a deletion closing it
			// (a purge racing the set, say): applying item 3 fails.
			storagetest.Exec(t, h.dsn, `DELETE FROM tasks WHERE id = 'T2'`)
			// Items are grouped by task: 1 priority (T1), 2 Load test (T1), 3 due date (T2).
			ans := h.tap(chat, user, set.ID, "✓ All")
			if !strings.Contains(ans, "Stopped at item 3") {
				t.Errorf("✓ All answered %q", ans)
			}
			set = h.tg.WaitMessage(chat, set.ID, "Retry offered", func(m telegramtest.Message) bool { return hasButton(m, "🔁 Retry") })
			if !strings.Contains(set.Text, "in the trash") || !hasButton(set, "⏭ Skip") || !hasButton(set, "⛔ Abort") {
				t.Errorf("after the failure: %q %v", set.Text, buttonTexts(set))
			}
			task := h.task("T1")
			if task.Priority != nod.P1 || len(task.Checklist) != 4 {
				t.Errorf("items before the failure not applied: %s, %d items", task.Priority, len(task.Checklist))
			}
			h.tap(chat, user, set.ID, choice)
			set = h.tg.WaitMessage(chat, set.ID, "no more Retry", func(m telegramtest.Message) bool { return !hasButton(m, "🔁 Retry") })
			if !strings.Contains(set.Text, "Applied 2 of 3") {
				t.Errorf("after %s: %q", choice, set.Text)
			}
		})
	}
}

// End to end: the person ticks an item on the card; a review that
// would untick it without a reason queues nothing and names the time; with
// a reason it is shown with the reason and, confirmed, stamps the person.
func TestSovereigntyEndToEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T1", Title: "Launch", Checklist: []nod.ChecklistItem{{ID: "m1", Title: "Design mockup"}}})
	h.start()
	h.tg.SendText(chat, user, "/tasks")
	list := h.tg.WaitBotMessages(chat, 1)[0]
	h.tap(chat, user, list.ID, "▫️ Launch")
	card := h.tg.WaitBotMessages(chat, 2)[1]
	h.clock.Advance(time.Hour)
	tickedAt := h.clock.Now()
	h.tap(chat, user, card.ID, "⬜ Design mockup")

	h.clock.Advance(time.Hour)
	h.script(openaitest.Calls(call("u", "update_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]any{{"id": "m1", "isChecked": false}}})), openaitest.Text("Looked."))
	h.tg.SendText(chat, user, "/review")
	h.tg.WaitBotMessages(chat, 3)
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["u"]; !strings.Contains(r, tickedAt.Format(time.RFC3339)) || strings.Contains(r, "queued") {
		t.Errorf("without a reason: %q", r)
	}
	if sets, _ := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{ChatID: chat}); len(sets) != 0 {
		t.Errorf("a set was opened")
	}
	h.script(openaitest.Calls(call("u", "update_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]any{
		{"id": "m1", "isChecked": false, "reason": "Today the user wrote that the mockup still lacks the mobile view."}}})), openaitest.Text("One thing."))
	h.tg.SendText(chat, user, "/review")
	set := h.changeSetMessage(chat, 5)
	if !strings.Contains(set.Text, "Reason: “Today the user wrote") || !strings.Contains(set.Text, "You set this item on 11 Mar 2026, 11:00") {
		t.Errorf("override shown as:\n%s", set.Text)
	}
	h.tap(chat, user, set.ID, "✓ 1")
	task := h.task("T1")
	m1, _ := task.Item("m1")
	if m1.Checked || m1.CheckedBy != nod.ActorUser || !m1.CheckedAt.Equal(h.clock.Now()) {
		t.Errorf("m1 = %+v", m1)
	}
}

// A rejected proposal is not proposed again; no
// new set message is sent. /pending lists only open sets.
func TestRejectedNotReproposed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise it")
	h.tap(chat, user, set.ID, "✗ 1")
	h.raiseT1()
	h.tg.SendText(chat, user, "anything else?")
	h.tg.WaitBotMessages(chat, 3)
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["a"]; !strings.Contains(r, "rejected") {
		t.Errorf("tool result = %q", r)
	}
	h.tg.SendText(chat, user, "/pending")
	msgs := h.tg.WaitBotMessages(chat, 4)
	if len(msgs) != 4 || hasButton(msgs[2], "✓ 1") || !strings.Contains(msgs[3].Text, "Nothing is waiting for your answer") {
		t.Errorf("messages after the repeat: %q", []string{msgs[2].Text, msgs[3].Text})
	}
	h.script(openaitest.Calls(call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 60})), openaitest.Text("ok?"))
	h.tg.SendText(chat, user, "estimate")
	open := h.changeSetMessage(chat, 6)
	h.tg.SendText(chat, user, "/pending")
	p := h.tg.WaitBotMessages(chat, 7)[6]
	if p.ReplyTo != open.ID || !strings.Contains(p.Text, "The change here is waiting") {
		t.Errorf("/pending = %q replying to %d, want %d", p.Text, p.ReplyTo, open.ID)
	}
}

// A rejected description keeps only that text from coming back: every
// description's summary reads "Update the description", so another text
// is another change (found in a play: a new note refused as "the user
// rejected this exact change").
func TestRejectedDescriptionLetsAnotherThrough(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	describe := func(id, text string) {
		h.script(openaitest.Calls(call(id, "update_task_description", map[string]any{"task_id": "T1", "description": text})), openaitest.Text("ok?"))
	}
	describe("a", "Owner: Alice.")
	h.start()
	h.tg.SendText(chat, user, "note who owns the login bug")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✗ 1")
	describe("b", "Repro: log in twice.")
	h.tg.SendText(chat, user, "add the repro steps")
	h.changeSetMessage(chat, 4)
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["b"]; r != "Proposal queued for user review." {
		t.Errorf("another description's result = %q", r)
	}
	describe("c", "Owner:  alice.")
	h.tg.SendText(chat, user, "note the owner again")
	h.tg.WaitBotMessages(chat, 5)
	if r := h.llm.RequestsFor(agentM)[5].ToolResults()["c"]; !strings.HasPrefix(r, "Not queued: the user rejected this exact change") {
		t.Errorf("the rejected text again = %q", r)
	}
}

// In a group a member's ✗ is theirs: it keeps the change from coming back
// to them, and another member asking for it is asked themselves.
func TestGroupRejectionIsThePersons(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	raise := func(id string) {
		h.script(openaitest.Calls(call(id, "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("P1?"))
	}
	raise("a")
	h.start()
	h.tg.SendText(group, user, "the launch post matters")
	set := h.changeSetMessage(group, 2)
	h.tap(group, user, set.ID, "✗ 1")
	raise("b")
	h.tg.SendText(group, bob, "the launch post matters to me")
	h.changeSetMessage(group, 4)
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["b"]; r != "Proposal queued for user review." {
		t.Errorf("Bob's proposal after Alice's ✗ = %q", r)
	}
	raise("c")
	h.tg.SendText(group, user, "and now?")
	h.tg.WaitBotMessages(group, 5)
	if r := h.llm.RequestsFor(agentM)[5].ToolResults()["c"]; !strings.HasPrefix(r, "Not queued: the user rejected this exact change") {
		t.Errorf("Alice's own rejected change again = %q", r)
	}
}

// Superseding end to end: the older set's message loses its buttons and
// says why.
func TestSupersedeEndToEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	estimate := func(n, minutes int) telegramtest.Message {
		h.script(openaitest.Calls(call("e", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": minutes})), openaitest.Text("ok?"))
		h.tg.SendText(chat, user, "estimate")
		return h.changeSetMessage(chat, n)
	}
	first := estimate(2, 60)
	estimate(4, 90)
	first = h.tg.WaitMessage(chat, first.ID, "the old set to be superseded", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Superseded") })
	if len(first.Buttons()) != 0 {
		t.Errorf("a superseded set keeps %v", buttonTexts(first))
	}
}

// A day before it expires, a set says so and offers to keep it;
// Keep gives it another week.
func TestExpiryWarningAndKeep(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	set := h.startWithRaise("raise it")
	h.clock.Advance(time.Hour)
	h.script(openaitest.Calls(call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 60})), openaitest.Text("ok?"))
	h.tg.SendText(chat, user, "and the estimate")
	unkept := h.changeSetMessage(chat, 4)
	h.clock.Advance(6 * 24 * time.Hour)
	set = h.tg.WaitMessage(chat, set.ID, "the warning", func(m telegramtest.Message) bool { return hasButton(m, "⏳ Keep 7 more days") })
	if !strings.Contains(set.Text, "expires on 18 Mar 2026, 10:00") || !hasButton(set, "✓ 1") {
		t.Errorf("warning = %q %v", set.Text, buttonTexts(set))
	}
	// Keeping is deciding: another person may not (storage checks, in
	// the statement that keeps it).
	if ans := h.tap(chat, 43, set.ID, "⏳ Keep 7 more days"); !strings.Contains(ans, "Only the person who asked") {
		t.Errorf("another person's Keep answered %q", ans)
	}
	if ans := h.tap(chat, user, set.ID, "⏳ Keep 7 more days"); !strings.Contains(ans, "Kept until 24 Mar 2026") {
		t.Errorf("Keep answered %q", ans)
	}
	set = h.tg.WaitMessage(chat, set.ID, "the warning to go", func(m telegramtest.Message) bool { return !hasButton(m, "⏳") })
	h.clock.Advance(2 * 24 * time.Hour) // past the first expiry, before the new one
	// The unkept set expiring shows a sweep ran after the clock moved.
	h.tg.WaitMessage(chat, unkept.ID, "the unkept set to expire", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "expired") })
	if m, _ := h.tg.Message(chat, set.ID); strings.Contains(m.Text, "expired") {
		t.Errorf("a kept set expired")
	}
	if ans := h.tap(chat, user, set.ID, "✓ 1"); !strings.Contains(ans, "Applied") {
		t.Errorf("✓ after Keep answered %q", ans)
	}
}

// Edit by reply: a reply in plain words revises the pending item
// under its number, the old version is audited as superseded, and ✓
// applies the edited value; an edit classified explicit applies at once.
func TestEditByReply(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Calls(call("d", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-20"})), openaitest.Text("Move it?"))
	h.start()
	h.tg.SendText(chat, user, "move the login bug")
	set := h.changeSetMessage(chat, 2)
	h.script(openaitest.Calls(call("d", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-13"})), openaitest.Text("Friday it is."))
	h.tg.ReplyText(chat, user, set.ID, "make it Friday")
	set = h.tg.WaitMessage(chat, set.ID, "the revised item", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "13 Mar 2026") })
	if !strings.Contains(set.Text, "Due: 15 Mar 2026 → 13 Mar 2026") || !hasButton(set, "✓ 1") {
		t.Errorf("revised set = %q %v", set.Text, buttonTexts(set))
	}
	if sys := h.llm.RequestsFor(agentM)[2].System(); !strings.Contains(sys, "reply to your pending proposal") {
		t.Errorf("the agent was not told what the reply revises")
	}
	if got := outcomes(h.audit(chat)); !slices.Contains(got, "update_task_due_date:superseded") {
		t.Errorf("audit %v lacks the superseded version", got)
	}
	if sets, _ := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{ChatID: chat}); len(sets) != 1 {
		t.Errorf("%d open sets, want the one revised", len(sets))
	}
	h.tap(chat, user, set.ID, "✓ 1")
	if got := h.task("T1").DueDate; got != "2026-03-13" {
		t.Errorf("applied due date %s, want the edited 2026-03-13", got)
	}

	// Two items: "item 2" names the one; the edit is explicit: applied at once.
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
		call("b", "set_task_title", map[string]any{"task_id": "T1", "title": "Fix the login bug"})), openaitest.Text("Two ideas."))
	h.tg.SendText(chat, user, "improve it")
	two := h.changeSetMessage(chat, 5)
	h.clf = answer("explicit:call it 'Fix login'")
	h.script(openaitest.Calls(call("b", "set_task_title", map[string]any{"task_id": "T1", "title": "Fix login"})), openaitest.Text("Renamed."))
	h.tg.ReplyText(chat, user, two.ID, "item 2: call it 'Fix login'")
	two = h.tg.WaitMessage(chat, two.ID, "item 2 closed", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Overtaken by a change made since.")
	})
	if h.task("T1").Title != "Fix login" || !hasButton(two, "✓ 1") || hasButton(two, "✓ 2") {
		t.Errorf("title %q, set %v", h.task("T1").Title, buttonTexts(two))
	}
}

// docs/design.md §3.4 rule 2: mixed answers, ranges and "all but", as a reply and as
// a plain message; items named in neither part stay pending.
func TestMixedTextAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Calls(
		call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
		call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90}),
		call("c", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-20"}),
		call("d", "set_task_status", map[string]any{"task_id": "T1", "status": "BLOCKED"}),
		call("e", "assign_task_labels", map[string]any{"task_id": "T1", "labels": []string{"backend", "bug", "auth"}}),
		call("f", "set_task_title", map[string]any{"task_id": "T1", "title": "Fix login redirect bug"}),
	), openaitest.Text("Six ideas."))
	h.start()
	h.tg.SendText(chat, user, "tidy up the login bug")
	set := h.changeSetMessage(chat, 2)
	h.tg.ReplyText(chat, user, set.ID, "yes to 4 and 6, no to 5")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; m.Text != "✅ Applied 2 changes. ❌ Rejected 1. 3 still wait for your answer." {
		t.Errorf("mixed answer: %q", m.Text)
	}
	status := func() string {
		s := mustSet(t, h, set.ID)
		var out []string
		for _, it := range s.Items {
			out = append(out, fmt.Sprintf("%d:%s", it.N, it.Status))
		}
		return strings.Join(out, " ")
	}
	if got := status(); got != "1:pending 2:pending 3:pending 4:confirmed 5:rejected 6:confirmed" {
		t.Errorf("after the mixed answer: %s", got)
	}
	task := h.task("T1")
	if task.Status != nod.StatusBlocked || task.Title != "Fix login redirect bug" || len(task.Labels) != 2 {
		t.Errorf("T1 = %s %q %v", task.Status, task.Title, task.Labels)
	}
	h.tg.SendText(chat, user, "yes to 12")
	if m := h.tg.WaitBotMessages(chat, 4)[3]; m.Text != "That proposal has no item 12 (it has 6); nothing was changed." {
		t.Errorf("an answer naming no item: %q", m.Text)
	}
	h.tg.SendText(chat, user, "all but 2")
	h.tg.WaitBotMessages(chat, 5)
	if got := status(); got != "1:confirmed 2:pending 3:confirmed 4:confirmed 5:rejected 6:confirmed" {
		t.Errorf("after all but 2: %s", got)
	}
	h.tg.SendText(chat, user, "nee")
	h.tg.WaitBotMessages(chat, 6)
	if got := status(); got != "1:confirmed 2:rejected 3:confirmed 4:confirmed 5:rejected 6:confirmed" {
		t.Errorf("after nee: %s", got)
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("%d agent requests: an answer went to the model", n)
	}
}

// docs/design.md §3.4: a typed confirmation a letter or two off asks again; other
// text cancels and is then handled as any message, so "actually keep it,
// but make it P3" cancels the deletion and still sets P3.
func TestTypedConfirmationNearMissAndCarryOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:delete the login bug")
	h.script(openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})), openaitest.Text("Please confirm."))
	h.start()
	h.tg.SendText(chat, user, "delete the login bug")
	h.tg.WaitBotMessages(chat, 2)
	h.tg.SendText(chat, user, "Fix logn bug")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "not quite the title") {
		t.Errorf("near miss: %q", m.Text)
	}
	h.clf = answer("explicit:make it P2")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P2"})), openaitest.Text("Kept it, now P2."))
	h.tg.SendText(chat, user, "actually keep it, but make it P2")
	h.tg.Wait("P2", func() bool { return h.task("T1").Priority == nod.P2 })
	msgs := h.tg.WaitBotMessages(chat, 6)
	if !strings.Contains(msgs[3].Text, "Nothing was deleted") || !strings.Contains(msgs[4].Text, "Priority: P3 → P2") || msgs[5].Text != "Kept it, now P2." {
		t.Errorf("messages = %q / %q / %q", msgs[3].Text, msgs[4].Text, msgs[5].Text)
	}
	if r := h.llm.RequestsFor(agentM)[2]; r.LastUser() != "actually keep it, but make it P2" {
		t.Errorf("the agent was asked %q", r.LastUser())
	}
	if prompt := h.tg.BotMessages(chat)[1]; !strings.Contains(prompt.Text, "Cancelled: it was not deleted") {
		t.Errorf("the prompt still reads as waiting: %q", prompt.Text)
	}
	// The prompt is gone: the title typed now deletes nothing.
	h.script(openaitest.Text("Hm?"))
	h.tg.SendText(chat, user, "Fix login bug")
	h.tg.WaitBotMessages(chat, 7)
	h.task("T1")
}

// Deleting a task closes its waiting proposals, in the deletion's
// transaction: their message is edited to name the task as in the trash,
// and loses their buttons (found in a play-test: they stayed open and a
// tap failed).
func TestDeletionClosesProposals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise it")
	h.deleteT1("delete Fix login bug", 2)
	m := h.tg.WaitMessage(chat, set.ID, "the proposal closed", func(m telegramtest.Message) bool { return !hasButton(m, "✓ 1") })
	if !strings.Contains(m.Text, "Fix login bug (in the trash)") || !strings.Contains(m.Text, "The task is in the trash or deleted") {
		t.Errorf("the closed proposal reads %q", m.Text)
	}
	if s := mustSet(t, h, set.ID); s.Items[0].Status != nod.ItemStale || s.Status.Open() {
		t.Errorf("after the deletion the set is %s, its item %s", s.Status, s.Items[0].Status)
	}
}

// A Redo that would bring a task back to the list beside another of its
// title, one the person asked for anew meanwhile, asks first; applied
// anyway, or restored from /trash, it says they now have two (found in
// play-tests: an old Redo made a second "Call the bank" without a word,
// then, told afterwards, the person wished to have been asked).
func TestBackOnTheListBesideItsTwin(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	undone := h.bankUndoneThenAskedAnew()
	// The agent was told where the first one went.
	var notes string
	for _, m := range h.llm.RequestsFor(agentM)[2].Messages[1:] {
		if m.Role == "system" {
			notes = m.Content
		}
	}
	if !strings.Contains(notes, "the user undid “Create task") || !strings.Contains(notes, "): the task is in the trash now; do not make it again unless asked anew (to have it back, the ↪️ Redo on nod's “Undone” message puts it back as it was when it went to the trash, its reminder and other changes included)") {
		t.Errorf("the agent was not told the undone creation's task is in the trash:\n%s", notes)
	}
	h.tg.Wait("the new task", func() bool { ts, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); return len(ts) == 1 })
	if strings.Contains(h.tg.BotMessages(chat)[2].Text, "Another task") {
		t.Errorf("the new task, alone on the list, reads %q", h.tg.BotMessages(chat)[2].Text)
	}
	if a := h.tg.WaitAnswer(h.tg.Tap(chat, user, undone.ID, "↪️ Redo")); a != "Not yet: you have a task of that title already. See below." {
		t.Errorf("the Redo's answer = %q", a)
	}
	ask := h.tg.WaitBotMessages(chat, 4)[3]
	// It names both times, the twin's two minutes after the first's: a
	// person tells the two apart by when they asked for each.
	times := regexp.MustCompile(`↪️ Not put back yet: a task “Call the bank” is on the list already, added today, (\d\d:\d\d); the one this brings back was added today, (\d\d:\d\d)\. Apply anyway to have both\.`).FindStringSubmatch(ask.Text)
	if times == nil {
		t.Errorf("the Redo beside a twin asks %q", ask.Text)
	} else if clockOf(times[1]).Sub(clockOf(times[2])) != 2*time.Minute {
		t.Errorf("the question names the twin at %s and the one it brings back at %s, want two minutes apart", times[1], times[2])
	}
	if ts, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(ts) != 1 {
		t.Errorf("before the person said so, %d tasks are on the list", len(ts))
	}
	h.tap(chat, user, ask.ID, "↪️ Apply anyway")
	const twin = "Another task is called “Call the bank” too: you have two of that title now."
	redone := h.tg.WaitBotMessages(chat, 5)[4]
	if !strings.Contains(redone.Text, "is on the list again.\n"+twin) {
		t.Errorf("the Redo beside its twin reads %q", redone.Text)
	}
	// The question keeps its words and loses its button; the Undone
	// message whose Redo asked reads as redone, its Redo gone (found in a
	// play-test: the question was rewritten, the Undone message kept its
	// Redo).
	asked, _ := h.tg.Message(chat, ask.ID)
	if !strings.Contains(asked.Text, "Not put back yet") || len(buttonTexts(asked)) != 0 {
		t.Errorf("the question after Apply anyway reads %q %v", asked.Text, buttonTexts(asked))
	}
	if m, _ := h.tg.Message(chat, undone.ID); !strings.Contains(m.Text, "Redone since.") || hasButton(m, "↪️ Redo") {
		t.Errorf("the Undone message after Apply anyway reads %q %v", m.Text, buttonTexts(m))
	}
	// Taken back again, then restored from /trash: the restore says so.
	h.tap(chat, user, redone.ID, "↩️ Undo")
	h.tg.WaitBotMessages(chat, 6)
	h.tg.SendText(chat, user, "/trash")
	trash := h.tg.WaitBotMessages(chat, 7)[6]
	h.tap(chat, user, trash.ID, "♻️ Restore Call the bank")
	back := h.tg.WaitMessage(chat, trash.ID, "the list to say it is restored", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Restored “Call the bank”")
	})
	if !strings.Contains(back.Text, twin) || !hasButton(back, "↩️ Undo") {
		t.Errorf("the restore beside its twin reads %q %v", back.Text, buttonTexts(back))
	}
}

// A deletion's question says which task the title deletes when another
// task has the same title: typing it deletes the one asked about, and
// only that one.
func TestDeletionOfOneOfTwins(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	remind := fixtures.DefaultNow.Add(24 * time.Hour)
	h.clock.Set(fixtures.DefaultNow.Add(-49 * time.Hour)) // B1 is the older
	h.seed(chat, nod.Task{ID: "B1", Title: "Call the bank", Priority: nod.P2})
	h.clock.Set(fixtures.DefaultNow)
	h.seed(chat, nod.Task{ID: "B2", Title: "Call the bank", Priority: nod.P1, RemindAt: &remind})
	h.seed(chat, nod.Task{ID: "S1", Title: "Buy stamps"})
	h.clf = answer("explicit:delete the bank call without the reminder")
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "B1"})),
		openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "B1"})), openaitest.Text("Please confirm."))
	h.start()
	h.tg.SendText(chat, user, "delete the older bank call")
	ask := h.withButton(chat, "✗ Keep")
	// The agent is told which of the two is older: in its task list (the
	// two of one title only) and in what get_task returns.
	reqs := h.llm.RequestsFor(agentM)
	sys := reqs[0].System()
	for _, want := range []string{`- B1 "Call the bank" OPEN P2 added 2026-03-09T09:00`, `- B2 "Call the bank" OPEN P1 added 2026-03-11T10:00`, `- S1 "Buy stamps" OPEN P2` + "\n"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the agent's task list lacks %q:\n%s", want, sys)
		}
	}
	if r := reqs[1].ToolResults()["g"]; !strings.Contains(r, `"created_at":"2026-03-09T09:00:00Z"`) {
		t.Errorf("get_task of the older twin = %s", r)
	}
	if !strings.Contains(ask.Text, "<b>Delete “Call the bank”</b>?\nAnother task has this title too. This one has priority P2, without a reminder, added ") {
		t.Errorf("the question of one of two = %q", ask.Text)
	}
	h.tg.SendText(chat, user, "Call the bank")
	h.tg.Wait("B1 in the trash", func() bool { return h.trashed(chat, "B1") })
	if h.trashed(chat, "B2") {
		t.Errorf("the twin with the reminder went to the trash too")
	}
	// Answered, the question still says which of the two went.
	closed := h.tg.WaitMessage(chat, ask.ID, "the question closed", func(m telegramtest.Message) bool { return m.Edits > 0 })
	if !strings.Contains(closed.Text, "You typed its title: deleted.\nThe other task of this title stays. This one had priority P2, without a reminder, added 9 Mar 2026, 09:00.") {
		t.Errorf("the answered question of one of two = %q", closed.Text)
	}

	h.clf = answer("explicit:delete buy stamps")
	h.script(openaitest.Calls(call("e", "delete_task", map[string]any{"task_id": "S1"})), openaitest.Text("Please confirm."))
	h.tg.SendText(chat, user, "delete buy stamps")
	ask = botMessage(h, "⚠️ <b>Delete “Buy stamps”</b>?")
	if strings.Contains(ask.Text, "Another task") {
		t.Errorf("a title no other task has reads %q", ask.Text)
	}
}

// A new task's guessed field waits for a tap; the task's creation undone,
// the proposal goes with it, as with a deletion: its message says the
// task is in the trash and loses its buttons (found in a play-test: a
// label proposal for a task in the trash stayed open, its ✓ live).
func TestCreationUndoneClosesItsProposals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.insuranceWithALabel()
	h.start()
	h.tg.SendText(chat, user, "add renew the car insurance")
	set := h.withButton(chat, "✓ 1")
	receipt := h.receiptOf("Created task “Renew the car insurance”")
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	m := h.tg.WaitMessage(chat, set.ID, "the proposal closed", func(m telegramtest.Message) bool { return !hasButton(m, "✓ 1") })
	if !strings.Contains(m.Text, "The task is in the trash or deleted") {
		t.Errorf("the closed proposal reads %q", m.Text)
	}
	if s := mustSet(t, h, set.ID); s.Items[0].Status != nod.ItemStale || s.Status.Open() {
		t.Errorf("after the creation's Undo the set is %s, its item %s", s.Status, s.Items[0].Status)
	}
}

// The Undo made while the set's message is on its way to Telegram,
// so that the undo finds no message of the set to redraw: the set is
// drawn again once its message is known, as it is now.
func TestUndoWhileTheSetIsSent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.insuranceWithALabel()
	var (
		once   sync.Once
		before atomic.Int64 // the bot's messages before the set's
	)
	before.Store(-1)
	h.tg.Wire().SetFault(func(method string, params url.Values) *telegramtest.Error {
		if method != "sendMessage" || !strings.Contains(params.Get("reply_markup"), "✓ 1") {
			return nil
		}
		once.Do(func() {
			var receipt telegramtest.Message
			for _, m := range h.tg.BotMessages(chat) {
				if hasButton(m, "↩️ Undo") {
					receipt = m
				}
			}
			undo, ok := receipt.Button("↩️ Undo")
			if !ok {
				t.Error("no receipt with Undo before the set")
				return
			}
			id := h.tg.Press(chat, user, receipt.ID, undo.Data)
			h.tg.Wait("the Undo answered while the set is sent", func() bool { _, ok := h.tg.Answer(id); return ok })
			h.settle() // and done: its redraw found no message of the set
			before.Store(int64(len(h.tg.BotMessages(chat))))
		})
		return nil
	})
	h.start()
	h.tg.SendText(chat, user, "add renew the car insurance")
	// The set by its place, not its buttons: its redraw may take them
	// away before the test looks.
	h.tg.Wait("the set", func() bool { n := before.Load(); return n >= 0 && len(h.tg.BotMessages(chat)) > int(n) })
	set := h.tg.BotMessages(chat)[before.Load()]
	m := h.tg.WaitMessage(chat, set.ID, "the proposal closed", func(m telegramtest.Message) bool { return !hasButton(m, "✓ 1") })
	if !strings.Contains(m.Text, "The task is in the trash or deleted") {
		t.Errorf("the closed proposal reads %q", m.Text)
	}
}

// insuranceWithALabel scripts the turn of "add renew the car insurance":
// the task, asked for, applies at once; its label, guessed, waits in a set.
func (h *harness) insuranceWithALabel() {
	h.clf = func(openaitest.Request) openaitest.Response {
		return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"add renew the car insurance","quotes":[],"reasoning":"asked; the label is a guess"}]}`)
	}
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Renew the car insurance", "labels": []string{"personal"}})), openaitest.Text(""))
}

// clockOf is a message's "15:04" as a time on day zero.
func clockOf(s string) time.Time {
	t, _ := time.Parse("15:04", s)
	return t
}

// The question an old Redo asks beside a task of its title can be
// answered "leave it": the question loses its buttons, nothing changes,
// and only its person may answer it (a play: the person wanted one task,
// and the question's Apply anyway stayed live after they said so).
func TestTwinQuestionLeftAsItIs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	undone := h.bankUndoneThenAskedAnew()
	h.tap(chat, user, undone.ID, "↪️ Redo")
	ask := h.tg.WaitBotMessages(chat, 4)[3]
	if got := buttonTexts(ask); !slices.Equal(got, []string{"↪️ Apply anyway", "✗ Leave as is"}) {
		t.Fatalf("the question's buttons = %v", got)
	}
	leave, _ := ask.Button("✗ Leave as is")
	if a := h.tg.WaitAnswer(h.tg.Press(chat, bob, ask.ID, leave.Data)); a != "Only the person who made this change can undo it." {
		t.Errorf("another member's press answered %q", a)
	}
	if m, _ := h.tg.Message(chat, ask.ID); len(m.Buttons()) != 2 {
		t.Errorf("after another member's press the question has %v", buttonTexts(m))
	}
	if a := h.tg.WaitAnswer(h.tg.Press(chat, user, ask.ID, leave.Data)); a != "Left as it is: nothing changed." {
		t.Errorf("the press answered %q", a)
	}
	// The question says what the person chose, and offers nothing more.
	closed := h.tg.WaitMessage(chat, ask.ID, "the question without its buttons", func(m telegramtest.Message) bool { return len(m.Buttons()) == 0 })
	if want := "↪️ Not put back: you left “Call the bank” as it is."; closed.Text != want {
		t.Errorf("the question left reads %q, want %q", closed.Text, want)
	}
	// A second press of the same button, as a double tap sends it:
	// the same answer, still nothing changed.
	if a := h.tg.WaitAnswer(h.tg.Press(chat, user, ask.ID, leave.Data)); a != "Left as it is: nothing changed." {
		t.Errorf("the second press answered %q", a)
	}
	h.settle()
	if ts, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(ts) != 1 {
		t.Errorf("%d tasks on the list, want the one asked for anew", len(ts))
	}
	if n := len(h.tg.BotMessages(chat)); n != 4 {
		t.Errorf("%d messages, want no new one", n)
	}
	// The Redo still asks: leaving it decided this question only.
	if a := h.tg.WaitAnswer(h.tg.Tap(chat, user, undone.ID, "↪️ Redo")); a != "Not yet: you have a task of that title already. See below." {
		t.Errorf("the Redo after the question was left answered %q", a)
	}
}

// bankUndoneThenAskedAnew starts nod, has "Call the bank" created, its
// creation undone a minute later, and the task asked for anew a minute
// after that; it returns the Undone message, whose Redo would bring the
// first one back.
func (h *harness) bankUndoneThenAskedAnew() telegramtest.Message {
	h.t.Helper()
	h.clf = answer("explicit:add call the bank")
	h.start()
	first := h.addCallTheBank(1)
	h.clock.Advance(time.Minute)
	h.tap(chat, user, first.ID, "↩️ Undo")
	undone := h.tg.WaitBotMessages(chat, 2)[1]
	h.clock.Advance(time.Minute)
	h.addCallTheBank(3)
	return undone
}

// addCallTheBank has the person ask for "Call the bank" and the model
// create it, and returns the bot's nth message, the turn's last.
func (h *harness) addCallTheBank(n int) telegramtest.Message {
	h.t.Helper()
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Call the bank"})), openaitest.Text(""))
	h.tg.SendText(chat, user, "add call the bank")
	m := h.tg.WaitBotMessages(chat, n)[n-1]
	h.settleMessages() // the turn ended, its words kept, before the clock moves
	return m
}
