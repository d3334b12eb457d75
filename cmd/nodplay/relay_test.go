package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// waitFile waits until the file at path exists and cond holds for it.
func waitFile(t *testing.T, path string, cond func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(telegramtest.WaitTimeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && cond(string(b)) {
			return string(b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("timed out waiting for %s; it holds:\n%s", filepath.Base(path), b)
	return ""
}

func has(s string) func(string) bool { return func(x string) bool { return strings.Contains(x, s) } }

// writeReply answers a request as a player does: to a temporary name, then
// renamed, so that the relay reads it whole.
func writeReply(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := writeAtomic(filepath.Join(dir, name), []byte(body)); err != nil {
		t.Fatal(err)
	}
}

// command appends a line to the folder's commands.txt, as the person.
func command(t *testing.T, dir, line string) {
	t.Helper()
	appendLine(filepath.Join(dir, "commands.txt"), line)
}

// A relay conversation end to end: the person plays through commands.txt,
// a goroutine plays the model from the request files alone, and the chat
// file shows what the person would see.
func TestRelayConversation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tp := newPlayground(t, map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000"}, options{model: "relay", relayDir: dir})
	played := make(chan error, 1)
	go func() {
		defer close(played)
		// The model reads the task's id off the request, as a model would.
		req := waitFile(t, filepath.Join(dir, "0001-agent.request.txt"), has("raise the login bug"))
		id := regexp.MustCompile(`- (\S+) "Fix login bug"`).FindStringSubmatch(req)
		if id == nil {
			t.Errorf("the request does not list the task:\n%s", req)
			return
		}
		// A malformed reply is refused beside it, and waited for again.
		writeReply(t, dir, "0001-agent.reply.json", `{"content": "On it", "tool_cals": []}`)
		waitFile(t, filepath.Join(dir, "0001-agent.reply.error.txt"), has("tool_cals"))
		writeReply(t, dir, "0001-agent.reply.json", `{"content": "On it.", "tool_calls": [{"name": "set_task_priority", "arguments": {"task_id": "`+id[1]+`", "priority": "P1"}}]}`)
		waitFile(t, filepath.Join(dir, "0002-classifier.request.txt"), has("set_task_priority"))
		writeReply(t, dir, "0002-classifier.reply.json", `{"content": "{\"actions\":[{\"index\":0,\"level\":\"explicit\",\"quote\":\"raise the login bug to P1\",\"reasoning\":\"asked\"}]}"}`)
		waitFile(t, filepath.Join(dir, "0003-agent.request.txt"), has("=== tool · result of call_1_1 ==="))
		writeReply(t, dir, "0003-agent.reply.json", `{"content": "Raised it to P1."}`)
	}()

	command(t, dir, "say raise the login bug to P1")
	tp.waitView("the relay to wait", func(v view) bool { return strings.Contains(v.Waiting, "0001-agent.request.txt") })
	<-played
	chat := waitFile(t, filepath.Join(dir, "chat.txt"), has("Raised it to P1."))
	for _, want := range []string{"you (1) › raise the login bug to P1", "Priority: P3 → P1", "because you said", "[↩️ Undo]"} {
		if !strings.Contains(chat, want) {
			t.Errorf("chat.txt lacks %q:\n%s", want, chat)
		}
	}
	req, _ := os.ReadFile(filepath.Join(dir, "0001-agent.request.txt"))
	for _, want := range []string{"model relay-agent", "tools: list_tasks", "=== system ===", "=== user ===\nraise the login bug to P1", "0001-agent.reply.json",
		// Each argument's shape, as a model reads it from the schema.
		`update_checklist_items(human_summary?: string, items: [{id: string, isChecked?: boolean, reason?: string, title?: string}], task_id: string)`,
		`set_task_status(human_summary?: string, status: "OPEN"|"GROOMED"|"IN_PROGRESS"|"BLOCKED"|"ON_HOLD"|"DONE"|"REJECTED", task_id: string)`,
		`due_date: string|null`,
		"    due_date: YYYY-MM-DD or null",
	} {
		if !strings.Contains(string(req), want) {
			t.Errorf("the readable request lacks %q:\n%s", want, req)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "0001-agent.request.json")); err != nil {
		t.Errorf("no raw request: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "0001-agent.reply.rejected-1.json")); err != nil {
		t.Errorf("the refused reply was not kept: %v", err)
	}

	receipt := regexp.MustCompile(`nod \((\d+)\) ‹ ✅ Changed`).FindStringSubmatch(chat)
	command(t, dir, "press 99 ✓ 1")
	command(t, dir, "press "+receipt[1]+" Undo") // as a person names "↩️ Undo"
	// The notice (the press's answer) comes first and the receipt's edit
	// after it: wait for both.
	chat = waitFile(t, filepath.Join(dir, "chat.txt"), func(s string) bool { return has("Undone")(s) && has("(edited)")(s) })
	log := waitFile(t, filepath.Join(dir, "commands.log"), has(" Undo → ok"))
	if !strings.Contains(log, "press 99 ✓ 1 → error: no message 99") || !strings.Contains(log, "say raise the login bug to P1 → ok") {
		t.Errorf("commands.log:\n%s", log)
	}
	if !strings.Contains(chat, "(edited)") {
		t.Errorf("the undone receipt is not shown edited:\n%s", chat)
	}
	// Struck through on a phone, so marked in chat.txt: without the
	// strike the undone change reads as what holds.
	if !regexp.MustCompile(`↩️ ~~[^~\n]+~~ .*: undone, back to P3\.`).MatchString(chat) {
		t.Errorf("the undone change is not shown struck through:\n%s", chat)
	}
}

// A request nobody answers fails as a model timeout would, and says so in
// the folder.
func TestRelayTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	newPlayground(t, map[string]string{"NOD_STEP_TIMEOUT": "1s"}, options{model: "relay", relayDir: dir})
	command(t, dir, "say hello")
	waitFile(t, filepath.Join(dir, "0001-agent.timeout.txt"), has("stopped waiting"))
	// The relay sees the request given up a moment after nod does (when
	// the connection closes): the waiting line goes then.
	waitFile(t, filepath.Join(dir, "chat.txt"), func(s string) bool {
		return has("language model")(s) && !strings.Contains(s, "waiting for the model")
	})
}

// A folder holds one play: starting on one that holds requests already is
// refused, where it would renumber over them and replay commands.txt.
func TestRelayFolderHoldsOnePlay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"0001-agent.request.txt", "commands.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("from an earlier play\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logs := &fixtures.LogBuffer{}
	o := options{addr: "127.0.0.1:0", model: "relay", relayDir: dir, lang: "en", db: filepath.Join(t.TempDir(), "nod.db")}
	p, err := start(t.Context(), o, nil, logs, slog.New(slog.NewTextHandler(logs, nil)))
	if err == nil {
		p.close()
		t.Fatal("a relay folder holding a play was taken for a new one")
	}
	if !strings.Contains(err.Error(), "already holds a play (0001-agent.request.txt") {
		t.Errorf("error = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "0001-agent.request.txt")); string(b) != "from an earlier play\n" {
		t.Errorf("the earlier play's request was overwritten: %q", b)
	}
}

// nodplay -eval relay:DIR: nod eval's classifier requests come out as
// files, a player's answers go back, and the report comes out.
func TestRelayEval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- run(t.Context(), []string{"-eval", "relay:" + dir, "--", "-run", "^en/plain-explicit$"}, func() []string { return nil }, &out, &errb)
	}()
	waitFile(t, filepath.Join(dir, "0001-classifier.request.txt"), has("raise the login bug to P1"))
	writeReply(t, dir, "0001-classifier.reply.json", `{"content": "{\"actions\":[{\"index\":0,\"level\":\"explicit\",\"quote\":\"raise the login bug to P1\",\"reasoning\":\"asked\"}]}"}`)
	if err := <-done; err != nil {
		t.Fatalf("nod eval through the relay: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "1 calls in 1 cases: 1 right, 0 false explicit") {
		t.Errorf("report:\n%s", out.String())
	}
}

// The person's player can forward someone's message and edit their own:
// the model reads the forward as someone else's words, chat.txt shows it
// forwarded, and an edit of nod's message is refused in commands.log.
func TestRelayForwardAndEdit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	newPlayground(t, map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000"}, options{model: "relay", relayDir: dir})
	command(t, dir, "forward Boss: raise the login bug to P1")
	req := waitFile(t, filepath.Join(dir, "0001-agent.request.txt"), has("raise the login bug"))
	if !strings.Contains(req, "(forwarded: a message from Boss (5005)") {
		t.Errorf("the model was not told the words are forwarded:\n%s", req)
	}
	writeReply(t, dir, "0001-agent.reply.json", `{"content": "Your boss wants P1. Shall I?"}`)
	chat := waitFile(t, filepath.Join(dir, "chat.txt"), has("Shall I?"))
	if !strings.Contains(chat, "you (1) (forwarded from Boss) › raise the login bug to P1") {
		t.Errorf("chat.txt does not show the forward:\n%s", chat)
	}
	command(t, dir, "edit 2 my words now")
	command(t, dir, "edit 1 P2 then")
	log := waitFile(t, filepath.Join(dir, "commands.log"), has("edit 1 P2 then →"))
	if !strings.Contains(log, "edit 2 my words now → error: message 2 is not one of the person's") || !strings.Contains(log, "edit 1 P2 then → ok") {
		t.Errorf("commands.log:\n%s", log)
	}
	waitFile(t, filepath.Join(dir, "0002-agent.request.txt"), has("P2 then"))
	writeReply(t, dir, "0002-agent.reply.json", `{"content": "P2 it is, then?"}`)
	waitFile(t, filepath.Join(dir, "chat.txt"), has("P2 it is"))
}

// An empty answer is one a real model gives after a tool round; a reply
// that says nothing at all is the player's slip, and refused.
func TestReplyMayBeEmpty(t *testing.T) {
	if r, err := parseReply([]byte(`{"content": ""}`), 1, nil); err != nil || r.Text != "" || len(r.ToolCalls) != 0 {
		t.Errorf(`{"content": ""} = %+v, %v; want an empty answer`, r, err)
	}
	if _, err := parseReply([]byte(`{}`), 1, nil); err == nil {
		t.Error("{} was taken as an answer")
	}
}
