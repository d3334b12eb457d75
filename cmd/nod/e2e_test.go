package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// 1. "add a task Buy milk" → a change set → ✓ 1 → the task exists, with
// its audit and undo entries.
func TestAddTaskConfirmed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.script(
		openaitest.Calls(call("call_1", "create_task", map[string]any{"title": "Buy milk"})),
		openaitest.Text("I've proposed adding Buy milk."),
	)
	h.start()
	h.tg.SendText(chat, user, "add a task Buy milk")
	set := h.changeSetMessage(chat, 2)
	if got := h.tg.BotMessages(chat)[0].Text; got != "I've proposed adding Buy milk." {
		t.Errorf("first message = %q, want the agent's text", got)
	}
	if !strings.Contains(set.Text, "Buy milk") || slices.Contains(buttonTexts(set), "✓ All") {
		t.Errorf("change set = %q %v", set.Text, buttonTexts(set))
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["call_1"]; r != "Proposal queued for user review." {
		t.Errorf("tool result = %q", r)
	}
	if tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(tasks) != 0 {
		t.Fatalf("a task exists before confirmation: %+v", tasks)
	}

	if ans := h.tap(chat, user, set.ID, "✓ 1"); !strings.Contains(ans, "Applied") {
		t.Errorf("answer to ✓ 1 = %q", ans)
	}
	set = h.tg.WaitMessage(chat, set.ID, "the set to show it applied", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Applied 1 of 1")
	})
	if _, ok := set.Button("✓"); ok {
		t.Errorf("applied set still has a ✓ button: %v", buttonTexts(set))
	}
	if _, ok := set.Button("↩️ Undo 1"); !ok {
		t.Errorf("applied set has no Undo button: %v", buttonTexts(set))
	}
	tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{})
	if len(tasks) != 1 || tasks[0].Title != "Buy milk" || tasks[0].Status != nod.StatusOpen || tasks[0].Priority != nod.P2 {
		t.Fatalf("tasks after ✓ 1 = %+v", tasks)
	}
	if got, want := outcomes(h.audit(chat)), []string{"create_task:queued", "create_task:confirmed"}; !slices.Equal(got, want) {
		t.Errorf("audit = %v, want %v", got, want)
	}
	if u, err := h.db.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: chat}, user); err != nil || !u.Change.Created || u.Title != "Buy milk" {
		t.Errorf("undo entry = %+v, %v", u, err)
	}
}

// 2. Three proposals on one task: ✓ 2, ✗ 1, ✓ 3 → exactly 2 and 3 applied,
// the message edited after each tap.
func TestDecideItemsOneByOne(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(
		openaitest.Calls(
			call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
			call("b", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90}),
			call("c", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-20"}),
		),
		openaitest.Text("Three suggestions for the login bug."),
	)
	h.start()
	h.tg.SendText(chat, user, "tidy up the login bug")
	set := h.changeSetMessage(chat, 2)
	for _, b := range []string{"✓ 1", "✗ 1", "✓ 2", "✗ 2", "✓ 3", "✗ 3", "✓ All", "✗ All"} {
		if _, ok := set.Button(b); !ok {
			t.Errorf("set has no %q button: %v", b, buttonTexts(set))
		}
	}
	for _, line := range []string{"Priority: P3 → P1", "Estimate: 2 h → 1 h 30 min", "Due: 15 Mar 2026 → 20 Mar 2026"} {
		if !strings.Contains(set.Text, line) {
			t.Errorf("set lacks %q:\n%s", line, set.Text)
		}
	}
	edits := 0
	for _, step := range []string{"✓ 2", "✗ 1", "✓ 3"} {
		h.tap(chat, user, set.ID, step)
		edits++
		set = h.tg.WaitMessage(chat, set.ID, "edit after "+step, func(m telegramtest.Message) bool { return m.Edits >= edits })
	}
	if !strings.Contains(set.Text, "Applied 2 of 3") || len(set.Buttons()) != 2 {
		t.Errorf("resolved set = %q %v", set.Text, buttonTexts(set))
	}
	task := h.task("T1")
	if task.Priority != nod.P3 || *task.EstimateMinutes != 90 || task.DueDate != "2026-03-20" {
		t.Errorf("T1 = %s, %d, %s; want P3, 90, 2026-03-20", task.Priority, *task.EstimateMinutes, task.DueDate)
	}
	sets, _ := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{ChatID: chat})
	if len(sets) != 0 {
		t.Errorf("%d sets still open", len(sets))
	}
}

// 3. A double tap and a redelivered update apply once.
func TestDoubleTapAndRedeliveryApplyOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("the login bug is urgent")
	b, _ := set.Button("✓ 1")
	first := h.tg.Press(chat, user, set.ID, b.Data)
	second := h.tg.Press(chat, user, set.ID, b.Data)
	answers := []string{h.tg.WaitAnswer(first), h.tg.WaitAnswer(second)}
	applied := 0
	for _, a := range answers {
		if strings.Contains(a, "Applied") {
			applied++
		} else if !strings.Contains(a, "already confirmed") {
			t.Errorf("second answer = %q, want it to say already confirmed", a)
		}
	}
	if applied != 1 {
		t.Errorf("answers %q: want exactly one Applied", answers)
	}
	// Telegram redelivers the first press (same update_id, e.g. after a
	// crash before the offset was confirmed): it must be ignored.
	h.tg.Wire().Redeliver(2)
	h.tg.Wait("the redelivered update to be dropped", func() bool {
		return strings.Contains(h.logs.String(), "duplicate update ignored")
	})
	confirmed := h.count(nod.OutcomeConfirmed)
	if confirmed != 1 || h.task("T1").Priority != nod.P1 {
		t.Errorf("%d confirmed audit rows, priority %s; want 1, P1", confirmed, h.task("T1").Priority)
	}
}

// 4. A stranger's message and button press are refused, naming their id;
// nothing is stored or asked of the model.
func TestStrangerRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise the login bug")

	h.tg.SendText(chat, stranger, "delete everything")
	msgs := h.tg.WaitBotMessages(chat, 3)
	if !strings.Contains(msgs[2].Text, "666") {
		t.Errorf("refusal = %q, want it to name the id", msgs[2].Text)
	}
	h.tg.SendText(chat, stranger, "hello?") // refused at most once an hour: no second notice
	ans := h.tap(chat, stranger, set.ID, "✓ 1")
	if !strings.Contains(ans, "666") || !strings.Contains(ans, "private") {
		t.Errorf("stranger's press answered %q", ans)
	}
	if n := len(h.tg.BotMessages(chat)); n != 3 {
		t.Errorf("%d bot messages, want 3 (one refusal only)", n)
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("%d LLM requests, want 2 (none for the stranger)", n)
	}
	if h.task("T1").Priority != nod.P3 {
		t.Errorf("the stranger's press changed T1")
	}
}

// 5. A forged token and another chat's set are refused; nothing changes.
func TestForgedAndForeignCallbacks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise the login bug")
	b, _ := set.Button("✓ 1")
	for _, data := range []string{"approve_all", "1c.zzzzzzzzzz.1", "1c." + strings.Repeat("a", 41) + ".1", "1c.<b>x</b>.1"} {
		ans := h.tg.WaitAnswer(h.tg.Press(chat, user, set.ID, data))
		if !strings.Contains(ans, "not valid") {
			t.Errorf("forged %q answered %q", data, ans)
		}
	}
	// The real token, pressed in chat 200 by the same (allowed) user.
	ans := h.tg.WaitAnswer(h.tg.Press(200, user, 1, b.Data))
	if !strings.Contains(ans, "not valid") {
		t.Errorf("another chat's token answered %q", ans)
	}
	// Another allowed user in the same chat may not decide 42's set.
	ans = h.tg.WaitAnswer(h.tg.Press(chat, 43, set.ID, b.Data))
	if !strings.Contains(ans, "Only the person who asked") {
		t.Errorf("other user's press answered %q", ans)
	}
	if h.task("T1").Priority != nod.P3 || len(h.audit(200)) != 0 {
		t.Errorf("a refused press changed something")
	}
}

// 6. Chat isolation: chat A cannot read chat B's task, and B's tasks never
// reach A's prompts.
func TestChatIsolation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	b := h.seed(200, nod.Task{Title: "Chat B secret plan"})
	h.script(
		openaitest.Calls(call("a", "get_task", map[string]any{"task_id": b.ID})),
		openaitest.Text("No such task."),
	)
	h.start()
	h.tg.SendText(chat, user, "show me task "+string(b.ID))
	h.tg.WaitBotMessages(chat, 1)
	reqs := h.llm.Requests()
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["a"]; !strings.Contains(r, `"error"`) || !strings.Contains(r, "does not exist") {
		t.Errorf("get_task of chat B's task from chat A = %q", r)
	}
	for _, r := range reqs {
		if strings.Contains(string(r.Raw), "secret plan") {
			t.Errorf("chat B's task reached chat A's request")
		}
	}
}

// 7. An unknown tool, malformed JSON and an invented id each get an error
// result; the turn finishes with a reply.
func TestBadToolCalls(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(
		openaitest.Calls(
			call("u", "archive_task", map[string]any{"task_id": "T1"}),
			call("m", "set_task_priority", `{"task_id": "T1", "priority": `),
			call("g", "get_task", map[string]any{"task_id": "T-404"}),
			call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P5"}),
		),
		openaitest.Text("Sorry, I could not do that."),
	)
	h.start()
	h.tg.SendText(chat, user, "archive the login bug")
	msgs := h.tg.WaitBotMessages(chat, 1)
	if msgs[0].Text != "Sorry, I could not do that." {
		t.Errorf("reply = %q", msgs[0].Text)
	}
	results := h.llm.RequestsFor(agentM)[1].ToolResults()
	for id, want := range map[string]string{"u": "archive_task", "m": "not a JSON object", "g": "does not exist", "p": "P0, P1, P2, P3"} {
		if !strings.Contains(results[id], `"error"`) || !strings.Contains(results[id], want) {
			t.Errorf("result of %s = %q, want an error mentioning %q", id, results[id], want)
		}
	}
	if strings.Contains(results["m"], `"priority": `) {
		t.Errorf("the malformed arguments were echoed: %q", results["m"])
	}
	if sets, _ := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{ChatID: chat}); len(sets) != 0 || h.task("T1").Priority != nod.P3 {
		t.Errorf("bad calls queued or changed something")
	}
	if got := outcomes(h.audit(chat)); !slices.Contains(got, "archive_task:failed") {
		t.Errorf("audit %v lacks the failed unknown tool", got)
	}
}

// 8. The model endpoint fails with 500, then times out: the person gets a
// clear message each time, and the conversation goes on.
func TestModelFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_STEP_TIMEOUT"] = "1s"
	h.script(
		openaitest.Response{Status: 500}, openaitest.Response{Status: 500}, openaitest.Response{Status: 500}, // with 2 retries
		openaitest.Response{Delay: 10 * time.Second},
		openaitest.Text("Hello again!"),
	)
	h.start()
	h.tg.SendText(chat, user, "hi")
	msgs := h.tg.WaitBotMessages(chat, 1)
	if !strings.Contains(msgs[0].Text, "couldn't reach the language model") {
		t.Errorf("after 500s: %q", msgs[0].Text)
	}
	h.tg.SendText(chat, user, "hi?")
	msgs = h.tg.WaitBotMessages(chat, 2)
	if !strings.Contains(msgs[1].Text, "couldn't reach the language model") {
		t.Errorf("after a timeout: %q", msgs[1].Text)
	}
	h.tg.SendText(chat, user, "are you there?")
	msgs = h.tg.WaitBotMessages(chat, 3)
	if msgs[2].Text != "Hello again!" {
		t.Errorf("after recovery: %q", msgs[2].Text)
	}
	last := h.llm.Requests()[len(h.llm.Requests())-1]
	var users []string
	for _, m := range last.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if !slices.Equal(users, []string{"hi", "hi?", "are you there?"}) {
		t.Errorf("the conversation lost messages: %q", users)
	}
}

// 9. HTML in a title and a 10,000-character description: escaped, split,
// accepted by Telegram (the fake rejects what Telegram would); the
// model's Markdown bold and code shown as such, not as asterisks.
func TestHTMLAndLongText(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	long := strings.Repeat("All work and no play makes Jack a dull boy. ", 230)
	h.script(
		openaitest.Calls(call("a", "create_task", map[string]any{"title": "<b>&</b> <script>", "description": long})),
		openaitest.Text("Here is the description:\n"+long+"\n<i>done</i> & more: **read it** with `/tasks <all>`"),
	)
	h.start()
	h.tg.SendText(chat, user, "add it")
	set := h.changeSetMessage(chat, 4) // the reply in 3 parts, then the set
	msgs := h.tg.BotMessages(chat)
	for _, m := range msgs[:3] {
		if !m.HTML {
			t.Errorf("message %d not in HTML mode", m.ID)
		}
	}
	if !strings.Contains(msgs[2].Text, "&lt;i&gt;done&lt;/i&gt; &amp; more: <b>read it</b> with <code>/tasks &lt;all&gt;</code>") {
		t.Errorf("model text not escaped: %q", msgs[2].Text[len(msgs[2].Text)-60:])
	}
	if !strings.Contains(set.Text, "&lt;b&gt;&amp;&lt;/b&gt; &lt;script&gt;") {
		t.Errorf("title not escaped in set: %q", set.Text)
	}
	h.tap(chat, user, set.ID, "✓ 1")
	h.tg.WaitMessage(chat, set.ID, "applied", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Applied") })
	h.tg.SendText(chat, user, "/tasks")
	list := h.tg.WaitBotMessages(chat, 5)[4]
	if _, ok := list.Button("▫️ <b>&</b> <script>"); !ok {
		t.Errorf("/tasks buttons = %v", buttonTexts(list))
	}
	h.tap(chat, user, list.ID, "▫️ <b>")
	card := h.tg.WaitBotMessages(chat, 6)[5]
	if !strings.Contains(card.Text, "more characters") {
		t.Errorf("task card does not shorten the description: %d chars", len(card.Text))
	}
}

// 10. A change set proposed before a restart can be confirmed after it.
func TestConfirmAfterRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise the login bug")
	h.stop()

	h.start()
	ans := h.tap(chat, user, set.ID, "✓ 1")
	if !strings.Contains(ans, "Applied") || h.task("T1").Priority != nod.P1 {
		t.Errorf("after restart: answer %q, priority %s", ans, h.task("T1").Priority)
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("%d LLM requests: the old message was handled again after restart", n)
	}
}
