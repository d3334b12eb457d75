package app

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

const testKey = "backup-test-key"

// liveDB makes a nod database at dir/name holding the tasks titled, each
// with its audit row keyed by testKey, and returns its path.
func liveDB(t *testing.T, dir, name string, titles ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	db := storage.New(storage.Options{DSN: path, AuditKey: []byte(testKey)}, fixtures.NewClock(fixtures.DefaultNow).Now, slog.New(slog.DiscardHandler))
	if err := db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, title := range titles {
		_, err := db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: 100}, UserID: 42, Tool: "create_task", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
			Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{Title: title, Status: nod.StatusOpen, Priority: nod.P2}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// titles reads the titles of chat 100's tasks in the database at path.
func titles(t *testing.T, path string) []string {
	t.Helper()
	db := storagetest.OpenDSN(t, path, time.Now)
	defer db.Close()
	tasks, err := db.Tasks().ListTasks(t.Context(), 100, nod.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		out = append(out, task.Title)
	}
	slices.Sort(out)
	return out
}

// listDir names the files in dir, sorted, but for those named skip.
func listDir(t *testing.T, dir string, skip ...string) []string {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !slices.Contains(skip, f.Name()) {
			out = append(out, f.Name())
		}
	}
	return out
}

var keyEnv = map[string]string{"NOD_AUDIT_KEY": testKey}

// A backup is one line saying what it wrote, and refuses to overwrite;
// a restore keeps the database it replaces, with its -wal, under a name
// that takes the restore back, and says so.
func TestBackupAndRestore(t *testing.T) {
	dir := t.TempDir()
	live := liveDB(t, dir, "nod.db", "Buy milk", "Call mum")
	backup := filepath.Join(dir, "backups", "monday.db")
	if err := os.Mkdir(filepath.Dir(backup), 0o700); err != nil {
		t.Fatal(err)
	}
	out, _, err := cli(t, keyEnv, "backup", "-db", live, backup)
	if err != nil || !strings.HasPrefix(out, "wrote "+backup+": 2 tasks, audit head nod-audit-head-v1:") || strings.Count(out, "\n") != 1 || strings.Contains(out, ":unsigned") {
		t.Fatalf("backup = %q, %v", out, err)
	}
	if got := listDir(t, filepath.Dir(backup)); !slices.Equal(got, []string{"monday.db"}) {
		t.Errorf("the backup folder holds %v", got)
	}
	before, _ := os.ReadFile(backup)
	if _, _, err := cli(t, keyEnv, "backup", "-db", live, backup); err == nil || !strings.Contains(err.Error(), "never overwrites") {
		t.Errorf("a backup onto an existing file: %v", err)
	}
	if after, _ := os.ReadFile(backup); !bytes.Equal(before, after) {
		t.Errorf("a refused backup changed the file there")
	}
	head := strings.TrimSuffix(out[strings.Index(out, "nod-audit-head-v1"):], "\n")

	liveDB(t, dir, "nod.db", "Water plants") // the database moves on
	out, _, err = cli(t, keyEnv, "restore", "-db", live, backup)
	if err != nil || !strings.HasPrefix(out, "restored "+live+" from "+backup+": 2 tasks, audit head "+head+"; the database it replaced is kept as "+live+".before-restore") ||
		!strings.Contains(out, "to take the restore back, stop nod and rename") || strings.Count(out, "\n") != 1 {
		t.Fatalf("restore = %q, %v", out, err)
	}
	if got := titles(t, live); !slices.Equal(got, []string{"Buy milk", "Call mum"}) {
		t.Errorf("restored tasks %v", got)
	}
	if got := titles(t, live+".before-restore"); !slices.Equal(got, []string{"Buy milk", "Call mum", "Water plants"}) {
		t.Errorf("the kept database holds %v", got)
	}
	if after, _ := os.ReadFile(backup); !bytes.Equal(before, after) {
		t.Errorf("restore changed the backup")
	}
	if out, _, err := cli(t, keyEnv, "audit", "verify", "-db", live, "-head", head); err != nil || !strings.HasPrefix(out, "ok:") {
		t.Errorf("verify the restored database against the backup's head: %q, %v", out, err)
	}
	// A second restore keeps the first's database too.
	if out, _, err = cli(t, keyEnv, "restore", "-db", live, backup); err != nil || !strings.Contains(out, "kept as "+live+".before-restore.2") {
		t.Errorf("second restore = %q, %v", out, err)
	}
	// Into a folder with no database yet.
	fresh := filepath.Join(t.TempDir(), "nod.db")
	if out, _, err = cli(t, keyEnv, "restore", "-db", fresh, backup); err != nil || !strings.HasSuffix(out, "; there was no database before\n") {
		t.Errorf("restore into an empty folder = %q, %v", out, err)
	}
	if got := listDir(t, filepath.Dir(fresh)); !slices.Equal(got, []string{"nod.db", "nod.db.lock"}) {
		t.Errorf("after a restore into an empty folder: %v", got)
	}
}

// A backup of no database, or into no folder, says so in one line and
// leaves nothing behind.
func TestBackupRefuses(t *testing.T) {
	dir := t.TempDir()
	live := liveDB(t, dir, "nod.db", "Buy milk")
	for _, c := range []struct{ db, file, want string }{
		{filepath.Join(dir, "none.db"), filepath.Join(dir, "b.db"), "there is no database " + filepath.Join(dir, "none.db") + " to back up"},
		{live, filepath.Join(dir, "no", "b.db"), "there is no folder " + filepath.Join(dir, "no")},
	} {
		if _, _, err := cli(t, nil, "backup", "-db", c.db, c.file); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("backup -db %s %s: %v, want %q", c.db, c.file, err, c.want)
		}
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"nod.db"}) {
		t.Errorf("refused backups left %v", got)
	}
}

// A -wal beside the database replaced holds writes of that database: it
// goes with it to the kept name, and none is left for the restored one.
func TestRestoreKeepsTheWAL(t *testing.T) {
	dir := t.TempDir()
	live := liveDB(t, dir, "nod.db", "Buy milk")
	backup := filepath.Join(dir, "b.db")
	if _, _, err := cli(t, keyEnv, "backup", "-db", live, backup); err != nil {
		t.Fatal(err)
	}
	// A database left open holds its -wal, as a killed nod leaves it.
	db := storagetest.OpenDSN(t, live, time.Now)
	if _, err := db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: 100}, UserID: 42, Tool: "create_task", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(*nod.Task) (nod.Task, error) {
			return nod.Task{Title: "In the WAL", Status: nod.StatusOpen, Priority: nod.P2}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	wal, err := os.ReadFile(live + "-wal")
	if err != nil || len(wal) == 0 {
		t.Fatalf("no -wal to keep: %v", err)
	}
	out, _, err := cli(t, keyEnv, "restore", "-db", live, backup)
	db.Close()
	if err != nil || !strings.Contains(out, "rename nod.db.before-restore to nod.db, nod.db.before-restore-wal to nod.db-wal") {
		t.Fatalf("restore = %q, %v", out, err)
	}
	if kept, _ := os.ReadFile(live + ".before-restore-wal"); !bytes.Equal(kept, wal) {
		t.Errorf("the kept -wal is not the database's")
	}
	if got := titles(t, live); !slices.Equal(got, []string{"Buy milk"}) {
		t.Errorf("restored tasks %v", got)
	}
	if got := titles(t, live+".before-restore"); !slices.Equal(got, []string{"Buy milk", "In the WAL"}) {
		t.Errorf("the kept database holds %v", got)
	}
}

// A restore refuses what it cannot restore, and a database in use, in
// one line; it changes nothing: the database, the folder and the backup
// are as they were.
func TestRestoreRefuses(t *testing.T) {
	dir := t.TempDir()
	live := liveDB(t, dir, "nod.db", "Buy milk")
	src := liveDB(t, t.TempDir(), "src.db", "Other task")
	good := filepath.Join(t.TempDir(), "good.db")
	if _, _, err := cli(t, keyEnv, "backup", "-db", src, good); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(good)
	file := func(name string, b []byte, stmts ...string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if len(stmts) > 0 {
			storagetest.Exec(t, p, stmts...)
		}
		return p
	}
	cases := []struct {
		name, backup, want string
		env                map[string]string
	}{
		{"missing", filepath.Join(dir, "none.db"), "there is no backup", keyEnv},
		{"garbage", file("garbage.db", []byte("PK\x03\x04 a zip file, say, and nothing like a database at all")), "is not a sound SQLite database", keyEnv},
		{"truncated", file("truncated.db", raw[:len(raw)/2]), "is not a sound SQLite database", keyEnv},
		{"empty", file("empty.db", nil), "is not a nod database", keyEnv},
		{"newer", file("newer.db", raw, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, 1)`), "a newer nod wrote it (schema version 99999", keyEnv},
		{"audit changed", file("tampered.db", raw, `UPDATE audit_log SET outcome = 'rejected'`), "its audit log does not verify: chat 100, audit row 1 its content does not match", keyEnv},
		{"keyed, no key", good, "needs the key", nil},
		{"in use", good, "a running nod serves " + live + ": stop it, then restore", keyEnv},
	}
	dbBefore, _ := os.ReadFile(live)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "in use" {
				l, err := lockDB(live, false) // as nod serve holds it
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
			}
			// The lock file may be made: it is no part of the database.
			folder := listDir(t, dir, "nod.db.lock")
			backupBefore, _ := os.ReadFile(c.backup)
			_, _, err := cli(t, c.env, "restore", "-db", live, c.backup)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("restore: %v\nwant one line with %q", err, c.want)
			}
			if !strings.HasSuffix(err.Error(), "nothing was changed") {
				t.Errorf("the refusal does not say that nothing was changed: %v", err)
			}
			if got := listDir(t, dir, "nod.db.lock"); !slices.Equal(got, folder) {
				t.Errorf("the folder holds %v, was %v", got, folder)
			}
			if b, _ := os.ReadFile(live); !bytes.Equal(b, dbBefore) {
				t.Errorf("the database changed")
			}
			if b, _ := os.ReadFile(c.backup); !bytes.Equal(b, backupBefore) {
				t.Errorf("the backup changed")
			}
		})
	}
	if got := titles(t, live); !slices.Equal(got, []string{"Buy milk"}) {
		t.Errorf("the database holds %v", got)
	}
}

// nod serve holds the lock a restore tests: it does not start while a
// restore holds it.
func TestServeWaitsForRestore(t *testing.T) {
	tg := telegramtest.New(t)
	env, dir := serveEnv(t, tg)
	l, err := lockDB(filepath.Join(dir, "nod.db"), true) // as nod restore holds it
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := serveOnce(t, tg, env); err == nil || !strings.Contains(err.Error(), "nod restore is replacing") {
		t.Fatalf("serve during a restore: %v", err)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"nod.db.lock"}) {
		t.Errorf("a start refused during a restore left %v", got)
	}
	l.Close()
	if _, err := serveOnce(t, tg, env); err != errStarted {
		t.Fatalf("serve after the restore: %v", err)
	}
}

// On PostgreSQL both commands refuse in one line that gives the pg_dump
// or pg_restore command, without the password.
func TestBackupOnPostgres(t *testing.T) {
	dir := t.TempDir()
	dsn := "postgres://nod:s3cret-pw@db.example:5432/nod?sslmode=disable"
	file := filepath.Join(dir, "nod dump")
	for cmd, want := range map[string]string{
		"backup":  "pg_dump --format=custom --file='" + file + "' --dbname='postgres://nod:xxxxx@db.example:5432/nod?sslmode=disable'",
		"restore": "pg_restore --clean --if-exists --single-transaction --dbname='postgres://nod:xxxxx@db.example:5432/nod?sslmode=disable' '" + file + "'",
	} {
		out, _, err := cli(t, map[string]string{"NOD_DB": dsn}, cmd, file)
		if err == nil || !strings.HasSuffix(err.Error(), want) || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") || out != "" {
			t.Errorf("nod %s on PostgreSQL: %q, %v\nwant one line ending %s", cmd, out, err, want)
		}
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("the refusals left %v", got)
	}
}

// Both commands are in the help, with their usage; a wrong call says the
// usage in one line.
func TestBackupHelp(t *testing.T) {
	out, _, _ := cli(t, nil, "help")
	for _, want := range []string{"nod backup [-db DSN] FILE", "nod restore [-db DSN] FILE", "while nod runs", "stop nod first"} {
		if !strings.Contains(out, want) {
			t.Errorf("nod help lacks %q", want)
		}
	}
	for _, cmd := range []string{"backup", "restore"} {
		if out, _, _ := cli(t, nil, "help", cmd); !strings.Contains(out, "usage: nod "+cmd+" [-db DSN] FILE") || !strings.Contains(out, "NOD_DB") {
			t.Errorf("nod help %s = %q", cmd, out)
		}
		for _, args := range [][]string{{cmd}, {cmd, "a.db", "b.db"}} {
			if _, _, err := cli(t, nil, args...); err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("usage: nod %s [-db DSN] FILE", cmd)) {
				t.Errorf("nod %v: %v", args, err)
			}
		}
	}
}
