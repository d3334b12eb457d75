package storage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/nodbot/nod"
)

// MigrateDownTo takes the schema back to version v, running the Down
// parts of every later migration: tests of a migration start from the
// shape before it, whatever migrations came after.
func (db *DB) MigrateDownTo(ctx context.Context, v int64) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	return db.withPool(ctx, func() error {
		if _, err := p.DownTo(ctx, v); err != nil {
			return fmt.Errorf("migrate down to %d: %w", v, err)
		}
		return nil
	})
}

// Commits is how many transactions SQLite's writer committed.
func (db *DB) Commits() int64 { return db.w.commits.Load() }

// Queued is how many transactions wait for SQLite's writer.
func (db *DB) Queued() int {
	db.w.mu.Lock()
	defer db.w.mu.Unlock()
	return len(db.w.waiting)
}

// InTx runs fn in a transaction of its own, as the DB's methods run
// theirs, with exec running a statement in it.
func (db *DB) InTx(ctx context.Context, fn func(exec func(query string, args ...any) error) error) error {
	return db.inTx(ctx, func(tx conn) error {
		return fn(func(query string, args ...any) error {
			_, err := tx.ExecContext(ctx, query, args...)
			return err
		})
	})
}

// MaxBatch is the most transactions one commit of SQLite's writer holds.
const MaxBatch = maxBatch

// WriterPragma reads a pragma on SQLite's writer connection.
func (db *DB) WriterPragma(ctx context.Context, name string) (string, error) {
	var v string
	err := db.w.do(ctx, db.core, &call{ctx: ctx, bare: true, fn: func(c conn) error {
		return c.text().QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	}})
	return v, err
}

// EventsPlan is how the database would run Events' statement (on
// PostgreSQL with sequential scans off: its tables here are too small to
// be worth an index otherwise).
func (db *DB) EventsPlan(ctx context.Context) (string, error) {
	return db.queryPlan(ctx, eventsSQL, int64(1), int64(0), int64(0))
}

// TodayPlans is how the database would run TodayList's statements, a
// page of 20 for the page reads, as EventsPlan.
func (db *DB) TodayPlans(ctx context.Context) (count, due, remind string, err error) {
	if count, err = db.queryPlan(ctx, todayCountSQL, int64(1), "2026-03-12"); err != nil {
		return
	}
	if due, err = db.queryPlan(ctx, todayDueSQL+limitSQL(20), int64(1), "2026-03-12"); err != nil {
		return
	}
	remind, err = db.queryPlan(ctx, todayRemindSQL+limitSQL(20), int64(1), int64(0), int64(1))
	return
}

// DoneTodayPlan is EventsPlan for the statement of /today's reminders
// done for the day, or with latest, of get_task's times done lately.
func (db *DB) DoneTodayPlan(ctx context.Context, latest bool) (string, error) {
	if latest {
		return db.queryPlan(ctx, doneLatestSQL, int64(1), int64(0))
	}
	return db.queryPlan(ctx, doneTodaySQL, int64(1), int64(0))
}

// queryPlan is how the database would run stmt with args: SQLite's query plan,
// PostgreSQL's with sequential scans off.
func (db *DB) queryPlan(ctx context.Context, stmt string, args ...any) (string, error) {
	var q textRunner = db.rdb
	explain := "EXPLAIN QUERY PLAN "
	if db.postgres {
		tx, err := db.rdb.BeginTx(ctx, nil)
		if err != nil {
			return "", err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return "", err
		}
		q, explain = tx, "EXPLAIN "
	}
	rows, err := q.QueryContext(ctx, explain+stmt, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		for i := range vals {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			return "", err
		}
		fmt.Fprintln(&plan, *(vals[len(vals)-1].(*any)))
	}
	return plan.String(), rows.Err()
}

// PlainLink is the unkeyed chain link of a, after prev: what anyone with
// the database but not the audit key can compute.
func PlainLink(prev string, a nod.AuditEntry) string { return linkHash(sha256.New(), prev, a) }

// AuditLink reads the stored link of audit row id.
func (db *DB) AuditLink(ctx context.Context, id int64) (string, error) {
	var h string
	err := db.reader().QueryRowContext(ctx, `SELECT hash FROM audit_log WHERE id = $1`, id).Scan(&h)
	return h, err
}

// AddLegacyAudit appends a row as nod wrote rows before migration 00031:
// no salt and no digest, its link over its raw content (keyed when the DB
// has a key).
func (db *DB) AddLegacyAudit(ctx context.Context, a nod.AuditEntry) error {
	return db.inTx(ctx, func(tx conn) error {
		var prev string
		err := tx.QueryRowContext(ctx, `SELECT hash FROM audit_log WHERE chat_id = $1 ORDER BY id DESC LIMIT 1`, a.ChatID).Scan(&prev)
		if err != nil && !noRows(err) {
			return err
		}
		if len(a.Args) == 0 {
			a.Args = []byte("{}")
		}
		link := linkHash(sha256.New(), prev, a)
		if len(db.opts.AuditKey) > 0 {
			link = keyedPrefix + linkHash(hmac.New(sha256.New, db.opts.AuditKey), prev, a)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO audit_log (chat_id, user_id, tool, args, outcome, user_confirmed, verdict, error, reason, duration_us, created_at, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
			a.ChatID, a.UserID, a.Tool, string(a.Args), string(a.Outcome), boolInt(a.UserConfirmed), a.Verdict, a.Error, a.Reason, a.Duration.Microseconds(), micros(a.At), prev, link)
		return err
	})
}

// TestTx is a write transaction as storage's own code holds it.
type TestTx struct{ c conn }

// Later queues a write that waits for the transaction's next statement.
func (t TestTx) Later(ctx context.Context, query string, args ...any) error {
	return t.c.later(ctx, query, args...)
}

// Exec runs a write now and returns the rows it affected.
func (t TestTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := t.c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Count runs a query answering one number.
func (t TestTx) Count(ctx context.Context, query string, args ...any) (n int64, err error) {
	err = t.c.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// One reads the one number a query answers, as the audit chain's head
// is read.
func (t TestTx) One(ctx context.Context, query string, args ...any) (n int64, err error) {
	err = t.c.scanOne(ctx, &n, query, args...)
	return n, err
}

// LaterOne queues a write that must affect one row, or fail with miss,
// as a confirmation's conditional writes wait.
func (t TestTx) LaterOne(ctx context.Context, miss error, query string, args ...any) error {
	return t.c.laterOne(ctx, miss, query, args...)
}

// Rows reads the first column of a query's rows, as a change set is read
// in a decision's transaction.
func (t TestTx) Rows(ctx context.Context, query string, args ...any) (out []int64, err error) {
	err = t.c.queryRows(ctx, query, args, func(rows scanner) error {
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				return err
			}
			out = append(out, n)
		}
		return rows.Err()
	})
	return out, err
}

// InTestTx runs fn in a write transaction, as storage's own writes run.
func (db *DB) InTestTx(ctx context.Context, fn func(TestTx) error) error {
	return db.inTx(ctx, func(c conn) error { return fn(TestTx{c}) })
}

// FocusOneStatement reads FocusTasks' page with focusSQL, as PostgreSQL
// does, whatever the database: what SQLite's two statements must agree
// with.
func (db *DB) FocusOneStatement(ctx context.Context, chatID nod.ChatID, today string, limit int) (nod.TaskPage, error) {
	var page nod.TaskPage
	if err := db.tasks.readOne(ctx, focusRead(chatID, today, limit, &page)); err != nil {
		return page, err
	}
	return page, loadChecklists(ctx, db.tasks.reader(), page.Tasks)
}
