package repeat_test

import (
	"errors"
	"testing"
	"time"

	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/repeat"
)

func TestParseRefusesWhatNodDoesNotTake(t *testing.T) {
	for _, s := range []string{"", "FREQ=SECONDLY", "FREQ=HOURLY", "FREQ=DAILY;BYHOUR=8", "FREQ=MONTHLY;BYSETPOS=-1;BYDAY=FR",
		"FREQ=MONTHLY;BYDAY=1MO", "FREQ=DAILY;COUNT=0", "FREQ=DAILY;INTERVAL=x", "FREQ=DAILY;COUNT=2;UNTIL=20261231",
		"FREQ=DAILY;UNTIL=tomorrow", "FREQ=MONTHLY;BYMONTHDAY=32", "INTERVAL=2", "FREQ=DAILY;FREQ=WEEKLY", "FREQ"} {
		if r, err := repeat.Parse(s); !errors.Is(err, repeat.ErrUnsupported) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrUnsupported", s, r, err)
		}
	}
}

func TestParseCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"rrule:freq=weekly;byday=fr,mo,we,tu,th": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
		"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;":       "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO",
		"FREQ=MONTHLY;BYMONTHDAY=1":              "FREQ=MONTHLY;BYMONTHDAY=1",
		"FREQ=DAILY;INTERVAL=1;COUNT=5":          "FREQ=DAILY;COUNT=5",
		"FREQ=YEARLY;UNTIL=20301231":             "FREQ=YEARLY;UNTIL=20301231",
	} {
		r, err := repeat.Parse(in)
		if err != nil || r.RRULE() != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, r.RRULE(), err, want)
		}
		back, err := repeat.Read(r.At(time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)).String())
		if err != nil || back.RRULE() != want || back.Start.Hour() != 8 {
			t.Errorf("Read(String()) of %q = %+v, %v", in, back, err)
		}
	}
}

// A daily 08:00 in Europe/Berlin stays 08:00 local across both changes
// of 2026 (29 March, 25 October); 02:30 on the spring day is 03:30.
func TestDaylightSaving(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	daily, _ := repeat.Parse("FREQ=DAILY")
	for _, c := range []struct {
		start, after time.Time
		want         string
	}{
		{time.Date(2026, 3, 27, 8, 0, 0, 0, berlin), time.Date(2026, 3, 28, 9, 0, 0, 0, berlin), "2026-03-29T08:00:00+02:00"},
		{time.Date(2026, 3, 27, 8, 0, 0, 0, berlin), time.Date(2026, 3, 29, 9, 0, 0, 0, berlin), "2026-03-30T08:00:00+02:00"},
		{time.Date(2026, 10, 23, 8, 0, 0, 0, berlin), time.Date(2026, 10, 24, 9, 0, 0, 0, berlin), "2026-10-25T08:00:00+01:00"},
		{time.Date(2026, 3, 27, 2, 30, 0, 0, berlin), time.Date(2026, 3, 28, 9, 0, 0, 0, berlin), "2026-03-29T03:30:00+02:00"},
		{time.Date(2026, 3, 27, 2, 30, 0, 0, berlin), time.Date(2026, 3, 29, 9, 0, 0, 0, berlin), "2026-03-30T02:30:00+02:00"},
	} {
		got, ok := daily.At(c.start).Next(berlin, c.after)
		if !ok || got.Format(time.RFC3339) != c.want {
			t.Errorf("daily from %s, next after %s = %s, %v; want %s", c.start, c.after, got.Format(time.RFC3339), ok, c.want)
		}
	}
	// From a Saturday before the spring change: every occurrence at 08:00.
	r := daily.At(time.Date(2026, 3, 28, 8, 0, 0, 0, berlin))
	at := time.Date(2026, 3, 28, 8, 0, 0, 0, berlin)
	for range 3 {
		next, _ := r.Next(berlin, at)
		if next.Hour() != 8 || next.Sub(at) != 23*time.Hour && next.Sub(at) != 24*time.Hour {
			t.Errorf("after %s comes %s", at, next)
		}
		at = next
	}
}

func TestNextAndLatest(t *testing.T) {
	utc := time.UTC
	mon := time.Date(2026, 11, 30, 8, 0, 0, 0, utc) // a Monday
	weekdays, _ := repeat.Parse("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
	r := weekdays.At(mon)
	if got, _ := r.Next(utc, time.Date(2026, 12, 4, 9, 0, 0, 0, utc)); !got.Equal(time.Date(2026, 12, 7, 8, 0, 0, 0, utc)) {
		t.Errorf("after Friday 09:00 = %s, want Monday 08:00", got)
	}
	if got, _ := r.Latest(utc, time.Date(2026, 12, 3, 9, 0, 0, 0, utc)); !got.Equal(time.Date(2026, 12, 3, 8, 0, 0, 0, utc)) {
		t.Errorf("latest by Thursday 09:00 = %s", got)
	}
	five, _ := repeat.Parse("FREQ=DAILY;COUNT=5")
	if got, ok := five.At(mon).Next(utc, mon.AddDate(0, 0, 4)); ok {
		t.Errorf("a fifth of five has a next: %s", got)
	}
	if got, ok := five.At(mon).Next(utc, mon.AddDate(0, 0, 3)); !ok || !got.Equal(mon.AddDate(0, 0, 4)) {
		t.Errorf("the fifth of five = %s, %v", got, ok)
	}
	until, _ := repeat.Parse("FREQ=DAILY;UNTIL=20261202")
	if got, ok := until.At(mon).Next(utc, mon.AddDate(0, 0, 1)); !ok || !got.Equal(mon.AddDate(0, 0, 2)) {
		t.Errorf("UNTIL's own day = %s, %v", got, ok)
	}
	if _, ok := until.At(mon).Next(utc, mon.AddDate(0, 0, 2)); ok {
		t.Error("a next after UNTIL")
	}
	// As a task keeps it: read, then Next; nothing for no rule.
	if got, ok := repeat.NextOf(r.String(), utc, time.Date(2026, 12, 4, 9, 0, 0, 0, utc)); !ok || !got.Equal(time.Date(2026, 12, 7, 8, 0, 0, 0, utc)) {
		t.Errorf("NextOf the weekdays' stored rule = %s, %v", got, ok)
	}
	for _, s := range []string{"", "FREQ=SECONDLY"} {
		if got, ok := repeat.NextOf(s, utc, mon); ok {
			t.Errorf("NextOf(%q) = %s", s, got)
		}
	}
}

// A rule started again on one of its own times reminds as it did from
// that start on; one that moves its time, its days' phase, its day or
// its count does not, nor one that starts before the rule it replaces.
func TestRestarts(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	rule := func(start, rrule string) string { return "DTSTART:" + start + "\nRRULE:" + rrule }
	for _, c := range []struct {
		earlier, later string
		want           bool
	}{
		{rule("20261201T080000", "FREQ=DAILY"), rule("20261202T080000", "FREQ=DAILY"), true},
		{rule("20261201T080000", "FREQ=DAILY"), rule("20261201T080000", "FREQ=DAILY"), true},
		{rule("20261202T080000", "FREQ=DAILY"), rule("20261201T080000", "FREQ=DAILY"), false}, // a day earlier
		{rule("20261201T080000", "FREQ=DAILY"), rule("20261202T090000", "FREQ=DAILY"), false},
		{rule("20261201T080000", "FREQ=DAILY;INTERVAL=2"), rule("20261203T080000", "FREQ=DAILY;INTERVAL=2"), true},
		{rule("20261201T080000", "FREQ=DAILY;INTERVAL=2"), rule("20261202T080000", "FREQ=DAILY;INTERVAL=2"), false},
		{rule("20261130T080000", "FREQ=WEEKLY"), rule("20261207T080000", "FREQ=WEEKLY"), true},  // Mondays
		{rule("20261130T080000", "FREQ=WEEKLY"), rule("20261208T080000", "FREQ=WEEKLY"), false}, // Tuesdays
		{rule("20261130T080000", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"), rule("20261202T080000", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"), true},
		{rule("20261130T080000", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"), rule("20261209T080000", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"), false},
		{rule("20260131T080000", "FREQ=MONTHLY"), rule("20260331T080000", "FREQ=MONTHLY"), true},
		{rule("20260131T080000", "FREQ=MONTHLY"), rule("20260330T080000", "FREQ=MONTHLY"), false},
		{rule("20261201T080000", "FREQ=DAILY;COUNT=5"), rule("20261202T080000", "FREQ=DAILY;COUNT=5"), false}, // ends a day later
		{rule("20261201T080000", "FREQ=DAILY;UNTIL=20261210"), rule("20261202T080000", "FREQ=DAILY;UNTIL=20261210"), true},
		{rule("20261201T080000", "FREQ=DAILY"), rule("20261202T080000", "FREQ=WEEKLY"), false},
		{rule("20261201T080000", "FREQ=DAILY"), "", false},
		{"", rule("20261201T080000", "FREQ=DAILY"), false},
	} {
		if got := repeat.Restarts(c.earlier, c.later, berlin); got != c.want {
			t.Errorf("Restarts(%q, %q) = %v, want %v", c.earlier, c.later, got, c.want)
		}
	}
}

// A rule given in a named place's clock keeps the place: "every Monday at
// 9 New York time", set from London, reminds at 09:00 in New York in the
// weeks when the two places change their clocks on different Sundays
// (America/New_York on 14 March 2027, Europe/London on 28 March), where
// a rule of London's clock would be an hour off.
func TestRuleInAPlacesClock(t *testing.T) {
	london, _ := time.LoadLocation("Europe/London")
	ny, _ := time.LoadLocation("America/New_York")
	r, err := repeat.Parse("FREQ=WEEKLY")
	if err != nil {
		t.Fatal(err)
	}
	r = r.At(time.Date(2027, 3, 8, 9, 0, 0, 0, ny))
	r.Zone = "America/New_York"
	kept := r.String()
	if want := "DTSTART;TZID=America/New_York:20270308T090000\nRRULE:FREQ=WEEKLY"; kept != want {
		t.Fatalf("String() = %q, want %q", kept, want)
	}
	back, err := repeat.Read(kept)
	if err != nil || back.Zone != "America/New_York" || back.String() != kept {
		t.Fatalf("Read(%q) = %+v, %v", kept, back, err)
	}
	if back.In(london).String() != "America/New_York" {
		t.Errorf("In(London) = %v, want the rule's own place", back.In(london))
	}
	floating, _ := repeat.Read("DTSTART:20270308T090000\nRRULE:FREQ=WEEKLY")
	if floating.In(london) != london {
		t.Errorf("a floating rule's In(London) = %v", floating.In(london))
	}
	for at, want := range map[time.Time]int{time.Date(2027, 3, 8, 14, 0, 0, 0, time.UTC): -5 * 3600, time.Date(2027, 3, 15, 13, 0, 0, 0, time.UTC): -4 * 3600} {
		if off, ok := back.Offset(at); !ok || off != want {
			t.Errorf("Offset(%s) = %d, %v; want %d", at, off, ok, want)
		}
	}
	if _, ok := floating.Offset(time.Date(2027, 3, 15, 13, 0, 0, 0, time.UTC)); ok {
		t.Errorf("a floating rule has an offset of its own")
	}
	from := time.Date(2027, 3, 8, 15, 0, 0, 0, time.UTC) // after 09:00 in New York
	for _, want := range []string{"2027-03-15T13:00:00Z", "2027-03-22T13:00:00Z", "2027-03-29T13:00:00Z"} {
		next, ok := back.Next(london, from)
		if !ok || next.UTC().Format(time.RFC3339) != want {
			t.Fatalf("Next(London, %s) = %s, %v; want %s, 09:00 in New York", from, next.UTC().Format(time.RFC3339), ok, want)
		}
		if h := next.In(ny).Hour(); h != 9 {
			t.Errorf("occurrence %s is %02d:00 in New York", next, h)
		}
		if latest, ok := back.Latest(london, next); !ok || !latest.Equal(next) {
			t.Errorf("Latest(London, %s) = %s, %v", next, latest, ok)
		}
		from = next
	}
	// The same rule of London's clock would have said 09:00 London.
	if next, _ := floating.Next(london, time.Date(2027, 3, 14, 0, 0, 0, 0, time.UTC)); next.In(london).Hour() != 9 {
		t.Errorf("floating rule: %s", next)
	}
}

func TestRuleZoneRefused(t *testing.T) {
	for _, s := range []string{
		"DTSTART;TZID=Mars/Olympus:20270308T090000\nRRULE:FREQ=WEEKLY",
		"DTSTART;TZID=:20270308T090000\nRRULE:FREQ=WEEKLY",
		"DTSTART;TZID=Local:20270308T090000\nRRULE:FREQ=WEEKLY",
		"DTSTART;VALUE=DATE:20270308T090000\nRRULE:FREQ=WEEKLY",
		"DTSTART20270308T090000\nRRULE:FREQ=WEEKLY",
	} {
		if r, err := repeat.Read(s); !errors.Is(err, repeat.ErrUnsupported) {
			t.Errorf("Read(%q) = %+v, %v; want ErrUnsupported", s, r, err)
		}
	}
}

// A rule of a place's clock restarts itself only at its own times: the
// same RRULE in the chat's clock is another rule where the two clocks
// differ, and the same where they agree.
func TestRestartsInAPlacesClock(t *testing.T) {
	london, _ := time.LoadLocation("Europe/London")
	ny := "DTSTART;TZID=America/New_York:20261207T090000\nRRULE:FREQ=WEEKLY"
	for _, c := range []struct {
		earlier, later string
		want           bool
	}{
		{ny, "DTSTART;TZID=America/New_York:20261214T090000\nRRULE:FREQ=WEEKLY", true},
		{ny, "DTSTART:20261214T090000\nRRULE:FREQ=WEEKLY", false},
		{ny, "DTSTART:20261214T140000\nRRULE:FREQ=WEEKLY", false}, // 14:00 London drifts from 09:00 New York in March
		{"DTSTART;TZID=Europe/London:20261207T090000\nRRULE:FREQ=WEEKLY", "DTSTART:20261214T090000\nRRULE:FREQ=WEEKLY", true},
	} {
		if got := repeat.Restarts(c.earlier, c.later, london); got != c.want {
			t.Errorf("Restarts(%q, %q) = %v, want %v", c.earlier, c.later, got, c.want)
		}
	}
}
