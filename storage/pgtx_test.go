package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// pipeDB is a PostgreSQL DB with a scratch table of its own.
func pipeDB(t *testing.T) *storage.DB {
	t.Helper()
	if !slices.Contains(storagetest.Dialects(t), "postgres") {
		t.Skip("PostgreSQL is not available")
	}
	db := storagetest.Open(t, "postgres", fixtures.NewClock(fixtures.DefaultNow).Now)
	storagetest.Exec(t, db.DSN(), `CREATE TABLE pipe (k INT PRIMARY KEY)`)
	return db
}

func pipeRows(t *testing.T, db *storage.DB) (n int64) {
	t.Helper()
	err := db.InTestTx(t.Context(), func(tx storage.TestTx) (err error) {
		n, err = tx.Count(t.Context(), `SELECT COUNT(*) FROM pipe`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func pgCode(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	return ""
}

// On PostgreSQL a write transaction's BEGIN and the writes whose answer
// it does not need go out with its next statement, or its COMMIT: the
// chat's lock and a turn's inserts cost one round trip, not one each.
func TestWritesWaitForTheNextStatement(t *testing.T) {
	t.Parallel()
	db := pipeDB(t)
	ctx := t.Context()
	trips := func(fn func(storage.TestTx) error) int64 {
		t.Helper()
		before := db.RoundTrips()
		if err := db.InTestTx(ctx, fn); err != nil {
			t.Fatal(err)
		}
		return db.RoundTrips() - before
	}
	if n := trips(func(tx storage.TestTx) error {
		for _, q := range []string{`SELECT pg_advisory_xact_lock(7)`, `INSERT INTO pipe VALUES (1)`, `INSERT INTO pipe VALUES (2)`} {
			if err := tx.Later(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}); n != 1 {
		t.Errorf("BEGIN, a lock, two inserts and COMMIT took %d round trips, want 1", n)
	}
	if got := pipeRows(t, db); got != 2 {
		t.Errorf("%d rows committed, want 2", got)
	}
	// A statement that answers goes out with what waits before it, and
	// answers for itself; a read sees the writes before it.
	if n := trips(func(tx storage.TestTx) error {
		if err := tx.Later(ctx, `INSERT INTO pipe VALUES (3)`); err != nil {
			return err
		}
		if n, err := tx.Exec(ctx, `DELETE FROM pipe WHERE k < 3`); n != 2 || err != nil {
			t.Errorf("the delete after a waiting insert affected %d rows (%v), want 2", n, err)
		}
		if err := tx.Later(ctx, `INSERT INTO pipe VALUES (4)`); err != nil {
			return err
		}
		if n, err := tx.Count(ctx, `SELECT COUNT(*) FROM pipe`); n != 2 || err != nil {
			t.Errorf("the transaction read %d rows (%v), want 2", n, err)
		}
		return tx.Later(ctx, `INSERT INTO pipe VALUES (5)`)
	}); n != 4 {
		t.Errorf("insert+delete, insert, read, insert+COMMIT took %d round trips, want 4", n)
	}
	if got := pipeRows(t, db); got != 3 {
		t.Errorf("%d rows committed, want 3", got)
	}
	// A one-value read goes out with what waits before it.
	if n := trips(func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (6)`)
		if n, err := tx.One(ctx, `SELECT MAX(k) FROM pipe`); n != 6 || err != nil {
			t.Errorf("the read after a waiting insert = %d (%v), want 6", n, err)
		}
		if _, err := tx.One(ctx, `SELECT k FROM pipe WHERE k > 6`); !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("a read of no row = %v, want sql.ErrNoRows", err)
		}
		return tx.Later(ctx, `INSERT INTO pipe VALUES (7)`)
	}); n != 3 {
		t.Errorf("insert+read, read, insert+COMMIT took %d round trips, want 3", n)
	}
	// So does a read of rows, and alone it takes one round trip too.
	if n := trips(func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (8)`)
		if ks, err := tx.Rows(ctx, `SELECT k FROM pipe WHERE k > 5 ORDER BY k`); !slices.Equal(ks, []int64{6, 7, 8}) || err != nil {
			t.Errorf("the rows read after a waiting insert = %v (%v), want 6, 7, 8", ks, err)
		}
		if ks, err := tx.Rows(ctx, `SELECT k FROM pipe WHERE k > 8`); len(ks) != 0 || err != nil {
			t.Errorf("a read of no rows = %v (%v)", ks, err)
		}
		return tx.Later(ctx, `INSERT INTO pipe VALUES (9)`)
	}); n != 3 {
		t.Errorf("insert+rows, rows, insert+COMMIT took %d round trips, want 3", n)
	}
	if n := trips(func(storage.TestTx) error { return nil }); n != 0 {
		t.Errorf("a transaction that ran nothing took %d round trips", n)
	}
}

// A waiting write that must affect one row goes out with what follows
// it; one that affects none fails the transaction there with its own
// error, as a failure of the write would, and nothing of it is committed,
// COMMIT in the same round trip or not.
func TestWaitingWriteChecked(t *testing.T) {
	t.Parallel()
	db := pipeDB(t)
	ctx := t.Context()
	errMissed := errors.New("missed")
	if err := db.InTestTx(ctx, func(tx storage.TestTx) error { return tx.Later(ctx, `INSERT INTO pipe VALUES (1)`) }); err != nil {
		t.Fatal(err)
	}
	before := db.RoundTrips()
	err := db.InTestTx(ctx, func(tx storage.TestTx) error {
		if err := tx.LaterOne(ctx, errMissed, `UPDATE pipe SET k = 2 WHERE k = 1`); err != nil {
			return err
		}
		return tx.LaterOne(ctx, errMissed, `INSERT INTO pipe VALUES (3)`)
	})
	if n := db.RoundTrips() - before; err != nil || n != 1 {
		t.Errorf("two writes of one row each: %v in %d round trips, want none in 1", err, n)
	}
	atCommit := db.InTestTx(ctx, func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (4)`)
		return tx.LaterOne(ctx, errMissed, `UPDATE pipe SET k = 5 WHERE k = 1`)
	})
	if !errors.Is(atCommit, errMissed) {
		t.Errorf("a write of no row before COMMIT = %v, want its miss", atCommit)
	}
	atRead := db.InTestTx(ctx, func(tx storage.TestTx) error {
		tx.LaterOne(ctx, errMissed, `DELETE FROM pipe WHERE k > 100`)
		tx.Later(ctx, `INSERT INTO pipe VALUES (6)`)
		_, err := tx.Rows(ctx, `SELECT k FROM pipe`)
		return err
	})
	if !errors.Is(atRead, errMissed) {
		t.Errorf("a write of no row before a read = %v, want its miss", atRead)
	}
	if got := pipeRows(t, db); got != 2 {
		t.Errorf("%d rows after the missed writes, want 2", got)
	}
}

// A waiting write that fails fails its transaction whole, whether the
// failure shows at a later statement or at COMMIT, and the transaction
// reports that failure (a serialisation failure is still retried); the
// connection goes back to the pool clean.
func TestWaitingWriteFailsItsTransaction(t *testing.T) {
	t.Parallel()
	db := pipeDB(t)
	ctx := t.Context()
	if err := db.InTestTx(ctx, func(tx storage.TestTx) error { return tx.Later(ctx, `INSERT INTO pipe VALUES (1)`) }); err != nil {
		t.Fatal(err)
	}
	atCommit := db.InTestTx(ctx, func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (2)`)
		tx.Later(ctx, `INSERT INTO pipe VALUES (1)`)
		return nil
	})
	if pgCode(atCommit) != "23505" {
		t.Errorf("a duplicate key waiting for COMMIT = %v, want a unique violation", atCommit)
	}
	atRead := db.InTestTx(ctx, func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (3)`)
		tx.Later(ctx, `INSERT INTO pipe VALUES (1)`)
		_, err := tx.Count(ctx, `SELECT COUNT(*) FROM pipe`)
		return err
	})
	if pgCode(atRead) != "23505" {
		t.Errorf("a duplicate key waiting for a read = %v, want the unique violation first", atRead)
	}
	hidden := db.InTestTx(ctx, func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (4)`)
		tx.Exec(ctx, `INSERT INTO pipe VALUES (1)`) // its failure not returned
		return nil
	})
	if hidden == nil {
		t.Errorf("a transaction that failed committed without an error")
	}
	atOne := db.InTestTx(ctx, func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (1)`)
		_, err := tx.One(ctx, `SELECT MAX(k) FROM pipe`)
		return err
	})
	if pgCode(atOne) != "23505" {
		t.Errorf("a duplicate key waiting for a one-value read = %v, want the unique violation", atOne)
	}
	atRows := db.InTestTx(ctx, func(tx storage.TestTx) error {
		tx.Later(ctx, `INSERT INTO pipe VALUES (1)`)
		_, err := tx.Rows(ctx, `SELECT k FROM pipe`)
		return err
	})
	if pgCode(atRows) != "23505" {
		t.Errorf("a duplicate key waiting for a read of rows = %v, want the unique violation", atRows)
	}
	if got := pipeRows(t, db); got != 1 {
		t.Errorf("%d rows after five failed transactions, want 1", got)
	}
	runs := 0
	err := db.InTestTx(ctx, func(tx storage.TestTx) error {
		runs++
		return tx.Later(ctx, `DO $$ BEGIN RAISE EXCEPTION 'lost' USING ERRCODE = '40001'; END $$`)
	})
	if pgCode(err) != "40001" || runs < 2 {
		t.Errorf("a waiting serialisation failure = %v after %d runs, want it retried", err, runs)
	}
	// Every connection of the pool is usable afterwards.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := range 30 {
		if err := db.InTestTx(ctx, func(tx storage.TestTx) error {
			return tx.Later(ctx, `INSERT INTO pipe VALUES ($1)`, 10+i)
		}); err != nil {
			t.Fatalf("transaction %d after the failures: %v", i, err)
		}
	}
}
