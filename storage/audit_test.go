package storage_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// Someone with the database but not NOD_AUDIT_KEY rewrites a keyed row,
// gives it a valid plain hash and relinks the rows after it: once the log
// is keyed, a plain row after the first keyed one is a break. Rows written
// before the key was set still verify.
func TestKeyedAuditRefusesPlainRows(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			clock := fixtures.NewClock(fixtures.DefaultNow)
			dsn := storagetest.Migrated(t, d)
			plain := storagetest.OpenDSN(t, dsn, clock.Now)
			add := func(db *storage.DB, reason string) {
				t.Helper()
				clock.Advance(time.Minute)
				if err := db.Audit().AddAudit(t.Context(), nod.AuditEntry{ChatID: chat, UserID: 42, Tool: "set_task_priority", Outcome: nod.OutcomeExecuted, Reason: reason, At: clock.Now()}); err != nil {
					t.Fatal(err)
				}
			}
			add(plain, "before the key")
			keyed := storage.New(storage.Options{DSN: dsn, AuditKey: []byte("audit-key-for-tests")}, clock.Now, slog.New(slog.DiscardHandler))
			if err := keyed.Open(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { keyed.Close() })
			for _, r := range []string{"one", "two", "three"} {
				add(keyed, r)
			}
			if brk, n, err := keyed.Audit().VerifyAudit(t.Context()); brk != nil || err != nil || n != 4 {
				t.Fatalf("an untouched log: %+v, %d, %v", brk, n, err)
			}
			if on, err := keyed.Audit().AuditKeyed(t.Context()); !on || err != nil {
				t.Errorf("AuditKeyed = %v, %v", on, err)
			}
			// The attacker rewrites "two" and relinks "three" with plain hashes.
			rows, err := keyed.Audit().Audit(t.Context(), chat, 10) // newest first
			if err != nil {
				t.Fatal(err)
			}
			three, two, one := rows[0], rows[1], rows[2]
			prev, err := keyed.AuditLink(t.Context(), one.ID)
			if err != nil {
				t.Fatal(err)
			}
			two.Reason = "rewritten"
			h2 := storage.PlainLink(prev, two)
			h3 := storage.PlainLink(h2, three)
			storagetest.Exec(t, dsn,
				fmt.Sprintf(`UPDATE audit_log SET reason = 'rewritten', hash = '%s' WHERE id = %d`, h2, two.ID),
				fmt.Sprintf(`UPDATE audit_log SET prev_hash = '%s', hash = '%s' WHERE id = %d`, h2, h3, three.ID))
			brk, _, err := keyed.Audit().VerifyAudit(t.Context())
			if err != nil || brk == nil || brk.ID != two.ID || !strings.Contains(brk.Why, "keyed") {
				t.Errorf("VerifyAudit after a plain rewrite = %+v, %v; want a break at row %d", brk, err, two.ID)
			}
		})
	}
}

// A reminder's audit row keeps the reminder it replaced, as "was" (null
// when there was none), beside the call's own arguments: what tells
// setting a reminder from moving or clearing one.
func TestReminderRowKeepsWhatItReplaced(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects(t) {
		t.Run(d, func(t *testing.T) {
			db := storagetest.Open(t, d, fixtures.NewClock(fixtures.DefaultNow).Now)
			seedT1(t, db)
			nine := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
			ten := nine.Add(time.Hour)
			remind := func(at *time.Time, args string) nod.AuditEntry {
				t.Helper()
				_, err := db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: 42, TaskID: "T1", Tool: nod.ToolSetReminder, Args: []byte(args),
					Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = at; return *cur, nil },
					Audit:  nod.AuditEntry{Outcome: nod.OutcomeExecuted, UserConfirmed: true}})
				if err != nil {
					t.Fatal(err)
				}
				rows, err := db.Audit().Audit(t.Context(), chat, 1)
				if err != nil {
					t.Fatal(err)
				}
				return rows[0]
			}
			set := remind(&nine, `{"task_id":"T1","remind_at":"2026-03-12T09:00:00Z"}`)
			moved := remind(&ten, `{"task_id":"T1","remind_at":"2026-03-12T10:00:00Z","snooze":true}`)
			cleared := remind(nil, `{"task_id":"T1","remind_at":null}`)
			for _, c := range []struct {
				name string
				row  nod.AuditEntry
				was  string
			}{{"set", set, ""}, {"moved", moved, "2026-03-12T09:00:00Z"}, {"cleared", cleared, "2026-03-12T10:00:00Z"}} {
				if !c.row.HasArg("was") || c.row.Arg("was") != c.was || c.row.Arg("task_id") != "T1" {
					t.Errorf("%s: args %s, want was %q", c.name, c.row.Args, c.was)
				}
			}
			if moved.Arg("snooze") != "true" || moved.Arg("remind_at") != "2026-03-12T10:00:00Z" {
				t.Errorf("the call's own arguments were not kept: %s", moved.Args)
			}
			if brk, _, err := db.Audit().VerifyAudit(t.Context()); brk != nil || err != nil {
				t.Errorf("the audit chain breaks: %+v, %v", brk, err)
			}
		})
	}
}
