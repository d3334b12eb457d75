package formatting_test

import (
	"testing"
	"time"

	"github.com/nodbot/nod/formatting"
)

// Relative words at their edges: a minute either side of midnight, the
// day daylight saving starts (23 hours long, still one day), the turn of
// the year, the end of the coming week; in both languages.
func TestRelativeStamp(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, berlin) }
	for _, c := range []struct {
		now, t time.Time
		en, de string
	}{
		{at(2026, 3, 11, 10, 0), at(2026, 3, 11, 10, 1), "today, 10:01", "heute, 10:01"},
		{at(2026, 3, 11, 23, 59), at(2026, 3, 12, 0, 1), "tomorrow, 00:01", "morgen, 00:01"},
		{at(2026, 3, 12, 0, 1), at(2026, 3, 11, 23, 59), "yesterday, 23:59", "gestern, 23:59"},
		{at(2026, 3, 11, 0, 0), at(2026, 3, 10, 23, 59), "yesterday, 23:59", "gestern, 23:59"},
		{at(2026, 3, 11, 10, 0), at(2026, 3, 9, 18, 0), "9 Mar, 18:00", "9. März, 18:00"},
		// 29 March 2026: clocks go from 02:00 to 03:00 in Berlin.
		{at(2026, 3, 28, 12, 0), at(2026, 3, 29, 12, 0), "tomorrow, 12:00", "morgen, 12:00"},
		{at(2026, 3, 29, 0, 30), at(2026, 3, 29, 23, 30), "today, 23:30", "heute, 23:30"},
		{at(2026, 3, 29, 23, 30), at(2026, 3, 30, 0, 30), "tomorrow, 00:30", "morgen, 00:30"},
		{at(2026, 3, 11, 10, 0), at(2026, 3, 13, 9, 0), "Fri, 09:00", "Fr., 09:00"},
		{at(2026, 3, 11, 10, 0), at(2026, 3, 16, 9, 0), "Mon, 09:00", "Mo., 09:00"},
		// Six days ahead, "Tue" alone could read as yesterday.
		{at(2026, 3, 11, 10, 0), at(2026, 3, 17, 9, 0), "Tue 17 Mar, 09:00", "Di., 17. März, 09:00"},
		{at(2026, 3, 11, 10, 0), at(2026, 3, 18, 9, 0), "18 Mar, 09:00", "18. März, 09:00"},
		{at(2026, 12, 31, 22, 0), at(2027, 1, 1, 8, 0), "tomorrow, 08:00", "morgen, 08:00"},
		{at(2026, 12, 31, 22, 0), at(2027, 1, 3, 8, 0), "Sun, 08:00", "So., 08:00"},
		{at(2026, 12, 31, 22, 0), at(2027, 1, 8, 8, 0), "8 Jan 2027, 08:00", "8. Jan. 2027, 08:00"},
		{at(2027, 1, 1, 0, 0), at(2026, 12, 31, 23, 0), "yesterday, 23:00", "gestern, 23:00"},
		{at(2026, 11, 29, 10, 0), at(2026, 12, 3, 9, 0), "Thu, 09:00", "Do., 09:00"},
		{at(2026, 11, 20, 10, 0), at(2026, 12, 3, 9, 0), "3 Dec, 09:00", "3. Dez., 09:00"},
	} {
		for lang, want := range map[string]string{"en": c.en, "de": c.de} {
			// The moment is given in UTC: the words are the chat's zone's.
			if got := formatting.For(lang).In(berlin).RelativeStamp(c.t.UTC(), c.now.UTC()); got != want {
				t.Errorf("%s: %v seen at %v = %q, want %q", lang, c.t, c.now, got, want)
			}
		}
	}
	if got := formatting.For("en").In(berlin).RelativeStamp(at(2026, 3, 11, 10, 1), time.Time{}); got != "11 Mar 2026, 10:01" {
		t.Errorf("without now: %q, want the date itself", got)
	}
}

func TestRelativeDay(t *testing.T) {
	for _, c := range []struct{ d, today, en, de string }{
		{"2026-03-11", "2026-03-11", "today", "heute"},
		{"2026-03-12", "2026-03-11", "tomorrow", "morgen"},
		{"2026-03-10", "2026-03-11", "yesterday", "gestern"},
		{"2026-03-29", "2026-03-28", "tomorrow", "morgen"},
		{"2026-03-30", "2026-03-28", "Mon", "Mo."},
		{"2026-03-09", "2026-03-11", "9 Mar", "9. März"},
		{"2027-01-01", "2026-12-31", "tomorrow", "morgen"},
		{"2027-01-05", "2026-12-31", "Tue", "Di."},
		{"2027-01-06", "2026-12-31", "Wed 6 Jan 2027", "Mi., 6. Jan. 2027"},
		{"2027-01-07", "2026-12-31", "7 Jan 2027", "7. Jan. 2027"},
		{"2026-12-30", "2027-01-01", "30 Dec 2026", "30. Dez. 2026"},
		{"", "2026-03-11", "none", "keine"},
	} {
		for lang, want := range map[string]string{"en": c.en, "de": c.de} {
			if got := formatting.For(lang).RelativeDay(c.d, c.today); got != want {
				t.Errorf("%s: %q on %s = %q, want %q", lang, c.d, c.today, got, want)
			}
		}
	}
}
