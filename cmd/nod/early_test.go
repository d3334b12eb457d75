package main

import (
	"database/sql"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage"
)

// heldModel answers the agent's first request with first, and each later
// one with later once release is closed: the model's closing call is not
// answered before the test has seen what must come before it. Classifier
// requests go to h.clf. The step's deadline is raised past the test's
// waits: a closing call cut by it would end the turn, and the turn's end
// sends what it owes anyway. Call it before nod starts.
func (h *harness) heldModel(release <-chan struct{}, first openaitest.Response, later ...openaitest.Response) {
	h.env["NOD_STEP_TIMEOUT"] = "2m"
	steps := openaitest.Script(agentM, func(r openaitest.Request) openaitest.Response { return h.clf(r) }, append([]openaitest.Response{first}, later...)...)
	var asked atomic.Int32
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Model == agentM {
			if asked.Add(1) > 1 {
				select {
				case <-release:
				case <-r.Context.Done():
				case <-time.After(2 * telegramtest.WaitTimeout): // the test has failed already
				}
			}
		}
		return steps(r)
	})
}

// receiptOf waits for the bot's message that reports change (a diff
// line) with an Undo button.
func (h *harness) receiptOf(change string) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.tg.Wait("the receipt of "+change, func() bool {
		for _, m := range h.tg.BotMessages(chat) {
			if strings.Contains(m.Text, change) && hasButton(m, "↩️ Undo") {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// reported counts the bot's messages in chat that contain change.
func (h *harness) reported(change string) int {
	n := 0
	for _, m := range h.tg.BotMessages(chat) {
		if strings.Contains(m.Text, change) {
			n++
		}
	}
	return n
}

// typingAfter waits for a "typing…" action sent after the message that
// reports change: the model writes on, and a message ends Telegram's
// "typing…".
func (h *harness) typingAfter(change string) {
	h.t.Helper()
	h.tg.Wait("typing… after the receipt", func() bool {
		sent := false
		for _, c := range h.tg.Calls("") {
			switch {
			case c.Method == "sendMessage" && strings.Contains(c.Params.Get("text"), change):
				sent = true
			case c.Method == "sendChatAction" && sent:
				return true
			}
		}
		return false
	})
}

// An explicit change's receipt goes out once the change is applied,
// while the model writes its closing words: the closing call is answered
// only after the receipt (with its Undo) has reached Telegram, and
// "typing…" shows again after it. The reply follows; the receipt is sent
// once.
func TestReceiptBeforeClosingCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	release := make(chan struct{})
	h.heldModel(release, openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
		openaitest.Text("Raised it to P1."))
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	receipt := h.receiptOf("Priority: P3 → P1")
	h.typingAfter("Priority: P3 → P1")
	close(release)
	msgs := h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	if msgs[0].ID != receipt.ID || msgs[1].Text != "Raised it to P1." {
		t.Errorf("messages %q, %q: want the receipt, then the reply", msgs[0].Text, msgs[1].Text)
	}
	if n := h.reported("Priority: P3 → P1"); n != 1 || len(h.tg.BotMessages(chat)) != 2 {
		t.Errorf("the receipt was sent %d times, %d messages in all", n, len(h.tg.BotMessages(chat)))
	}
	if ans := h.tg.WaitAnswer(h.tg.Tap(chat, user, receipt.ID, "↩️ Undo")); ans != "Undone." || h.task("T1").Priority != nod.P3 {
		t.Errorf("Undo on the early receipt: %q, priority %s", ans, h.task("T1").Priority)
	}
}

// A step with an explicit change and a proposal: the receipt goes out
// before the closing call is answered; the change set keeps its place
// after the reply (docs/design.md §7: receipts, the agent's final text,
// then the change-set message; the reply may say "below").
func TestSetStaysAfterTheReply(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:raise it to P1", "needs")
	release := make(chan struct{})
	h.heldModel(release, openaitest.Calls(
		call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
		call("b", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-20"}),
	), openaitest.Text("Raised it; the date change is below."))
	h.start()
	h.tg.SendText(chat, user, "Fix login bug: raise it to P1")
	receipt := h.receiptOf("Priority: P3 → P1")
	close(release)
	msgs := h.tg.WaitBotMessages(chat, 3)
	if msgs[0].ID != receipt.ID || msgs[1].Text != "Raised it; the date change is below." || !hasButton(msgs[2], "✓ 1") {
		t.Errorf("order: %q, %q, %q", msgs[0].Text, msgs[1].Text, msgs[2].Text)
	}
	if !strings.Contains(msgs[2].Text, "Due: 15 Mar 2026 → 20 Mar 2026") || strings.Contains(msgs[2].Text, "Priority") {
		t.Errorf("set = %q", msgs[2].Text)
	}
}

// The model fails on its closing call, after an explicit change was
// applied: the receipt, sent before that call was answered, is not sent
// again; the person is told the change above stands; nothing is owed.
func TestReceiptStandsWhenClosingCallFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	release := make(chan struct{})
	fail := openaitest.Response{Status: 500}
	h.heldModel(release, openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), fail, fail, fail)
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	receipt := h.receiptOf("Priority: P3 → P1")
	close(release)
	msgs := h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	want := "I couldn't reach the language model just now, so I stopped: the change above was made; nothing else was changed."
	if msgs[0].ID != receipt.ID || !strings.Contains(msgs[1].Text, want) {
		t.Errorf("messages %q, %q; want the receipt, then %q", msgs[0].Text, msgs[1].Text, want)
	}
	if n := h.reported("Priority: P3 → P1"); n != 1 || len(h.tg.BotMessages(chat)) != 2 {
		t.Errorf("the receipt was sent %d times, %d messages in all", n, len(h.tg.BotMessages(chat)))
	}
	if n := h.owedReceipts(); n != 0 {
		t.Errorf("%d receipts still owed: a restart would send them again", n)
	}
}

// SIGKILL while the model writes its closing words, after the receipt
// went out: the receipt is never sent again, on either database; on
// SQLite the restart says at once that nod stopped before answering.
func TestKilledAfterEarlyReceipt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
		openaitest.Response{Text: "never delivered", Delay: time.Minute},
		openaitest.Text("Here again."))
	p := h.startProcess(t)
	h.tg.SendText(chat, user, "make the login bug P1")
	h.receiptOf("Priority: P3 → P1")
	h.typingAfter("Priority: P3 → P1") // sent once the receipt was marked delivered
	h.tg.Wait("the closing call", func() bool { return len(h.llm.RequestsFor(agentM)) == 2 })
	p.kill()
	if n := h.owedReceipts(); n != 0 {
		t.Fatalf("%d receipts owed after the kill: the restart would send them again", n)
	}

	h.startProcess(t)
	if !storage.IsPostgres(h.dsn) {
		// PostgreSQL hands a dead process's messages over only once its
		// time is up (TestOwedTakenOverOnPostgres).
		h.tg.Wait("the restart's word", func() bool { return h.reported("I stopped before I could answer") == 1 })
	}
	h.tg.SendText(chat, user, "so?")
	h.tg.Wait("the next answer", func() bool { return h.reported("Here again.") == 1 })
	if n := h.reported("Priority: P3 → P1"); n != 1 {
		t.Errorf("the receipt was sent %d times", n)
	}
}

// owedReceipts counts the chat's receipts the outbox still owes: what a
// restart, or another replica, would send.
func (h *harness) owedReceipts() int {
	h.t.Helper()
	driver := "sqlite"
	if storage.IsPostgres(h.dsn) {
		driver = "pgx"
	}
	raw, err := sql.Open(driver, h.dsn)
	if err != nil {
		h.t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRowContext(h.t.Context(), `SELECT COUNT(*) FROM outbox WHERE chat_id = $1 AND kind = $2 AND delivered_at IS NULL`, chat, string(nod.OwedReceipt)).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// Telegram refuses the early receipt: it goes out again with the reply,
// first, once, and nothing stays owed.
func TestEarlyReceiptRefusedGoesWithTheReply(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	release := make(chan struct{})
	h.heldModel(release, openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
		openaitest.Text("Raised it to P1."))
	var refused atomic.Bool
	h.tg.Wire().SetFault(func(method string, p url.Values) *telegramtest.Error {
		if method == "sendMessage" && strings.Contains(p.Get("text"), "Priority: P3 → P1") && refused.CompareAndSwap(false, true) {
			return &telegramtest.Error{Code: 400, Description: "Bad Request: not now"}
		}
		return nil
	})
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	h.tg.Wait("the early receipt to be refused", refused.Load)
	close(release)
	msgs := h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	if !strings.Contains(msgs[0].Text, "Priority: P3 → P1") || !hasButton(msgs[0], "↩️ Undo") || msgs[1].Text != "Raised it to P1." {
		t.Errorf("messages %q, %q: want the receipt, then the reply", msgs[0].Text, msgs[1].Text)
	}
	if n := len(h.tg.BotMessages(chat)); n != 2 || h.owedReceipts() != 0 {
		t.Errorf("%d messages, %d receipts owed", n, h.owedReceipts())
	}
}
