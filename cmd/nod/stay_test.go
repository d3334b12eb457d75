package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// "i'm in berlin till sunday", said in London: the zone is Berlin's
// until the end of Sunday and then London's again, on its own, with a
// message that says so and an Undo; the meds follow (08:00 in Berlin,
// then 08:00 in London). The model and the classifier read the end of
// the stay; a zone change before it (/tz Paris) cancels the return. Three
// played persons asked for this, and the model could only propose a
// task to remind them to switch back.
func TestZoneForAWhile(t *testing.T) {
	t.Parallel()
	for _, changedSince := range []bool{false, true} {
		t.Run(fmt.Sprintf("changed_since=%v", changedSince), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.env["NOD_SWEEP_INTERVAL"] = "20ms"
			h.clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) // Tuesday
			meds := time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC)
			h.seed(chat, nod.Task{ID: "M1", Title: "Take meds", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &meds,
				Repeat: "DTSTART:20260311T080000\nRRULE:FREQ=DAILY"})
			h.start()
			h.tg.SendText(chat, user, "/tz Europe/London")
			h.tg.WaitBotMessages(chat, 1)

			const said = "just landed, i'm in berlin till sunday"
			h.clf = answer("explicit:" + said)
			h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Europe/Berlin", "until": "2026-03-15"})),
				openaitest.Text("Berlin time until Sunday; London's again after."))
			h.tg.SendText(chat, user, said)
			rcpt := h.tg.WaitBotMessages(chat, 3)[1]
			for _, want := range []string{"Time zone: Europe/London → <b>Europe/Berlin</b>", "Until the end of 15 Mar 2026: then back to <b>Europe/London</b>, on its own."} {
				if !strings.Contains(rcpt.Text, want) {
					t.Errorf("receipt = %q, want %q", rcpt.Text, want)
				}
			}
			if clf := h.llm.RequestsFor(clfM); !strings.Contains(clf[len(clf)-1].LastUser(), "set the chat's time zone: Europe/London → Europe/Berlin until 2026-03-16T00:00, then back to Europe/London") {
				t.Errorf("the classifier's line:\n%s", clf[len(clf)-1].LastUser())
			}
			if r := h.llm.RequestsFor(agentM)[1].ToolResults()["z"]; !strings.Contains(r, `"until":"2026-03-16T00:00:00+01:00"`) || !strings.Contains(r, "puts the chat back to Europe/London") {
				t.Errorf("set_chat_timezone = %s", r)
			}
			h.script(openaitest.Text("Sunday night."))
			h.tg.SendText(chat, user, "when do i switch back?")
			botMessage(h, "Sunday night.")
			reqs := h.llm.RequestsFor(agentM)
			if p := reqs[len(reqs)-1].System(); !strings.Contains(p, "This zone is for a while: on Monday 2026-03-16 00:00 (Europe/Berlin) nod puts the chat back to Europe/London on its own") {
				t.Errorf("the prompt does not tell the stay's end:\n%s", grepLines(p, "zone"))
			}
			h.tg.SendText(chat, user, "/tz")
			if m := botMessage(h, "🕰 This chat's time zone is <b>Europe/Berlin</b>"); !strings.Contains(m.Text, "On 16 Mar 2026, 00:00 (Europe/Berlin time) it goes back to <b>Europe/London</b>, on its own.") {
				t.Errorf("/tz during the stay = %q", m.Text)
			}
			if changedSince {
				h.tg.SendText(chat, user, "/tz Europe/Paris")
				botMessage(h, "🕰 Time zone: Europe/Berlin → <b>Europe/Paris</b>")
			}

			back := func() []telegramtest.Message { return botMessagesStarting(h, "🕰 Back to") }
			h.sentBy("🕰 Back to", time.Date(2026, 3, 15, 22, 59, 0, 0, time.UTC), 0) // 23:59 in Berlin
			h.clock.Set(time.Date(2026, 3, 15, 23, 0, 30, 0, time.UTC))
			h.sweeps(3)
			settings, err := h.db.Settings().ChatSettings(t.Context(), chat, user)
			if err != nil {
				t.Fatal(err)
			}
			if changedSince {
				if n := len(back()); n != 0 || settings.TimeZone != "Europe/Paris" {
					t.Errorf("after /tz Paris the stay's end took the chat to %s (%d messages)", settings.TimeZone, n)
				}
				return
			}
			bs := back()
			if len(bs) != 1 || settings.TimeZone != "Europe/London" || settings.ZoneUntil != nil {
				t.Fatalf("at Sunday's end: %d messages, zone %q, until %v; want one, London, none", len(bs), settings.TimeZone, settings.ZoneUntil)
			}
			if want := "🕰 Back to <b>Europe/London</b> time: the stay on Europe/Berlin time is over.\n⏰ Your reminder stays at its local time, now Europe/London time: “Take meds”"; !strings.HasPrefix(bs[0].Text, want) {
				t.Errorf("the return = %q, want %q…", bs[0].Text, want)
			}
			// Sunday's meds went out in Berlin; Monday's come at 08:00 in London.
			n := len(medsSent(h))
			h.sentBy(medsPrefix, time.Date(2026, 3, 16, 7, 0, 30, 0, time.UTC), n)
			h.sentBy(medsPrefix, time.Date(2026, 3, 16, 8, 0, 30, 0, time.UTC), n+1)
			h.tap(chat, user, bs[0].ID, "↩️ Undo")
			if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
				t.Errorf("the return's Undo left the zone %q, want Berlin", s.TimeZone)
			}
		})
	}
}

// An end of a stay that has passed, or that is no date, is refused with
// until named, as is a then without until, or one that is the zone being
// set or no place; each changes nothing: the model can ask or call again.
func TestZoneUntilRefused(t *testing.T) {
	t.Parallel()
	h := londonChat(t)
	for i, c := range []struct{ until, then, names string }{
		{"2026-03-01", "", "until"}, {"sunday", "", "until"}, {"2028-01-01", "", "until"},
		{"", "Lisbon", "then"},                 // then without until
		{"2026-03-15", "Cologne", "then"},      // the zone being set
		{"2026-03-15", "Nowhereville", "then"}, // no such place
	} {
		args := map[string]any{"timezone": "Europe/Berlin"}
		if c.until != "" {
			args["until"] = c.until
		}
		if c.then != "" {
			args["then"] = c.then
		}
		h.script(openaitest.Calls(call("z", "set_chat_timezone", args)), openaitest.Text(fmt.Sprint("Not set ", i)))
		h.tg.SendText(chat, user, "i'm in berlin till "+c.until)
		botMessage(h, fmt.Sprint("Not set ", i))
		reqs := h.llm.RequestsFor(agentM)
		if r := reqs[len(reqs)-1].ToolResults()["z"]; !strings.Contains(r, `"error"`) || !strings.Contains(r, c.names) {
			t.Errorf("until %q then %q: set_chat_timezone = %s", c.until, c.then, r)
		}
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/London" || s.ZoneUntil != nil {
		t.Errorf("zone %q until %v after refused stays", s.TimeZone, s.ZoneUntil)
	}
}

// Berlin till Sunday, then nod is down until Monday noon: what was due
// in the stay goes off as it was, then the chat goes back to London,
// then what was due since goes off in London's clock. Played, the
// reminders went first in Berlin's: "Monday at 10", said in Berlin and
// told "10:00 at home", came at 9 (London's 09:00), and the meds an
// hour early.
func TestZoneReturnAfterDowntime(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	ctx := t.Context()
	h.clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) // Tuesday
	if _, err := h.db.Schedule().SetTimeZone(ctx, chat, user, "Europe/London", time.UTC, nod.ToolSetTimezone, nil); err != nil {
		t.Fatal(err)
	}
	until := time.Date(2026, 3, 15, 23, 0, 0, 0, time.UTC) // Monday 00:00 in Berlin
	if _, err := h.db.Schedule().SetTimeZoneUntil(ctx, chat, user, "Europe/Berlin", time.UTC, nod.ToolSetTimezone, nil, nod.Stay{Until: until}); err != nil {
		t.Fatal(err)
	}
	// Each at its Berlin clock time, as the model set it during the stay.
	berlin := func(d, hh int) *time.Time { at := time.Date(2026, 3, d, hh-1, 0, 0, 0, time.UTC); return &at }
	h.seed(chat, nod.Task{ID: "MUM", Title: "Call mum", RemindAt: berlin(14, 18)})
	h.seed(chat, nod.Task{ID: "INV", Title: "Send invoice", RemindAt: berlin(16, 10)})
	h.seed(chat, nod.Task{ID: "PLT", Title: "Water plants", RemindAt: berlin(17, 9)})
	h.seed(chat, nod.Task{ID: "M1", Title: "Take meds", RemindAt: berlin(11, 8), Repeat: "DTSTART:20260311T080000\nRRULE:FREQ=DAILY"})

	h.clock.Set(time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC))
	h.start()
	h.sweeps(3)
	var got []string
	for _, m := range h.tg.BotMessages(chat) {
		got = append(got, m.Text)
	}
	want := [][]string{
		// Due during the stay: in Berlin's clock, where the chat is home
		// in London's when it goes out.
		{"⏰ <b>Call mum</b> · 18:00 in Berlin", "set for 14 Mar 2026, 18:00 in Berlin (1 day 19 h ago)"},
		{"🕰 Back to <b>Europe/London</b> time", "“Water plants” tomorrow, 09:00."},
		{"⏰ <b>Take meds</b>", "set for 16 Mar 2026, 08:00 (4 h ago)", "5 earlier times, from 11 Mar 2026, 08:00"},
		{"⏰ <b>Send invoice</b>", "set for 16 Mar 2026, 10:00 (2 h ago)"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d messages after the downtime, want %d:\n%s", len(got), len(want), strings.Join(got, "\n---\n"))
	}
	for i, w := range want {
		for _, part := range w {
			if !strings.Contains(got[i], part) {
				t.Errorf("message %d = %q, want %q", i+1, got[i], part)
			}
		}
	}
	if back := got[1]; strings.Contains(back, "Send invoice") || strings.Contains(back, "Take meds") {
		t.Errorf("the return names reminders that go off right after it: %q", back)
	}
	if at := h.task("PLT").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 17, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("“Water plants” is at %v, want 09:00 in London", at)
	}
	// Tuesday's meds at 08:00 in London, not 07:00.
	h.sentBy(medsPrefix, time.Date(2026, 3, 17, 7, 0, 30, 0, time.UTC), 1)
	h.sentBy(medsPrefix, time.Date(2026, 3, 17, 8, 0, 30, 0, time.UTC), 2)
}

// sentBy moves nod's clock to at, lets the sweep run, and checks that
// want of nod's messages start with prefix by then.
func (h *harness) sentBy(prefix string, at time.Time, want int) {
	h.t.Helper()
	h.clock.Set(at)
	h.sweeps(3)
	if got := len(botMessagesStarting(h, prefix)); got != want {
		h.t.Errorf("%d messages %q by %s UTC, want %d", got, prefix, at.Format("Jan 2 15:04"), want)
	}
}

// "in berlin till sunday, i live in lisbon", said in a chat that never
// set a zone: the stay goes to Lisbon at its end, not to nod's default.
// "i'll stay till tuesday" then moves the end and keeps where it goes; a
// stay in the zone the chat has, with nowhere else to go, changes
// nothing and tells the model to give then. Played, the model could
// only say "I can't set the zone it goes back to".
func TestZoneStayGoesWhereTheyLive(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) // Tuesday
	h.seed(chat, nod.Task{ID: "LL", Title: "Call the landlord"})
	h.start()
	say := func(said string, args map[string]any, reply string) telegramtest.Message {
		t.Helper()
		h.clf = answer("explicit:" + said)
		h.script(openaitest.Calls(call("z", "set_chat_timezone", args)), openaitest.Text(reply))
		h.tg.SendText(chat, user, said)
		botMessage(h, reply)
		ms := h.tg.BotMessages(chat)
		return ms[len(ms)-2]
	}
	lastResult := func() string {
		reqs := h.llm.RequestsFor(agentM)
		return reqs[len(reqs)-1].ToolResults()["z"]
	}
	lastLine := func() string {
		clf := h.llm.RequestsFor(clfM)
		return clf[len(clf)-1].LastUser()
	}

	rcpt := say("in berlin till sunday, i live in lisbon", map[string]any{"timezone": "Europe/Berlin", "until": "2026-03-15", "then": "Lisbon"}, "Berlin till Sunday.")
	if want := "Until the end of 15 Mar 2026: then back to <b>Europe/Lisbon</b>, on its own."; !strings.Contains(rcpt.Text, want) {
		t.Errorf("receipt = %q, want %q", rcpt.Text, want)
	}
	if want := "set the chat's time zone: UTC → Europe/Berlin until 2026-03-16T00:00, then back to Europe/Lisbon"; !strings.Contains(lastLine(), want) {
		t.Errorf("the classifier's line:\n%s\nwant %q", lastLine(), want)
	}
	if r := lastResult(); !strings.Contains(r, "puts the chat back to Europe/Lisbon") {
		t.Errorf("set_chat_timezone = %s", r)
	}

	// Monday at 18:00 in Berlin's clock, after Sunday's end: 18:00 in
	// Lisbon until the stay moves past it.
	monday := time.Date(2026, 3, 16, 17, 0, 0, 0, time.UTC)
	h.seed(chat, nod.Task{ID: "ANA", Title: "Dinner with Ana", RemindAt: &monday})
	rcpt = say("actually i'll stay till tuesday", map[string]any{"timezone": "Europe/Berlin", "until": "2026-03-17"}, "Till Tuesday then.")
	if r, want := lastResult(), `"reminders_now_in_stay":{"note":"the stay now ends after these reminders, which went off at their clock time at home: each now goes off at remind_at, its clock time in Europe/Berlin; tell the user","reminders":[{"task_id":"ANA","title":"Dinner with Ana","remind_at":"2026-03-16T18:00:00+01:00"}]}`; !strings.Contains(r, want) {
		t.Errorf("set_chat_timezone = %s\nwant %s", r, want)
	}
	for _, want := range []string{"🕰 Time zone stays <b>Europe/Berlin</b>", "Until the end of 17 Mar 2026: then back to <b>Europe/Lisbon</b>, on its own."} {
		if !strings.Contains(rcpt.Text, want) {
			t.Errorf("receipt = %q, want %q", rcpt.Text, want)
		}
	}
	if want := "Europe/Berlin → Europe/Berlin until 2026-03-18T00:00, then back to Europe/Lisbon"; !strings.Contains(lastLine(), want) {
		t.Errorf("the classifier's line:\n%s\nwant %q", lastLine(), want)
	}
	// Back to Sunday, and Monday's dinner is at 18:00 in Lisbon again;
	// then Tuesday after all.
	say("just till sunday then", map[string]any{"timezone": "Europe/Berlin", "until": "2026-03-15"}, "Till Sunday.")
	if r, want := lastResult(), `"reminders_now_after_stay":{"note":"the stay now ends before these reminders, which went off in Europe/Berlin time: each now goes off at remind_at, its clock time at home (Europe/Lisbon); tell the user","reminders":[{"task_id":"ANA","title":"Dinner with Ana","remind_at":"2026-03-16T18:00:00+00:00"}]}`; !strings.Contains(r, want) {
		t.Errorf("set_chat_timezone = %s\nwant %s", r, want)
	}
	say("till tuesday after all", map[string]any{"timezone": "Europe/Berlin", "until": "2026-03-17"}, "Tuesday it is.")
	h.tg.SendText(chat, user, "/tz")
	if m := botMessage(h, "🕰 This chat's time zone is <b>Europe/Berlin</b>"); !strings.Contains(m.Text, "On 18 Mar 2026, 00:00 (Europe/Berlin time) it goes back to <b>Europe/Lisbon</b>, on its own.") {
		t.Errorf("/tz during the stay = %q", m.Text)
	}

	// Wednesday at 9, set in Berlin's clock, is 9 in Lisbon: the model
	// is told so beside remind_at's +01:00.
	const said = "remind me wednesday at 9 to call the landlord"
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "LL", "remind_at": "2026-03-18T09:00"})), openaitest.Text("Wednesday at 9."))
	h.tg.SendText(chat, user, said)
	botMessage(h, "Wednesday at 9.")
	reqs := h.llm.RequestsFor(agentM)
	if r, want := reqs[len(reqs)-1].ToolResults()["r"], `"reminder_after_stay":"the chat goes back to Europe/Lisbon at 2026-03-18T00:00:00+01:00, before this reminder, which keeps its clock time: it goes off at 2026-03-18T09:00:00+00:00 (Europe/Lisbon time)"`; !strings.Contains(r, want) {
		t.Errorf("set_task_reminder = %s\nwant %s", r, want)
	}
	if want := "(Europe/Berlin); the chat's stay ends before it, back to Europe/Lisbon, where it goes off at 2026-03-18T09:00"; !strings.Contains(lastLine(), want) {
		t.Errorf("the classifier's line:\n%s\nwant %q", lastLine(), want)
	}

	back := func() []telegramtest.Message { return botMessagesStarting(h, "🕰 Back to") }
	h.sentBy("🕰 Back to", time.Date(2026, 3, 15, 23, 0, 30, 0, time.UTC), 0) // Sunday's end: no longer the stay's
	h.clock.Set(time.Date(2026, 3, 17, 23, 0, 30, 0, time.UTC))
	h.sweeps(3)
	s, err := h.db.Settings().ChatSettings(t.Context(), chat, user)
	if bs := back(); err != nil || len(bs) != 1 || !strings.HasPrefix(bs[0].Text, "🕰 Back to <b>Europe/Lisbon</b> time") || s.TimeZone != "Europe/Lisbon" || s.ZoneUntil != nil {
		t.Fatalf("at Tuesday's end: %d messages, zone %q, until %v (%v); want one, Lisbon, none", len(bs), s.TimeZone, s.ZoneUntil, err)
	}
	h.sentBy("⏰ <b>Call the landlord</b>", time.Date(2026, 3, 18, 8, 0, 30, 0, time.UTC), 0)
	h.sentBy("⏰ <b>Call the landlord</b>", time.Date(2026, 3, 18, 9, 0, 30, 0, time.UTC), 1)

	say("back in berlin till friday", map[string]any{"timezone": "Europe/Lisbon", "until": "2026-03-20"}, "Which zone?")
	if r := lastResult(); !strings.Contains(r, "Skipped: the chat's time zone is already Europe/Lisbon") || !strings.Contains(r, "Give then") {
		t.Errorf("a stay with nowhere to go: set_chat_timezone = %s", r)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Lisbon" || s.ZoneUntil != nil {
		t.Errorf("a skipped stay left zone %q until %v", s.TimeZone, s.ZoneUntil)
	}
}

// A stay the model inferred waits for a tap, and its offer says how
// long and where the chat goes then, as the receipt after the tap does;
// the tap sets both.
func TestProposedStaySaysItsEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
	h.start()
	const said = "flying to berlin for the week, home is lisbon"
	h.clf = answer("needs:" + said)
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Europe/Berlin", "until": "2026-03-15", "then": "Europe/Lisbon"})),
		openaitest.Text("Tap to switch to Berlin for the week."))
	h.tg.SendText(chat, user, said)
	offer := botMessage(h, "🕰 Set this chat's time zone to")
	if want := "<b>Europe/Berlin</b> until the end of 15 Mar 2026, then back to <b>Europe/Lisbon</b>?"; !strings.Contains(offer.Text, want) {
		t.Errorf("offer = %q, want %q", offer.Text, want)
	}
	h.tap(chat, user, offer.ID, "✓ Europe/Berlin")
	h.tg.Wait("the offer to become a receipt", func() bool {
		m, _ := h.tg.Message(chat, offer.ID)
		return strings.Contains(m.Text, "then back to <b>Europe/Lisbon</b>, on its own.")
	})
	s, err := h.db.Settings().ChatSettings(t.Context(), chat, user)
	if err != nil || s.TimeZone != "Europe/Berlin" || s.ZoneUntil == nil || s.ZoneBack != "Europe/Lisbon" {
		t.Errorf("after the tap: zone %q until %v back to %q (%v)", s.TimeZone, s.ZoneUntil, s.ZoneBack, err)
	}
}

// An Undo puts back the stay its change ended: "till tuesday" undone is
// till Sunday again, and so is a /tz Paris undone; Sunday's end then
// goes back to London. Played, the receipt of a stay moved in the same
// zone had no Undo at all.
func TestZoneUndoPutsTheStayBack(t *testing.T) {
	t.Parallel()
	h := londonChat(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.stop()
	h.start()
	stay := func(said, until string) telegramtest.Message {
		t.Helper()
		h.clf = answer("explicit:" + said)
		h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Europe/Berlin", "until": until})), openaitest.Text("Until "+until+"."))
		h.tg.SendText(chat, user, said)
		botMessage(h, "Until "+until+".")
		ms := h.tg.BotMessages(chat)
		return ms[len(ms)-2]
	}
	ends := func(when string) {
		t.Helper()
		s, err := h.db.Settings().ChatSettings(t.Context(), chat, user)
		if err != nil || s.TimeZone != "Europe/Berlin" || s.ZoneUntil == nil || s.ZoneUntil.Format(time.DateOnly) != when || s.ZoneBack != "Europe/London" {
			t.Errorf("zone %q until %v back to %q (%v); want Berlin until %s, then London", s.TimeZone, s.ZoneUntil, s.ZoneBack, err, when)
		}
	}
	stay("in berlin till sunday", "2026-03-15")
	moved := stay("actually till tuesday", "2026-03-17")
	ends("2026-03-17")
	h.tap(chat, user, moved.ID, "↩️ Undo")
	h.tg.Wait("the receipt to say it is undone", func() bool {
		m, _ := h.tg.Message(chat, moved.ID)
		return m.Text == "↩️ Undone: still <b>Europe/Berlin</b> time.\nUntil the end of 15 Mar 2026, as before: then back to <b>Europe/London</b>, on its own."
	})
	ends("2026-03-15")

	h.tg.SendText(chat, user, "/tz Europe/Paris")
	paris := botMessage(h, "🕰 Time zone: Europe/Berlin → <b>Europe/Paris</b>")
	h.tap(chat, user, paris.ID, "↩️ Undo")
	h.tg.Wait("/tz Paris undone", func() bool {
		m, _ := h.tg.Message(chat, paris.ID)
		return strings.HasPrefix(m.Text, "↩️ Time zone back to <b>Europe/Berlin</b>.\nUntil the end of 15 Mar 2026, as before")
	})
	ends("2026-03-15")

	h.clock.Set(time.Date(2026, 3, 15, 23, 0, 30, 0, time.UTC))
	h.sweeps(3)
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/London" || len(botMessagesStarting(h, "🕰 Back to <b>Europe/London</b>")) != 1 {
		t.Errorf("at Sunday's end the zone is %q", s.TimeZone)
	}
}
