package main

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// createThenRemind scripts a model that creates "Check the build" in one
// step and sets its reminder in the next, as a real model did; its
// closing call waits for release. It returns the new task's id once the
// second step asked for it.
func (h *harness) createThenRemind(release <-chan struct{}) *atomic.Value {
	h.t.Helper()
	h.env["NOD_STEP_TIMEOUT"] = "2m"
	var id atomic.Value
	var asked atomic.Int32
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Model != agentM {
			return h.clf(r)
		}
		switch asked.Add(1) {
		case 1:
			return openaitest.Calls(call("c", "create_task", map[string]any{"title": "Check the build"}))
		case 2:
			var created struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal([]byte(r.ToolResults()["c"]), &created)
			id.Store(nod.TaskID(created.ID))
			return openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": created.ID, "remind_at": "2026-03-12T08:00"}))
		}
		select {
		case <-release:
		case <-r.Context.Done():
		case <-time.After(2 * telegramtest.WaitTimeout): // the test has failed already
		}
		return openaitest.Text("I made the task and will remind you at 8.")
	})
	return &id
}

// One request the model answers in two steps (create a task, then set
// its reminder) gets one receipt: the first step's receipt goes out at
// once and is edited, before the closing call is answered, to show both
// changes with one Undo, which takes both back in one transaction.
func TestOneReceiptForCreateThenReminder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = answer("explicit:remind me tomorrow at 8 to check the build")
	release := make(chan struct{})
	id := h.createThenRemind(release)
	h.start()
	h.tg.SendText(chat, user, "remind me tomorrow at 8 to check the build")
	receipt := h.receiptOf("Reminder: none →")
	// Still held: the closing call has not been answered.
	if n := len(h.tg.BotMessages(chat)); n != 1 {
		t.Errorf("%d messages before the closing words, want the one receipt", n)
	}
	for _, want := range []string{"✅ <b>Task added, with a reminder</b>", "Created task “Check the build”", "Reminder: none → 12 Mar 2026, 08:00", "because you said “remind me tomorrow at 8 to check the build”"} {
		if !strings.Contains(receipt.Text, want) {
			t.Errorf("the receipt lacks %q:\n%s", want, receipt.Text)
		}
	}
	if got := buttonTexts(receipt); !slices.Equal(got, []string{"↩️ Undo"}) {
		t.Errorf("receipt buttons = %v, want one Undo", got)
	}
	close(release)
	msgs := h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	if msgs[0].ID != receipt.ID || msgs[1].Text != "I made the task and will remind you at 8." || len(h.tg.BotMessages(chat)) != 2 {
		t.Errorf("messages %q, %q (%d in all): want the receipt, then the reply", msgs[0].Text, msgs[1].Text, len(h.tg.BotMessages(chat)))
	}
	if n := h.reported("Created task “Check the build”"); n != 1 {
		t.Errorf("the creation was reported in %d messages", n)
	}
	if n := h.owedReceipts(); n != 0 {
		t.Errorf("%d receipts still owed: a restart would send them again", n)
	}
	taskID, _ := id.Load().(nod.TaskID)
	if tk := h.task(taskID); tk.RemindAt == nil {
		t.Fatalf("the reminder was not set: %+v", tk)
	}
	if ans := h.tg.WaitAnswer(h.tg.Tap(chat, user, receipt.ID, "↩️ Undo")); ans != "Undone." {
		t.Errorf("Undo answered %q", ans)
	}
	h.settleMessages()
	// Like the receipt of one change, it says so and loses its Undo.
	undoneReceipt := h.tg.WaitMessage(chat, receipt.ID, "the receipt to say undone", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "undone") })
	if want := "➕ <s>Created “Check the build”</s>: undone.\n↩️ <s>Set reminder to 12 Mar 2026, 08:00</s> on “Check the build”: undone."; undoneReceipt.Text != want || len(buttonTexts(undoneReceipt)) != 0 {
		t.Errorf("the receipt after Undo = %q %v, want %q", undoneReceipt.Text, buttonTexts(undoneReceipt), want)
	}
	h.tg.Wait("one message saying what went back", func() bool { return h.reported("the task added is gone again") == 1 })
	if slices.ContainsFunc(h.liveTasks(), func(tk nod.Task) bool { return tk.ID == taskID }) {
		t.Errorf("after Undo the task %s is still on the list", taskID)
	}
	undone := 0
	for _, e := range h.audit(chat) {
		if e.Outcome == nod.OutcomeUndone {
			undone++
		}
	}
	if undone != 2 {
		t.Errorf("%d changes undone, want the creation and the reminder", undone)
	}
}

// Telegram refuses the edit of the early receipt: the reminder's change
// gets a receipt of its own, so that no change is left without its Undo,
// and nothing stays owed; the first receipt keeps its Undo.
func TestReceiptEditRefusedSendsAnother(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = answer("explicit:remind me tomorrow at 8 to check the build")
	release := make(chan struct{})
	h.createThenRemind(release)
	var refused atomic.Bool
	h.tg.Wire().SetFault(func(method string, p url.Values) *telegramtest.Error {
		if method == "editMessageText" && strings.Contains(p.Get("text"), "Reminder:") {
			refused.Store(true)
			return &telegramtest.Error{Code: 400, Description: "Bad Request: message to edit not found"}
		}
		return nil
	})
	h.start()
	h.tg.SendText(chat, user, "remind me tomorrow at 8 to check the build")
	second := h.receiptOf("Reminder: none →")
	close(release)
	msgs := h.tg.WaitBotMessages(chat, 3)
	h.settleMessages()
	if !refused.Load() {
		t.Fatal("the early receipt was never edited")
	}
	// Each header says what its receipt did: the first, alone, reads
	// as the task added, not as the request done.
	if !strings.HasPrefix(msgs[0].Text, "✅ <b>Task added</b>") || !strings.Contains(msgs[0].Text, "Created task “Check the build”") || !hasButton(msgs[0], "↩️ Undo") || strings.Contains(msgs[0].Text, "Reminder") {
		t.Errorf("first receipt %q: want the creation with its Undo", msgs[0].Text)
	}
	if msgs[1].ID != second.ID || !strings.HasPrefix(second.Text, "✅ <b>Reminder set</b>") || strings.Contains(second.Text, "Created task") || !hasButton(second, "↩️ Undo") {
		t.Errorf("second receipt %q: want the reminder with its Undo", second.Text)
	}
	if n := len(h.tg.BotMessages(chat)); n != 3 || h.owedReceipts() != 0 {
		t.Errorf("%d messages, %d receipts owed", n, h.owedReceipts())
	}
}

// The edited receipt counts as delivered: a restart after the turn sends
// neither change's receipt again.
func TestEditedReceiptNotSentAfterRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.clf = answer("explicit:remind me tomorrow at 8 to check the build")
	release := make(chan struct{})
	close(release)
	h.createThenRemind(release)
	h.start()
	h.tg.SendText(chat, user, "remind me tomorrow at 8 to check the build")
	h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	h.stop()
	h.start()
	h.sweeps(2) // they deliver what is owed
	h.settleMessages()
	if n := len(h.tg.BotMessages(chat)); n != 2 || h.owedReceipts() != 0 {
		t.Errorf("%d messages after the restart, %d receipts owed; want the one receipt and the reply", n, h.owedReceipts())
	}
}

// SIGKILL after the second step applied and before the early receipt's
// edit reached Telegram (which hangs): the next start sends the
// reminder's receipt as a message of its own, once, with its Undo; the
// creation keeps its receipt. Two correct receipts, none lost.
func TestReceiptEditCutByKill(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "SQLite hands a stopped process's messages over at once; TestOwedTakenOverOnPostgres covers PostgreSQL")
	h := newHarness(t)
	h.clf = answer("explicit:remind me tomorrow at 8 to check the build")
	release := make(chan struct{})
	defer close(release)
	h.createThenRemind(release)
	hang := make(chan struct{})
	var tried atomic.Bool
	h.tg.Wire().SetFault(func(method string, p url.Values) *telegramtest.Error {
		if method == "editMessageText" && strings.Contains(p.Get("text"), "Reminder:") {
			tried.Store(true)
			select {
			case <-hang:
			case <-time.After(30 * time.Second):
			}
			// Never applied: the fake may not have noticed the killed
			// client yet, and this edit is one that never arrived.
			return &telegramtest.Error{Code: 502, Description: "Bad Gateway"}
		}
		return nil
	})
	p := h.startProcess(t)
	h.tg.SendText(chat, user, "remind me tomorrow at 8 to check the build")
	h.tg.Wait("the reminder to be set", func() bool { return slices.Contains(outcomes(h.audit(chat)), "set_task_reminder:executed") })
	h.tg.Wait("the receipt's edit to be tried", tried.Load)
	// Whole before the kill: a request cut in half is no request.
	h.tg.Wait("the closing call to be asked", func() bool { return len(h.llm.RequestsFor(agentM)) == 3 })
	p.kill()
	close(hang)

	h.startProcess(t)
	late := h.receiptOf("Reminder: none →")
	first := h.receiptOf("Created task “Check the build”")
	if first.ID == late.ID || strings.Contains(first.Text, "Reminder") || strings.Contains(late.Text, "Created task") {
		t.Errorf("receipts %q and %q: want the creation's, then the reminder's", first.Text, late.Text)
	}
	if n := h.reported("Reminder: none →"); n != 1 {
		t.Errorf("the reminder was reported %d times", n)
	}
	if ans := h.tg.WaitAnswer(h.tg.Tap(chat, user, late.ID, "↩️ Undo")); ans != "Undone." {
		t.Errorf("Undo on the late receipt: %q", ans)
	}
	h.tg.Wait("no receipt owed", func() bool { return h.owedReceipts() == 0 })
}
