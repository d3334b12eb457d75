package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// snapshot opens the file at path as a Snapshot, closed when the test ends.
func snapshot(t *testing.T, path string, key []byte) *storage.Snapshot {
	t.Helper()
	s, err := storage.OpenSnapshot(path, key)
	if err != nil {
		t.Fatalf("open snapshot %s: %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Backups taken while tasks are written each hold whole transactions:
// every task written comes with its audit row, so a copy that caught a
// transaction in part would count them apart. Each copy is sound, of
// this nod's schema, its audit chain intact, and no copy holds less than
// the one before it or more than the database at the end.
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	key := []byte("backup-test-key")
	dsn := storagetest.DSN(t, "sqlite")
	db := storage.New(storage.Options{DSN: dsn, AuditKey: key}, clock.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, stop := context.WithCancel(t.Context())
	var (
		wg     sync.WaitGroup
		writes int
		werr   error
	)
	wg.Go(func() {
		for ctx.Err() == nil || writes < 50 {
			title := fmt.Sprintf("Task %d", writes)
			_, werr = db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(100 + writes%3)}, UserID: 42, Tool: "create_task",
				Args: []byte(fmt.Sprintf(`{"title":%q}`, title)), Audit: executed,
				Mutate: func(*nod.Task) (nod.Task, error) {
					return nod.Task{Title: title, Status: nod.StatusOpen, Priority: nod.P2}, nil
				}})
			if werr != nil {
				return
			}
			writes++
		}
	})
	dir := t.TempDir()
	last := -1
	for i := range 8 {
		path := filepath.Join(dir, fmt.Sprintf("b%d.db", i))
		if err := storage.Backup(t.Context(), dsn, path); err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		s := snapshot(t, path, key)
		if err := s.Integrity(t.Context()); err != nil {
			t.Errorf("backup %d: %v", i, err)
		}
		if have, known, err := s.Schema(t.Context()); err != nil || have != known {
			t.Errorf("backup %d: schema %d of %d, %v", i, have, known, err)
		}
		tasks, err := s.Tasks(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		broken, rows, err := s.Audit().VerifyAudit(t.Context())
		if err != nil || broken != nil || rows != tasks {
			t.Errorf("backup %d: %d tasks, %d audit rows, break %+v, %v", i, tasks, rows, broken, err)
		}
		if head, err := s.Audit().AuditHead(t.Context()); err != nil || head.Rows != rows || head.Sig == "" {
			t.Errorf("backup %d: head %v (want %d rows, signed), %v", i, head, rows, err)
		}
		if tasks < last {
			t.Errorf("backup %d holds %d tasks, fewer than the %d of the one before", i, tasks, last)
		}
		last = tasks
	}
	stop()
	wg.Wait()
	if werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	if last > writes {
		t.Errorf("the last backup holds %d tasks of %d written", last, writes)
	}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".db") {
			t.Errorf("left beside the backups: %s", f.Name())
		}
	}
	t.Logf("%d tasks written; the last of 8 backups held %d", writes, last)
}

// A snapshot tells what cannot be restored: a missing file, a file that
// is no database, a SQLite database that is not nod's, a damaged one, one
// of a newer schema. Opening one leaves nothing beside it, even a file in
// WAL mode.
func TestSnapshotRefuses(t *testing.T) {
	t.Parallel()
	clock := fixtures.NewClock(fixtures.DefaultNow)
	live := storagetest.Open(t, "sqlite", clock.Now)
	seedT1(t, live)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	if err := storage.Backup(t.Context(), live.DSN(), good); err != nil {
		t.Fatal(err)
	}
	if err := storage.Backup(t.Context(), live.DSN(), good); err == nil {
		t.Errorf("a backup onto a file that holds one: no error")
	}
	if err := storage.Backup(t.Context(), filepath.Join(dir, "none.db"), filepath.Join(dir, "x.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a backup of no database: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Errorf("a backup of no database created one")
	}
	if _, err := storage.OpenSnapshot(filepath.Join(dir, "missing.db"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}

	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Page 2 on is the schema's and the tables' pages: zeros there break
	// the b-trees.
	damaged := slices.Clone(raw)
	page := len(raw) / 4
	clear(damaged[page : 2*page])
	newer := write("newer.db", raw)
	storagetest.Exec(t, newer, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, 1)`)
	other := filepath.Join(dir, "other.db")
	odb, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := odb.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
		t.Fatal(err)
	}
	odb.Close()
	for _, c := range []struct {
		name, path, want string
		integrity        bool
	}{
		{"garbage", write("garbage.db", []byte("these are not the bytes of a database, of any kind at all")), "not a database", true},
		{"truncated", write("truncated.db", raw[:len(raw)/2]), "malformed", true},
		{"damaged", write("damaged.db", damaged), "", true},
		{"newer", newer, "", false},
		{"not nod's", other, "goose_db_version", false},
	} {
		s := snapshot(t, c.path, nil)
		err := s.Integrity(t.Context())
		if c.integrity {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: integrity %v, want an error with %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: integrity %v", c.name, err)
		}
		have, known, err := s.Schema(t.Context())
		switch {
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: schema %d, %v; want an error with %q", c.name, have, err, c.want)
		case c.want == "" && (err != nil || have != 99999 || known >= have):
			t.Errorf("%s: schema %d of %d, %v", c.name, have, known, err)
		}
	}

	// The live file, closed, is in WAL mode: read-only, SQLite makes a
	// -wal and -shm beside it, which Close takes away.
	live.Close()
	wal := filepath.Join(t.TempDir(), "wal.db")
	b, err := os.ReadFile(live.DSN())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wal, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s := snapshot(t, wal, nil)
	if n, err := s.Tasks(t.Context()); err != nil || n != 1 {
		t.Errorf("tasks in the WAL-mode copy: %d, %v", n, err)
	}
	s.Close()
	if files, _ := os.ReadDir(filepath.Dir(wal)); len(files) != 1 {
		t.Errorf("a snapshot left %v", files)
	}
}
