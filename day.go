package nod

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LoadZone loads an IANA time zone name for a chat. Unlike
// time.LoadLocation it refuses "" and "Local": a chat's zone is a place,
// never the machine nod happens to run on.
func LoadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "Local" || strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("time zone %q is not an IANA name such as Europe/Berlin: %w", name, ErrInvalid)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone %q is not an IANA name such as Europe/Berlin: %w", name, ErrInvalid)
	}
	return loc, nil
}

// Zone is the chat's time zone, or def when it set none (or its stored
// name no longer loads).
func (s ChatSettings) Zone(def *time.Location) *time.Location {
	if s.TimeZone != "" {
		if loc, err := LoadZone(s.TimeZone); err == nil {
			return loc
		}
	}
	if def == nil {
		return time.UTC
	}
	return def
}

// LocalDate is the date, YYYY-MM-DD, that it is at t in loc: what "today"
// means for a person there.
func LocalDate(t time.Time, loc *time.Location) string { return t.In(loc).Format(DateLayout) }

// TodayIs is how a model is told the chat's clock: "Today is Tuesday,
// 2026-11-24, 23:40 (Europe/Berlin)", its local date, weekday and time.
func TodayIs(now time.Time, loc *time.Location) string {
	return "Today is " + now.In(loc).Format("Monday, 2006-01-02, 15:04") + " (" + loc.String() + ")"
}

// SmallHours reports whether t is in the small hours in loc (before
// 04:00), when someone still up means by "tomorrow" the day that has
// just begun: played at 00:38, a model read "morgen" as the day after.
// SmallHoursNote tells a model so, in the agent's and the classifier's
// requests alike, so that both read the words the same way.
func SmallHours(t time.Time, loc *time.Location) bool { return t.In(loc).Hour() < 4 }

// SmallHoursNote is what a model is told in the small hours.
const SmallHoursNote = `It is the small hours: a user who has not slept yet means by "tomorrow" the day that has just begun, and by "tonight" the night they are in.`

// ReminderLayout is how the agent names a reminder's moment: local wall
// time in the chat's zone, to the minute.
const ReminderLayout = "2006-01-02T15:04"

// ParseLocal reads a YYYY-MM-DDTHH:MM wall time in loc. A wall time that
// does not exist there (the hour clocks skip in spring) moves forward by
// the gap, as time.Date does: 02:30 becomes 03:30. A time that occurs
// twice (autumn) is the later one, as Go picks it.
func ParseLocal(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{ReminderLayout, "2006-01-02T15:04:05", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, loc), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a YYYY-MM-DDTHH:MM local time: %w", s, ErrInvalid)
}

// ParseClock reads an HH:MM time of day (H:MM too).
func ParseClock(s string) (hour, minute int, err error) {
	t, err := time.Parse("15:04", strings.TrimSpace(s))
	if err != nil {
		return 0, 0, fmt.Errorf("%q is not a HH:MM time of day: %w", s, ErrInvalid)
	}
	return t.Hour(), t.Minute(), nil
}

// ReadTimeOfDay reads a time of day as people type it after a command:
// "7", "07:30", "7.30", "19 Uhr", "19h", "7pm", "7:30 am". Hours alone
// are whole hours; a 12-hour clock needs its am or pm.
func ReadTimeOfDay(s string) (hour, minute int, err error) {
	bad := fmt.Errorf("%q is not a time of day: %w", s, ErrInvalid)
	t := strings.ToLower(strings.Join(strings.Fields(s), ""))
	pm, am := strings.HasSuffix(t, "pm"), strings.HasSuffix(t, "am")
	for _, suffix := range []string{"pm", "am", "uhr", "h"} {
		if strings.HasSuffix(t, suffix) {
			t = strings.TrimSuffix(t, suffix)
			break
		}
	}
	hh, mm, hasMinutes := strings.Cut(strings.ReplaceAll(t, ".", ":"), ":")
	if !digits(hh, 1, 2) || hasMinutes && !digits(mm, 2, 2) {
		return 0, 0, bad
	}
	hour, _ = strconv.Atoi(hh)
	minute, _ = strconv.Atoi(mm)
	if am || pm {
		if hour < 1 || hour > 12 {
			return 0, 0, bad
		}
		hour %= 12
		if pm {
			hour += 12
		}
	}
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 {
		return 0, 0, bad
	}
	return hour, minute, nil
}

// digits reports whether s is min to max ASCII digits.
func digits(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// NextDaily is the first moment after after at which it is hh:mm in loc.
// On a day whose hh:mm does not exist it is the moment time.Date moves it
// to; a day never runs twice, since a day's moment is reckoned from its
// date.
func NextDaily(hour, minute int, loc *time.Location, after time.Time) time.Time {
	l := after.In(loc)
	for d := 0; ; d++ {
		t := time.Date(l.Year(), l.Month(), l.Day()+d, hour, minute, 0, 0, loc)
		if t.After(after) {
			return t
		}
	}
}

// ZoneChange is one change of a chat's time zone, undoable once: by the
// person who made it, while the zone is still what it set.
type ZoneChange struct {
	ID            string
	ChatID        ChatID
	UserID        UserID
	Before, After string // IANA names; empty: the default
	// Moved are the upcoming reminders the change moved to keep their
	// clock times, by when they now go off; only their count is stored.
	Moved []MovedReminder
	// City is the place whose name set the zone (set_chat_timezone
	// "Lisbon"), for its receipt; nil for a zone's name. Not stored.
	City *City
	// Stay is how long the zone is for, and where the chat goes then.
	Stay
	// Crossed are the upcoming reminders in the chat's own clock that a
	// change of the stay's end alone put on its other side, by when they
	// are due: into the stay (a later end, or none) or after it (an
	// earlier one). Not stored.
	Crossed []MovedReminder
}

// Stay is a zone set for a while ("in Berlin till Sunday"): at Until
// the chat goes to the zone Back ("I live in Lisbon"; empty: the zone
// it had before); a zero Until: the zone stays until it is changed.
type Stay struct {
	Until time.Time
	Back  string
}

// BackFrom is the zone the stay goes back to, for a change from before.
func (s Stay) BackFrom(before string) string {
	if s.Back != "" {
		return s.Back
	}
	return before
}

// MovedReminder is a task's reminder a zone change moved to the same
// clock time in the new zone: At is when it now goes off.
type MovedReminder struct {
	TaskID TaskID
	Title  string
	At     time.Time
}

// SnoozeUntil is when a reminder's ⏰ button n (SnoozeHour,
// SnoozeTomorrow) tapped at now moves it to: an hour from now, or
// tomorrow by now's date in zone at the reminder's wall time (remindAt,
// now when it has none).
func SnoozeUntil(n int, now time.Time, remindAt *time.Time, zone *time.Location) time.Time {
	if n != SnoozeTomorrow {
		return now.Add(time.Hour).Truncate(time.Minute)
	}
	base := now
	if remindAt != nil {
		base = *remindAt
	}
	l, d := base.In(zone), now.In(zone)
	return time.Date(d.Year(), d.Month(), d.Day()+1, l.Hour(), l.Minute(), 0, 0, zone)
}
