package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage/storagetest"
)

// A scripted session writes exactly the expected audit rows;
// /audit shows them newest first; the CSV export reads back.
func TestAuditSessionAndExport(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clock.Advance(25 * time.Hour)
	h.clf = answer("needs", "needs")
	h.script(
		openaitest.Calls(call("l", "list_tasks", map[string]any{"query": "login"})),
		openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"}),
			call("b", "set_task_title", map[string]any{"task_id": "T1", "title": "Fix login, \"redirect\"\nbug"})),
		openaitest.Text("ok?"),
	)
	h.start()
	h.tg.SendText(chat, user, "look at the login task")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✗ 1")
	h.tap(chat, user, set.ID, "✓ 2")
	h.clf = answer("explicit:set the estimate to 90")
	h.script(openaitest.Calls(call("e", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90})), openaitest.Text("done"))
	h.tg.SendText(chat, user, "set the estimate to 90")
	h.tg.WaitBotMessages(chat, 4)

	got := outcomes(h.audit(chat))
	want := []string{"seed:executed", "list_tasks:executed", "set_task_priority:queued", "set_task_title:queued",
		"set_task_priority:rejected", "set_task_title:confirmed", "update_task_estimate:executed"}
	if !slices.Equal(got, want) {
		t.Errorf("audit rows\n got %v\nwant %v", got, want)
	}
	a := h.audit(chat)
	if !a[1].UserConfirmed || a[2].UserConfirmed || a[0].UserConfirmed || a[0].Verdict != "explicit" || a[len(a)-2].Duration < 0 {
		t.Errorf("user_confirmed/verdict wrong: %+v", a[:3])
	}
	h.tg.SendText(chat, user, "/audit")
	list := h.tg.WaitBotMessages(chat, 5)[4]
	// Written for the person: what changed, on which task, who decided;
	// newest first; look-ups left out.
	i, j := strings.Index(list.Text, "Applied as you asked: Set estimate to 1 h 30 min"), strings.Index(list.Text, "You rejected: Set priority to P1")
	if i < 0 || j < i || strings.Contains(list.Text, "list_tasks") || !strings.Contains(list.Text, "You confirmed: Set title to") {
		t.Errorf("/audit reads:\n%s", list.Text)
	}
	h.stop()

	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"audit", "export", "-chat", "100", "-db", h.dsn}, func(string) string { return "" }, &out, &errb); err != nil {
		t.Fatalf("export: %v\n%s", err, errb.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatalf("export is not CSV: %v", err)
	}
	if len(rows) != len(want)+1 || rows[0][4] != "tool" || rows[1][4] != "seed" || rows[len(rows)-1][4] != "update_task_estimate" {
		t.Errorf("CSV rows = %v", rows)
	}
	var found bool
	for _, r := range rows {
		found = found || strings.Contains(r[11], "Fix login, \\\"redirect\\\"\\nbug")
	}
	if !found {
		t.Errorf("the title with a comma, quotes and a newline did not round-trip")
	}
	out.Reset()
	if err := run(t.Context(), []string{"audit", "export", "-chat", "999", "-db", h.dsn}, func(string) string { return "" }, &out, &errb); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("empty export = %q, %v", out.String(), err)
	}
}

// Undo refuses when the task changed since; Undo anyway restores.
func TestUndoAnyway(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	explicit := func(n int, p string) telegramtest.Message {
		h.clf = answer("explicit:make it " + p)
		h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": p})), openaitest.Text("ok"))
		h.tg.SendText(chat, user, "make it "+p)
		return h.tg.WaitBotMessages(chat, n)[n-2]
	}
	first := explicit(2, "P1")
	explicit(4, "P2")
	ans := h.tap(chat, user, first.ID, "↩️ Undo")
	if !strings.Contains(ans, "changed since") || h.task("T1").Priority != nod.P2 {
		t.Errorf("stale undo answered %q, priority %s", ans, h.task("T1").Priority)
	}
	offer := h.tg.WaitBotMessages(chat, 5)[4]
	b, _ := offer.Button("↩️ Undo anyway")
	h.tap(chat, user, offer.ID, "↩️ Undo anyway")
	if h.task("T1").Priority != nod.P3 {
		t.Errorf("Undo anyway: priority %s", h.task("T1").Priority)
	}
	if got := outcomes(h.audit(chat)); got[len(got)-1] != "set_task_priority:undone" {
		t.Errorf("audit ends %v", got)
	}
	// Answered, the question keeps neither answer: no Leave as is beside
	// what it did.
	h.tg.WaitMessage(chat, offer.ID, "the question without its buttons", func(m telegramtest.Message) bool { return len(m.Buttons()) == 0 })
	// A double tap on the same Undo undoes once.
	if ans := h.tg.WaitAnswer(h.tg.Press(chat, user, offer.ID, b.Data)); !strings.Contains(ans, "Already") {
		t.Errorf("second Undo anyway answered %q", ans)
	}
}

// The audit log is a hash chain per chat: `nod audit verify` passes on
// what nod wrote and names the first row edited or removed behind its back.
func TestAuditVerify(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise it")
	h.tap(chat, user, set.ID, "✓ 1")
	h.stop()
	verify := func() (string, error) {
		var out, errb bytes.Buffer
		err := run(t.Context(), []string{"audit", "verify", "-db", h.dsn}, func(string) string { return "" }, &out, &errb)
		return out.String(), err
	}
	if out, err := verify(); err != nil || !strings.HasPrefix(out, "ok: 3 audit rows") {
		t.Fatalf("verify on an untouched log: %q, %v", out, err)
	}
	rows := h.audit(chat) // newest first: confirmed, queued, seed
	storagetest.Exec(t, h.dsn, fmt.Sprintf(`UPDATE audit_log SET outcome = 'rejected' WHERE id = %d`, rows[0].ID))
	if out, err := verify(); !errors.Is(err, errBroken) || !strings.Contains(out, fmt.Sprintf("audit row %d its content", rows[0].ID)) {
		t.Errorf("verify after an edit: %q, %v", out, err)
	}
	storagetest.Exec(t, h.dsn, fmt.Sprintf(`UPDATE audit_log SET outcome = 'confirmed' WHERE id = %d`, rows[0].ID),
		fmt.Sprintf(`DELETE FROM audit_log WHERE id = %d`, rows[1].ID))
	if out, err := verify(); !errors.Is(err, errBroken) || !strings.Contains(out, fmt.Sprintf("audit row %d does not follow", rows[0].ID)) {
		t.Errorf("verify after a deletion: %q, %v", out, err)
	}
}

// A chain alone cannot see its newest rows cut off; a head kept outside
// the database can. With NOD_AUDIT_KEY the rows and the heads are keyed:
// someone with only database access can neither rewrite a row with a
// fresh hash nor forge a head.
func TestAuditHeadAndKey(t *testing.T) {
	t.Parallel()
	cli := func(env map[string]string, args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(t.Context(), append([]string{"audit"}, args...), func(k string) string { return env[k] }, &out, &errb)
		return out.String() + errb.String(), err
	}
	t.Run("plain", func(t *testing.T) {
		h := newHarness(t)
		set := h.startWithRaise("raise it")
		h.tap(chat, user, set.ID, "✓ 1")
		h.stop()
		env := map[string]string{"NOD_DB": h.dsn}
		head, err := cli(env, "head")
		if err != nil || !strings.HasPrefix(head, "nod-audit-head-v1:") || !strings.Contains(head, ":unsigned") {
			t.Fatalf("nod audit head = %q, %v", head, err)
		}
		rows := h.audit(chat) // newest first
		storagetest.Exec(t, h.dsn, fmt.Sprintf(`DELETE FROM audit_log WHERE id = %d`, rows[0].ID))
		if out, err := cli(env, "verify"); err != nil || !strings.HasPrefix(out, "ok:") || !strings.Contains(out, "cannot be found without -head") {
			t.Errorf("verify without a head after cutting the tail: %q, %v (a chain alone cannot tell)", out, err)
		}
		if out, err := cli(env, "verify", "-head", strings.TrimSpace(head)); !errors.Is(err, errBroken) || !strings.Contains(out, "rows were removed") {
			t.Errorf("verify -head after cutting the tail: %q, %v", out, err)
		}
	})
	t.Run("keyed", func(t *testing.T) {
		h := newHarness(t)
		h.env["NOD_AUDIT_KEY"] = "audit-key-for-tests"
		set := h.startWithRaise("raise it")
		h.tap(chat, user, set.ID, "✓ 1")
		h.tg.Wait("the head to be logged", func() bool { return strings.Contains(h.logs.String(), "audit head") })
		h.stop()
		if strings.Contains(h.logs.String(), "audit-key-for-tests") {
			t.Errorf("the audit key is in the logs")
		}
		keyed := map[string]string{"NOD_DB": h.dsn, "NOD_AUDIT_KEY": "audit-key-for-tests"}
		plain := map[string]string{"NOD_DB": h.dsn}
		if out, err := cli(plain, "verify"); err == nil || !strings.Contains(err.Error(), "needs the key") {
			t.Errorf("verify of a keyed log without the key: %q, %v", out, err)
		}
		head, err := cli(keyed, "head")
		if err != nil || strings.Contains(head, "unsigned") {
			t.Fatalf("keyed head = %q, %v", head, err)
		}
		head = strings.TrimSpace(head)
		if out, err := cli(keyed, "verify", "-head", head); err != nil || !strings.HasPrefix(out, "ok:") {
			t.Errorf("verify -head of an untouched keyed log: %q, %v", out, err)
		}
		forged := head[:len(head)-4] + "0000"
		if out, err := cli(keyed, "verify", "-head", forged); !errors.Is(err, errBroken) || !strings.Contains(out, "signature") {
			t.Errorf("verify -head with a forged head: %q, %v", out, err)
		}
		// A nod started without the key on the keyed log would write rows
		// that break it: it refuses, saying what to set.
		delete(h.env, "NOD_AUDIT_KEY")
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a start that succeeds runs until then
		defer cancel()
		if err := run(ctx, nil, func(k string) string { return h.env[k] }, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "start nod with the same NOD_AUDIT_KEY") {
			t.Errorf("a start without the key on a keyed log: %v", err)
		}
		// Someone with the database but not the key rewrites the newest
		// row and gives it a fresh plain hash: the keyed chain sees it.
		rows := h.audit(chat)
		storagetest.Exec(t, h.dsn, fmt.Sprintf(`UPDATE audit_log SET outcome = 'rejected', hash = 'deadbeef' WHERE id = %d`, rows[0].ID))
		if out, err := cli(keyed, "verify"); !errors.Is(err, errBroken) || !strings.Contains(out, fmt.Sprintf("audit row %d", rows[0].ID)) {
			t.Errorf("verify after a rewrite: %q, %v", out, err)
		}
	})
	if _, err := cli(map[string]string{}, "verify", "-db", filepath.Join(t.TempDir(), "typo.db")); err == nil {
		t.Errorf("verify of a database that does not exist passed")
	}
}

// /audit's times are the chat's: a change at 10:00 UTC in a chat in
// Berlin is listed at 11:00.
func TestAuditInTheChatsZone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.inBerlin(chat)
	h.clf = answer("explicit:make it P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("P1."))
	h.start()
	h.tg.SendText(chat, user, "make it P1")
	h.tg.WaitBotMessages(chat, 2)
	h.tg.SendText(chat, user, "/audit")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "<code>11 Mar 2026, 11:00</code>") || strings.Contains(m.Text, "10:00") {
		t.Errorf("/audit = %q", m.Text)
	}
}

// In a group /audit names who decided each row, to whoever reads it, and
// a reminder's rows say what they did at the chat's time: Alice's words
// set it, her ⏰ snoozed it, Bob confirmed his review's proposal.
func TestGroupAuditNamesMembersAndReminders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.inGroup()
	h.inBerlin(group)
	h.clf = answer("explicit:remind me tomorrow at 9 about the launch post")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "L1", "remind_at": "2026-03-12T09:00"})), openaitest.Text("I'll remind you."))
	h.start()
	h.tg.SendText(group, user, "remind me tomorrow at 9 about the launch post")
	h.tg.WaitBotMessages(group, 2)
	h.clock.Set(time.Date(2026, 3, 12, 8, 0, 30, 0, time.UTC)) // 09:00 in Berlin
	h.tg.Wait("the reminder", func() bool { return len(h.reminders(group)) == 1 })
	h.tap(group, user, h.reminders(group)[0].ID, "⏰ 1 h")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("A suggestion."))
	h.tg.SendText(group, bob, "/review")
	h.tap(group, bob, h.withButton(group, "✓ 1").ID, "✓ 1")
	h.settleMessages()

	for _, reader := range []int64{user, bob} {
		n := len(h.tg.BotMessages(group))
		h.tg.SendText(group, reader, "/audit")
		list := h.tg.WaitBotMessages(group, n+1)[n].Text
		i := strings.Index(list, "Bob confirmed: Set priority to P1")
		j := strings.Index(list, "Alice did: snoozed the reminder to 12 Mar 2026, 10:00")
		k := strings.Index(list, "Applied as Alice asked: set a reminder for 12 Mar 2026, 09:00")
		if i < 0 || j < i || k < j || strings.Contains(list, "You") || strings.Contains(list, "you asked") || strings.Contains(list, "Clear the reminder") {
			t.Errorf("/audit read by %d:\n%s", reader, list)
		}
	}
}
