package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

const backupKey = "backup-e2e-audit-key"

// busyModel plays the models for many chats at once, from each request
// alone: "add TITLE" creates a task, "estimate ID N" sets a task's
// estimate, the classifier finds every request explicit (quoting the
// person's last words), and a tool's result is answered "Done.".
func busyModel(r openaitest.Request) openaitest.Response {
	if r.Model == clfM {
		said := ""
		for _, m := range r.Messages {
			for _, l := range strings.Split(m.Content, "\n") {
				if s, ok := strings.CutPrefix(l, "User: "); ok {
					said = s
				}
			}
		}
		return answer("explicit:" + said)(r)
	}
	if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
		return openaitest.Text("Done.")
	}
	said := r.LastUser()
	if title, ok := strings.CutPrefix(said, "add "); ok {
		return openaitest.Calls(call("c", "create_task", map[string]any{"title": title}))
	}
	f := strings.Fields(said)
	n, _ := strconv.Atoi(f[2])
	return openaitest.Calls(call("e", "update_task_estimate", map[string]any{"task_id": f[1], "estimate_minutes": n}))
}

// backupTaken is one backup taken while nod ran.
type backupTaken struct {
	path, out string
	err       error
}

// Backups taken while nod creates and changes tasks in two chats at once
// are each sound, pass `nod audit verify`, and hold one moment of the
// database: every task with the audit rows of what made it so, every
// audit row's work in the tasks, each backup at least what the one
// before held and at most what the database holds at the end. nod
// refuses to restore over the database it serves, and a backup onto an
// existing file. One backup, restored into another nod's stopped
// database, serves there: its tasks are there, the audit chain goes on
// and verifies, and the database it replaced is kept.
func TestBackupUnderLoad(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "nod backup copies SQLite; TestBackupOnPostgres covers PostgreSQL")
	h := newHarness(t)
	h.env["NOD_AUDIT_KEY"] = backupKey
	chats := map[int64]int64{chat: user, chat + 1: 43}
	for c := range chats {
		for k := range 3 {
			h.seed(c, nod.Task{ID: nod.TaskID(fmt.Sprintf("S%d-%d", c, k)), Title: fmt.Sprintf("Seeded %d", k)})
		}
	}
	h.llm.Handle(busyModel)
	h.start()

	dir := t.TempDir()
	env := func(k string) string { return h.env[k] }
	backup := func(path string) backupTaken {
		var out, errb bytes.Buffer
		err := run(t.Context(), []string{"backup", "-db", h.dsn, path}, env, &out, &errb)
		return backupTaken{path, out.String(), err}
	}
	// A backup runs beside nod's handling of each second round of
	// messages: taken while the round's turns write.
	kick, taken := make(chan int, 1), make(chan []backupTaken)
	go func() {
		var all []backupTaken
		for i := range kick {
			all = append(all, backup(filepath.Join(dir, fmt.Sprintf("b%02d.db", i))))
		}
		taken <- all
	}()
	const rounds = 12
	for r := range rounds {
		for c := range chats {
			text := fmt.Sprintf("add Task %d in %d", r, c)
			if r%2 == 1 {
				text = fmt.Sprintf("estimate S%d-%d %d", c, r%3, 10*(r+1))
			}
			h.tg.SendText(c, chats[c], text)
		}
		if r%2 == 0 {
			kick <- r
		}
		for c := range chats {
			h.tg.WaitBotMessages(c, 2*(r+1)) // each turn: its receipt, then "Done."
		}
	}
	close(kick)
	backups := <-taken
	h.settleMessages()

	live := readDB(t, h.db)
	if len(live.tasks) != 2*(3+rounds/2) {
		for _, m := range h.tg.BotMessages(chat) {
			t.Logf("%q", m.Text)
		}
		t.Fatalf("the live database holds %d tasks, want %d", len(live.tasks), 2*(3+rounds/2))
	}
	prev := dbView{}
	for i, b := range backups {
		name := filepath.Base(b.path)
		if b.err != nil || !strings.HasPrefix(b.out, "wrote "+b.path+": ") || !strings.Contains(b.out, " tasks, audit head nod-audit-head-v1:") {
			t.Fatalf("backup %s: %q, %v", name, b.out, b.err)
		}
		s, err := storage.OpenSnapshot(b.path, []byte(backupKey))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Integrity(t.Context()); err != nil {
			t.Errorf("backup %s: %v", name, err)
		}
		s.Close()
		if out, err := verify(t, b.path); err != nil || !strings.HasPrefix(out, "ok: ") {
			t.Errorf("nod audit verify on backup %s: %q, %v", name, out, err)
		}
		v := readFile(t, b.path)
		if !strings.HasPrefix(b.out, fmt.Sprintf("wrote %s: %d tasks", b.path, len(v.tasks))) {
			t.Errorf("backup %s says %q; it holds %d tasks", name, b.out, len(v.tasks))
		}
		v.consistent(t, name)
		if len(v.tasks) < len(prev.tasks) || len(v.audit) < len(prev.audit) || len(v.tasks) > len(live.tasks) || len(v.audit) > len(live.audit) {
			t.Errorf("backup %s holds %d tasks and %d audit rows; the one before %d and %d, the database at the end %d and %d",
				name, len(v.tasks), len(v.audit), len(prev.tasks), len(prev.audit), len(live.tasks), len(live.audit))
		}
		if i > 0 && len(v.audit) == len(prev.audit) {
			t.Logf("backup %s holds what the one before held", name)
		}
		prev = v
	}
	if len(backups) != rounds/2 {
		t.Fatalf("%d backups taken, want %d", len(backups), rounds/2)
	}
	t.Logf("%d backups; the database at the end: %d tasks, %d audit rows; the last backup: %d and %d",
		len(backups), len(live.tasks), len(live.audit), len(prev.tasks), len(prev.audit))

	// While nod serves: no restore over its database, no backup over a file.
	chosen := backups[len(backups)/2]
	files := dirFiles(t, filepath.Dir(h.dsn))
	if err := run(t.Context(), []string{"restore", "-db", h.dsn, chosen.path}, env, &bytes.Buffer{}, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "a running nod serves") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("restore while nod serves: %v", err)
	}
	if got := dirFiles(t, filepath.Dir(h.dsn)); !slices.Equal(got, files) {
		t.Errorf("a refused restore left %v, was %v", got, files)
	}
	if got := readDB(t, h.db); len(got.tasks) != len(live.tasks) || len(got.audit) != len(live.audit) {
		t.Errorf("a refused restore changed the database")
	}
	before, _ := os.ReadFile(chosen.path)
	if b := backup(chosen.path); b.err == nil || !strings.Contains(b.err.Error(), "never overwrites") {
		t.Errorf("a backup onto an existing file: %q, %v", b.out, b.err)
	}
	if after, _ := os.ReadFile(chosen.path); !bytes.Equal(before, after) {
		t.Errorf("a refused backup changed the file")
	}
	h.stop()

	// Restored into another nod's database, while that nod is stopped:
	// the same bot, moved, whose update ids go on where they were.
	other := newHarness(t)
	other.env["NOD_AUDIT_KEY"] = backupKey
	other.tg.Wire().ContinueAfter(h.tg.Wire().LastUpdateID())
	other.seed(chat, nod.Task{ID: "OLD", Title: "Before the restore"})
	other.llm.Handle(busyModel)
	other.start()
	other.stop()
	other.db.Close()
	var out bytes.Buffer
	if err := run(t.Context(), []string{"restore", "-db", other.dsn, chosen.path}, func(k string) string { return other.env[k] }, &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("restore into a stopped nod's database: %v", err)
	}
	want := readFile(t, chosen.path)
	if !strings.HasPrefix(out.String(), fmt.Sprintf("restored %s from %s: %d tasks", other.dsn, chosen.path, len(want.tasks))) ||
		!strings.Contains(out.String(), "kept as "+other.dsn+".before-restore") {
		t.Errorf("restore says %q", out.String())
	}
	other.reopen()
	other.start()
	if got := readDB(t, other.db); !slices.Equal(got.ids(), want.ids()) {
		t.Errorf("restored tasks %v, want the backup's %v", got.ids(), want.ids())
	}
	other.tg.SendText(chat, user, "add After the restore")
	other.tg.Wait("the task made after the restore", func() bool {
		return slices.ContainsFunc(readDB(t, other.db).tasks, func(task nod.Task) bool { return task.Title == "After the restore" })
	})
	other.settleMessages()
	other.stop()
	if got := readDB(t, other.db); len(got.tasks) != len(want.tasks)+1 {
		t.Errorf("nod on the restored database: %d tasks, want %d", len(got.tasks), len(want.tasks)+1)
	}
	if out, err := verify(t, other.dsn); err != nil || !strings.HasPrefix(out, fmt.Sprintf("ok: %d audit rows", len(want.audit)+1)) {
		t.Errorf("nod audit verify on the restored database, written on: %q, %v", out, err)
	}
	if kept := readFile(t, other.dsn+".before-restore"); !slices.Equal(kept.ids(), []string{"OLD"}) {
		t.Errorf("the database the restore replaced holds %v", kept.ids())
	}
}

// verify runs nod audit verify, keyed, on the SQLite file path.
func verify(t *testing.T, path string) (string, error) {
	var out, errb bytes.Buffer
	err := run(t.Context(), []string{"audit", "verify", "-db", path}, func(k string) string {
		return map[string]string{"NOD_AUDIT_KEY": backupKey}[k]
	}, &out, &errb)
	return out.String(), err
}

// dbView is what a database holds of the load's two chats.
type dbView struct {
	tasks []nod.Task
	audit []nod.AuditEntry
}

// readFile reads a closed SQLite file (no -wal beside it) through a copy,
// so that the file itself is only read.
func readFile(t *testing.T, path string) dbView {
	t.Helper()
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatalf("%s has a -wal beside it: it is open", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db := storage.New(storage.Options{DSN: cp}, time.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return readDB(t, db)
}

// readDB reads the tasks and audit rows of both chats.
func readDB(t *testing.T, db *storage.DB) dbView {
	t.Helper()
	var v dbView
	for _, c := range []nod.ChatID{chat, chat + 1} {
		tasks, err := db.Tasks().ListTasks(t.Context(), c, nod.TaskFilter{})
		if err != nil {
			t.Fatal(err)
		}
		audit, err := db.Audit().AuditSince(t.Context(), c, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		v.tasks, v.audit = append(v.tasks, tasks...), append(v.audit, audit...)
	}
	return v
}

func (v dbView) ids() []string {
	var ids []string
	for _, t := range v.tasks {
		ids = append(ids, string(t.ID))
	}
	slices.Sort(ids)
	return ids
}

// consistent checks that v is one moment of the database: each task
// created by a turn has its create_task row and each such row its task;
// each seeded task's estimate is the one its latest update_task_estimate
// row set, or none without one.
func (v dbView) consistent(t *testing.T, name string) {
	t.Helper()
	created := map[string]bool{}
	estimate := map[nod.TaskID]int{}
	for _, a := range v.audit { // oldest first
		if a.Outcome != nod.OutcomeExecuted {
			continue
		}
		var args struct {
			Title    string     `json:"title"`
			TaskID   nod.TaskID `json:"task_id"`
			Estimate int        `json:"estimate_minutes"`
		}
		json.Unmarshal(a.Args, &args)
		switch a.Tool {
		case "create_task":
			created[args.Title] = true
		case "update_task_estimate":
			estimate[args.TaskID] = args.Estimate
		}
	}
	titles := map[string]bool{}
	for _, task := range v.tasks {
		titles[task.Title] = true
		switch {
		case strings.HasPrefix(task.Title, "Task ") && !created[task.Title]:
			t.Errorf("backup %s holds task %q without its create_task audit row", name, task.Title)
		case strings.HasPrefix(string(task.ID), "S"):
			got := 0
			if task.EstimateMinutes != nil {
				got = *task.EstimateMinutes
			}
			if got != estimate[task.ID] {
				t.Errorf("backup %s: task %s's estimate is %d, its audit rows say %d", name, task.ID, got, estimate[task.ID])
			}
		}
	}
	for title := range created {
		if !titles[title] {
			t.Errorf("backup %s has the create_task audit row of %q, not the task", name, title)
		}
	}
}

// reopen opens the harness's own handle on its database again, after a
// restore replaced the file it had open.
func (h *harness) reopen() {
	h.t.Helper()
	h.db = storage.New(storage.Options{DSN: h.dsn}, h.clock.Now, slog.New(slog.DiscardHandler))
	if err := h.db.Open(h.t.Context()); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { h.db.Close() })
}

// dirFiles names the files in dir, sorted.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// On PostgreSQL, nod backup and nod restore refuse while nod runs there,
// each in one line with the pg_dump or pg_restore command to use, and
// touch neither the file nor the database.
func TestBackupOnPostgres(t *testing.T) {
	t.Parallel()
	firstPassOnly(t, "it sets up PostgreSQL itself")
	h := postgresHarness(t)
	h.seedT1()
	h.start()
	file := filepath.Join(t.TempDir(), "nod.dump")
	for cmd, want := range map[string]string{"backup": "pg_dump --format=custom --file=" + file + " --dbname=", "restore": "pg_restore --clean --if-exists --single-transaction --dbname="} {
		var out bytes.Buffer
		err := run(t.Context(), []string{cmd, file}, func(k string) string { return h.env[k] }, &out, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") || out.Len() > 0 {
			t.Errorf("nod %s on PostgreSQL: %q, %v; want one line with %q", cmd, out.String(), err, want)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("nod backup on PostgreSQL wrote %s", file)
	}
	if task := h.task("T1"); task.Title != "Fix login bug" {
		t.Errorf("T1 = %q", task.Title)
	}
	storagetest.Exec(t, h.dsn, `SELECT 1`) // the database still answers
}
