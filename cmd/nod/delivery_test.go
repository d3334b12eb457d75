package main

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// An explicit change is applied, then the model fails: the person gets the
// receipt, then one message that says that change stands and nothing else
// was changed — never "nothing was changed".
func TestModelFailsAfterExplicitChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:make the login bug P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
		openaitest.Response{Status: 500}, openaitest.Response{Status: 500}, openaitest.Response{Status: 500})
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[0].Text, "Priority: P3 → P1") || !hasButton(msgs[0], "↩️ Undo") {
		t.Errorf("receipt = %q %v", msgs[0].Text, buttonTexts(msgs[0]))
	}
	want := "I couldn't reach the language model just now, so I stopped: the change above was made; nothing else was changed."
	if !strings.Contains(msgs[1].Text, want) || strings.Contains(msgs[1].Text, "nothing was changed") {
		t.Errorf("failure message = %q, want %q", msgs[1].Text, want)
	}
	if h.task("T1").Priority != nod.P1 {
		t.Errorf("priority %s", h.task("T1").Priority)
	}
}

// NOD_UPDATE_TIMEOUT bounds a whole turn, however many steps it takes:
// the turn is cut, what it applied is reported, and the next message is
// answered as usual.
func TestUpdateTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.env["NOD_UPDATE_TIMEOUT"] = "1500ms"
	h.clf = answer("explicit:make the login bug P1")
	slow := openaitest.Response{ToolCalls: []openaitest.ToolCall{call("l", "list_tasks", map[string]any{})}, Delay: 400 * time.Millisecond}
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})),
		slow, slow, slow, slow, slow, slow, // each step within NOD_STEP_TIMEOUT, all of them not within the update's
		openaitest.Text("never sent"),
		openaitest.Text("Here again."),
	)
	h.start()
	h.tg.SendText(chat, user, "make the login bug P1")
	msgs := h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[0].Text, "Priority: P3 → P1") {
		t.Errorf("receipt = %q", msgs[0].Text)
	}
	if want := "That took too long, so I stopped: the change above was made; nothing else was changed."; !strings.Contains(msgs[1].Text, want) {
		t.Errorf("after the deadline: %q, want %q", msgs[1].Text, want)
	}
	if n := len(h.llm.RequestsFor(agentM)); n >= 8 {
		t.Errorf("%d model requests: the turn was not cut", n)
	}
	h.script(openaitest.Text("Here again."))
	h.tg.SendText(chat, user, "hello?")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; m.Text != "Here again." {
		t.Errorf("next message answered %q", m.Text)
	}
}

// NUL characters from the model (a title, its reply) or from Telegram are
// dropped at the edge: the turn works on PostgreSQL, which refuses them,
// exactly as on SQLite.
func TestNULFromTheModel(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(*testing.T) *harness{"sqlite": newHarness, "postgres": postgresHarness} {
		t.Run(name, func(t *testing.T) {
			h := open(t)
			h.clf = answer("explicit:add Buy milk for home") // the words name the label (docs/design.md §3.5)
			h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Buy\x00 milk", "labels": []string{"home\x00"}})),
				openaitest.Text("Added\x00 it."))
			h.start()
			h.tg.SendText(chat, user, "add Buy milk\x00 for home")
			msgs := h.tg.WaitBotMessages(chat, 2)
			if msgs[1].Text != "Added it." || strings.Contains(msgs[0].Text, "went wrong") {
				t.Errorf("messages = %q, %q", msgs[0].Text, msgs[1].Text)
			}
			tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{})
			if len(tasks) != 1 || tasks[0].Title != "Buy milk" || tasks[0].Labels[0] != "home" {
				t.Errorf("tasks = %+v", tasks)
			}
			hist, _ := h.db.Conversation().History(t.Context(), nod.Topic{Chat: chat}, nod.Window{Keep: 10})
			if len(hist) == 0 || hist[0].Content != "add Buy milk for home" {
				t.Errorf("history = %+v", hist)
			}
		})
	}
}

// A press is answered before its message is edited: an edit that Telegram
// rate-limits (429 with retry_after) is retried after the answer went out,
// so the button never spins until Telegram gives up on it.
func TestPressAnsweredBeforeRateLimitedEdit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise it")
	limited := 0
	h.tg.Wire().SetFault(func(method string, _ url.Values) *telegramtest.Error {
		if method == "editMessageText" && limited == 0 {
			limited++
			return &telegramtest.Error{Code: 429, Description: "Too Many Requests: retry after 1", RetryAfter: 1}
		}
		return nil
	})
	if ans := h.tap(chat, user, set.ID, "✓ 1"); ans != "Applied item 1." {
		t.Errorf("answer = %q", ans)
	}
	var order []string
	for _, c := range h.tg.Calls("") {
		if c.Method == "answerCallbackQuery" || c.Method == "editMessageText" {
			order = append(order, c.Method)
		}
	}
	if want := []string{"answerCallbackQuery", "editMessageText", "editMessageText"}; !slices.Equal(order, want) {
		t.Errorf("calls = %v, want the answer first, then the limited edit and its retry", order)
	}
	if m, _ := h.tg.Message(chat, set.ID); !strings.Contains(m.Text, "Applied 1 of 1") {
		t.Errorf("the edit never landed: %q", m.Text)
	}
}
