package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// listed returns the titles a /tasks message lists, in order, and checks
// that each has its button.
func listed(t *testing.T, m telegramtest.Message) []string {
	t.Helper()
	var titles []string
	for _, line := range strings.Split(m.Text, "\n") {
		icon, rest, ok := strings.Cut(line, " ")
		if !ok || !strings.ContainsAny(icon, "▫️🔄✅✖️⏸🧱✨") {
			continue
		}
		title, _, _ := strings.Cut(rest, " · ")
		titles = append(titles, title)
		if _, ok := m.Button(icon + " " + title); !ok {
			t.Errorf("%q has no button", title)
		}
	}
	return titles
}

// /tasks puts first what needs the person: overdue, then due soon by date,
// then by priority, then the newest; done and rejected tasks wait behind
// "✅ Done (N)", which leads there and back in place. Each line shows the
// task's labels; "/tasks #label" lists only the tasks carrying it, in any
// case.
func TestTasksByNeed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	day := func(n int) string { return h.clock.Now().AddDate(0, 0, n).Format(nod.DateLayout) }
	remind, sent := h.clock.Now().Add(24*time.Hour), h.clock.Now().Add(-time.Hour)
	for _, s := range []nod.Task{
		{Title: "Old idea", Priority: nod.P0, Status: nod.StatusRejected},
		{Title: "Someday P2 older"},
		{Title: "Pay rent", DueDate: day(-2), Priority: nod.P3, RemindAt: &sent},
		{Title: "Water plants", DueDate: day(3), Labels: []string{"home"}},
		{Title: "Call mum", Priority: nod.P0, Labels: []string{"Home"}, RemindAt: &remind},
		{Title: "Sent invoices", Status: nod.StatusDone, Labels: []string{"HOME"}},
		{Title: "Book flights", DueDate: day(0), Priority: nod.P1},
		{Title: "Someday P2 newer"},
		{Title: "Plan next year", DueDate: day(30), Priority: nod.P1},
	} {
		h.seed(chat, s)
	}
	h.start()

	h.tg.SendText(chat, user, "/tasks")
	list := h.tg.WaitBotMessages(chat, 1)[0]
	want := []string{"Pay rent", "Book flights", "Water plants", "Call mum", "Plan next year", "Someday P2 newer", "Someday P2 older"}
	if got := listed(t, list); !slices.Equal(got, want) {
		t.Errorf("/tasks lists %q, want %q:\n%s", got, want, list.Text)
	}
	// An upcoming reminder shows beside its task; one that went out does not.
	for _, part := range []string{"<b>Your tasks</b> (7)", "Pay rent · P3 · <b>overdue</b> (due 9 Mar)\n", "Book flights · P1 · due <b>today</b>", "Water plants · due ", "· 🏷 home",
		"Call mum · P0 · ⏰ tomorrow, " + remind.Format("15:04") + " · 🏷 Home"} {
		if !strings.Contains(list.Text, part) {
			t.Errorf("/tasks lacks %q:\n%s", part, list.Text)
		}
	}
	if strings.Contains(list.Text, "page") {
		t.Errorf("one page says it is a page:\n%s", list.Text)
	}

	h.tap(chat, user, list.ID, "✅ Done (2)")
	done := h.tg.WaitMessage(chat, list.ID, "the done tasks", func(m telegramtest.Message) bool { return m.Edits == 1 })
	if got := listed(t, done); !slices.Equal(got, []string{"Sent invoices", "Old idea"}) || !strings.HasPrefix(done.Text, "<b>Done</b> (2)") {
		t.Errorf("the done page lists %q:\n%s", got, done.Text)
	}
	h.tap(chat, user, list.ID, "📋 Open (7)")
	back := h.tg.WaitMessage(chat, list.ID, "the open tasks again", func(m telegramtest.Message) bool { return m.Edits == 2 })
	if got := listed(t, back); !slices.Equal(got, want) {
		t.Errorf("back from the done page: %q", got)
	}

	h.tg.SendText(chat, user, "/tasks #HOME")
	home := h.tg.WaitBotMessages(chat, 2)[1]
	if got := listed(t, home); !slices.Equal(got, []string{"Water plants", "Call mum"}) || !strings.HasPrefix(home.Text, "<b>Your tasks</b> 🏷 HOME (2)") {
		t.Errorf("/tasks #HOME lists %q:\n%s", got, home.Text)
	}
	h.tap(chat, user, home.ID, "✅ Done (1)")
	homeDone := h.tg.WaitMessage(chat, home.ID, "the done tasks labelled home", func(m telegramtest.Message) bool { return m.Edits == 1 })
	if got := listed(t, homeDone); !slices.Equal(got, []string{"Sent invoices"}) {
		t.Errorf("done with #HOME lists %q:\n%s", got, homeDone.Text)
	}

	h.tg.SendText(chat, user, "/tasks #garden")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "Nothing open with this label.") || len(m.Buttons()) != 0 {
		t.Errorf("/tasks #garden reads %q with %d buttons", m.Text, len(m.Buttons()))
	}
}

// list_tasks takes an optional label, matched in any case; a label that
// is not a string is a tool error the model reads, and nothing else
// breaks.
func TestListTasksByLabel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, s := range []nod.Task{{Title: "Water plants", Labels: []string{"home"}}, {Title: "Fix login bug", Labels: []string{"work"}}, {Title: "Call mum", Labels: []string{"Home", "family"}}} {
		h.seed(chat, s)
	}
	h.start()
	h.script(openaitest.Calls(call("a", "list_tasks", map[string]any{"label": "#HOME"}), call("b", "list_tasks", map[string]any{"label": 7})), openaitest.Text("Two at home."))
	h.tg.SendText(chat, user, "what do I have at home?")
	h.tg.WaitBotMessages(chat, 1)
	reqs := h.llm.RequestsFor(agentM)
	results := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	var res struct {
		Tasks []struct {
			Title string `json:"title"`
		} `json:"tasks"`
		Total int `json:"total"`
	}
	if err := json.Unmarshal([]byte(results["a"]), &res); err != nil || res.Total != 2 || len(res.Tasks) != 2 || res.Tasks[0].Title != "Water plants" || res.Tasks[1].Title != "Call mum" {
		t.Errorf("list_tasks with label #HOME returned %s (%v)", results["a"], err)
	}
	if !strings.Contains(results["b"], "label") || !strings.Contains(results["b"], "string") {
		t.Errorf("a label of 7 returned %s", results["b"])
	}
}

// /today shows, in the chat's zone, what is overdue or due that local
// day and the day's reminders, each with a button that opens it; a day
// with nothing gets a friendly line. The menu lists /today.
func TestToday(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// 23:30 UTC is already the next day in Berlin.
	h.clock.Set(time.Date(2026, 3, 11, 23, 30, 0, 0, time.UTC))
	h.start()
	h.tg.SendText(chat, user, "/today")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "Nothing is due today") || len(m.Buttons()) != 0 {
		t.Errorf("/today of an empty list reads %q", m.Text)
	}
	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	h.tg.WaitBotMessages(chat, 2)
	at := func(d, hh, mm int) *time.Time {
		t := time.Date(2026, 3, d, hh, mm, 0, 0, time.UTC)
		return &t
	}
	for _, s := range []nod.Task{
		{Title: "Pay rent", DueDate: "2026-03-09"},
		{Title: "Book flights", DueDate: "2026-03-12", Priority: nod.P0},
		{Title: "Due tomorrow", DueDate: "2026-03-13"},
		{Title: "Done long ago", DueDate: "2026-03-01", Status: nod.StatusDone},
		{Title: "Call mum", RemindAt: at(12, 14, 0)},           // 15:00 in Berlin
		{Title: "Reminder yesterday", RemindAt: at(11, 22, 0)}, // 23:00 on the 11th in Berlin
		{Title: "Reminder tomorrow", RemindAt: at(12, 23, 30)}, // 00:30 on the 13th in Berlin
	} {
		h.seed(chat, s)
	}
	h.tg.SendText(chat, user, "/today")
	// The reminder past due may fire meanwhile: find /today by its head.
	m := botMessage(h, "<b>Today</b>, 12 Mar 2026")
	for _, part := range []string{"<b>Today</b>, 12 Mar 2026", "Pay rent · <b>overdue</b>", "Book flights · P0 · due <b>today</b>", "⏰ 15:00 · Call mum"} {
		if !strings.Contains(m.Text, part) {
			t.Errorf("/today lacks %q:\n%s", part, m.Text)
		}
	}
	for _, not := range []string{"Due tomorrow", "Done long ago", "Reminder yesterday", "Reminder tomorrow"} {
		if strings.Contains(m.Text, not) {
			t.Errorf("/today shows %q:\n%s", not, m.Text)
		}
	}
	if strings.Index(m.Text, "Pay rent") > strings.Index(m.Text, "Book flights") {
		t.Errorf("the overdue task is not first:\n%s", m.Text)
	}
	if len(m.Buttons()) != 3 {
		t.Errorf("%d buttons, want one per task: %v", len(m.Buttons()), m.Buttons())
	}
	h.tap(chat, user, m.ID, "▫️ Call mum")
	botMessage(h, "<b>Call mum</b>\n")
	if cmds := h.tg.Calls("setMyCommands"); len(cmds) == 0 || !strings.Contains(cmds[0].Params.Get("commands"), `"today"`) {
		t.Errorf("setMyCommands calls = %v", cmds)
	}
}

// botMessagesStarting lists the messages nod sent the chat that start
// with prefix now, whatever else became of them since (a newer reminder
// takes an older one's buttons).
func botMessagesStarting(h *harness, prefix string) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range h.tg.BotMessages(chat) {
		if strings.HasPrefix(m.Text, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// botMessage waits for the first message nod sent the chat that starts
// with prefix.
func botMessage(h *harness, prefix string) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.tg.Wait("a message starting "+prefix, func() bool {
		for _, m := range h.tg.BotMessages(chat) {
			if strings.HasPrefix(m.Text, prefix) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// todayAfter sends /today and returns it: the first /today after the
// chat's first n messages.
func (h *harness) todayAfter(n int) telegramtest.Message {
	h.t.Helper()
	h.tg.SendText(chat, user, "/today")
	var found telegramtest.Message
	h.tg.Wait("/today", func() bool {
		for _, m := range h.tg.BotMessages(chat)[min(n, len(h.tg.BotMessages(chat))):] {
			if strings.HasPrefix(m.Text, "<b>Today</b>") {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// A reminder that went out this morning stays on /today, said to be
// sent, until its task is done; a repeating one whose time today was
// marked done shows as done for today, its task still a tap away; its
// Undo brings the reminder back as sent. A one-off reminder whose task
// is done leaves /today.
func TestTodayKeepsTheMorningsReminders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.inBerlin(chat)
	eight := time.Date(2026, 3, 16, 7, 0, 0, 0, time.UTC) // Monday 08:00 in Berlin
	nine, one := eight.Add(time.Hour), eight.Add(5*time.Hour)
	h.seed(chat, nod.Task{ID: "B1", Title: "Check the build", RemindAt: &eight, Repeat: "DTSTART:20260316T080000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"})
	h.seed(chat, nod.Task{ID: "C1", Title: "Call the bank", RemindAt: &nine})
	h.seed(chat, nod.Task{ID: "L1", Title: "Lunch with Ana", RemindAt: &one})
	h.clock.Set(eight.Add(-time.Hour))
	h.start()

	h.clock.Set(nine.Add(30 * time.Minute)) // 10:30 in Berlin: both went out
	h.sweeps(3)
	if n := len(remindersOf(h, "Check the build")) + len(remindersOf(h, "Call the bank")); n != 2 {
		t.Fatalf("%d reminders by 10:30, want 2", n)
	}
	m := h.todayAfter(len(h.tg.BotMessages(chat)))
	for _, want := range []string{"⏰ 08:00 · Check the build (sent) · 🔁 every weekday at 08:00", "⏰ 09:00 · Call the bank (sent)", "⏰ 13:00 · Lunch with Ana\n"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("/today lacks %q:\n%s", want, m.Text)
		}
	}
	if strings.Contains(m.Text, "Nothing is due") || len(m.Buttons()) != 3 {
		t.Errorf("/today after the morning's reminders:\n%s\n%v", m.Text, buttonTexts(m))
	}

	build := remindersOf(h, "Check the build")[0]
	h.tap(chat, user, build.ID, "✓ Done")
	bank := remindersOf(h, "Call the bank")[0]
	h.tap(chat, user, bank.ID, "✓ Done")
	if task := h.task("B1"); task.Status != nod.StatusOpen || task.RemindAt == nil || !task.RemindAt.Equal(eight.AddDate(0, 0, 1)) {
		t.Fatalf("after ✓ Done the build check is %s, reminder %v", task.Status, task.RemindAt)
	}
	m = h.todayAfter(len(h.tg.BotMessages(chat)))
	if !strings.Contains(m.Text, "✅ 08:00 · Check the build (done for today) · 🔁 every weekday at 08:00") || !hasButton(m, "▫️ Check the build") {
		t.Errorf("/today after ✓ Done on this time:\n%s\n%v", m.Text, buttonTexts(m))
	}
	if strings.Contains(m.Text, "Call the bank") || strings.Count(m.Text, "Check the build") != 1 {
		t.Errorf("/today shows a done task, or a time twice:\n%s", m.Text)
	}

	h.tap(chat, user, build.ID, "↩️ Undo")
	if task := h.task("B1"); task.RemindAt == nil || !task.RemindAt.Equal(eight) {
		t.Fatalf("after Undo the reminder is at %v, want %v", task.RemindAt, eight)
	}
	m = h.todayAfter(len(h.tg.BotMessages(chat)))
	if !strings.Contains(m.Text, "⏰ 08:00 · Check the build (sent)") || strings.Contains(m.Text, "done for today") {
		t.Errorf("/today after the Undo:\n%s", m.Text)
	}
}
