package main

import (
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// threeIdeas starts nod with a pending set of three items for T1 and
// returns its message.
func (h *harness) threeIdeas() telegramtest.Message {
	h.t.Helper()
	h.seedT1()
	h.script(openaitest.Calls(
		call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
		call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90}),
		call("c", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-20"}),
	), openaitest.Text("Three ideas."))
	h.start()
	h.tg.SendText(chat, user, "tidy up the login bug")
	return h.changeSetMessage(chat, 2)
}

// A partial answer in words tells the agent what still waits: the pending
// list in its system message was read before the call, and a model that
// trusts it would ask again about items already decided.
func TestAnswerProposalsTellsWhatStillWaits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas()
	h.clf = answer("explicit:the estimate is fine")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{2}})),
		openaitest.Text("Applied the estimate; the priority and the date still wait for you."))
	h.tg.ReplyText(chat, user, set.ID, "the estimate is fine")
	h.tg.WaitMessage(chat, set.ID, "item 2 to be applied", func(m telegramtest.Message) bool {
		_, undo := m.Button("↩️ Undo 2")
		return undo
	})
	want := "Decided as the user said: item 2 applied. Still waiting for the user in that proposal: items 1 and 3."
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["x"]; r != want {
		t.Errorf("tool result = %q, want %q", r, want)
	}
	// The classifier can check "the rest" only against what waited.
	clf := h.llm.RequestsFor(clfM)
	if last := clf[len(clf)-1].LastUser(); !strings.Contains(last, "(waiting for the person's decision: items 1, 2 and 3)") {
		t.Errorf("the classifier was not told which items waited:\n%s", last)
	}
	if task := h.task("T1"); task.Priority == nod.P1 || task.DueDate == "2026-03-20" {
		t.Errorf("items the person did not name were applied: %+v", task)
	}
}

// answer_proposals (docs/design.md §3.4): a decision in words nod cannot parse
// itself is passed on by the agent; with the person's words verified it
// decides exactly the items named, as taps would, and the set's message
// shows it. The agent is told the set's id and its items as numbered.
func TestAnswerProposalsApplied(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas()
	id := mustSet(t, h, set.ID).ID
	h.clf = answer("explicit:the first two are fine, drop the date")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1, 2}, "reject": []int{3}, "reason": "no date yet"})),
		openaitest.Text("Done as you said."))
	h.tg.ReplyText(chat, user, set.ID, "the first two are fine, drop the date")
	h.tg.WaitMessage(chat, set.ID, "the set to be decided", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied 2 of 3") })
	task := h.task("T1")
	if task.Priority != nod.P1 || *task.EstimateMinutes != 90 || task.DueDate != "2026-03-15" {
		t.Errorf("T1 = %s %d %s", task.Priority, *task.EstimateMinutes, task.DueDate)
	}
	req := h.llm.RequestsFor(agentM)[2]
	if sys := req.System(); !strings.Contains(sys, "proposal "+string(id)+", item 3: Set due date to 2026-03-20") {
		t.Errorf("the agent was not told the set's items as numbered:\n%s", sys)
	}
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["x"]; r != "Decided as the user said: items 1 and 2 applied; item 3 rejected. Nothing of that proposal waits for the user any more." {
		t.Errorf("tool result = %q", r)
	}
	clf := h.llm.RequestsFor(clfM)
	if last := clf[len(clf)-1].Messages[len(clf[len(clf)-1].Messages)-1].Content; !strings.Contains(last, "0. answer_proposals: confirm items 1 (task \"Fix login bug\": Set priority to P1), 2 (task \"Fix login bug\": Set estimate to 90 minutes) and reject items 3") {
		t.Errorf("classifier action list:\n%s", last)
	}
	ds, _ := h.db.ChangeSets().RecentDecisions(t.Context(), chat, 5)
	if len(ds) != 3 || ds[0].Verdict != nod.Rejected || ds[0].Reason != "no date yet" {
		t.Errorf("decisions = %+v", ds)
	}
}

// Without a verified quote nod decides nothing: it shows its reading with
// one button, which only the person who said it can use, once.
func TestAnswerProposalsReading(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas()
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1, 3}})), openaitest.Text("I'll check with you."))
	h.tg.SendText(chat, user, "keep the fast ones")
	msgs := h.tg.WaitBotMessages(chat, 4)
	reading := msgs[3]
	if !strings.Contains(reading.Text, "I read your answer as") || !strings.Contains(reading.Text, "✓ 1. Set priority to P1") ||
		!strings.Contains(reading.Text, "✓ 3. Set due date to 20 Mar 2026") || !hasButton(reading, "✓ Yes, do that") {
		t.Fatalf("reading = %q %v", reading.Text, buttonTexts(reading))
	}
	if h.task("T1").Priority != nod.P3 || h.count(nod.OutcomeConfirmed) != 0 {
		t.Fatalf("a reading decided something")
	}
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["x"]; !strings.HasPrefix(r, "Not decided: the user was shown your reading (confirm 1, 3)") {
		t.Errorf("tool result = %q", r)
	}
	if ans := h.tap(chat, 43, reading.ID, "✓ Yes, do that"); !strings.Contains(ans, "Only the person") {
		t.Errorf("another user's tap answered %q", ans)
	}
	if ans := h.tap(chat, user, reading.ID, "✓ Yes, do that"); ans != "✅ Applied 2 changes. 1 still waits for your answer." {
		t.Errorf("tap answered %q", ans)
	}
	if task := h.task("T1"); task.Priority != nod.P1 || task.DueDate != "2026-03-20" || *task.EstimateMinutes != 120 {
		t.Errorf("T1 = %s %s %d", task.Priority, task.DueDate, *task.EstimateMinutes)
	}
	b, _ := reading.Button("✓ Yes, do that")
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, reading.ID, b.Data)); !strings.Contains(ans, "Already") {
		t.Errorf("second tap answered %q", ans)
	}
	h.tg.WaitMessage(chat, set.ID, "the set to show it", func(m telegramtest.Message) bool {
		return hasButton(m, "↩️ Undo 1") && hasButton(m, "↩️ Undo 3") && hasButton(m, "✓ 2")
	})
	// The reading no longer says nothing is decided.
	h.tg.WaitMessage(chat, reading.ID, "the reading to say it is decided", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Decided as you confirmed") && !strings.Contains(m.Text, "Nothing is decided yet") && len(m.Buttons()) == 0
	})
}

// A reading of the step's answer offers only the items still waiting
// once the step's other calls ran. Played: "ink is home stuff, not
// errands" labelled the task at once, which overtook the errands
// proposal, and the reading still asked to turn it down, with a button.
func TestReadingLeavesOutItemsTheStepOvertook(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas()
	h.clf = answer("needs", "explicit:make it P2")
	h.script(openaitest.Calls(
		call("x", "answer_proposals", map[string]any{"reject": []int{1}, "reason": "not P1"}),
		call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P2"})),
		openaitest.Text("P2 it is."))
	h.tg.SendText(chat, user, "make it P2, not P1")
	reading := botMessage(h, "🤔")
	if want := "🤔 Your answer was about item 1, which no longer waits for you: decided, or overtaken by a change made since. Nothing is left to decide."; reading.Text != want || len(reading.Buttons()) != 0 {
		t.Errorf("reading = %q %v, want %q without buttons", reading.Text, buttonTexts(reading), want)
	}
	if task := h.task("T1"); task.Priority != nod.P2 {
		t.Errorf("T1's priority = %s, want P2 from the explicit call", task.Priority)
	}
	h.tg.WaitMessage(chat, set.ID, "item 1 to read overtaken", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Overtaken") && !hasButton(m, "✓ 1") && hasButton(m, "✓ 2")
	})
	// The model is told, or it would ask the person to tap the reading.
	id := mustSet(t, h, set.ID).ID
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["p"]; !strings.Contains(r, "item 1 of proposal "+string(id)+" no longer waits for the user: this change set what it would have set, and nod's message shows it overtaken; the reading of their answer shown in this step no longer offers it") {
		t.Errorf("the explicit change's result does not say what it overtook: %s", r)
	}
}

// "nah, P1 like before": the model proposes the new value and rejects the
// old proposal in words, in one step. The old item closes with the turn,
// replaced: nod shows no reading asking the person to reject what is gone,
// and tells the model so (found in the English play).
func TestNoReadingForWhatTheTurnReplaces(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas()
	h.clf = answer("needs", "needs")
	h.script(openaitest.Calls(
		call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P2"}),
		call("x", "answer_proposals", map[string]any{"reject": []int{1}})),
		openaitest.Text("P2 then; below."))
	h.tg.SendText(chat, user, "nah, P2 like before is fine")
	h.changeSetMessage(chat, 4)
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["x"]; !strings.HasPrefix(r, "Nothing to decide: item 1 closes with this turn") {
		t.Errorf("tool result = %q", r)
	}
	for _, m := range h.tg.BotMessages(chat) {
		if strings.Contains(m.Text, "I read your answer as") {
			t.Errorf("a reading asks to reject what the turn replaced: %q", m.Text)
		}
	}
	h.tg.WaitMessage(chat, set.ID, "item 1 superseded", func(m telegramtest.Message) bool {
		_, open := m.Button("✓ 1")
		return !open && hasButton(m, "✓ 2")
	})
}

// A /review cannot call answer_proposals, and an item that does not exist
// or is decided is a tool error: nothing is decided.
func TestAnswerProposalsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.threeIdeas()
	h.clf = answer("explicit:yes to nine")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{9}})), openaitest.Text("Hm."))
	h.tg.SendText(chat, user, "yes to nine")
	h.tg.WaitBotMessages(chat, 3)
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["x"]; !strings.Contains(r, "has no item 9") {
		t.Errorf("tool result = %q", r)
	}
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1}})), openaitest.Text("Reviewed."))
	h.tg.SendText(chat, user, "/review")
	h.tg.WaitBotMessages(chat, 4)
	if r := h.llm.RequestsFor(agentM)[5].ToolResults()["x"]; !strings.Contains(r, "a review has none") {
		t.Errorf("review tool result = %q", r)
	}
	if h.count(nod.OutcomeConfirmed) != 0 {
		t.Errorf("something was decided")
	}
}

// docs/design.md §3.3: when the person's message replies to a change-set message,
// the classifier is told which numbered items that message showed.
func TestClassifierToldWhatAReplyAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas()
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{2}})), openaitest.Text("Checking."))
	h.tg.ReplyText(chat, user, set.ID, "only the middle one")
	h.tg.WaitBotMessages(chat, 4)
	clf := h.llm.RequestsFor(clfM)
	conv := clf[len(clf)-1].Messages[1].Content
	want := "User (replying to nod's proposals: 1. Set priority to P1 (pending); 2. Set estimate to 90 minutes (pending); 3. Set due date to 2026-03-20 (pending)): only the middle one"
	if !strings.Contains(conv, want) {
		t.Errorf("classifier conversation lacks the reply's context:\n%s", conv)
	}
}

// docs/design.md §4: an applied change closes every open proposal that would set
// the same field or checklist item of the same task, marked superseded,
// and the proposal's message shows it.
func TestAppliedChangeSupersedes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas() // 1 priority P1, 2 estimate 90, 3 due date
	h.clf = answer("explicit:make it P2")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P2"})), openaitest.Text("P2 it is."))
	h.tg.SendText(chat, user, "make it P2")
	h.tg.Wait("P2", func() bool { return h.task("T1").Priority == nod.P2 })
	s := mustSet(t, h, set.ID)
	if it, _ := s.Item(1); it.Status != nod.ItemStale || it.Note.Key != nod.NoteSuperseded {
		t.Errorf("item 1 = %s %v, want superseded", it.Status, it.Note)
	}
	if it, _ := s.Item(2); it.Status != nod.ItemPending {
		t.Errorf("item 2 = %s, want pending", it.Status)
	}
	h.tg.WaitMessage(chat, set.ID, "the set to drop ✓ 1", func(m telegramtest.Message) bool {
		return !hasButton(m, "✓ 1") && hasButton(m, "✓ 2") && strings.Contains(m.Text, "Overtaken by a change made since.")
	})
}

// docs/design.md §3.3, end to end: the classifier sees the task's title and every
// field a call sets (labels and a description the model made up ride
// along visibly), and a one-letter quote proves nothing.
func TestClassifierSeesWhatACallSets(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:t", "explicit:t")
	h.script(openaitest.Calls(
		call("c", "create_task", map[string]any{"title": "Renew passport", "labels": []string{"admin"}, "description": "Book an appointment first"}),
		call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
	), openaitest.Text("Two ideas."))
	h.start()
	h.tg.SendText(chat, user, "renew my passport and tidy the login bug")
	h.changeSetMessage(chat, 2)
	clf := h.llm.RequestsFor(clfM)
	list := clf[0].Messages[len(clf[0].Messages)-1].Content
	for _, want := range []string{
		`0. create_task: create a task titled "Renew passport" with labels: admin; description: "Book an appointment first"`,
		`1. set_task_priority: task "Fix login bug": priority: P3 → P1`,
	} {
		if !strings.Contains(list, want) {
			t.Errorf("action list lacks %q:\n%s", want, list)
		}
	}
	if tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(tasks) != 1 || h.task("T1").Priority != nod.P3 {
		t.Errorf("a one-letter quote applied something")
	}
}
