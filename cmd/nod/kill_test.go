package main

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/nod once per test run.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nodbin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "nod")
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return binPath
}

// process is nod running as its own process.
type process struct {
	cmd  *exec.Cmd
	logs *fixtures.LogBuffer
}

func (h *harness) startProcess(t *testing.T) *process {
	t.Helper()
	p := &process{cmd: exec.Command(binary(t)), logs: &fixtures.LogBuffer{}}
	p.cmd.Env = []string{"HOME=" + t.TempDir()}
	for k, v := range h.env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stderr = p.logs
	polls := len(h.tg.Calls("getUpdates"))
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	h.tg.Wait("the process to poll", func() bool { return len(h.tg.Calls("getUpdates")) > polls })
	h.proc = p
	return p
}

func (p *process) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

// SIGKILL in the middle of a turn and of a confirm-all: after a restart
// no item is applied twice, nothing is half written, no update is handled
// twice, and a pending set is still actionable.
func TestKilledAndRestarted(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(
		openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
			call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90}),
			call("c", "add_multiple_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]string{{"title": "Load test"}}})),
		openaitest.Text("Three ideas."),
		openaitest.Calls(call("d", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-04-01"})),
		openaitest.Text("And a date."),
		openaitest.Response{Text: "never delivered", Delay: time.Minute}, // the turn that is killed
		openaitest.Text("Back again."),
	)
	p := h.startProcess(t)
	h.tg.SendText(chat, user, "tidy up")
	set := h.changeSetMessage(chat, 2)
	h.tg.SendText(chat, user, "and the date")
	other := h.changeSetMessage(chat, 4)

	// Kill during confirm-all: the edit that follows the writes hangs.
	release := h.holdEdits()
	h.tg.Tap(chat, user, set.ID, "✓ All")
	h.tg.Wait("confirm-all to write", func() bool { return h.count(nod.OutcomeConfirmed) == 3 })
	p.kill()

	// Kill during a turn: the model never answers in time.
	close(release)
	p = h.startProcess(t)
	h.tg.SendText(chat, user, "a question")
	h.tg.Wait("the killed turn's model request", func() bool { return len(h.llm.RequestsFor(agentM)) == 5 })
	p.kill()

	p = h.startProcess(t)
	// The confirm-all's message, whose edit the kill cut, is brought up to
	// date at once on SQLite (on PostgreSQL once the dead process's time is
	// up: TestOwedTakenOverOnPostgres).
	if !storage.IsPostgres(h.dsn) {
		h.tg.WaitMessage(chat, set.ID, "the cut edit to be delivered", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied 3 of 3") })
	}
	if n := h.count(nod.OutcomeConfirmed); n != 3 {
		t.Errorf("%d confirmations after the restarts, want 3", n)
	}
	task := h.task("T1")
	if task.Priority != nod.P1 || *task.EstimateMinutes != 90 || len(task.Checklist) != 4 {
		t.Errorf("T1 = %s, %d, %d items", task.Priority, *task.EstimateMinutes, len(task.Checklist))
	}
	// The killed turn keeps the person's words, and nothing the model
	// never delivered.
	hist, _ := h.db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 100})
	kept := false
	for _, m := range hist {
		kept = kept || m.Content == "a question"
		if m.Content == "never delivered" {
			t.Errorf("the killed turn left %q in the history", m.Content)
		}
	}
	if !kept {
		t.Errorf("the killed turn lost the person's message")
	}
	// The pending set still works, and the next message is answered.
	if ans := h.tap(chat, user, other.ID, "✓ 1"); !strings.Contains(ans, "Applied") || h.task("T1").DueDate != "2026-04-01" {
		t.Errorf("pending set after restarts: %q", ans)
	}
	h.tg.SendText(chat, user, "hello?")
	h.tg.Wait("a reply after the restarts", func() bool {
		for _, m := range h.tg.BotMessages(chat) {
			if m.Text == "Back again." {
				return true
			}
		}
		return false
	})
	if n := len(h.llm.RequestsFor(agentM)); n != 6 {
		t.Errorf("%d agent requests: an update was handled twice", n)
	}
	if strings.Contains(p.logs.String(), telegramtest.Token) {
		t.Errorf("the token is in the logs")
	}
}

// SIGKILL after an explicit change was applied and before its receipt
// reached Telegram (which hangs): the next start sends the receipt, once,
// with a line saying why it comes late, and its Undo works.
func TestReceiptAfterKill(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "SQLite hands a stopped process's messages over at once; TestOwedTakenOverOnPostgres covers PostgreSQL")
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
		openaitest.Response{Text: "never delivered", Delay: time.Minute})
	hang := make(chan struct{})
	h.tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		if method != "sendMessage" {
			return nil
		}
		select {
		case <-hang:
			return nil // the restarted process's
		default:
		}
		select {
		case <-hang:
		case <-time.After(30 * time.Second):
		}
		// Never applied: the fake may not have noticed the killed client
		// yet, and this is the send that never arrived.
		return &telegramtest.Error{Code: 502, Description: "Bad Gateway"}
	})
	p := h.startProcess(t)
	h.tg.SendText(chat, user, "make the login bug P1")
	h.tg.Wait("the change to be applied", func() bool { return slices.Contains(outcomes(h.audit(chat)), "set_task_priority:executed") })
	h.tg.Wait("the receipt to be tried", func() bool { return len(h.tg.Calls("sendMessage")) > 0 })
	h.tg.Wait("the model to be asked again", func() bool { return len(h.llm.RequestsFor(agentM)) == 2 })
	p.kill()
	close(hang)
	if n := len(h.tg.BotMessages(chat)); n != 0 {
		t.Fatalf("%d messages before the restart", n)
	}

	h.startProcess(t)
	var late telegramtest.Message
	h.tg.Wait("the late receipt", func() bool {
		for _, m := range h.tg.BotMessages(chat) {
			if strings.Contains(m.Text, "I stopped before I could tell you") {
				late = m
				return true
			}
		}
		return false
	})
	if !strings.Contains(late.Text, "I stopped before I could tell you") || !strings.Contains(late.Text, "Priority: P3 → P1") || !hasButton(late, "↩️ Undo") {
		t.Errorf("late receipt = %q %v", late.Text, buttonTexts(late))
	}
	receipts := 0
	for _, m := range h.tg.BotMessages(chat) {
		if strings.Contains(m.Text, "Priority: P3 → P1") {
			receipts++
		}
	}
	if receipts != 1 {
		t.Errorf("the change was reported %d times", receipts)
	}
	if ans := h.tg.WaitAnswer(h.tg.Tap(chat, user, late.ID, "↩️ Undo")); ans != "Undone." || h.task("T1").Priority != nod.P3 {
		t.Errorf("Undo on the late receipt: %q, priority %s", ans, h.task("T1").Priority)
	}
	h.tg.WaitBotMessages(chat, 3) // the undo's report, after the two late lines
}

// SIGKILL after a turn stored its change set and before the set's message
// went out: the next start shows the set, once, and it can be decided.
func TestChangeSetAfterKill(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "SQLite hands a stopped process's messages over at once")
	h := newHarness(t)
	h.seedT1()
	h.raiseT1()
	hang := make(chan struct{})
	h.tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		if method == "sendMessage" {
			select {
			case <-hang:
			case <-time.After(30 * time.Second):
			}
		}
		return nil
	})
	p := h.startProcess(t)
	h.tg.SendText(chat, user, "raise the login bug")
	h.tg.Wait("the turn to store its set", func() bool { return slices.Contains(outcomes(h.audit(chat)), "set_task_priority:queued") })
	h.tg.Wait("the first message to be tried", func() bool { return len(h.tg.Calls("sendMessage")) > 0 })
	p.kill()
	close(hang)

	h.startProcess(t)
	// The agent's text, whose send the kill cut, may or may not have
	// reached the chat; the set's message is sent by the new process.
	set := h.withButton(chat, "✓ 1")
	if ans := h.tg.WaitAnswer(h.tg.Tap(chat, user, set.ID, "✓ 1")); ans != "Applied item 1." || h.task("T1").Priority != nod.P1 {
		t.Errorf("✓ 1 on the late set: %q, priority %s", ans, h.task("T1").Priority)
	}
	shown := 0
	for _, m := range h.tg.BotMessages(chat) {
		if strings.Contains(m.Text, "Priority: P3 → P1") {
			shown++
		}
	}
	if shown != 1 {
		t.Errorf("the set was shown %d times", shown)
	}
}

// SIGKILL after a tap's decision committed (with its update's mark and
// the buttons its edit adds) and while its edit hangs, before the edit is
// marked delivered: the next start edits the message again (an edit shows
// the set as it is, so one that did land is merely repeated), the
// redelivered press is neither applied nor answered again, and the edit's
// Undo works.
func TestTapKilledBeforeItsEditWasMarked(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "SQLite hands a stopped process's messages over at once")
	h := newHarness(t)
	h.seedT1()
	h.raiseT1()
	p := h.startProcess(t)
	h.tg.SendText(chat, user, "raise the login bug")
	set := h.changeSetMessage(chat, 2)
	release := h.holdEdits()
	if ans := h.tg.WaitAnswer(h.tg.Tap(chat, user, set.ID, "✓ 1")); ans != "Applied item 1." {
		t.Errorf("✓ 1: %q", ans)
	}
	press := h.tg.Wire().LastUpdateID()
	h.tg.Wait("the edit to be tried", func() bool { return len(h.tg.Calls("editMessageText")) > 0 })
	p.kill()
	close(release)

	p = h.startProcess(t)
	h.tg.WaitMessage(chat, set.ID, "the edit to be delivered again", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 1") })
	// Redelivered once the new process polls: the killed one's poll may
	// still be open on the fake's side.
	h.tg.Wire().Redeliver(press)
	h.tg.Wait("the redelivered press to be dropped", func() bool { return strings.Contains(p.logs.String(), "duplicate update ignored") })
	if n := len(h.tg.Calls("answerCallbackQuery")); n != 1 {
		t.Errorf("the press was answered %d times", n)
	}
	if n := h.count(nod.OutcomeConfirmed); n != 1 || h.task("T1").Priority != nod.P1 {
		t.Errorf("%d confirmations, priority %s; want 1, P1", n, h.task("T1").Priority)
	}
	if ans := h.tg.WaitAnswer(h.tg.Tap(chat, user, set.ID, "↩️ Undo 1")); !strings.Contains(ans, "Undone") || h.task("T1").Priority != nod.P3 {
		t.Errorf("Undo 1 after the restart: %q, priority %s", ans, h.task("T1").Priority)
	}
}

// SIGKILL in the middle of a turn: the person's message stays in the
// conversation, nod says after the restart that it stopped before
// answering (the receipt of what it had done went out before the kill),
// and the next request holds both the cut-off message and what nod said.
func TestKilledTurnStaysInTheConversation(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "SQLite hands a stopped process's owed messages over at once; on PostgreSQL after the dead process's time (TestOwedTakenOverOnPostgres)")
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
		openaitest.Response{Text: "never delivered", Delay: time.Minute},
		openaitest.Text("Welcome back."))
	p := h.startProcess(t)
	h.tg.SendText(chat, user, "make the login bug P1 and tell me what else matters")
	h.tg.Wait("the model to be asked again", func() bool { return len(h.llm.RequestsFor(agentM)) == 2 })
	h.typingAfter("Priority: P3 → P1") // the receipt is out, and marked delivered
	p.kill()

	h.startProcess(t)
	said := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(said[0].Text, "Priority: P3 → P1") {
		t.Errorf("receipt = %q", said[0].Text)
	}
	if !strings.Contains(said[1].Text, "I stopped before I could answer “make the login bug P1 and tell me what else matters”") {
		t.Errorf("after the restart nod said %q", said[1].Text)
	}
	h.tg.SendText(chat, user, "so?")
	h.tg.Wait("the answer", func() bool { return len(h.tg.BotMessages(chat)) == 3 })
	req := h.llm.RequestsFor(agentM)[2]
	var users, notes []string
	for _, m := range req.Messages[1:] {
		switch m.Role {
		case "user":
			users = append(users, m.Content)
		case "system":
			notes = append(notes, m.Content)
		}
	}
	if want := []string{"make the login bug P1 and tell me what else matters", "so?"}; !slices.Equal(users, want) {
		t.Errorf("the person's messages in the next request = %q, want %q", users, want)
	}
	if n := strings.Join(notes, "\n"); !strings.Contains(n, "nod stopped (it was restarted) before it answered the user's message “make the login bug P1 and tell me what else matters”") {
		t.Errorf("the next request does not say what nod told the person:\n%s", n)
	}
}

// holdEdits makes the fake Telegram hold every editMessageText until the
// returned channel is closed (or 30 s pass), so that a test can kill nod
// while an edit is in flight.
func (h *harness) holdEdits() chan struct{} {
	release := make(chan struct{})
	h.tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		if method == "editMessageText" {
			select {
			case <-release:
			case <-time.After(30 * time.Second):
			}
		}
		return nil
	})
	return release
}
