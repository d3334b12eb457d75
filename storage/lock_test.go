package storage_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// Every transaction that writes a chat's change sets takes the chat's
// lock before any row lock, so on PostgreSQL a revision or re-proposal
// racing confirmations neither deadlocks nor is retried for one.
// (SQLite runs one writer at a time: nothing to race there.)
func TestLockOrderUnderRaces(t *testing.T) {
	t.Parallel()
	if !strings.Contains(strings.Join(storagetest.Dialects(t), " "), "postgres") {
		t.Skip("PostgreSQL is not available")
	}
	logs := &fixtures.LogBuffer{}
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storage.New(storage.Options{DSN: storagetest.DSN(t, "postgres")}, clock.Now, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err := db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	seedT1(t, db)
	ctx := context.Background()
	race := func(fns ...func() error) {
		t.Helper()
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, len(fns))
		for i, fn := range fns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = fn()
			}()
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			if err != nil && !errors.Is(err, nod.ErrDecided) {
				t.Errorf("racing writers: %v", err)
			}
		}
	}
	revised := func(p nod.Priority) nod.ChangeItem {
		return nod.ChangeItem{Tool: "set_task_priority", TaskID: "T1", Args: []byte(`{"task_id":"T1","priority":"` + string(p) + `"}`),
			Summary: "Set priority to " + string(p), Field: nod.FieldPriority, Before: "P3", After: string(p)}
	}
	// A confirmation that always changes the priority, whatever it is now.
	flipPriority := func(cur *nod.Task) (nod.Task, error) {
		cur.Priority = map[nod.Priority]nod.Priority{nod.P1: nod.P2}[cur.Priority]
		if cur.Priority == "" {
			cur.Priority = nod.P1
		}
		return *cur, nil
	}
	for range 15 {
		cs := proposeCS(t, db)
		race(
			func() error {
				_, err := db.ChangeSets().ReviseItem(ctx, chat, cs.ID, 1, 42, revised(nod.P0))
				return err
			},
			func() error { _, _, err := confirmItem(ctx, db, chat, cs.ID, 1, 42, flipPriority); return err },
			func() error { _, _, err := confirmItem(ctx, db, chat, cs.ID, 2, 42, flipPriority); return err },
			func() error {
				_, err := db.ChangeSets().ReviseItem(ctx, chat, cs.ID, 2, 42, revised(nod.P2))
				return err
			},
		)
	}
	// Re-proposals of an expired set, beside a confirmation in a live one.
	var expired []nod.ChangeSet
	for range 10 {
		expired = append(expired, proposeCS(t, db))
	}
	clock.Advance(8 * 24 * time.Hour)
	if _, err := db.ChangeSets().ExpireSets(ctx, clock.Now()); err != nil {
		t.Fatal(err)
	}
	for _, old := range expired {
		live := proposeCS(t, db)
		items := []nod.ChangeItem{revised(nod.P0)}
		race(
			func() error { _, err := db.ChangeSets().Repropose(ctx, chat, old.ID, 42, items); return err },
			func() error { _, err := db.ChangeSets().Repropose(ctx, chat, old.ID, 42, items); return err },
			func() error { _, _, err := confirmItem(ctx, db, chat, live.ID, 1, 42, flipPriority); return err },
			func() error {
				_, err := db.ChangeSets().ReviseItem(ctx, chat, live.ID, 2, 42, revised(nod.P2))
				return err
			},
		)
	}
	if n := strings.Count(logs.String(), "transaction retried"); n > 0 {
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "transaction retried") {
				t.Errorf("%d transactions retried; the first: %s", n, line)
				break
			}
		}
	}
}
