package formatting

import (
	"time"

	"github.com/nodbot/nod"
)

// TimeZoneShow renders /tz: the chat's zone and its time now; set false
// means the chat never chose one and def serves it.
func (l *Locale) TimeZoneShow(zone string, set bool, now time.Time) Message {
	return l.Text("tz_show", map[string]any{"Zone": zone, "Set": set, "Now": l.Stamp(now)})
}

// TimeZoneSet renders the answer to /tz NAME: the zone before and after.
func (l *Locale) TimeZoneSet(before, after string, now time.Time) Message {
	return l.Text("tz_set", map[string]any{"Before": before, "After": after, "Now": l.Stamp(now)})
}

// TimeZoneReceipt reports a zone set from the person's words or a shared
// location, with an Undo that puts the zone before back.
func (l *Locale) TimeZoneReceipt(before, after, undoID, quote string) Message {
	m := l.Text("tz_receipt", map[string]any{"Before": before, "After": after, "Quote": quote})
	m.Keyboard = [][]Button{{l.button("b_undo", nil, nod.Action{Kind: nod.ActUndoZone, ID: undoID})}}
	return m
}

// Daily renders /daily: the chat's daily review, or that there is none.
func (l *Locale) Daily(at string, quiet bool, zone string) Message {
	return l.Text("daily_show", map[string]any{"At": at, "Quiet": quiet, "Zone": zone})
}

// Duration renders a lateness to the minute ("3 h 5 min").
func (l *Locale) Duration(d time.Duration) string {
	m := int(d.Round(time.Minute) / time.Minute)
	return l.Minutes(&m)
}

// Reminder renders a task's reminder with its buttons: done, an hour
// later, tomorrow at the same time. late, if over a few minutes, says
// that nod was not running when it was due.
func (l *Locale) Reminder(t nod.Task, due time.Time, late time.Duration) Message {
	data := map[string]any{"Title": t.Title, "Due": "", "At": l.Stamp(due), "Late": ""}
	if t.DueDate != "" {
		data["Due"] = l.Date(t.DueDate)
	}
	if late >= LateAfter {
		data["Late"] = l.Duration(late)
	}
	m := l.Text("reminder", data)
	m.Keyboard = [][]Button{{
		l.button("b_remind_done", nil, nod.Action{Kind: nod.ActRemindDone, ID: t.ID}),
		l.button("b_remind_hour", nil, nod.Action{Kind: nod.ActSnooze, ID: t.ID, N: nod.SnoozeHour}),
		l.button("b_remind_tomorrow", nil, nod.Action{Kind: nod.ActSnooze, ID: t.ID, N: nod.SnoozeTomorrow}),
	}}
	return m
}

// LateAfter is how late a reminder or review must be to say so: later
// than a sweep or two, so that only downtime is mentioned.
const LateAfter = 5 * time.Minute

// ReminderDone and ReminderSnoozed are a reminder's message once the
// person tapped one of its buttons, with the Undo of that change.
func (l *Locale) ReminderDone(t nod.Task, undoID string) Message {
	m := l.Text("reminder_done", t)
	m.Keyboard = [][]Button{{l.button("b_undo", nil, nod.Action{Kind: nod.ActUndo, ID: undoID})}}
	return m
}

// ReminderSnoozed: see ReminderDone.
func (l *Locale) ReminderSnoozed(t nod.Task, undoID string) Message {
	at := ""
	if t.RemindAt != nil {
		at = l.Stamp(*t.RemindAt)
	}
	m := l.Text("reminder_snoozed", map[string]string{"Title": t.Title, "At": at})
	m.Keyboard = [][]Button{{l.button("b_undo", nil, nod.Action{Kind: nod.ActUndo, ID: undoID})}}
	return m
}

// TimeZoneOffer asks whether to set the zone the agent proposed: a
// button to set it and one to keep the zone the chat has.
func (l *Locale) TimeZoneOffer(before, after, id string) Message {
	m := l.Text("tz_offer", map[string]string{"Before": before, "After": after})
	m.Keyboard = [][]Button{{
		l.button("b_zone_set", after, nod.Action{Kind: nod.ActZoneAccept, ID: id}),
		l.button("b_zone_keep", before, nod.Action{Kind: nod.ActZoneDecline, ID: id}),
	}}
	return m
}
