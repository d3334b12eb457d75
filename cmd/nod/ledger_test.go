package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

var checklistTitles = fixtures.ChecklistTitles

// startWithExplicitP1 is the start of several undo tests: T1 seeded, nod
// started, and "make the login bug P1" applied at once; it returns the
// receipt.
func (h *harness) startWithExplicitP1() telegramtest.Message {
	h.t.Helper()
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Done."))
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	return h.tg.WaitBotMessages(chat, 2)[0]
}

// End to end: ✓ All of five checklist items, then Undo n of each, in
// an order of its own; each removes exactly its item and loses its button.
func TestUndoEveryItemOfConfirmAll(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Calls(call("a", "add_multiple_checklist_items", map[string]any{"task_id": "T1",
		"items": []map[string]string{{"title": "Design mockup"}, {"title": "Implement API"}, {"title": "Load test"}, {"title": "Canary"}, {"title": "Rollback plan"}}})),
		openaitest.Text("Five steps for the login bug."))
	h.start()
	h.tg.SendText(chat, user, "plan the login bug")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✓ All")
	set = h.tg.WaitMessage(chat, set.ID, "all applied", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied 5 of 5") })
	added := []string{"Design mockup", "Implement API", "Load test", "Canary", "Rollback plan"}
	want := append([]string{"Write tests", "Update docs", "Write migration notes"}, added...)
	if got := checklistTitles(h.task("T1")); !slices.Equal(got, want) {
		t.Fatalf("checklist after ✓ All = %q", got)
	}
	sent := len(h.tg.BotMessages(chat))
	for _, n := range []int{3, 1, 5, 2, 4} {
		button := fmt.Sprintf("↩️ Undo %d", n)
		if ans := h.tap(chat, user, set.ID, button); ans != "Undone." {
			t.Errorf("%s answered %q", button, ans)
		}
		gone := added[n-1]
		want = slices.DeleteFunc(want, func(s string) bool { return s == gone })
		if got := checklistTitles(h.task("T1")); !slices.Equal(got, want) {
			t.Errorf("after %s: checklist %q, want %q", button, got, want)
		}
		set = h.tg.WaitMessage(chat, set.ID, button+" to go", func(m telegramtest.Message) bool { return !hasButton(m, button) })
		sent++
		undone := h.tg.WaitBotMessages(chat, sent)[sent-1]
		if !strings.Contains(undone.Text, "Undone") || !strings.Contains(undone.Text, gone) || !hasButton(undone, "↪️ Redo") {
			t.Errorf("after %s: %q %v", button, undone.Text, buttonTexts(undone))
		}
	}
	if got := h.count(nod.OutcomeUndone); got != 5 {
		t.Errorf("%d undone audit rows, want 5", got)
	}
	// The set's message no longer says they are applied.
	h.tg.WaitMessage(chat, set.ID, "the set to say what was undone", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Applied 5 of 5; all undone since") && strings.Count(m.Text, "↩️ <s>") == 5 && !strings.Contains(m.Text, "✅")
	})
}

// Undoing a tick made on the task card works, although the clock has
// more precision than the database keeps.
func TestUndoTickEndToEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	h.clock.Advance(987654321 * time.Nanosecond)
	h.tg.SendText(chat, user, "/tasks")
	list := h.tg.WaitBotMessages(chat, 1)[0]
	h.tap(chat, user, list.ID, "🔄 Fix login bug")
	card := h.tg.WaitBotMessages(chat, 2)[1]
	if ans := h.tap(chat, user, card.ID, "⬜ Write tests"); !strings.Contains(ans, "Write tests") {
		t.Errorf("toggle answered %q", ans)
	}
	t1 := h.task("T1")
	if c1, _ := t1.Item("c1"); !c1.Checked {
		t.Fatalf("c1 not ticked")
	}
	h.tg.SendText(chat, user, "/undo")
	reply := h.tg.WaitBotMessages(chat, 3)[2]
	if !strings.Contains(reply.Text, "Undone") {
		t.Errorf("/undo after a tick: %q", reply.Text)
	}
	t1 = h.task("T1")
	if c1, _ := t1.Item("c1"); c1.Checked || c1.CheckedBy != nod.ActorUser || c1.CheckedAt != nil {
		t.Errorf("c1 after /undo: %+v", c1)
	}
	// The card shown before is brought up to date.
	h.tg.WaitMessage(chat, card.ID, "the card to show the undo", func(m telegramtest.Message) bool { return hasButton(m, "⬜ Write tests") })
}

// Redo after the task was deleted is refused with a pointer to /trash; the
// task stays in the trash, as it was deleted.
func TestRedoAfterDeleteRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.startWithExplicitP1()
	if ans := h.tap(chat, user, receipt.ID, "↩️ Undo"); ans != "Undone." {
		t.Fatalf("Undo answered %q", ans)
	}
	undone := h.tg.WaitBotMessages(chat, 3)[2]
	if !hasButton(undone, "↪️ Redo") || h.task("T1").Priority != nod.P3 {
		t.Fatalf("undo: %q %v, priority %s", undone.Text, buttonTexts(undone), h.task("T1").Priority)
	}
	h.deleteT1("delete the login bug", 3)
	ans := h.tap(chat, user, undone.ID, "↪️ Redo")
	if !strings.Contains(ans, "trash") || !strings.Contains(ans, "/trash") {
		t.Errorf("Redo on a trashed task answered %q", ans)
	}
	trash, _ := h.db.Tasks().Trash(t.Context(), chat)
	if len(trash) != 1 || trash[0].Priority != nod.P3 {
		t.Errorf("trash = %+v, want T1 at P3", trash)
	}
	if _, err := h.db.Tasks().Task(t.Context(), chat, "T1"); err == nil {
		t.Errorf("T1 came back from the trash")
	}
	if n := len(h.tg.BotMessages(chat)); n != 6 {
		t.Errorf("the refused Redo sent messages: %d, want 6", n)
	}
}

// In a group, only the person who made a change may undo it; /undo takes
// the sender's own latest change.
func TestGroupUndoIsTheAuthors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const group, other = -500, 43
	h.seed(group, nod.Task{ID: "G1", Title: "Plan offsite", Priority: nod.P3})
	h.clf = answer("explicit:make the offsite P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "G1", "priority": "P1"})), openaitest.Text("Done."))
	h.start()
	h.tg.SendText(group, user, "make the offsite P1")
	receipt := h.tg.WaitBotMessages(group, 2)[0]
	if ans := h.tap(group, other, receipt.ID, "↩️ Undo"); !strings.Contains(ans, "Only the person who made this change") {
		t.Errorf("another member's Undo answered %q", ans)
	}
	h.tg.SendText(group, other, "/undo")
	if m := h.tg.WaitBotMessages(group, 3)[2]; !strings.Contains(m.Text, "nothing to undo") {
		t.Errorf("another member's /undo: %q", m.Text)
	}
	if g, _ := h.db.Tasks().Task(t.Context(), group, "G1"); g.Priority != nod.P1 {
		t.Errorf("priority after refused undos: %s", g.Priority)
	}
	h.tg.SendText(group, user, "/undo")
	if m := h.tg.WaitBotMessages(group, 4)[3]; !strings.Contains(m.Text, "Undone") {
		t.Errorf("the author's /undo: %q", m.Text)
	}
	if g, _ := h.db.Tasks().Task(t.Context(), group, "G1"); g.Priority != nod.P3 {
		t.Errorf("priority after the author's /undo: %s", g.Priority)
	}
}

// A set whose time is up takes no decision, by button or by text, though
// no sweep has run.
func TestDecisionAfterTTLWithoutSweep(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "1000h"
	set := h.startWithRaise("tidy up")
	h.clock.Advance(7 * 24 * time.Hour)
	if ans := h.tap(chat, user, set.ID, "✓ 1"); !strings.Contains(ans, "expired") {
		t.Errorf("✓ 1 at the TTL answered %q", ans)
	}
	h.tg.SendText(chat, user, "yes")
	reply := h.tg.WaitBotMessages(chat, 3)[2]
	if !strings.Contains(reply.Text, "expired") {
		t.Errorf("yes at the TTL: %q", reply.Text)
	}
	stored := mustSet(t, h, set.ID)
	if h.task("T1").Priority != nod.P3 || len(stored.Pending()) != 1 || h.count(nod.OutcomeConfirmed) != 0 {
		t.Errorf("after decisions at the TTL: priority %s, %d pending", h.task("T1").Priority, len(stored.Pending()))
	}
}

func mustSet(t *testing.T, h *harness, msgID int) nod.ChangeSet {
	t.Helper()
	s, err := h.db.ChangeSets().ChangeSetByMessage(t.Context(), chat, msgID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Undo reverts an explicit change; /undo right after it never applies the
// change again (Redo is its message's button); the used Undo and an
// unknown entry are refused.
// After the undo window, Undo is refused and /undo has nothing to undo.
func TestUndoRedoAndWindow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.startWithExplicitP1()
	undo, _ := receipt.Button("↩️ Undo")
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	if h.task("T1").Priority != nod.P3 {
		t.Fatalf("Undo left priority %s", h.task("T1").Priority)
	}
	// docs/design.md §6: the receipt no longer reads as in force.
	if m, _ := h.tg.Message(chat, receipt.ID); !strings.Contains(m.Text, "undone") || hasButton(m, "↩️ Undo") || strings.HasPrefix(m.Text, "✅") {
		t.Errorf("receipt after its Undo = %q %v", m.Text, buttonTexts(m))
	}
	h.tg.SendText(chat, user, "/undo")
	if m := h.tg.WaitBotMessages(chat, 4)[3]; !strings.Contains(m.Text, "undone already") || h.task("T1").Priority != nod.P3 {
		t.Errorf("/undo after Undo: %q, priority %s", m.Text, h.task("T1").Priority)
	}
	if got, want := outcomes(h.audit(chat))[1:], []string{"set_task_priority:executed", "set_task_priority:undone"}; !slices.Equal(got, want) {
		t.Errorf("audit = %v, want %v", got, want)
	}
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, receipt.ID, undo.Data)); !strings.Contains(ans, "Already") {
		t.Errorf("the used Undo answered %q", ans)
	}
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, receipt.ID, "1u.nosuchundo")); !strings.Contains(ans, "not valid here") {
		t.Errorf("an unknown entry's Undo answered %q", ans)
	}
	if h.task("T1").Priority != nod.P3 {
		t.Errorf("refused undos changed the priority to %s", h.task("T1").Priority)
	}

	h.clf = answer("explicit:make the login bug P0")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P0"})), openaitest.Text("Done."))
	h.tg.SendText(chat, user, "make the login bug P0")
	late := h.tg.WaitBotMessages(chat, 6)[4]
	h.clock.Advance(24*time.Hour + time.Minute)
	if ans := h.tap(chat, user, late.ID, "↩️ Undo"); !strings.Contains(ans, "Too late") {
		t.Errorf("Undo after the window answered %q", ans)
	}
	h.tg.WaitMessage(chat, late.ID, "the late Undo to be taken off", func(m telegramtest.Message) bool { return !hasButton(m, "↩️ Undo") })
	h.tg.SendText(chat, user, "/undo")
	if m := h.tg.WaitBotMessages(chat, 7)[6]; !strings.Contains(m.Text, "nothing to undo") || h.task("T1").Priority != nod.P0 {
		t.Errorf("/undo after the window: %q, priority %s", m.Text, h.task("T1").Priority)
	}
}

// Undo of a confirmed create_task takes the task away (the agent's
// get_task says so); Redo brings it back with the same id and fields.
func TestUndoCreateAndRedo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Write postmortem", "priority": "P2", "labels": []string{"ops"}})),
		openaitest.Text("Shall I add it?"))
	h.start()
	h.tg.SendText(chat, user, "I should write the postmortem")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✓ 1")
	tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{})
	if len(tasks) != 1 {
		t.Fatalf("tasks after ✓ 1: %+v", tasks)
	}
	created := tasks[0]
	h.tg.WaitMessage(chat, set.ID, "Undo 1", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 1") })
	h.tap(chat, user, set.ID, "↩️ Undo 1")
	if tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(tasks) != 0 {
		t.Errorf("undone task still listed: %+v", tasks)
	}
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": created.ID})), openaitest.Text("It is gone."))
	h.tg.SendText(chat, user, "what about the postmortem?")
	h.tg.WaitBotMessages(chat, 4)
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["g"]; !strings.Contains(r, `"error"`) {
		t.Errorf("get_task of the undone task = %s", r)
	}
	undone := h.tg.BotMessages(chat)[2]
	if ans := h.tap(chat, user, undone.ID, "↪️ Redo"); ans != "Redone." {
		t.Errorf("Redo answered %q", ans)
	}
	again := h.tg.WaitBotMessages(chat, 5)[4]
	if !strings.HasPrefix(again.Text, "↪️ Redone: ") || !hasButton(again, "↩️ Undo") {
		t.Errorf("after Redo: %q %v", again.Text, buttonTexts(again))
	}
	if got := outcomes(h.audit(chat)); got[len(got)-1] != "create_task:redone" {
		t.Errorf("audit ends %v", got)
	}
	back := h.task(created.ID)
	if back.Title != created.Title || back.Priority != created.Priority || !slices.Equal(back.Labels, created.Labels) {
		t.Errorf("redone task = %+v, want %+v", back, created)
	}
}

// twoConfirmedFirstUndone starts nod on a set of two new tasks, Buy milk
// and Call Ann, confirms both with ✓ All and undoes item 1 on the set's
// message, and returns that message as it was first sent.
func twoConfirmedFirstUndone(h *harness) telegramtest.Message {
	h.t.Helper()
	h.script(openaitest.Calls(call("a", "create_task", map[string]any{"title": "Buy milk"}), call("b", "create_task", map[string]any{"title": "Call Ann"})),
		openaitest.Text("Two to add?"))
	h.start()
	h.tg.SendText(chat, user, "milk and Ann")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✓ All")
	h.tg.WaitMessage(chat, set.ID, "Undo 1", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 1") })
	h.tap(chat, user, set.ID, "↩️ Undo 1")
	return set
}

// The model's list of the person's latest decisions says which confirmed
// change was undone since: a play-test's model read "confirmed: Create
// task …" of a task the person had taken back as still there.
func TestUndoneDecisionToldToTheModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	twoConfirmedFirstUndone(h)
	h.tg.WaitBotMessages(chat, 3)
	h.script(openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "what is on my list?")
	h.tg.WaitBotMessages(chat, 4)
	lines := map[string]string{}
	for _, l := range strings.Split(h.llm.RequestsFor(agentM)[2].System(), "\n") {
		for _, title := range []string{"Buy milk", "Call Ann"} {
			if strings.HasPrefix(l, "- confirmed: ") && strings.Contains(l, title) {
				lines[title] = l
			}
		}
	}
	if l := lines["Buy milk"]; !strings.HasSuffix(l, " (undone since)") {
		t.Errorf("the undone decision's line = %q", l)
	}
	if l := lines["Call Ann"]; l == "" || strings.Contains(l, "undone") {
		t.Errorf("the standing decision's line = %q", l)
	}
}

// A Redo puts a confirmed change back: the set's message shows the item
// applied again and the model is no longer told it was undone; the Redo
// message loses its button, and the set keeps no Undo for a change whose
// undo is now the Redo message's.
func TestRedoneDecisionIsNoLongerUndone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := twoConfirmedFirstUndone(h)
	h.tg.WaitMessage(chat, set.ID, "item 1 undone", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "↩️ <s>1. ") })
	undone := h.tg.WaitBotMessages(chat, 3)[2]
	if !hasButton(undone, "↪️ Redo") {
		t.Fatalf("the undo's message has no Redo: %q", undone.Text)
	}
	h.tap(chat, user, undone.ID, "↪️ Redo")
	h.tg.WaitBotMessages(chat, 4)
	back := h.tg.WaitMessage(chat, set.ID, "item 1 applied again", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "✅ 1.") && !strings.Contains(m.Text, "↩️")
	})
	if hasButton(back, "↩️ Undo 1") {
		t.Errorf("the set offers Undo 1 for a change its Redo message now undoes: %q", back.Text)
	}
	h.tg.WaitMessage(chat, undone.ID, "no Redo", func(m telegramtest.Message) bool { return !hasButton(m, "↪️ Redo") })
	h.script(openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "what is on my list?")
	h.tg.WaitBotMessages(chat, 5)
	for _, l := range strings.Split(h.llm.RequestsFor(agentM)[2].System(), "\n") {
		if strings.HasPrefix(l, "- confirmed: ") && strings.Contains(l, "Buy milk") && strings.Contains(l, "undone") {
			t.Errorf("the model is told of the redone change: %q", l)
		}
	}
}

// docs/design.md §3.3: a quote never revives what the person took back. After Undo
// of "P1", the classifier quoting the old request calls a new P1 explicit:
// it is proposed instead, and only words sent after the undo apply it.
func TestOldQuoteDoesNotReviveAnUndo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.startWithExplicitP1()
	h.clock.Advance(time.Minute)
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	if h.task("T1").Priority != nod.P3 {
		t.Fatalf("undo left %s", h.task("T1").Priority)
	}
	h.clock.Advance(time.Minute)

	// The model sets P1 again while tidying up; the classifier quotes the
	// request from before the undo.
	h.script(openaitest.Calls(call("b", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Tidied."))
	h.tg.SendText(chat, user, "clean up my tasks")
	set := h.changeSetMessage(chat, 5)
	if h.task("T1").Priority != nod.P3 || !strings.Contains(set.Text, "Priority: P3 → P1") {
		t.Errorf("the undone change came back: priority %s, set %q", h.task("T1").Priority, set.Text)
	}
	// Words of an earlier turn never count as a quote (§3): the old
	// request is stopped before the undo's own check.
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["b"]; !strings.HasPrefix(r, "Proposal queued for user review.") || !strings.Contains(r, "earlier turn") {
		t.Errorf("tool result = %q", r)
	}

	// Asked again after the undo, it applies.
	h.clf = answer("explicit:yes, P1 after all")
	h.script(openaitest.Calls(call("c", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Done."))
	h.tg.SendText(chat, user, "yes, P1 after all")
	h.tg.Wait("P1 to apply", func() bool { return h.task("T1").Priority == nod.P1 })
}

// docs/design.md §6: what the person did outside the conversation reaches the
// agent's next request as notes in order: decisions by tap, an undo, a
// mode change. The classifier never sees them.
func TestAgentToldWhatHappened(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1", "needs")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
		call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90})), openaitest.Text("Done, and an idea."))
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	msgs := h.tg.WaitBotMessages(chat, 3)
	receipt, set := msgs[0], h.changeSetMessage(chat, 3)
	h.clock.Advance(time.Minute)
	h.tap(chat, user, set.ID, "✗ 1")
	h.tg.ReplyText(chat, user, set.ID, "the estimate is fine")
	h.tg.Wait("the reason to be stored", func() bool {
		d, err := h.db.ChangeSets().RecentDecisions(t.Context(), chat, 1)
		return err == nil && len(d) == 1 && d[0].Reason != ""
	})
	h.clock.Advance(time.Minute)
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	h.clock.Advance(time.Minute)
	h.tg.SendText(chat, user, "/mode always")
	h.tg.Wait("the mode to change", func() bool {
		s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user)
		return s.Mode == nod.ModeAlways
	})
	h.clock.Advance(time.Minute)

	h.script(openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "what did I change?")
	h.tg.Wait("the agent to answer", func() bool { return len(h.llm.RequestsFor(agentM)) == 3 })
	req := h.llm.RequestsFor(agentM)[2]
	var notes string
	for _, m := range req.Messages[1:] {
		if m.Role == "system" {
			notes = m.Content
		}
	}
	want := []string{
		`the user rejected your proposal “Set estimate to 90 minutes” on task “Fix login bug”, saying “the estimate is fine”`,
		`the user undid “Set priority to P1” on task “Fix login bug” (id T1): that change is taken back`,
		`the user switched the chat to mode always`,
	}
	last := -1
	for _, w := range want {
		i := strings.Index(notes, w)
		if i < 0 || i < last {
			t.Errorf("notes lack %q in order:\n%s", w, notes)
		}
		last = i
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role != "user" || last.Content != "what did I change?" {
		t.Errorf("the request ends with %s %q, want the person's message", last.Role, last.Content)
	}
	for _, r := range h.llm.RequestsFor(clfM) {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "Meanwhile") {
				t.Errorf("the classifier was shown the notes")
			}
		}
	}
}

// A task card's toggle says what a tap does: tapped on an out-of-date card
// (the item was unticked since, here by /undo of the tick), "☑️" does not
// tick it again; the card is brought up to date instead.
func TestStaleCardToggle(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	h.tg.SendText(chat, user, "/tasks")
	list := h.tg.WaitBotMessages(chat, 1)[0]
	h.tap(chat, user, list.ID, "🔄 Fix login bug")
	card := h.tg.WaitBotMessages(chat, 2)[1]
	h.tap(chat, user, card.ID, "⬜ Write tests") // the card now shows ☑️ Write tests
	stale, _ := h.tg.Message(chat, card.ID)
	b, ok := stale.Button("☑️ Write tests")
	if !ok {
		t.Fatalf("card after the tick: %v", buttonTexts(stale))
	}
	h.tg.SendText(chat, user, "/undo")
	h.tg.WaitBotMessages(chat, 3)
	ans := h.tg.WaitAnswer(h.tg.Press(chat, user, card.ID, b.Data))
	h.settle()
	t1 := h.task("T1")
	if c1, _ := t1.Item("c1"); c1.Checked || !strings.Contains(ans, "already unticked") {
		t.Errorf("stale untick: %q, c1 checked %v", ans, c1.Checked)
	}
	if m, _ := h.tg.Message(chat, card.ID); !hasButton(m, "⬜ Write tests") {
		t.Errorf("card not refreshed: %v", buttonTexts(m))
	}
}
