package formatting

import (
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/repeat"
)

// A repeating reminder's rule in words ("every weekday at 08:00").
var (
	repeatWords = define[repeatView]("repeat_words")
	weekdayTmpl = define[int]("weekday") // 0 Sunday … 6 Saturday
	monthDay    = define[int]("month_day")
	andTmpl     = fixed("and")
)

func init() { partial[int]("ordinal") }

// repeatView is a rule as its words need it: Days and MonthDays are
// rendered already; Date (a yearly rule's day) too.
type repeatView struct {
	Freq      string
	Interval  int
	Weekdays  bool // Monday to Friday, every week
	Days      string
	MonthDays string
	Date      string
	Time      string
	Count     int
	Until     string
}

// Repeat renders a task's rule (as Task.Repeat keeps it) in words; "—"
// for none, the RRULE itself for one it cannot read.
func (l *Locale) Repeat(stored string) string {
	if stored == "" {
		return l.Render(noneTmpl)
	}
	r, err := repeat.Read(stored)
	if err != nil {
		return stored
	}
	v := repeatView{Freq: r.Freq, Interval: r.Interval, Count: r.Count, Time: r.Start.Format("15:04")}
	if r.Zone != "" { // a place's clock, not the chat's
		if city := nod.ZoneCity(r.Zone); city != "" {
			v.Time += " in " + city
		} else {
			v.Time += " " + r.Zone
		}
	}
	days := r.Days
	if len(days) == 0 && r.Freq == "WEEKLY" {
		days = []time.Weekday{r.Start.Weekday()}
	}
	week := []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	v.Weekdays = r.Interval == 1 && slices.Equal(days, week) && (r.Freq == "WEEKLY" || r.Freq == "DAILY")
	var names []string
	for _, d := range days {
		names = append(names, l.Render(weekdayTmpl.With(int(d))))
	}
	v.Days = l.joinAnd(names)
	mdays := r.MonthDays
	if len(mdays) == 0 && r.Freq == "MONTHLY" {
		mdays = []int{r.Start.Day()}
	}
	names = nil
	for _, d := range mdays {
		names = append(names, l.Render(monthDay.With(d)))
	}
	v.MonthDays = l.joinAnd(names)
	if r.Freq == "YEARLY" && len(r.MonthDays) == 0 && len(r.Days) == 0 {
		v.Date = l.Render(monthDay.With(r.Start.Day())) + " " + l.months[r.Start.Month()-1]
	}
	if r.Until != "" {
		if t, err := time.Parse("20060102", r.Until[:min(8, len(r.Until))]); err == nil {
			v.Until = l.Date(t.Format("2006-01-02"))
		}
	}
	return l.Render(repeatWords.With(v))
}

// joinAnd joins words as a list is said: "a, b and c".
func (l *Locale) joinAnd(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " " + l.Render(andTmpl) + " " + ws[len(ws)-1]
}

// upcoming is t's reminder time still ahead at now: its own, or, once a
// repeating reminder's time went out, the rule's next (played, a weekly
// chore not yet ticked off showed no time at all); nil for none.
func (l *Locale) upcoming(t nod.Task, now time.Time) *time.Time {
	if t.RemindAt == nil || now.IsZero() {
		return nil
	}
	if t.RemindAt.After(now) {
		return t.RemindAt
	}
	return l.nextAfterSent(t, now)
}

// nextAfterSent is when t's repeating reminder, whose time went out
// while t was open, goes off next; nil for a reminder that does not
// repeat, or whose rule has ended.
func (l *Locale) nextAfterSent(t nod.Task, now time.Time) *time.Time {
	if !t.RepeatsAfterSent(now) {
		return nil
	}
	next, ok := repeat.NextOf(t.Repeat, l.Zone(), now)
	if !ok {
		return nil
	}
	return &next
}
