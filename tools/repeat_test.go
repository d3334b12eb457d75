package tools_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

func reminderCalls(t *testing.T, args string) ([]tools.Call, error) {
	t.Helper()
	a, err := tools.Decode(nod.ToolSetReminder, args)
	if err != nil {
		t.Fatal(err)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	a.Zone = berlin
	cs, _, err := a.Calls()
	return cs, err
}

func TestReminderRepeat(t *testing.T) {
	task := &nod.Task{ID: "T1", Title: "Stretch", Status: nod.StatusOpen, Priority: nod.P2}
	cs, err := reminderCalls(t, `{"task_id":"T1","remind_at":"2026-11-30T08:00","repeat":"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}`)
	if err != nil || len(cs) != 2 || cs[1].Tool() != nod.ToolSetRepeat || cs[1].Field() != nod.FieldRepeat {
		t.Fatalf("calls = %v, %v; want the reminder's and its repeat", cs, err)
	}
	for _, c := range cs {
		if err := c.Apply(task, time.Now(), nod.ActorUser); err != nil {
			t.Fatal(err)
		}
	}
	if want := "DTSTART:20261130T080000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"; task.Repeat != want {
		t.Errorf("repeat = %q, want %q", task.Repeat, want)
	}
	// The stored item rebuilds to the same change.
	again, err := tools.Parse(cs[1].Tool(), cs[1].Args())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := again.Target(task); got != task.Repeat {
		t.Errorf("rebuilt repeat = %q", got)
	}
	// Without repeat the rule stays; null stops it; clearing the reminder clears it.
	for args, want := range map[string][]string{
		`{"task_id":"T1","remind_at":"2026-12-01T09:00"}`:               {""},
		`{"task_id":"T1","remind_at":"2026-12-01T09:00","repeat":null}`: {"", ""},
		`{"task_id":"T1","remind_at":null}`:                             {"", ""},
		`{"task_id":"T1","remind_at":"2026-12-01T09:00","repeat":"  "}`: {"", ""},
	} {
		cs, err := reminderCalls(t, args)
		if err != nil || len(cs) != len(want) {
			t.Errorf("%s: %d calls, %v; want %d", args, len(cs), err, len(want))
			continue
		}
		if len(cs) == 2 {
			if got, _ := cs[1].Target(task); got != "" {
				t.Errorf("%s: repeat target %q, want none", args, got)
			}
		}
	}
}

func TestReminderRepeatRefused(t *testing.T) {
	for args, says := range map[string]string{
		`{"task_id":"T1","remind_at":"2026-11-30T08:00","repeat":"FREQ=DAILY;BYHOUR=8,9"}`:             "BYHOUR",
		`{"task_id":"T1","remind_at":"2026-11-30T08:00","repeat":"FREQ=SECONDLY"}`:                     "SECONDLY",
		`{"task_id":"T1","remind_at":"2026-11-30T08:00","repeat":"FREQ=MONTHLY;BYSETPOS=-1"}`:          "BYSETPOS",
		`{"task_id":"T1","remind_at":"2026-11-30T08:00","repeat":"every day"}`:                         "RRULE",
		`{"task_id":"T1","remind_at":"2026-11-30T08:00","repeat":"FREQ=DAILY;COUNT=3;UNTIL=20261231"}`: "COUNT and UNTIL",
		`{"task_id":"T1","remind_at":null,"repeat":"FREQ=DAILY"}`:                                      "needs remind_at",
		`{"task_id":"T1","remind_at":"2026-11-30T08:00","repeat":5}`:                                   "repeat",
	} {
		_, err := reminderCalls(t, args)
		if !errors.Is(err, nod.ErrInvalid) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v; want an invalid call that says %q", args, err, says)
		}
	}
}

// A rule set from a time already past starts at its first occurrence at
// or after the moment the call is read, in the chat's zone; a reminder
// that does not repeat keeps its past time (it never fires, as ever).
func TestReminderRepeatFromThePast(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	read := func(args string, now time.Time) []tools.Call {
		t.Helper()
		a, err := tools.Decode(nod.ToolSetReminder, args)
		if err != nil {
			t.Fatal(err)
		}
		a.Zone, a.Now = berlin, now
		cs, _, err := a.Calls()
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	task := &nod.Task{ID: "T1", Title: "Stretch", Status: nod.StatusOpen, Priority: nod.P2}
	weekdays := `{"task_id":"T1","remind_at":"2026-11-27T08:00","repeat":"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}`
	for _, c := range []struct {
		now        time.Time
		at, repeat string
	}{
		// Sunday 10:00 in Berlin: Monday 08:00 is the first weekday left.
		{time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC), "2026-11-30T07:00:00Z", "DTSTART:20261130T080000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"},
		// Monday at 08:00 sharp: that occurrence is at or after now.
		{time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC), "2026-11-30T07:00:00Z", "DTSTART:20261130T080000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"},
		// Read before it is due: as given.
		{time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), "2026-11-27T07:00:00Z", "DTSTART:20261127T080000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"},
	} {
		cs := read(weekdays, c.now)
		if at, _ := cs[0].Target(task); at != c.at {
			t.Errorf("at %v: remind_at %s, want %s", c.now, at, c.at)
		}
		if rule, _ := cs[1].Target(task); rule != c.repeat {
			t.Errorf("at %v: repeat %q, want %q", c.now, rule, c.repeat)
		}
	}
	once := read(`{"task_id":"T1","remind_at":"2026-11-27T08:00"}`, time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC))
	if at, _ := once[0].Target(task); at != "2026-11-27T07:00:00Z" {
		t.Errorf("a reminder that does not repeat moved to %s", at)
	}
}
