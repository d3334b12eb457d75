package formatting

import (
	"time"

	"github.com/nodbot/nod"
)

// The templates of the person's day.
var (
	tzShow           = define[zoneShown]("tz_show")
	tzSet            = define[zoneChange]("tz_set")
	tzReceipt        = define[zoneChange]("tz_receipt")
	tzBack           = define[zoneChange]("tz_back")
	reminderMissed   = define[missed]("reminder_missed")
	tzUndone         = define[zoneChange]("tz_undone")
	dailyShow        = define[dailyReview]("daily_show")
	reminderTmpl     = define[reminder]("reminder")
	reminderDone     = define[snoozed]("reminder_done")
	reminderNext     = define[snoozed]("reminder_next")
	reminderSnoozed  = define[snoozed]("reminder_snoozed")
	reminderAgain    = define[snoozed]("reminder_again")
	reminderNextSent = define[snoozed]("reminder_next_sent")
	reminderBack     = define[passed]("reminder_back")
	reminderHeld     = define[held]("reminder_held")
	reminderResumed  = define[string]("reminder_resumed") // when it goes off
	tzOffer          = define[zoneChange]("tz_offer")
	tzWhich          = define[cityQuestion]("tz_which")

	remindDoneButton     = fixed("b_remind_done")
	remindHourButton     = fixed("b_remind_hour")
	remindTomorrowButton = fixed("b_remind_tomorrow")
	zoneSetButton        = define[string]("b_zone_set")
	cityButton           = define[string]("b_city")
	zoneKeepButton       = define[string]("b_zone_keep")
)

func init() { partial[zoneChange]("tz_moved") }

// zoneShown is /tz: the chat's Zone, whether the chat Set it, and the
// time there Now.
type zoneShown struct {
	Zone string
	Set  bool
	Now  string
	// Until and Back: a stay's end, and the zone it goes back to.
	Until, Back string
}

// zoneChange is a time zone set, offered or reported: the zone Before and
// After, the time there Now, and the person's words that asked for it;
// set by /tz, the chat's daily review (Daily, its time of day) and when
// it runs Next in the new zone.
type zoneChange struct {
	Before, After, Now, Quote, Daily, Next string
	City                                   string // the place named, "" for a zone named
	// Reminders is how many upcoming reminders kept their local times;
	// Moved names the first of them, More how many others.
	Reminders int
	Moved     []movedReminder
	More      int
	// Who names, in a group, the member whose words set it: the
	// reminders kept are the group's, not theirs.
	Who string
	// Until is when a zone set for a while goes to Back; UntilDay the day
	// at whose end it does, instead.
	Until, UntilDay, Back string
}

// movedReminder is a reminder a zone change kept at its clock time: its
// task's Title and when it goes off now (At), in the new zone.
type movedReminder struct{ Title, At string }

// movedNamed is how many of a zone change's moved reminders its message
// names when it counts the rest: "and 1 more" would take the room of a
// name, so one more is named too.
const movedNamed = 3

// tellMoved fills z's reminders from those a change to zone after moved,
// each told in that zone as seen at now.
func (dv Day) tellMoved(z *zoneChange, after string, rs []nod.MovedReminder, now time.Time) {
	l := dv.l
	if zone, err := nod.LoadZone(after); err == nil && after != "" {
		l = l.In(zone)
	}
	z.Reminders = len(rs)
	for i, r := range rs {
		if i == movedNamed && len(rs) > movedNamed+1 {
			z.More = len(rs) - i
			break
		}
		z.Moved = append(z.Moved, movedReminder{Title: cut(r.Title, 40), At: l.RelativeStamp(r.At, now)})
	}
}

// dailyReview is /daily: At is the time of day, "" for none; ZoneSet says
// whether the chat chose Zone or has the default.
type dailyReview struct {
	At      string
	Quiet   bool
	Zone    string
	ZoneSet bool
	Next    string // when the next review runs
}

// reminder is a task's reminder: Due is its due date, if any, and Late
// how late the reminder comes, if it says so.
type reminder struct{ Title, Clock, Due, At, Late, For string }

// snoozed is a reminder put off until At.
// snoozed is a reminder's message after a tap: the task's Title, At the
// time it reminds again, and For, in a group, whose reminder it is.
type snoozed struct{ Title, At, For string }

// passed is a reminder an undo put back At a time that has passed: it
// went out then (Sent; Shown if its message has its buttons again), or
// it goes out now.
type passed struct {
	At          string
	Sent, Shown bool
}

// TimeZoneShow renders /tz: the chat's zone and its time now; set false
// means the chat never chose one and def serves it.
func (dv Day) TimeZoneShow(zone string, set bool, now time.Time) Message {
	return dv.l.Text(tzShow.With(zoneShown{Zone: zone, Set: set, Now: dv.l.Stamp(now)}))
}

// TimeZoneStay renders /tz during a stay set for a while: the zone, its
// time now, and when the chat goes back to zone back.
func (dv Day) TimeZoneStay(zone string, now, until time.Time, back string) Message {
	return dv.l.Text(tzShow.With(zoneShown{Zone: zone, Set: true, Now: dv.l.Stamp(now), Until: dv.l.Stamp(until), Back: back}))
}

// TimeZoneSet renders the answer to /tz NAME: the zone before and after,
// the city that named it ("" for a zone's name), the reminders that kept
// their local times, and, if the chat has a daily review at the time of
// day daily, when it runs next in the new zone; with an Undo of change
// undoID that puts the zone before back, as every receipt of a zone has.
func (dv Day) TimeZoneSet(before, after string, city *nod.City, moved []nod.MovedReminder, now time.Time, daily string, next time.Time, undoID string) Message {
	z := zoneChange{Before: before, After: after, City: dv.city(city), Now: dv.l.Stamp(now)}
	dv.tellMoved(&z, after, moved, now)
	if daily != "" && !next.IsZero() {
		z.Daily, z.Next = daily, dv.l.Stamp(next)
	}
	m := dv.l.Text(tzSet.With(z))
	if undoID != "" && before != after {
		m.Keyboard = [][]Button{{dv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndoZone, ID: undoID})}}
	}
	return m
}

// TimeZoneReceipt reports zone change zc, set from the person's words
// (quote), a city they chose or a shared location (zc.City nil), its
// stay, and the reminders that kept their local times, as seen at now,
// with an Undo that puts the zone before back. who names the person in
// a group, "" in a private chat.
func (dv Day) TimeZoneReceipt(zc nod.ZoneChange, now time.Time, quote, who string) Message {
	z := zoneChange{Before: zc.Before, After: zc.After, City: dv.city(zc.City), Quote: quote, Who: who}
	dv.tellStay(&z, zc.Stay)
	dv.tellMoved(&z, zc.After, zc.Moved, now)
	m := dv.l.Text(tzReceipt.With(z))
	if zc.Before != zc.After || !zc.Stay.Until.IsZero() { // a zone that stays has nothing to undo, unless its stay changed
		m.Keyboard = [][]Button{{dv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndoZone, ID: zc.ID})}}
	}
	return m
}

// tellStay fills z's end of a stay, in the stay's own clock, and the
// zone it goes to then; nothing for a zone that stays.
func (dv Day) tellStay(z *zoneChange, stay nod.Stay) {
	if stay.Until.IsZero() {
		return
	}
	l := dv.l
	if zone, err := nod.LoadZone(z.After); err == nil {
		l = l.In(zone)
	}
	if t := stay.Until.In(l.Zone()); t.Hour() == 0 && t.Minute() == 0 { // a day's end, as "till Sunday" gives it
		z.UntilDay = l.Date(t.AddDate(0, 0, -1).Format(nod.DateLayout))
	} else {
		z.Until = l.Stamp(stay.Until)
	}
	z.Back = stay.BackFrom(z.Before)
}

// TimeZoneBack reports a zone set for a while gone back, on its own, to
// the zone before it (after): the reminders it moved to keep their clock
// times, as seen at now, and the Undo of change undoID.
func (dv Day) TimeZoneBack(before, after string, moved []nod.MovedReminder, now time.Time, undoID string) Message {
	z := zoneChange{Before: before, After: after}
	dv.tellMoved(&z, after, moved, now)
	m := dv.l.Text(tzBack.With(z))
	m.Keyboard = [][]Button{{dv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndoZone, ID: undoID})}}
	return m
}

// TimeZoneUndone reports a change to zone from undone: the chat is back
// in zone before (which may be from: a stay's end moved), in the stay it
// was in if the change had ended one, and the reminders the undo moved
// to keep their clock times, as seen at now. who names the person in a
// group, "" in a private chat.
func (dv Day) TimeZoneUndone(from, before string, moved []nod.MovedReminder, now time.Time, who string, stay nod.Stay) Message {
	z := zoneChange{Before: from, After: before, Who: who}
	dv.tellStay(&z, stay)
	dv.tellMoved(&z, before, moved, now)
	return dv.l.Text(tzUndone.With(z))
}

// Daily renders /daily: the chat's daily review, or that there is none;
// zoneSet false means the chat never chose its zone.
func (dv Day) Daily(at string, quiet bool, zone string, zoneSet bool, next time.Time) Message {
	d := dailyReview{At: at, Quiet: quiet, Zone: zone, ZoneSet: zoneSet}
	if at != "" && !next.IsZero() {
		d.Next = dv.l.Stamp(next)
	}
	return dv.l.Text(dailyShow.With(d))
}

// Duration renders a lateness to the minute ("3 h 5 min"), and from a
// day on in days and hours ("6 days 12 h"): played, "156 h 45 min ago"
// had to be worked out.
func (l *Locale) Duration(d time.Duration) string {
	m := int(d.Round(time.Minute) / time.Minute)
	if d < 24*time.Hour {
		return l.Minutes(&m)
	}
	h := int(d.Round(time.Hour) / time.Hour)
	return l.Render(lateTmpl.With(hoursMinutes{D: h / 24, H: h % 24}))
}

// Reminder renders a task's reminder with its buttons: done, an hour
// later, tomorrow at the same time. late, if over a few minutes, says
// that nod was not running when it was due.
func (dv Day) Reminder(t nod.Task, due time.Time, late time.Duration, whose string) Message {
	// A time in another place's clock names it: "09:00 in New York".
	data := reminder{Title: t.Title, Clock: dv.l.elsewhere(due, t.RemindClock), At: dv.l.stampOn(due, t.RemindClock), For: whose}
	if t.DueDate != "" {
		data.Due = dv.l.Date(t.DueDate)
	}
	if late >= LateAfter {
		data.Late = dv.l.Duration(late)
	}
	m := dv.l.Text(reminderTmpl.With(data))
	m.Keyboard = [][]Button{{
		dv.l.button(remindDoneButton, nod.Action{Kind: nod.ActRemindDone, ID: string(t.ID)}),
		dv.l.button(remindHourButton, nod.Action{Kind: nod.ActSnooze, ID: string(t.ID), N: nod.SnoozeHour}),
		dv.l.button(remindTomorrowButton, nod.Action{Kind: nod.ActSnooze, ID: string(t.ID), N: nod.SnoozeTomorrow}),
	}}
	return m
}

// LateAfter is how late a reminder or review must be to say so: later
// than a sweep or two, so that only downtime is mentioned.
const LateAfter = 5 * time.Minute

// ReminderDone and ReminderSnoozed are a reminder's message once the
// person tapped one of its buttons, with the Undo of that change.
// In a group whose names the person whose reminder it is.
func (dv Day) ReminderDone(t nod.Task, undoID nod.UndoID, whose string) Message {
	m := dv.l.Text(reminderDone.With(snoozed{Title: t.Title, For: whose}))
	if t.Repeat != "" && t.RemindAt != nil && t.Status != nod.StatusDone && t.Status != nod.StatusRejected {
		// A repeating reminder's ✓ Done completes this time: it names the next.
		m = dv.l.Text(reminderNext.With(snoozed{Title: t.Title, At: dv.l.stampWithClock(*t.RemindAt, t.RemindClock), For: whose}))
	}
	m.Keyboard = [][]Button{{dv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndo, ID: string(undoID)})}}
	return m
}

// ReminderSnoozed: see ReminderDone.
func (dv Day) ReminderSnoozed(t nod.Task, undoID nod.UndoID, whose string) Message {
	at := ""
	if t.RemindAt != nil {
		at = dv.l.Stamp(*t.RemindAt)
	}
	m := dv.l.Text(reminderSnoozed.With(snoozed{Title: t.Title, At: at, For: whose}))
	m.Keyboard = [][]Button{{dv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndo, ID: string(undoID)})}}
	return m
}

// ReminderAgain is a snoozed reminder's message once the reminder it
// put off went out at at: what it said is done, and its Undo, which
// would move a reminder that was sent, is gone.
func (dv Day) ReminderAgain(t nod.Task, at time.Time, whose string) Message {
	return dv.l.Text(reminderAgain.With(snoozed{Title: t.Title, At: dv.l.Stamp(at), For: whose}))
}

// ReminderDoneNextSent is the message of ✓ Done on a repeating reminder
// once the next reminder it named went out at at: the time stays done,
// the next one is in the past, and the Undo, which would put back a time
// already overtaken, is gone.
func (dv Day) ReminderDoneNextSent(t nod.Task, at time.Time, whose string) Message {
	return dv.l.Text(reminderNextSent.With(snoozed{Title: t.Title, At: dv.l.Stamp(at), For: whose}))
}

// WithReminderBack adds to an undo's report m what became of the
// reminder the undo left at a time that has passed; shown says the
// reminder's message has its buttons again. Nothing for a zero rb.
func (dv Day) WithReminderBack(m Message, rb nod.ReminderBack, shown bool) Message {
	if rb.At.IsZero() {
		return m
	}
	m.HTML += "\n" + dv.l.Render(reminderBack.With(passed{At: dv.l.Stamp(rb.At), Sent: rb.Sent, Shown: shown}))
	return m
}

// held is a reminder a task's move into the trash holds back: when, and
// the task's title where the message names more than one task.
type held struct{ Title, At string }

// WithReminderHeld adds to m, a message about a task moved into the
// trash, that its reminder at at (zero: none ahead) will not go off: the
// message on screen about setting it still reads as if it would. title
// names the task in a message about several, "" in one about it alone.
func (dv Day) WithReminderHeld(m Message, title string, at time.Time) Message {
	if at.IsZero() {
		return m
	}
	m.HTML += "\n" + dv.l.Render(reminderHeld.With(held{Title: title, At: dv.l.Stamp(at)}))
	return m
}

// WithMissed adds to m, a repeating reminder that came late, that n of
// its earlier times, the first at from, went by without a reminder: only
// the latest goes out, and a person who takes pills by it must know.
func (dv Day) WithMissed(m Message, n int, from time.Time) Message {
	if n <= 0 {
		return m
	}
	m.HTML += "\n" + dv.l.Render(reminderMissed.With(missed{N: n, From: dv.l.Stamp(from)}))
	return m
}

// missed is WithMissed's line.
type missed struct {
	N    int
	From string
}

// WithReminderResumed adds to m, a message about a task brought back
// from the trash, that its reminder at at (zero: none ahead) goes off
// again: the message that said it would not is above.
func (dv Day) WithReminderResumed(m Message, at time.Time) Message {
	if at.IsZero() {
		return m
	}
	m.HTML += "\n" + dv.l.Render(reminderResumed.With(dv.l.Stamp(at)))
	return m
}

// city names a place in a receipt: its name and country.
func (dv Day) city(c *nod.City) string {
	if c == nil {
		return ""
	}
	return c.Label(dv.l.code, false)
}

// cityQuestion asks which of the places called Name the person means;
// More says that more places than the buttons have that name.
type cityQuestion struct {
	Name string
	More bool
}

// TimeZoneWhich asks which of cities, all called name, the person
// means: one button each, set to choose proposal ids[i]; total counts
// the places of that name, more than the buttons when some are left out.
func (dv Day) TimeZoneWhich(name string, cities []nod.City, ids []string, total int) Message {
	m := dv.l.Text(tzWhich.With(cityQuestion{Name: name, More: total > len(cities)}))
	for i, label := range nod.Labels(cities, dv.l.code) {
		m.Keyboard = append(m.Keyboard, []Button{dv.l.button(cityButton.With(label), nod.Action{Kind: nod.ActZoneCity, ID: ids[i], N: cities[i].ID})})
	}
	return m
}

// TimeZoneOffer asks whether to set the zone the agent proposed, named
// by city (nil for a zone's name), for the stay it says: a button to set
// it and one to keep the zone the chat has.
func (dv Day) TimeZoneOffer(before, after string, city *nod.City, id string, stay nod.Stay) Message {
	z := zoneChange{Before: before, After: after, City: dv.city(city)}
	dv.tellStay(&z, stay)
	m := dv.l.Text(tzOffer.With(z))
	set := nod.Action{Kind: nod.ActZoneAccept, ID: id}
	if city != nil {
		set = nod.Action{Kind: nod.ActZoneCity, ID: id, N: city.ID} // its receipt names the city
	}
	m.Keyboard = [][]Button{{
		dv.l.button(zoneSetButton.With(after), set),
		dv.l.button(zoneKeepButton.With(before), nod.Action{Kind: nod.ActZoneDecline, ID: id}),
	}}
	return m
}
