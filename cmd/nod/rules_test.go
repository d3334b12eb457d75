package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// ruleHarness seeds tasks T1..Tn at P3 and starts nod.
func ruleHarness(t *testing.T, n int) *harness {
	h := newHarness(t)
	for i := 1; i <= n; i++ {
		h.seed(chat, nod.Task{ID: nod.TaskID(fmt.Sprintf("T%d", i)), Title: fmt.Sprintf("Task %d", i), Priority: nod.P3})
	}
	h.start()
	return h
}

// propose has the model propose calls in answer to the person's text and
// returns the bot's messages of that turn.
func (h *harness) propose(calls ...openaitest.ToolCall) []telegramtest.Message {
	h.t.Helper()
	before := len(h.tg.BotMessages(chat))
	if len(calls) == 0 {
		h.script(openaitest.Text("Here you go."))
	} else {
		h.script(openaitest.Calls(calls...), openaitest.Text("Here you go."))
	}
	h.tg.SendText(chat, user, "tidy up my priorities")
	h.tg.Wait("the turn's messages", func() bool {
		ms := h.tg.BotMessages(chat)
		return len(ms) > before && strings.Contains(strings.Join(texts(ms[before:]), "\n"), "Here you go.") &&
			(len(calls) == 0 || len(ms) > before+1)
	})
	ms := h.tg.BotMessages(chat)[before:]
	for _, m := range ms {
		if _, ok := m.Button("✓ 1"); ok {
			h.changeSetMessage(chat, before+len(ms)) // waits until its id is stored
		}
	}
	return ms
}

// say sends text and returns the bot's next message.
func (h *harness) say(text string) telegramtest.Message {
	h.t.Helper()
	n := len(h.tg.BotMessages(chat)) + 1
	h.tg.SendText(chat, user, text)
	return h.tg.WaitBotMessages(chat, n)[n-1]
}

func texts(ms []telegramtest.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

func raise(id, p string) openaitest.ToolCall {
	return call("c"+id, "set_task_priority", map[string]any{"task_id": id, "priority": p})
}

// confirmRaise proposes raising task id to p and taps ✓ 1; it returns the
// bot's messages sent because of the tap.
func (h *harness) confirmRaise(id, p string) []telegramtest.Message {
	h.t.Helper()
	ms := h.propose(raise(id, p))
	set := ms[len(ms)-1]
	before := len(h.tg.BotMessages(chat))
	if got := h.tap(chat, user, set.ID, "✓ 1"); got != "Applied item 1." {
		h.t.Fatalf("tap answer %q", got)
	}
	return h.tg.BotMessages(chat)[before:]
}

// earnRaiseRule confirms raising T1..T3 to P1 and accepts the rule
// offered.
func (h *harness) earnRaiseRule() {
	h.t.Helper()
	var offer telegramtest.Message
	for _, id := range []string{"T1", "T2", "T3"} {
		offer, _ = offerIn(h.confirmRaise(id, "P1"))
	}
	if got := h.tap(chat, user, offer.ID, "✓ For 30 days"); !strings.HasPrefix(got, "Rule on until") {
		h.t.Fatalf("accepting the rule answered %q", got)
	}
}

func offerIn(ms []telegramtest.Message) (telegramtest.Message, bool) {
	for _, m := range ms {
		if strings.Contains(m.Text, "Apply changes like this without asking?") {
			return m, true
		}
	}
	return telegramtest.Message{}, false
}

// Learned rules: three confirmations of one kind in a row earn one offer;
// accepted, the rule applies matching proposals at once with a receipt
// that names it and an Undo button; other kinds still ask; /rules revokes
// it, and the next proposal asks again. Each step is audited.
func TestLearnedRuleOfferedUsedRevoked(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 7)
	for _, id := range []string{"T1", "T2"} {
		if m, ok := offerIn(h.confirmRaise(id, "P1")); ok {
			t.Fatalf("offer after fewer than three confirmations: %q", m.Text)
		}
	}
	offer, ok := offerIn(h.confirmRaise("T3", "P1"))
	if !ok {
		t.Fatalf("no offer after three confirmations; bot said %q", texts(h.tg.BotMessages(chat)))
	}
	if !strings.Contains(offer.Text, "“Set priority to P1”") || !hasButton(offer, "✓ For 30 days") || !hasButton(offer, "✗ No") {
		t.Errorf("offer = %q %v", offer.Text, buttonTexts(offer))
	}
	if got := h.tap(chat, user+1, offer.ID, "✓ For 30 days"); !strings.Contains(got, "Only the person") {
		t.Errorf("another allowed user's accept answered %q", got)
	}
	if got := h.tap(chat, user, offer.ID, "✓ For 30 days"); got != "Rule on until 10 Apr 2026." {
		t.Errorf("accept answer %q", got)
	}
	offer, _ = h.tg.Message(chat, offer.ID)
	if !strings.Contains(offer.Text, "Rule on until 10 Apr 2026") || len(offer.Buttons()) != 0 {
		t.Errorf("offer after accepting = %q %v", offer.Text, buttonTexts(offer))
	}

	// The rule applies: a receipt naming it, with Undo; no change set.
	ms := h.propose(raise("T4", "P1"))
	receipt := ms[0]
	if !strings.Contains(receipt.Text, "Applied by your rule “Set priority to P1” (until 10 Apr 2026)") || !hasButton(receipt, "↩️ Undo") {
		t.Errorf("receipt = %q %v", receipt.Text, buttonTexts(receipt))
	}
	for _, m := range ms {
		if hasButton(m, "✓ 1") {
			t.Errorf("a rule's change was also proposed: %q", m.Text)
		}
	}
	if p := h.task("T4").Priority; p != nod.P1 {
		t.Errorf("T4 priority %s, want P1", p)
	}
	reqs := h.llm.RequestsFor(agentM)
	// The model is told the rule applied it, not the person's words.
	if r := reqs[len(reqs)-1].ToolResults()["cT4"]; !strings.Contains(r, `"priority":"P1"`) ||
		!strings.Contains(r, "Set priority to P1: applied without the user's tap by their learned rule for set_task_priority=P1 (until 2026-04-10)") {
		t.Errorf("tool result of a rule's change = %q", r)
	}
	// The receipt can stop the rule too: see TestStopRuleFromReceipt.
	if !hasButton(receipt, "✖ Stop rule: Set priority to P1") {
		t.Errorf("receipt buttons %v", buttonTexts(receipt))
	}
	// A review asks, rule or not: nothing the person did not request applies.
	before := len(h.tg.BotMessages(chat))
	h.script(openaitest.Calls(raise("T6", "P1")), openaitest.Text("Here you go."))
	h.tg.SendText(chat, user, "/review")
	if review := h.changeSetMessage(chat, before+2); !strings.Contains(review.Text, "Suggestions from a review") || h.task("T6").Priority != nod.P3 {
		t.Errorf("a rule applied a review's suggestion: %q", review.Text)
	}
	// Another kind still asks.
	if ms := h.propose(raise("T5", "P0")); !hasButton(ms[len(ms)-1], "✓ 1") {
		t.Errorf("P0 was not proposed: %q", texts(ms))
	}

	// /rules lists it; revoking asks again next time.
	rules := h.say("/rules")
	if !strings.Contains(rules.Text, "1. Set priority to P1 — until 10 Apr 2026") {
		t.Errorf("/rules = %q", rules.Text)
	}
	if got := h.tap(chat, stranger, rules.ID, "✖ Revoke 1"); !strings.Contains(got, "private") {
		t.Errorf("a stranger's revoke answered %q", got)
	}
	if got := h.tap(chat, user, rules.ID, "✖ Revoke 1"); got != "Rule revoked; I'll ask again." {
		t.Errorf("revoke answer %q", got)
	}
	if m, _ := h.tg.Message(chat, rules.ID); !strings.Contains(m.Text, "You have no rules") || len(m.Buttons()) != 0 {
		t.Errorf("/rules after revoking = %q", m.Text)
	}
	if ms := h.propose(raise("T7", "P1")); !hasButton(ms[len(ms)-1], "✓ 1") {
		t.Errorf("after revoking, P1 applied without asking: %q", texts(ms))
	}
	if h.task("T7").Priority != nod.P3 {
		t.Errorf("T7 changed without a tap")
	}

	var ruleRows []string
	for _, a := range h.audit(chat) {
		if a.Tool == "rule" || a.Verdict == "rule" {
			ruleRows = append(ruleRows, string(a.Tool)+":"+string(a.Outcome))
		}
	}
	if got := strings.Join(ruleRows, " "); got != "rule:revoked set_task_priority:executed rule:created" {
		t.Errorf("rule audit rows, newest first: %s", got)
	}
}

// A declined offer is never made again for that kind; a rejection breaks
// a streak; confirming several items of one set at once is one decision.
func TestLearnedRuleDeclinedAndStreaks(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 9)
	// One set of three raises, confirmed all at once: no offer.
	ms := h.propose(raise("T1", "P1"), call("x", "set_task_priority", map[string]any{"task_id": "T2", "priority": "P1"}),
		call("y", "set_task_priority", map[string]any{"task_id": "T3", "priority": "P1"}))
	before := len(h.tg.BotMessages(chat))
	h.tap(chat, user, ms[len(ms)-1].ID, "✓ All")
	if _, ok := offerIn(h.tg.BotMessages(chat)[before:]); ok {
		t.Errorf("one set's items counted as a streak")
	}
	// A rejection in between breaks the streak.
	h.confirmRaise("T4", "P1")
	rej := h.propose(raise("T5", "P1"))
	h.tap(chat, user, rej[len(rej)-1].ID, "✗ 1")
	if _, ok := offerIn(h.confirmRaise("T6", "P1")); ok {
		t.Errorf("offer although a rejection broke the streak")
	}
	h.confirmRaise("T7", "P1")
	offer, ok := offerIn(h.confirmRaise("T8", "P1"))
	if !ok {
		t.Fatalf("no offer after three confirmations in a row")
	}
	no, _ := offer.Button("✗ No")
	if got := h.tap(chat, user, offer.ID, "✗ No"); got != "OK, I'll keep asking." {
		t.Errorf("decline answer %q", got)
	}
	if m, _ := h.tg.Message(chat, offer.ID); !strings.Contains(m.Text, "I'll keep asking before “Set priority to P1”") || len(m.Buttons()) != 0 {
		t.Errorf("offer after declining = %q %v", m.Text, buttonTexts(m))
	}
	// A double tap, or a stale client pressing the old button.
	if got := h.tg.WaitAnswer(h.tg.Press(chat, user, offer.ID, no.Data)); got != "This rule was already decided." {
		t.Errorf("second tap answered %q", got)
	}
	if _, ok := offerIn(h.confirmRaise("T9", "P1")); ok {
		t.Errorf("a declined kind was offered again")
	}
	if ms := h.propose(raise("T1", "P2")); !hasButton(ms[len(ms)-1], "✓ 1") {
		t.Errorf("a declined rule applied something")
	}
}

// Two rejections of one kind: the agent's prompt says not to propose it
// again unless asked.
func TestRejectedKindInPrompt(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 3)
	for _, id := range []string{"T1", "T2"} {
		ms := h.propose(call("e"+id, "update_task_estimate", map[string]any{"task_id": id, "estimate_minutes": 30}))
		h.tap(chat, user, ms[len(ms)-1].ID, "✗ 1")
	}
	h.propose()
	reqs := h.llm.RequestsFor(agentM)
	sys := reqs[len(reqs)-1].System()
	if !strings.Contains(sys, "rejected these kinds of change at least twice: update_task_estimate. Do not propose") {
		t.Errorf("system prompt after two rejections:\n%s", sys)
	}
	if strings.Contains(reqs[len(reqs)-3].System(), "at least twice") {
		t.Errorf("the prompt warned after one rejection")
	}
}

// A rule lasts 30 days: after that, matching proposals ask again.
func TestLearnedRuleExpires(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 5)
	h.earnRaiseRule()
	h.clock.Advance(30*24*time.Hour + time.Minute)
	if ms := h.propose(raise("T4", "P1")); !hasButton(ms[len(ms)-1], "✓ 1") {
		t.Errorf("an expired rule applied: %q", texts(ms))
	}
	if m := h.say("/rules"); !strings.Contains(m.Text, "You have no rules") {
		t.Errorf("/rules lists an expired rule: %q", m.Text)
	}
}

// A rule's receipt stops the rule where the person sees it act; its Undo
// stays.
func TestStopRuleFromReceipt(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 5)
	h.earnRaiseRule()
	receipt := h.propose(raise("T4", "P1"))[0]
	if got := h.tap(chat, user, receipt.ID, "✖ Stop rule"); got != "Rule revoked; I'll ask again." {
		t.Errorf("stop answered %q", got)
	}
	receipt, _ = h.tg.Message(chat, receipt.ID)
	if got := buttonTexts(receipt); len(got) != 1 || got[0] != "↩️ Undo" {
		t.Errorf("receipt buttons after stopping = %v", got)
	}
	if ms := h.propose(raise("T5", "P1")); !hasButton(ms[len(ms)-1], "✓ 1") {
		t.Errorf("a stopped rule applied: %q", texts(ms))
	}
}

// A rule's button authorizes nothing by itself: pressed in another chat,
// or with an id that names no rule, it is refused and nothing changes.
func TestForgedRuleButtons(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 4)
	h.earnRaiseRule()
	rules := h.say("/rules")
	revoke, _ := rules.Button("✖ Revoke 1")
	other := int64(chat + 1)
	h.seed(other, nod.Task{ID: "O1", Title: "Other chat's task"})
	h.tg.SendText(other, user, "/rules")
	there := h.tg.WaitBotMessages(other, 1)[0]
	for name, data := range map[string]string{
		"another chat's rule": revoke.Data,
		"no such rule":        "1V.zzzzzzzzzz",
		"no such offer":       "1A.zzzzzzzzzz",
	} {
		if got := h.tg.WaitAnswer(h.tg.Press(other, user, there.ID, data)); !strings.Contains(got, "not valid") {
			t.Errorf("%s answered %q", name, got)
		}
	}
	if m := h.say("/rules"); !strings.Contains(m.Text, "1. Set priority to P1") {
		t.Errorf("a forged press changed the rules: %q", m.Text)
	}
	if ms := h.propose(raise("T4", "P1")); !strings.Contains(ms[0].Text, "Applied by your rule") {
		t.Errorf("the rule stopped applying: %q", texts(ms))
	}
}

// A confirmation in words counts as a tap's: the third P1 raise, confirmed
// by an answer the agent passes on (answer_proposals), earns the rule's
// offer, shown after the turn as a tap would show it.
func TestRuleEarnedByWords(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 3)
	h.confirmRaise("T1", "P1")
	h.confirmRaise("T2", "P1")
	ms := h.propose(raise("T3", "P1"))
	set := ms[len(ms)-1]
	h.clf = answer("explicit:the priority one is fine")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1}})), openaitest.Text("Raised."))
	before := len(h.tg.BotMessages(chat))
	h.tg.ReplyText(chat, user, set.ID, "the priority one is fine")
	var offer telegramtest.Message
	h.tg.Wait("the rule's offer", func() bool {
		var ok bool
		offer, ok = offerIn(h.tg.BotMessages(chat)[before:])
		return ok
	})
	if p := h.task("T3").Priority; p != nod.P1 {
		t.Errorf("T3 is %s after the answer in words", p)
	}
	if got := h.tap(chat, user, offer.ID, "✓ For 30 days"); !strings.HasPrefix(got, "Rule on until") {
		t.Errorf("accepting the rule answered %q", got)
	}
}

// Items of one set rejected together are one no: "no bakery label" on
// three label proposals did not turn labels down (a play, where the agent
// was then told to propose no label at all). A second set's no does.
func TestRejectedKindCountsSetsNotItems(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 3)
	ms := h.propose(call("e1", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 30}),
		call("e2", "update_task_estimate", map[string]any{"task_id": "T2", "estimate_minutes": 45}))
	h.tap(chat, user, ms[len(ms)-1].ID, "✗ All")
	h.propose()
	reqs := h.llm.RequestsFor(agentM)
	if sys := reqs[len(reqs)-1].System(); strings.Contains(sys, "rejected these kinds of change") {
		t.Errorf("one set's two items made a kind avoided:\n%s", sys)
	}
	ms = h.propose(call("e3", "update_task_estimate", map[string]any{"task_id": "T3", "estimate_minutes": 60}))
	h.tap(chat, user, ms[len(ms)-1].ID, "✗ 1")
	h.propose()
	reqs = h.llm.RequestsFor(agentM)
	if sys := reqs[len(reqs)-1].System(); !strings.Contains(sys, "rejected these kinds of change at least twice: update_task_estimate. Do not propose") {
		t.Errorf("system prompt after two sets rejected:\n%s", sys)
	}
}

// Beside a change the person's words asked for, a rule's change is named
// by its number. Played, "Applied by your rule “Change labels”" under a
// task added on request read as if the rule had added it.
func TestReceiptNamesTheRulesChanges(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T1", Title: "Task 1", Priority: nod.P3})
	h.seed(chat, nod.Task{ID: "T2", Title: "Task 2", Priority: nod.P3})
	h.ruleFor(chat, user)
	h.start()
	h.clf = answer("explicit:make task 1 due friday", "needs")
	h.script(openaitest.Calls(call("d", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-13"}), raise("T2", "P1")),
		openaitest.Text("Done."))
	h.tg.SendText(chat, user, "make task 1 due friday")
	receipt := botMessage(h, "✅")
	if want := "Change 2 applied by your rule “Set priority to P1”"; !strings.Contains(receipt.Text, want) || strings.Contains(receipt.Text, "<i>Applied by") {
		t.Errorf("the receipt does not name the rule's change (%q):\n%s", want, receipt.Text)
	}
	if h.task("T1").DueDate != "2026-03-13" || h.task("T2").Priority != nod.P1 {
		t.Errorf("T1 due %s, T2 %s", h.task("T1").DueDate, h.task("T2").Priority)
	}
}

// A field of a new task that a learned rule applies does not wait, and
// the model is not told it does. Played, a rule's P3 on a new task was
// reported as waiting for a tap beside the label that did.
func TestRuledFieldOfANewTaskIsNotSaidToWait(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ruleFor(chat, user)
	h.start()
	h.clf = answer("explicit:add a task to call the bank")
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Call the bank", "priority": "P1", "labels": []string{"finance"}})),
		openaitest.Text("Added."))
	h.tg.SendText(chat, user, "add a task to call the bank")
	h.changeSetMessage(chat, 3)
	r := h.llm.RequestsFor(agentM)[1].ToolResults()["c"]
	if !strings.Contains(r, `its label \"finance\" waits for the user's tap`) || strings.Contains(r, "priority P1") || !strings.Contains(r, `"priority":"P1"`) {
		t.Errorf("the create's result = %s", r)
	}
}

// Asked to "always do that", the agent can only tell how a rule comes
// about: no one writes one, and /rules lists and stops them. It is told
// so, with the streak and the lifetime nod uses.
func TestToldHowARuleComesAbout(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 1)
	h.script(openaitest.Text("Confirm it three times and I'll offer it."))
	h.say("always put things to buy under shopping")
	sys := h.llm.RequestsFor(agentM)[0].System()
	want := fmt.Sprintf("/rules only lists and stops the rules you learned: no one writes a rule. When the user wants a kind of change made without asking (\"always do that\"), tell them that once they confirm the same kind of change %d times in a row", nod.RuleStreak)
	if !strings.Contains(sys, want) || !strings.Contains(sys, fmt.Sprintf("you offer them a rule that applies such changes without asking for %d days; /rules shows how far they are toward each kind.", int(nod.RuleLifetime/(24*time.Hour)))) {
		t.Errorf("the agent was not told how a rule comes about:\n%s", sys)
	}
}

// /rules shows how far the person has come toward a rule, counted as
// the offer counts: a proposal at a time, and from nothing again after a
// ✗ of that kind; then the offer waiting for an answer, then the rule.
func TestRulesShowTheWayToARule(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 6)
	if m := h.say("/rules"); !strings.Contains(m.Text, "You have no rules. When you confirm") {
		t.Errorf("/rules before any tap = %q", m.Text)
	}
	for i, id := range []string{"T1", "T2"} {
		h.confirmRaise(id, "P1")
		want := fmt.Sprintf("• Set priority to P1: %d of 3", i+1)
		if m := h.say("/rules"); !strings.Contains(m.Text, "You have no rules yet.") || !strings.Contains(m.Text, want) {
			t.Errorf("/rules after %d confirmations = %q, want %q", i+1, m.Text, want)
		}
	}
	ms := h.propose(raise("T3", "P1"))
	h.tap(chat, user, ms[len(ms)-1].ID, "✗ 1")
	if m := h.say("/rules"); strings.Contains(m.Text, "On the way") {
		t.Errorf("/rules after a ✗ still counts: %q", m.Text)
	}
	// Offered, the rule waits for the answer, and /rules says so.
	var offer telegramtest.Message
	for _, id := range []string{"T4", "T5", "T6"} {
		offer, _ = offerIn(h.confirmRaise(id, "P1"))
	}
	if m := h.say("/rules"); !strings.Contains(m.Text, "• Set priority to P1: offered above, waiting for your ✓ or ✗") {
		t.Errorf("/rules with an offer waiting = %q", m.Text)
	}
	h.tap(chat, user, offer.ID, "✓ For 30 days")
	if m := h.say("/rules"); !strings.Contains(m.Text, "1. Set priority to P1 — until") || strings.Contains(m.Text, "On the way") {
		t.Errorf("/rules with the rule on = %q", m.Text)
	}
}
