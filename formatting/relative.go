package formatting

import (
	"time"

	"github.com/nodbot/nod"
)

// Dates and times relative to the day a person reads them on: "today,
// 10:01", "tomorrow", "Fri, 09:00", "3 Dec", "3 Dec 2027". Only messages
// that show how things stand when they are sent (a task card, /tasks,
// /today) use them; a diff, which stays in the chat as a record, keeps
// the date itself (docs/design.md §7.2).
var (
	relDayTmpl   = define[relDay]("rel_day")
	relStampTmpl = define[relDay]("rel_stamp")
)

// relDay is a day as the rel_day and rel_stamp templates word it: Offset
// days from today, when Near (yesterday to five days ahead); else the
// date, Year only when it is not today's, and its weekday when Week (six
// days ahead: "Fri" alone, read on a Saturday, could be yesterday).
type relDay struct {
	Near    bool
	Week    bool
	Offset  int
	Weekday int // 0 Sunday … 6 Saturday
	Day     int
	Month   string
	Year    int
	Clock   string
}

// RelativeDay renders a YYYY-MM-DD date relative to today, the reader's
// local date (both YYYY-MM-DD): "today", "tomorrow", "yesterday", a
// weekday within the coming five days, else the date (with its weekday
// six days ahead), with its year only when it is not today's. Either
// not a date renders d as Date does.
func (l *Locale) RelativeDay(d, today string) string {
	r, ok := l.relDay(d, today)
	if !ok {
		return l.Date(d)
	}
	return l.Render(relDayTmpl.With(r))
}

// RelativeStamp renders a moment to the minute relative to now, both in
// the locale's zone: "today, 10:01", "Fri, 09:00", "3 Dec, 09:00". A zero
// now renders it as Stamp does.
func (l *Locale) RelativeStamp(t, now time.Time) string {
	r, ok := l.relStamp(t, now)
	if !ok {
		return l.Stamp(t)
	}
	return l.Render(relStampTmpl.With(r))
}

// recentStamp renders a moment of the past as a question sent now reads
// it: "today, 10:03" or "yesterday, 18:30" (day is set: the day in
// words), else as Stamp does; so does a zero now.
func (l *Locale) recentStamp(t, now time.Time) (s string, day bool) {
	r, ok := l.relStamp(t, now)
	if !ok || r.Offset < -1 || r.Offset > 0 {
		return l.Stamp(t), false
	}
	return l.Render(relStampTmpl.With(r)), true
}

// relStamp is t, in the locale's zone, as rel_stamp words it relative to
// now; false for a zero now.
func (l *Locale) relStamp(t, now time.Time) (relDay, bool) {
	if now.IsZero() {
		return relDay{}, false
	}
	t = t.In(l.Zone())
	r, ok := l.relDay(t.Format(nod.DateLayout), now.In(l.Zone()).Format(nod.DateLayout))
	r.Clock = t.Format("15:04")
	return r, ok
}

func (l *Locale) relDay(d, today string) (relDay, bool) {
	day, err1 := time.Parse(nod.DateLayout, d)
	ref, err2 := time.Parse(nod.DateLayout, today)
	if err1 != nil || err2 != nil {
		return relDay{}, false
	}
	// Calendar days, in UTC: no daylight saving stretches one.
	offset := int(day.Sub(ref).Hours() / 24)
	r := relDay{Near: offset >= -1 && offset <= 5, Week: offset == 6, Offset: offset, Weekday: int(day.Weekday()), Day: day.Day(), Month: l.months[day.Month()-1]}
	if day.Year() != ref.Year() {
		r.Year = day.Year()
	}
	return r, true
}

// relativeStamp is the template function when: a *time.Time or
// time.Time relative to now, "—" for nil.
func (l *Locale) relativeStamp(t any, now time.Time) string {
	switch v := t.(type) {
	case time.Time:
		return l.RelativeStamp(v, now)
	case *time.Time:
		if v != nil {
			return l.RelativeStamp(*v, now)
		}
	}
	return l.Render(noneTmpl)
}
