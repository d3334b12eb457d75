package storage_test

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// Claims of what is due, four at once in batches of 7: every live,
// open task's reminder is claimed exactly once and owed; the trash and
// done tasks are passed over; a daily review is claimed once and moves
// to the next local day; a reminder moved to the past never fires.
func TestClaimDueOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		// The zone first: a zone set later keeps the reminders' local times.
		if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, "Europe/Berlin", time.UTC, "tz", nil); err != nil {
			t.Fatal(err)
		}
		at := clock.Now().Add(time.Hour)
		for i := range 40 {
			status := nod.StatusOpen
			if i%10 == 9 {
				status = nod.StatusDone
			}
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: nod.TaskID(fmt.Sprintf("R%02d", i)), Title: "r", Status: status, Priority: nod.P2, RemindAt: &at}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		past := clock.Now().Add(-time.Minute)
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{ID: "P", Title: "set in the past", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &past}, nil
		}}); err != nil {
			t.Fatal(err)
		}
		if err := db.Schedule().SetDaily(ctx, nod.Topic{ChatID: chat}, 42, "08:00", false, time.UTC); err != nil {
			t.Fatal(err)
		}
		if owed, err := db.Schedule().ClaimDue(ctx, clock.Now(), time.UTC, 7); err != nil || len(owed) != 0 {
			t.Fatalf("claimed before anything was due: %v %v", owed, err)
		}
		now := clock.Now().Add(48 * time.Hour)
		got := map[string]int{}
		for _, o := range claimAtOnce(t, db, now, 7) {
			got[string(o.Kind)+" "+o.Ref]++
		}
		reminders, daily := 0, 0
		for k, n := range got {
			if n != 1 {
				t.Errorf("%s claimed %d times", k, n)
			}
			if k[:5] == "daily" {
				daily++
			} else {
				reminders++
			}
		}
		if reminders != 36 || daily != 1 {
			t.Errorf("claimed %d reminders and %d daily reviews, want 36 and 1: %v", reminders, daily, got)
		}
		s, _ := db.Settings().ChatSettings(ctx, chat, 42)
		if s.Daily != "08:00" || s.TimeZone != "Europe/Berlin" {
			t.Errorf("settings after the claims: %+v", s)
		}
		berlin, _ := time.LoadLocation("Europe/Berlin")
		next := nod.NextDaily(8, 0, berlin, now)
		if owed, _ := db.Schedule().ClaimDue(ctx, next.Add(-time.Second), time.UTC, 7); len(owed) != 0 {
			t.Errorf("claimed again before the next day: %v", owed)
		}
		if owed, _ := db.Schedule().ClaimDue(ctx, next, time.UTC, 7); len(owed) != 1 || owed[0].Kind != nod.OwedDaily {
			t.Errorf("the next day's review: %v", owed)
		}
		// Moved to later the same day, after that day's review ran: none
		// more that day.
		clock.Set(next.Add(time.Minute))
		if err := db.Schedule().SetDaily(ctx, nod.Topic{ChatID: chat}, 42, "09:30", false, time.UTC); err != nil {
			t.Fatal(err)
		}
		if owed, _ := db.Schedule().ClaimDue(ctx, next.Add(2*time.Hour), time.UTC, 7); len(owed) != 0 {
			t.Errorf("a second review on one day: %v", owed)
		}
		if owed, _ := db.Schedule().ClaimDue(ctx, nod.NextDaily(9, 30, berlin, next.Add(2*time.Hour)), time.UTC, 7); len(owed) != 1 {
			t.Errorf("the day after's review at its new time: %v", owed)
		}

		// A zone change is undone once, by whoever made it, while the
		// zone is still what it set.
		zc, err := db.Schedule().SetTimeZone(ctx, chat, 42, "Asia/Tokyo", time.UTC, "tz", nil)
		if err != nil || zc.Before != "Europe/Berlin" || zc.After != "Asia/Tokyo" {
			t.Fatalf("SetTimeZone = %+v, %v", zc, err)
		}
		if _, err := db.Schedule().UndoZone(ctx, chat, 43, zc.ID, time.UTC); !errors.Is(err, nod.ErrForbidden) {
			t.Errorf("another person's undo: %v", err)
		}
		later, _ := db.Schedule().SetTimeZone(ctx, chat, 42, "America/New_York", time.UTC, "tz", nil)
		if _, err := db.Schedule().UndoZone(ctx, chat, 42, zc.ID, time.UTC); !errors.Is(err, nod.ErrStale) {
			t.Errorf("undo after a later change: %v", err)
		}
		if _, err := db.Schedule().UndoZone(ctx, chat, 42, later.ID, time.UTC); err != nil {
			t.Errorf("undo of the latest: %v", err)
		}
		if _, err := db.Schedule().UndoZone(ctx, chat, 42, later.ID, time.UTC); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("a second undo: %v", err)
		}
		if s, _ := db.Settings().ChatSettings(ctx, chat, 42); s.TimeZone != "Asia/Tokyo" {
			t.Errorf("zone after undo = %q", s.TimeZone)
		}
	})
}

// A claim with nothing due costs the same three statements however many
// tasks, reminders, reviews and stays' ends lie ahead: it reads the
// due-time indexes.
func TestClaimDueCostFollowsWhatIsDue(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		ahead := clock.Now().Add(24 * time.Hour)
		cost := func() int64 {
			before, _ := db.Work()
			if owed, err := db.Schedule().ClaimDue(ctx, clock.Now(), time.UTC, 100); err != nil || len(owed) != 0 {
				t.Fatalf("claimed %v, %v", owed, err)
			}
			after, _ := db.Work()
			return after - before
		}
		empty := cost()
		for i := range 300 {
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: nod.TaskID(fmt.Sprintf("F%03d", i)), Title: "later", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &ahead}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Schedule().SetDaily(ctx, nod.Topic{ChatID: chat}, 42, "23:59", false, time.UTC); err != nil {
			t.Fatal(err)
		}
		if full := cost(); full != empty || full > 3 {
			t.Errorf("a claim with nothing due ran %d statements with 300 reminders ahead, %d with none", full, empty)
		}
	})
}

// The agent is told to ask where the person is once per chat: of four
// turns that meet a date at once, one is first, on either database, and
// the settings say when; a chat that has settings already is no
// different from one that has none.
func TestAskedZoneOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		if err := db.Schedule().SetDaily(ctx, nod.Topic{ChatID: chat}, 42, "08:00", false, time.UTC); err != nil {
			t.Fatal(err)
		}
		for _, c := range []nod.ChatID{chat, chat + 1} {
			var (
				wg    sync.WaitGroup
				mu    sync.Mutex
				first int
			)
			for range 4 {
				wg.Go(func() {
					ok, err := db.Schedule().AskedZone(ctx, c)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					defer mu.Unlock()
					if ok {
						first++
					}
				})
			}
			wg.Wait()
			if first != 1 {
				t.Errorf("chat %d: %d turns were first to ask", c, first)
			}
			s, err := db.Settings().ChatSettings(ctx, c, 42)
			if err != nil || s.ZoneAsked == nil || !s.ZoneAsked.Equal(clock.Now()) {
				t.Errorf("chat %d: asked %v, %v", c, s.ZoneAsked, err)
			}
			if s.Daily != "08:00" && c == chat {
				t.Errorf("asking lost the daily review: %+v", s)
			}
		}
	})
}

// An undo never moves a reminder that went out since its change, and
// never leaves one in the past that will not fire: one that went out at
// its time stays sent; one that never did goes out at the next claim.
func TestUndoAndRemindersInThePast(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		nine := clock.Now().Add(time.Hour).Truncate(time.Minute)
		remind := func(id string, at time.Time) nod.Applied {
			t.Helper()
			a, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: nod.TaskID(id), Tool: nod.ToolSetReminder, Audit: executed,
				Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = &at; return *cur, nil }})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		claim := func(want int) []nod.Owed {
			t.Helper()
			owed, err := db.Schedule().ClaimDue(ctx, clock.Now(), time.UTC, 10)
			if err != nil || len(owed) != want {
				t.Fatalf("claimed %v, %v at %v; want %d", owed, err, clock.Now(), want)
			}
			return owed
		}
		for _, id := range []string{"A", "B"} {
			if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: nod.TaskID(id), Title: id, Status: nod.StatusOpen, Priority: nod.P2}, nil
			}}); err != nil {
				t.Fatal(err)
			}
		}

		remind("A", nine)
		clock.Set(nine)
		claim(1)
		snooze := remind("A", nine.Add(time.Hour))
		clock.Set(nine.Add(30 * time.Minute))
		u, err := db.Undo().Undo(ctx, chat, snooze.Undo.ID, 42, false)
		if err != nil || !u.Reminder.At.Equal(nine) || !u.Reminder.Sent {
			t.Fatalf("undo of the snooze after the time it put off = %+v, %v; want 09:00 sent", u.Reminder, err)
		}
		claim(0)
		again, err := db.Undo().Undo(ctx, chat, u.Redo.ID, 42, false)
		if err != nil || !again.Reminder.At.IsZero() {
			t.Fatalf("redo of the snooze = %+v, %v", again.Reminder, err)
		}
		clock.Set(nine.Add(time.Hour))
		claim(1)
		for _, force := range []bool{false, true} {
			if _, err := db.Undo().Undo(ctx, chat, again.Redo.ID, 42, force); !errors.Is(err, nod.ErrSent) {
				t.Errorf("undo (force %v) of a snooze whose reminder went out = %v, want ErrSent", force, err)
			}
		}
		if task, _ := db.Tasks().Task(ctx, chat, "A"); task.RemindAt == nil || !task.RemindAt.Equal(nine.Add(time.Hour)) {
			t.Errorf("remind_at after the refused undo = %v", task.RemindAt)
		}

		eleven := nine.Add(2 * time.Hour)
		remind("B", eleven)
		moved := remind("B", eleven.Add(time.Hour))
		clock.Set(eleven.Add(30 * time.Minute))
		claim(0)
		u, err = db.Undo().Undo(ctx, chat, moved.Undo.ID, 42, false)
		if err != nil || !u.Reminder.At.Equal(eleven) || u.Reminder.Sent {
			t.Fatalf("undo of the move after the time it moved from = %+v, %v; want 11:00 now", u.Reminder, err)
		}
		if owed := claim(1); !owed[0].Due.Equal(eleven) {
			t.Errorf("the reminder sent now is due %v, want %v", owed[0].Due, eleven)
		}
		claim(0)
	})
}

// AskZones keeps one proposal per place a name may mean, for the person
// who asked: nothing is set or audited until they choose one, a tap by
// anyone else is refused, and bad zones store nothing.
func TestAskZones(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		if _, err := db.Schedule().AskZones(ctx, chat, 42, []string{"Europe/Berlin", "Mars/Olympus"}); !errors.Is(err, nod.ErrInvalid) {
			t.Fatalf("a bad zone: %v", err)
		}
		asked, err := db.Schedule().AskZones(ctx, chat, 42, []string{"America/Los_Angeles", "America/New_York"})
		if err != nil || len(asked) != 2 || asked[0].ID == asked[1].ID || asked[1].After != "America/New_York" {
			t.Fatalf("AskZones = %+v, %v", asked, err)
		}
		if s, _ := db.Settings().ChatSettings(ctx, chat, 42); s.TimeZone != "" {
			t.Fatalf("asking set the zone to %q", s.TimeZone)
		}
		if entries, err := db.Audit().Audit(ctx, chat, 10); err != nil || len(entries) != 0 {
			t.Fatalf("asking audited %+v, %v", entries, err)
		}
		if _, err := db.Schedule().DecideZone(ctx, chat, 43, asked[1].ID, true, time.UTC); !errors.Is(err, nod.ErrForbidden) {
			t.Errorf("another person's choice: %v", err)
		}
		zc, err := db.Schedule().DecideZone(ctx, chat, 42, asked[1].ID, true, time.UTC)
		if err != nil || zc.After != "America/New_York" {
			t.Fatalf("the asker's choice: %+v, %v", zc, err)
		}
		if s, _ := db.Settings().ChatSettings(ctx, chat, 42); s.TimeZone != "America/New_York" {
			t.Errorf("zone = %q", s.TimeZone)
		}
		if _, err := db.Schedule().DecideZone(ctx, chat, 42, asked[1].ID, true, time.UTC); !errors.Is(err, nod.ErrDecided) {
			t.Errorf("a second tap: %v", err)
		}
	})
}

// A zone set outside a turn is an event of the chat's topics: an offer
// declined, one taken and undone, and a zone set with /tz, each once, in
// order; the agent's own zone change in a turn is not.
func TestZoneEvents(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		since := clock.Now()
		step := func() { clock.Advance(time.Second) }
		step()
		if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, "Europe/Rome", time.UTC, nod.ToolSetTimezone, nil); err != nil { // the agent's
			t.Fatal(err)
		}
		// decide offers zone, and a second later the person answers.
		decide := func(zone string, yes bool) nod.ZoneChange {
			t.Helper()
			offer, err := db.Schedule().ProposeZone(ctx, chat, 42, zone, nod.Stay{})
			if err != nil {
				t.Fatal(err)
			}
			step()
			if _, err := db.Schedule().DecideZone(ctx, chat, 42, offer.ID, yes, time.UTC); err != nil {
				t.Fatal(err)
			}
			return offer
		}
		decide("Asia/Tokyo", false)
		yes := decide("Europe/Berlin", true)
		step()
		if _, err := db.Schedule().UndoZone(ctx, chat, 42, yes.ID, time.UTC); err != nil {
			t.Fatal(err)
		}
		step()
		if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, "Europe/Lisbon", time.UTC, nod.ToolTZ, nil); err != nil {
			t.Fatal(err)
		}
		events, err := db.Conversation().Events(ctx, nod.Topic{ChatID: chat}, since)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events {
			got = append(got, fmt.Sprintf("%s %s %s←%s", e.Kind, e.Reason, e.Value, e.Summary))
		}
		want := []string{"zone rejected Asia/Tokyo←", "zone confirmed Europe/Berlin←Europe/Rome", "zone undone Europe/Rome←Europe/Berlin", "zone tz Europe/Lisbon←Europe/Rome"}
		if !slices.Equal(got, want) {
			t.Errorf("events = %q, want %q", got, want)
		}
	})
}

// Zones set at once, from two places (say /tz and the agent's call), each
// keep the reminders' clock times from the zone the chat had: whichever
// commits second moves them from the first one's zone, not from the zone
// both read before, so the reminders end at their clock time in the zone
// the chat ends in. On PostgreSQL both run at once.
func TestZonesSetAtOnceKeepTheClockTime(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, "Europe/London", time.UTC, nod.ToolTZ, nil); err != nil {
			t.Fatal(err)
		}
		london, _ := time.LoadLocation("Europe/London")
		nine := time.Date(2026, 3, 12, 9, 0, 0, 0, london)
		for i := range 20 {
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: nod.TaskID(fmt.Sprintf("Z%02d", i)), Title: "call", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &nine}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		zones := []string{"Europe/Berlin", "Asia/Tokyo", "America/New_York", "Australia/Sydney"}
		for round := range 5 {
			var wg sync.WaitGroup
			for _, z := range []string{zones[round%4], zones[(round+1)%4]} {
				wg.Go(func() {
					if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, z, time.UTC, nod.ToolTZ, nil); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			s, err := db.Settings().ChatSettings(ctx, chat, 42)
			if err != nil {
				t.Fatal(err)
			}
			loc, _ := time.LoadLocation(s.TimeZone)
			for i := range 20 {
				task, err := db.Tasks().Task(ctx, chat, nod.TaskID(fmt.Sprintf("Z%02d", i)))
				if err != nil {
					t.Fatal(err)
				}
				if l := task.RemindAt.In(loc); l.Hour() != 9 || l.Minute() != 0 {
					t.Fatalf("round %d: %s's reminder at %s in %s, want 9:00 there", round, task.ID, l.Format("15:04 Jan 2"), s.TimeZone)
				}
			}
		}
	})
}

// A zone change names the reminders it moved to keep their clock times,
// by when they now go off, and only those: not a reminder the words that
// set the zone read in it already (kept), nor one in the trash. Its Undo
// puts back exactly those, and names them; the kept one stays where the
// words put it, and so does a moved one moved again since.
func TestZoneChangeNamesTheRemindersItMoved(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		london, _ := time.LoadLocation("Europe/London")
		if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, london.String(), time.UTC, nod.ToolTZ, nil); err != nil {
			t.Fatal(err)
		}
		add := func(id nod.TaskID, title string, at time.Time) {
			t.Helper()
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: id, Title: title, Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &at}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		day := clock.Now().In(london).AddDate(0, 0, 2)
		at := func(h int) time.Time { return time.Date(day.Year(), day.Month(), day.Day(), h, 0, 0, 0, london) }
		add("LATE", "Call mum", at(18))
		add("EARLY", "Take the meds", at(8))
		add("KEPT", "Hotel call", at(9))
		add("GONE", "Trashed", at(10))
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "delete_task", TaskID: "GONE", Audit: executed, Mutate: func(cur *nod.Task) (nod.Task, error) {
			now := clock.Now()
			cur.DeletedAt = &now
			return *cur, nil
		}}); err != nil {
			t.Fatal(err)
		}
		berlin, _ := time.LoadLocation("Europe/Berlin")
		zc, err := db.Schedule().SetTimeZone(ctx, chat, 42, berlin.String(), time.UTC, nod.ToolSetTimezone, []nod.TaskID{"KEPT"})
		if err != nil {
			t.Fatal(err)
		}
		in := func(h int, z *time.Location) time.Time {
			return time.Date(day.Year(), day.Month(), day.Day(), h, 0, 0, 0, z)
		}
		want := []nod.MovedReminder{{TaskID: "EARLY", Title: "Take the meds", At: in(8, berlin)}, {TaskID: "LATE", Title: "Call mum", At: in(18, berlin)}}
		if !movedEqual(zc.Moved, want) {
			t.Errorf("moved %v, want %v", zc.Moved, want)
		}
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "LATE", Tool: "set_task_reminder", Audit: executed, Mutate: func(cur *nod.Task) (nod.Task, error) {
			at := in(20, berlin)
			cur.RemindAt = &at
			return *cur, nil
		}}); err != nil {
			t.Fatal(err)
		}
		back, err := db.Schedule().UndoZone(ctx, chat, 42, zc.ID, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		want = []nod.MovedReminder{{TaskID: "EARLY", Title: "Take the meds", At: in(8, london)}}
		if !movedEqual(back.Moved, want) {
			t.Errorf("the undo moved %v, want %v", back.Moved, want)
		}
		for id, at := range map[nod.TaskID]time.Time{"EARLY": in(8, london), "KEPT": in(9, london), "LATE": in(20, berlin)} {
			if task, err := db.Tasks().Task(ctx, chat, id); err != nil || task.RemindAt == nil || !task.RemindAt.Equal(at) {
				t.Errorf("after the undo %s's reminder is at %v (%v), want %v", id, task.RemindAt, err, at)
			}
		}
	})
}

func movedEqual(got, want []nod.MovedReminder) bool {
	return slices.EqualFunc(got, want, func(a, b nod.MovedReminder) bool {
		return a.TaskID == b.TaskID && a.Title == b.Title && a.At.Equal(b.At)
	})
}

// A reminder given in another place's clock stays at its moment when the
// chat's zone changes, while one of the chat's own clock keeps its time
// of day; the clock, its place named, is stored with the reminder, written by a new task and
// by a change alike, and an undo that finds the same moment in another
// clock finds it changed.
func TestReminderInAnotherClockStays(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		london, _ := time.LoadLocation("Europe/London")
		berlin, _ := time.LoadLocation("Europe/Berlin")
		if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, london.String(), time.UTC, nod.ToolTZ, nil); err != nil {
			t.Fatal(err)
		}
		day := clock.Now().In(berlin).AddDate(0, 0, 2)
		checkout := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, berlin)
		meds := time.Date(day.Year(), day.Month(), day.Day(), 8, 0, 0, 0, london)
		_, offset := checkout.Zone()
		berlinClock := &nod.Clock{Offset: offset, Zone: berlin.String()}
		edit := func(id nod.TaskID, create bool, set func(*nod.Task)) nod.Applied {
			t.Helper()
			e := nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "set_task_reminder", TaskID: id, Audit: executed, Mutate: func(cur *nod.Task) (nod.Task, error) {
				set(cur)
				return *cur, nil
			}}
			if create {
				e.Tool, e.TaskID, e.Mutate = "create_task", "", func(*nod.Task) (nod.Task, error) {
					n := nod.Task{ID: id, Title: string(id), Status: nod.StatusOpen, Priority: nod.P2}
					set(&n)
					return n, nil
				}
			}
			a, err := db.Tasks().Apply(ctx, e)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		pin := func(t *nod.Task) { t.RemindAt, t.RemindClock = &checkout, berlinClock }
		edit("NEW", true, pin) // inserted with its clock
		edit("MEDS", true, func(t *nod.Task) { t.RemindAt = &meds })
		edit("MOVED", true, func(t *nod.Task) { t.RemindAt = &meds })
		pinned := edit("MOVED", false, pin) // changed to it
		zc, err := db.Schedule().SetTimeZone(ctx, chat, 42, "America/New_York", time.UTC, nod.ToolSetTimezone, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(zc.Moved) != 1 || zc.Moved[0].TaskID != "MEDS" {
			t.Errorf("moved %v, want only the meds", zc.Moved)
		}
		wantReminder := func(id nod.TaskID, at time.Time, clock *nod.Clock) {
			t.Helper()
			task, err := db.Tasks().Task(ctx, chat, id)
			if err != nil {
				t.Fatal(err)
			}
			if task.RemindAt == nil || !task.RemindAt.Equal(at) || (task.RemindClock == nil) != (clock == nil) || clock != nil && *task.RemindClock != *clock {
				t.Errorf("%s: reminder %v in clock %v, want %v in %v", id, task.RemindAt, task.RemindClock, at, clock)
			}
		}
		wantReminder("NEW", checkout, berlinClock)
		wantReminder("MOVED", checkout, berlinClock)
		// The same moment in the chat's clock is another value: the pin's
		// undo finds it changed, and the unpinning's own undo pins it again.
		unpinned := edit("MOVED", false, func(t *nod.Task) { t.RemindClock = nil })
		wantReminder("MOVED", checkout, nil)
		if _, err := db.Undo().Undo(ctx, chat, pinned.Undo.ID, 42, false); !errors.Is(err, nod.ErrStale) {
			t.Errorf("undo of the pin over the chat's clock: %v, want stale", err)
		}
		if _, err := db.Undo().Undo(ctx, chat, unpinned.Undo.ID, 42, false); err != nil {
			t.Fatal(err)
		}
		wantReminder("MOVED", checkout, berlinClock)
	})
}

// A stay that ended while nod was down goes back before the reminders
// due since, which are then in the clock it put back: one claim owes
// the stay's reminder, the return (naming only the reminder still
// ahead), then the rest, each at its home clock time.
func TestZoneReturnBeforeTheRemindersAfterIt(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
		if _, err := db.Schedule().SetTimeZone(ctx, chat, 42, "Europe/London", time.UTC, "tz", nil); err != nil {
			t.Fatal(err)
		}
		until := time.Date(2026, 3, 15, 23, 0, 0, 0, time.UTC)
		if _, err := db.Schedule().SetTimeZoneUntil(ctx, chat, 42, "Europe/Berlin", time.UTC, nod.ToolSetTimezone, nil, nod.Stay{Until: until}); err != nil {
			t.Fatal(err)
		}
		for id, at := range map[nod.TaskID]time.Time{
			"DURING": time.Date(2026, 3, 14, 17, 0, 0, 0, time.UTC), // 18:00 in Berlin
			"AFTER":  time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC),  // 10:00 in Berlin, 10:00 at home
			"AHEAD":  time.Date(2026, 3, 17, 8, 0, 0, 0, time.UTC),
		} {
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: id, Title: string(id), Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &at}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		now := time.Date(2026, 3, 16, 12, 0, 0, 0, time.UTC)
		clock.Set(now)
		owed, err := db.Schedule().ClaimDue(ctx, now, time.UTC, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range owed {
			switch o.Kind {
			case nod.OwedReminder:
				task, _, _ := strings.Cut(o.Ref, "@")
				got = append(got, strings.TrimSpace(task+" "+o.Due.UTC().Format("02 15:04")+" "+o.DueZone))
			case nod.OwedZoneBack:
				var moved []string
				for _, m := range o.Zone.Moved {
					moved = append(moved, string(m.TaskID)+" "+m.At.UTC().Format("02 15:04"))
				}
				got = append(got, "back to "+o.Zone.After+": "+strings.Join(moved, ", "))
			}
		}
		// The reminder due during the stay keeps the stay's clock for its
		// message, which goes out once the chat is home.
		want := []string{"DURING 14 17:00 Europe/Berlin", "back to Europe/London: AHEAD 17 09:00", "AFTER 16 10:00"}
		if !slices.Equal(got, want) {
			t.Errorf("claimed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// And so does its retry, taken from the outbox.
		clock.Set(now.Add(time.Hour))
		retried, err := db.Outbox().TakeOwed(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		zones := map[string]string{}
		for _, o := range retried {
			if o.Kind == nod.OwedReminder {
				task, _, _ := strings.Cut(o.Ref, "@")
				zones[task] = o.DueZone
			}
		}
		if want := map[string]string{"DURING": "Europe/Berlin", "AFTER": ""}; !maps.Equal(zones, want) {
			t.Errorf("retried reminders' zones %v, want %v", zones, want)
		}
	})
}

// Stays set for a while end once each, four claimers at once: every chat
// goes back to the zone before its stay exactly once, as a change of its
// own that its person may undo; a stay another zone change overtook, or
// whose change was undone, never goes back.
func TestZoneReturnClaimedOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		until := clock.Now().Add(24 * time.Hour)
		const chats = 12
		for i := range chats {
			c := nod.ChatID(9000 + i)
			if _, err := db.Schedule().SetTimeZone(ctx, c, 42, "Europe/London", time.UTC, "tz", nil); err != nil {
				t.Fatal(err)
			}
			zc, err := db.Schedule().SetTimeZoneUntil(ctx, c, 42, "Europe/Berlin", time.UTC, nod.ToolSetTimezone, nil, nod.Stay{Until: until})
			if err != nil {
				t.Fatal(err)
			}
			switch i {
			case 0: // overtaken
				if _, err := db.Schedule().SetTimeZone(ctx, c, 42, "Europe/Paris", time.UTC, "tz", nil); err != nil {
					t.Fatal(err)
				}
			case 1: // undone
				if _, err := db.Schedule().UndoZone(ctx, c, 42, zc.ID, time.UTC); err != nil {
					t.Fatal(err)
				}
			}
		}
		if s, _ := db.Settings().ChatSettings(ctx, 9002, 42); s.ZoneUntil == nil || !s.ZoneUntil.Equal(nod.Stamp(until)) || s.ZoneBack != "Europe/London" {
			t.Errorf("a stay's settings: until %v, back to %q", s.ZoneUntil, s.ZoneBack)
		}
		if owed, err := db.Schedule().ClaimDue(ctx, until.Add(-time.Second), time.UTC, 5); err != nil || len(owed) != 0 {
			t.Fatalf("claimed before the stays' end: %v %v", owed, err)
		}
		got := map[nod.ChatID]int{}
		for _, o := range claimAtOnce(t, db, until, 5) {
			if o.Kind != nod.OwedZoneBack || o.Zone == nil || o.Zone.Before != "Europe/Berlin" || o.Zone.After != "Europe/London" {
				t.Errorf("claimed %+v", o)
			}
			got[o.ChatID]++
		}
		for i := range chats {
			c := nod.ChatID(9000 + i)
			want, zone := 1, "Europe/London"
			switch i {
			case 0:
				want, zone = 0, "Europe/Paris"
			case 1:
				want, zone = 0, "Europe/London"
			}
			s, _ := db.Settings().ChatSettings(ctx, c, 42)
			if got[c] != want || s.TimeZone != zone || s.ZoneUntil != nil {
				t.Errorf("chat %d: went back %d times, zone %q, until %v; want %d, %q", c, got[c], s.TimeZone, s.ZoneUntil, want, zone)
			}
		}
		// Owed until their messages go out: a process that stopped before
		// sending them finds each, with what it says, at its next start.
		clock.Set(until)
		owed, err := db.Outbox().TakeOwed(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		backs := 0
		for _, o := range owed {
			if o.Kind == nod.OwedZoneBack {
				backs++
				if z := o.Zone; z == nil || z.ID != o.Ref || z.Before != "Europe/Berlin" || z.After != "Europe/London" || z.UserID != 42 {
					t.Errorf("owed return %+v, zone %+v", o, z)
				}
			}
		}
		if backs != chats-2 {
			t.Errorf("%d returns owed, want %d", backs, chats-2)
		}
	})
}

// claimAtOnce claims what is due at now, batches of limit, four claimers
// at once until none finds more, and returns all they claimed.
func claimAtOnce(t *testing.T, db *storage.DB, now time.Time, limit int) []nod.Owed {
	t.Helper()
	var (
		mu   sync.Mutex
		all  []nod.Owed
		wg   sync.WaitGroup
		errs []error
	)
	for range 4 {
		wg.Go(func() {
			for {
				owed, err := db.Schedule().ClaimDue(t.Context(), now, time.UTC, limit)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				all = append(all, owed...)
				mu.Unlock()
				if err != nil || len(owed) == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return all
}

// A repeating reminder that comes late counts the times before it that
// went by without one: from its own time, which never went out (as
// after a ✓ Done moved it there), to the latest, which goes out; the
// count and its first time are owed with it, for a restart.
func TestMissedTimesCounted(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		now := clock.Now()
		first := time.Date(now.Year(), now.Month(), now.Day(), 8, 0, 0, 0, time.UTC).AddDate(0, 0, -3)
		rule := "DTSTART:" + first.Format("20060102T150405") + "\nRRULE:FREQ=DAILY"
		clock.Set(first.Add(-time.Hour)) // set before its first time, which then never went out
		if _, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{ID: "V", Title: "vitamins", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &first, Repeat: rule}, nil
		}}); err != nil {
			t.Fatal(err)
		}
		at := first.AddDate(0, 0, 3).Add(time.Hour) // 09:00, three days on
		owed, err := db.Schedule().ClaimDue(ctx, at, time.UTC, 10)
		if err != nil || len(owed) != 1 {
			t.Fatalf("claimed %v, %v", owed, err)
		}
		if o := owed[0]; !o.Due.Equal(first.AddDate(0, 0, 3)) || o.Missed != 3 || !o.MissedFrom.Equal(first) {
			t.Errorf("claimed due %v, missed %d from %v; want today's 08:00, 3 from %v", o.Due, o.Missed, o.MissedFrom, first)
		}
		clock.Set(at)
		taken, err := db.Outbox().TakeOwed(ctx, 0)
		if err != nil || len(taken) != 1 || taken[0].Missed != 3 || !taken[0].MissedFrom.Equal(first) {
			t.Errorf("owed after a restart: %+v, %v", taken, err)
		}
		// The next day's, on time, misses nothing.
		if owed, err := db.Schedule().ClaimDue(ctx, first.AddDate(0, 0, 4), time.UTC, 10); err != nil || len(owed) != 1 || owed[0].Missed != 0 {
			t.Errorf("the next day's claim: %+v, %v", owed, err)
		}
	})
}

// A stay's return claimed while its person sends /tz Paris, at once, on
// either database: whichever commits first, the chat ends in Paris, the
// return is owed at most once, and an Undo of the /tz gives back the stay
// only if the return had not come (its end is past by then).
func TestZoneReturnRacesAChange(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		for i := range 8 {
			c := nod.ChatID(9500 + i)
			until := clock.Now().Add(time.Hour)
			if _, err := db.Schedule().SetTimeZone(ctx, c, 42, "Europe/London", time.UTC, "tz", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Schedule().SetTimeZoneUntil(ctx, c, 42, "Europe/Berlin", time.UTC, nod.ToolSetTimezone, nil, nod.Stay{Until: until}); err != nil {
				t.Fatal(err)
			}
			var (
				wg    sync.WaitGroup
				owed  []nod.Owed
				paris nod.ZoneChange
				errs  [2]error
			)
			wg.Go(func() { owed, errs[0] = db.Schedule().ClaimDue(ctx, until, time.UTC, 10) })
			wg.Go(func() { paris, errs[1] = db.Schedule().SetTimeZone(ctx, c, 42, "Europe/Paris", time.UTC, "tz", nil) })
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("claim %v, /tz %v", errs[0], errs[1])
			}
			backs := 0
			for _, o := range owed {
				if o.Kind == nod.OwedZoneBack && o.ChatID == c {
					backs++
				}
			}
			s, _ := db.Settings().ChatSettings(ctx, c, 42)
			if backs > 1 || s.TimeZone != "Europe/Paris" || s.ZoneUntil != nil {
				t.Errorf("chat %d: %d returns, zone %q until %v; want at most one, Paris, none", c, backs, s.TimeZone, s.ZoneUntil)
			}
			if paris.Before != "Europe/Berlin" && paris.Before != "Europe/London" {
				t.Errorf("chat %d: /tz Paris came from %q", c, paris.Before)
			}
			clock.Set(until.Add(time.Minute))
			if _, err := db.Schedule().UndoZone(ctx, c, 42, paris.ID, time.UTC); err != nil {
				t.Fatal(err)
			}
			if s, _ := db.Settings().ChatSettings(ctx, c, 42); s.ZoneUntil != nil || s.TimeZone != paris.Before {
				t.Errorf("chat %d: the Undo left zone %q until %v, want %q and no stay: its end has passed", c, s.TimeZone, s.ZoneUntil, paris.Before)
			}
		}
	})
}

// A stay's end moved alone (its zone the chat's already) reports the
// reminders in the chat's clock it moved past, either way: a later end
// takes them into the stay, an earlier one leaves them after it. Those
// in a place's clock, done, in the trash or on the same side are left out.
func TestStayEndCrossesReminders(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
		sunday := time.Date(2026, 3, 15, 23, 0, 0, 0, time.UTC)
		if _, err := db.Schedule().SetTimeZoneUntil(ctx, chat, 42, "Europe/Berlin", time.UTC, nod.ToolSetTimezone, nil, nod.Stay{Until: sunday, Back: "Europe/London"}); err != nil {
			t.Fatal(err)
		}
		at := func(d, h int) *time.Time { t := time.Date(2026, 3, d, h, 0, 0, 0, time.UTC); return &t }
		for _, task := range []nod.Task{
			{ID: "SAT", Title: "Saturday", RemindAt: at(14, 9)},
			{ID: "MON", Title: "Monday", RemindAt: at(16, 9)},
			{ID: "MON2", Title: "Monday in Paris", RemindAt: at(16, 10), RemindClock: &nod.Clock{Offset: 3600, Zone: "Europe/Paris"}},
			{ID: "DONE", Title: "Done", RemindAt: at(16, 11), Status: nod.StatusDone},
			{ID: "WED", Title: "Wednesday", RemindAt: at(18, 9)},
		} {
			_, err := db.Tasks().Apply(ctx, nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, Tool: "create_task", Audit: executed, Mutate: func(*nod.Task) (nod.Task, error) {
				task.Priority = nod.P2
				task.Status = cmp.Or(task.Status, nod.StatusOpen)
				return task, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
		}
		crossed := func(until time.Time) []nod.TaskID {
			t.Helper()
			zc, err := db.Schedule().SetTimeZoneUntil(ctx, chat, 42, "Europe/Berlin", time.UTC, nod.ToolSetTimezone, nil, nod.Stay{Until: until, Back: "Europe/London"})
			if err != nil {
				t.Fatal(err)
			}
			var ids []nod.TaskID
			for _, m := range zc.Crossed {
				ids = append(ids, m.TaskID)
			}
			return ids
		}
		tuesday := time.Date(2026, 3, 17, 23, 0, 0, 0, time.UTC)
		if got := crossed(tuesday); !slices.Equal(got, []nod.TaskID{"MON"}) {
			t.Errorf("Sunday → Tuesday crossed %v, want [MON]", got)
		}
		if got := crossed(time.Date(2026, 3, 13, 23, 0, 0, 0, time.UTC)); !slices.Equal(got, []nod.TaskID{"SAT", "MON"}) {
			t.Errorf("Tuesday → Friday crossed %v, want [SAT MON]", got)
		}
		if got := crossed(time.Date(2026, 3, 13, 23, 0, 0, 0, time.UTC)); len(got) != 0 {
			t.Errorf("the same end crossed %v, want none", got)
		}
	})
}
