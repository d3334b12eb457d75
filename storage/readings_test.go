package storage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
)

// A reading's button lives as long as the proposals it answers: past the
// change-set TTL it decides nothing, and it stays unused.
func TestReadingExpires(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		seedT1(t, db)
		cs := proposeCS(t, db)
		for _, id := range []string{"r-early", "r-late"} {
			r := nod.Reading{ID: id, ChatID: chat, UserID: 42, SetID: cs.ID, Confirm: []int{1}}
			if err := db.Conversation().SaveTurn(t.Context(), nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, UserID: 42, Readings: []nod.Reading{r}}); err != nil {
				t.Fatal(err)
			}
			clock.Advance(7*24*time.Hour - time.Minute)
		}
		// r-early was shown two weeks ago, r-late a minute short of one.
		if _, err := db.ChangeSets().TakeReading(t.Context(), chat, "r-early", 42); !errors.Is(err, nod.ErrExpired) {
			t.Errorf("a two-week-old reading: %v, want expired", err)
		}
		if r, err := db.ChangeSets().TakeReading(t.Context(), chat, "r-late", 42); err != nil || r.SetID != cs.ID {
			t.Errorf("a reading shown 6 days 23:59 ago: %+v, %v", r, err)
		}
	})
}
