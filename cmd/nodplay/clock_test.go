package main

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// The page's clock control moves nod's clock: a reminder an hour and a
// half ahead fires after ⏩ +1 h twice, not after once.
func TestClockControlFiresReminder(t *testing.T) {
	tp := newPlayground(t, map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000", "NOD_SWEEP_INTERVAL": "20ms"}, options{})
	remindIn(t, tp, 90*time.Minute)
	reminded := func(v view) bool {
		for _, m := range v.Msgs {
			for _, row := range m.Buttons {
				for _, b := range row {
					if strings.HasPrefix(b.Text, "⏰ Tomorrow") {
						return true
					}
				}
			}
		}
		return false
	}
	tp.post("/clock", map[string]any{"by": "hour"})
	v := tp.waitView("the clock to move", func(v view) bool { return v.Clock != "" })
	if reminded(v) {
		t.Fatal("the reminder fired an hour early")
	}
	tp.post("/clock", map[string]any{"by": "hour"})
	tp.waitView("the reminder", reminded)
}

// The person's player moves the clock from commands.txt as the page's
// control does: a reminder due in 90 minutes fires after two hours, and
// chat.txt says the clock was moved; a clock command it cannot read is
// refused in commands.log.
func TestRelayClockCommand(t *testing.T) {
	dir := t.TempDir()
	tp := newPlayground(t, map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000", "NOD_SWEEP_INTERVAL": "20ms"}, options{model: "relay", relayDir: dir})
	remindIn(t, tp, 90*time.Minute)
	command(t, dir, "clock sideways")
	command(t, dir, "clock +1h")
	command(t, dir, "clock +1h")
	chat := waitFile(t, filepath.Join(dir, "chat.txt"), has("⏰ Tomorrow"))
	if !strings.Contains(chat, "· nod's clock, moved on: ") {
		t.Errorf("chat.txt does not say the clock moved:\n%s", chat)
	}
	log := waitFile(t, filepath.Join(dir, "commands.log"), has("clock +1h → ok"))
	if !strings.Contains(log, "clock sideways → error: want clock +Nm, +Nh or +Nd") {
		t.Errorf("commands.log:\n%s", log)
	}
}

// A step of the clock is any number of minutes, hours or days up to a
// month: a reminder eleven hours ahead fires after clock +11h, not after
// clock +10h; a step past a month, of nothing or of no unit is refused.
func TestRelayClockSteps(t *testing.T) {
	dir := t.TempDir()
	tp := newPlayground(t, map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000", "NOD_SWEEP_INTERVAL": "20ms"}, options{model: "relay", relayDir: dir})
	remindIn(t, tp, 10*time.Hour+30*time.Minute)
	for _, c := range []string{"clock +31d", "clock +0h", "clock +11", "clock +1w", "clock hour", "clock +10h"} {
		command(t, dir, c)
	}
	log := waitFile(t, filepath.Join(dir, "commands.log"), has("clock +10h → ok"))
	for _, refused := range []string{"clock +31d", "clock +0h", "clock +11", "clock +1w", "clock hour"} {
		if !strings.Contains(log, refused+" → error: want clock +Nm") {
			t.Errorf("%q was not refused:\n%s", refused, log)
		}
	}
	command(t, dir, "say /today") // a round trip, while the sweep runs every 20 ms
	if chat := waitFile(t, filepath.Join(dir, "chat.txt"), has("Today, ")); strings.Contains(chat, "⏰ Tomorrow") {
		t.Fatalf("the reminder fired after 10 hours:\n%s", chat)
	}
	command(t, dir, "clock +45m")
	waitFile(t, filepath.Join(dir, "chat.txt"), has("⏰ Tomorrow"))
}

// clockStep reads minutes, hours and days, at most 30 days.
func TestClockStep(t *testing.T) {
	for by, want := range map[string]time.Duration{"hour": time.Hour, "+1h": time.Hour, "+11h": 11 * time.Hour, "+90m": 90 * time.Minute, "+2d": 48 * time.Hour,
		"+30d": 30 * 24 * time.Hour, "+720h": 720 * time.Hour, "+721h": 0, "+31d": 0, "+0m": 0, "+01h": 0, "+h": 0, "11h": 0, "+1.5h": 0, "+-1h": 0, "morning": 0, "": 0} {
		got, ok := clockStep(by)
		if got != want || ok != (want != 0) {
			t.Errorf("clockStep(%q) = %v, %v; want %v", by, got, ok, want)
		}
	}
}

// The page's clock line shows nod's time in the chat's zone as soon as
// the chat moves to another, before the clock moves.
func TestClockLineFollowsTheChatsZone(t *testing.T) {
	tp := newPlayground(t, map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000"}, options{})
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	if v := tp.waitView("the clock line", func(v view) bool { return v.Clock != "" }); strings.HasSuffix(v.Clock, " JST") {
		t.Fatalf("the clock line is in Tokyo's zone already: %q", v.Clock)
	}
	tp.post("/send", map[string]any{"text": "/tz Asia/Tokyo"})
	v := tp.waitView("the clock line in Tokyo's zone", func(v view) bool { return strings.HasSuffix(v.Clock, " JST") })
	if want := time.Now().In(tokyo).Format("Mon 2 Jan"); !strings.HasPrefix(v.Clock, want) || v.Ahead {
		t.Errorf("the clock line reads %q, want Tokyo's day %q and the clock not moved", v.Clock, want)
	}
}

// remindIn sets a reminder on the first seeded task, d from now.
func remindIn(t *testing.T, tp *testPlayground, d time.Duration) {
	t.Helper()
	db := storage.New(storage.Options{DSN: tp.db}, time.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tasks, err := db.Tasks().ListTasks(t.Context(), player, nod.TaskFilter{})
	if err != nil || len(tasks) == 0 {
		t.Fatalf("seeded tasks: %v %v", tasks, err)
	}
	at := nod.Stamp(time.Now().Add(d))
	if _, err := db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: player}, UserID: player, TaskID: tasks[0].ID, Tool: "set_task_reminder", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = &at; return *cur, nil }}); err != nil {
		t.Fatal(err)
	}
}

// In a group play Alice made the group, as whoever adds nod to a family's
// group did: her /tz sets the group's zone; Bob's is refused.
func TestGroupPlayAliceMadeTheGroup(t *testing.T) {
	dir := t.TempDir()
	newPlayground(t, map[string]string{"NOD_RATE_CHAT": "1000", "NOD_RATE_CHAT_BURST": "1000"}, options{model: "relay", relayDir: dir, group: true})
	command(t, dir, "as bob say /tz Europe/Berlin")
	waitFile(t, filepath.Join(dir, "chat.txt"), has("only its administrators"))
	command(t, dir, "say /tz Europe/Berlin")
	waitFile(t, filepath.Join(dir, "chat.txt"), has("UTC → Europe/Berlin"))
}
