package main

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// bulkTurn has the person ask for n tasks in one message and the model
// create them in one step; the classifier finds each asked for in that
// message. It returns the receipt, the turn's first message.
func (h *harness) bulkTurn(n int) telegramtest.Message {
	h.t.Helper()
	var titles []string
	var calls []openaitest.ToolCall
	var verdicts []string
	for i := range n {
		title := fmt.Sprintf("Task number %d", i+1)
		titles = append(titles, title)
		calls = append(calls, call(fmt.Sprintf("c%d", i), "create_task", map[string]any{"title": title}))
	}
	said := "add these tasks: " + strings.Join(titles, ", ")
	for range n {
		verdicts = append(verdicts, "explicit:"+said)
	}
	h.clf = answer(verdicts...)
	h.script(openaitest.Calls(calls...), openaitest.Text("Added them."))
	h.start()
	h.tg.SendText(chat, user, said)
	msgs := h.tg.WaitBotMessages(chat, 2)
	h.settleMessages()
	return msgs[0]
}

// liveTasks lists the chat's tasks that are not in the trash.
func (h *harness) liveTasks() []nod.Task {
	h.t.Helper()
	tasks, err := h.db.Tasks().ListTasks(h.t.Context(), chat, nod.TaskFilter{})
	if err != nil {
		h.t.Fatal(err)
	}
	return slices.DeleteFunc(tasks, func(t nod.Task) bool { return t.DeletedAt != nil })
}

// docs/design.md §14: 23 tasks asked for at once get one short receipt:
// one line each (cut with "… and 8 more"), the person's words quoted
// once, and Undo all beside Undo one…. Undo one… pages the changes,
// a tap undoes one; Undo all takes back the rest in one transaction,
// each recorded once; a second tap changes nothing.
func TestBulkReceiptUndoAllAndOne(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(23)
	if n := len(h.tg.BotMessages(chat)); n != 2 {
		t.Fatalf("%d messages, want the one receipt and the reply", n)
	}
	for _, want := range []string{"✅ <b>23 tasks added</b>", "\n1. Task number 1\n", "\n15. Task number 15\n", "… and 8 more", "because you said “add these tasks: Task number 1,"} {
		if !strings.Contains(receipt.Text, want) {
			t.Errorf("receipt lacks %q:\n%s", want, receipt.Text)
		}
	}
	if lines, _, _ := strings.Cut(receipt.Text, "because"); strings.Count(receipt.Text, "because you said") != 1 || strings.Contains(lines, "Task number 16") || strings.Contains(receipt.Text, "Priority") {
		t.Errorf("receipt repeats itself or says more than the titles:\n%s", receipt.Text)
	}
	if got := buttonTexts(receipt); !slices.Equal(got, []string{"↩️ Undo all", "↩️ Undo one…"}) {
		t.Errorf("receipt buttons = %v", got)
	}
	if n := len(h.liveTasks()); n != 23 {
		t.Fatalf("%d tasks, want 23", n)
	}

	// Undo one…: a page of eight, then the next page.
	h.tap(chat, user, receipt.ID, "↩️ Undo one…")
	page := h.tg.WaitMessage(chat, receipt.ID, "the first page", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 1. ") })
	if got := buttonTexts(page); len(got) != 10 || got[7] != "↩️ Undo 8. Task number 8" || got[8] != "Page 2 ›" || got[9] != "↩️ Undo all" {
		t.Errorf("first page = %v", got)
	}
	h.tap(chat, user, receipt.ID, "Page 2 ›")
	page = h.tg.WaitMessage(chat, receipt.ID, "the second page", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 9. ") })
	if !hasButton(page, "‹ Page 1") || !hasButton(page, "Page 3 ›") {
		t.Errorf("second page = %v", buttonTexts(page))
	}
	undo10, _ := page.Button("↩️ Undo 10. ")
	if got := h.tap(chat, user, receipt.ID, "↩️ Undo 10. "); got != "Undone." {
		t.Errorf("Undo 10 answered %q", got)
	}
	page = h.tg.WaitMessage(chat, receipt.ID, "the page without 10", func(m telegramtest.Message) bool { return !hasButton(m, "↩️ Undo 10. ") })
	if !hasButton(page, "↩️ Undo 9. ") || !hasButton(page, "↩️ Undo 11. ") {
		t.Errorf("after Undo 10 the page = %v", buttonTexts(page))
	}
	live := h.liveTasks()
	if len(live) != 22 || slices.ContainsFunc(live, func(t nod.Task) bool { return t.Title == "Task number 10" }) {
		t.Fatalf("after Undo 10: %d tasks left", len(live))
	}

	// Undo all: the 22 left, at once.
	undoAll, _ := receipt.Button("↩️ Undo all")
	if got := h.tap(chat, user, receipt.ID, "↩️ Undo all"); got != "Undone." {
		t.Errorf("Undo all answered %q", got)
	}
	if n := len(h.liveTasks()); n != 0 {
		t.Errorf("%d tasks left after Undo all", n)
	}
	msgs := h.tg.WaitBotMessages(chat, 4)
	if !slices.ContainsFunc(msgs[3:], func(m telegramtest.Message) bool {
		return m.Text == "↩️ <b>Undone</b>: the 22 tasks added are gone again."
	}) {
		t.Errorf("no one message for the Undo all: %q", transcript(msgs[2:]))
	}
	if m, _ := h.tg.Message(chat, receipt.ID); len(m.Buttons()) != 0 {
		t.Errorf("the receipt keeps buttons after Undo all: %v", buttonTexts(m))
	}
	if n := h.count(nod.OutcomeUndone); n != 23 {
		t.Errorf("%d undone audit rows, want 23, one per change", n)
	}
	// Every task created went to the trash, where Restore finds it.
	if trash, err := h.db.Tasks().Trash(t.Context(), chat); err != nil || len(trash) != 23 {
		t.Errorf("the trash holds %d tasks (%v), want 23", len(trash), err)
	}

	// A second tap, and a stale one on a change of the page: nothing more.
	for _, b := range []telegramtest.Button{undoAll, undo10} {
		got := h.tg.WaitAnswer(h.tg.Press(chat, user, receipt.ID, b.Data))
		h.settle()
		if !strings.Contains(strings.ToLower(got), "already") {
			t.Errorf("a stale %q answered %q", b.Text, got)
		}
	}
	if n := h.count(nod.OutcomeUndone); n != 23 {
		t.Errorf("%d undone audit rows after more taps, want 23", n)
	}
}

// A short receipt shows the due dates its tasks were added with, read
// from the person's words: played, "by thursday" became 3 Dec, which
// only the model's closing words said.
func TestShortReceiptShowsDueDates(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const said = "need to: send sketches to Priya by thursday, buy printer ink, book dentist, renew domain before the 10th"
	h.clf = func(openaitest.Request) openaitest.Response {
		return openaitest.Text(`{"actions":[
			{"index":0,"level":"explicit","quote":"send sketches to Priya by thursday","quotes":[{"field":"due","quote":"send sketches to Priya by thursday"}],"reasoning":"listed"},
			{"index":1,"level":"explicit","quote":"buy printer ink","reasoning":"listed"},
			{"index":2,"level":"explicit","quote":"book dentist","reasoning":"listed"},
			{"index":3,"level":"explicit","quote":"renew domain before the 10th","quotes":[{"field":"due","quote":"renew domain before the 10th"}],"reasoning":"listed"}]}`)
	}
	h.script(openaitest.Calls(
		call("a", "create_task", map[string]any{"title": "Send sketches to Priya", "due_date": "2026-03-12"}),
		call("b", "create_task", map[string]any{"title": "Buy printer ink"}),
		call("c", "create_task", map[string]any{"title": "Book dentist appointment"}),
		call("d", "create_task", map[string]any{"title": "Renew domain", "due_date": "2026-03-09"})),
		openaitest.Text("Got all four."))
	h.start()
	h.tg.SendText(chat, user, said)
	receipt := botMessage(h, "✅ <b>4 tasks added</b>")
	for _, want := range []string{"\n1. Send sketches to Priya · due 12 Mar 2026\n", "\n2. Buy printer ink\n", "\n4. Renew domain · due 9 Mar 2026\n"} {
		if !strings.Contains(receipt.Text, want) {
			t.Errorf("the receipt lacks %q:\n%s", want, receipt.Text)
		}
	}
	// Undo one redraws it with its dates, once the receipt's buttons are
	// stored (a tap before that is refused, as on any message).
	botMessage(h, "Got all four.")
	h.settleMessages()
	h.tap(chat, user, receipt.ID, "↩️ Undo one…")
	h.tg.WaitMessage(chat, receipt.ID, "the first page", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 2. ") })
	h.tap(chat, user, receipt.ID, "↩️ Undo 2. ")
	h.tg.WaitMessage(chat, receipt.ID, "the receipt redrawn", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "<s>2. Buy printer ink</s> (undone)") && strings.Contains(m.Text, "\n4. Renew domain · due 9 Mar 2026\n")
	})
}

// Undo all is one transaction: when one change cannot be undone (its
// task went to the trash since), none is, and the person is told.
func TestBulkUndoAllIsAtomic(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(5)
	if !strings.Contains(receipt.Text, "5 tasks added") || strings.Contains(receipt.Text, "more") {
		t.Fatalf("receipt:\n%s", receipt.Text)
	}
	live := h.liveTasks()
	victim := live[slices.IndexFunc(live, func(t nod.Task) bool { return t.Title == "Task number 3" })]
	h.trashBehind(chat, victim.ID)
	h.clock.Advance(time.Minute)
	if got := h.tap(chat, user, receipt.ID, "↩️ Undo all"); !strings.Contains(strings.ToLower(got), "trash") {
		t.Errorf("Undo all answered %q, want it to name the trash", got)
	}
	if n := len(h.liveTasks()); n != 4 {
		t.Errorf("%d tasks left after a refused Undo all, want the 4 untouched", n)
	}
	if n := h.count(nod.OutcomeUndone); n != 0 {
		t.Errorf("%d undone audit rows after a refused Undo all", n)
	}
	if !hasButton(receipt, "↩️ Undo all") {
		t.Errorf("the receipt lost Undo all: %v", buttonTexts(receipt))
	}
}

// Receipts of up to three changes keep their form: a block and an Undo
// per change.
func TestBulkOfThreeKeepsReceipts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(3)
	if !strings.HasPrefix(receipt.Text, "✅ <b>3 tasks added</b>\n\n📋 ") || !strings.Contains(receipt.Text, "\n1. Created task") {
		t.Errorf("receipt of three:\n%s", receipt.Text)
	}
	if got := buttonTexts(receipt); !slices.Equal(got, []string{"↩️ Undo 1", "↩️ Undo 2", "↩️ Undo 3"}) {
		t.Errorf("receipt buttons = %v", got)
	}
}

// A daily review whose agent proposes and writes no line of its own
// still starts with the review's header, as one without proposals does,
// in the chat's language.
func TestDailyReviewWithProposalsHasHeader(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seed(chat, nod.Task{ID: "T2", Title: "Book flights", DueDate: "2026-03-12"})
	h.inBerlin(chat)
	h.tg.Wire().SetLanguage(user, "de-DE")
	h.start()
	h.tg.SendText(chat, user, "/daily 8:00")
	h.tg.WaitBotMessages(chat, 1)
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T2", "priority": "P1"})), openaitest.Text(""))
	h.clock.Set(time.Date(2026, 3, 12, 7, 0, 0, 0, time.UTC)) // 08:00 in Berlin
	h.changeSetMessage(chat, 3)
	if m := h.tg.BotMessages(chat)[1]; m.Text != "☀️ <b>Tägliche Durchsicht</b>\nIch habe deine Aufgaben durchgesehen: Was ich vorschlage, steht unten." {
		t.Errorf("the review's first message = %q", m.Text)
	}
}

// A German chat's first words from nod give German examples: /start and
// the empty task list.
func TestGermanStartExamples(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetLanguage(user, "de-DE")
	h.start()
	start := h.say("/start")
	if !strings.Contains(start.Text, "„Aufgabe Milch kaufen anlegen“") || strings.Contains(start.Text, "Buy milk") {
		t.Errorf("/start in German = %q", start.Text)
	}
	if m := h.say("/tasks"); !strings.Contains(m.Text, "„Aufgabe Milch kaufen anlegen“") {
		t.Errorf("/tasks of an empty German chat = %q", m.Text)
	}
}

// guessedLabel has the person ask for a task in plain words and the
// model add a label they never said. The classifier is played as a
// careful model: the call sets more than was asked, so it asks, unless
// it was told that a new task's guessed fields are nod's to ask about.
func (h *harness) guessedLabel() (set telegramtest.Message, task nod.Task) {
	h.t.Helper()
	h.clf = func(r openaitest.Request) openaitest.Response {
		if !strings.Contains(r.System(), "is \"explicit\" even when the action also sets fields they never mentioned") {
			return openaitest.Text(`{"actions":[{"index":0,"level":"needs_confirmation","quote":"","quotes":[],"reasoning":"the label was not asked for"}]}`)
		}
		return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"add buy milk","quotes":[],"reasoning":"the task was asked for; the label was not"}]}`)
	}
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Buy milk", "labels": []string{"shopping"}})), openaitest.Text("Added Buy milk."))
	h.start()
	h.tg.SendText(chat, user, "add buy milk")
	set = h.changeSetMessage(chat, 3)
	tasks := h.liveTasks()
	if len(tasks) != 1 {
		h.t.Fatalf("%d tasks, want Buy milk", len(tasks))
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["c"]; !strings.Contains(r, `its label \"shopping\" waits for the user's tap`) {
		h.t.Errorf("create_task's result = %q", r)
	}
	clf := h.llm.RequestsFor(clfM)
	if len(clf) != 1 || !strings.Contains(clf[0].LastUser(), `0. create_task: create a task titled "Buy milk" with labels: shopping`) {
		h.t.Errorf("the classifier was not shown the guessed label:\n%v", clf)
	}
	if len(clf) == 1 && !strings.Contains(clf[0].System(), "nod then creates the task with what they said and asks them about each guessed field on its own") {
		h.t.Errorf("the classifier was not told a guessed field asks on its own:\n%s", clf[0].System())
	}
	return set, tasks[0]
}

// docs/design.md §3.5: "add buy milk" creates the task at once; the
// label the model guessed is its own item of the change set, and ✓
// applies it.
func TestGuessedLabelAsksAlone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set, task := h.guessedLabel()
	if task.Title != "Buy milk" || len(task.Labels) != 0 {
		t.Errorf("created %+v; want Buy milk without the guessed label", task)
	}
	receipt := h.tg.BotMessages(chat)[0]
	if !strings.Contains(receipt.Text, "because you said “add buy milk”") || strings.Contains(receipt.Text, "shopping") || !hasButton(receipt, "↩️ Undo") {
		t.Errorf("receipt:\n%s %v", receipt.Text, buttonTexts(receipt))
	}
	if !strings.Contains(set.Text, "Buy milk") || !strings.Contains(set.Text, "shopping") || hasButton(set, "✓ 2") {
		t.Errorf("the change set is not the label alone:\n%s %v", set.Text, buttonTexts(set))
	}
	h.tap(chat, user, set.ID, "✓ 1")
	if got := h.task(task.ID).Labels; !slices.Equal(got, []string{"shopping"}) {
		t.Errorf("after ✓ 1 labels = %q", got)
	}
}

// A label confirmed on a new task whose creation was undone since: the
// agent's list of decisions says the task is in the trash, not that the
// label is on a task of the list; after the Redo it reads as before.
func TestDecisionOnATaskUndoneSaysItIsInTheTrash(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set, task := h.guessedLabel()
	h.tap(chat, user, set.ID, "✓ 1")
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": string(task.ID)})), openaitest.Text("It is in the trash."), openaitest.Text("It is back."))
	receipt := h.tg.BotMessages(chat)[0]
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	undone := h.tg.WaitBotMessages(chat, 4)[3]
	const line = `- confirmed: Add label shopping on task "Buy milk"`
	h.tg.SendText(chat, user, "did I label the milk?")
	h.tg.WaitBotMessages(chat, 5)
	reqs := h.llm.RequestsFor(agentM)
	if system := reqs[len(reqs)-1].System(); !strings.Contains(system, line+" (the task is in the trash now)\n") {
		t.Errorf("the agent was not told the label's task is in the trash:\n%s", system)
	}
	// Read, the task says how the person gets it back: the Redo on the
	// message that undid its creation, as well as a deletion's Undo.
	if r := reqs[len(reqs)-1].ToolResults()["g"]; !strings.Contains(r, "is in the trash") || !strings.Contains(r, "↪️ Redo on an undone creation's") {
		t.Errorf("get_task of the task undone returned %q", r)
	}
	h.tap(chat, user, undone.ID, "↪️ Redo")
	h.tg.SendText(chat, user, "and now?")
	h.tg.WaitBotMessages(chat, 7)
	reqs = h.llm.RequestsFor(agentM)
	if system := reqs[len(reqs)-1].System(); !strings.Contains(system, line+"\n") {
		t.Errorf("after the Redo the agent's decisions read:\n%s", system)
	}
}

// ✗ on the guessed label leaves the task as the person asked for it.
func TestGuessedLabelRejectedKeepsTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set, task := h.guessedLabel()
	h.tap(chat, user, set.ID, "✗ 1")
	if got := h.task(task.ID); got.DeletedAt != nil || len(got.Labels) != 0 || got.Title != "Buy milk" {
		t.Errorf("after ✗ 1: %+v", got)
	}
}

// A proposal shows the model's reason: its sentence beside the call that
// names the task, on one line under the item, escaped, and cut when long.
func TestProposalShowsItsReason(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T2", Title: "Prepare slides"})
	h.seed(chat, nod.Task{ID: "T3", Title: "Book room"})
	long := strings.Repeat("and the room must be booked before the slides are final ", 5)
	h.script(
		openaitest.Response{Text: "The slides are due Tuesday <b>soon</b>, so I'd raise this.", ToolCalls: []openaitest.ToolCall{
			call("p", "set_task_priority", map[string]any{"task_id": "T2", "priority": "P1"}),
		}},
		openaitest.Response{Text: long, ToolCalls: []openaitest.ToolCall{
			call("q", "set_task_priority", map[string]any{"task_id": "T3", "priority": "P1"}),
			call("d", "update_task_due_date", map[string]any{"task_id": "T3", "due_date": "2026-03-16"}),
		}},
		openaitest.Text("Proposed below."))
	h.start()
	h.tg.SendText(chat, user, "what should I do first?")
	set := h.changeSetMessage(chat, 2)
	if want := "Priority: P2 → P1\n💬 Why: <i>The slides are due Tuesday &lt;b&gt;soon&lt;/b&gt;, so I'd raise this.</i>"; !strings.Contains(set.Text, want) {
		t.Errorf("the change set lacks the first reason %q:\n%s", want, set.Text)
	}
	// One reason for the two items of one step, under the last of them, cut.
	if n := strings.Count(set.Text, "💬 Why:"); n != 2 {
		t.Errorf("%d reasons shown, want 2:\n%s", n, set.Text)
	}
	if !strings.Contains(set.Text, "Due: none → 16 Mar 2026\n💬 Why: <i>and the room must be booked") || !strings.Contains(set.Text, "…</i>") || strings.Contains(set.Text, strings.TrimSpace(long)) {
		t.Errorf("the second step's reason is not one cut line under its last item:\n%s", set.Text)
	}
	// It stays after a decision, read back from storage.
	h.tap(chat, user, set.ID, "✓ 1")
	if m, _ := h.tg.Message(chat, set.ID); !strings.Contains(m.Text, "The slides are due Tuesday") {
		t.Errorf("the edited set lost the reason:\n%s", m.Text)
	}
}

// The model's opening filler is no reason: an item whose step's text
// names nothing of it shows no 💬 Why, while a step whose text gives its
// reason for the task shows it (docs/design.md, Why).
func TestProposalShowsNoFillerAsReason(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T2", Title: "Prepare slides"})
	h.seed(chat, nod.Task{ID: "T3", Title: "Book room"})
	h.script(
		openaitest.Response{Text: "Sure! Let me set that up.", ToolCalls: []openaitest.ToolCall{
			call("p", "set_task_priority", map[string]any{"task_id": "T2", "priority": "P1"}),
		}},
		openaitest.Response{Text: "Got it.\nThe room is booked out fast, so it goes first.", ToolCalls: []openaitest.ToolCall{
			call("q", "set_task_priority", map[string]any{"task_id": "T3", "priority": "P0"}),
		}},
		openaitest.Text("Proposed below."))
	h.start()
	h.tg.SendText(chat, user, "sort out my week")
	set := h.changeSetMessage(chat, 2)
	if strings.Contains(set.Text, "Sure") || strings.Contains(set.Text, "Let me") || strings.Contains(set.Text, "Got it") {
		t.Errorf("the change set shows the model's filler as a reason:\n%s", set.Text)
	}
	if n := strings.Count(set.Text, "💬 Why:"); n != 1 {
		t.Errorf("%d reasons shown, want 1:\n%s", n, set.Text)
	}
	if want := "Priority: P2 → P0\n💬 Why: <i>The room is booked out fast, so it goes first.</i>"; !strings.Contains(set.Text, want) {
		t.Errorf("the change set lacks the room's reason %q:\n%s", want, set.Text)
	}
}

// A label's reason names the label. Played, "Sketches are due Thursday"
// showed as the reason for labelling the sketches "work".
func TestLabelsReasonNamesTheLabel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T2", Title: "Send sketches to Priya"})
	h.seed(chat, nod.Task{ID: "T3", Title: "Book room"})
	h.script(
		openaitest.Response{Text: "The sketches are due Thursday (3 Dec).", ToolCalls: []openaitest.ToolCall{
			call("p", "assign_task_labels", map[string]any{"task_id": "T2", "labels": []string{"work"}}),
		}},
		openaitest.Response{Text: "The room is for the offsite, so it gets the offsite label.", ToolCalls: []openaitest.ToolCall{
			call("q", "assign_task_labels", map[string]any{"task_id": "T3", "labels": []string{"offsite"}}),
		}},
		openaitest.Text("Proposed below."))
	h.start()
	h.tg.SendText(chat, user, "sort my labels out")
	set := h.changeSetMessage(chat, 2)
	if strings.Contains(set.Text, "due Thursday") {
		t.Errorf("a sentence that does not name the label shows as its reason:\n%s", set.Text)
	}
	if want := "Labels: none → offsite\n💬 Why: <i>The room is for the offsite, so it gets the offsite label.</i>"; !strings.Contains(set.Text, want) {
		t.Errorf("the change set lacks the offsite label's reason %q:\n%s", want, set.Text)
	}
}

// One sentence beside calls on two tasks is the reason for both: shown
// once, it names their items, so that it does not read as the last
// task's alone (a play: a label for three tasks read as the invoice's).
func TestOneReasonForTwoTasksNamesTheirItems(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T2", Title: "Prepare slides"})
	h.seed(chat, nod.Task{ID: "T3", Title: "Book room"})
	h.script(
		openaitest.Response{Text: "Both are for the offsite, so I suggest the offsite label on each.", ToolCalls: []openaitest.ToolCall{
			call("p", "assign_task_labels", map[string]any{"task_id": "T2", "labels": []string{"offsite"}}),
			call("q", "assign_task_labels", map[string]any{"task_id": "T3", "labels": []string{"offsite"}}),
		}},
		openaitest.Text("Proposed below."))
	h.start()
	h.tg.SendText(chat, user, "sort out my week")
	set := h.changeSetMessage(chat, 2)
	want := "💬 Why (1, 2): <i>Both are for the offsite, so I suggest the offsite label on each.</i>"
	if !strings.Contains(set.Text, want) || strings.Count(set.Text, "💬") != 1 {
		t.Errorf("the change set lacks %q once:\n%s", want, set.Text)
	}
}

// Undo all is the person's one decision: taking back five changes at
// once does not trip the circuit breaker, which two undos do.
func TestBulkUndoAllCountsOnceForTheBreaker(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(5)
	h.tap(chat, user, receipt.ID, "↩️ Undo all")
	h.tg.WaitBotMessages(chat, 3)
	s, err := h.db.Settings().ChatSettings(t.Context(), chat, user)
	if err != nil || s.Effective(h.clock.Now()) != nod.ModeSmart {
		t.Errorf("after one Undo all the mode is %q (%v), want smart", s.Effective(h.clock.Now()), err)
	}
	if n := len(h.liveTasks()); n != 0 {
		t.Errorf("%d tasks left", n)
	}
}

// A change undone from Undo one… is struck through on the short
// receipt, which counts it ("10 tasks added, 1 of them undone") and
// still says why nod did not ask; its page no longer offers it. A Redo
// applies it again as a change of its own, with its own Undo: the
// receipt reads it as applied again, and Undo all takes back only the
// nine still applied by it, striking those nine.
func TestBulkReceiptRedrawnAfterUndoOne(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(10)
	h.tap(chat, user, receipt.ID, "↩️ Undo one…")
	h.tg.WaitMessage(chat, receipt.ID, "the first page", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 3. ") })
	h.tap(chat, user, receipt.ID, "↩️ Undo 3. ")
	m := h.tg.WaitMessage(chat, receipt.ID, "the receipt redrawn", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "<s>") })
	for _, want := range []string{"✅ <b>10 tasks added</b>, 1 of them undone\n", "\n<s>3. Task number 3</s> (undone)\n", "\n4. Task number 4\n", "\n\n<i>because you said “add these tasks: Task number 1,"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the receipt lacks %q:\n%s", want, m.Text)
		}
	}
	if strings.Count(m.Text, "<s>") != 1 || hasButton(m, "↩️ Undo 3. ") || !hasButton(m, "↩️ Undo 4. ") || !hasButton(m, "↩️ Undo all") {
		t.Errorf("the receipt after Undo 3:\n%s\n%v", m.Text, buttonTexts(m))
	}

	undone := botMessage(h, "↩️ Undone")
	h.tap(chat, user, undone.ID, "↪️ Redo")
	if n := len(h.liveTasks()); n != 10 {
		t.Fatalf("%d tasks after Redo, want 10", n)
	}
	// Redone from the Undone message, change 3 reads as applied again.
	m = h.tg.WaitMessage(chat, receipt.ID, "the receipt after Redo", func(m telegramtest.Message) bool { return !strings.Contains(m.Text, "<s>") })
	if !strings.HasPrefix(m.Text, "✅ <b>10 tasks added</b>\n") || !strings.Contains(m.Text, "\n3. Task number 3\n") || !hasButton(m, "↩️ Undo all") {
		t.Errorf("the receipt after Redo:\n%s\n%v", m.Text, buttonTexts(m))
	}

	h.tap(chat, user, receipt.ID, "↩️ Undo all")
	live := h.liveTasks()
	if len(live) != 1 || live[0].Title != "Task number 3" {
		t.Fatalf("after Undo all %d tasks are left, want the redone one", len(live))
	}
	// The redone change stands: its line is not struck.
	m = h.tg.WaitMessage(chat, receipt.ID, "the receipt struck", func(m telegramtest.Message) bool { return strings.Count(m.Text, "<s>") == 9 })
	if !strings.HasPrefix(m.Text, "✅ <b>10 tasks added</b>, 9 of them undone") || strings.Contains(m.Text, "<s>3.") || len(m.Buttons()) != 0 || !strings.Contains(m.Text, "<i>because you said") {
		t.Errorf("the receipt after Undo all:\n%s\n%v", m.Text, buttonTexts(m))
	}
}

// A receipt of several changes says which of them were undone since:
// Undo 2 strikes change 2 out and counts it, keeping the other Undos; a
// change put back with Redo reads as applied again, its Undo on the
// Redo's message (docs/design.md §6: a message that reported a change
// is edited when the change is undone).
func TestReceiptOfSeveralMarksItsUndos(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(3)
	h.tap(chat, user, receipt.ID, "↩️ Undo 2")
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt to strike change 2", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "↩️ <s>2. ")
	})
	if !strings.Contains(receipt.Text, "✅ <b>3 tasks added</b>") || !strings.Contains(receipt.Text, "↩️ 1 of 3 undone since.") ||
		!strings.Contains(receipt.Text, "\n1. Created task") || !strings.Contains(receipt.Text, "\n3. Created task") {
		t.Errorf("receipt after Undo 2:\n%s", receipt.Text)
	}
	if got := buttonTexts(receipt); !slices.Equal(got, []string{"↩️ Undo 1", "↩️ Undo 3"}) {
		t.Errorf("buttons after Undo 2 = %v", got)
	}
	if n := len(h.liveTasks()); n != 2 {
		t.Errorf("%d tasks after Undo 2, want 2", n)
	}

	h.tap(chat, user, botMessage(h, "↩️ Undone").ID, "↪️ Redo")
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt to show change 2 applied again", func(m telegramtest.Message) bool {
		return !strings.Contains(m.Text, "<s>")
	})
	if strings.Contains(receipt.Text, "undone since") || !strings.Contains(receipt.Text, "\n2. Created task") {
		t.Errorf("receipt after Redo 2:\n%s", receipt.Text)
	}
	if got := buttonTexts(receipt); !slices.Equal(got, []string{"↩️ Undo 1", "↩️ Undo 3"}) {
		t.Errorf("buttons after Redo 2 = %v, want 2's Undo on the Redo's message only", got)
	}
	h.tap(chat, user, receipt.ID, "↩️ Undo 1")
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt to strike change 1", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "↩️ <s>1. ")
	})
	if !strings.Contains(receipt.Text, "\n2. Created task") || !strings.Contains(receipt.Text, "↩️ 1 of 3 undone since.") {
		t.Errorf("receipt after Redo 2 and Undo 1:\n%s", receipt.Text)
	}
	if got := buttonTexts(receipt); !slices.Equal(got, []string{"↩️ Undo 3"}) {
		t.Errorf("buttons after Redo 2 and Undo 1 = %v, want only Undo 3: 2's Undo is on its Redo's message", got)
	}
}

// Once every change of a receipt of several is undone, it says so and
// has no Undo left.
func TestReceiptOfSeveralAllUndone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(2)
	h.tap(chat, user, receipt.ID, "↩️ Undo 1")
	h.tg.WaitMessage(chat, receipt.ID, "the receipt to strike change 1", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "↩️ <s>1. ") })
	h.tap(chat, user, receipt.ID, "↩️ Undo 2")
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt to say all is undone", func(m telegramtest.Message) bool {
		return strings.HasPrefix(m.Text, "↩️ <b>Undone</b>")
	})
	for _, n := range []string{"1", "2"} {
		if !strings.Contains(receipt.Text, "↩️ <s>"+n+". Created task") {
			t.Errorf("change %s not struck out:\n%s", n, receipt.Text)
		}
	}
	if strings.Contains(receipt.Text, "undone since") || len(buttonTexts(receipt)) != 0 {
		t.Errorf("all undone:\n%s\n%v", receipt.Text, buttonTexts(receipt))
	}
	if n := len(h.liveTasks()); n != 0 {
		t.Errorf("%d tasks after two Undos, want none", n)
	}
}

// A receipt of one change reads as what became of it however the
// change was taken back or put back: Undo on it says undone, Redo from
// the Undone message shows it applied again (its Undo now on the Redo's
// message), and /undo of the change again says undone.
func TestReceiptOfOneFollowsRedo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.bulkTurn(1)
	sent := receipt.Text
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	h.tg.WaitMessage(chat, receipt.ID, "the receipt to say undone", func(m telegramtest.Message) bool { return m.Text != sent })
	undone := botMessage(h, "↩️ Undone")
	h.tap(chat, user, undone.ID, "↪️ Redo")
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt as sent", func(m telegramtest.Message) bool { return m.Text == sent })
	// The Undone message no longer reads as the last word.
	undone = h.tg.WaitMessage(chat, undone.ID, "the Undone message to say it was redone", func(m telegramtest.Message) bool {
		return strings.HasSuffix(m.Text, "</s>\n↪️ Redone since.")
	})
	if !strings.HasPrefix(undone.Text, "<s>↩️ Undone: ") || len(buttonTexts(undone)) != 0 {
		t.Errorf("the Undone message after its Redo: %q %v", undone.Text, buttonTexts(undone))
	}
	if len(buttonTexts(receipt)) != 0 {
		t.Errorf("the receipt after Redo has %v; its Undo is on the Redo's message", buttonTexts(receipt))
	}
	again := botMessage(h, "↪️ Redone")
	if !hasButton(again, "↩️ Undo") {
		t.Fatalf("the Redo's message has no Undo: %v", buttonTexts(again))
	}
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "/undo")
	// Undoing the Redo takes the change back: an undo, not a redo.
	if m := h.tg.WaitBotMessages(chat, n+1)[n]; !strings.HasPrefix(m.Text, "↩️ Undone") {
		t.Errorf("/undo after a Redo answered %q", m.Text)
	}
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt to say undone again", func(m telegramtest.Message) bool { return m.Text != sent })
	if !strings.Contains(receipt.Text, "Task number 1") || strings.Contains(receipt.Text, "✅") {
		t.Errorf("the receipt after /undo:\n%s", receipt.Text)
	}
	if n := len(h.liveTasks()); n != 0 {
		t.Errorf("%d tasks after /undo, want none", n)
	}
}

// presentForMia starts nod, and the person adds a task with its due
// date, both asked for: it returns the receipt of the two changes.
func (h *harness) presentForMia() telegramtest.Message {
	h.t.Helper()
	h.clf = func(openaitest.Request) openaitest.Response {
		return openaitest.Text(`{"actions":[{"index":0,"level":"explicit","quote":"add buy a present for Mia","quotes":[{"field":"due","quote":"by Friday"}],"reasoning":"asked, with its day"}]}`)
	}
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Buy a present for Mia", "due_date": "2026-03-13"})), openaitest.Text(""))
	h.start()
	h.tg.SendText(chat, user, "add buy a present for Mia by Friday")
	return h.receiptOf("Due: none →")
}

// A task created with a field of its own (a due date the person gave
// beside its title) gets a receipt of two changes; undoing its creation
// takes the other along: the task is in the trash, so the receipt strikes
// both and keeps no Undo that would change nothing (found in a play-test:
// "Undo 2" stayed, and tapping it said the task was in the trash).
func TestReceiptOfACreationUndoneTakesItsFieldsAlong(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	receipt := h.presentForMia()
	if got := buttonTexts(receipt); !slices.Equal(got, []string{"↩️ Undo 1", "↩️ Undo 2"}) {
		t.Fatalf("the receipt's buttons = %v\n%s", got, receipt.Text)
	}
	h.tap(chat, user, receipt.ID, "↩️ Undo 1")
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt to say all is undone", func(m telegramtest.Message) bool {
		return strings.HasPrefix(m.Text, "↩️ <b>Undone</b>")
	})
	for _, want := range []string{"↩️ <s>1. Created task “Buy a present for Mia”</s>", "↩️ <s>2. Due: none → "} {
		if !strings.Contains(receipt.Text, want) {
			t.Errorf("the receipt lacks %q:\n%s", want, receipt.Text)
		}
	}
	if got := buttonTexts(receipt); len(got) != 0 {
		t.Errorf("after its creation's Undo the receipt keeps %v", got)
	}
	// Its Redo brings both back, and their Undos with the Redo's message.
	undone := h.tg.WaitBotMessages(chat, 2)[1]
	h.tap(chat, user, undone.ID, "↪️ Redo")
	receipt = h.tg.WaitMessage(chat, receipt.ID, "the receipt to read as applied", func(m telegramtest.Message) bool {
		return strings.HasPrefix(m.Text, "✅ <b>Task added</b>")
	})
	if !strings.Contains(receipt.Text, "\n2. Due: none → ") || !hasButton(receipt, "↩️ Undo 2") {
		t.Errorf("after the Redo the receipt reads:\n%s\n%v", receipt.Text, buttonTexts(receipt))
	}
}

// A receipt sent while the model writes on can be pressed before its
// buttons are recorded (found by a CI run under load): the press is
// checked against Telegram's copy of them, and the receipt is redrawn
// from that copy as it would be from the record.
func TestReceiptPressedBeforeItsButtonsAreRecorded(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "removes a SQLite row to stand for a record not yet written")
	h := newHarness(t)
	receipt := h.presentForMia()
	h.settleMessages()
	db, err := sql.Open("sqlite", h.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM button_messages WHERE chat_id = ? AND message_id = ?`, chat, receipt.ID); err != nil {
		t.Fatal(err)
	}
	if ans := h.tap(chat, user, receipt.ID, "↩️ Undo 1"); ans != "Undone." {
		t.Errorf("the press answered %q", ans)
	}
	h.tg.WaitMessage(chat, receipt.ID, "the receipt to say all is undone", func(m telegramtest.Message) bool {
		return strings.HasPrefix(m.Text, "↩️ <b>Undone</b>") && strings.Contains(m.Text, "↩️ <s>2. Due: none → ")
	})
}

// On a short receipt, a task's creation undone from Undo one… takes its
// other changes along: struck, and off the page, whose Undo would change
// nothing on a task in the trash.
func TestBulkUndoOneOfACreationTakesItsFieldsAlong(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	said := "add these tasks: Task number 1, Task number 2, Task number 3, Task number 4 by Friday"
	var calls []openaitest.ToolCall
	var verdicts []string
	for i := range 4 {
		args := map[string]any{"title": fmt.Sprintf("Task number %d", i+1)}
		quotes := "[]"
		if i == 3 {
			args["due_date"], quotes = "2026-03-13", `[{"field":"due","quote":"by Friday"}]`
		}
		calls = append(calls, call(fmt.Sprintf("c%d", i), "create_task", args))
		verdicts = append(verdicts, fmt.Sprintf(`{"index":%d,"level":"explicit","quote":%q,"quotes":%s,"reasoning":"asked"}`, i, said, quotes))
	}
	h.clf = func(openaitest.Request) openaitest.Response {
		return openaitest.Text(`{"actions":[` + strings.Join(verdicts, ",") + `]}`)
	}
	h.script(openaitest.Calls(calls...), openaitest.Text("Added them."))
	h.start()
	h.tg.SendText(chat, user, said)
	receipt := h.tg.WaitBotMessages(chat, 2)[0]
	h.settleMessages()
	// The due date's line follows its task's and reads as its, not as a
	// fifth task.
	if !strings.Contains(receipt.Text, "4. Task number 4\n5. ↳ Set due date to 13 Mar 2026\n") {
		t.Fatalf("the receipt has no fifth change, the due date, under its task:\n%s", receipt.Text)
	}
	// Five changes, four tasks asked for: the due date is part of adding one.
	if !strings.HasPrefix(receipt.Text, "✅ <b>4 tasks added</b>\n") {
		t.Errorf("the receipt's header does not say four tasks were added:\n%s", receipt.Text)
	}
	h.tap(chat, user, receipt.ID, "↩️ Undo one…")
	h.tg.WaitMessage(chat, receipt.ID, "the page", func(m telegramtest.Message) bool { return hasButton(m, "↩️ Undo 4. ") })
	h.tap(chat, user, receipt.ID, "↩️ Undo 4. ")
	m := h.tg.WaitMessage(chat, receipt.ID, "the receipt redrawn", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "<s>") })
	if !strings.HasPrefix(m.Text, "✅ <b>4 tasks added</b>, 1 of them undone\n") {
		t.Errorf("the redrawn header does not count the task undone:\n%s", m.Text)
	}
	if !strings.Contains(m.Text, "<s>4. Task number 4</s>") || !strings.Contains(m.Text, "<s>5. ↳ Set due date to 13 Mar 2026</s>") {
		t.Errorf("the creation and its due date are not both struck:\n%s", m.Text)
	}
	if hasButton(m, "↩️ Undo 5. ") || !hasButton(m, "↩️ Undo 3. ") {
		t.Errorf("after the creation's Undo the page offers %v", buttonTexts(m))
	}
}
