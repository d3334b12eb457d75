package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/nodbot/nod"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations
var migrations embed.FS

// Options configure a DB.
type Options struct {
	// DSN is a SQLite file path or a postgres:// URL.
	DSN string
	// UndoWindow is how long an applied change stays undoable.
	UndoWindow time.Duration
	// ChangeSetTTL is how long a new change set stays open.
	ChangeSetTTL time.Duration
	// AuditKey, if set, keys the audit chain (HMAC-SHA256) and signs its
	// heads: without the key nobody can write rows, or a head, that verify.
	AuditKey []byte
}

// DB is nod's storage. It is safe for concurrent use.
type DB struct {
	opts     Options
	instance string    // this process, as the outbox names its writer
	opened   time.Time // when this process opened the database
	now      func() time.Time
	log      *slog.Logger
	db       *sql.DB
	postgres bool
}

// New returns a DB that is not yet open. now is the clock for every
// timestamp the DB writes.
func New(opts Options, now func() time.Time, log *slog.Logger) *DB {
	if opts.UndoWindow <= 0 {
		opts.UndoWindow = 24 * time.Hour
	}
	if opts.ChangeSetTTL <= 0 {
		opts.ChangeSetTTL = 7 * 24 * time.Hour
	}
	// Every time the DB writes is cut to the precision both databases
	// keep, so that a value read back compares equal to the one written.
	return &DB{opts: opts, now: func() time.Time { return nod.Stamp(now()) }, log: log, instance: nod.NewID()}
}

// IsPostgres reports whether a DSN names a PostgreSQL database.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open connects and applies pending migrations.
func (db *DB) Open(ctx context.Context) error {
	if err := db.connect(); err != nil {
		return err
	}
	db.opened = db.now()
	if err := db.Migrate(ctx); err != nil {
		db.db.Close()
		return err
	}
	return nil
}

func (db *DB) connect() error {
	if db.db != nil {
		return nil
	}
	driver, dsn := "sqlite", sqliteDSN(db.opts.DSN)
	if IsPostgres(db.opts.DSN) {
		driver, dsn, db.postgres = "pgx", db.opts.DSN, true
	}
	sdb, err := sql.Open(driver, dsn)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	if db.postgres {
		// Below the server's default max_connections (100), with room for
		// other replicas: waiting for a connection beats "too many clients".
		sdb.SetMaxOpenConns(20)
		sdb.SetMaxIdleConns(20)
	} else {
		// One writer at a time is what SQLite allows; immediate transactions
		// make writers queue on busy_timeout instead of failing.
		sdb.SetMaxOpenConns(4)
	}
	db.db = sdb
	return nil
}

func sqliteDSN(path string) string {
	if path == "" {
		path = "nod.db"
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return "file:" + path + sep + "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// Migrate applies pending migrations. PostgreSQL replicas that start
// together migrate once, serialised by a session lock.
func (db *DB) Migrate(ctx context.Context) error {
	if err := db.connect(); err != nil {
		return err
	}
	dialect, dir := goose.DialectSQLite3, "migrations/sqlite"
	var opts []goose.ProviderOption
	if db.postgres {
		dialect, dir = goose.DialectPostgres, "migrations/postgres"
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	p, err := goose.NewProvider(dialect, db.db, fsys, opts...)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, r := range res {
		db.log.Info("migrated", "version", r.Source.Version, "duration_ms", r.Duration.Milliseconds())
	}
	return nil
}

// Close closes the database. It is safe to call more than once.
func (db *DB) Close() error {
	if db.db == nil {
		return nil
	}
	err := db.db.Close()
	db.db = nil
	return err
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.db.PingContext(ctx) }

// inTx runs fn in one transaction, committing when it returns nil. A
// transaction that lost a race (a PostgreSQL serialisation failure or
// deadlock, or a write that found its row changed under it) runs again
// from the start, a few times at most.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	const attempts = 4
	var err error
	for range attempts {
		if err = db.tryTx(ctx, fn); !retryable(err) {
			return err
		}
		db.log.Debug("transaction retried", "err", err)
	}
	return err
}

func (db *DB) tryTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// retryable reports whether err is worth running the transaction again.
func retryable(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "40001" || pg.Code == "40P01" // serialization_failure, deadlock_detected
	}
	return errors.Is(err, errRetry)
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: true}
}

func timePtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMicros(n.Int64)
	return &t
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// noRows reports whether err is sql.ErrNoRows.
func noRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// Postgres reports whether the DB runs on PostgreSQL.
func (db *DB) Postgres() bool { return db.postgres }

// ExecForTest runs statements directly, for tests that must put the
// database in a state nod itself never creates (a failing trigger, a
// tampered row).
func (db *DB) ExecForTest(ctx context.Context, stmts ...string) error {
	for _, s := range stmts {
		if _, err := db.db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// queryIDs returns the first column of a query's rows.
func queryIDs(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
