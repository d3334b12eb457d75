package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// firedHarness runs nod in Berlin with task id's reminder at 09:00 on
// 12 March, the clock at that time, and returns the reminder's message
// once it went out.
func firedHarness(t *testing.T, id, title string) (*harness, telegramtest.Message) {
	t.Helper()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.inBerlin(chat)
	at := nine()
	h.seed(chat, nod.Task{ID: nod.TaskID(id), Title: title, RemindAt: &at})
	h.start()
	h.clock.Set(at)
	h.sweeps(3)
	rs := remindersOf(h, title)
	if len(rs) != 1 {
		t.Fatalf("%d reminders of %q at 09:00, want 1", len(rs), title)
	}
	return h, rs[0]
}

// nine is 09:00 in Berlin on 12 March 2026, when the tests' reminders
// are due.
func nine() time.Time { return time.Date(2026, 3, 12, 9, 0, 0, 0, berlin) }

// remindersOf returns the bot's messages in chat that are reminders of
// the task titled title with their buttons (as sent, or shown again).
func remindersOf(h *harness, title string) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range h.tg.BotMessages(chat) {
		if strings.HasPrefix(m.Text, "⏰ <b>"+title+"</b>") && hasButton(m, "⏰ Tomorrow") {
			out = append(out, m)
		}
	}
	return out
}

// remindInWords has the person ask in words, which the classifier finds
// explicit, for task id's reminder at at (local, "2026-03-12T14:00"); it
// returns the receipt once the turn's reply is there too.
func remindInWords(h *harness, words, id, at string) telegramtest.Message {
	h.t.Helper()
	h.clf = answer("explicit:" + words)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": id, "remind_at": at})), openaitest.Text("OK."))
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, words)
	return h.tg.WaitBotMessages(chat, n+2)[n]
}

// undoReport is the bot's latest report of an undo in chat (a sweep may
// send a reminder after it).
func undoReport(h *harness) telegramtest.Message {
	h.t.Helper()
	msgs := h.tg.BotMessages(chat)
	for i := len(msgs) - 1; i >= 0; i-- {
		if strings.HasPrefix(msgs[i].Text, "↩️ Undone") {
			return msgs[i]
		}
	}
	h.t.Fatalf("no report of an undo in %d messages", len(msgs))
	return telegramtest.Message{}
}

// isReminder reports whether m reads as the reminder of title with its
// three buttons.
func isReminder(m telegramtest.Message, title string) bool {
	b := buttonTexts(m)
	return strings.HasPrefix(m.Text, "⏰ <b>"+title+"</b>") && !strings.Contains(m.Text, "remind you again") && len(b) == 3 &&
		strings.HasPrefix(b[0], "✓ Done") && strings.HasPrefix(b[1], "⏰ 1 h") && strings.HasPrefix(b[2], "⏰ Tomorrow")
}

// A snooze's message loses its Undo once the reminder it put off went
// out, and says that it did; a tap on the old Undo that comes anyway, and
// /undo, are refused and change nothing.
func TestSnoozeUndoGoesOnceItFires(t *testing.T) {
	t.Parallel()
	h, r := firedHarness(t, "T9", "Call the printer")
	h.tap(chat, user, r.ID, "⏰ 1 h")
	ten := nine().Add(time.Hour)
	m, _ := h.tg.Message(chat, r.ID)
	undo, ok := m.Button("↩️ Undo")
	if !ok || !strings.Contains(m.Text, "I'll remind you again on 12 Mar 2026, 10:00") {
		t.Fatalf("reminder after ⏰ 1 h = %q %v", m.Text, buttonTexts(m))
	}

	h.clock.Set(ten)
	h.sweeps(3)
	if rs := remindersOf(h, "Call the printer"); len(rs) != 1 || rs[0].ID == r.ID {
		t.Fatalf("reminders after 10:00 = %d, want the snoozed one, once", len(rs))
	}
	m, _ = h.tg.Message(chat, r.ID)
	if m.Text != "⏰ <b>Call the printer</b>: I reminded you again on 12 Mar 2026, 10:00." || len(m.Buttons()) != 0 {
		t.Errorf("the snooze's message once its reminder went out = %q %v, want it to say so with no buttons", m.Text, buttonTexts(m))
	}

	h.clock.Set(ten.Add(10 * time.Minute))
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, r.ID, undo.Data)); ans != "That reminder already went out." {
		t.Errorf("a tap on the old Undo = %q", ans)
	}
	h.settle()
	msgs := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "/undo")
	if got := h.tg.WaitBotMessages(chat, msgs+1)[msgs].Text; got != "That reminder already went out." {
		t.Errorf("/undo = %q", got)
	}
	if at := h.task("T9").RemindAt; at == nil || !at.Equal(ten) {
		t.Errorf("remind_at after the refused undos = %v, want %v", at, ten)
	}
	if m2, _ := h.tg.Message(chat, r.ID); m2.Text != m.Text || len(m2.Buttons()) != 0 {
		t.Errorf("the snooze's message after the refused tap = %q %v", m2.Text, buttonTexts(m2))
	}
	if n := h.count(nod.OutcomeUndone); n != 0 {
		t.Errorf("%d undos in the audit, want none", n)
	}
}

// An undo that puts a reminder back at a time that has passed never
// leaves it silent, and its message says what happens: a snooze undone
// after the time it put off puts the reminder that went out then back on
// its message, buttons and all, and sends nothing again; a move undone
// after the time it moved away from sends that reminder now, late.
func TestUndoToAPassedReminderTime(t *testing.T) {
	t.Parallel()
	h, r := firedHarness(t, "T9", "Call the printer")
	h.tap(chat, user, r.ID, "⏰ 1 h")
	h.clock.Set(nine().Add(30 * time.Minute))
	if ans := h.tap(chat, user, r.ID, "↩️ Undo"); ans != "Undone." {
		t.Fatalf("undo of the snooze = %q", ans)
	}
	if at := h.task("T9").RemindAt; at == nil || !at.Equal(nine()) {
		t.Fatalf("remind_at after undoing the snooze = %v, want 09:00", at)
	}
	if m, _ := h.tg.Message(chat, r.ID); !isReminder(m, "Call the printer") {
		t.Errorf("the reminder after its snooze was undone = %q %v, want it with its buttons again", m.Text, buttonTexts(m))
	}
	said := undoReport(h)
	if !strings.Contains(said.Text, "12 Mar 2026, 09:00 has passed and that reminder was sent then, so it is not sent again; its message above has its buttons back.") ||
		!hasButton(said, "↪️ Redo") {
		t.Errorf("the undo's message = %q %v", said.Text, buttonTexts(said))
	}

	// Moved to 12:00 before it fired at 11:00; the move undone at 11:30.
	eleven := nine().Add(2 * time.Hour)
	h.seed(chat, nod.Task{ID: "T8", Title: "File the tax return", RemindAt: &eleven})
	rcpt := remindInWords(h, "move the tax reminder to noon", "T8", "2026-03-12T12:00")
	if !strings.Contains(rcpt.Text, "12 Mar 2026, 11:00 → 12 Mar 2026, 12:00") {
		t.Fatalf("receipt = %q", rcpt.Text)
	}
	h.clock.Set(eleven.Add(30 * time.Minute))
	h.sweeps(3)
	if n := len(remindersOf(h, "File the tax return")); n != 0 {
		t.Fatalf("%d reminders of the moved task before 12:00", n)
	}
	if rs := remindersOf(h, "Call the printer"); len(rs) != 1 || rs[0].ID != r.ID {
		t.Errorf("%d reminders of the undone snooze's task, want only the first, shown again", len(rs))
	}
	h.tap(chat, user, rcpt.ID, "↩️ Undo")
	if at := h.task("T8").RemindAt; at == nil || !at.Equal(eleven) {
		t.Fatalf("remind_at after undoing the move = %v, want 11:00", at)
	}
	if said := undoReport(h); !strings.Contains(said.Text, "12 Mar 2026, 11:00 has passed, so the reminder comes now.") {
		t.Errorf("the undo's message = %q", said.Text)
	}
	h.sweeps(3)
	rs := remindersOf(h, "File the tax return")
	if len(rs) != 1 || !strings.Contains(rs[0].Text, "This reminder was set for 12 Mar 2026, 11:00 (30 min ago).") {
		t.Fatalf("reminders after the move was undone = %d %v, want one, 30 min late", len(rs), rs)
	}
	h.sweeps(3)
	if n := len(remindersOf(h, "File the tax return")); n != 1 {
		t.Errorf("%d reminders later, want it once", n)
	}
}

// Undoing ✓ Done tapped on a reminder reopens the task and shows the
// reminder with its buttons again, by its Undo and by /undo; Redo marks
// it done again with a fresh Undo. Nothing is sent again: that reminder
// went out.
func TestUndoDoneBringsTheReminderBack(t *testing.T) {
	t.Parallel()
	h, r := firedHarness(t, "T9", "Call the printer")
	h.tap(chat, user, r.ID, "✓ Done")
	if st := h.task("T9").Status; st != nod.StatusDone {
		t.Fatalf("status after ✓ Done = %s", st)
	}
	h.clock.Set(nine().Add(30 * time.Minute))
	h.tap(chat, user, r.ID, "↩️ Undo")
	if st := h.task("T9").Status; st != nod.StatusOpen {
		t.Errorf("status after undoing ✓ Done = %s", st)
	}
	if m, _ := h.tg.Message(chat, r.ID); !isReminder(m, "Call the printer") {
		t.Fatalf("the reminder after undoing ✓ Done = %q %v, want it with its buttons again", m.Text, buttonTexts(m))
	}
	redo := undoReport(h)
	if !strings.Contains(redo.Text, "Undone") || !hasButton(redo, "↪️ Redo") {
		t.Errorf("the undo's message = %q %v", redo.Text, buttonTexts(redo))
	}

	h.tap(chat, user, redo.ID, "↪️ Redo")
	if st := h.task("T9").Status; st != nod.StatusDone {
		t.Errorf("status after Redo = %s", st)
	}
	if m, _ := h.tg.Message(chat, r.ID); !strings.Contains(m.Text, "✅ Done: <b>Call the printer</b>") || !hasButton(m, "↩️ Undo") {
		t.Errorf("the reminder after Redo = %q %v", m.Text, buttonTexts(m))
	}
	h.tap(chat, user, r.ID, "↩️ Undo")
	if m, _ := h.tg.Message(chat, r.ID); !isReminder(m, "Call the printer") {
		t.Errorf("the reminder after undoing the redo = %q %v", m.Text, buttonTexts(m))
	}

	h.tap(chat, user, r.ID, "✓ Done")
	msgs := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "/undo")
	h.tg.WaitBotMessages(chat, msgs+1)
	if st := h.task("T9").Status; st != nod.StatusOpen {
		t.Errorf("status after /undo = %s", st)
	}
	if m, _ := h.tg.Message(chat, r.ID); !isReminder(m, "Call the printer") {
		t.Errorf("the reminder after /undo of ✓ Done = %q %v", m.Text, buttonTexts(m))
	}
	h.sweeps(3)
	if rs := remindersOf(h, "Call the printer"); len(rs) != 1 || rs[0].ID != r.ID {
		t.Errorf("%d reminders, want only the first, shown again", len(rs))
	}
}

// ✓ Done on a reminder whose next time was set since: that time passes
// while the task is done, so nothing goes out then; undoing ✓ Done
// afterwards sends it now, and that one is the reminder with buttons (the
// first gets its buttons back with the undo and gives them up when the
// missed one comes).
func TestUndoDoneSendsAReminderMissedWhileDone(t *testing.T) {
	t.Parallel()
	h, r := firedHarness(t, "T9", "Call the printer")
	remindInWords(h, "remind me again at ten", "T9", "2026-03-12T10:00")
	h.tap(chat, user, r.ID, "✓ Done")
	ten := nine().Add(time.Hour)
	h.clock.Set(ten.Add(30 * time.Minute))
	h.sweeps(3)
	if n := len(remindersOf(h, "Call the printer")); n != 0 {
		t.Fatalf("%d reminders of a done task, want none", n)
	}
	h.tap(chat, user, r.ID, "↩️ Undo")
	if said := undoReport(h); !strings.Contains(said.Text, "12 Mar 2026, 10:00 has passed, so the reminder comes now.") {
		t.Errorf("the undo's message = %q", said.Text)
	}
	h.sweeps(3)
	rs := remindersOf(h, "Call the printer")
	if len(rs) != 1 || rs[0].ID == r.ID || !strings.Contains(rs[0].Text, "This reminder was set for 12 Mar 2026, 10:00 (30 min ago).") {
		t.Errorf("reminders with buttons after undoing ✓ Done = %d, want only the missed one, sent now", len(rs))
	}
}

// Only a task's latest reminder has buttons: once the reminder comes
// again (moved in words to 14:00), the 09:00 message loses its ✓ Done and
// ⏰. A ⏰ that a stale client sends anyway after the task was done is
// refused: a closed task's reminder would never come.
func TestOnlyTheLatestReminderActs(t *testing.T) {
	t.Parallel()
	h, first := firedHarness(t, "T9", "Call the dentist")
	remindInWords(h, "move the dentist reminder to 2pm", "T9", "2026-03-12T14:00")
	if m, _ := h.tg.Message(chat, first.ID); !isReminder(m, "Call the dentist") {
		t.Fatalf("the first reminder lost its buttons before the next one came: %v", buttonTexts(m))
	}
	h.clock.Set(nine().Add(5 * time.Hour))
	h.tg.Wait("the second reminder", func() bool {
		rs := remindersOf(h, "Call the dentist")
		return len(rs) > 0 && rs[len(rs)-1].ID != first.ID
	})
	h.sweeps(2)
	if m, _ := h.tg.Message(chat, first.ID); len(buttonTexts(m)) != 0 {
		t.Errorf("the 09:00 reminder still has %v after the 14:00 one came", buttonTexts(m))
	}
	rs := remindersOf(h, "Call the dentist")
	second := rs[len(rs)-1]
	h.tap(chat, user, second.ID, "✓ Done")
	snooze, _ := first.Button("⏰ 1 h")
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, first.ID, snooze.Data)); ans != "This task is done already." {
		t.Errorf("a stale ⏰ on a done task answered %q", ans)
	}
	h.settle()
	if task := h.task("T9"); task.Status != nod.StatusDone || task.RemindAt == nil || !task.RemindAt.Equal(nine().Add(5*time.Hour)) {
		t.Errorf("after the stale ⏰: %s, reminder %v", task.Status, task.RemindAt)
	}
}
