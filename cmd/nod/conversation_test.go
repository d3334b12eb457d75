package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// userLines are the user messages of a request, in order.
func userLines(r openaitest.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// slowFirst answers the agent's first request only once release is
// closed, then the rest in order; the classifier gets h.clf.
func (h *harness) slowFirst(release <-chan struct{}, responses ...openaitest.Response) {
	rest := openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return h.clf(r) }, responses...)
	var first sync.Once
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		held := false
		if r.Model == agentM {
			first.Do(func() { held = true })
		}
		if held {
			select {
			case <-release:
			case <-r.Context.Done():
			}
		}
		return rest(r)
	})
}

// burstDuringTurn starts nod, sends a message, and two more once the
// model holds the first turn's request; it releases the model once both
// joined the turn.
func (h *harness) burstDuringTurn(release chan struct{}) {
	h.t.Helper()
	h.start()
	h.tg.SendText(chat, user, "the launch")
	h.tg.Wait("the first request", func() bool { return len(h.llm.RequestsFor(agentM)) == 1 })
	h.tg.SendText(chat, user, "and the pricing page")
	h.tg.SendText(chat, user, "oh, and support")
	h.tg.Wait("both to join the turn", func() bool { v, _ := h.metric("nod_messages_joined_total"); return v == 2 })
	close(release)
}

// Three quick messages while nod thinks: the two that arrive during the
// turn join it before its next step, so the model sees all three, in
// order, and the person gets one answer.
func TestBurstJoinsTheTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	release := make(chan struct{})
	h.slowFirst(release, openaitest.Text("Looking at the launch."), openaitest.Text("Launch, pricing and support: noted."))
	h.burstDuringTurn(release)
	msgs := h.tg.WaitBotMessages(chat, 1)
	reqs := h.llm.RequestsFor(agentM)
	if len(reqs) != 2 {
		t.Fatalf("%d agent requests, want 2", len(reqs))
	}
	if got, want := userLines(reqs[1]), []string{"the launch", "and the pricing page", "oh, and support"}; !slices.Equal(got, want) {
		t.Errorf("the model saw %q, want %q", got, want)
	}
	h.settle()
	if n := len(h.tg.BotMessages(chat)); n != 1 || !strings.Contains(msgs[0].Text, "Launch, pricing and support") {
		t.Errorf("%d messages: %q", n, msgs[0].Text)
	}
	hist, _ := h.db.Conversation().History(t.Context(), nod.Topic{Chat: chat}, nod.Window{Keep: 100})
	var kept []string
	for _, m := range hist {
		if m.Role == nod.RoleUser {
			kept = append(kept, m.Content)
		}
	}
	if want := []string{"the launch", "and the pricing page", "oh, and support"}; !slices.Equal(kept, want) {
		t.Errorf("history keeps %q, want %q", kept, want)
	}
}

// When the turn can take no more (its last step is spent), the messages
// that joined it start the next turn together, in order.
func TestBurstLeftOverStartsOneTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_MAX_STEPS"] = "1"
	release := make(chan struct{})
	h.slowFirst(release, openaitest.Text("The launch: noted."), openaitest.Text("Pricing and support: noted."))
	h.burstDuringTurn(release)
	h.tg.WaitBotMessages(chat, 2)
	reqs := h.llm.RequestsFor(agentM)
	if len(reqs) != 2 {
		t.Fatalf("%d agent requests, want 2", len(reqs))
	}
	if got, want := userLines(reqs[1]), []string{"the launch", "and the pricing page", "oh, and support"}; !slices.Equal(got, want) {
		t.Errorf("the second turn saw %q, want %q", got, want)
	}
}

// A reply to one of nod's messages reaches the agent and the classifier
// with the text it replies to.
func TestReplyCarriesWhatItRepliesTo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Text("I would raise the login bug to P1: it blocks the release."),
		openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Done."))
	h.start()
	h.tg.SendText(chat, user, "what matters most?")
	said := h.tg.WaitBotMessages(chat, 1)[0]
	h.tg.ReplyText(chat, user, said.ID, "why? fine, do that")
	h.tg.WaitBotMessages(chat, 2)
	want := "(replying to nod's message “I would raise the login bug to P1: it blocks the release.”) why? fine, do that"
	if got := userLines(h.llm.RequestsFor(agentM)[1]); got[len(got)-1] != want {
		t.Errorf("the agent read %q, want %q", got[len(got)-1], want)
	}
	clf := h.llm.RequestsFor(clfM)
	if len(clf) == 0 || !strings.Contains(clf[0].Messages[1].Content, "User (replying to nod's message “I would raise the login bug to P1: it blocks the release.”): why? fine, do that") {
		t.Errorf("the classifier was not told what the reply replies to:\n%v", clf)
	}
}

// A reply to the set a /review proposed tells the classifier which
// numbered items that message showed.
func TestReplyToReviewSetNamesItsItems(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("One idea."),
		openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1}})), openaitest.Text("OK."))
	h.start()
	h.tg.SendText(chat, user, "/review")
	set := h.changeSetMessage(chat, 2)
	h.clock.Advance(time.Minute)
	h.clf = answer("explicit:that one is good")
	h.tg.ReplyText(chat, user, set.ID, "that one is good")
	h.tg.WaitBotMessages(chat, 3)
	clf := h.llm.RequestsFor(clfM)
	if len(clf) != 1 || !strings.Contains(clf[0].Messages[1].Content, "replying to nod's proposals: 1. Set priority to P1") {
		t.Fatalf("the classifier was not told the review set's items:\n%v", clf)
	}
	if p := h.task("T1").Priority; p != nod.P1 {
		t.Errorf("priority %s after the answer", p)
	}
}

// Notes of what happened outside the conversation stay in it: an undo is
// still told three turns later.
func TestEventNotesStay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Done."),
		openaitest.Text("One."), openaitest.Text("Two."), openaitest.Text("Three."))
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	receipt := h.tg.WaitBotMessages(chat, 2)[0]
	h.clock.Advance(time.Minute)
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	h.tg.WaitBotMessages(chat, 3)
	for i, text := range []string{"one", "two", "three"} {
		h.clock.Advance(time.Minute)
		h.tg.SendText(chat, user, text)
		h.tg.WaitBotMessages(chat, 4+i)
	}
	reqs := h.llm.RequestsFor(agentM)
	last := reqs[len(reqs)-1]
	found := false
	for _, m := range last.Messages[1:] {
		found = found || (m.Role == "system" && strings.Contains(m.Content, "the user undid “Set priority to P1”"))
	}
	if !found {
		t.Errorf("three turns later the undo is no longer told:\n%+v", last.Messages)
	}
}

// Three messages sent at once, before nod has begun on the first: the two
// that queue behind it join its turn, and one answer covers all three.
func TestBurstAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	release := make(chan struct{})
	h.slowFirst(release, openaitest.Text("All three: noted."), openaitest.Text("All three: noted."))
	h.start()
	h.tg.SendText(chat, user, "the launch")
	h.tg.SendText(chat, user, "and the pricing page")
	h.tg.SendText(chat, user, "oh, and support")
	h.tg.Wait("both to join the turn", func() bool { v, _ := h.metric("nod_messages_joined_total"); return v == 2 })
	close(release)
	h.tg.WaitBotMessages(chat, 1)
	h.settle()
	reqs := h.llm.RequestsFor(agentM)
	if got, want := userLines(reqs[len(reqs)-1]), []string{"the launch", "and the pricing page", "oh, and support"}; !slices.Equal(got, want) {
		t.Errorf("the model saw %q, want %q", got, want)
	}
	if n := len(h.tg.BotMessages(chat)); n != 1 {
		t.Errorf("%d answers to one burst", n)
	}
}

// A read's result reaches the model in its own turn; later turns get a
// line in its place: the prompt lists the tasks as they are now, and a
// conversation of lists sent hundreds of kilobytes a turn. The history
// reads the same in every later turn, so each turn's first request still
// starts with the one before's.
func TestEarlierReadsLeftOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	listed := func(r openaitest.Request) (full, left int) {
		for _, m := range r.Messages {
			if m.Role != "tool" {
				continue
			}
			if strings.Contains(m.Content, `"tasks"`) || strings.Contains(m.Content, `"checklist"`) {
				full++
			}
			if strings.Contains(m.Content, "is left out") {
				left++
			}
		}
		return full, left
	}
	for turn := 1; turn <= 3; turn++ {
		h.script(openaitest.Calls(call("l", "list_tasks", map[string]any{}), call("g", "get_task", map[string]any{"task_id": "T1"})), openaitest.Text("Here they are."))
		h.tg.SendText(chat, user, fmt.Sprintf("what's on my list? (%d)", turn))
		h.tg.WaitBotMessages(chat, turn)
		reqs := h.llm.RequestsFor(agentM)
		first, second := reqs[len(reqs)-2], reqs[len(reqs)-1]
		if full, left := listed(first); full != 0 || left != 2*(turn-1) {
			t.Errorf("turn %d's first request: %d results of earlier reads, %d left out", turn, full, left)
		}
		if full, _ := listed(second); full != 2 {
			t.Errorf("turn %d: its own reads' results reached the model %d times, want 2", turn, full)
		}
	}
	reqs := h.llm.RequestsFor(agentM)
	two, three := reqs[2].Messages, reqs[4].Messages
	if len(three) < len(two) || fmt.Sprint(three[:len(two)-1]) != fmt.Sprint(two[:len(two)-1]) {
		t.Errorf("turn 3 does not start with turn 2's conversation")
	}
}
