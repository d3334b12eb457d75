package main

import (
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// printerBurst sends three messages while the model holds the turn's
// first request: the model then creates the task with a priority and a
// due date, each asked for in a message of its own.
func (h *harness) printerBurst() {
	h.t.Helper()
	release := make(chan struct{})
	h.slowFirst(release, openaitest.Text("On it."),
		openaitest.Calls(call("c", "create_task", map[string]any{"title": "Call the printer", "priority": "P0", "due_date": "2026-03-13"})),
		openaitest.Text("Added."))
	h.start()
	h.tg.SendText(chat, user, "add a task to call the printer")
	h.tg.Wait("the first request", func() bool { return len(h.llm.RequestsFor(agentM)) == 1 })
	h.tg.SendText(chat, user, "oh and it's urgent")
	h.tg.SendText(chat, user, "due friday")
	h.tg.Wait("both to join the turn", func() bool { v, _ := h.metric("nod_messages_joined_total"); return v == 2 })
	close(release)
}

// printerTask returns the one task the burst created.
func (h *harness) printerTask() nod.Task {
	h.t.Helper()
	tasks, err := h.db.Tasks().ListTasks(h.t.Context(), chat, nod.TaskFilter{})
	if err != nil || len(tasks) != 1 {
		h.t.Fatalf("tasks = %+v, %v; want the printer task", tasks, err)
	}
	return tasks[0]
}

// docs/design.md §3.5: a burst's create_task sets a priority and a due
// date that other messages asked for. A classifier that quotes only the
// first message covers the task, not "urgent" or "due friday": the task
// is created at once, and its priority and due date ask.
func TestBurstFieldsWithoutWordsAsk(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = answer("explicit:add a task to call the printer")
	h.printerBurst()
	set := h.changeSetMessage(chat, 3)
	task := h.printerTask()
	if task.Title != "Call the printer" || task.Priority != nod.P2 || task.DueDate != "" {
		t.Errorf("created %+v; want the task without the unquoted priority and due date", task)
	}
	receipt := h.tg.BotMessages(chat)[0]
	if !strings.Contains(receipt.Text, "because you said “add a task to call the printer”") || strings.Contains(receipt.Text, "urgent") {
		t.Errorf("receipt:\n%s", receipt.Text)
	}
	for _, want := range []string{"Priority: P2 → P0", "Due: none → 13 Mar 2026"} {
		if !strings.Contains(set.Text, want) {
			t.Errorf("the change set lacks %q:\n%s", want, set.Text)
		}
	}
	if list := h.llm.RequestsFor(clfM)[0].LastUser(); !strings.Contains(list, `0. create_task: create a task titled "Call the printer" with priority: P0; due: 2026-03-13`) {
		t.Errorf("action list:\n%s", list)
	}
	h.tap(chat, user, set.ID, "✓ All")
	if task := h.task(task.ID); task.Priority != nod.P0 || task.DueDate != "2026-03-13" {
		t.Errorf("after ✓ All: %+v", task)
	}
}

// The same burst with a classifier that quotes each field's own words:
// everything applies at once, and the receipt quotes every message.
func TestBurstFieldsEachQuoted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = func(openaitest.Request) openaitest.Response {
		return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"add a task to call the printer",` +
			`"quotes":{"priority":"oh and it's urgent","due_date":"due friday"},"reasoning":"each field has its words"}]}`)
	}
	h.printerBurst()
	msgs := h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	task := h.printerTask()
	if task.Priority != nod.P0 || task.DueDate != "2026-03-13" {
		t.Errorf("created %+v; want P0, due 2026-03-13", task)
	}
	if n := len(h.tg.BotMessages(chat)); n != 2 {
		t.Errorf("%d messages, want the receipt and the reply", n)
	}
	receipt := msgs[0]
	if want := "because you said “add a task to call the printer”, “oh and it's urgent” and “due friday”"; !strings.Contains(receipt.Text, want) {
		t.Errorf("receipt lacks %q:\n%s", want, receipt.Text)
	}
	if !hasButton(receipt, "↩️ Undo") {
		t.Errorf("receipt buttons %v", buttonTexts(receipt))
	}
	// Undo of the priority takes back what "urgent" asked for, and nothing else.
	var undo string
	for _, b := range buttonTexts(receipt) {
		if strings.HasPrefix(b, "↩️ Undo 2") {
			undo = b
		}
	}
	if undo == "" {
		t.Fatalf("no Undo 2 on the receipt: %v", buttonTexts(receipt))
	}
	h.tap(chat, user, receipt.ID, undo)
	h.tg.WaitMessage(chat, receipt.ID, "the receipt to lose Undo 2", func(m telegramtest.Message) bool { return !hasButton(m, "↩️ Undo 2") })
	if task := h.task(task.ID); task.Priority != nod.P2 || task.DueDate != "2026-03-13" {
		t.Errorf("after Undo 2: %+v", task)
	}
}
