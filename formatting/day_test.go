package formatting_test

import (
	"slices"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/golden"
	"github.com/nodbot/nod/formatting"
)

// dayCases are the messages of the person's day, shown in Berlin.
func dayCases(loc *formatting.Locale) map[string]formatting.Message {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	loc = loc.In(berlin)
	now := time.Date(2026, 11, 24, 22, 40, 0, 0, time.UTC) // 23:40 in Berlin
	due := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	task := nod.Task{ID: "T1", Title: "Steuererklärung <2025>", DueDate: "2026-11-30", RemindAt: &due}
	later := due.Add(time.Hour)
	snoozed := task
	snoozed.RemindAt = &later
	munich := nod.City{ID: 2867714, Name: "Munich", NameDE: "München", Country: "Germany", CountryDE: "Deutschland", Zone: "Europe/Berlin"}
	frankfurt := nod.City{ID: 2925533, Name: "Frankfurt am Main", Region: "Hesse", RegionDE: "Hessen", Country: "Germany", CountryDE: "Deutschland", Zone: "Europe/Berlin"}
	oder := nod.City{ID: 2925535, Name: "Frankfurt (Oder)", Region: "Brandenburg", Country: "Germany", CountryDE: "Deutschland", Zone: "Europe/Berlin"}
	portland := nod.City{ID: 5746545, Name: "Portland", Region: "Oregon", Country: "United States of America", CountryDE: "Vereinigte Staaten", Zone: "America/Los_Angeles"}
	one := []nod.MovedReminder{{TaskID: "T1", Title: task.Title, At: due}}
	two := []nod.MovedReminder{{TaskID: "T1", Title: task.Title, At: due}, {TaskID: "T2", Title: "Call <Lola>", At: due.Add(49 * time.Hour)}}
	five := append(slices.Clone(two), nod.MovedReminder{TaskID: "T3", Title: "Renew the passport before the trip to Lisbon in the spring", At: due.Add(50 * time.Hour)},
		nod.MovedReminder{TaskID: "T4", Title: "Water the plants", At: due.Add(60 * time.Hour)}, nod.MovedReminder{TaskID: "T5", Title: "Pay rent", At: due.Add(70 * time.Hour)})
	inNewYork := task
	sydney9 := time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC) // the 26th in Sydney, still the 25th in Berlin
	inNewYork.RemindClock = &nod.Clock{Offset: -5 * 3600, Zone: "America/New_York"}
	maine := nod.City{ID: 4975802, Name: "Portland", Region: "State of Maine", RegionDE: "Maine", Country: "United States of America", CountryDE: "Vereinigte Staaten", Zone: "America/New_York"}
	return map[string]formatting.Message{
		"tz_show":                loc.Day().TimeZoneShow("Europe/Berlin", true, now),
		"tz_show_stay":           loc.Day().TimeZoneStay("Europe/Berlin", now, time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), "Europe/London"),
		"tz_show_default":        loc.In(time.UTC).Day().TimeZoneShow("UTC", false, now),
		"tz_set":                 loc.Day().TimeZoneSet("UTC", "Europe/Berlin", nil, nil, now, "", time.Time{}, "z1"),
		"tz_set_daily":           loc.Day().TimeZoneSet("UTC", "Europe/Berlin", nil, two, now, "08:00", nod.NextDaily(8, 0, loc.Zone(), now), "z1"),
		"tz_set_city":            loc.Day().TimeZoneSet("UTC", "Europe/Berlin", &munich, one, now, "", time.Time{}, "z1"),
		"tz_set_same":            loc.Day().TimeZoneSet("Europe/Berlin", "Europe/Berlin", &munich, nil, now, "", time.Time{}, "z1"),
		"tz_receipt_same":        loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "Europe/Berlin", After: "Europe/Berlin", Moved: one, City: &munich}, now, "I moved to Munich", ""),
		"tz_bad":                 loc.Text(formatting.TzBad.With("Mars/Olympus")),
		"tz_receipt":             loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "UTC", After: "Asia/Tokyo", Moved: one}, now, "I'm in Tokyo this week", ""),
		"tz_receipt_group":       loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "UTC", After: "Europe/Berlin", Moved: two}, now, "we're all in Berlin", "Alice <&>"),
		"tz_receipt_many":        loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "UTC", After: "Europe/Berlin", Moved: five}, now, "I live in Berlin now", ""),
		"tz_receipt_four":        loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "UTC", After: "Europe/Berlin", Moved: five[:4]}, now, "I live in Berlin now", ""),
		"tz_receipt_map":         loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "UTC", After: "Europe/Berlin"}, now, "", ""),
		"tz_receipt_city":        loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "UTC", After: "Europe/Berlin", City: &oder}, now, "I'm in Frankfurt <Oder>", ""),
		"tz_receipt_until":       loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "Europe/London", After: "Europe/Berlin", Moved: one, Stay: nod.Stay{Until: time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)}}, now, "I'm in Berlin till Sunday", ""),
		"tz_receipt_until_then":  loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "UTC", After: "Europe/Berlin", Stay: nod.Stay{Until: time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), Back: "Europe/Lisbon"}}, now, "Berlin till Sunday, I live in Lisbon", ""),
		"tz_receipt_stays_until": loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "Europe/Berlin", After: "Europe/Berlin", Stay: nod.Stay{Until: time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC), Back: "Europe/London"}}, now, "staying till tuesday", ""),
		"tz_receipt_until_at":    loc.Day().TimeZoneReceipt(nod.ZoneChange{ID: "z1", Before: "Europe/London", After: "Europe/Berlin", Stay: nod.Stay{Until: time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)}}, now, "Berlin until Sunday 6pm", ""),
		"tz_back":                loc.Day().TimeZoneBack("Europe/Berlin", "Europe/London", one, now, "z2"),
		"tz_which":               loc.Day().TimeZoneWhich("Frankfurt", []nod.City{frankfurt, oder}, []string{"z1", "z2"}, 2),
		"tz_which_more":          loc.Day().TimeZoneWhich("Portland <&>", []nod.City{portland, maine}, []string{"z1", "z2"}, 4),
		"tz_undone":              loc.Day().TimeZoneUndone("Asia/Tokyo", "UTC", nil, now, "", nod.Stay{}),
		"tz_undone_moved":        loc.Day().TimeZoneUndone("Europe/Berlin", "Europe/London", two, now, "", nod.Stay{}),
		"tz_undone_stay_end":     loc.Day().TimeZoneUndone("Europe/Berlin", "Europe/Berlin", nil, now, "", nod.Stay{Until: time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), Back: "Europe/London"}),
		"tz_undone_stay":         loc.Day().TimeZoneUndone("Europe/Paris", "Europe/Berlin", nil, now, "", nod.Stay{Until: time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), Back: "Europe/London"}),
		"tz_offer":               loc.Day().TimeZoneOffer("UTC", "Asia/Tokyo", nil, "z1", nod.Stay{}),
		"tz_offer_city":          loc.Day().TimeZoneOffer("UTC", "Europe/Berlin", &munich, "z1", nod.Stay{}),
		"tz_offer_until":         loc.Day().TimeZoneOffer("UTC", "Europe/Berlin", nil, "z1", nod.Stay{Until: time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC), Back: "Europe/Lisbon"}),
		"tz_kept":                loc.Text(formatting.TzKept),
		"tz_sea":                 loc.Text(formatting.TzSea),
		"admin_only_tz":          loc.Text(formatting.AdminOnly.With("tz")),
		"admin_daily":            loc.Text(formatting.AdminOnly.With("daily")),
		"daily_on":               loc.Day().Daily("08:00", false, "Europe/Berlin", true, nod.NextDaily(8, 0, loc.Zone(), now)),
		"daily_quiet":            loc.Day().Daily("08:00", true, "Europe/Berlin", true, nod.NextDaily(8, 0, loc.Zone(), now)),
		"daily_none":             loc.Day().Daily("", false, "Europe/Berlin", true, time.Time{}),
		"daily_no_zone":          loc.In(time.UTC).Day().Daily("08:00", false, "UTC", false, nod.NextDaily(8, 0, time.UTC, now)),
		"daily_said":             loc.Text(formatting.DailySaid.With("Launch-Plan war gestern fällig & ist noch <offen>: erledigt?")),
		"daily_off":              loc.Text(formatting.DailyOff),
		"daily_bad":              loc.Text(formatting.DailyBad),
		"daily_nothing":          loc.Text(formatting.DailyNothing),
		"daily_proposed":         loc.Text(formatting.DailyProposed),
		"reminder":               loc.Day().Reminder(task, due, 30*time.Second, ""),
		"reminder_group":         loc.Day().Reminder(task, due, 30*time.Second, "Alice <A&B>"),
		"reminder_late":          loc.Day().Reminder(task, due, 3*time.Hour+10*time.Minute, ""),
		// From a day on, days and hours: "156 h 45 min" had to be worked out.
		"reminder_days_late":  loc.Day().Reminder(task, due, 156*time.Hour+45*time.Minute, ""),
		"reminder_day_late":   loc.Day().Reminder(task, due, 24*time.Hour+20*time.Minute, ""),
		"reminder_missed":     loc.Day().WithMissed(loc.Day().Reminder(task, due, 3*time.Hour, ""), 4, due.AddDate(0, 0, -4)),
		"reminder_missed_one": loc.Day().WithMissed(loc.Day().Reminder(task, due, 3*time.Hour, ""), 1, due.AddDate(0, 0, -1)),
		// A time in a place's clock names the place, and its date where
		// that is another.
		"reminder_place":      loc.Day().Reminder(inNewYork, due, 0, ""),
		"reminder_place_late": loc.Day().Reminder(inNewYork, due, 2*time.Hour, ""),
		"reminder_place_next": loc.Day().ReminderDone(nod.Task{ID: "T7", Title: "Sydney-Rechnung", Status: nod.StatusOpen, RemindAt: &sydney9,
			RemindClock: &nod.Clock{Offset: 11 * 3600, Zone: "Australia/Sydney"}, Repeat: "DTSTART;TZID=Australia/Sydney:20261126T090000\nRRULE:FREQ=MONTHLY"}, "u1", ""),
		"n_remind_whose":       loc.Text(formatting.NoticeRemindWhose.With("Alice")),
		"reminder_done":        loc.Day().ReminderDone(task, "u1", ""),
		"reminder_moved":       loc.Day().ReminderSnoozed(snoozed, "u2", ""),
		"reminder_again":       loc.Day().ReminderAgain(snoozed, later, ""),
		"reminder_done_group":  loc.Day().ReminderDone(task, "u1", "Alice <&>"),
		"reminder_moved_group": loc.Day().ReminderSnoozed(snoozed, "u2", "Alice <&>"),
		"reminder_again_group": loc.Day().ReminderAgain(snoozed, later, "Alice <&>"),
		// ✓ Done on a repeating reminder once the next one went out.
		"reminder_next_sent":       loc.Day().ReminderDoneNextSent(task, later, ""),
		"reminder_next_sent_group": loc.Day().ReminderDoneNextSent(task, later, "Alice <&>"),
		"n_remind_sent":            loc.Text(formatting.NoticeRemindSent),
		// A snooze undone after the time it put off, and a move undone
		// after the time it moved away from.
		"undone_reminder_sent": loc.Day().WithReminderBack(loc.Undo().Undone(nod.UndoEntry{ID: "u3", Tool: nod.ToolSetReminder, Summary: "Set reminder to 2026-11-25 10:00", Title: task.Title,
			Change: nod.Change{TaskID: "T1", Fields: []nod.FieldChange{{Field: nod.FieldReminder, Before: "2026-11-25T09:00:00Z", After: "2026-11-25T08:00:00Z"}}}}),
			nod.ReminderBack{At: due, Sent: true}, true),
		"undone_reminder_now": loc.Day().WithReminderBack(loc.Undo().Undone(nod.UndoEntry{ID: "u4", Tool: nod.ToolSetReminder, Summary: "Set reminder to 2026-11-25 10:00", Title: task.Title,
			Change: nod.Change{TaskID: "T1", Fields: []nod.FieldChange{{Field: nod.FieldReminder, Before: "2026-11-25T09:00:00Z", After: "2026-11-25T08:00:00Z"}}}}),
			nod.ReminderBack{At: due}, false),
		// A task's creation undone, and a deletion, with a reminder ahead;
		// and an Undo all of two, one of them with one.
		"undone_created_held": loc.Day().WithReminderHeld(loc.Undo().Undone(nod.UndoEntry{ID: "u7", Tool: nod.ToolCreateTask, Summary: `Create task "Buy ink"`, Title: "Buy ink",
			Change: nod.Change{TaskID: "T2", Fields: []nod.FieldChange{{Field: nod.FieldTrash, After: nod.TrashedValue}}}}), "", later),
		"redone_resumed": loc.Day().WithReminderResumed(loc.Undo().Redone(nod.UndoEntry{ID: "u8", Tool: nod.ToolCreateTask, Summary: `Create task "Buy ink"`, Title: "Buy ink",
			Change: nod.Change{TaskID: "T2", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: nod.TrashedValue}}}}), later),
		"deleted_held": loc.Day().WithReminderHeld(loc.Text(formatting.Deleted.With(formatting.Trashed{Title: "Buy ink", Keep: 30 * 24 * time.Hour})), "", later),
		"undone_all_held": loc.Day().WithReminderHeld(loc.Changes().BulkUndone([]nod.UndoEntry{
			{ID: "u8", TaskID: "T2", Tool: nod.ToolCreateTask, Title: "Buy ink"}, {ID: "u9", TaskID: "T3", Tool: nod.ToolCreateTask, Title: "Call <Lola>"}}), "Call <Lola>", later),
		"task_card":      loc.Tasks().Card(task, due.Add(-time.Hour)),
		"task_card_sent": loc.Tasks().Card(task, due),
		"task_card_done": loc.Tasks().CardTapped(nod.Task{ID: "T1", Title: task.Title, Status: nod.StatusDone, Priority: nod.P2}, now, "u5"),
		"task_card_repeat": loc.Tasks().CardTapped(nod.Task{ID: "T1", Title: task.Title, Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &later,
			Repeat: "DTSTART:20261123T100000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}, now, "u6"),
		"n_card_stale":     loc.Text(formatting.NoticeCardStale),
		"n_task_whose":     loc.Text(formatting.NoticeTaskWhose.With("Alice")),
		"n_task_forbidden": loc.Text(formatting.NoticeTaskForbidden),
		"receipt_reminder": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "File the tax return", Quote: "remind me tomorrow at 9 about the tax return",
			Item: nod.ChangeItem{N: 1, Tool: "set_task_reminder", Summary: "Set reminder to 2026-11-25 09:00", Field: nod.FieldReminder, Before: "", After: "2026-11-25T08:00:00Z", UndoID: "u1"}}}),
		// "Watered them" said of a weekly chore: this time done, the
		// reminder on to the next.
		"receipt_this_time": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "Water the plants", Quote: "i watered them already",
			Item: nod.ChangeItem{N: 1, Tool: "set_task_reminder", Summary: nod.OccurrenceSummary + "set reminder to 2026-11-29 11:00", Field: nod.FieldReminder,
				Before: "2026-11-22T10:00:00Z", After: "2026-11-29T10:00:00Z", UndoID: "u1"}}}),
		// A time in another place's clock shows it beside the chat's; in
		// a clock like the chat's, once.
		"receipt_reminder_clock": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "Call the London office", Quote: "remind me tomorrow at 8 London time",
			Item: nod.ChangeItem{N: 1, Tool: "set_task_reminder", Summary: "Set reminder to 2026-11-25 09:00 (08:00 UTC+00:00)", Field: nod.FieldReminder,
				After: "2026-11-25T08:00:00+00:00", UndoID: "u1"}}, {TaskTitle: "Check out of the hotel", Quote: "and at 10 Berlin time the check-out",
			Item: nod.ChangeItem{N: 2, Tool: "set_task_reminder", Summary: "Set reminder to 2026-11-25 10:00", Field: nod.FieldReminder,
				After: "2026-11-25T10:00:00+01:00", UndoID: "u2"}}}),
	}
}

func TestDayGolden(t *testing.T) {
	for _, lang := range formatting.Languages() {
		for name, m := range dayCases(formatting.For(lang)) {
			t.Run(lang+"/"+name, func(t *testing.T) {
				checkValid(t, name, m)
				golden.Check(t, lang+"/day/"+name, "day "+name, render(m)...)
			})
		}
	}
}
