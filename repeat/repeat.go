// Package repeat reads a repeating reminder's rule, an RFC 5545 RRULE,
// and finds its occurrences with github.com/teambition/rrule-go. nod
// takes a subset (FREQ=DAILY|WEEKLY|MONTHLY|YEARLY, INTERVAL, BYDAY with
// plain days, BYMONTHDAY, COUNT, UNTIL) and refuses the rest by name.
//
// A rule is kept with the local time it was read from, floating: no zone
// is stored, the chat's zone is applied when an occurrence is computed,
// so that a reminder keeps its local clock time when the chat's zone
// changes and across daylight saving. A rule given in a named place's
// clock ("every Monday at 9 New York time") keeps that place's zone, as
// RFC 5545 writes it (DTSTART;TZID=America/New_York:…), and its
// occurrences fall at that place's time whatever the chat's zone. An
// occurrence on a local time the spring change skips (02:30 in Europe/Berlin on its last Sunday of
// March) comes at the same instant Go's time.Date gives it: 03:30 summer
// time; the other days stay at 02:30. An occurrence in the autumn fold
// comes once, at the later of the two instants (time.Date's choice).
package repeat

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// ErrUnsupported is a rule nod does not read.
var ErrUnsupported = errors.New("unsupported rule")

// Rule is a repeating reminder's rule.
type Rule struct {
	Freq      string         // DAILY, WEEKLY, MONTHLY or YEARLY
	Interval  int            // at least 1
	Days      []time.Weekday // BYDAY, in week order from Monday
	MonthDays []int          // BYMONTHDAY; negative counts from the month's end
	Count     int            // 0: no limit
	Until     string         // UNTIL as given (YYYYMMDD or YYYYMMDDTHHMMSS[Z]); "": none
	// Start is the local wall time the rule is read from (its DTSTART),
	// as a time in time.UTC standing for that clock reading; zero until
	// set with At.
	Start time.Time
	// Zone is the IANA zone of the place whose clock the rule keeps;
	// "": the chat's, whichever that is when an occurrence is computed.
	Zone string
}

var freqs = []string{"DAILY", "WEEKLY", "MONTHLY", "YEARLY"}

var dayNames = map[string]time.Weekday{"MO": time.Monday, "TU": time.Tuesday, "WE": time.Wednesday,
	"TH": time.Thursday, "FR": time.Friday, "SA": time.Saturday, "SU": time.Sunday}

const localLayout = "20060102T150405"

// Parse reads an RRULE (with or without its "RRULE:" prefix), refusing
// the parts nod does not take with an error that names them and wraps
// ErrUnsupported. The rule has no Start yet.
func Parse(s string) (Rule, error) {
	s = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "RRULE:")
	r := Rule{Interval: 1}
	seen := map[string]bool{}
	for _, part := range strings.Split(strings.TrimSuffix(s, ";"), ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || v == "" {
			return Rule{}, fmt.Errorf("%q is not NAME=VALUE: %w", part, ErrUnsupported)
		}
		if seen[k] {
			return Rule{}, fmt.Errorf("%s is given twice: %w", k, ErrUnsupported)
		}
		seen[k] = true
		var err error
		switch k {
		case "FREQ":
			if !slices.Contains(freqs, v) {
				return Rule{}, fmt.Errorf("FREQ=%s: only DAILY, WEEKLY, MONTHLY and YEARLY: %w", v, ErrUnsupported)
			}
			r.Freq = v
		case "INTERVAL":
			r.Interval, err = positive(k, v)
		case "COUNT":
			r.Count, err = positive(k, v)
		case "BYDAY":
			r.Days, err = days(v)
		case "BYMONTHDAY":
			r.MonthDays, err = monthDays(v)
		case "UNTIL":
			if _, err = until(v, time.UTC); err == nil {
				r.Until = v
			}
		default:
			return Rule{}, fmt.Errorf("%s: nod takes only FREQ, INTERVAL, BYDAY, BYMONTHDAY, COUNT and UNTIL: %w", k, ErrUnsupported)
		}
		if err != nil {
			return Rule{}, err
		}
	}
	switch {
	case r.Freq == "":
		return Rule{}, fmt.Errorf("FREQ is required: %w", ErrUnsupported)
	case r.Count > 0 && r.Until != "":
		return Rule{}, fmt.Errorf("COUNT and UNTIL go alone, not both: %w", ErrUnsupported)
	}
	return r, nil
}

func positive(k, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		return 0, fmt.Errorf("%s=%s: a whole number from 1 to 1000: %w", k, v, ErrUnsupported)
	}
	return n, nil
}

func days(v string) ([]time.Weekday, error) {
	var out []time.Weekday
	for _, d := range strings.Split(v, ",") {
		wd, ok := dayNames[d]
		if !ok {
			return nil, fmt.Errorf("BYDAY=%s: plain days MO, TU, WE, TH, FR, SA, SU (no 1MO, -1FR): %w", v, ErrUnsupported)
		}
		if !slices.Contains(out, wd) {
			out = append(out, wd)
		}
	}
	slices.SortFunc(out, func(a, b time.Weekday) int { return (int(a)+6)%7 - (int(b)+6)%7 })
	return out, nil
}

func monthDays(v string) ([]int, error) {
	var out []int
	for _, d := range strings.Split(v, ",") {
		n, err := strconv.Atoi(d)
		if err != nil || n == 0 || n < -31 || n > 31 {
			return nil, fmt.Errorf("BYMONTHDAY=%s: days 1 to 31, or -1 to -31 from the month's end: %w", v, ErrUnsupported)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	// Days of the month first, then those counted from its end.
	slices.SortFunc(out, func(a, b int) int {
		if (a < 0) != (b < 0) {
			return b - a
		}
		return a - b
	})
	return out, nil
}

// until reads UNTIL in zone: a date means to the end of that local day.
func until(v string, zone *time.Location) (time.Time, error) {
	if t, err := time.ParseInLocation("20060102", v, zone); err == nil {
		return time.Date(t.Year(), t.Month(), t.Day(), 23, 59, 59, 0, zone), nil
	}
	if t, err := time.ParseInLocation(localLayout, v, zone); err == nil {
		return t, nil
	}
	if t, err := time.Parse(rrule.DateTimeFormat, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("UNTIL=%s: a date YYYYMMDD or a time YYYYMMDDTHHMMSS[Z]: %w", v, ErrUnsupported)
}

// At is r read from local's wall clock: its occurrences fall at that
// local time of day.
func (r Rule) At(local time.Time) Rule {
	y, m, d := local.Date()
	r.Start = time.Date(y, m, d, local.Hour(), local.Minute(), 0, 0, time.UTC)
	return r
}

// RRULE is the rule without its start, in a canonical order.
func (r Rule) RRULE() string {
	parts := []string{"FREQ=" + r.Freq}
	if r.Interval > 1 {
		parts = append(parts, "INTERVAL="+strconv.Itoa(r.Interval))
	}
	if len(r.Days) > 0 {
		ds := make([]string, len(r.Days))
		for i, d := range r.Days {
			ds[i] = strings.ToUpper(d.String()[:2])
		}
		parts = append(parts, "BYDAY="+strings.Join(ds, ","))
	}
	if len(r.MonthDays) > 0 {
		ds := make([]string, len(r.MonthDays))
		for i, d := range r.MonthDays {
			ds[i] = strconv.Itoa(d)
		}
		parts = append(parts, "BYMONTHDAY="+strings.Join(ds, ","))
	}
	if r.Count > 0 {
		parts = append(parts, "COUNT="+strconv.Itoa(r.Count))
	}
	if r.Until != "" {
		parts = append(parts, "UNTIL="+r.Until)
	}
	return strings.Join(parts, ";")
}

// String is the rule as a task keeps it: its start, floating or in its
// place's zone, and its RRULE.
func (r Rule) String() string {
	start := "DTSTART:"
	if r.Zone != "" {
		start = "DTSTART;TZID=" + r.Zone + ":"
	}
	return start + r.Start.Format(localLayout) + "\nRRULE:" + r.RRULE()
}

// Read reads a rule as String wrote it.
func Read(s string) (Rule, error) {
	start, rule, ok := strings.Cut(s, "\n")
	if !ok || !strings.HasPrefix(start, "DTSTART") {
		return Rule{}, fmt.Errorf("rule %q has no start: %w", s, ErrUnsupported)
	}
	head, local, ok := strings.Cut(strings.TrimPrefix(start, "DTSTART"), ":")
	zone, named := strings.CutPrefix(head, ";TZID=")
	if !ok || head != "" && !named {
		return Rule{}, fmt.Errorf("rule %q: %w", s, ErrUnsupported)
	}
	if named {
		if _, err := time.LoadLocation(zone); err != nil || zone == "" || zone == "Local" {
			return Rule{}, fmt.Errorf("rule %q: no time zone %q: %w", s, zone, ErrUnsupported)
		}
	}
	at, err := time.Parse(localLayout, local)
	if err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", s, ErrUnsupported)
	}
	r, err := Parse(rule)
	if err != nil {
		return Rule{}, err
	}
	r.Start, r.Zone = at, zone
	return r, nil
}

// In is the zone r's occurrences fall in: its place's, or chat, the
// chat's, for a rule that follows the chat's clock.
func (r Rule) In(chat *time.Location) *time.Location {
	if r.Zone == "" {
		return chat
	}
	if loc, err := time.LoadLocation(r.Zone); err == nil {
		return loc
	}
	return chat // Read refused it: not reached
}

// Offset is, for a rule that keeps a place's clock, that place's UTC
// offset in seconds east at t, which daylight saving may change from one
// time of the rule to the next; false for a rule of the chat's clock.
func (r Rule) Offset(t time.Time) (int, bool) {
	if r.Zone == "" {
		return 0, false
	}
	_, off := t.In(r.In(time.UTC)).Zone()
	return off, true
}

// Describe is a rule as a task keeps it, as a model reads it: its RRULE,
// the time of day it repeats at, and the place whose clock it keeps, if
// one ("FREQ=WEEKLY at 09:00 in America/New_York"); "" for none, its
// text for one that does not read.
func Describe(s string) string {
	r, err := Read(s)
	if err != nil {
		return s
	}
	d := r.RRULE() + " at " + r.Start.Format("15:04")
	if r.Zone != "" {
		d += " in " + r.Zone
	}
	return d
}

// Show is the RRULE of a rule as a task keeps it, "" for none or one
// that does not read.
func Show(s string) string {
	r, err := Read(s)
	if err != nil {
		return ""
	}
	return r.RRULE()
}

// Restarts reports whether rule later, as a task keeps it, is rule
// earlier started again on one of its own times: from later's start on,
// both remind at the same times, so a reminder at that start changes
// nothing by taking later. A model that sets a daily 08:00 again from
// tomorrow gives such a rule, which reads as the one it replaces.
func Restarts(earlier, later string, zone *time.Location) bool {
	if earlier == later {
		return true
	}
	a, err := Read(earlier)
	if err != nil {
		return false
	}
	b, err := Read(later)
	// A count runs out on another day once the start moves.
	// Rules of two clocks drift apart in the weeks when the two places
	// change their clocks on different days.
	if err != nil || a.RRULE() != b.RRULE() || a.Count > 0 || a.In(zone).String() != b.In(zone).String() {
		return false
	}
	from := time.Date(b.Start.Year(), b.Start.Month(), b.Start.Day(), b.Start.Hour(), b.Start.Minute(), 0, 0, b.In(zone)).Add(-time.Nanosecond)
	na, err := a.iterator(a.In(zone))
	if err != nil {
		return false
	}
	nb, err := b.iterator(b.In(zone))
	if err != nil {
		return false
	}
	// Rules of one RRULE agree on every time once they agree on one: its
	// time of day, and where it falls in the rule's days and interval.
	// A few more are compared for the months a BYMONTHDAY skips.
	for range compared {
		oa, oka := after(na, from)
		ob, okb := after(nb, from)
		if oka != okb || oka && !oa.Equal(ob) {
			return false
		}
		if !oka {
			return true
		}
		from = oa
	}
	return true
}

// compared is how many times Restarts compares.
const compared = 4

// after is next's first occurrence strictly after t.
func after(next rrule.Next, t time.Time) (time.Time, bool) {
	for range horizon {
		o, ok := next()
		if !ok {
			return time.Time{}, false
		}
		if o.After(t) {
			return o, true
		}
	}
	return time.Time{}, false
}

// horizon bounds the search for an occurrence: a rule that matches no
// day for this long (BYMONTHDAY=31 in YEARLY…) has none for nod.
const horizon = 100_000

// Next is the first occurrence of r strictly after t, in zone, the
// chat's, unless r keeps a place's (In); false when the rule has none
// (COUNT or UNTIL reached).
func (r Rule) Next(zone *time.Location, t time.Time) (time.Time, bool) {
	next, err := r.iterator(r.In(zone))
	if err != nil {
		return time.Time{}, false
	}
	return after(next, t)
}

// NextOf is Next of the rule stored as s (a task's Repeat); false when
// s holds no rule nod reads, or the rule has no occurrence after t.
func NextOf(s string, zone *time.Location, t time.Time) (time.Time, bool) {
	r, err := Read(s)
	if err != nil {
		return time.Time{}, false
	}
	return r.Next(zone, t)
}

// Within is how many occurrences of r fall in [from, to), in zone as
// Next reads it, counting up to most.
func (r Rule) Within(zone *time.Location, from, to time.Time, most int) int {
	next, err := r.iterator(r.In(zone))
	if err != nil {
		return 0
	}
	n := 0
	for range horizon {
		o, ok := next()
		if !ok || !o.Before(to) || n == most {
			break
		}
		if !o.Before(from) {
			n++
		}
	}
	return n
}

// Latest is the last occurrence of r at or before t, in zone as Next
// reads it; false when none is.
func (r Rule) Latest(zone *time.Location, t time.Time) (time.Time, bool) {
	next, err := r.iterator(r.In(zone))
	if err != nil {
		return time.Time{}, false
	}
	var last time.Time
	for range horizon {
		o, ok := next()
		if !ok || o.After(t) {
			break
		}
		last = o
	}
	return last, !last.IsZero()
}

func (r Rule) iterator(zone *time.Location) (rrule.Next, error) {
	opt := rrule.ROption{Interval: r.Interval, Count: r.Count, Bymonthday: r.MonthDays,
		Dtstart: time.Date(r.Start.Year(), r.Start.Month(), r.Start.Day(), r.Start.Hour(), r.Start.Minute(), 0, 0, zone)}
	opt.Freq, _ = rrule.StrToFreq(r.Freq)
	for _, d := range r.Days {
		opt.Byweekday = append(opt.Byweekday, []rrule.Weekday{rrule.SU, rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA}[d])
	}
	if r.Until != "" {
		u, err := until(r.Until, zone)
		if err != nil {
			return nil, err
		}
		opt.Until = u
	}
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		return nil, fmt.Errorf("rule %s: %w", r.RRULE(), err)
	}
	return rr.Iterator(), nil
}
