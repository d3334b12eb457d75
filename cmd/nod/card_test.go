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

// openCard sends /tasks as userID and opens the card of the task titled
// title from the list, or from its done tasks; it returns the card.
func (h *harness) openCard(chatID, userID int64, title string) telegramtest.Message {
	h.t.Helper()
	n := len(h.tg.BotMessages(chatID))
	h.tg.SendText(chatID, userID, "/tasks")
	list := h.tg.WaitBotMessages(chatID, n+1)[n]
	for range 2 {
		for _, b := range list.Buttons() {
			if strings.HasSuffix(b.Text, " "+title) {
				h.tg.WaitAnswer(h.tg.Press(chatID, userID, list.ID, b.Data))
				h.settle()
				return h.tg.WaitBotMessages(chatID, n+2)[n+1]
			}
		}
		if !hasButton(list, "✅ Done") {
			break
		}
		h.tap(chatID, userID, list.ID, "✅ Done")
		list = h.tg.WaitMessage(chatID, list.ID, "the done tasks", func(m telegramtest.Message) bool { return m.Edits == 1 })
	}
	h.t.Fatalf("/tasks has no button for %q: %v", title, buttonTexts(list))
	return telegramtest.Message{}
}

// card waits for the card message id to be edited to its edits-th form.
func (h *harness) card(chatID int64, id, edits int) telegramtest.Message {
	h.t.Helper()
	return h.tg.WaitMessage(chatID, id, "the card edited", func(m telegramtest.Message) bool { return m.Edits >= edits })
}

// statusRows counts the chat's audit rows of tool set_task_status the
// person's taps wrote.
func (h *harness) statusRows(chatID int64) int {
	n := 0
	for _, a := range h.audit(chatID) {
		if a.Tool == nod.ToolSetStatus && a.UserConfirmed {
			n++
		}
	}
	return n
}

// A card's ✓ Done closes the task at once, audited, and the card shows it
// done with its Undo; Undo opens it again and the card offers ✓ Done
// again (beside Undo a ↩️ Reopen would offer the same twice). ↩️ Reopen
// on a done task's card opens it, with its Undo.
func TestCardDoneUndoReopen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "B1", Title: "Buy milk"})
	h.seed(chat, nod.Task{ID: "S1", Title: "Sent invoices", Status: nod.StatusDone})
	h.script(openaitest.Text("Hi."), openaitest.Text("Noted."))
	h.start()
	h.tg.SendText(chat, user, "hi")
	h.tg.WaitBotMessages(chat, 1)
	h.clock.Set(h.clock.Now().Add(time.Minute)) // the taps come after the turn
	card := h.openCard(chat, user, "Buy milk")
	if !hasButton(card, "✓ Done") || hasButton(card, "⏰") || hasButton(card, "↩️") {
		t.Fatalf("an open task's card without reminder: %v", buttonTexts(card))
	}

	if got := h.tap(chat, user, card.ID, "✓ Done"); got != "" {
		t.Errorf("✓ Done answered %q", got)
	}
	if st := h.task("B1").Status; st != nod.StatusDone {
		t.Fatalf("after ✓ Done: %s", st)
	}
	done := h.card(chat, card.ID, 1)
	if !strings.Contains(done.Text, "Done") || !hasButton(done, "↩️ Undo") || hasButton(done, "↩️ Reopen") || hasButton(done, "✓ Done") {
		t.Errorf("the card after ✓ Done: %q %v", done.Text, buttonTexts(done))
	}
	if n := h.statusRows(chat); n != 1 {
		t.Errorf("%d audit rows of the tap, want 1", n)
	}

	h.tap(chat, user, card.ID, "↩️ Undo")
	if st := h.task("B1").Status; st != nod.StatusOpen {
		t.Fatalf("after Undo: %s, want OPEN", st)
	}
	undone := h.card(chat, card.ID, 2)
	if !hasButton(undone, "✓ Done") || hasButton(undone, "↩️ Undo") {
		t.Errorf("the card after Undo: %q %v", undone.Text, buttonTexts(undone))
	}

	closed := h.openCard(chat, user, "Sent invoices")
	if !hasButton(closed, "↩️ Reopen") || hasButton(closed, "✓ Done") {
		t.Fatalf("a done task's card: %v", buttonTexts(closed))
	}
	h.tap(chat, user, closed.ID, "↩️ Reopen")
	if st := h.task("S1").Status; st != nod.StatusOpen {
		t.Fatalf("after ↩️ Reopen: %s, want OPEN", st)
	}
	reopened := h.card(chat, closed.ID, 1)
	if !hasButton(reopened, "✓ Done") || !hasButton(reopened, "↩️ Undo") {
		t.Errorf("the card after ↩️ Reopen: %q %v", reopened.Text, buttonTexts(reopened))
	}

	// The agent is told what the card's buttons did, as what they were.
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "what did I do?")
	h.tg.WaitBotMessages(chat, n+1)
	reqs := h.llm.RequestsFor(agentM)
	var told string
	for _, m := range reqs[len(reqs)-1].Messages {
		told += m.Content + "\n"
	}
	for _, want := range []string{"the user marked the task “Buy milk” (id B1) done on its card", "the user reopened the task “Sent invoices” (id S1) on its card (status OPEN)"} {
		if !strings.Contains(told, want) {
			t.Errorf("the agent was not told %q:\n%s", want, told)
		}
	}
	if strings.Contains(told, "from its reminder") {
		t.Errorf("the agent was told of a reminder:\n%s", told)
	}
}

// Two presses of one card's ✓ Done apply once: the second finds the task
// done and says the card was out of date. A card whose task's reminder
// moved since (on another card) changes nothing and is brought up to
// date.
func TestCardDoubleAndStaleTaps(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	at := h.clock.Now().Add(2 * time.Hour)
	h.seed(chat, nod.Task{ID: "B1", Title: "Buy milk"})
	h.seed(chat, nod.Task{ID: "P1", Title: "Pay rent", RemindAt: &at})
	h.start()

	card := h.openCard(chat, user, "Buy milk")
	b, _ := card.Button("✓ Done")
	first, second := h.tg.Press(chat, user, card.ID, b.Data), h.tg.Press(chat, user, card.ID, b.Data)
	answers := []string{h.tg.WaitAnswer(first), h.tg.WaitAnswer(second)}
	h.settle()
	slices.Sort(answers) // the presses may be handled in either order
	if answers[0] != "" || !strings.Contains(answers[1], "nothing was changed") {
		t.Errorf("two presses answered %q", answers)
	}
	if n := h.statusRows(chat); n != 1 {
		t.Errorf("two presses wrote %d audit rows, want 1", n)
	}

	old := h.openCard(chat, user, "Pay rent")
	if !hasButton(old, "⏰ 1 h") || !hasButton(old, "⏰ Tomorrow") {
		t.Fatalf("a card with a reminder has no snooze: %v", buttonTexts(old))
	}
	fresh := h.openCard(chat, user, "Pay rent")
	h.tap(chat, user, fresh.ID, "⏰ Tomorrow")
	moved := *h.task("P1").RemindAt
	if !moved.Equal(at.AddDate(0, 0, 1)) {
		t.Fatalf("⏰ Tomorrow moved the reminder to %v, want %v", moved, at.AddDate(0, 0, 1))
	}
	if got := h.tap(chat, user, old.ID, "⏰ 1 h"); !strings.Contains(got, "changed since this card was shown") {
		t.Errorf("a stale card's ⏰ answered %q", got)
	}
	if now := *h.task("P1").RemindAt; !now.Equal(moved) {
		t.Errorf("a stale card's ⏰ moved the reminder to %v", now)
	}
	h.tg.WaitMessage(chat, old.ID, "the stale card brought up to date", func(m telegramtest.Message) bool {
		return m.Edits >= 1 && strings.Contains(m.Text, "Reminder: tomorrow, 12:00")
	})
}

// ⏰ 1 h on a card puts the reminder off an hour from now, with Undo.
func TestCardSnooze(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	at := h.clock.Now().Add(10 * time.Minute)
	h.seed(chat, nod.Task{ID: "P1", Title: "Pay rent", RemindAt: &at})
	h.start()
	card := h.openCard(chat, user, "Pay rent")
	h.tap(chat, user, card.ID, "⏰ 1 h")
	if got := h.task("P1").RemindAt; got == nil || !got.Equal(h.clock.Now().Add(time.Hour)) {
		t.Fatalf("after ⏰ 1 h the reminder is at %v", got)
	}
	snoozed := h.card(chat, card.ID, 1)
	if !strings.Contains(snoozed.Text, "Reminder: today, 11:00") || !hasButton(snoozed, "↩️ Undo") {
		t.Errorf("the card after ⏰ 1 h: %q %v", snoozed.Text, buttonTexts(snoozed))
	}
	var snooze bool
	for _, a := range h.audit(chat) {
		snooze = snooze || a.Tool == nod.ToolSetReminder && a.Arg("snooze") == "true" && a.UserConfirmed
	}
	if !snooze {
		t.Error("no audit row of the card's ⏰")
	}
}

// ✓ Done on a repeating task's card completes this time: the task stays
// open with its next occurrence, the card names the rule in words, and
// the agent is told on its next turn that this time was done, not that
// the reminder was put off.
func TestCardDoneRepeating(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	at := time.Date(2026, 3, 11, 7, 0, 0, 0, time.UTC) // Wednesday 08:00 in Berlin, passed
	h.seed(chat, nod.Task{ID: "M1", Title: "Check the mail", RemindAt: &at, Repeat: "DTSTART:20260309T080000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"})
	h.inBerlin(chat)
	h.script(openaitest.Text("Hi."), openaitest.Text("Noted."))
	h.start()
	h.tg.SendText(chat, user, "hi")
	h.tg.WaitBotMessages(chat, 1)
	h.clock.Set(h.clock.Now().Add(time.Minute)) // the tap comes after the turn
	card := h.openCard(chat, user, "Check the mail")
	if !strings.Contains(card.Text, "every weekday at 08:00") {
		t.Errorf("the card does not name the rule: %q", card.Text)
	}
	h.tap(chat, user, card.ID, "✓ Done")
	task := h.task("M1")
	if next := at.AddDate(0, 0, 1); task.Status != nod.StatusOpen || task.RemindAt == nil || !task.RemindAt.Equal(next) {
		t.Fatalf("after ✓ Done: %s, reminder %v; want open, %v", task.Status, task.RemindAt, next)
	}
	if c := h.card(chat, card.ID, 1); !hasButton(c, "↩️ Undo") || !hasButton(c, "✓ Done") {
		t.Errorf("the card after ✓ Done: %q %v", c.Text, buttonTexts(c))
	}

	h.tg.SendText(chat, user, "what's next?")
	h.tg.WaitBotMessages(chat, 4)
	reqs := h.llm.RequestsFor(agentM)
	var told string
	for _, m := range reqs[len(reqs)-1].Messages {
		told += m.Content + "\n"
	}
	want := "the user marked the repeating task “Check the mail” (id M1) done for Wed 2026-03-11 08:00; the task stays open, its next reminder is Thu 2026-03-12 08:00"
	if !strings.Contains(told, want) || strings.Contains(told, "come again") {
		t.Errorf("the agent was told:\n%s\nwant %q", told, want)
	}
}

// A reply to a task card goes to the agent naming the task it shows.
func TestCardReplyNamesTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "B1", Title: "Buy milk"})
	h.seed(chat, nod.Task{ID: "B2", Title: "Buy bread"})
	h.start()
	card := h.openCard(chat, user, "Buy milk")
	h.script(openaitest.Text("Which priority?"))
	h.tg.ReplyText(chat, user, card.ID, "make this one urgent")
	h.tg.WaitBotMessages(chat, 3)
	reqs := h.llm.RequestsFor(agentM)
	if got := reqs[len(reqs)-1].LastUser(); !strings.Contains(got, "the card of task B1 “Buy milk”") || !strings.Contains(got, "make this one urgent") {
		t.Errorf("the agent read %q", got)
	}
}

// In a group a task is its person's: another member may open its card
// but not act on it, and is told whose it is; nothing changes.
func TestCardGroupOthersTapRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.seed(group, nod.Task{ID: "G1", Title: "Book the venue", CreatedBy: user})
	h.start()
	h.openCard(group, user, "Book the venue") // nod learns Alice's name
	card := h.openCard(group, bob, "Book the venue")
	if got := h.tap(group, bob, card.ID, "✓ Done"); got != "This is Alice's task: only Alice can act on it." {
		t.Errorf("Bob's ✓ Done answered %q", got)
	}
	if st := h.groupTask("G1").Status; st != nod.StatusOpen {
		t.Fatalf("Bob's tap left %s", st)
	}
	h.tap(group, user, card.ID, "✓ Done")
	if st := h.groupTask("G1").Status; st != nod.StatusDone {
		t.Errorf("Alice's ✓ Done left %s", st)
	}
}

// A change made by replying to a task card redraws that card, and the
// task's latest card beside it, to show the task as it now is, with
// buttons for it: ⏰ 1 h on them applies, where the card as it was
// would find the reminder moved since. A card of another task stays.
func TestCardRedrawnAfterReply(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	at := h.clock.Now().Add(2 * time.Hour) // today, 12:00
	h.seed(chat, nod.Task{ID: "B1", Title: "Buy boxes", DueDate: "2026-03-10", RemindAt: &at})
	h.seed(chat, nod.Task{ID: "M1", Title: "Buy milk"})
	const said = "make this due friday and remind me tomorrow at 9"
	h.clf = answer("explicit:"+said, "explicit:"+said)
	h.script(openaitest.Calls(
		call("d", "update_task_due_date", map[string]any{"task_id": "B1", "due_date": "2026-03-13"}),
		call("r", "set_task_reminder", map[string]any{"task_id": "B1", "remind_at": "2026-03-12T09:00"}),
	), openaitest.Text("Due Friday, reminder tomorrow at 9."))
	h.start()
	old := h.openCard(chat, user, "Buy boxes")
	latest := h.openCard(chat, user, "Buy boxes")
	other := h.openCard(chat, user, "Buy milk")
	if !strings.Contains(old.Text, "due yesterday") || !strings.Contains(old.Text, "Reminder: today, 12:00") {
		t.Fatalf("the card before: %q", old.Text)
	}

	n := len(h.tg.BotMessages(chat))
	h.tg.ReplyText(chat, user, old.ID, said)
	h.tg.WaitBotMessages(chat, n+2)
	if task := h.task("B1"); task.DueDate != "2026-03-13" || task.RemindAt == nil || !task.RemindAt.Equal(time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("the reply left B1 due %s, reminder %v", task.DueDate, task.RemindAt)
	}
	for _, c := range []telegramtest.Message{old, latest} {
		m := h.tg.WaitMessage(chat, c.ID, "the card redrawn", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Reminder: tomorrow, 09:00") })
		if !strings.Contains(m.Text, "due Fri") || !hasButton(m, "⏰ 1 h") || !hasButton(m, "✓ Done") {
			t.Errorf("card %d after the reply: %q %v", c.ID, m.Text, buttonTexts(m))
		}
	}
	if m, _ := h.tg.Message(chat, other.ID); m.Edits != 0 {
		t.Errorf("the card of another task was edited: %q", m.Text)
	}

	if got := h.tap(chat, user, old.ID, "⏰ 1 h"); got != "" {
		t.Errorf("⏰ 1 h on the redrawn card answered %q", got)
	}
	if task := h.task("B1"); task.RemindAt == nil || !task.RemindAt.Equal(h.clock.Now().Add(time.Hour)) {
		t.Errorf("⏰ 1 h on the redrawn card left the reminder at %v", task.RemindAt)
	}
}

// A change confirmed on a change set redraws the task's open card too.
func TestCardRedrawnAfterConfirm(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "B1", Title: "Buy boxes", DueDate: "2026-03-10"})
	h.script(openaitest.Calls(call("d", "update_task_due_date", map[string]any{"task_id": "B1", "due_date": "2026-03-13"})), openaitest.Text("Friday?"))
	h.start()
	card := h.openCard(chat, user, "Buy boxes")
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "boxes can wait")
	set := h.changeSetMessage(chat, n+2)
	if m, _ := h.tg.Message(chat, card.ID); m.Edits != 0 {
		t.Fatalf("the card changed before the change was confirmed: %q", m.Text)
	}
	h.tap(chat, user, set.ID, "✓ 1")
	if m := h.card(chat, card.ID, 1); !strings.Contains(m.Text, "due Fri") {
		t.Errorf("the card after ✓ 1: %q", m.Text)
	}
}
