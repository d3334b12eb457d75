package storage

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nodbot/nod"
)

// conn is where a statement runs: a pool, a PostgreSQL transaction, or
// SQLite's writer connection held by the caller.
//
// On SQLite every statement runs prepared, from caches kept for the DB's
// life: modernc would otherwise parse and plan the SQL text again on every
// call. PostgreSQL's driver (pgx) caches prepared statements per
// connection itself, so there the text goes straight through.
type conn struct {
	db   *core
	pool *sql.DB // PostgreSQL's pool or SQLite's read pool
	tx   *sql.Tx // a PostgreSQL read transaction
	pg   *pgTx   // a PostgreSQL write transaction
	w    *writer // SQLite's writer, held
	// memo is what a transaction knows of its own writes; nil outside one.
	memo *txMemo
}

// txMemo spares a transaction statements whose answer it wrote itself.
// Nobody else writes the same rows before it ends: SQLite's writer is
// exclusive, and on PostgreSQL the chat's advisory lock is held to the end.
type txMemo struct {
	// auditHead is the hash of the chat's latest audit row, once this
	// transaction read it under the chat's lock or inserted one.
	auditHead map[nod.ChatID]string
	// touched is when the transaction last stamped a task's updated_at.
	touched map[nod.TaskID]time.Time
	// locked holds the chats whose lock the transaction took.
	locked map[nod.ChatID]bool
	// read holds the tasks the transaction read while nobody else could
	// write them (readTask): a write conditioned on what it read can
	// only miss through a race, and need not be answered at once.
	read map[nod.TaskID]bool
	// refreshes are the sets the transaction owed a refresh: noted once
	// it commits (OwedRefreshes).
	refreshes []owedRef
	// flying holds the chats whose audit the transaction may write, begun
	// with heads and ended when it ends.
	flying map[nod.ChatID]bool
}

func newTxMemo() *txMemo {
	return &txMemo{auditHead: map[nod.ChatID]string{}, touched: map[nod.TaskID]time.Time{}, locked: map[nod.ChatID]bool{}, read: map[nod.TaskID]bool{}}
}

// reader runs reads outside a transaction.
func (db *core) reader() conn { return conn{db: db, pool: db.rdb} }

// prepared returns query prepared where c runs it, or nil where it runs
// as text (PostgreSQL, or a read whose preparing failed: the text then
// reports the error).
func (c conn) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	c.db.counts.stmts.Add(1)
	if c.db.postgres && c.pg == nil {
		c.db.counts.trips.Add(1) // a write transaction counts its own
	}
	switch {
	case c.w != nil:
		return c.w.stmt(ctx, query)
	case c.tx != nil || c.pg != nil || c.db.postgres:
		return nil, nil
	}
	return c.db.stmts.get(ctx, c.pool, query), nil
}

// textRunner is what *sql.DB, *sql.Tx and *sql.Conn share.
type textRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// text is where c runs a statement unprepared.
func (c conn) text() textRunner {
	switch {
	case c.w != nil:
		return c.w.conn
	case c.tx != nil:
		return c.tx
	case c.pg != nil:
		return c.pg.conn
	}
	return c.pool
}

// later runs a write whose answer the caller needs only as the
// transaction's outcome. In a PostgreSQL write transaction it goes out
// with the transaction's next statement, or its COMMIT, in one round trip
// (pgTx); its failure fails that statement and the transaction.
func (c conn) later(ctx context.Context, query string, args ...any) error {
	if c.pg == nil {
		_, err := c.ExecContext(ctx, query, args...)
		return err
	}
	c.db.counts.stmts.Add(1)
	c.pg.later(query, args, nil)
	return nil
}

// laterOne is later for a write that must affect exactly one row, and
// fails with miss when it affects none: on PostgreSQL once it went out,
// failing the transaction there, as the write's own failure would.
func (c conn) laterOne(ctx context.Context, miss error, query string, args ...any) error {
	if c.pg == nil {
		res, err := c.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return cmp.Or(err, miss)
		}
		return nil
	}
	c.db.counts.stmts.Add(1)
	c.pg.later(query, args, miss)
	return nil
}

// bound is the context a statement runs under. On SQLite a statement
// takes microseconds, and a context that can end costs it two goroutines
// (modernc's interrupt watch, and database/sql's watch over the rows), a
// good part of a short statement: there it starts only while ctx is live
// and then runs to its end. PostgreSQL's statements can wait on locks, and
// keep ctx.
func (c conn) bound(ctx context.Context) (context.Context, error) {
	if c.db.postgres {
		return ctx, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// newCheck returns the statement that checks cond, a boolean SQL
// expression, in a PostgreSQL write transaction (conn.guard): it divides
// by zero where cond does not hold. Built once, as its text is long and a
// turn checks it every time.
func newCheck(cond string) string {
	return `SELECT 1 / (CASE WHEN ` + cond + ` THEN 1 ELSE 0 END)`
}

// guard queues check (newCheck) over args in a PostgreSQL write
// transaction, where it stands among the statements that wait: where it
// does not hold, the server fails the transaction there, so that no write
// after it in the same round trip is made, and the transaction reports
// miss. Only openAndSave checks this way: on SQLite a turn's start reads
// before it writes.
func (q conn) guard(miss error, check string, args ...any) {
	q.db.counts.stmts.Add(1)
	q.pg.guard(check, args, miss)
}

// scanOne reads the one value a query answers into dest (sql.ErrNoRows
// when it answers none). In a PostgreSQL write transaction the query goes
// out with the writes that wait (pgTx.scan).
func (c conn) scanOne(ctx context.Context, dest any, query string, args ...any) error {
	if c.pg == nil {
		return c.QueryRowContext(ctx, query, args...).Scan(dest)
	}
	c.db.counts.stmts.Add(1)
	return c.pg.scan(ctx, query, args, dest)
}

// readLater runs a read whose rows the caller needs only once the
// transaction ends. In a PostgreSQL write transaction it goes out with
// the transaction's next statement, or its COMMIT, in one round trip,
// and each scans its rows then; elsewhere it runs at once.
func (c conn) readLater(ctx context.Context, query string, args []any, each func(rows scanner) error) error {
	if c.pg != nil {
		c.db.counts.stmts.Add(1)
		c.pg.laterRead(query, args, func(rows pgx.Rows) error { return each(rows) })
		return nil
	}
	return c.queryRows(ctx, query, args, each)
}

// scanner is what *sql.Rows and pgx.Rows share.
type scanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// queryRows runs a query of rows and hands them to each. In a PostgreSQL
// write transaction the query goes out with the writes that wait, in one
// round trip (pgTx.query), and each scans as pgx scans.
func (c conn) queryRows(ctx context.Context, query string, args []any, each func(rows scanner) error) error {
	if c.pg != nil {
		c.db.counts.stmts.Add(1)
		return c.pg.query(ctx, query, args, func(rows pgx.Rows) error { return each(rows) })
	}
	rows, err := c.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return each(rows)
}

func (c conn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx, err := c.bound(ctx)
	if err != nil {
		return nil, err
	}
	st, err := c.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return st.ExecContext(ctx, args...)
	}
	if c.pg != nil {
		n, err := c.pg.exec(ctx, query, args)
		return driver.RowsAffected(n), err
	}
	return c.text().ExecContext(ctx, query, args...)
}

func (c conn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, err := c.bound(ctx)
	if err != nil {
		return nil, err
	}
	st, err := c.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return st.QueryContext(ctx, args...)
	}
	if c.pg != nil {
		if err := c.pg.flush(ctx); err != nil {
			return nil, err
		}
	}
	return c.text().QueryContext(ctx, query, args...)
}

func (c conn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	bound, err := c.bound(ctx)
	if err != nil {
		return c.text().QueryRowContext(ctx, query, args...) // carries ctx's error
	}
	if st, err := c.prepared(bound, query); st != nil && err == nil {
		return st.QueryRowContext(bound, args...)
	}
	if c.pg != nil {
		// A failed flush leaves the transaction refusing statements: the
		// row carries that, and the transaction reports the failure itself.
		c.pg.flush(bound)
	}
	return c.text().QueryRowContext(bound, query, args...) // unprepared: or to carry the error
}

// stmtCache keeps the read pool's prepared statements by their text.
// database/sql prepares a Stmt again on each connection it runs on, once.
type stmtCache struct {
	m sync.Map // query → *sql.Stmt
}

// get returns query prepared on pool, or nil when preparing failed.
func (c *stmtCache) get(ctx context.Context, pool *sql.DB, query string) *sql.Stmt {
	if st, ok := c.m.Load(query); ok {
		return st.(*sql.Stmt)
	}
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if old, loaded := c.m.LoadOrStore(query, st); loaded {
		st.Close()
		return old.(*sql.Stmt)
	}
	return st
}

func (c *stmtCache) close() {
	c.m.Range(func(k, v any) bool {
		v.(*sql.Stmt).Close()
		c.m.Delete(k)
		return true
	})
}

// writer is SQLite's one writer connection. Holding it is holding the
// database's write lock in this process: transactions queue for it here,
// cheaply, instead of on SQLite's busy_timeout, and those that queued
// together commit together (batch.go). Statements are prepared on it once
// and kept.
type writer struct {
	pool  *sql.DB
	sem   chan struct{} // one holder at a time
	conn  *sql.Conn     // while held; taken from pool on first use
	stmts map[string]*sql.Stmt

	mu      sync.Mutex
	waiting []*call // queued for the next holder to run
	commits atomic.Int64
}

func newWriter(pool *sql.DB) *writer {
	return &writer{pool: pool, sem: make(chan struct{}, 1), stmts: map[string]*sql.Stmt{}}
}

// release gives the writer back.
func (w *writer) release() { <-w.sem }

// stmt returns query prepared on the writer connection; w is held.
func (w *writer) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, err := w.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	w.stmts[query] = st
	return st, nil
}

// reset discards the connection after an error that may have left it
// in a transaction, so that the next holder starts clean; w is held.
func (w *writer) reset() { w.drop(true) }

// drop gives the connection back to the pool (or discards it) with its
// statements; w is held.
func (w *writer) drop(discard bool) {
	for q, st := range w.stmts {
		st.Close()
		delete(w.stmts, q)
	}
	if w.conn != nil {
		if discard {
			w.conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		w.conn.Close()
		w.conn = nil
	}
}

// lend runs f with the writer's connection back in its pool, for what
// needs the *sql.DB itself (migrations, a test's raw statements).
func (w *writer) lend(ctx context.Context, f func() error) error {
	select {
	case w.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer w.release()
	w.drop(false)
	return f()
}

// exec runs one write outside a transaction, as its own.
func (db *core) exec(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	db.counts.txs.Add(1)
	if db.postgres {
		return db.reader().ExecContext(ctx, query, args...)
	}
	err = db.w.do(ctx, db, &call{ctx: ctx, bare: true, fn: func(c conn) (err error) {
		res, err = c.ExecContext(ctx, query, args...)
		return err
	}})
	return res, err
}

// limitSQL is a LIMIT clause with n written in: SQLite plans a bound
// LIMIT for its value and prepares the statement again whenever the value
// changes, which would undo the statement cache.
func limitSQL(n int) string { return " LIMIT " + strconv.Itoa(n) }

// params is n parameters from $first on, comma-separated: "$2,$3,$4".
func params(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(first + i))
	}
	return b.String()
}

// counts are the statements and transactions the DB ran, for tests that
// pin how much work an operation does.
type counts struct {
	stmts, txs atomic.Int64
	trips      atomic.Int64 // PostgreSQL's round trips
}

// Work returns how many statements and write transactions (a write
// outside a transaction counts as one) the DB has run since it opened.
// BEGIN and COMMIT are not counted as statements.
func (db *DB) Work() (statements, transactions int64) {
	return db.counts.stmts.Load(), db.counts.txs.Load()
}

// RoundTrips returns how many round trips to PostgreSQL the DB's
// statements took since it opened, a write transaction's BEGIN and
// COMMIT included (a read transaction's not); none on SQLite.
func (db *DB) RoundTrips() int64 { return db.counts.trips.Load() }
