package main

import (
	"bytes"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// A button press is never queued behind the turn that is running in its
// chat, and a chat's messages are handled in order.
func TestTapDuringSlowTurnAndOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	release, waiting := make(chan struct{}), make(chan struct{})
	slow := sync.OnceFunc(func() { close(waiting) })
	var held atomic.Bool
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		switch {
		case r.LastUser() == "raise the login bug":
			if len(r.ToolResults()) == 0 {
				return openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}))
			}
			return openaitest.Text("Raise it?")
		case slices.Contains(userLines(r), "slow one") && held.CompareAndSwap(false, true):
			slow()
			<-release
			return openaitest.Text("first reply")
		}
		return openaitest.Text("reply to both")
	})
	h.start()
	h.tg.SendText(chat, user, "raise the login bug")
	set := h.changeSetMessage(chat, 2)
	h.tg.SendText(chat, user, "slow one")
	h.tg.SendText(chat, user, "fast one")
	<-waiting // the slow turn waits on the model
	ans := h.tap(chat, user, set.ID, "✓ 1")
	if !strings.Contains(ans, "Applied") {
		t.Errorf("tap during a turn answered %q", ans)
	}
	if n := len(h.tg.BotMessages(chat)); n != 2 {
		t.Errorf("a later message was answered before the slow one: %d messages", n)
	}
	// The message sent right behind joins the turn (before its first
	// step, or after it): the model sees both, in order, and one reply
	// answers them.
	h.tg.Wait("the fast one to join the slow turn", func() bool { v, _ := h.metric("nod_messages_joined_total"); return v == 1 })
	close(release)
	msgs := h.tg.WaitBotMessages(chat, 3)
	if msgs[2].Text != "first reply" && msgs[2].Text != "first reply\n\nreply to both" {
		t.Errorf("reply = %q", msgs[2].Text)
	}
	reqs := h.llm.RequestsFor(agentM)
	if got := userLines(reqs[len(reqs)-1]); !slices.Equal(got[len(got)-2:], []string{"slow one", "fast one"}) {
		t.Errorf("the model saw %q", got)
	}
	if len(h.tg.Calls("sendChatAction")) < 2 {
		t.Errorf("no typing action per turn")
	}
	// The menu in English for everyone, then in German for German apps.
	cmds := h.tg.Calls("setMyCommands")
	if len(cmds) != 2 || !strings.Contains(cmds[0].Params.Get("commands"), `"Your tasks"`) || cmds[0].Params.Has("language_code") ||
		!strings.Contains(cmds[1].Params.Get("commands"), `"Deine Aufgaben"`) || cmds[1].Params.Get("language_code") != "de" {
		t.Errorf("setMyCommands calls = %v", cmds)
	}
}

// Non-text updates, empty text and oversized text get a clear answer and
// never reach the model. (Edits are words: telegram_test.go.)
func TestNonTextAndOversizedMessages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start()
	h.tg.Wire().SendUpdate(map[string]any{"message": map[string]any{"message_id": 90, "date": time.Now().Unix(),
		"chat": map[string]any{"id": chat, "type": "private"}, "from": map[string]any{"id": user, "first_name": "U"},
		"sticker": map[string]any{"file_id": "x", "file_unique_id": "y", "type": "regular", "width": 1, "height": 1}}})
	h.tg.Wire().SendUpdate(map[string]any{"channel_post": map[string]any{"message_id": 92, "date": time.Now().Unix(),
		"chat": map[string]any{"id": -100, "type": "channel"}, "text": "post"}})
	h.tg.SendText(chat, user, strings.Repeat("x", 5000))
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[0].Text, "only read text") || !strings.Contains(msgs[1].Text, "too long") { // in update order
		t.Errorf("answers = %q / %q", msgs[0].Text, msgs[1].Text)
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("%d model requests, want 0", n)
	}
}

// The loop is bounded; an endless tool-call loop ends the turn with a note.
func TestStepBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_MAX_STEPS"] = "3"
	h.seedT1()
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		return openaitest.Calls(call("c"+string(rune('a'+len(r.Messages))), "list_tasks", map[string]any{}))
	})
	h.start()
	h.tg.SendText(chat, user, "loop forever")
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[1].Text, "stopped after 3 steps") {
		t.Errorf("messages = %q", []string{msgs[0].Text, msgs[1].Text})
	}
	if n := len(h.llm.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
}

// An empty reply still gives the person a line; delete_task never runs.
func TestEmptyReplyAndDeleteRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(
		openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})),
		openaitest.Text(""),
	)
	h.start()
	h.tg.SendText(chat, user, "delete the task Fix login bug")
	msgs := h.tg.WaitBotMessages(chat, 1)
	if strings.TrimSpace(msgs[0].Text) == "" {
		t.Errorf("empty reply sent")
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["d"]; !strings.Contains(r, "typed confirmation") {
		t.Errorf("delete_task result = %q", r)
	}
	if _, err := h.db.Tasks().Task(t.Context(), chat, "T1"); err != nil {
		t.Errorf("T1 was deleted: %v", err)
	}
}

// /start, /help, /tasks, a task card and its checklist toggle, /pending, /undo.
func TestCommandsAndTaskCard(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clock.Advance(25 * time.Hour) // the seeding itself is no longer undoable
	h.start()
	for i, c := range []string{"/start", "/help", "/pending", "/undo"} {
		h.tg.SendText(chat, user, c)
		h.tg.WaitBotMessages(chat, i+1)
	}
	msgs := h.tg.BotMessages(chat)
	for i, want := range []string{"I'm nod", "Commands", "Nothing is waiting for your answer", "nothing to undo"} {
		if !strings.Contains(msgs[i].Text, want) {
			t.Errorf("reply %d = %q, want %q in it", i, msgs[i].Text, want)
		}
	}
	h.tg.SendText(chat, user, "/tasks@nod_test_bot")
	list := h.tg.WaitBotMessages(chat, 5)[4]
	h.tap(chat, user, list.ID, "🔄 Fix login bug")
	card := h.tg.WaitBotMessages(chat, 6)[5]
	h.clock.Advance(time.Hour)
	if ans := h.tap(chat, user, card.ID, "⬜ Write tests"); !strings.Contains(ans, "Ticked") {
		t.Errorf("toggle answered %q", ans)
	}
	card = h.tg.WaitMessage(chat, card.ID, "the card to show the tick", func(m telegramtest.Message) bool {
		_, ok := m.Button("☑️ Write tests")
		return ok
	})
	t1 := h.task("T1")
	c1, _ := t1.Item("c1")
	if !c1.Checked || c1.CheckedBy != nod.ActorUser || c1.CheckedAt == nil || !c1.CheckedAt.Equal(h.clock.Now()) {
		t.Errorf("c1 after the tap = %+v", c1)
	}
	// A tap on an agent-checked item stamps the user.
	h.tap(chat, user, card.ID, "☑️ Update docs")
	t1 = h.task("T1")
	c2, _ := t1.Item("c2")
	if c2.Checked || c2.CheckedBy != nod.ActorUser {
		t.Errorf("c2 after the tap = %+v", c2)
	}
	h.tg.SendText(chat, user, "/undo")
	h.tg.WaitBotMessages(chat, 7)
	t1 = h.task("T1")
	if c2, _ := t1.Item("c2"); !c2.Checked || c2.CheckedBy != nod.ActorAgent {
		t.Errorf("/undo did not restore c2: %+v", c2)
	}
}

// The binary, built and run as the README says, serves a person end to
// end against the fakes.
func TestBinary(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bin := binary(t)
	// Built in a git checkout, the version names the commit (the go
	// command stamps it only where .git is a directory, not a worktree's
	// file).
	want := "nod dev\n"
	if fi, err := os.Stat("../../.git"); err == nil && fi.IsDir() {
		if rev, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			want = string(rev[:12])
		}
	}
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(out), "nod ") || !strings.Contains(string(out), want) {
		t.Errorf("nod version = %q, %v; want it to contain %q", out, err, want)
	}
	for _, args := range [][]string{{"-h"}, {"help"}, {"audit", "verify", "-h"}} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil || !strings.Contains(string(out), "-db path") {
			t.Errorf("nod %v: %v\n%s", args, err, out)
		}
	}
	// A refused token: one line that says what to fix, exit 1, no file.
	refusing := telegramtest.New(t)
	refusing.Wire().SetFault(func(string, url.Values) *telegramtest.Error {
		return &telegramtest.Error{Code: 401, Description: "Unauthorized"}
	})
	dir := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "TELEGRAM_BOT_TOKEN=" + telegramtest.Token, "TELEGRAM_API_URL=" + refusing.URL, "NOD_ALLOWED_USERS=42"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 1 || strings.Count(stderr.String(), "\n") != 1 ||
		!strings.HasPrefix(stderr.String(), "nod: the bot token was refused by Telegram") {
		t.Errorf("a refused token: %v, stderr:\n%s", err, stderr.String())
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("a failed start left %v behind", files)
	}

	h.script(
		openaitest.Calls(call("a", "create_task", map[string]any{"title": "Buy milk"})),
		openaitest.Text("Shall I add it?"),
	)
	cmd = exec.Command(bin)
	cmd.Env = []string{"HOME=" + t.TempDir()}
	for k, v := range h.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.tg.SendText(chat, user, "add a task Buy milk")
	set := h.changeSetMessage(chat, 2)
	h.tg.WaitAnswer(h.tg.Tap(chat, user, set.ID, "✓ 1")) // the process's logs are its own: no settle
	h.tg.WaitMessage(chat, set.ID, "applied", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied 1 of 1") })
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("nod exited with %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "listening addr=127.0.0.1:") {
		t.Errorf("no listening line in the logs:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), telegramtest.Token) || strings.Contains(logs.String(), "sk-test-secret-key") {
		t.Errorf("a secret is in the logs")
	}
	if tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(tasks) != 1 {
		t.Errorf("%d tasks after the binary's run", len(tasks))
	}
}

func TestMigrateAndVersion(t *testing.T) {
	t.Parallel()
	dsn := filepath.Join(t.TempDir(), "m.db")
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"migrate", "-db", dsn}, func(string) string { return "" }, &out, &errb); err != nil {
		t.Fatalf("migrate: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "migrated") {
		t.Errorf("migrate logged %q", errb.String())
	}
	if err := run(t.Context(), []string{"version"}, func(string) string { return "" }, &out, &errb); err != nil || !strings.HasPrefix(out.String(), "nod ") {
		t.Errorf("version: %q, %v", out.String(), err)
	}
	if err := run(t.Context(), []string{"serve"}, func(string) string { return "" }, &out, &errb); err == nil || !strings.Contains(err.Error(), "TELEGRAM_BOT_TOKEN") {
		t.Errorf("serve without a token: %v", err)
	}
	if err := run(t.Context(), []string{"frobnicate"}, func(string) string { return "" }, &out, &errb); err == nil {
		t.Errorf("unknown command accepted")
	}
}

// The operator's view: /healthz, /readyz and /metrics on NOD_HTTP_ADDR.
func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("needs")
	h.raiseT1()
	h.start()
	h.tg.SendText(chat, user, "raise it")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✓ 1")
	for _, p := range []string{"/healthz", "/readyz"} {
		if code, _ := h.get(p); code != 200 {
			t.Errorf("%s answered %d", p, code)
		}
	}
	m := h.metrics()
	for _, want := range []string{
		`nod_turns_total{outcome="answered"} 1`, `nod_agent_llm_requests_total{outcome="ok"} 2`,
		`nod_classifier_verdicts_total{default="",level="needs_confirmation"} 1`, `nod_changes_total{route="queued"} 1`,
		`nod_decisions_total{verdict="confirmed"} 1`, `nod_updates_total{kind="text"} 1`, `nod_updates_total{kind="callback"} 1`,
		"go_goroutines",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
