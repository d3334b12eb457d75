package storage_test

import (
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// Updates handled before the cutoff are forgotten (a redelivery of one
// would be new again), those after it are kept, and so is the newest
// whatever its age: polling resumes after it.
func TestPruneUpdates(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		mark := func(id int64) {
			t.Helper()
			if _, err := db.Outbox().MarkUpdate(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		mark(10)
		mark(11)
		clock.Advance(time.Hour)
		cutoff := clock.Now()
		mark(12)
		if n, err := db.Outbox().PruneUpdates(ctx, cutoff); err != nil || n != 2 {
			t.Errorf("PruneUpdates = %d, %v; want 2", n, err)
		}
		for id, want := range map[int64]bool{10: true, 11: true, 12: false} {
			if fresh, err := db.Outbox().MarkUpdate(ctx, id); err != nil || fresh != want {
				t.Errorf("MarkUpdate(%d) after pruning = %v, %v; want %v", id, fresh, err, want)
			}
		}
		// Everything old: the newest stays.
		clock.Advance(time.Hour)
		if n, err := db.Outbox().PruneUpdates(ctx, clock.Now()); err != nil || n != 2 {
			t.Errorf("PruneUpdates of all = %d, %v; want 2 (all but the newest)", n, err)
		}
		if last, err := db.Outbox().LastUpdateID(ctx); err != nil || last != 12 {
			t.Errorf("LastUpdateID after pruning = %d, %v; want 12", last, err)
		}
		if fresh, _ := db.Outbox().MarkUpdate(ctx, 12); fresh {
			t.Errorf("the newest update was pruned")
		}
	})
}

// Buttons last shown before the cutoff are forgotten; showing a message's
// buttons again (an edit) keeps them from then on.
func TestPruneButtons(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		bind := func(msg int, data ...string) {
			t.Helper()
			if err := db.Messages().BindButtons(ctx, chat, msg, data); err != nil {
				t.Fatal(err)
			}
		}
		bind(5, "1u.old")
		bind(6, "1c.s.1", "1c.s.2")
		clock.Advance(time.Hour)
		bind(6, "1c.s.2", "1K.s") // edited: item 1 decided, Keep added
		bind(7, "1u.new")
		cutoff := clock.Now()
		clock.Advance(time.Hour)
		if n, err := db.Messages().PruneButtons(ctx, cutoff); err != nil || n != 2 {
			t.Errorf("PruneButtons = %d, %v; want 2", n, err)
		}
		for _, c := range []struct {
			msg            int
			data           string
			sent, recorded bool
		}{
			{5, "1u.old", false, false}, // all its buttons are old: no record
			{6, "1c.s.1", false, true},  // no longer shown
			{6, "1c.s.2", true, true},   // shown again by the edit
			{6, "1K.s", true, true},
			{7, "1u.new", true, true},
		} {
			sent, recorded, err := db.Messages().ButtonSentWith(ctx, chat, c.msg, c.data)
			if err != nil || sent != c.sent || recorded != c.recorded {
				t.Errorf("ButtonSentWith(%d, %q) after pruning = %v, %v, %v; want %v, %v", c.msg, c.data, sent, recorded, err, c.sent, c.recorded)
			}
			// A press reads the same with the chat's settings.
			s, sent, recorded, err := db.Settings().PressSettings(ctx, chat, c.msg, c.data)
			if err != nil || s.ChatID != chat || s.Mode != nod.ModeSmart || sent != c.sent || recorded != c.recorded {
				t.Errorf("PressSettings(%d, %q) after pruning = %+v, %v, %v, %v; want %v, %v", c.msg, c.data, s, sent, recorded, err, c.sent, c.recorded)
			}
		}
	})
}
