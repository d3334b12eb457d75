package storage_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// holdWriter keeps SQLite's writer busy in a transaction until the
// returned func is called, which waits for that transaction's end.
func holdWriter(t *testing.T, db *storage.DB) (release func()) {
	t.Helper()
	started, stop, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- db.InTx(context.Background(), func(func(string, ...any) error) error {
			close(started)
			<-stop
			return nil
		})
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the holding transaction: %v", err)
	}
	return func() {
		close(stop)
		if err := <-done; err != nil {
			t.Errorf("the holding transaction: %v", err)
		}
	}
}

// waitQueued waits until n transactions wait for the writer.
func waitQueued(t *testing.T, db *storage.DB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for db.Queued() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d transactions queued, want %d", db.Queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// marked lists which of the update ids were stored (marking them, if
// they were not).
func marked(t *testing.T, db *storage.DB, ids ...int64) map[int64]bool {
	t.Helper()
	out := map[int64]bool{}
	for _, id := range ids {
		fresh, err := db.Outbox().MarkUpdate(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out[id] = !fresh
	}
	return out
}

func insertUpdate(id int64) string {
	return fmt.Sprintf(`INSERT INTO processed_updates (update_id, created_at) VALUES (%d, 0)`, id)
}

// Writes that queue while another holds SQLite's writer commit together,
// once it is free: one COMMIT for all of them, each with its own outcome.
func TestQueuedWritesCommitTogether(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(t, "sqlite", clock.Now)
	ctx := context.Background()
	release := holdWriter(t, db)
	before := db.Commits()
	const n = 12
	var wg sync.WaitGroup
	fresh := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			if i%2 == 0 { // a single statement
				fresh[i], errs[i] = db.Outbox().MarkUpdate(ctx, int64(i))
				return
			}
			fresh[i] = true
			errs[i] = db.InTx(ctx, func(exec func(string, ...any) error) error { return exec(insertUpdate(int64(i))) })
		})
	}
	waitQueued(t, db, n)
	release()
	wg.Wait()
	for i := range n {
		if errs[i] != nil || !fresh[i] {
			t.Errorf("write %d: %v, new %v", i, errs[i], fresh[i])
		}
	}
	if got := db.Commits() - before; got != 2 {
		t.Errorf("%d commits, want 2: the holder's and the queue's", got)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	for id, ok := range marked(t, db, ids...) {
		if !ok {
			t.Errorf("update %d not stored", id)
		}
	}
	// More than a batch holds: every write is served, a batch at a time.
	release = holdWriter(t, db)
	before = db.Commits()
	more := 2*storage.MaxBatch + 3
	for i := range more {
		wg.Go(func() {
			if _, err := db.Outbox().MarkUpdate(ctx, int64(1000+i)); err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		})
	}
	waitQueued(t, db, more)
	release()
	wg.Wait()
	if got := db.Commits() - before; got != 4 {
		t.Errorf("%d writes made %d commits, want 4: the holder's and three batches", more, got)
	}
	// A write that finds the writer free does not wait for company.
	before = db.Commits()
	if _, err := db.Outbox().MarkUpdate(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if got := db.Commits() - before; got != 1 {
		t.Errorf("a lone write made %d commits, want 1", got)
	}
}

// In a batch, every transaction gets the outcome it would get alone: an
// error or a panic takes back its own writes only; one that ends the
// shared transaction, or a COMMIT that fails, does not cost the others
// theirs.
func TestBatchKeepsEachOutcome(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(t, "sqlite", clock.Now)
	ctx := context.Background()
	errRefused := errors.New("refused")
	type write struct {
		name string
		fn   func(exec func(string, ...any) error) error
		kept []int64 // ids stored once it ran
		lost []int64 // ids it wrote that must not stay
		err  bool
	}
	ins := func(id int64) func(exec func(string, ...any) error) error {
		return func(exec func(string, ...any) error) error { return exec(insertUpdate(id)) }
	}
	batches := [][]write{{
		{name: "fine", kept: []int64{1}, fn: ins(1)},
		{name: "fails", lost: []int64{2}, err: true, fn: func(exec func(string, ...any) error) error {
			if err := exec(insertUpdate(2)); err != nil {
				return err
			}
			return errRefused
		}},
		{name: "panics", lost: []int64{3}, err: true, fn: func(exec func(string, ...any) error) error {
			if err := exec(insertUpdate(3)); err != nil {
				return err
			}
			panic("broken")
		}},
		{name: "also fine", kept: []int64{4}, fn: ins(4)},
		// A foreign key checked at COMMIT: the batch's COMMIT fails.
		{name: "fails at commit", lost: []int64{5}, err: true, fn: func(exec func(string, ...any) error) error {
			if err := exec(insertUpdate(5)); err != nil {
				return err
			}
			if err := exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
				return err
			}
			return exec(`INSERT INTO checklist_items (id, task_id, position, title) VALUES ('c', 'no such task', 0, 'x')`)
		}},
		{name: "after it", kept: []int64{6}, fn: ins(6)},
	}, {
		{name: "before it", kept: []int64{7}, fn: ins(7)},
		// Ends the shared transaction under the others.
		{name: "rolls back", lost: []int64{8}, err: true, fn: func(exec func(string, ...any) error) error {
			if err := exec(insertUpdate(8)); err != nil {
				return err
			}
			return exec(`ROLLBACK`)
		}},
		{name: "last", kept: []int64{9}, fn: ins(9)},
	}}
	for _, writes := range batches {
		release := holdWriter(t, db)
		var wg sync.WaitGroup
		errs := make([]error, len(writes))
		panics := make([]any, len(writes))
		for i, w := range writes {
			wg.Go(func() {
				defer func() { panics[i] = recover() }()
				errs[i] = db.InTx(ctx, w.fn)
			})
			waitQueued(t, db, i+1) // in this order
		}
		release()
		wg.Wait()
		for i, w := range writes {
			switch {
			case w.name == "panics":
				if panics[i] != "broken" {
					t.Errorf("%s: its caller got panic %v, want broken", w.name, panics[i])
				}
			case panics[i] != nil:
				t.Errorf("%s: panic %v", w.name, panics[i])
			case w.err && errs[i] == nil:
				t.Errorf("%s: no error", w.name)
			case !w.err && errs[i] != nil:
				t.Errorf("%s: %v", w.name, errs[i])
			}
			if w.name == "fails" && !errors.Is(errs[i], errRefused) {
				t.Errorf("%s: %v, want its own error", w.name, errs[i])
			}
			for id, ok := range marked(t, db, w.kept...) {
				if !ok {
					t.Errorf("%s: update %d lost", w.name, id)
				}
			}
			for id, ok := range marked(t, db, w.lost...) {
				if ok {
					t.Errorf("%s: update %d kept", w.name, id)
				}
			}
		}
	}
	// The writer is sound afterwards.
	if _, err := db.Outbox().MarkUpdate(ctx, 8); err != nil {
		t.Fatal(err)
	}
}

// A transaction whose caller gave up while it queued does not run.
func TestQueuedWriteWithdrawn(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(t, "sqlite", clock.Now)
	release := holdWriter(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := db.Outbox().MarkUpdate(ctx, 1); done <- err }()
	waitQueued(t, db, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if db.Queued() != 0 {
		t.Errorf("%d still queued", db.Queued())
	}
	release()
	if marked(t, db, 1)[1] {
		t.Error("the withdrawn write ran")
	}
}

// A context that has ended starts no statement, on either database: on
// SQLite, where a statement once started runs to its end, that is the
// whole of cancelling one.
func TestEndedContextStartsNothing(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, _ *fixtures.Clock) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := db.Conversation().History(ctx, nod.Topic{ChatID: chat}, nod.Window{Keep: 10}); !errors.Is(err, context.Canceled) {
			t.Errorf("History: %v, want context.Canceled", err)
		}
		if _, err := db.Settings().ChatSettings(ctx, chat, 42); !errors.Is(err, context.Canceled) {
			t.Errorf("ChatSettings: %v, want context.Canceled", err)
		}
		err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: nod.Topic{ChatID: chat}, Messages: []nod.ChatMessage{{Role: nod.RoleUser, Content: "hi"}}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("SaveTurn: %v, want context.Canceled", err)
		}
		if h, err := db.Conversation().History(t.Context(), nod.Topic{ChatID: chat}, nod.Window{Keep: 10}); err != nil || len(h) != 0 {
			t.Errorf("stored after its context ended: %v, %v", h, err)
		}
	})
}

// SQLite's writer runs with the settings its speed and safety rest on:
// WAL, synced at checkpoints, foreign keys, and temporary storage (the
// journal a batch's savepoints keep) in memory, not spilled to files.
func TestWriterPragmas(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	db := storagetest.Open(t, "sqlite", clock.Now)
	for name, want := range map[string]string{"journal_mode": "wal", "synchronous": "1", "foreign_keys": "1", "temp_store": "2"} {
		if got, err := db.WriterPragma(t.Context(), name); err != nil || got != want {
			t.Errorf("PRAGMA %s = %q, %v; want %q", name, got, err, want)
		}
	}
}
