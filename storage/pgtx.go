package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgTx is a PostgreSQL write transaction on one connection of the pool.
//
// Each round trip to the server costs nod a socket write, a read and a
// goroutine's wake-up, more CPU than most of nod's statements cost the
// server. So the transaction's BEGIN, and the writes whose answer only
// the transaction's outcome needs (conn.later: the chat's lock, inserts),
// wait, and go out in one pipeline with the next statement that must be
// answered, or with the COMMIT. A failure among them fails that
// statement, or the COMMIT, and so the transaction, as it would have
// failed at the write itself.
type pgTx struct {
	conn    *sql.Conn
	trips   *atomic.Int64 // round trips, counted for tests
	pending pgx.Batch     // BEGIN (until sent), then deferred writes
	// misses are the failures of deferred writes that must affect one
	// row, by their place in pending, for when they affect none.
	misses map[int]error
	// reads are the deferred reads among them, by their place in
	// pending, and what scans their rows once the pipeline answers.
	reads map[int]func(pgx.Rows) error
	begun bool // BEGIN went out
	// err is the first failure of a pipeline that held deferred writes:
	// what the transaction reports, before whatever it caused later.
	err error
}

// beginPG takes a connection for a write transaction; BEGIN waits to go
// out with its first statement.
func (db *core) beginPG(ctx context.Context) (*pgTx, error) {
	c, err := db.wdb.Conn(ctx)
	if err != nil {
		return nil, err
	}
	t := &pgTx{conn: c, trips: &db.counts.trips}
	t.pending.Queue("begin")
	return t, nil
}

// later queues a write to go out with the transaction's next statement.
// A write with a miss (not nil) must affect exactly one row, or fail with
// miss: the server checks, so that a miss fails the transaction there
// even when COMMIT follows in the same round trip.
func (t *pgTx) later(query string, args []any, miss error) {
	if miss != nil {
		if t.misses == nil {
			t.misses = map[int]error{}
		}
		t.misses[len(t.pending.QueuedQueries)] = miss
		query = `WITH w AS (` + query + ` RETURNING 1) SELECT 1 / (CASE COUNT(*) WHEN 1 THEN 1 ELSE 0 END) FROM w`
	}
	t.pending.Queue(query, args...)
}

// guard queues query, a check that divides by zero where it does not
// hold (newCheck), where it stands among the statements that wait: then
// the server fails the transaction there, and the transaction reports
// miss.
func (t *pgTx) guard(query string, args []any, miss error) {
	if t.misses == nil {
		t.misses = map[int]error{}
	}
	t.misses[len(t.pending.QueuedQueries)] = miss
	t.pending.Queue(query, args...)
}

// laterRead queues a read whose rows the transaction needs only once it
// ends: it goes out with the next statement, or the COMMIT, and each
// scans its rows when that pipeline answers.
func (t *pgTx) laterRead(query string, args []any, each func(pgx.Rows) error) {
	if t.reads == nil {
		t.reads = map[int]func(pgx.Rows) error{}
	}
	t.reads[len(t.pending.QueuedQueries)] = each
	t.pending.Queue(query, args...)
}

// deferred reads the outcome of the n statements that waited, in order,
// from br: the first failure ends the reading and is the transaction's.
func (t *pgTx) deferred(br pgx.BatchResults, n int) error {
	for i := range n {
		var err error
		if each := t.reads[i]; each != nil {
			var rows pgx.Rows
			if rows, err = br.Query(); err == nil {
				err = eachRow(rows, each)
			}
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			var pg *pgconn.PgError
			if miss := t.misses[i]; miss != nil && errors.As(err, &pg) && pg.Code == "22012" { // division_by_zero: no row
				err = miss
			}
			if t.err == nil {
				t.err = err
			}
			return err
		}
	}
	return nil
}

// sent clears what waited once it went out.
func (t *pgTx) sent() {
	t.pending, t.misses, t.reads = pgx.Batch{}, nil, nil
	t.begun = true
}

// exec runs query (none: only what waits) after whatever waits, in one
// round trip, and returns the rows query affected.
func (t *pgTx) exec(ctx context.Context, query string, args []any) (int64, error) {
	tag, err := t.run(ctx, query, args)
	return tag.RowsAffected(), err
}

// run is exec, answering the last statement's command tag.
func (t *pgTx) run(ctx context.Context, query string, args []any) (pgconn.CommandTag, error) {
	var last pgconn.CommandTag
	err := t.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if len(t.pending.QueuedQueries) == 0 {
			if query == "" {
				return nil
			}
			t.trips.Add(1)
			var err error
			last, err = pc.Exec(ctx, query, args...)
			return err
		}
		deferred := len(t.pending.QueuedQueries)
		if query != "" {
			t.pending.Queue(query, args...)
		}
		t.trips.Add(1)
		br := pc.SendBatch(ctx, &t.pending)
		err := t.deferred(br, deferred)
		if err == nil && query != "" {
			last, err = br.Exec()
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		t.sent()
		return err
	})
	return last, err
}

// scan runs a query of one row after whatever waits, in one round trip,
// and scans its row into dest as pgx scans (sql.ErrNoRows when none).
func (t *pgTx) scan(ctx context.Context, query string, args []any, dest ...any) error {
	t.trips.Add(1)
	return t.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if len(t.pending.QueuedQueries) == 0 {
			return pc.QueryRow(ctx, query, args...).Scan(dest...)
		}
		deferred := len(t.pending.QueuedQueries)
		t.pending.Queue(query, args...)
		br := pc.SendBatch(ctx, &t.pending)
		err := t.deferred(br, deferred)
		if err == nil {
			err = br.QueryRow().Scan(dest...)
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		t.sent()
		return err
	})
}

// query runs a query of rows after whatever waits, in one round trip,
// and hands its rows to each.
func (t *pgTx) query(ctx context.Context, query string, args []any, each func(pgx.Rows) error) error {
	t.trips.Add(1)
	return t.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if len(t.pending.QueuedQueries) == 0 {
			rows, err := pc.Query(ctx, query, args...)
			if err != nil {
				return err
			}
			return eachRow(rows, each)
		}
		deferred := len(t.pending.QueuedQueries)
		t.pending.Queue(query, args...)
		br := pc.SendBatch(ctx, &t.pending)
		err := t.deferred(br, deferred)
		if err == nil {
			var rows pgx.Rows
			if rows, err = br.Query(); err == nil {
				err = eachRow(rows, each)
			}
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		t.sent()
		return err
	})
}

// eachRow hands rows to each and closes them, with the query's failure.
func eachRow(rows pgx.Rows, each func(pgx.Rows) error) error {
	err := each(rows)
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	return err
}

// flush sends whatever waits, before a query (counted here too).
func (t *pgTx) flush(ctx context.Context) error {
	_, err := t.exec(ctx, "", nil)
	t.trips.Add(1)
	return err
}

// commit ends the transaction. A transaction that sent nothing has
// nothing to end.
func (t *pgTx) commit(ctx context.Context) error {
	if !t.begun && len(t.pending.QueuedQueries) == 1 {
		t.pending = pgx.Batch{}
		return nil
	}
	tag, err := t.run(ctx, "commit", nil)
	if t.err != nil {
		return t.err
	}
	if err == nil && tag.String() != "COMMIT" {
		// A transaction that failed earlier answers COMMIT by rolling
		// back, without an error: the caller hid one.
		return pgx.ErrTxCommitRollback
	}
	return err
}

// close rolls back what is still open and gives the connection back; one
// whose state is unsure is discarded rather than reused.
func (t *pgTx) close(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	t.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if pc.IsClosed() {
			return driver.ErrBadConn
		}
		if pc.PgConn().TxStatus() == 'I' {
			return nil
		}
		if _, err := pc.Exec(ctx, "rollback"); err != nil || pc.PgConn().TxStatus() != 'I' {
			return driver.ErrBadConn
		}
		return nil
	})
	t.conn.Close()
}

// failure is what a transaction function's error becomes: the failure of
// a deferred write first, since fn's own error may only follow from it
// (PostgreSQL refuses every statement after a failed one).
func (t *pgTx) failure(err error) error {
	if t.err == nil || errors.Is(err, t.err) {
		return err
	}
	return fmt.Errorf("%w (then: %w)", t.err, err)
}
