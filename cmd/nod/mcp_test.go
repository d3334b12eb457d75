package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/mcptest"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/formatting"
)

// The tools of an operator's MCP servers under nod's confirmations
// (docs/design.md §15), end to end against a real MCP server: the
// notebook of fixtures/mcptest, over streamable HTTP.

// notebook serves a notebook and names it in nod's MCP configuration as
// "notebook", its readOnlyHint trusted.
func (h *harness) notebook() (*mcptest.Notebook, *mcptest.HTTP) {
	h.t.Helper()
	n := mcptest.NewNotebook()
	srv := mcptest.ServeHTTP(h.t, n)
	h.mcpConfig(map[string]any{"notebook": map[string]any{"url": srv.URL, "trust_annotations": true}})
	return n, srv
}

// mcpConfig writes NOD_MCP_CONFIG's file with servers.
func (h *harness) mcpConfig(servers map[string]any) {
	h.t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		h.t.Fatal(err)
	}
	path := filepath.Join(h.t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		h.t.Fatal(err)
	}
	h.env["NOD_MCP_CONFIG"] = path
}

// startConnected starts nod and waits until its MCP servers are
// connected.
func (h *harness) startConnected(servers int) {
	h.t.Helper()
	h.start()
	h.tg.Wait("the MCP servers to connect", func() bool {
		return strings.Count(h.logs.String(), `msg="mcp server connected"`) >= servers
	})
}

// callRows are the chat's audit rows of tool, oldest first.
func (h *harness) callRows(tool nod.Tool) []nod.AuditEntry {
	var out []nod.AuditEntry
	rows := h.audit(chat)
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Tool == tool {
			out = append(out, rows[i])
		}
	}
	return out
}

const (
	listNotes  = "mcp__notebook__list_notes"
	addNote    = "mcp__notebook__add_note"
	deleteNote = "mcp__notebook__delete_note"
)

// A read runs at once and its result reaches the agent; an explicit
// mutation runs once, with a receipt that quotes the person, lists the
// arguments (escaped), says nod cannot undo it, and has no Undo. The
// classifier is shown nod's own summary of the call.
func TestMCPReadAndExplicitCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, _ := h.notebook()
	h.clf = answer("explicit:add a note saying buy <milk> & eggs")
	h.script(
		openaitest.Calls(call("r", listNotes, map[string]any{})),
		openaitest.Text("Your notebook is empty."),
		openaitest.Calls(call("a", addNote, map[string]any{"text": "buy <milk> & eggs"})),
		openaitest.Text("Noted."),
	)
	h.startConnected(1)

	h.tg.SendText(chat, user, "what is in my notebook?")
	h.tg.WaitBotMessages(chat, 1)
	reqs := h.llm.RequestsFor(agentM)
	for _, want := range []string{listNotes, addNote, deleteNote, "list_tasks", "create_task"} {
		if !slices.Contains(reqs[0].Tools, want) {
			t.Errorf("the agent is not offered %s: %v", want, reqs[0].Tools)
		}
	}
	if !strings.Contains(string(reqs[0].Raw), "Add a note to the notebook.") {
		t.Errorf("the request lacks add_note's description")
	}
	if got := reqs[1].ToolResults()["r"]; !strings.Contains(got, `"notes":[]`) {
		t.Errorf("list_notes's result to the agent = %q", got)
	}
	if n.Calls("list_notes") != 1 || len(h.llm.RequestsFor(clfM)) != 0 {
		t.Errorf("list_notes called %d times, %d classifier requests", n.Calls("list_notes"), len(h.llm.RequestsFor(clfM)))
	}

	h.tg.SendText(chat, user, "add a note saying buy <milk> & eggs")
	msgs := h.tg.WaitBotMessages(chat, 3)
	receipt := msgs[1]
	for _, want := range []string{"Ran notebook › add_note", "because you said “add a note saying buy <milk> & eggs”", "text = buy <milk> & eggs", "nod cannot undo this"} {
		if !strings.Contains(readable(receipt), want) {
			t.Errorf("receipt lacks %q:\n%s", want, receipt.Text)
		}
	}
	if len(receipt.Buttons()) != 0 {
		t.Errorf("the receipt has buttons %v; nod cannot undo an external call", receipt.Buttons())
	}
	if msgs[2].Text != "Noted." {
		t.Errorf("reply = %q", msgs[2].Text)
	}
	if notes := n.Notes(); n.Calls("add_note") != 1 || len(notes) != 1 || notes[0].Text != "buy <milk> & eggs" {
		t.Errorf("add_note called %d times; notes %v", n.Calls("add_note"), notes)
	}
	clf := h.llm.RequestsFor(clfM)
	if len(clf) != 1 || !strings.Contains(clf[0].LastUser(), `0. mcp__notebook__add_note: call notebook › add_note: text = "buy <milk> & eggs"`) {
		t.Errorf("the classifier was shown: %q", clf[len(clf)-1].LastUser())
	}
	if got := h.llm.RequestsFor(agentM)[3].ToolResults()["a"]; !strings.Contains(got, "added note 1") {
		t.Errorf("add_note's result to the agent = %q", got)
	}
	rows := h.callRows(addNote)
	if len(rows) != 1 || rows[0].Outcome != nod.OutcomeExecuted || rows[0].Arg("server") != "notebook" || rows[0].Arg("tool") != "add_note" ||
		!strings.Contains(rows[0].Arg("result"), "added note 1") || !strings.Contains(string(rows[0].Args), `"arguments":{"text":"buy \u003cmilk\u003e \u0026 eggs"}`) && !strings.Contains(string(rows[0].Args), `"text":"buy <milk> & eggs"`) {
		t.Errorf("audit rows of add_note: %+v", rows)
	}
	if rows := h.callRows(listNotes); len(rows) != 1 || rows[0].Outcome != nod.OutcomeExecuted {
		t.Errorf("audit rows of list_notes: %+v", rows)
	}
	if brk, _, err := h.db.Audit().VerifyAudit(t.Context()); err != nil || brk != nil {
		t.Errorf("audit chain: %v %+v", err, brk)
	}
}

// An inferred mutation waits as a change-set item showing its
// arguments; ✓ runs it once (a double tap too), ✗ never; the agent
// learns the outcome in its next turn.
func TestMCPInferredCallWaitsForTap(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, _ := h.notebook()
	h.script(
		openaitest.Calls(call("a", addNote, map[string]any{"text": "call the plumber"}), call("b", addNote, map[string]any{"text": "water the plants"})),
		openaitest.Text("I suggest two notes."),
		openaitest.Calls(call("c", addNote, map[string]any{"text": "water the plants"})),
		openaitest.Text("Fine."),
	)
	h.startConnected(1)
	h.tg.SendText(chat, user, "my week is busy")
	set := h.changeSetMessage(chat, 2)
	for _, want := range []string{"notebook", "Run notebook › add_note", "text = call the plumber", "text = water the plants"} {
		if !strings.Contains(readable(set), want) {
			t.Errorf("set lacks %q:\n%s", want, set.Text)
		}
	}
	if got := h.llm.RequestsFor(agentM)[1].ToolResults()["a"]; got != "Proposal queued for user review." {
		t.Errorf("the agent was told %q", got)
	}
	if n.Calls("add_note") != 0 {
		t.Fatalf("add_note ran before the tap")
	}

	h.clock.Advance(time.Minute) // the taps come after the turn
	// Two presses of ✓ 1 at once: one call. Both press the button as
	// the message showed it, which the first one's edit may have taken
	// away before the second goes out.
	one, _ := set.Button("✓ 1")
	a1 := h.tg.Press(chat, user, set.ID, one.Data)
	a2 := h.tg.Press(chat, user, set.ID, one.Data)
	h.tg.WaitAnswer(a1)
	h.tg.WaitAnswer(a2)
	h.settle()
	if c := n.Calls("add_note"); c != 1 {
		t.Errorf("add_note called %d times after a double tap", c)
	}
	if ans := h.tap(chat, user, set.ID, "✗ 2"); !strings.Contains(ans, "Rejected") {
		t.Errorf("✗ 2 answered %q", ans)
	}
	if c := n.Calls("add_note"); c != 1 || len(n.Notes()) != 1 || n.Notes()[0].Text != "call the plumber" {
		t.Errorf("after ✗ 2: %d calls, notes %v", c, n.Notes())
	}
	var ran telegramtest.Message
	h.tg.Wait("the call's outcome", func() bool {
		for _, m := range h.tg.BotMessages(chat) {
			if strings.Contains(readable(m), "notebook › add_note ran") {
				ran = m
				return true
			}
		}
		return false
	})
	if !strings.Contains(readable(ran), "added note 1: call the plumber") {
		t.Errorf("outcome message = %q", ran.Text)
	}
	h.tg.SendText(chat, user, "thanks")
	h.tg.Wait("the next turn", func() bool { return len(h.llm.RequestsFor(agentM)) >= 3 })
	sys := allSystem(h.llm.RequestsFor(agentM)[2])
	if !strings.Contains(sys, "notebook › add_note") || !strings.Contains(sys, "added note 1: call the plumber") || !strings.Contains(sys, "rejected your proposal") {
		t.Errorf("the agent's next request does not tell the outcome:\n%s", sys)
	}
	h.tg.Wait("the turn's end", func() bool { return len(h.llm.RequestsFor(agentM)) == 4 })
	if got := h.llm.RequestsFor(agentM)[3].ToolResults()["c"]; !strings.Contains(got, "rejected") || n.Calls("add_note") != 1 {
		t.Errorf("a rejected call proposed again: %q", got)
	}
	rows := outcomes(h.audit(chat))
	if !slices.Contains(rows, addNote+":confirmed") || !slices.Contains(rows, addNote+":executed") || !slices.Contains(rows, addNote+":rejected") {
		t.Errorf("audit = %v", rows)
	}
}

// readable is a message's text as the person reads it.
func readable(m telegramtest.Message) string { return formatting.PlainText(m.Text) }

// allSystem joins the system messages of a request: the prompt and the
// notes of what happened meanwhile.
func allSystem(r openaitest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "system" {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}

// A destructive tool never runs at once, not on the person's explicit
// words: it waits as a ⚠️ item and runs once on ✓.
func TestMCPDestroyAlwaysAsks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	n, _ := h.notebook()
	h.clf = answer("explicit:add a note milk", "explicit:delete note 1 now")
	h.script(
		openaitest.Calls(call("a", addNote, map[string]any{"text": "milk"})),
		openaitest.Text("Added."),
		openaitest.Calls(call("d", deleteNote, map[string]any{"id": 1})),
		openaitest.Text("It waits for your tap."),
	)
	h.startConnected(1)
	h.tg.SendText(chat, user, "add a note milk")
	h.tg.WaitBotMessages(chat, 2)
	h.clf = answer("explicit:delete note 1 now")
	h.tg.SendText(chat, user, "delete note 1 now")
	set := h.changeSetMessage(chat, 4)
	if p := readable(set); !strings.Contains(p, "⚠️") || !strings.Contains(p, "delete_note") || !strings.Contains(p, "id = 1") || !strings.Contains(p, "cannot undo") {
		t.Errorf("destructive item:\n%s", set.Text)
	}
	if got := h.llm.RequestsFor(agentM)[3].ToolResults()["d"]; !strings.HasPrefix(got, "Proposal queued for user review.") {
		t.Errorf("the agent was told %q", got)
	}
	if n.Calls("delete_note") != 0 {
		t.Fatalf("delete_note ran on explicit words")
	}
	h.tap(chat, user, set.ID, "✓ 1")
	if n.Calls("delete_note") != 1 || len(n.Notes()) != 0 {
		t.Errorf("after ✓: %d calls, notes %v", n.Calls("delete_note"), n.Notes())
	}
}
