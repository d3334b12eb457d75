package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/mcptest"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage"
)

// waitFor waits for a bot message of chat whose text, as read, contains
// want, and returns it.
func (h *harness) waitFor(what, want string) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.tg.Wait(what, func() bool {
		for _, m := range h.tg.BotMessages(chat) {
			if strings.Contains(readable(m), want) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// A server down at start: its tools are absent from the agent's request,
// the prompt names it unavailable, a call of its tool never runs; once it
// is back (after the hub's backoff on nod's clock), its tools are
// offered again. Unknown mcp__ names never run, and no alias or folding
// maps a name onto an external tool.
func TestMCPServerDownThenBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, srv := h.notebook()
	srv.Stop()
	h.script(
		openaitest.Calls(call("a", addNote, map[string]any{"text": "milk"}), call("b", "mcp__ghost__add_note", map[string]any{}),
			call("c", "MCP__notebook__add_note", map[string]any{"text": "milk"}), call("d", "add_note", map[string]any{"text": "milk"})),
		openaitest.Text("The notebook is down."),
		openaitest.Text("It is back."),
	)
	h.start()
	h.tg.Wait("the server to be tried", func() bool { return strings.Contains(h.logs.String(), "mcp server unavailable") })
	h.tg.SendText(chat, user, "add milk to my notebook")
	h.tg.WaitBotMessages(chat, 1)
	reqs := h.llm.RequestsFor(agentM)
	if slices.ContainsFunc(reqs[0].Tools, func(s string) bool { return strings.HasPrefix(s, "mcp__") }) {
		t.Errorf("a down server's tools are offered: %v", reqs[0].Tools)
	}
	if !strings.Contains(reqs[0].System(), "not reachable now, so their tools are missing: notebook") {
		t.Errorf("the prompt does not say the notebook is down:\n%s", reqs[0].System())
	}
	res := reqs[1].ToolResults()
	if !strings.Contains(res["a"], `not available: the service \"notebook\" is not reachable`) {
		t.Errorf("a call of a down server's tool answered %q", res["a"])
	}
	for _, id := range []string{"b", "c", "d"} {
		if !strings.Contains(res[id], "unknown tool") {
			t.Errorf("call %s answered %q", id, res[id])
		}
	}

	srv.Start()
	h.tg.Wait("the server to connect again", func() bool {
		h.clock.Advance(time.Minute) // the hub's backoff waits on nod's clock
		return strings.Contains(h.logs.String(), `msg="mcp server connected"`)
	})
	h.tg.SendText(chat, user, "and now?")
	h.tg.WaitBotMessages(chat, 2)
	reqs = h.llm.RequestsFor(agentM)
	if !slices.Contains(reqs[2].Tools, addNote) || strings.Contains(reqs[2].System(), "not reachable") {
		t.Errorf("after the server came back: tools %v", reqs[2].Tools)
	}
	if n.Calls("add_note") != 0 {
		t.Errorf("add_note ran %d times", n.Calls("add_note"))
	}
}

// A tool added while nod runs is offered from the next turn on; a result
// over 64 KB reaches the agent bounded, marked truncated.
func TestMCPToolListChangeAndBoundedResult(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, _ := h.notebook()
	h.script(
		openaitest.Text("Hello."),
		openaitest.Calls(call("b", "mcp__notebook__dump", map[string]any{})),
		openaitest.Text("That is long."),
	)
	h.startConnected(1)
	h.tg.SendText(chat, user, "hi")
	h.tg.WaitBotMessages(chat, 1)
	if slices.Contains(h.llm.RequestsFor(agentM)[0].Tools, "mcp__notebook__dump") {
		t.Fatalf("dump offered before it exists")
	}
	big := strings.Repeat("0123456789abcdef\n", 8<<10) // 136 KB
	n.AddTool(&mcp.Tool{Name: "dump", Description: "Dump everything.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, mcptest.Text(big))
	h.tg.Wait("the tool list to change", func() bool { return strings.Contains(h.logs.String(), `msg="mcp server's tools changed"`) })
	h.tg.SendText(chat, user, "dump it")
	h.tg.WaitBotMessages(chat, 2)
	reqs := h.llm.RequestsFor(agentM)
	if !slices.Contains(reqs[1].Tools, "mcp__notebook__dump") {
		t.Errorf("the added tool is not offered: %v", reqs[1].Tools)
	}
	got := reqs[2].ToolResults()["b"]
	var r struct {
		Result    string `json:"result"`
		Truncated bool   `json:"truncated"`
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil {
		t.Fatalf("dump's result is not JSON: %v", err)
	}
	if len(got) > 64<<10 || !r.Truncated || !strings.HasPrefix(r.Result, "0123456789abcdef") {
		t.Errorf("dump's result to the agent: %d bytes, truncated %v", len(got), r.Truncated)
	}
}

// A stdio server (a child process nod starts): its tools are offered,
// an explicit call runs and its effect reads back.
func TestMCPStdioServer(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	command, env := mcptest.StdioCommand(t)
	h.mcpConfig(map[string]any{"notebook": map[string]any{"command": command, "env": env, "trust_annotations": true}})
	h.clf = answer("explicit:note down the milk")
	h.script(
		openaitest.Calls(call("a", addNote, map[string]any{"text": "milk"})),
		openaitest.Calls(call("r", listNotes, map[string]any{})),
		openaitest.Text("Noted."),
	)
	h.startConnected(1)
	h.tg.SendText(chat, user, "note down the milk")
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(readable(msgs[0]), "Ran notebook › add_note") {
		t.Errorf("receipt = %q", msgs[0].Text)
	}
	if got := h.llm.RequestsFor(agentM)[2].ToolResults()["r"]; !strings.Contains(got, `\"text\":\"milk\"`) && !strings.Contains(got, `"text":"milk"`) {
		t.Errorf("list_notes after the add: %q", got)
	}
}

// SIGKILL while a confirmed call is under way (the server holds it):
// after the restart the person is told its outcome is unknown, the
// server never sees it again, and the agent's next turn is told. On
// PostgreSQL the report is taken over once the dead process's time is
// up (NOD_UPDATE_TIMEOUT and a margin, on the wall clock here).
func TestMCPCallKilledMidway(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	postgres := storage.IsPostgres(h.dsn)
	if postgres {
		h.env["NOD_UPDATE_TIMEOUT"], h.env["NOD_SWEEP_INTERVAL"] = "1s", "200ms"
	}
	n, _ := h.notebook()
	gate := n.Gate("add_note")
	h.script(
		openaitest.Calls(call("a", addNote, map[string]any{"text": "pay rent"})),
		openaitest.Text("Shall I?"),
		openaitest.Text("I will not run it again."),
	)
	p := h.startProcess(t)
	h.tg.Wait("the server to connect", func() bool { return strings.Contains(p.logs.String(), `msg="mcp server connected"`) })
	h.tg.SendText(chat, user, "rent is due")
	set := h.changeSetMessage(chat, 2)
	press := h.tg.Tap(chat, user, set.ID, "✓ 1")
	select {
	case <-gate.Arrived():
	case <-time.After(30 * time.Second):
		t.Fatal("the call never reached the server")
	}
	// The press is answered before the call is sent: a held call never
	// leaves the button spinning.
	if ans := h.tg.WaitAnswer(press); ans != "Applied item 1." {
		t.Errorf("the press was answered %q", ans)
	}
	p.kill()
	gate.Release()

	p = h.startProcess(t)
	if postgres {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) && !slices.ContainsFunc(h.tg.BotMessages(chat), func(m telegramtest.Message) bool {
			return strings.Contains(readable(m), "whether it happened is unknown")
		}) {
			time.Sleep(100 * time.Millisecond)
		}
	}
	notice := h.waitFor("the unknown outcome's notice", "whether it happened is unknown")
	if !strings.Contains(readable(notice), "notebook › add_note") || !strings.Contains(readable(notice), "will not run it again") {
		t.Errorf("notice = %q", readable(notice))
	}
	h.tg.Wait("the server to connect again", func() bool { return strings.Contains(p.logs.String(), `msg="mcp server connected"`) })
	h.tg.SendText(chat, user, "did it work?")
	h.tg.Wait("the next turn", func() bool { return len(h.llm.RequestsFor(agentM)) == 3 })
	if sys := allSystem(h.llm.RequestsFor(agentM)[2]); !strings.Contains(sys, "whether it happened is unknown") {
		t.Errorf("the agent is not told the outcome is unknown:\n%s", sys)
	}
	if c := n.Calls("add_note"); c != 1 {
		t.Errorf("add_note reached the server %d times", c)
	}
	if rows := outcomes(h.audit(chat)); !slices.Contains(rows, addNote+":failed") || slices.Contains(rows, addNote+":executed") {
		t.Errorf("audit = %v", rows)
	}
}

// On PostgreSQL a call claimed by a replica that died is settled by
// another once that replica's time is up: reported unknown, never sent.
func TestMCPUnknownOutcomeOnPostgres(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "it sets up PostgreSQL itself")
	h := postgresHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	n, _ := h.notebook()
	h.startConnected(1)
	// The replica that died: it claimed the call and never recorded an
	// outcome.
	c := nod.ExternalCall{Topic: nod.Topic{ChatID: chat}, UserID: user, Tool: addNote, Args: json.RawMessage(`{"text":"pay rent"}`)}
	if err := h.db.Calls().Claim(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	h.sweeps(2)
	if got := len(h.tg.BotMessages(chat)); got != 0 {
		t.Fatalf("a live replica's call was settled within its time: %d messages", got)
	}
	h.clock.Advance(6 * time.Minute)
	h.waitFor("the unknown outcome's notice", "whether it happened is unknown")
	got, err := h.db.Calls().Call(context.Background(), nod.ChatID(chat), c.ID)
	if err != nil || got.State != nod.CallUnknown || n.Calls("add_note") != 0 {
		t.Errorf("call %+v, %v; %d calls reached the server", got, err, n.Calls("add_note"))
	}
}

// Two replicas on one PostgreSQL both receive the same ✓ of a queued
// call: the server sees it once.
func TestMCPTwoReplicasCallOnce(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "one PostgreSQL pass is enough")
	h := postgresHarness(t)
	n, _ := h.notebook()
	h.env["NOD_WEBHOOK_URL"] = "https://bot.example.org/hook"
	h.env["NOD_WEBHOOK_SECRET"] = "replica-secret-0123"
	h.script(openaitest.Calls(call("a", addNote, map[string]any{"text": "pay rent"})), openaitest.Text("Shall I?"))
	h.startWhen(func() bool { return len(h.tg.Calls("setWebhook")) > 0 })
	first, second, logs2 := h.replicas()
	h.tg.Wait("both replicas to connect", func() bool {
		return strings.Contains(h.logs.String(), `msg="mcp server connected"`) && strings.Contains(logs2.String(), `msg="mcp server connected"`)
	})
	h.tg.Wire().SetWebhookTarget(first)
	h.tg.SendText(chat, user, "rent is due")
	set := h.changeSetMessage(chat, 2)
	b, _ := set.Button("✓ 1")
	h.tg.Wire().SetWebhookTarget("")
	id := h.tg.Press(chat, user, set.ID, b.Data)
	raw := h.tg.Wire().LastUpdate()
	for _, target := range []string{first, second} {
		go h.tg.Wire().PostWebhook(target, "replica-secret-0123", raw)
	}
	h.tg.WaitAnswer(id)
	h.tg.Wait("both replicas to take the update", func() bool {
		return strings.Contains(h.logs.String()+logs2.String(), "duplicate update ignored")
	})
	h.waitFor("the call's outcome", "notebook › add_note ran")
	if c := n.Calls("add_note"); c != 1 {
		t.Errorf("add_note reached the server %d times", c)
	}
}

// In trusted mode a mutating call runs at once, a destructive one still
// waits; an answer in words decides a call's item like any other.
func TestMCPTrustedModeAndAnswerInWords(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, _ := h.notebook()
	h.startConnected(1)
	h.tg.SendText(chat, user, "/mode trusted")
	h.tg.WaitBotMessages(chat, 1)
	h.script(
		openaitest.Calls(call("a", addNote, map[string]any{"text": "milk"}), call("d", deleteNote, map[string]any{"id": 1})),
		openaitest.Text("Done and proposed."),
	)
	h.tg.SendText(chat, user, "tidy my notebook")
	msgs := h.tg.WaitBotMessages(chat, 4)
	if !strings.Contains(readable(msgs[1]), "Ran notebook › add_note (trusted mode)") || len(msgs[1].Buttons()) != 0 {
		t.Errorf("trusted receipt = %q %v", readable(msgs[1]), buttonTexts(msgs[1]))
	}
	set := h.changeSetMessage(chat, 4)
	if !strings.Contains(readable(set), "⚠️ Run notebook › delete_note") || n.Calls("delete_note") != 0 || n.Calls("add_note") != 1 {
		t.Errorf("trusted mode: set %q, %d deletes, %d adds", readable(set), n.Calls("delete_note"), n.Calls("add_note"))
	}
	h.clock.Advance(time.Minute)
	h.tg.SendText(chat, user, "yes to 1")
	h.waitFor("the call's outcome", "notebook › delete_note ran")
	if n.Calls("delete_note") != 1 || len(n.Notes()) != 0 {
		t.Errorf("after yes: %d deletes, notes %v", n.Calls("delete_note"), n.Notes())
	}
}

// Learned rules cover a mutating tool of one server: three confirmed
// calls earn the offer, which says nod cannot undo what it runs; once
// accepted, the next call of that tool runs at once with a receipt
// naming the rule. A destructive tool never earns one.
func TestMCPLearnedRule(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, _ := h.notebook()
	h.startConnected(1)
	var offer telegramtest.Message
	for i, text := range []string{"one", "two", "three"} {
		ms := h.propose(call("a"+text, addNote, map[string]any{"text": text}))
		h.clock.Advance(time.Minute)
		before := len(h.tg.BotMessages(chat))
		if got := h.tap(chat, user, ms[len(ms)-1].ID, "✓ 1"); got != "Applied item 1." {
			t.Fatalf("tap answer %q", got)
		}
		if m, ok := offerIn(h.tg.BotMessages(chat)[before:]); ok {
			if i < 2 {
				t.Fatalf("offer after %d confirmations", i+1)
			}
			offer = m
		}
	}
	if !strings.Contains(readable(offer), "“Run notebook › add_note”") || !strings.Contains(readable(offer), "nod cannot undo them") {
		t.Fatalf("offer = %q", readable(offer))
	}
	if got := h.tap(chat, user, offer.ID, "✓ For 30 days"); !strings.HasPrefix(got, "Rule on until") {
		t.Fatalf("accepting the rule answered %q", got)
	}
	ms := h.propose(call("a4", addNote, map[string]any{"text": "four"}))
	if !strings.Contains(readable(ms[0]), "Ran notebook › add_note by your rule “Run notebook › add_note”") || n.Calls("add_note") != 4 {
		t.Errorf("rule receipt = %q; %d calls", readable(ms[0]), n.Calls("add_note"))
	}
	for _, m := range ms {
		if _, ok := m.Button("✓ 1"); ok {
			t.Errorf("a call the rule covers was queued: %q", readable(m))
		}
	}
	for i := 1; i <= 3; i++ {
		ms := h.propose(call(fmt.Sprint("d", i), deleteNote, map[string]any{"id": i}))
		h.clock.Advance(time.Minute)
		before := len(h.tg.BotMessages(chat))
		h.tap(chat, user, ms[len(ms)-1].ID, "✓ 1")
		if m, ok := offerIn(h.tg.BotMessages(chat)[before:]); ok {
			t.Errorf("a destructive tool earned a rule: %q", readable(m))
		}
	}
}

// A decision the agent passes on in the person's words (answer_proposals)
// runs the call once; the person gets a receipt quoting their words, and
// the model learns what it returned.
func TestMCPCallDecidedByAnswerProposals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, _ := h.notebook()
	h.script(
		openaitest.Calls(call("a", addNote, map[string]any{"text": "milk"})),
		openaitest.Text("Shall I?"),
		openaitest.Calls(call("p", "answer_proposals", map[string]any{"confirm": []int{1}})),
		openaitest.Text("Done."),
	)
	h.startConnected(1)
	h.tg.SendText(chat, user, "milk is running out")
	h.changeSetMessage(chat, 2)
	h.clock.Advance(time.Minute)
	h.clf = answer("explicit:the note about milk is what I want")
	h.tg.SendText(chat, user, "the note about milk is what I want")
	receipt := h.waitFor("the call's receipt", "Ran notebook › add_note")
	if !strings.Contains(readable(receipt), "because you said “the note about milk is what I want”") || len(receipt.Buttons()) != 0 {
		t.Errorf("receipt = %q %v", readable(receipt), buttonTexts(receipt))
	}
	h.tg.Wait("the turn's end", func() bool { return len(h.llm.RequestsFor(agentM)) == 4 })
	if got := h.llm.RequestsFor(agentM)[3].ToolResults()["p"]; !strings.Contains(got, "Item 1 ran") || !strings.Contains(got, "added note 1") {
		t.Errorf("answer_proposals told the model %q", got)
	}
	if c := n.Calls("add_note"); c != 1 {
		t.Errorf("add_note reached the server %d times", c)
	}
}
