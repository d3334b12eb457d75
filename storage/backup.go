package storage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
)

// Backup writes a consistent copy of the SQLite database dsn names to the
// file at path, which must be missing or empty. It is VACUUM INTO: the
// copy is what one read transaction sees, taken while a running nod goes
// on writing (in WAL mode a reader and the writer do not wait for each
// other), and it is one file, with no -wal beside it. Backup never
// migrates the database: a newer nod backing up an older one's database
// must leave it as that nod expects it.
func Backup(ctx context.Context, dsn, path string) error {
	if IsPostgres(dsn) {
		return fmt.Errorf("back up: %s is not a SQLite database", dsn)
	}
	file := strings.SplitN(dsn, "?", 2)[0]
	// Opening a file that is not there would create an empty database.
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("database %s: %w", file, err)
	}
	// VACUUM INTO writes only its output, yet a query_only connection
	// refuses it: this one may write, and writes nothing else.
	src, err := sql.Open("sqlite", sqliteDSN(dsn, false))
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer src.Close()
	if _, err := src.ExecContext(ctx, `VACUUM INTO $1`, path); err != nil {
		return fmt.Errorf("back up %s: %w", file, err)
	}
	return nil
}

// Snapshot is a SQLite database file opened as it is: read-only, never
// migrated. A backup is checked and summed up through one, before it is
// given its name or restored.
type Snapshot struct {
	core *core
	// made are the -wal and -shm files opening made beside the file.
	made []string
}

// OpenSnapshot opens the SQLite database file at path read-only; key is
// the audit key its log is verified and its head signed with (nil for
// none). A file that is not there is an error wrapping fs.ErrNotExist; a
// file that is no SQLite database fails at the first read.
func OpenSnapshot(path string, key []byte) (*Snapshot, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	var made []string
	for _, side := range []string{path + "-wal", path + "-shm"} {
		if _, err := os.Lstat(side); errors.Is(err, fs.ErrNotExist) {
			made = append(made, side)
		}
	}
	// mode=ro: not even the journal mode changes. A file in WAL mode
	// opened so leaves an empty -wal and a -shm behind: Close removes them.
	r, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r.SetMaxOpenConns(1)
	c := &core{opts: Options{DSN: path, AuditKey: key}, now: func() time.Time { return time.Now().UTC() },
		log: slog.New(slog.DiscardHandler), wdb: r, rdb: r}
	return &Snapshot{core: c, made: made}, nil
}

// Close closes the file. It is safe to call more than once.
func (s *Snapshot) Close() error {
	if s.core.rdb == nil {
		return nil
	}
	s.core.stmts.close()
	err := s.core.rdb.Close()
	s.core.rdb, s.core.wdb = nil, nil
	// A read-only connection writes nothing to a -wal: one it made is
	// empty, and its -shm describes nothing else.
	for _, side := range s.made {
		if fi, err := os.Lstat(side); err == nil && fi.Size() == 0 && strings.HasSuffix(side, "-wal") {
			os.Remove(side)
		}
	}
	wal := s.core.opts.DSN + "-wal"
	if _, err := os.Lstat(wal); errors.Is(err, fs.ErrNotExist) && slices.Contains(s.made, s.core.opts.DSN+"-shm") {
		os.Remove(s.core.opts.DSN + "-shm")
	}
	return err
}

// Integrity runs SQLite's integrity_check over the whole file: nil if it
// is sound, else an error naming the first problems it found.
func (s *Snapshot) Integrity(ctx context.Context) error {
	rows, err := s.core.rdb.QueryContext(ctx, `PRAGMA integrity_check(5)`)
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return fmt.Errorf("integrity check: %w", err)
		}
		if p != "ok" {
			problems = append(problems, p)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Schema returns the migration version the file is at, and the newest
// version this nod's migrations reach. A file nod never migrated (no
// goose_db_version table) is an error.
func (s *Snapshot) Schema(ctx context.Context) (have, known int64, err error) {
	if known, err = latestMigration(); err != nil {
		return 0, 0, err
	}
	if err := s.core.rdb.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&have); err != nil {
		return 0, 0, fmt.Errorf("schema version: %w", err)
	}
	return have, known, nil
}

// SchemaDigest names the schema this build migrates to: a digest of
// every embedded migration of both dialects. Two databases migrated by
// builds of one digest have the same tables.
func SchemaDigest() string {
	h := sha256.New()
	// An embedded tree reads without error.
	_ = fs.WalkDir(migrations, "migrations", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// latestMigration returns the newest SQLite migration's version.
func latestMigration() (int64, error) {
	files, err := fs.ReadDir(migrations, "migrations/sqlite")
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	var latest int64
	for _, f := range files {
		v, err := goose.NumericComponent(f.Name())
		if err != nil {
			return 0, fmt.Errorf("migration %s: %w", f.Name(), err)
		}
		latest = max(latest, v)
	}
	if latest == 0 {
		return 0, errors.New("migrations: none embedded")
	}
	return latest, nil
}

// Tasks returns how many tasks the file holds, in every chat, the trash
// included.
func (s *Snapshot) Tasks(ctx context.Context) (int, error) {
	var n int
	if err := s.core.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM tasks`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count tasks: %w", err)
	}
	return n, nil
}

// Audit returns the file's audit log, to verify it and read its head;
// what would write to it fails.
func (s *Snapshot) Audit() *Audit { return &Audit{s.core} }
