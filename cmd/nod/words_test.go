package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// The group of these tests: Alice (user) and Bob (bob), both allowed.
const (
	group = -700
	bob   = 43
)

// inGroup starts nod with the launch post seeded in the group and names
// its two members.
func (h *harness) inGroup() {
	h.t.Helper()
	h.seed(group, nod.Task{ID: "L1", Title: "Launch post", Priority: nod.P3})
	h.tg.Wire().SetName(user, "Alice")
	h.tg.Wire().SetName(bob, "Bob")
}

// groupTask reads a task of the group.
func (h *harness) groupTask(id nod.TaskID) nod.Task {
	h.t.Helper()
	task, err := h.db.Tasks().Task(h.t.Context(), group, id)
	if err != nil {
		h.t.Fatal(err)
	}
	return task
}

// In a group another member's words never make a change explicit: Bob
// asked for P1, Alice only asked a question, and the scripted classifier
// quotes Bob for Alice's change. Nothing is applied; the change asks
// Alice. Both the agent and the classifier are told who said what.
func TestGroupOtherMembersWordsAreNoQuote(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.clf = answer("explicit:make the launch post P1, right now")
	h.script(openaitest.Text("Alice will decide that."),
		openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})),
		openaitest.Text("I suggest P1."))
	h.start()
	h.tg.SendText(group, bob, "make the launch post P1, right now")
	h.tg.WaitBotMessages(group, 1)
	h.tg.SendText(group, user, "what do you think about the launch post?")
	h.changeSetMessage(group, 3)

	if got := h.groupTask("L1").Priority; got != nod.P3 {
		t.Fatalf("Bob's words applied Alice's change: priority %s", got)
	}
	for _, m := range h.tg.BotMessages(group) {
		if strings.Contains(m.Text, "because you said") {
			t.Errorf("a receipt quotes someone: %q", m.Text)
		}
	}
	clf := h.llm.RequestsFor(clfM)
	if len(clf) != 1 {
		t.Fatalf("%d classifier requests, want 1", len(clf))
	}
	conv := clf[0].Messages[1].Content
	for _, want := range []string{"Bob (43): make the launch post P1, right now", "Alice (42): what do you think about the launch post?", "nod: Alice will decide that."} {
		if !strings.Contains(conv, want) {
			t.Errorf("the classifier's conversation lacks %q:\n%s", want, conv)
		}
	}
	if actions := clf[0].LastUser(); !strings.Contains(actions, "[for Alice (42): only their own words count]") {
		t.Errorf("the classifier was not told whose change it is:\n%s", actions)
	}
	agent := h.llm.RequestsFor(agentM)[1]
	if sys := agent.System(); !strings.Contains(sys, "This turn is for Alice (42)") {
		t.Errorf("the agent was not told whose turn it is:\n%s", sys)
	}
	var said []string
	for _, m := range agent.Messages {
		if m.Role == "user" {
			said = append(said, m.Content)
		}
	}
	if want := []string{"Bob (43): make the launch post P1, right now", "Alice (42): what do you think about the launch post?"}; strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("the agent's user lines = %q, want %q", said, want)
	}
}

// The same request in the requester's own words runs at once, and its
// receipt quotes them, naming whose they are.
func TestGroupOwnWordsApply(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.clf = answer("explicit:make the launch post P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("Done."))
	h.start()
	h.tg.SendText(group, bob, "make the launch post P1")
	receipt := h.tg.WaitBotMessages(group, 2)[0]
	if !strings.Contains(receipt.Text, "because Bob said “make the launch post P1”") || h.groupTask("L1").Priority != nod.P1 {
		t.Errorf("receipt %q, priority %s", receipt.Text, h.groupTask("L1").Priority)
	}
}

// answerSet starts nod with a set of two items that "raise it to P1 and
// set 2 h" produced, and returns the set's message.
func (h *harness) answerSet() telegramtest.Message {
	h.t.Helper()
	h.seedT1()
	h.script(openaitest.Calls(
		call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
		call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 120 + 60}),
	), openaitest.Text("Shall I?"))
	h.start()
	h.tg.SendText(chat, user, "raise it to P1 and set 3 h")
	return h.changeSetMessage(chat, 2)
}

// answer_proposals decides nothing on words that answer nothing: the
// request the set came from, a negation, a question. The classifier
// scripted to call each explicit gets a reading shown instead, and every
// item still waits.
func TestAnswerProposalsNeedsAnAnswer(t *testing.T) {
	for _, c := range []struct{ name, says, quote string }{
		{"the set's own request", "hmm, go on", "raise it to P1 and set 3 h"},
		{"a negation", "I won't say yes to all", "yes to all"},
		{"a question", "what is item 2 about, can I confirm all?", "can I confirm all"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			set := h.answerSet()
			h.clock.Advance(time.Minute)
			h.clf = answer("explicit:" + c.quote)
			h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1, 2}})), openaitest.Text("OK."))
			h.tg.SendText(chat, user, c.says)
			reading := h.tg.WaitBotMessages(chat, 4)[3]
			if !strings.Contains(reading.Text, "I read your answer as") {
				t.Errorf("no reading shown: %q", reading.Text)
			}
			if s := mustSet(t, h, set.ID); s.Status != nod.SetPending {
				t.Errorf("set is %s after %q", s.Status, c.says)
			}
			if task := h.task("T1"); task.Priority != nod.P3 || *task.EstimateMinutes != 120 {
				t.Errorf("T1 changed: %s %d", task.Priority, *task.EstimateMinutes)
			}
			if clf := h.llm.RequestsFor(clfM); !strings.Contains(clf[len(clf)-1].Messages[1].Content, "--- nod showed the proposal here") {
				t.Errorf("the classifier was not shown where the set was shown:\n%s", clf[len(clf)-1].Messages[1].Content)
			}
		})
	}
}

// In a group, an answer counts only from the person who may decide the
// set: Bob's "yes to all" is no quote for Alice's set.
func TestGroupAnswerIsTheDecidersOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("Shall I?"),
		openaitest.Text("Bob cannot decide Alice's proposal."),
		openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1}})), openaitest.Text("OK."))
	h.start()
	h.tg.SendText(group, user, "should the launch post go up?")
	set := h.changeSetMessage(group, 2)
	h.clock.Advance(time.Minute)
	h.tg.SendText(group, bob, "I think item 1 is good for the launch")
	h.tg.WaitBotMessages(group, 3)
	h.clock.Advance(time.Minute)
	h.clf = answer("explicit:I think item 1 is good for the launch")
	// Alice's own words refuse nothing (a question would: nod would hold
	// the call back before the classifier is asked), so that Bob's quote
	// is what is judged.
	h.tg.SendText(group, user, "go on then")
	h.tg.WaitBotMessages(group, 5)
	s, err := h.db.ChangeSets().ChangeSetByMessage(t.Context(), group, set.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != nod.SetPending || h.groupTask("L1").Priority != nod.P3 {
		t.Errorf("Bob's words decided Alice's set: %s, priority %s", s.Status, h.groupTask("L1").Priority)
	}
}

// In a group /mode is each member's own: Bob's "trusted" lets Bob's
// requests run at once, and Alice's still ask.
func TestGroupModeIsPerPerson(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.seed(group, nod.Task{ID: "L2", Title: "Press kit", Priority: nod.P3})
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("Proposed."),
		openaitest.Calls(call("b", "set_task_priority", map[string]any{"task_id": "L2", "priority": "P0"})), openaitest.Text("Done."))
	h.start()
	h.tg.SendText(group, bob, "/mode trusted")
	h.tg.WaitBotMessages(group, 1)
	h.tg.SendText(group, user, "the launch post matters more now")
	h.changeSetMessage(group, 3)
	if p := h.groupTask("L1").Priority; p != nod.P3 {
		t.Errorf("Bob's trusted mode applied Alice's change: %s", p)
	}
	if sys := h.llm.RequestsFor(agentM)[0].System(); !strings.Contains(sys, "Mode: smart.") {
		t.Errorf("Alice's turn was not told her mode:\n%s", sys)
	}
	h.tg.SendText(group, bob, "the press kit is urgent")
	h.tg.WaitBotMessages(group, 5)
	if p := h.groupTask("L2").Priority; p != nod.P0 {
		t.Errorf("Bob's own request in trusted mode: %s, want P0", p)
	}
	if sys := h.llm.RequestsFor(agentM)[2].System(); !strings.Contains(sys, "Mode: trusted.") {
		t.Errorf("Bob's turn was not told his mode:\n%s", sys)
	}
}

// Picking two of four checklist items and rejecting two does not make
// "add to the checklist" a kind the person turned down; when they then ask
// for a rejected item after all, it is made, and the agent was told their
// request overrides the rejection.
func TestRejectedItemAskedForAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "P1", Title: "Launch plan"})
	items := []map[string]any{{"title": "Draft announcement"}, {"title": "Update pricing page"}, {"title": "Brief support"}, {"title": "Schedule posts"}}
	h.script(openaitest.Calls(call("a", "add_multiple_checklist_items", map[string]any{"task_id": "P1", "items": items})), openaitest.Text("Four ideas."),
		openaitest.Calls(call("b", "add_multiple_checklist_items", map[string]any{"task_id": "P1", "items": items[2:3]})), openaitest.Text("Added."))
	h.start()
	h.tg.SendText(chat, user, "help me plan the launch")
	set := h.changeSetMessage(chat, 2)
	h.clock.Advance(time.Minute)
	h.tg.ReplyText(chat, user, set.ID, "yes to 1 and 2, no to 3 and 4")
	h.tg.WaitMessage(chat, set.ID, "the set to be decided", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied 2 of 4") })
	h.clock.Advance(time.Minute)
	h.clf = answer("explicit:brief support as well after all")
	h.tg.SendText(chat, user, "oh, brief support as well after all")
	h.tg.Wait("the item to be added", func() bool { return len(h.task("P1").Checklist) == 3 })
	sys := h.llm.RequestsFor(agentM)[2].System()
	if strings.Contains(sys, "rejected these kinds of change") {
		t.Errorf("picking among items made a kind avoided:\n%s", sys)
	}
	if !strings.Contains(sys, "when they now ask for it in their own words, make it") {
		t.Errorf("the agent was not told a request overrides a rejection:\n%s", sys)
	}
}

// A rejected change is not made again on words from before the
// rejection: the classifier quoting the request the set came from leaves
// it dropped, and the agent is told it was rejected.
func TestRejectedItemNotRevivedByOldWords(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise the login bug to P1")
	h.clock.Advance(time.Minute)
	h.tap(chat, user, set.ID, "✗ 1")
	h.clock.Advance(time.Minute)
	h.clf = answer("explicit:raise the login bug to P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("OK."))
	h.tg.SendText(chat, user, "what about the login bug?")
	h.tg.WaitBotMessages(chat, 3)
	if p := h.task("T1").Priority; p != nod.P3 {
		t.Errorf("an old quote undid the rejection: %s", p)
	}
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["a"]; !strings.Contains(r, "rejected") {
		t.Errorf("tool result = %q", r)
	}
}
