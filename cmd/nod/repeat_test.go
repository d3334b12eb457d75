package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// "Every weekday at 8": set at once with the rule in words, fired on
// Monday once across a restart; ✓ Done moves the reminder (and the due
// date) to Tuesday 08:00 and the task stays open; Undo takes it back,
// and Tuesday's comes all the same. Three weekdays missed while nod was
// down come as one reminder, and the next is Monday's.
func TestRepeatingReminder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seed(chat, nod.Task{ID: "T1", Title: "Check the mail", Status: nod.StatusOpen, Priority: nod.P2, DueDate: "2026-03-16"})
	h.inBerlin(chat)
	const said = "remind me every weekday at 8 to check the mail"
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-16T08:00",
		"repeat": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"})), openaitest.Text("Every weekday at 8."))
	h.start()
	h.tg.SendText(chat, user, said)
	rcpt := h.tg.WaitBotMessages(chat, 2)[0]
	if !strings.Contains(rcpt.Text, "Reminder: none → 16 Mar 2026, 08:00") || !strings.Contains(rcpt.Text, "Repeats: none → every weekday at 08:00") {
		t.Fatalf("receipt = %q", rcpt.Text)
	}
	if task := h.task("T1"); task.RemindAt == nil || task.Repeat == "" {
		t.Fatalf("task after the receipt = %+v", task)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["r"]; !strings.Contains(r, `"repeat":"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"`) {
		t.Errorf("tool result = %s", r)
	}

	monday := time.Date(2026, 3, 16, 7, 0, 30, 0, time.UTC) // 08:00:30 in Berlin
	h.clock.Set(monday)
	h.sweeps(3)
	h.stop()
	h.start()
	h.sweeps(3)
	rs := fired(h)
	if len(rs) != 1 {
		t.Fatalf("%d reminders on Monday across a restart, want 1", len(rs))
	}
	h.tap(chat, user, rs[0].ID, "✓ Done")
	tuesday := time.Date(2026, 3, 17, 7, 0, 0, 0, time.UTC)
	task := h.task("T1")
	if task.Status != nod.StatusOpen || task.RemindAt == nil || !task.RemindAt.Equal(tuesday) || task.DueDate != "2026-03-17" {
		t.Fatalf("after ✓ Done: status %s, remind_at %v, due %s; want open, Tuesday 08:00, 2026-03-17", task.Status, task.RemindAt, task.DueDate)
	}
	if task.RemindClock != nil {
		t.Errorf("after ✓ Done: the reminder keeps a clock of its own (%+v), not the chat's", *task.RemindClock)
	}
	if m, _ := h.tg.Message(chat, rs[0].ID); !strings.Contains(m.Text, "Next reminder: 17 Mar 2026, 08:00") || !hasButton(m, "↩️ Undo") {
		t.Errorf("reminder after ✓ Done = %q %v", m.Text, buttonTexts(m))
	}
	h.tg.SendText(chat, user, "/today")
	if m := botMessage(h, "<b>Today</b>, 16 Mar 2026"); !strings.Contains(m.Text, "✅ 08:00 · Check the mail (done for today)") {
		t.Errorf("/today after ✓ Done:\n%s", m.Text)
	}
	h.tap(chat, user, rs[0].ID, "↩️ Undo")
	task = h.task("T1")
	if task.RemindAt == nil || !task.RemindAt.Equal(monday.Truncate(time.Minute)) || task.DueDate != "2026-03-16" || task.Status != nod.StatusOpen {
		t.Fatalf("after Undo: remind_at %v, due %s, status %s; want Monday's back", task.RemindAt, task.DueDate, task.Status)
	}

	h.clock.Set(tuesday.Add(30 * time.Second))
	h.sweeps(3)
	if n := len(fired(h)); n != 2 {
		t.Fatalf("%d reminders by Tuesday 08:00, want 2", n)
	}

	// Down from Tuesday to Friday 10:00: Wednesday's, Thursday's and
	// Friday's come as one.
	h.stop()
	h.clock.Set(time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC))
	h.start()
	h.sweeps(3)
	if n := len(fired(h)); n != 3 {
		t.Fatalf("%d reminders after the downtime, want 3 (one for the days missed)", n)
	}
	if m := fired(h)[2]; !strings.Contains(m.Text, "2 earlier times, from 18 Mar 2026, 08:00, went by without a reminder while I was not running.") {
		t.Errorf("Friday's reminder does not say Wednesday's and Thursday's were missed: %q", m.Text)
	}
	h.stop()
	h.start()
	h.sweeps(3)
	if n := len(fired(h)); n != 3 {
		t.Fatalf("%d reminders after another restart, want 3", n)
	}
	rs = fired(h)
	h.tap(chat, user, rs[2].ID, "✓ Done")
	if task := h.task("T1"); task.RemindAt == nil || !task.RemindAt.Equal(time.Date(2026, 3, 23, 7, 0, 0, 0, time.UTC)) || task.Status != nod.StatusOpen {
		t.Errorf("✓ Done on Friday: remind_at %v, status %s; want Monday 23 Mar 08:00, open", task.RemindAt, task.Status)
	}
}

// fired lists the reminder messages of the chat, whatever became of their
// buttons since (a newer reminder takes them off an older one).
func fired(h *harness) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range h.tg.BotMessages(chat) {
		if strings.HasPrefix(m.Text, "⏰ <b>Check the mail</b>") || strings.Contains(m.Text, "Next reminder:") {
			out = append(out, m)
		}
	}
	return out
}

// A rule with no occurrence left (COUNT reached): ✓ Done closes the task
// as for any reminder.
func TestRepeatingReminderLastTimeCloses(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	at := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	h.seed(chat, nod.Task{ID: "T1", Title: "Check the mail", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &at,
		Repeat: "DTSTART:20260311T100000\nRRULE:FREQ=DAILY;COUNT=2"})
	h.start()
	h.clock.Set(at.Add(time.Minute))
	h.sweeps(3)
	rs := fired(h)
	if len(rs) != 1 {
		t.Fatalf("%d reminders, want 1", len(rs))
	}
	if h.task("T1").Repeat == "" {
		t.Fatal("the task lost its rule")
	}
	h.tap(chat, user, rs[0].ID, "✓ Done")
	if st := h.task("T1").Status; st != nod.StatusDone {
		t.Errorf("status after the last time's ✓ Done = %s, want DONE", st)
	}
	if m, _ := h.tg.Message(chat, rs[0].ID); !strings.Contains(m.Text, "✅ Done: <b>Check the mail</b>") || strings.Contains(m.Text, "Next reminder") {
		t.Errorf("reminder after ✓ Done = %q", m.Text)
	}
}

// Redo after the Undo of a repeating reminder's ✓ Done edits the reminder
// back to the completion ("Next reminder: …"), not to a snooze's words.
func TestRepeatingDoneRedo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	first, at := h.repeatingDone()
	h.tap(chat, user, first.ID, "↩️ Undo")
	undone := h.withButton(chat, "↪️ Redo")
	h.tap(chat, user, undone.ID, "↪️ Redo")
	if got := h.task("T1").RemindAt; got == nil || !got.Equal(at.AddDate(0, 0, 1)) {
		t.Fatalf("after Redo the reminder is at %v, want the next day's", got)
	}
	m := h.tg.WaitMessage(chat, first.ID, "the reminder after Redo", func(m telegramtest.Message) bool { return m.Edits >= 3 })
	if !strings.Contains(m.Text, "✅ Done: <b>Check the mail</b>. Next reminder: 13 Mar 2026, 10:00") || strings.Contains(m.Text, "remind you again") {
		t.Errorf("the reminder after Redo reads %q", m.Text)
	}
}

// The agent's rule set from a time already past starts at the first
// occurrence from now on, and the receipt says so: it would never fire.
func TestRepeatingReminderSetInThePast(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T1", Title: "Check the mail"})
	const said = "remind me every day at 8 to check the mail"
	h.clf = answer("explicit:" + said)
	// 10:00 UTC now: today's 08:00 has passed.
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-11T08:00", "repeat": "FREQ=DAILY"})),
		openaitest.Text("Every day at 8."))
	h.start()
	h.tg.SendText(chat, user, said)
	rcpt := h.tg.WaitBotMessages(chat, 2)[0]
	if got := h.task("T1").RemindAt; got == nil || !got.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("the reminder is at %v, want tomorrow 08:00", got)
	}
	if !strings.Contains(rcpt.Text, "Reminder: none → 12 Mar 2026, 08:00") {
		t.Errorf("receipt = %q", rcpt.Text)
	}
}

// A repeating task stays open when a time of it is marked done, so its
// status cannot tell the model what was done: get_task lists the times
// marked done lately, and not one whose ✓ Done was undone. A played
// model, asked "didn't I do the invoices on Monday?", read the open task
// and said it could not see.
func TestGetTaskNamesTheTimesMarkedDone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	first, at := h.repeatingDone()
	ask := func(n int) string {
		h.t.Helper()
		h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "T1"})), openaitest.Text("Yes."))
		h.tg.SendText(chat, user, "did I check the mail today?")
		h.tg.WaitBotMessages(chat, n)
		h.settleMessages()
		reqs := h.llm.RequestsFor(agentM)
		return reqs[len(reqs)-1].ToolResults()["g"]
	}
	before := len(h.tg.BotMessages(chat))
	if r := ask(before + 1); !strings.Contains(r, `"done_times":["2026-03-12T10:00:00Z"]`) || !strings.Contains(r, `"status":"OPEN"`) {
		t.Errorf("get_task after ✓ Done on today's time: %s", r)
	}
	h.clock.Advance(time.Minute)
	h.tap(chat, user, first.ID, "↩️ Undo")
	if got := h.task("T1").RemindAt; got == nil || !got.Equal(at) {
		t.Fatalf("after the Undo the reminder is at %v, want %v", got, at)
	}
	h.clock.Advance(time.Minute)
	if r := ask(len(h.tg.BotMessages(chat)) + 1); strings.Contains(r, "done_times") {
		t.Errorf("get_task after the ✓ Done was undone: %s", r)
	}
}

// ✓ Done on a repeating reminder names the next one; when that one goes
// out, the message keeps the time done and puts the next one in the
// past, where it used to turn into "I reminded you again", as a snooze
// does, and the person's record of the tap was gone (a play).
func TestRepeatingDoneStaysDoneWhenTheNextComes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	first, at := h.repeatingDone()
	h.clock.Set(at.AddDate(0, 0, 1).Add(time.Minute))
	h.sweeps(3)
	m := h.tg.WaitMessage(chat, first.ID, "the first reminder once the next went out", func(m telegramtest.Message) bool {
		return !strings.Contains(m.Text, "Next reminder:")
	})
	if want := "✅ Done: <b>Check the mail</b>. The next reminder went out on 13 Mar 2026, 10:00."; m.Text != want || len(m.Buttons()) != 0 {
		t.Errorf("the first reminder reads %q %v, want %q without buttons", m.Text, buttonTexts(m), want)
	}
	if n := len(h.tg.BotMessages(chat)); n != 2 {
		t.Errorf("%d messages, want the two reminders", n)
	}
}

// repeatingDone seeds a daily reminder of "Check the mail" at 10:00 on
// the 12th, lets it fire, and taps its ✓ Done five minutes later; it
// returns the reminder's message and its time.
func (h *harness) repeatingDone() (telegramtest.Message, time.Time) {
	h.t.Helper()
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	at := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	h.seed(chat, nod.Task{ID: "T1", Title: "Check the mail", RemindAt: &at, Repeat: "DTSTART:20260311T100000\nRRULE:FREQ=DAILY"})
	h.start()
	h.clock.Set(at.Add(time.Minute))
	h.sweeps(3)
	rs := fired(h)
	if len(rs) != 1 {
		h.t.Fatalf("%d reminders, want 1", len(rs))
	}
	h.clock.Set(at.Add(5 * time.Minute)) // the taps come after the reminder
	h.tap(chat, user, rs[0].ID, "✓ Done")
	return rs[0], at
}

// "8am wherever I am": a repeating reminder whose last time went out
// untapped keeps its next time at 8 in the zone the chat moves to, as a
// waiting one does; the zone's receipt names it, its Undo puts it back,
// and it fires at 8 there.
func TestRepeatingReminderFollowsTheZoneAfterItWentOut(t *testing.T) {
	t.Parallel()
	h, sent := medsWentOutInNewYork(t)
	london, _ := time.LoadLocation("Europe/London")
	h.tg.SendText(chat, user, "/tz Europe/London")
	m := h.tg.WaitBotMessages(chat, 2)[1]
	if !strings.Contains(m.Text, "Your reminder stays at its local time, now Europe/London time: “Take meds” tomorrow, 08:00.") {
		t.Fatalf("/tz Europe/London = %q", m.Text)
	}
	h.tap(chat, user, m.ID, "↩️ Undo")
	if m, _ := h.tg.Message(chat, m.ID); !strings.Contains(m.Text, "now America/New_York time: “Take meds” tomorrow, 08:00.") {
		t.Errorf("the undone /tz = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/tz Europe/London")
	h.tg.WaitBotMessages(chat, 3)
	for _, c := range []struct {
		at   time.Time
		want int
	}{{time.Date(2026, 12, 7, 7, 59, 0, 0, london), 1}, {time.Date(2026, 12, 7, 8, 1, 0, 0, london), 2}} {
		h.clock.Set(c.at)
		h.sweeps(3)
		if n := len(sent()); n != c.want {
			t.Errorf("%d reminders by %s in London, want %d", n, c.at.In(london).Format("Jan 2 15:04"), c.want)
		}
	}
}

// medsWentOutInNewYork starts a chat in New York whose meds remind daily
// at 8 there, and lets the first one go out untapped (13:10 in London):
// it returns the harness and the meds' reminder messages so far.
func medsWentOutInNewYork(t *testing.T) (*harness, func() []telegramtest.Message) {
	t.Helper()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	ny, _ := time.LoadLocation("America/New_York")
	if _, err := h.db.Schedule().SetTimeZone(t.Context(), chat, user, ny.String(), time.UTC, nod.ToolTZ, nil); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 6, 8, 0, 0, 0, ny)
	h.seed(chat, nod.Task{ID: "M1", Title: "Take meds", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &at,
		Repeat: "DTSTART:20261206T080000\nRRULE:FREQ=DAILY"})
	h.start()
	sent := func() []telegramtest.Message { return botMessagesStarting(h, "⏰ <b>Take meds</b>") }
	h.clock.Set(at.Add(10 * time.Minute)) // 13:10 in London
	h.sweeps(3)
	if n := len(sent()); n != 1 {
		t.Fatalf("%d reminders went out, want 1", n)
	}
	return h, sent
}

// The same meds, tapped ✓ Done after /tz London took their next time to 8
// there, then the /tz undone: the rule's time is the chat's, so the next
// time goes back to 8 in New York, and the undone message says so.
func TestRepeatingReminderTappedThenZoneUndone(t *testing.T) {
	t.Parallel()
	h, sent := medsWentOutInNewYork(t)
	ny, _ := time.LoadLocation("America/New_York")
	h.tg.SendText(chat, user, "/tz Europe/London")
	m := h.tg.WaitBotMessages(chat, 2)[1]
	h.tap(chat, user, sent()[0].ID, "✓ Done")
	h.tap(chat, user, m.ID, "↩️ Undo")
	if m, _ := h.tg.Message(chat, m.ID); !strings.Contains(m.Text, "now America/New_York time: “Take meds” tomorrow, 08:00.") {
		t.Errorf("the undone /tz = %q", m.Text)
	}
	if at := h.task("M1").RemindAt; at == nil || !at.Equal(time.Date(2026, 12, 7, 8, 0, 0, 0, ny)) {
		t.Errorf("the meds' next reminder is at %v, want 8:00 in New York", at)
	}
}

// A model that sets a daily reminder again from its next time gives a
// rule that only starts a day later: from then on it reminds as the one
// it replaces, so it is no change, where a played person was asked to
// confirm "Repeats: daily at 08:00 → daily at 08:00". The model is told
// both parts were already so; nothing is proposed or classified.
func TestRuleStartedAgainIsNoChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	next := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC) // today's 08:00 went out
	const rule = "DTSTART:20260311T080000\nRRULE:FREQ=DAILY"
	h.seed(chat, nod.Task{ID: "T1", Title: "Take meds", RemindAt: &next, Repeat: rule})
	h.clf = answer("needs:")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T08:00", "repeat": "FREQ=DAILY"})),
		openaitest.Text("Meds stay at 8 every day."))
	h.start()
	h.tg.SendText(chat, user, "london it is")
	h.tg.WaitBotMessages(chat, 1)
	h.settleMessages()
	if msgs := h.tg.BotMessages(chat); len(msgs) != 1 || len(msgs[0].Buttons()) != 0 {
		t.Fatalf("messages = %v, want the model's answer alone", msgs)
	}
	reqs := h.llm.RequestsFor(agentM)
	if got := reqs[len(reqs)-1].ToolResults()["r"]; !strings.Contains(got, "Skipped 2 redundant item(s)") || !strings.Contains(got, "already repeats FREQ=DAILY") {
		t.Errorf("the model was told %s", got)
	}
	if n := len(h.llm.RequestsFor(clfM)); n != 0 {
		t.Errorf("%d classifier requests, want none", n)
	}
	if got := h.task("T1"); got.Repeat != rule || got.RemindAt == nil || !got.RemindAt.Equal(next) {
		t.Errorf("the task reminds at %v by %q, want %v by %q", got.RemindAt, got.Repeat, next, rule)
	}
}

// "Every Monday at 9 New York time", said in London in March 2026, when
// New York has changed its clocks (8 March) and London not yet (29
// March): the rule keeps New York's clock, so it comes at 09:00 there,
// 13:00 in London, on 30 March too, where a rule of London's clock would
// come at 13:00 BST, an hour early. ✓ Done, the receipt and the rule's
// words say where; a zone change leaves it.
func TestRepeatingReminderInAPlacesClock(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
	h.seed(chat, nod.Task{ID: "T9", Title: "Call the New York team", Status: nod.StatusOpen, Priority: nod.P2})
	h.start()
	h.tg.SendText(chat, user, "/tz Europe/London")
	h.tg.WaitBotMessages(chat, 1)

	const said = "remind me every monday at 9 new york time to call the new york team"
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T9", "remind_at": "2026-03-16T09:00[America/New_York]",
		"repeat": "FREQ=WEEKLY"})), openaitest.Text("Every Monday at 9 in New York."))
	h.tg.SendText(chat, user, said)
	rcpt := h.tg.WaitBotMessages(chat, 3)[1]
	for _, want := range []string{"Reminder: none → 16 Mar 2026, 13:00 (09:00 in New York)", "Repeats: none → weekly on Monday at 09:00 in New York"} {
		if !strings.Contains(rcpt.Text, want) {
			t.Errorf("receipt = %q, want %q", rcpt.Text, want)
		}
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["r"]; strings.Contains(r, "follows the chat's clock") {
		t.Errorf("the model was told the place's clock is dropped: %s", r)
	}
	task := h.task("T9")
	if task.Repeat != "DTSTART;TZID=America/New_York:20260316T090000\nRRULE:FREQ=WEEKLY" || task.RemindClock == nil || task.RemindClock.Zone != "America/New_York" {
		t.Fatalf("rule %q, clock %+v; want New York's", task.Repeat, task.RemindClock)
	}
	// The model reads the rule's place in its prompt and in get_task.
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "T9"})), openaitest.Text("Mondays at 9 in New York."))
	h.tg.SendText(chat, user, "when is the standup again?")
	botMessage(h, "Mondays at 9 in New York.")
	reqs := h.llm.RequestsFor(agentM)
	if p := reqs[len(reqs)-1].System(); !strings.Contains(p, "repeat FREQ=WEEKLY at 09:00 in America/New_York") ||
		!strings.Contains(p, "it repeats at that place's time, whatever the chat's zone") {
		t.Errorf("the prompt's task line:\n%s", grepLines(p, "New York team"))
	}
	if r := reqs[len(reqs)-1].ToolResults()["g"]; !strings.Contains(r, `"repeat_time":"09:00","repeat_zone":"America/New_York"`) {
		t.Errorf("get_task = %s", r)
	}

	sent := func() []telegramtest.Message { return botMessagesStarting(h, "⏰ <b>Call the New York team</b>") }
	at := func(month time.Month, day, hour, min int) {
		h.clock.Set(time.Date(2026, month, day, hour, min, 30, 0, time.UTC))
		h.sweeps(3)
	}
	at(time.March, 16, 13, 0)
	if n := len(sent()); n != 1 {
		t.Fatalf("%d reminders on Monday 16 March at 13:00 UTC, want 1", n)
	}
	first := sent()[0]
	if !strings.HasPrefix(first.Text, "⏰ <b>Call the New York team</b> · 09:00 in New York") {
		t.Errorf("the reminder = %q, want it to name New York's time", first.Text)
	}
	h.tap(chat, user, first.ID, "✓ Done")
	task = h.task("T9")
	if next := time.Date(2026, 3, 23, 13, 0, 0, 0, time.UTC); task.RemindAt == nil || !task.RemindAt.Equal(next) || task.Status != nod.StatusOpen ||
		task.RemindClock == nil || *task.RemindClock != (nod.Clock{Offset: -4 * 3600, Zone: "America/New_York"}) {
		t.Fatalf("after ✓ Done: remind_at %v in clock %+v, status %s; want %v in New York's, open", task.RemindAt, task.RemindClock, task.Status, next)
	}
	if m, _ := h.tg.Message(chat, first.ID); !strings.Contains(m.Text, "Next reminder: 23 Mar 2026, 13:00 (09:00 in New York).") {
		t.Errorf("reminder after ✓ Done = %q", m.Text)
	}

	h.tg.SendText(chat, user, "/tz Europe/Paris")
	h.tg.WaitBotMessages(chat, 6)
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(time.Date(2026, 3, 23, 13, 0, 0, 0, time.UTC)) {
		t.Errorf("the zone change moved New York's reminder to %v", got)
	}
	h.tg.SendText(chat, user, "/tz Europe/London")
	h.tg.WaitBotMessages(chat, 7)

	at(time.March, 23, 13, 0)     // goes out, untapped
	at(time.March, 30, 12, 0)     // 13:00 in London, 08:00 in New York
	if n := len(sent()); n != 1 { // the first, done, reads otherwise now
		t.Errorf("%d reminders since ✓ Done by 30 March 12:00 UTC, want 1: New York is at 08:00", n)
	}
	at(time.March, 30, 13, 0)
	if n := len(sent()); n != 2 {
		t.Fatalf("%d reminders since ✓ Done by 30 March 13:00 UTC (09:00 in New York), want 2", n)
	}
	if task := h.task("T9"); task.RemindClock == nil || task.RemindClock.Offset != -4*3600 {
		t.Errorf("clock after 30 March = %+v", task.RemindClock)
	}
}

// One time of a daily 08:00 in London moved to 10:00 in Paris ("just
// tomorrow's, at 10 Paris time") keeps Paris's clock for that time only:
// the rule's next time, whether ✓ Done takes it there or it comes
// untapped, is 08:00 in the chat's clock again, and moves with the zone.
func TestOneTimeInAnotherClockDoesNotStick(t *testing.T) {
	t.Parallel()
	for _, tapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("tapped=%v", tapped), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.env["NOD_SWEEP_INTERVAL"] = "20ms"
			h.clock.Set(time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC))
			if _, err := h.db.Schedule().SetTimeZone(t.Context(), chat, user, "Europe/London", time.UTC, nod.ToolTZ, nil); err != nil {
				t.Fatal(err)
			}
			first := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
			h.seed(chat, nod.Task{ID: "M1", Title: "Take meds", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &first,
				Repeat: "DTSTART:20261207T080000\nRRULE:FREQ=DAILY"})
			h.start()
			const said = "just tomorrow's meds at 10 paris time"
			h.clf = answer("explicit:" + said)
			h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "M1", "remind_at": "2026-12-07T10:00[Europe/Paris]"})),
				openaitest.Text("Tomorrow's at 10 in Paris."))
			h.tg.SendText(chat, user, said)
			h.tg.WaitBotMessages(chat, 2)
			if c := h.task("M1").RemindClock; c == nil || c.Zone != "Europe/Paris" {
				t.Fatalf("the moved time's clock = %+v, want Paris's", c)
			}
			h.script(openaitest.Text("Fine."))
			h.tg.SendText(chat, user, "thanks")
			botMessage(h, "Fine.")
			reqs := h.llm.RequestsFor(agentM)
			if p := reqs[len(reqs)-1].System(); !strings.Contains(p, "in another place's clock: this time only: the rule repeats on the chat's clock)") {
				t.Errorf("the prompt's task line:\n%s", grepLines(p, "Take meds"))
			}
			h.clock.Set(time.Date(2026, 12, 7, 9, 0, 30, 0, time.UTC)) // 10:00 in Paris
			h.sweeps(3)
			sent := medsSent(h)
			if len(sent) != 1 {
				t.Fatalf("%d reminders at 10:00 in Paris, want 1", len(sent))
			}
			if tapped {
				h.tap(chat, user, sent[0].ID, "✓ Done")
			} else {
				h.clock.Set(time.Date(2026, 12, 8, 8, 0, 30, 0, time.UTC))
				h.sweeps(3)
			}
			task := h.task("M1")
			if want := time.Date(2026, 12, 8, 8, 0, 0, 0, time.UTC); task.RemindAt == nil || !task.RemindAt.Equal(want) || task.RemindClock != nil {
				t.Fatalf("the rule's next time: %v in clock %+v, want %v in the chat's", task.RemindAt, task.RemindClock, want)
			}
			h.tg.SendText(chat, user, "/tz Europe/Berlin")
			botMessage(h, "🕰")
			if !tapped {
				// Today's went out; tomorrow's comes at 08:00 in Berlin.
				n := len(medsSent(h))
				h.clock.Set(time.Date(2026, 12, 9, 7, 0, 30, 0, time.UTC))
				h.sweeps(3)
				if got := len(medsSent(h)); got != n+1 {
					t.Errorf("%d reminders more by 08:00 in Berlin, want 1", got-n)
				}
			} else if at := h.task("M1").RemindAt; at == nil || !at.Equal(time.Date(2026, 12, 8, 7, 0, 0, 0, time.UTC)) {
				t.Errorf("after /tz Europe/Berlin the meds are at %v, want 08:00 in Berlin", at)
			}
		})
	}
}

// medsSent lists the chat's reminders of "Take meds", whatever became of
// their buttons since.
func medsSent(h *harness) []telegramtest.Message {
	return botMessagesStarting(h, medsPrefix)
}

// medsPrefix starts a reminder of "Take meds".
const medsPrefix = "⏰ <b>Take meds</b>"

// A daily 08:00 moved to 07:30 from now on, and then only the next
// time's move undone: the model reads that the rule repeats at 07:30
// while the next time is 08:00, in its prompt and in get_task; the two
// are the same RRULE, and a played model told "repeat FREQ=DAILY" alone
// answered "08:00 tomorrow" for every day after.
func TestRulesTimeIsTold(t *testing.T) {
	t.Parallel()
	h := londonChat(t)
	at := time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC)
	h.seed(chat, nod.Task{ID: "M1", Title: "Take meds", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &at, Repeat: "DTSTART:20260311T080000\nRRULE:FREQ=DAILY"})
	const said = "move meds to 7:30 from now on"
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "M1", "remind_at": "2026-03-11T07:30", "repeat": "FREQ=DAILY"})), openaitest.Text("07:30 from now on."))
	h.tg.SendText(chat, user, said)
	rcpt := h.tg.WaitBotMessages(chat, 3)[1]
	if !strings.Contains(rcpt.Text, "Repeats: daily at 08:00 → daily at 07:30") {
		t.Fatalf("receipt = %q", rcpt.Text)
	}
	if clf := h.llm.RequestsFor(clfM); !strings.Contains(clf[len(clf)-1].LastUser(), "repeat: FREQ=DAILY at 08:00 (follows the chat's zone) → FREQ=DAILY at 07:30 (follows the chat's zone)") {
		t.Errorf("the classifier's line:\n%s", clf[len(clf)-1].LastUser())
	}
	h.tap(chat, user, rcpt.ID, "↩️ Undo 1")
	if task := h.task("M1"); task.Repeat != "DTSTART:20260311T073000\nRRULE:FREQ=DAILY" || task.RemindAt == nil || !task.RemindAt.Equal(at) {
		t.Fatalf("after Undo 1: reminder %v, rule %q; want 08:00 tomorrow, the rule at 07:30", task.RemindAt, task.Repeat)
	}
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "M1"})), openaitest.Text("08:00 tomorrow, 07:30 after."))
	h.tg.SendText(chat, user, "when are my meds?")
	botMessage(h, "08:00 tomorrow, 07:30 after.")
	reqs := h.llm.RequestsFor(agentM)
	if p := reqs[len(reqs)-1].System(); !strings.Contains(p, "repeat FREQ=DAILY at 07:30") {
		t.Errorf("the prompt's task line:\n%s", grepLines(p, "Take meds"))
	}
	if r := reqs[len(reqs)-1].ToolResults()["g"]; !strings.Contains(r, `"repeat_time":"07:30"`) || strings.Contains(r, "repeat_zone") {
		t.Errorf("get_task = %s", r)
	}
}

// "Watered them", said of a weekly chore, is done for this time, as the
// reminder's ✓ Done: the task stays open and its reminder moves to the
// rule's next time, and the model is told so. Played, the words closed
// the chore for good while the model said its reminder was still set.
// In a group, another member's "done" of a task whose upcoming reminder
// is someone else's is refused, as their tap on it is.
func TestDoneSaidOfARepeatingChore(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	sunday := time.Date(2026, 3, 15, 11, 0, 0, 0, time.UTC)
	h.seed(group, nod.Task{ID: "WP", Title: "Water the plants", RemindAt: &sunday, RemindBy: user, DueDate: "2026-03-15",
		Repeat: "DTSTART:20260315T110000\nRRULE:FREQ=WEEKLY;BYDAY=SU"})
	fri := time.Date(2026, 3, 13, 18, 0, 0, 0, time.UTC)
	h.seed(group, nod.Task{ID: "MK", Title: "Buy milk", RemindAt: &fri, RemindBy: user})
	h.start()

	const said = "i watered the plants already"
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("d", "set_task_status", map[string]any{"task_id": "WP", "status": "DONE"})), openaitest.Text("Noted."))
	h.tg.SendText(group, user, said)
	if rcpt := h.tg.WaitBotMessages(group, 2)[0]; !strings.HasPrefix(rcpt.Text, "✅ <b>Done this time</b>") || !strings.Contains(rcpt.Text, "Reminder: 15 Mar 2026, 11:00 → 22 Mar 2026, 11:00") {
		t.Errorf("the receipt reads %q", rcpt.Text)
	}
	if line := h.llm.RequestsFor(clfM)[0].LastUser(); !strings.Contains(line, `set_task_status: task "Water the plants": mark this time of its repeating reminder done (the task stays open;`) {
		t.Errorf("the classifier was told:\n%s", line)
	}
	task := h.groupTask("WP")
	if next := sunday.AddDate(0, 0, 7); task.Status == nod.StatusDone || task.Repeat == "" || task.RemindAt == nil || !task.RemindAt.Equal(next) {
		t.Errorf("after %q: status %s, repeat %q, reminder %v; want open, weekly, %v", said, task.Status, task.Repeat, task.RemindAt, next)
	}
	reqs := h.llm.RequestsFor(agentM)
	if res := reqs[len(reqs)-1].ToolResults()["d"]; !strings.Contains(res, "only this time is done") ||
		!strings.Contains(res, "reminds next at 2026-03-22T11:00:00Z, its due date moved with it from 2026-03-15 to 2026-03-22") {
		t.Errorf("set_task_status = %s", res)
	}

	h.clf = answer("explicit:got the milk")
	h.script(openaitest.Calls(call("m", "set_task_status", map[string]any{"task_id": "MK", "status": "DONE"})), openaitest.Text("Alice's."))
	h.tg.SendText(group, bob, "got the milk")
	h.tg.WaitBotMessages(group, 3)
	if st := h.groupTask("MK").Status; st == nod.StatusDone {
		t.Errorf("Bob's words closed Alice's reminder of the milk")
	}
	reqs = h.llm.RequestsFor(agentM)
	if res := reqs[len(reqs)-1].ToolResults()["m"]; !strings.Contains(res, "only they can move or clear it, or close the task it reminds of") {
		t.Errorf("Bob's set_task_status = %s", res)
	}
	// /tasks in the group is the group's, each chore with its next time
	// and whose reminder it is.
	h.tg.SendText(group, user, "/tasks")
	list := h.tg.WaitBotMessages(group, 4)[3]
	for _, want := range []string{"<b>The group's tasks</b> (3)", "Water the plants · due ", "· ⏰ 22 Mar, 11:00 🔁 (Alice)"} {
		if !strings.Contains(list.Text, want) {
			t.Errorf("/tasks lacks %q:\n%s", want, list.Text)
		}
	}
	// The model knows whose reminder it is before it tries.
	if sys := reqs[len(reqs)-1].System(); !regexp.MustCompile(`"Buy milk" OPEN P2 reminder \S+ set by member 42`).MatchString(sys) {
		t.Errorf("the task list does not say whose reminder the milk's is:\n%s", sys)
	}
}

// A reminder dealt with in words loses its buttons, as one tapped ✓ Done
// does: "done, called them" replied to it left ✓ Done and ⏰ live when
// played, to act on a task already done.
func TestReminderDoneInWordsLosesItsButtons(t *testing.T) {
	t.Parallel()
	h, reminder := firedHarness(t, "T1", "Call the dentist")
	rs := []telegramtest.Message{reminder}
	const said = "done, called them"
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("d", "set_task_status", map[string]any{"task_id": "T1", "status": "DONE"})), openaitest.Text("Ticked off."))
	h.tg.ReplyText(chat, user, rs[0].ID, said)
	botMessage(h, "Ticked off.")
	m := h.tg.WaitMessage(chat, rs[0].ID, "the reminder without its buttons", func(m telegramtest.Message) bool { return len(m.Buttons()) == 0 })
	if want := "✅ Done: <b>Call the dentist</b>"; m.Text != want { // played, the bare reminder read as still open
		t.Errorf("the reminder dealt with reads %q, want %q", m.Text, want)
	}
	if st := h.task("T1").Status; st != nod.StatusDone {
		t.Errorf("status %s, want DONE", st)
	}
}

// A proposal to mark the task done, confirmed with a tap, deals with its
// reminder as the words would.
func TestReminderDoneByAConfirmedProposal(t *testing.T) {
	t.Parallel()
	h, reminder := firedHarness(t, "T1", "Call the dentist")
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("d", "set_task_status", map[string]any{"task_id": "T1", "status": "DONE"})), openaitest.Text("Done, then?"))
	h.tg.SendText(chat, user, "i think i called them")
	set := h.withButton(chat, "✓ 1")
	h.tap(chat, user, set.ID, "✓ 1")
	m := h.tg.WaitMessage(chat, reminder.ID, "the reminder without its buttons", func(m telegramtest.Message) bool { return len(m.Buttons()) == 0 })
	if want := "✅ Done: <b>Call the dentist</b>"; m.Text != want {
		t.Errorf("the reminder dealt with reads %q, want %q", m.Text, want)
	}
}

// Another member's "watered them", once the time went out, moves the
// chore on, and the reminder stays its person's: played, it became Bob's,
// and Alice's ✓ Done on the next one was refused.
func TestDoneThisTimeKeepsWhoseReminder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	sunday := time.Date(2026, 3, 15, 11, 0, 0, 0, time.UTC)
	h.seed(group, nod.Task{ID: "WP", Title: "Water the plants", RemindAt: &sunday, RemindBy: user,
		Repeat: "DTSTART:20260315T110000\nRRULE:FREQ=WEEKLY;BYDAY=SU"})
	h.clock.Set(sunday.Add(time.Hour))
	h.start()
	const said = "watered them already"
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("d", "set_task_status", map[string]any{"task_id": "WP", "status": "DONE"})), openaitest.Text("Thanks."))
	h.tg.SendText(group, bob, said)
	h.tg.WaitBotMessages(group, 2)
	task := h.groupTask("WP")
	if next := sunday.AddDate(0, 0, 7); task.RemindAt == nil || !task.RemindAt.Equal(next) || task.RemindBy != user {
		t.Errorf("after Bob's %q: reminder %v by %d; want %v by %d", said, task.RemindAt, task.RemindBy, next, user)
	}
}

// A weekly reminder that went out and was not ticked off names its next
// time in /tasks and on its card. Played, "Take the bins out" stood bare
// in /tasks once its Monday's reminder had gone out.
func TestRepeatingReminderSentNamesItsNext(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.inBerlin(chat)
	at := nine() // a Thursday
	h.seed(chat, nod.Task{ID: "T1", Title: "Take the bins out", RemindAt: &at, Repeat: "DTSTART:20260312T090000\nRRULE:FREQ=WEEKLY;BYDAY=TH"})
	h.start()
	h.clock.Set(at)
	h.sweeps(3)
	if n := len(remindersOf(h, "Take the bins out")); n != 1 {
		t.Fatalf("%d reminders at 09:00, want 1", n)
	}
	h.clock.Set(at.Add(26 * time.Hour)) // Friday, 11:00
	h.tg.SendText(chat, user, "/tasks")
	list := botMessage(h, "<b>Your tasks</b>")
	if !strings.Contains(list.Text, "Take the bins out · ⏰ Thu 19 Mar, 09:00 🔁") {
		t.Errorf("/tasks does not name the next time:\n%s", list.Text)
	}
	h.tap(chat, user, list.ID, "▫️ Take the bins out")
	card := botMessage(h, "<b>Take the bins out</b>")
	if !strings.Contains(card.Text, "⏰ Reminder: yesterday, 09:00 (sent) · next: Thu 19 Mar, 09:00") {
		t.Errorf("the card does not name the next time:\n%s", card.Text)
	}
	// The model is told it too, as the person sees it.
	h.script(openaitest.Text("Next Thursday at 9."))
	h.tg.SendText(chat, user, "when do the bins come up again?")
	botMessage(h, "Next Thursday")
	if sys := h.llm.RequestsFor(agentM)[0].System(); !strings.Contains(sys, "reminder 2026-03-12T09:00 (sent; next 2026-03-19T09:00)") {
		t.Errorf("the model's task list:\n%s", sys)
	}
}
