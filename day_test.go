package nod_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/nodbot/nod"
)

// The choices at a change of the clocks: a wall time the night skips
// moves forward by the gap; one that occurs twice is the later; tomorrow
// keeps the wall time; a daily time runs once on each local day.
func TestLocalTimesAcrossDaylightSaving(t *testing.T) {
	berlin, err := nod.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2026-03-29T02:30", time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)},  // 03:30 CEST
		{"2026-10-25T02:30", time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)}, // the later 02:30, CET
		{"2026-11-25T09:00", time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)},
	} {
		got, err := nod.ParseLocal(c.in, berlin)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseLocal(%q) = %v, %v; want %v", c.in, got.UTC(), err, c.want)
		}
	}
	after := time.Date(2026, 3, 28, 12, 0, 0, 0, berlin)
	first := nod.NextDaily(2, 30, berlin, after)
	second := nod.NextDaily(2, 30, berlin, first)
	if first.In(berlin).Format("2006-01-02 15:04") != "2026-03-29 03:30" || second.In(berlin).Format("2006-01-02 15:04") != "2026-03-30 02:30" {
		t.Errorf("daily at 02:30 across the change: %v, %v", first.In(berlin), second.In(berlin))
	}
	for _, bad := range []string{"", "Local", "Mars/Olympus", "europe/berlin"} {
		if _, err := nod.LoadZone(bad); err == nil {
			t.Errorf("LoadZone(%q) succeeded", bad)
		}
	}
}

func TestSnoozeUntil(t *testing.T) {
	t.Parallel()
	berlin, err := nod.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 10, 22, 30, 45, 0, time.UTC) // 23:30 in Berlin
	due := time.Date(2026, 3, 10, 8, 15, 0, 0, time.UTC)   // 09:15 in Berlin
	for _, c := range []struct {
		n        int
		remindAt *time.Time
		want     time.Time
	}{
		{nod.SnoozeHour, &due, time.Date(2026, 3, 10, 23, 30, 0, 0, time.UTC)},
		{nod.SnoozeTomorrow, &due, time.Date(2026, 3, 11, 9, 15, 0, 0, berlin)},
		{nod.SnoozeTomorrow, nil, time.Date(2026, 3, 11, 23, 30, 0, 0, berlin)},
	} {
		if got := nod.SnoozeUntil(c.n, now, c.remindAt, berlin); !got.Equal(c.want) {
			t.Errorf("SnoozeUntil(%d, %v, %v) = %v, want %v", c.n, now, c.remindAt, got, c.want)
		}
	}
}

func TestReadTimeOfDay(t *testing.T) {
	for in, want := range map[string]string{
		"7": "07:00", "07": "07:00", "7:30": "07:30", "7.30": "07:30", "19 Uhr": "19:00", "19:30 uhr": "19:30",
		"19h": "19:00", "7pm": "19:00", "7:30 PM": "19:30", "12am": "00:00", "12pm": "12:00", "0": "00:00", "23:59": "23:59",
	} {
		h, m, err := nod.ReadTimeOfDay(in)
		if got := fmt.Sprintf("%02d:%02d", h, m); err != nil || got != want {
			t.Errorf("ReadTimeOfDay(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "24", "7:5", "7:60", "13pm", "0am", "+7", "-1", "7:30:00", "abc", "uhr", "1234", "7 30"} {
		if h, m, err := nod.ReadTimeOfDay(in); err == nil {
			t.Errorf("ReadTimeOfDay(%q) = %02d:%02d, want an error", in, h, m)
		}
	}
}
