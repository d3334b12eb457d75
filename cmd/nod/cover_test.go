package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// docs/design.md §3.5: "label it backend" on a task labelled bug; the
// model sends the whole new set, [backend], and a yes-man classifier
// calls it explicit with the person's words. backend is added at once;
// bug stays until the person taps, because nothing they said asks to
// remove it. The classifier was shown what the call removes.
func TestLabelWordsNeverDropAnother(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T7", Title: "Fix login bug", Labels: []string{"bug"}})
	h.clf = answer("explicit:label it backend")
	h.script(openaitest.Calls(call("l", "assign_task_labels", map[string]any{"task_id": "T7", "labels": []string{"backend"}})), openaitest.Text("Labelled."))
	h.start()
	h.tg.SendText(chat, user, "label it backend")
	set := h.changeSetMessage(chat, 3)
	if got := h.task("T7").Labels; !slices.Equal(got, []string{"backend", "bug"}) {
		t.Errorf("labels = %q, want backend added and bug kept", got)
	}
	clf := h.llm.RequestsFor(clfM)
	if len(clf) != 1 || !strings.Contains(clf[0].LastUser(), `0. assign_task_labels: task "Fix login bug": labels: bug → backend (removes bug)`) {
		t.Errorf("the classifier was not shown what the call removes:\n%v", clf)
	}
	receipt := h.tg.BotMessages(chat)[0]
	for _, want := range []string{"Labels: bug → backend, bug", "because you said “label it backend”"} {
		if !strings.Contains(receipt.Text, want) || !hasButton(receipt, "↩️ Undo") {
			t.Errorf("receipt lacks %q:\n%s %v", want, receipt.Text, buttonTexts(receipt))
		}
	}
	if !strings.Contains(set.Text, "Labels: backend, bug → backend (removes bug)") {
		t.Errorf("the change set does not say what it removes:\n%s", set.Text)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["l"]; !strings.Contains(r, "bug") || !strings.Contains(r, "tap") {
		t.Errorf("the agent was not told the removal waits: %s", r)
	}
	h.tap(chat, user, set.ID, "✓ 1")
	if got := h.task("T7").Labels; !slices.Equal(got, []string{"backend"}) {
		t.Errorf("after ✓ 1 labels = %q, want backend", got)
	}
}

// Words that ask for the removal let the whole set apply at once.
func TestLabelWordsThatReplace(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T7", Title: "Fix login bug", Labels: []string{"bug"}})
	h.clf = answer("explicit:replace bug with backend")
	h.script(openaitest.Calls(call("l", "assign_task_labels", map[string]any{"task_id": "T7", "labels": []string{"backend"}})), openaitest.Text("Relabelled."))
	h.start()
	h.tg.SendText(chat, user, "replace bug with backend")
	msgs := h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	if got := h.task("T7").Labels; !slices.Equal(got, []string{"backend"}) {
		t.Errorf("labels = %q, want backend", got)
	}
	if n := len(h.tg.BotMessages(chat)); n != 2 || !strings.Contains(msgs[0].Text, "Labels: bug → backend (removes bug)") {
		t.Errorf("%d messages; receipt:\n%s", n, msgs[0].Text)
	}
}

// A receipt never claims more than was done: "every weekday at 8" set as
// one reminder is not "✅ Done". It asks, and the model is told why, so
// that it can say the reminder does not repeat.
func TestRepeatWordsDoNotCoverOneReminder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T1", Title: "Check the mail"})
	h.clf = answer("explicit:remind me every weekday at 8 to check the mail")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T08:00"})), openaitest.Text("I'll remind you at 8."))
	h.start()
	h.tg.SendText(chat, user, "remind me every weekday at 8 to check the mail")
	set := h.changeSetMessage(chat, 2)
	if first := h.tg.BotMessages(chat)[0]; !strings.Contains(set.Text, "Reminder") || strings.HasPrefix(first.Text, "✅") || hasButton(first, "↩️ Undo") {
		t.Errorf("messages: %q", texts(h.tg.BotMessages(chat)))
	}
	if task := h.task("T1"); task.RemindAt != nil {
		t.Errorf("a one-off reminder was set at once for a repeat: %v", task.RemindAt)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["r"]; !strings.Contains(r, "repeat") {
		t.Errorf("the model was not told the reminder does not repeat: %s", r)
	}
}
