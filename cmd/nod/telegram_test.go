package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// bossSent is when the boss's words were first sent, in the forwards
// below.
var bossSent = time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)

// A forwarded request is someone else's words: the scripted classifier
// quotes it as explicit, and nod still asks. The agent and the classifier
// are told whose words they are, and the person is told why nod asks.
func TestForwardedRequestAsks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:raise the login bug to P1")
	h.raiseT1()
	h.start()
	h.tg.Forward(chat, user, "raise the login bug to P1", telegramtest.OriginUser(7007, "Boss", bossSent))
	set := h.changeSetMessage(chat, 2)
	if got := h.task("T1").Priority; got != nod.P3 {
		t.Fatalf("a forwarded message applied a change: priority %s", got)
	}
	if text := h.tg.BotMessages(chat)[0].Text; !strings.Contains(text, "Raise it?") || !strings.Contains(text, "That was a forwarded message") {
		t.Errorf("the answer does not say why nod asks: %q", text)
	}
	if !hasButton(set, "✓ 1") {
		t.Errorf("no confirm button: %v", set.Buttons())
	}
	agent := h.llm.RequestsFor(agentM)[0]
	if got := userLines(agent); len(got) != 1 || got[0] != "(forwarded: a message from Boss (7007), 2026-11-24 09:30, not the person's own words) raise the login bug to P1" {
		t.Errorf("the agent read %q", got)
	}
	clf := h.llm.RequestsFor(clfM)
	if len(clf) != 1 {
		t.Fatalf("%d classifier requests, want 1", len(clf))
	}
	if conv := clf[0].Messages[1].Content; !strings.Contains(conv, "User (forwarding a message from Boss (7007), 2026-11-24 09:30; not their own words): raise the login bug to P1") {
		t.Errorf("the classifier was not told the words are forwarded:\n%s", conv)
	}
	if !strings.Contains(clf[0].System(), "A forwarded message carries someone else's words") {
		t.Errorf("the classifier's instructions say nothing of forwards")
	}
	// The person's own "yes" then confirms it, as any answer.
	h.tg.ReplyText(chat, user, set.ID, "yes")
	h.tg.Wait("the change to apply", func() bool { return h.task("T1").Priority == nod.P1 })
}

// A forwarded "yes" is not the person's answer, and a forwarded command is
// not a command: both go to the agent as someone else's words.
func TestForwardedYesIsNoAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("what about the login bug?")
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Model != agentM {
			return h.clf(r)
		}
		return openaitest.Text("Those are someone else's words; the change still waits for you.")
	})
	h.tg.Forward(chat, user, "yes", telegramtest.OriginChannel("Team news", bossSent))
	h.tg.Forward(chat, user, "/undo", telegramtest.OriginUser(7007, "Boss", bossSent))
	h.tg.Wait("both forwards to reach the agent", func() bool {
		var said []string
		for _, r := range h.llm.RequestsFor(agentM) {
			said = append(said, userLines(r)...)
		}
		all := strings.Join(said, "\n")
		return strings.Contains(all, "the channel “Team news”") && strings.Contains(all, ") /undo")
	})
	h.tg.WaitBotMessages(chat, 3)
	if got := h.task("T1").Priority; got != nod.P3 {
		t.Errorf("a forwarded yes confirmed the change: priority %s", got)
	}
	if m, _ := h.tg.Message(chat, set.ID); !hasButton(m, "✓ 1") {
		t.Errorf("the set is no longer pending: %q", m.Text)
	}
}

// In German the person is told the same.
func TestForwardedGerman(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetLanguage(user, "de")
	h.seedT1()
	h.clf = answer("explicit:raise the login bug to P1")
	h.raiseT1()
	h.start()
	h.tg.Forward(chat, user, "raise the login bug to P1", telegramtest.OriginUser(7007, "Chef", bossSent))
	h.changeSetMessage(chat, 2)
	if text := h.tg.BotMessages(chat)[0].Text; !strings.Contains(text, "Das war eine weitergeleitete Nachricht") {
		t.Errorf("the German answer lacks the forwarded line: %q", text)
	}
}

// An edit of a message nod has not started on yet: only the edited text
// is handled, the earlier one never reaches the model.
func TestEditBeforeHandling(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	release := make(chan struct{})
	h.slowFirst(release, openaitest.Text("First, done."), openaitest.Text("Second, done."))
	h.start()
	first := h.tg.SendText(chat, user, "plan the launch")
	h.tg.Wait("the first turn", func() bool { return len(h.llm.RequestsFor(agentM)) == 1 })
	typo := h.tg.ReplyText(chat, user, first, "look at the launhc") // a reply: it waits its turn
	h.tg.EditText(chat, typo, "look at the launch")
	h.tg.Wait("the edit to be seen", func() bool { v, _ := h.metric(`nod_updates_total{kind="edit"}`); return v == 1 })
	close(release)
	h.tg.Wait("the second turn", func() bool { return len(h.llm.RequestsFor(agentM)) == 2 })
	h.settleMessages()
	for _, r := range h.llm.RequestsFor(agentM) {
		for _, line := range userLines(r) {
			if strings.Contains(line, "look at the launhc") {
				t.Errorf("the unedited text reached the model: %q", line)
			}
		}
	}
	last := userLines(h.llm.RequestsFor(agentM)[1])
	if got := last[len(last)-1]; !strings.HasSuffix(got, "look at the launch") || strings.Contains(got, "edited") {
		t.Errorf("the model read %q, want the edited text as a plain message", got)
	}
}

// An edit of a message nod already acted on is new words: the change the
// earlier words made stays, with its Undo; the agent is told what the
// edit replaces; and the earlier words are no quote any more, even when
// the classifier quotes them.
func TestEditAfterHandling(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:raise the login bug to P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Raised."),
		openaitest.Calls(call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 60})), openaitest.Text("And the estimate?"))
	h.start()
	id := h.tg.SendText(chat, user, "raise the login bug to P1")
	receipt := h.tg.WaitBotMessages(chat, 2)[0]
	if h.task("T1").Priority != nod.P1 || !hasButton(receipt, "↩️") {
		t.Fatalf("the first request did not apply: %q", receipt.Text)
	}
	h.tg.EditText(chat, id, "make it 1 h instead")
	set := h.changeSetMessage(chat, 4)
	if h.task("T1").Priority != nod.P1 || h.task("T1").EstimateMinutes == nil || *h.task("T1").EstimateMinutes != 120 {
		t.Errorf("after the edit: priority %s, estimate %v", h.task("T1").Priority, h.task("T1").EstimateMinutes)
	}
	if m, _ := h.tg.Message(chat, receipt.ID); !hasButton(m, "↩️") {
		t.Errorf("the first change lost its Undo: %v", m.Buttons())
	}
	if !hasButton(set, "✓ 1") {
		t.Errorf("the estimate was not asked: %q", set.Text)
	}
	reqs := h.llm.RequestsFor(agentM)
	said := userLines(reqs[len(reqs)-1])
	if want := []string{"(edited since, see below; these words no longer count) raise the login bug to P1",
		"The person edited their message “raise the login bug to P1” to: “make it 1 h instead” (changes already applied from the earlier words stay applied unless changed again)"}; !slices.Equal(said, want) {
		t.Errorf("the agent read %q, want %q", said, want)
	}
	clf := h.llm.RequestsFor(clfM)
	conv := clf[len(clf)-1].Messages[1].Content
	for _, want := range []string{"User (a message they edited since; these words no longer count): raise the login bug to P1",
		"User (edited an earlier message to): make it 1 h instead"} {
		if !strings.Contains(conv, want) {
			t.Errorf("the classifier's conversation lacks %q:\n%s", want, conv)
		}
	}
	// The same edit again changes nothing more: it is the same update.
	h.tg.Wire().Redeliver(h.tg.Wire().LastUpdateID())
	h.settleMessages()
	if n := len(h.llm.RequestsFor(agentM)); n != len(reqs) {
		t.Errorf("a redelivered edit ran again: %d agent requests, want %d", n, len(reqs))
	}
}

// What an edit withdraws does not count as waiting in the edit's own
// turn: proposed again from the edited words, the same change is queued
// anew, not refused as "already awaits" the person's decision (a play
// found the model told the person to tap a withdrawn set).
func TestEditProposesWithdrawnAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	faq := map[string]any{"title": "Write the FAQ", "due_date": "2026-03-20"}
	h.script(openaitest.Calls(call("a", "create_task", faq)), openaitest.Text("Shall I add it?"),
		openaitest.Calls(call("b", "create_task", faq)), openaitest.Text("Still Friday, then."))
	h.start()
	id := h.tg.SendText(chat, user, "add a task: write the FAQ, due friday")
	h.changeSetMessage(chat, 2)
	h.tg.EditText(chat, id, "add a task: write the FAQ, due friday please")
	h.changeSetMessage(chat, 4)
	reqs := h.llm.RequestsFor(agentM)
	if got := reqs[len(reqs)-1].ToolResults()["b"]; got != "Proposal queued for user review." {
		t.Errorf("proposed again after the edit, the change got %q", got)
	}
	open, err := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{Chat: chat})
	if err != nil || len(open) != 1 || len(open[0].Items) != 1 {
		t.Errorf("open sets after the edit = %+v, %v; want the new one", open, err)
	}
}

// An edit takes back what nod proposed from the earlier words: those
// pending items are withdrawn (the set's message says why), the agent is
// told, and only the edited words' proposal waits.
func TestEditWithdrawsItsProposals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.script(openaitest.Calls(call("a", "create_task", map[string]any{"title": "Write the FAQ", "due_date": "2026-03-20"})), openaitest.Text("Shall I add it?"),
		openaitest.Calls(call("b", "create_task", map[string]any{"title": "Write the FAQ", "due_date": "2026-03-19"})), openaitest.Text("Thursday, then?"))
	h.start()
	id := h.tg.SendText(chat, user, "add a task: write the FAQ, due friday")
	old := h.changeSetMessage(chat, 2)
	h.tg.EditText(chat, id, "add a task: write the FAQ, due thursday")
	h.changeSetMessage(chat, 4)
	withdrawn := h.tg.WaitMessage(chat, old.ID, "the old set to be withdrawn", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Withdrawn: you edited the message it came from.")
	})
	if len(withdrawn.Buttons()) != 0 {
		t.Errorf("the withdrawn set still has buttons: %v", withdrawn.Buttons())
	}
	// Nobody decided it: it must not read as the person's decision.
	if !strings.HasPrefix(withdrawn.Text, "<b>Proposed changes, no longer waiting</b>") || !strings.Contains(withdrawn.Text, "Nothing from it was applied.") {
		t.Errorf("the withdrawn set reads:\n%s", withdrawn.Text)
	}
	reqs := h.llm.RequestsFor(agentM)
	if sys := reqs[len(reqs)-2].System(); !strings.Contains(sys, "The user edited the message these proposals of yours came from, so nod withdrew them") ||
		!strings.Contains(sys, `item 1: Create task "Write the FAQ"`) {
		t.Errorf("the agent was not told what the edit withdrew:\n%s", sys)
	} else if strings.Contains(sys, "still waiting for the user") {
		t.Errorf("the agent was told the withdrawn proposal still waits:\n%s", sys)
	}
	open, err := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{Chat: chat})
	if err != nil || len(open) != 1 || open[0].Items[0].After == "" || !strings.Contains(string(open[0].Items[0].Args), "2026-03-19") {
		t.Errorf("open sets after the edit = %+v, %v; want only Thursday's", open, err)
	}
}
