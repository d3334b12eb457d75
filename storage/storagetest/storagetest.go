// Package storagetest opens real databases for tests: a SQLite file in a
// temporary folder, and a PostgreSQL database of its own per test.
package storagetest

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/storage"
)

// PostgresURL is the server tests use, overridable with NOD_TEST_POSTGRES.
func PostgresURL() string {
	if u := os.Getenv("NOD_TEST_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// Dialects returns the backends a storage test runs against: "sqlite" and,
// when a server answers, "postgres". In CI an unreachable server fails the
// test instead of being skipped.
func Dialects(t testing.TB) []string {
	t.Helper()
	if err := pingPostgres(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL at %s is required in CI: %v", PostgresURL(), err)
		}
		t.Logf("PostgreSQL not reachable (%v): running on SQLite only", err)
		return []string{"sqlite"}
	}
	return []string{"sqlite", "postgres"}
}

func pingPostgres() error {
	db, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// DSN returns a fresh, empty database for dialect: a new SQLite file or a
// new PostgreSQL database, dropped when the test ends. A database, not a
// schema: goose's migration lock is one per database, and tests that
// migrate at once must not wait on each other's.
func DSN(t testing.TB, dialect string) string {
	t.Helper()
	if dialect == "sqlite" {
		return t.TempDir() + "/nod.db"
	}
	return newDatabase(t, "")
}

// Open returns an open, migrated DB for dialect on the given clock, closed
// when the test ends.
func Open(t testing.TB, dialect string, now func() time.Time) *storage.DB {
	t.Helper()
	return OpenDSN(t, Migrated(t, dialect), now)
}

// Migrated returns a fresh database for dialect with every migration
// applied, as a first Open leaves it. It is a copy of one migrated once
// per test process: goose parses each migration it runs, and hundreds of
// tests each running all of them cost minutes of a race-enabled run.
func Migrated(t testing.TB, dialect string) string {
	t.Helper()
	if dialect != "sqlite" {
		return migratedPostgres(t)
	}
	tpl, err := sqliteTemplate()
	if err != nil {
		t.Fatalf("migrated SQLite template: %v", err)
	}
	path := filepath.Join(t.TempDir(), "nod.db")
	if err := os.WriteFile(path, tpl, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sqliteTemplate is a migrated SQLite database's bytes, made once.
var sqliteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "nod-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "nod.db")
	db := storage.New(storage.Options{DSN: path}, time.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(context.Background()); err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	// VACUUM INTO writes one consistent file, whatever the WAL still holds.
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	copied := filepath.Join(dir, "copy.db")
	if _, err := raw.Exec(`VACUUM INTO '` + copied + `'`); err != nil {
		return nil, err
	}
	return os.ReadFile(copied)
})

// OpenDSN returns an open, migrated DB on dsn, closed when the test ends:
// a second handle on one database is what a second replica has.
func OpenDSN(t testing.TB, dsn string, now func() time.Time) *storage.DB {
	t.Helper()
	db := storage.New(storage.Options{DSN: dsn}, now, slog.New(slog.DiscardHandler))
	if err := db.Open(t.Context()); err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// FailInserts makes every insert into table fail from now on, with a real
// trigger in the database: the failure a confirmation must roll back from.
func FailInserts(t testing.TB, db *storage.DB, table string) {
	t.Helper()
	Exec(t, db.DSN(), failTrigger(db.Postgres(), table)...)
}

// Exec runs statements on the database at dsn over a connection of its
// own, for tests that must put it in a state nod itself never makes (a
// failing trigger, a tampered row, a task gone behind nod's back).
func Exec(t testing.TB, dsn string, stmts ...string) {
	t.Helper()
	driver, src := "pgx", dsn
	if !storage.IsPostgres(dsn) {
		driver, src = "sqlite", "file:"+dsn+"?_pragma=busy_timeout(5000)"
	}
	raw, err := sql.Open(driver, src)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	defer raw.Close()
	for _, s := range stmts {
		if _, err := raw.ExecContext(t.Context(), s); err != nil {
			t.Fatalf("exec %q: %v", s, err)
		}
	}
}

func failTrigger(postgres bool, table string) []string {
	if !postgres {
		return []string{`CREATE TRIGGER fail_` + table + ` BEFORE INSERT ON ` + table + ` BEGIN SELECT RAISE(ABORT, 'injected failure'); END`}
	}
	return []string{
		`CREATE FUNCTION fail_` + table + `() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER fail_` + table + ` BEFORE INSERT ON ` + table + ` FOR EACH ROW EXECUTE FUNCTION fail_` + table + `()`,
	}
}

// Row is one row of a table as text: each column's value, "NULL" for
// NULL.
type Row map[string]string

// Dump reads every table of the database at dsn but goose's own, each
// row as text, for tests that look for what must not be left anywhere.
func Dump(t testing.TB, dsn string) map[string][]Row {
	t.Helper()
	driver, src, list := "pgx", dsn, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	if !storage.IsPostgres(dsn) {
		driver, src, list = "sqlite", "file:"+dsn+"?_pragma=busy_timeout(5000)", `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	}
	raw, err := sql.Open(driver, src)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	defer raw.Close()
	var tables []string
	rows, err := raw.QueryContext(t.Context(), list)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if name != "goose_db_version" {
			tables = append(tables, name)
		}
	}
	rows.Close()
	out := map[string][]Row{}
	for _, table := range tables {
		rows, err := raw.QueryContext(t.Context(), `SELECT * FROM `+table)
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		cols, _ := rows.Columns()
		out[table] = []Row{}
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			r := Row{}
			for i, c := range cols {
				switch v := vals[i].(type) {
				case nil:
					r[c] = "NULL"
				case []byte:
					r[c] = string(v)
				default:
					r[c] = fmt.Sprint(v)
				}
			}
			out[table] = append(out[table], r)
		}
		rows.Close()
	}
	return out
}

// Hit is a value of a row that names someone.
type Hit struct {
	Table, Column string
	Row           Row
}

func (h Hit) String() string {
	return fmt.Sprintf("%s.%s = %.100q", h.Table, h.Column, h.Row[h.Column])
}

// Find returns the values in dump that hold word, or name the person
// id: in a column that holds a person or a chat (chat_id, user_id, and
// every column named for who did something: remind_by, daily_by, …), or
// in a text as nod writes one ("Alice (42)", "user_id":42, "user":42),
// sorted.
func Find(dump map[string][]Row, word string, id int64) []Hit {
	n := strconv.FormatInt(id, 10)
	var out []Hit
	for table, rows := range dump {
		for _, r := range rows {
			for col, v := range r {
				hit := strings.Contains(v, word) || strings.Contains(v, "("+n+")") || strings.Contains(v, `"user_id":`+n+`,`) ||
					strings.Contains(v, `"user_id":`+n+`}`) || strings.Contains(v, `"user":`+n+`,`) || strings.Contains(v, `"user":`+n+`}`)
				if col == "chat_id" || col == "user_id" || strings.HasSuffix(col, "_by") {
					hit = hit || v == n
				}
				if hit {
					out = append(out, Hit{Table: table, Column: col, Row: r})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Holding returns the rows of dump that hold word or name the person
// id (as Find finds them), each as one line of text, sorted.
func Holding(dump map[string][]Row, word string, id int64) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range Find(dump, word, id) {
		var kv []string
		for k, v := range h.Row {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		line := h.Table + " " + strings.Join(kv, " ")
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	sort.Strings(out)
	return out
}

// migratedPostgres is a database of its own made from the migrated
// template (CREATE DATABASE … TEMPLATE copies it whole), dropped when
// the test ends.
func migratedPostgres(t testing.TB) string {
	t.Helper()
	tpl, err := postgresTemplate()
	if err != nil {
		t.Fatalf("migrated PostgreSQL template: %v", err)
	}
	return newDatabase(t, tpl)
}

// newDatabase creates a database, a copy of template if one is named,
// drops it when the test ends and returns its URL.
func newDatabase(t testing.TB, template string) string {
	t.Helper()
	admin, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		t.Fatal(err)
	}
	name := "t_" + strings.ToLower(nod.NewID()) + fmt.Sprint(time.Now().UnixNano()%1000)
	create := `CREATE DATABASE ` + name
	if template != "" {
		create += ` TEMPLATE ` + template
	}
	if _, err := admin.Exec(create); err != nil {
		admin.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		admin.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`)
		admin.Close()
	})
	return databaseURL(name)
}

// postgresTemplate makes, once per schema, a database migrated as nod
// migrates one, and names it. Test processes that start together make
// it once, under an advisory lock; a database that is copied must have
// no connections, so it is made under another name and renamed.
var postgresTemplate = sync.OnceValues(func() (string, error) {
	name := "nod_template_" + storage.SchemaDigest()[:16]
	ctx := context.Background()
	admin, err := sql.Open("pgx", PostgresURL())
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtext($1))`, name); err != nil {
		return "", err
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock(hashtext($1))`, name)
	var made bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&made); err != nil || made {
		return name, err
	}
	building := name + "_building"
	for _, s := range []string{`DROP DATABASE IF EXISTS ` + building + ` WITH (FORCE)`, `CREATE DATABASE ` + building} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return "", err
		}
	}
	db := storage.New(storage.Options{DSN: databaseURL(building)}, time.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(ctx); err != nil {
		return "", err
	}
	if err := db.Close(); err != nil {
		return "", err
	}
	_, err = conn.ExecContext(ctx, `ALTER DATABASE `+building+` RENAME TO `+name)
	return name, err
})

// databaseURL is PostgresURL with the database name in its place. Its
// commits do not wait for the server's disk (synchronous_commit=off, a
// setting pgx sends as the session starts): what a commit makes visible,
// and to whom, is the same, and a test's database does not outlive a
// crash of the server anyway.
func databaseURL(name string) string {
	u, err := url.Parse(PostgresURL())
	if err != nil {
		panic(fmt.Sprintf("NOD_TEST_POSTGRES: %v", err)) // the template was made from it
	}
	u.Path = "/" + name
	q := u.Query()
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return u.String()
}
