package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// threeNewTasks starts nod with a pending set of three new tasks, in the
// person's language lang, and returns the set's message.
func (h *harness) threeNewTasks(lang string) telegramtest.Message {
	h.t.Helper()
	h.tg.Wire().SetLanguage(user, lang)
	h.script(openaitest.Calls(
		call("a", "create_task", map[string]any{"title": "Book the venue"}),
		call("b", "create_task", map[string]any{"title": "Order flyers"}),
		call("c", "create_task", map[string]any{"title": "Invite speakers"}),
	), openaitest.Text("Three tasks for the meetup?"))
	h.start()
	h.tg.SendText(chat, user, "plan the meetup")
	return h.changeSetMessage(chat, 2)
}

// itemStatuses are the statuses of a set's items, in order.
func itemStatuses(s nod.ChangeSet) []nod.ItemStatus {
	var out []nod.ItemStatus
	for _, it := range s.Items {
		out = append(out, it.Status)
	}
	return out
}

// titles are the titles of the chat's tasks.
func (h *harness) titles() []string {
	h.t.Helper()
	tasks, err := h.db.Tasks().ListTasks(h.t.Context(), chat, nod.TaskFilter{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, t := range tasks {
		out = append(out, t.Title)
	}
	return out
}

// confirmedTitles are the titles of the tasks the audit log says the
// person confirmed.
func (h *harness) confirmedTitles() []string {
	h.t.Helper()
	var out []string
	for _, a := range h.audit(chat) {
		if a.Outcome == nod.OutcomeConfirmed || a.UserConfirmed {
			out = append(out, a.Arg("title"))
		}
	}
	return out
}

// An answer in words decides only what every word of it says (docs/design.md
// §3.4 rule 2): "ja zu 1 und 3, 2 nicht" confirms 1 and 3 and rejects 2,
// nod's own complete reading; it once confirmed all three. /audit never
// says the person confirmed item 2, and the agent's next request carries
// the person's own words beside the decisions, so that it can see a
// misreading.
func TestAnswerInWordsDecidesOnlyWhatItSays(t *testing.T) {
	for _, c := range []struct{ lang, says, answered, confirmed string }{
		{"de", "ja zu 1 und 3, 2 nicht", "✅ 2 Änderungen übernommen. ❌ 1 abgelehnt.", "Von dir bestätigt"},
		{"en", "yes to 1 and 3, 2 not", "✅ Applied 2 changes. ❌ Rejected 1.", "You confirmed"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			set := h.threeNewTasks(c.lang)
			h.clock.Advance(time.Minute)
			h.tg.ReplyText(chat, user, set.ID, c.says)
			if got := h.tg.WaitBotMessages(chat, 3)[2].Text; got != c.answered {
				t.Errorf("nod answered %q, want %q", got, c.answered)
			}
			s := mustSet(t, h, set.ID)
			if got := itemStatuses(s); len(got) != 3 || got[0] != nod.ItemConfirmed || got[1] != nod.ItemRejected || got[2] != nod.ItemConfirmed {
				t.Errorf("items after %q: %v", c.says, got)
			}
			if got := strings.Join(h.titles(), ", "); got != "Book the venue, Invite speakers" {
				t.Errorf("tasks after %q: %s", c.says, got)
			}
			if got := h.confirmedTitles(); strings.Contains(strings.Join(got, "|"), "Order flyers") {
				t.Errorf("the audit log says the person confirmed item 2: %q", got)
			}
			h.tg.SendText(chat, user, "/audit")
			audit := h.tg.WaitBotMessages(chat, 4)[3].Text
			for _, line := range strings.Split(audit, "\n") {
				if strings.Contains(line, c.confirmed) && strings.Contains(line, "Order flyers") {
					t.Errorf("/audit says the person confirmed item 2: %q", line)
				}
			}

			h.script(openaitest.Text("Noted."))
			h.tg.SendText(chat, user, "what is left?")
			h.tg.WaitBotMessages(chat, 5)
			reqs := h.llm.RequestsFor(agentM)
			var notes string
			for _, m := range reqs[len(reqs)-1].Messages {
				if strings.Contains(m.Content, "Meanwhile") {
					notes = m.Content
				}
			}
			if !strings.Contains(notes, "“"+c.says+"”") || !strings.Contains(notes, `rejected your proposal “Create task "Order flyers"”`) {
				t.Errorf("the agent was not told the person's words beside the decision:\n%s", notes)
			}
		})
	}
}

// An answer nod cannot read whole goes to the agent, and answer_proposals
// never confirms what the person's words refuse or put off: "1 ok, 2
// later" with a misreading model and a classifier that calls everything
// explicit decides nothing, and the model is told why; its second,
// faithful call applies item 1 only. Item 2 stays pending, and /audit
// never says the person confirmed it.
func TestAnswerProposalsNeverConfirmsARefusal(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeNewTasks("en")
	h.clock.Advance(time.Minute)
	h.clf = answer("explicit:1 ok, 2 later")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{1, 2, 3}})),
		openaitest.Calls(call("y", "answer_proposals", map[string]any{"confirm": []int{1}})),
		openaitest.Text("Booked the venue; the flyers wait."))
	h.tg.ReplyText(chat, user, set.ID, "1 ok, 2 later")
	h.tg.WaitMessage(chat, set.ID, "item 1 to be applied", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 1") })
	h.tg.WaitBotMessages(chat, 3)
	reqs := h.llm.RequestsFor(agentM)
	if r := reqs[len(reqs)-2].ToolResults()["x"]; !strings.HasPrefix(r, "Not decided") || !strings.Contains(r, "item 2") {
		t.Errorf("the misreading's result = %q", r)
	}
	s := mustSet(t, h, set.ID)
	if got := itemStatuses(s); got[0] != nod.ItemConfirmed || got[1] != nod.ItemPending || got[2] != nod.ItemPending {
		t.Errorf("items after “1 ok, 2 later”: %v", got)
	}
	if got := h.confirmedTitles(); strings.Join(got, "|") != "Book the venue" {
		t.Errorf("the audit log says the person confirmed %q", got)
	}
}

// "yes, but every sunday" to a proposed reminder: the model confirms the
// item and, in the same step, sets the reminder with its repeat. The
// step's calls are prepared before any runs, so the second one's
// reminder is already so when it runs: that part is skipped and its
// repeat still applies. Played, the whole call failed as "changes
// nothing", and the model told the person the repeat did not go through.
func TestConfirmAndMoreInOneStep(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "WP", Title: "Water the plants"})
	const at = "2026-03-15T11:00"
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "WP", "remind_at": at})), openaitest.Text("Sunday at 11?"))
	h.start()
	h.tg.SendText(chat, user, "plants on sunday")
	set := h.changeSetMessage(chat, 2)
	s := mustSet(t, h, set.ID)

	const said = "yes but every sunday"
	h.clf = answer("explicit:"+said, "explicit:"+said)
	h.script(openaitest.Calls(
		call("a", "answer_proposals", map[string]any{"set": string(s.ID), "confirm": []int{1}}),
		call("b", "set_task_reminder", map[string]any{"task_id": "WP", "remind_at": at, "repeat": "FREQ=WEEKLY;BYDAY=SU"}),
	), openaitest.Text("Every Sunday at 11."))
	h.tg.ReplyText(chat, user, set.ID, said)
	botMessage(h, "Every Sunday at 11.")
	reqs := h.llm.RequestsFor(agentM)
	res := reqs[len(reqs)-1].ToolResults()["b"]
	if strings.Contains(res, "error") || !strings.Contains(res, "already so") {
		t.Errorf("set_task_reminder = %s", res)
	}
	if task := h.task("WP"); task.RemindAt == nil || task.Repeat == "" {
		t.Errorf("the plants: reminder %v, repeat %q; want both", task.RemindAt, task.Repeat)
	}
	if got := itemStatuses(mustSet(t, h, set.ID)); len(got) != 1 || got[0] != nod.ItemConfirmed {
		t.Errorf("the proposal's item: %v", got)
	}
	receipt := h.receiptOf("Repeats: none → weekly on Sunday at 11:00")
	if strings.Contains(receipt.Text, "Reminder:") {
		t.Errorf("the repeat's receipt names the reminder the item set: %q", receipt.Text)
	}
}

// "No, I meant three tasks", replied to a proposed task: the model rejects
// the proposal and creates the tasks in the same step. The first create
// would have revised the proposal, which the step's answer had rejected
// by then: it is a change of its own, not an error. Played, the first of
// the three tasks was lost.
func TestRejectAndCreateInOneStep(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("s", "create_task", map[string]any{"title": "Shopping", "labels": []string{"household"}})), openaitest.Text("A shopping list?"))
	h.start()
	h.tg.SendText(chat, user, "add milk and eggs to shopping")
	set := h.changeSetMessage(chat, 2)
	s := mustSet(t, h, set.ID)

	const said = "no i meant separate items"
	h.clf = answer("explicit:"+said, "needs", "needs")
	h.script(openaitest.Calls(
		call("a", "answer_proposals", map[string]any{"set": string(s.ID), "reject": []int{1}, "reason": said}),
		call("m", "create_task", map[string]any{"title": "Buy milk", "labels": []string{"shopping"}}),
		call("e", "create_task", map[string]any{"title": "Buy eggs", "labels": []string{"shopping"}}),
	), openaitest.Text("Two tasks, then."))
	h.tg.ReplyText(chat, user, set.ID, said)
	botMessage(h, "Two tasks, then.")
	reqs := h.llm.RequestsFor(agentM)
	results := reqs[len(reqs)-1].ToolResults()
	for _, id := range []string{"m", "e"} {
		if !strings.HasPrefix(results[id], "Proposal queued for user review.") {
			t.Errorf("create_task %s = %s", id, results[id])
		}
	}
	if got := itemStatuses(mustSet(t, h, set.ID)); len(got) != 1 || got[0] != nod.ItemRejected {
		t.Errorf("the shopping proposal: %v", got)
	}
	next := h.withButton(chat, "✓ 2")
	for _, title := range []string{"Buy milk", "Buy eggs"} {
		if !strings.Contains(next.Text, title) {
			t.Errorf("the new proposal lacks %q: %q", title, next.Text)
		}
	}
}

// "Ok but at 11" to a proposed weekly reminder at 10: the model rejects
// both items and proposes the reminder and its repeat at 11. The repeat
// at 11 is not the one rejected at 10, though its rule reads the same;
// played, it was refused as "the user rejected this exact change", and
// the person got a one-off reminder and had to ask three times.
func TestRepeatAtAnotherTimeIsAnotherChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "WP", Title: "Water the plants"})
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "WP", "remind_at": "2026-03-15T10:00", "repeat": "FREQ=WEEKLY;BYDAY=SU"})), openaitest.Text("Sundays at 10?"))
	h.start()
	h.tg.SendText(chat, user, "water the plants every sunday")
	set := h.changeSetMessage(chat, 2)
	s := mustSet(t, h, set.ID)

	const said = "ok but at 11"
	h.clf = answer("explicit:"+said, "needs")
	h.script(openaitest.Calls(
		call("a", "answer_proposals", map[string]any{"set": string(s.ID), "reject": []int{1, 2}, "reason": said}),
		call("b", "set_task_reminder", map[string]any{"task_id": "WP", "remind_at": "2026-03-15T11:00", "repeat": "FREQ=WEEKLY;BYDAY=SU"}),
	), openaitest.Text("Sundays at 11, then?"))
	h.tg.ReplyText(chat, user, set.ID, said)
	botMessage(h, "Sundays at 11, then?")
	reqs := h.llm.RequestsFor(agentM)
	if res := reqs[len(reqs)-1].ToolResults()["b"]; res != "Proposal queued for user review." {
		t.Errorf("set_task_reminder = %s", res)
	}
	h.tg.Wait("the proposal at 11", func() bool {
		for _, m := range h.tg.BotMessages(chat) {
			if m.ID != set.ID && hasButton(m, "✓ 2") && strings.Contains(m.Text, "2.</b> Repeats: none → weekly on Sunday at 11:00") {
				return true
			}
		}
		return false
	})

	// The rule at 10 again is the change rejected.
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("c", "set_task_reminder", map[string]any{"task_id": "WP", "remind_at": "2026-03-22T10:00", "repeat": "FREQ=WEEKLY;BYDAY=SU"})), openaitest.Text("Or at 10?"))
	h.tg.SendText(chat, user, "hm")
	botMessage(h, "Or at 10?")
	reqs = h.llm.RequestsFor(agentM)
	if res := reqs[len(reqs)-1].ToolResults()["c"]; !strings.Contains(res, "Not queued: the user rejected this exact change (Repeat the reminder") {
		t.Errorf("the rejected rule proposed again: %s", res)
	}
}
