package tools_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// A reminder's time given with another place's UTC offset ("9 Berlin
// time" while the chat is in London) keeps that clock: its value says so,
// its stored arguments read back to the same, and the task carries it.
// Any other form is the chat's own clock: a local time, "Z", the chat's
// own offset, and a repeating reminder's time.
func TestReminderInAnotherPlacesClock(t *testing.T) {
	for _, c := range []struct {
		name, args string
		want       string // the value the change sets
		clock      bool
	}{
		{"local", `{"task_id":"T1","remind_at":"2026-12-03T09:00"}`, "2026-12-03T09:00:00Z", false},
		{"Berlin's offset", `{"task_id":"T1","remind_at":"2026-12-03T09:00+01:00"}`, "2026-12-03T09:00:00+01:00", true},
		{"with seconds", `{"task_id":"T1","remind_at":"2026-12-03T09:00:00+01:00"}`, "2026-12-03T09:00:00+01:00", true},
		{"the chat's own offset", `{"task_id":"T1","remind_at":"2026-12-03T09:00+00:00"}`, "2026-12-03T09:00:00Z", false},
		{"Z", `{"task_id":"T1","remind_at":"2026-12-03T09:00:00Z"}`, "2026-12-03T09:00:00Z", false},
		{"repeating", `{"task_id":"T1","remind_at":"2026-12-03T09:00+01:00","repeat":"FREQ=DAILY"}`, "2026-12-03T08:00:00Z", false},
		{"Berlin named", `{"task_id":"T1","remind_at":"2026-12-03T09:00[Europe/Berlin]"}`, "2026-12-03T09:00:00+01:00[Europe/Berlin]", true},
		{"Berlin named with its offset", `{"task_id":"T1","remind_at":"2026-12-03T09:00+01:00[Europe/Berlin]"}`, "2026-12-03T09:00:00+01:00[Europe/Berlin]", true},
		{"the chat's own zone named", `{"task_id":"T1","remind_at":"2026-12-03T09:00[Europe/London]"}`, "2026-12-03T09:00:00Z", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs, _, a := callsInLondon(t, c.args)
			task := &nod.Task{ID: "T1", Title: "Check out", Status: nod.StatusOpen, Priority: nod.P2}
			if got, _ := cs[0].Target(task); got != c.want {
				t.Errorf("value = %q, want %q", got, c.want)
			}
			if err := cs[0].Apply(task, a.Now, nod.ActorUser); err != nil {
				t.Fatal(err)
			}
			if (task.RemindClock != nil) != c.clock || task.Value(nod.FieldReminder) != c.want {
				t.Errorf("task's reminder %v clock %v (%q), want clock %v", task.RemindAt, task.RemindClock, task.Value(nod.FieldReminder), c.clock)
			}
			// A stored change is read back with no zone of the chat's.
			again, err := tools.Parse(cs[0].Tool(), cs[0].Args())
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := again.Target(task); got != c.want {
				t.Errorf("stored %s reads back as %q, want %q", cs[0].Args(), got, c.want)
			}
			if sum := cs[0].Summary(task); c.clock != (strings.Contains(sum, "(09:00 UTC+01:00)") || strings.Contains(sum, "(09:00 in Berlin)")) {
				t.Errorf("summary = %q", sum)
			}
		})
	}
}

// A repeating reminder given in a named place's clock keeps that place:
// its value keeps the clock and its rule the place's zone, so that it
// repeats at 08:00 in Paris. One given with an offset alone names no
// place and follows the chat's clock, and the model is told so with the
// time it repeats at: a played model set daily meds "at 8 Paris time"
// from London and counted on a clock the reminder did not keep.
func TestRepeatingReminderInAnotherClock(t *testing.T) {
	london, _ := time.LoadLocation("Europe/London")
	calls := func(args string) ([]tools.Call, []string) {
		t.Helper()
		a, err := tools.Decode(nod.ToolSetReminder, args)
		if err != nil {
			t.Fatal(err)
		}
		a.Zone, a.Now = london, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		cs, notes, err := a.Calls()
		if err != nil {
			t.Fatal(err)
		}
		return cs, notes
	}
	targets := func(cs []tools.Call) (reminder, rule string) {
		t.Helper()
		if len(cs) != 2 {
			t.Fatalf("calls = %d, want the reminder and its rule", len(cs))
		}
		reminder, _ = cs[0].Target(&nod.Task{ID: "T1"})
		rule, _ = cs[1].Target(&nod.Task{ID: "T1"})
		return reminder, rule
	}

	cs, notes := calls(`{"task_id":"T1","remind_at":"2026-12-03T08:00[Europe/Paris]","repeat":"FREQ=DAILY"}`)
	reminder, rule := targets(cs)
	if reminder != "2026-12-03T08:00:00+01:00[Europe/Paris]" || rule != "DTSTART;TZID=Europe/Paris:20261203T080000\nRRULE:FREQ=DAILY" || len(notes) != 0 {
		t.Errorf("in Paris's clock: reminder %q, rule %q, notes %q", reminder, rule, notes)
	}
	// A start already past moves to the place's next 08:00, with its offset.
	cs, _ = calls(`{"task_id":"T1","remind_at":"2026-11-20T08:00[America/New_York]","repeat":"FREQ=WEEKLY"}`)
	if reminder, rule = targets(cs); reminder != "2026-12-04T08:00:00-05:00[America/New_York]" || rule != "DTSTART;TZID=America/New_York:20261204T080000\nRRULE:FREQ=WEEKLY" {
		t.Errorf("a past start in New York's clock: reminder %q, rule %q", reminder, rule)
	}

	cs, notes = calls(`{"task_id":"T1","remind_at":"2026-12-03T08:00+01:00","repeat":"FREQ=DAILY"}`)
	if reminder, rule = targets(cs); reminder != "2026-12-03T07:00:00Z" || rule != "DTSTART:20261203T070000\nRRULE:FREQ=DAILY" {
		t.Errorf("with an offset alone: reminder %q, rule %q; want 07:00 of the chat's clock", reminder, rule)
	}
	want := "remind_at was given in another place's clock (08:00 UTC+01:00) without its zone, so the repeating reminder follows the chat's clock: it repeats at 07:00 in the chat's zone (Europe/London)"
	if len(notes) != 1 || !strings.HasPrefix(notes[0], want) {
		t.Errorf("notes = %q, want %q…", notes, want)
	}
	if _, notes = calls(`{"task_id":"T1","remind_at":"2026-12-03T08:00","repeat":"FREQ=DAILY"}`); len(notes) != 0 {
		t.Errorf("a repeating reminder of the chat's clock: notes %q", notes)
	}
}

// A reminder's value carries its clock: "Z" is the chat's own, a number
// another place's, "+00:00" included, and a named place's zone follows
// in brackets.
func TestReminderValueKeepsItsClock(t *testing.T) {
	at := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		clock *nod.Clock
		want  string
	}{
		{nil, "2026-12-03T08:00:00Z"},
		{&nod.Clock{}, "2026-12-03T08:00:00+00:00"},
		{&nod.Clock{Offset: 3600}, "2026-12-03T09:00:00+01:00"},
		{&nod.Clock{Offset: 3600, Zone: "Europe/Paris"}, "2026-12-03T09:00:00+01:00[Europe/Paris]"},
		{&nod.Clock{Offset: -5 * 3600, Zone: "America/New_York"}, "2026-12-03T03:00:00-05:00[America/New_York]"},
	} {
		v := nod.ReminderValue(at, c.clock)
		got, clock, err := nod.ParseReminderValue(v)
		if v != c.want || err != nil || !got.Equal(at) || (clock == nil) != (c.clock == nil) || clock != nil && *clock != *c.clock {
			t.Errorf("ReminderValue(%v) = %q, read back %v %v %v", c.clock, v, got, clock, err)
		}
	}
}

// Another place's clock reads as its place where it has one: "09:00 in
// Paris", "in New York" for America/New_York; a zone named after no place,
// or an offset alone, reads as the offset.
func TestClockTimeNamesThePlace(t *testing.T) {
	at := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		clock nod.Clock
		want  string
	}{
		{nod.Clock{Offset: 3600, Zone: "Europe/Paris"}, "09:00 in Paris"},
		{nod.Clock{Offset: -5 * 3600, Zone: "America/New_York"}, "03:00 in New York"},
		{nod.Clock{Offset: -3 * 3600, Zone: "America/Argentina/Buenos_Aires"}, "05:00 in Buenos Aires"},
		{nod.Clock{Offset: -5 * 3600, Zone: "Etc/GMT+5"}, "03:00 UTC-05:00"},
		{nod.Clock{Offset: 3600}, "09:00 UTC+01:00"},
	} {
		if got := nod.ClockTime(at, c.clock); got != c.want {
			t.Errorf("ClockTime(%+v) = %q, want %q", c.clock, got, c.want)
		}
	}
}

// A time with an offset no place has, or half an offset, a zone that is
// no IANA zone, or an offset the named zone does not have that day, is
// refused with the field named, as any malformed time is: nothing is set.
func TestReminderClockRefused(t *testing.T) {
	for _, at := range []string{"2026-12-03T09:00+25:00", "2026-12-03T09:00+01", "2026-12-03T09:00+1:00", "2026-12-03T09:00 Paris",
		"2026-12-03T09:00[Paris]", "2026-12-03T09:00[]", "2026-12-03T09:00[Local]", "2026-12-03T09:00+02:00[Europe/Paris]", "tomorrow[Europe/Paris]"} {
		a, err := tools.Decode(nod.ToolSetReminder, `{"task_id":"T1","remind_at":"`+at+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		a.Zone = time.UTC
		if _, _, err := a.Calls(); err == nil || !strings.Contains(err.Error(), "remind_at") {
			t.Errorf("%s: %v, want an error naming remind_at", at, err)
		}
	}
}

// callsInLondon decodes set_task_reminder's args as a chat in London
// reads them on 1 December 2026 at noon: its calls, notes and args.
func callsInLondon(t *testing.T, args string) ([]tools.Call, []string, tools.Args) {
	t.Helper()
	a, err := tools.Decode(nod.ToolSetReminder, args)
	if err != nil {
		t.Fatal(err)
	}
	a.Zone, _ = time.LoadLocation("Europe/London")
	a.Now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cs, notes, err := a.Calls()
	if err != nil {
		t.Fatal(err)
	}
	return cs, notes, a
}
