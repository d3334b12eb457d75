package storage

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
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
	// MaxConns sizes the connection pool: PostgreSQL's (default 20), or
	// SQLite's read pool (default 4) beside its one writer connection.
	// Idle connections are kept up to the same number, so that a busy
	// process never closes and reopens them.
	MaxConns int
}

// core is what every aggregate shares: the pools, the dialect, the clock
// and the transaction helpers.
type core struct {
	opts     Options
	instance string    // this process, as the outbox names its writer
	opened   time.Time // when this process opened the database
	now      func() time.Time
	log      *slog.Logger
	// SQLite allows one writer at a time: every transaction and write
	// runs on wdb's single connection, queued in database/sql rather than
	// spinning on busy_timeout, while reads run on rdb's pool beside it
	// (WAL readers never wait for the writer). On PostgreSQL both are the
	// same pool.
	wdb, rdb *sql.DB
	w        *writer // SQLite only
	postgres bool
	stmts    stmtCache
	counts   counts
	// refreshes marks the sets owed a refresh by this process's commits
	// (OwedRefreshes).
	refreshes owedMarks
	// kept holds the conversations of the topics that talked last,
	// decoded (keptHistoryRead).
	kept *kept
	// openings holds, on SQLite, what the chats' tasks, proposals and
	// decisions made of the openings of the topics that talked last
	// (keptOpening).
	openings *openings
	// heads holds the audit chain heads of the chats this process wrote
	// audit rows to last (insertAudit).
	heads *heads
	// settings holds, on PostgreSQL, the chats' settings as the process
	// last read them (KeptSettings).
	settings *lru.Cache[settingsKey, nod.ChatSettings]
}

// New returns a DB that is not yet open. now is the clock for every
// timestamp the DB writes.
func New(opts Options, now func() time.Time, log *slog.Logger) *DB {
	if opts.UndoWindow <= 0 {
		opts.UndoWindow = nod.DefaultUndoWindow
	}
	if opts.ChangeSetTTL <= 0 {
		opts.ChangeSetTTL = nod.DefaultChangeSetTTL
	}
	// Every time the DB writes is cut to the precision both databases
	// keep, so that a value read back compares equal to the one written.
	return newDB(&core{opts: opts, now: func() time.Time { return nod.Stamp(now()) }, log: log, instance: nod.NewID(), kept: newKept(), openings: newOpenings(), heads: newHeads(),
		settings: newKeptSettings()})
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
		db.Close()
		return err
	}
	return nil
}

func (db *DB) connect() error {
	if db.wdb != nil {
		return nil
	}
	if IsPostgres(db.opts.DSN) {
		sdb, err := sql.Open("pgx", db.opts.DSN)
		if err != nil {
			return fmt.Errorf("open database: %w", err)
		}
		// Below the server's default max_connections (100), with room for
		// other replicas: waiting for a connection beats "too many clients".
		n := cmp.Or(db.opts.MaxConns, 20)
		sdb.SetMaxOpenConns(n)
		sdb.SetMaxIdleConns(n)
		db.wdb, db.rdb, db.postgres = sdb, sdb, true
		return nil
	}
	w, err := sql.Open("sqlite", sqliteDSN(db.opts.DSN, false))
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	r, err := sql.Open("sqlite", sqliteDSN(db.opts.DSN, true))
	if err != nil {
		w.Close()
		return fmt.Errorf("open database: %w", err)
	}
	n := cmp.Or(db.opts.MaxConns, 4)
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	db.wdb, db.rdb, db.w = w, r, newWriter(w)
	return nil
}

// sqliteDSN returns the DSN of the writer connection, or of a reader
// that refuses to write (a write routed to the read pool fails loudly).
func sqliteDSN(path string, readOnly bool) string {
	if path == "" {
		path = "nod.db"
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	dsn := "file:" + path + sep + "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate"
	if readOnly {
		dsn += "&_pragma=query_only(1)"
	}
	return dsn
}

// Migrate applies pending migrations. PostgreSQL replicas that start
// together migrate once, serialised by a session lock.
func (db *DB) Migrate(ctx context.Context) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	var res []*goose.MigrationResult
	err = db.withPool(ctx, func() (err error) {
		res, err = p.Up(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, r := range res {
		db.log.Info("migrated", "version", r.Source.Version, "duration_ms", r.Duration.Milliseconds())
	}
	return nil
}

// migrations returns the migration provider of the database's dialect.
func (db *DB) migrations() (*goose.Provider, error) {
	if err := db.connect(); err != nil {
		return nil, err
	}
	dialect, dir := goose.DialectSQLite3, "migrations/sqlite"
	var opts []goose.ProviderOption
	if db.postgres {
		dialect, dir = goose.DialectPostgres, "migrations/postgres"
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, fmt.Errorf("migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	p, err := goose.NewProvider(dialect, db.wdb, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// Close closes the database. It is safe to call more than once.
func (db *DB) Close() error {
	if db.wdb == nil {
		return nil
	}
	db.stmts.close()
	if db.w != nil {
		db.w.lend(context.Background(), func() error { return nil }) // its statements and connection back first
	}
	err := db.wdb.Close()
	if db.rdb != db.wdb {
		err = errors.Join(err, db.rdb.Close())
	}
	db.wdb, db.rdb = nil, nil
	return err
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.rdb.PingContext(ctx) }

// withPool runs f with the write pool free for f's own use: SQLite's
// writer lends its connection back meanwhile.
func (db *core) withPool(ctx context.Context, f func() error) error {
	if db.w == nil {
		return f()
	}
	return db.w.lend(ctx, f)
}

// inTx runs fn in one transaction, committing when it returns nil. A
// transaction that lost a race (a PostgreSQL serialisation failure or
// deadlock, or a write that found its row changed under it) runs again
// from the start, a few times at most.
func (db *core) inTx(ctx context.Context, fn func(tx conn) error) error {
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

func (db *core) tryTx(ctx context.Context, fn func(tx conn) error) (err error) {
	db.counts.txs.Add(1)
	if db.w != nil {
		return db.w.tx(ctx, db, fn)
	}
	tx, err := db.beginPG(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.close(ctx)
	memo := newTxMemo()
	// A failure (or fn's panic) ends the memo's heads; committed ends them first.
	defer func() { db.heads.end(memo, cmp.Or(err, errAbandoned)) }()
	if err := fn(conn{db: db, pg: tx, memo: memo}); err != nil {
		return tx.failure(err)
	}
	if err := tx.commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	db.committed(memo)
	return nil
}

// inRead runs fn in one read-only transaction: every statement of it
// reads the database as it was at its first (SQLite's WAL read
// transaction, PostgreSQL's repeatable read snapshot), whatever commits
// meanwhile. It holds one read connection while fn runs; writers never
// wait for it.
func (db *core) inRead(ctx context.Context, fn func(q conn) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.rdb.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	return fn(conn{db: db, tx: tx})
}

// retryable reports whether err is worth running the transaction again.
// errRetry comes first: a write that missed fails its PostgreSQL
// transaction, so a statement after it fails as well (25P02), and the
// transaction reports both.
func retryable(err error) bool {
	if errors.Is(err, errRetry) {
		return true
	}
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01") // serialization_failure, deadlock_detected
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// nullString is s, or NULL for "".
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// nullMicros is t in microseconds, or NULL for nil.
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

// DSN is the database the DB opens: a SQLite file or a postgres:// URL.
func (db *DB) DSN() string { return db.opts.DSN }

// queryIDs returns the first column of a query's rows.
func queryIDs[ID ~string](ctx context.Context, q conn, query string, args ...any) ([]ID, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []ID
	for rows.Next() {
		var id ID
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
