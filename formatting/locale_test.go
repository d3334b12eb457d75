package formatting

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
)

// Adding a language is adding one file: it must define every template
// English defines, and nothing else.
func TestLanguagesDefineEveryTemplate(t *testing.T) {
	want := templateNames(locales[DefaultLanguage])
	if len(want) < 100 {
		t.Fatalf("English defines only %d templates", len(want))
	}
	for code, l := range locales {
		got := templateNames(l)
		for _, n := range want {
			if !slices.Contains(got, n) {
				t.Errorf("%s.tmpl lacks %q", code, n)
			}
		}
		for _, n := range got {
			if !slices.Contains(want, n) {
				t.Errorf("%s.tmpl defines %q, which English does not", code, n)
			}
		}
	}
}

func TestFor(t *testing.T) {
	for code, want := range map[string]string{"de": "de", "de-AT": "de", " DE ": "de", "en-GB": "en", "fr": "en", "": "en"} {
		if got := For(code).Code(); got != want {
			t.Errorf("For(%q) = %s, want %s", code, got, want)
		}
	}
	if !Supported("de-CH") || Supported("fr") || strings.Join(Languages(), ",") != "de,en" {
		t.Errorf("Supported/Languages: %v", Languages())
	}
}

// Dates and durations follow the language.
func TestDatesAndDurations(t *testing.T) {
	m := 90
	for code, want := range map[string][2]string{"en": {"5 Mar 2026", "1 h 30 min"}, "de": {"5. März 2026", "1 Std. 30 Min."}} {
		l := For(code)
		if got := l.Date("2026-03-05"); got != want[0] {
			t.Errorf("%s date %q, want %q", code, got, want[0])
		}
		if got := l.Minutes(&m); got != want[1] {
			t.Errorf("%s minutes %q, want %q", code, got, want[1])
		}
	}
}

// TestSpansInWords: a configured span reads in its largest whole unit,
// and German declines "Tag" after "innerhalb von".
func TestSpansInWords(t *testing.T) {
	for _, c := range []struct {
		lang string
		d    time.Duration
		want string
	}{
		{"en", 30 * 24 * time.Hour, "restores it within 30 days."},
		{"en", 24 * time.Hour, "restores it within 1 day."},
		{"en", 36 * time.Hour, "restores it within 36 hours."},
		{"en", time.Hour, "restores it within 1 hour."},
		{"en", 90 * time.Minute, "restores it within 90 minutes."},
		{"de", 30 * 24 * time.Hour, "innerhalb von 30 Tagen wieder her."},
		{"de", 24 * time.Hour, "innerhalb von 1 Tag wieder her."},
		{"de", 2 * time.Hour, "innerhalb von 2 Stunden wieder her."},
		{"de", time.Minute, "innerhalb von 1 Minute wieder her."},
	} {
		got := For(c.lang).Text(Deleted.With(Trashed{Title: "X", Keep: c.d})).HTML
		if !strings.HasSuffix(got, c.want) {
			t.Errorf("%s %v: %q, want it to end %q", c.lang, c.d, got, c.want)
		}
	}
	got := For("de").Tasks().DeleteAsk(nod.PendingDeletion{Title: "X", Wait: 10 * time.Minute}, 2*24*time.Hour, 0, nil, time.Time{}).HTML
	if !strings.Contains(got, "Ich warte 10 Minuten; eine gelöschte Aufgabe liegt 2 Tage im Papierkorb.") {
		t.Errorf("de question: %s", got)
	}
}

// A question sent now says when a task was added in words for today and
// yesterday, the chat's days (Berlin's midnight, not UTC's), and as a
// date otherwise; without a now, always as a date.
func TestRecentStamp(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	l := For("en").In(berlin)
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, berlin)
	for _, c := range []struct {
		at   time.Time
		want string
		day  bool
	}{
		{time.Date(2026, 11, 30, 9, 46, 0, 0, berlin), "today, 09:46", true},
		{time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC), "today, 00:30", true}, // after Berlin's midnight
		{time.Date(2026, 11, 29, 6, 16, 0, 0, berlin), "yesterday, 06:16", true},
		{time.Date(2026, 11, 28, 6, 16, 0, 0, berlin), "28 Nov 2026, 06:16", false},
		{time.Date(2026, 12, 1, 6, 16, 0, 0, berlin), "1 Dec 2026, 06:16", false}, // a clock behind: never "tomorrow"
	} {
		if got, day := l.recentStamp(c.at, now); got != c.want || day != c.day {
			t.Errorf("recentStamp(%v) = %q, %v; want %q, %v", c.at, got, day, c.want, c.day)
		}
	}
	if got, day := l.recentStamp(now, time.Time{}); got != "30 Nov 2026, 10:00" || day {
		t.Errorf("without a now: %q, %v", got, day)
	}
}
