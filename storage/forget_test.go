package storage_test

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/storage"
	"github.com/nodbot/nod/storage/storagetest"
)

// The people of the forget tests: Alice (42), whose private chat has her
// id, and Bob (43), both members of group -500. Every word of Alice's
// holds aliceMark, of Bob's bobMark.
const (
	alice, bob = 42, 43
	aliceChat  = 42
	group      = -500
	aliceMark  = "ALICE-MARK"
	bobMark    = "BOB-MARK"
)

// openForget opens a database of dialect d, with the audit key if keyed.
func openForget(t *testing.T, d string, keyed bool, clock *fixtures.Clock) (*storage.DB, string) {
	t.Helper()
	dsn := storagetest.DSN(t, d)
	opts := storage.Options{DSN: dsn}
	if keyed {
		opts.AuditKey = []byte("audit-key-for-tests")
	}
	db := storage.New(opts, clock.Now, slog.New(slog.DiscardHandler))
	if err := db.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}

// forEachChain runs fn on every dialect with a plain and a keyed chain.
func forEachChain(t *testing.T, fn func(t *testing.T, db *storage.DB, dsn string, clock *fixtures.Clock)) {
	for _, d := range storagetest.Dialects(t) {
		for _, keyed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keyed=%v", d, keyed), func(t *testing.T) {
				clock := fixtures.NewClock(fixtures.DefaultNow)
				db, dsn := openForget(t, d, keyed, clock)
				fn(t, db, dsn, clock)
			})
		}
	}
}

// seedEveryTable writes, for Alice and Bob, a row into every table that
// can hold one of a person's: Alice's private chat, and both in the
// group. Written straight, so that no table is left out because no flow
// of nod happens to fill it.
func seedEveryTable(t *testing.T, db *storage.DB, dsn string) {
	t.Helper()
	ctx := t.Context()
	var stmts []string
	for _, p := range []struct {
		chat int64
		user int64
		mark string
		tag  string // what the chat and its rows are called
	}{{aliceChat, alice, aliceMark, "ap"}, {group, alice, aliceMark, "ag"}, {group, bob, bobMark, "bg"}} {
		f := func(s string) string {
			return strings.NewReplacer("$C", fmt.Sprint(p.chat), "$U", fmt.Sprint(p.user), "$M", p.mark, "$T", p.tag).Replace(s)
		}
		remind := "NULL, NULL, 0"
		if p.user == alice {
			remind = "5, 5, $U"
		}
		if p.chat == group && p.user == alice {
			// The group's task stays; Alice set its reminder.
			stmts = append(stmts, f(`INSERT INTO tasks (id, chat_id, title, description, status, priority, labels, created_at, updated_at, remind_at, remind_due, remind_by, created_by)
				VALUES ('G-$T', $C, 'group task', '', 'OPEN', 'P2', '[]', 1, 1, `+remind+`, $U)`))
		} else {
			stmts = append(stmts, f(`INSERT INTO tasks (id, chat_id, title, description, status, priority, labels, created_at, updated_at, remind_at, remind_due, remind_by, created_by)
				VALUES ('T-$T', $C, 'task $M', 'desc $M', 'OPEN', 'P2', '["$M"]', 1, 1, `+remind+`, $U)`),
				f(`INSERT INTO checklist_items (id, task_id, position, title, checked) VALUES ('c-$T', 'T-$T', 0, 'item $M', 0)`),
				f(`INSERT INTO cards (chat_id, task_id, message_id) VALUES ($C, 'T-$T', 7)`))
		}
		stmts = append(stmts,
			f(`INSERT INTO change_sets (id, chat_id, user_id, status, message_id, created_at, expires_at) VALUES ('s-$T', $C, $U, 'pending', 8, 1, 99999999999999)`),
			f(`INSERT INTO change_items (id, set_id, n, tool, task_id, args, summary, field, before, after, status) VALUES ('i-$T', 's-$T', 1, 'set_task_title', 'T-$T', '{"title":"$M"}', 'Set title to $M', 'title', 'a', '$M', 'pending')`),
			f(`INSERT INTO decisions (id, chat_id, set_id, item_id, n, user_id, verdict, reason, tool, summary, created_at, words) VALUES ('d-$T', $C, 's-$T', 'i-$T', 1, $U, 'rejected', 'because $M', 'set_task_title', 'Set title to $M', 1, 'no $M')`),
			f(`INSERT INTO undo_entries (id, chat_id, user_id, task_id, tool, summary, before, after, created_at, expires_at, delta) VALUES ('u-$T', $C, $U, 'T-$T', 'set_task_title', 'Set title to $M', '', '', 1, 99999999999999, '{"title":"$M"}')`),
			f(`INSERT INTO pending_deletions (id, chat_id, user_id, task_id, title, wait_us, created_at) VALUES ('p-$T', $C, $U, 'T-$T', 'task $M', 1, 1)`),
			f(`INSERT INTO rules (id, chat_id, user_id, kind, status, message_id, created_at) VALUES ('r-$T', $C, $U, 'set_task_priority=P1', 'active', 9, 1)`),
			f(`INSERT INTO readings (id, chat_id, user_id, set_id, confirm, reject, reason, created_at) VALUES ('g-$T', $C, $U, 's-$T', '[1]', '[]', 'as $M said', 1)`),
			f(`INSERT INTO member_modes (chat_id, user_id, mode, updated_at) VALUES ($C, $U, 'trusted', 1)`),
			f(`INSERT INTO zone_changes (id, chat_id, user_id, before_tz, after_tz, created_at) VALUES ('z-$T', $C, $U, '', 'Europe/Berlin', 1)`),
			f(`INSERT INTO external_calls (id, chat_id, user_id, tool, args, set_id, n, state, result, claimed_at) VALUES ('x-$T', $C, $U, 'mcp__notebook__add_note', '{"text":"$M"}', 's-$T', 1, 'done', '{"text":"added $M"}', 1)`),
			f(`INSERT INTO outbox (chat_id, kind, ref, payload, owner, taken_at) VALUES ($C, 'receipt', 'u-$T', '{"quote":"$M"}', 'x', 1)`),
			f(`INSERT INTO outbox (chat_id, kind, ref, payload, owner, taken_at) VALUES ($C, 'set', 's-$T', '', 'x', 1)`),
			f(`INSERT INTO outbox (chat_id, kind, ref, payload, owner, taken_at) VALUES ($C, 'answer', 't-$T', '{"text":"hello $M"}', 'x', 1)`),
			f(`INSERT INTO outbox (chat_id, kind, ref, payload, owner, taken_at) VALUES ($C, 'reminder', 'T-$T', '{"due":5,"user":$U}', 'x', 1)`),
			f(`INSERT INTO button_messages (chat_id, message_id, data, created_at) VALUES ($C, 8, '1:c:s-$T', 1)`),
		)
		if p.chat == group {
			stmts = append(stmts, f(`INSERT INTO chat_members (chat_id, user_id, name, updated_at) VALUES ($C, $U, '$M', 1)`))
		}
	}
	stmts = append(stmts,
		fmt.Sprintf(`INSERT INTO chat_settings (chat_id, mode, updated_at, lang, tz) VALUES (%d, 'smart', 1, 'de', 'Europe/Berlin')`, aliceChat),
		fmt.Sprintf(`INSERT INTO chat_settings (chat_id, mode, updated_at, tz, daily_at, daily_by, daily_due) VALUES (%d, 'smart', 1, 'Europe/Berlin', '08:00', %d, 5)`, group, alice),
		`INSERT INTO processed_updates (update_id, created_at) VALUES (7001, 1)`,
		`INSERT INTO evals (model, at, cases, calls, false_explicit, false_confirm) VALUES ('m', 1, 1, 1, 0, 0)`,
	)
	storagetest.Exec(t, dsn, stmts...)
	// The conversations: Alice's private one; in the group Alice's turn
	// (her line, nod's call and answer), then Bob's, which replies to
	// hers, then a turn's notes naming them both.
	line := func(at nod.Topic, msgs ...nod.ChatMessage) {
		t.Helper()
		if err := db.Conversation().SaveTurn(ctx, nod.TurnRecord{Topic: at, Messages: msgs}); err != nil {
			t.Fatal(err)
		}
	}
	line(nod.Topic{ChatID: aliceChat}, nod.ChatMessage{Role: nod.RoleUser, Content: "raise it " + aliceMark, UserID: alice},
		nod.ChatMessage{Role: nod.RoleAssistant, Content: "Done, " + aliceMark})
	line(nod.Topic{ChatID: group},
		nod.ChatMessage{Role: nod.RoleUser, Content: "hello " + aliceMark, UserID: alice, Speaker: "Alice (42)"},
		nod.ChatMessage{Role: nod.RoleAssistant, ToolCalls: []nod.ToolCall{{ID: "c", Name: "create_task", Arguments: `{"title":"` + aliceMark + `"}`}}},
		nod.ChatMessage{Role: nod.RoleTool, ToolCallID: "c", Content: `{"title":"` + aliceMark + `"}`},
		nod.ChatMessage{Role: nod.RoleAssistant, Content: "Added " + aliceMark})
	line(nod.Topic{ChatID: group},
		nod.ChatMessage{Role: nod.RoleUser, Content: "hello " + bobMark, UserID: bob, Speaker: "Bob (43)"},
		nod.ChatMessage{Role: nod.RoleAssistant, Content: "Hi Bob " + bobMark},
		nod.ChatMessage{Role: nod.RoleUser, Content: "me too " + bobMark, UserID: bob, Speaker: "Bob (43)", ReplyTo: "Alice (42)'s message “hello " + aliceMark + "”"},
		nod.ChatMessage{Role: nod.RoleEvent, Content: "Meanwhile, outside this conversation (oldest first):\n- 2026-03-11 10:00 Alice (42) confirmed your proposal “" + aliceMark + "”\n- 2026-03-11 10:01 Bob (43) rejected your proposal “" + bobMark + "”"},
		nod.ChatMessage{Role: nod.RoleUser, Content: "and now " + bobMark, UserID: bob, Speaker: "Bob (43)"})
	// In a topic of the group, Alice's line and nod's answer are the
	// newest.
	line(nod.Topic{ChatID: group, Thread: 5}, nod.ChatMessage{Role: nod.RoleUser, Content: "in the topic " + bobMark, UserID: bob, Speaker: "Bob (43)"},
		nod.ChatMessage{Role: nod.RoleUser, Content: "in the topic " + aliceMark, UserID: alice, Speaker: "Alice (42)"},
		nod.ChatMessage{Role: nod.RoleAssistant, Content: "Noted, " + aliceMark})
	// Bob forwards Alice's message to nod, in his private chat: his
	// message, which names her.
	line(nod.Topic{ChatID: bob}, nod.ChatMessage{Role: nod.RoleUser, Content: "look " + bobMark, UserID: bob, Forwarded: "Alice (42), 2026-03-10 09:00"})
	// The audit rows: written before salted digests (legacy) and since,
	// each person's, and nod's record of Alice's turn cut short.
	for _, p := range []struct {
		chat        int64
		user        nod.UserID
		mark        string
		interrupted string
	}{{aliceChat, alice, aliceMark, ""}, {group, alice, aliceMark, "hello " + aliceMark}, {group, bob, bobMark, "hello " + bobMark}} {
		row := nod.AuditEntry{ChatID: nod.ChatID(p.chat), UserID: p.user, Tool: "set_task_title", Args: []byte(`{"task_id":"T1","title":"` + p.mark + `"}`),
			Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "because " + p.mark, Error: "err " + p.mark, At: fixtures.DefaultNow}
		if err := db.AddLegacyAudit(ctx, row); err != nil {
			t.Fatal(err)
		}
		if err := db.Audit().AddAudit(ctx, row); err != nil {
			t.Fatal(err)
		}
		if p.interrupted != "" {
			if err := db.Outbox().Interrupted(ctx, nod.Topic{ChatID: nod.ChatID(p.chat)}, p.interrupted, "r1"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// names reports where a dump still names Alice, but where allowed says
// it may.
func names(dump map[string][]storagetest.Row, allowed func(storagetest.Hit) bool) []string {
	var out []string
	for _, h := range storagetest.Find(dump, aliceMark, alice) {
		if allowed == nil || !allowed(h) {
			out = append(out, h.String())
		}
	}
	return out
}

// bobsRows are the rows that hold Bob's words or name him, and not
// Alice, as text.
func bobsRows(dump map[string][]storagetest.Row) []string {
	alices := storagetest.Holding(dump, aliceMark, alice)
	var out []string
	for _, r := range storagetest.Holding(dump, bobMark, bob) {
		if !slices.Contains(alices, r) {
			out = append(out, r)
		}
	}
	return out
}

// privateChain allows what the private chat's audit chain keeps: its
// chat id (Telegram's private chat id is the person's), which names the
// chain its links and the heads pinned before were written under.
func privateChain(h storagetest.Hit) bool {
	return h.Table == "audit_log" && h.Column == "chat_id" && (h.Row["redacted"] == "1" || h.Row["tool"] == string(nod.ToolForget))
}

// Forget deletes every row of Alice's private chat in every table, and
// her rows in the group's, in one transaction: afterwards no table names
// her but the private chat's audit chain by its id; Bob's rows are as
// they were, the group's task stays with her reminder cleared, the audit
// log verifies, keyed or not, and a head pinned before still does.
func TestForgetEveryTable(t *testing.T) {
	t.Parallel()
	forEachChain(t, func(t *testing.T, db *storage.DB, dsn string, clock *fixtures.Clock) {
		ctx := t.Context()
		seedEveryTable(t, db, dsn)
		head, err := db.Audit().AuditHead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		before := storagetest.Dump(t, dsn)
		if got := names(before, nil); len(got) < 40 {
			t.Fatalf("the seed names Alice only %d times: %v", len(got), got)
		}
		for table, rows := range before {
			if len(rows) == 0 && table != "forget_requests" {
				t.Errorf("the seed left table %s empty: it must hold a row for the test to look at", table)
			}
		}
		scope, err := db.People().PersonData(ctx, aliceChat, alice)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.People().AskForget(ctx, nod.ForgetRequest{UserID: alice, ChatID: aliceChat, ExpiresAt: clock.Now().Add(10 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		got, err := db.People().Forget(ctx, aliceChat, alice)
		if err != nil {
			t.Fatal(err)
		}
		// Private: 1 task; lines 2 + her group turn's 4 + the topic's 2; sets and rules
		// 1 each in both chats; reminders: her private task's and the
		// group task's; audit: 2 private, 2 + the interrupted one in the
		// group.
		want := nod.PersonData{Tasks: 1, Messages: 8, Proposals: 2, Rules: 2, Reminders: 2, Groups: 1, GroupTasks: 2, AuditRows: 5}
		if got != want || scope != want {
			t.Errorf("Forget = %+v, PersonData before = %+v; want %+v", got, scope, want)
		}
		after := storagetest.Dump(t, dsn)
		if left := names(after, privateChain); len(left) > 0 {
			t.Errorf("after forgetting Alice, the database still names her:\n%s", strings.Join(left, "\n"))
		}
		// Bob's rows are as they were (two more no longer name Alice:
		// below).
		kept := bobsRows(after)
		for _, r := range bobsRows(before) {
			if !slices.Contains(kept, r) {
				t.Errorf("Bob's row changed or went: %s", r)
			}
		}
		// The group's task stays, its reminder cleared; its daily review,
		// Alice's, is off; the update ids and evals, no one's, stay.
		task, err := db.Tasks().Task(ctx, group, "G-ag")
		if err != nil || task.RemindAt != nil {
			t.Errorf("the group's task: %+v, %v", task, err)
		}
		for table, n := range map[string]int{"processed_updates": 1, "evals": 1, "tasks": 2, "chat_settings": 1} {
			if len(after[table]) != n {
				t.Errorf("%s has %d rows, want %d: %v", table, len(after[table]), n, after[table])
			}
		}
		if s := after["chat_settings"][0]; s["daily_at"] != "" || s["tz"] != "Europe/Berlin" {
			t.Errorf("the group's settings: %v", s)
		}
		// The group's conversation keeps Bob's lines, his reply no longer
		// naming her, and the notes without hers.
		hist, err := db.Conversation().History(ctx, nod.Topic{ChatID: group}, nod.Window{Keep: 50})
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, m := range hist {
			lines = append(lines, string(m.Role)+": "+m.Content+" "+m.ReplyTo)
		}
		wantLines := []string{"user: hello " + bobMark + " ", "assistant: Hi Bob " + bobMark + " ", "user: me too " + bobMark + " a message of someone nod was asked to forget",
			"event: Meanwhile, outside this conversation (oldest first):\n- 2026-03-11 10:01 Bob (43) rejected your proposal “" + bobMark + "” ", "user: and now " + bobMark + " "}
		if !slices.Equal(lines, wantLines) {
			t.Errorf("the group's conversation:\n%s", strings.Join(lines, "\n"))
		}
		// In the topic, Alice's lines were the newest: the topic's newest
		// number stays taken, by a note that says what happened.
		topic, err := db.Conversation().History(ctx, nod.Topic{ChatID: group, Thread: 5}, nod.Window{Keep: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(topic) != 2 || topic[0].Content != "in the topic "+bobMark || topic[1].Role != nod.RoleEvent || topic[1].Seq != 3 ||
			!strings.Contains(topic[1].Content, "asked nod to forget them") {
			t.Errorf("the topic's conversation: %+v", topic)
		}
		if brk, n, err := db.Audit().VerifyAudit(ctx); brk != nil || err != nil || n != 10 {
			t.Errorf("verify after forgetting = %+v, %d rows, %v; want nil, 10", brk, n, err)
		}
		if why, err := db.Audit().VerifyHead(ctx, head); why != "" || err != nil {
			t.Errorf("the head pinned before forgetting: %q, %v", why, err)
		}
		// Asked once, forgotten once.
		if _, err := db.People().Forget(ctx, aliceChat, alice); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("a second Forget = %v, want ErrNotFound", err)
		}
	})
}

// auditRows returns chat's audit rows, oldest first.
func auditRows(t *testing.T, db *storage.DB, chatID nod.ChatID) []nod.AuditEntry {
	t.Helper()
	rows, err := db.Audit().Audit(t.Context(), chatID, 100)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(rows)
	return rows
}

// forgetAlice seeds the audit rows of TestForgetEveryTable alone and
// forgets Alice.
func forgetAlice(t *testing.T, db *storage.DB, dsn string, clock *fixtures.Clock) {
	t.Helper()
	seedEveryTable(t, db, dsn)
	if err := db.People().AskForget(t.Context(), nod.ForgetRequest{UserID: alice, ChatID: aliceChat, ExpiresAt: clock.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.People().Forget(t.Context(), aliceChat, alice); err != nil {
		t.Fatal(err)
	}
}

// After a forget, tampering is still found: with a redacted row's digest
// or the fields it keeps, with another person's row, and a row emptied to
// look redacted though no forget redacted it; legacy rows and salted
// ones alike, keyed chain and plain.
func TestForgetKeepsTamperingVisible(t *testing.T) {
	t.Parallel()
	forEachChain(t, func(t *testing.T, db *storage.DB, dsn string, clock *fixtures.Clock) {
		ctx := t.Context()
		forgetAlice(t, db, dsn, clock)
		rows := auditRows(t, db, group) // legacy Alice, salted Alice, interrupted, forget? no: Bob's come before the forget row
		var legacyAlice, saltedAlice, legacyBob, saltedBob nod.AuditEntry
		for _, r := range rows {
			switch {
			case r.Redacted && r.Tool == "set_task_title" && legacyAlice.ID == 0:
				legacyAlice = r
			case r.Redacted && r.Tool == "set_task_title":
				saltedAlice = r
			case strings.Contains(r.Reason, bobMark) && legacyBob.ID == 0:
				legacyBob = r
			case strings.Contains(r.Reason, bobMark):
				saltedBob = r
			}
		}
		if legacyAlice.ID == 0 || saltedAlice.ID == 0 || legacyBob.ID == 0 || saltedBob.ID == 0 {
			t.Fatalf("rows: %+v", rows)
		}
		for _, c := range []struct {
			name   string
			id     int64
			tamper string
			undo   string
			why    string
		}{
			{"a redacted salted row's digest", saltedAlice.ID, `UPDATE audit_log SET digest = 'ab' || digest WHERE id = %d`, `UPDATE audit_log SET digest = substr(digest, 3) WHERE id = %d`, "content does not match"},
			{"a redacted legacy row's outcome", legacyAlice.ID, `UPDATE audit_log SET outcome = 'rejected' WHERE id = %d`, `UPDATE audit_log SET outcome = 'executed' WHERE id = %d`, "does not match what forget row"},
			{"words put back into a redacted row", saltedAlice.ID, `UPDATE audit_log SET reason = 'made up' WHERE id = %d`, `UPDATE audit_log SET reason = '' WHERE id = %d`, "still holds content"},
			{"another person's salted row", saltedBob.ID, `UPDATE audit_log SET reason = 'made up' WHERE id = %d`, `UPDATE audit_log SET reason = 'because ` + bobMark + `' WHERE id = %d`, "content does not match"},
			{"another person's legacy row", legacyBob.ID, `UPDATE audit_log SET verdict = 'made up' WHERE id = %d`, `UPDATE audit_log SET verdict = 'explicit' WHERE id = %d`, "content does not match"},
			{"a salted row emptied to look redacted", saltedBob.ID, `UPDATE audit_log SET user_id = 0, args = '{}', verdict = '', error = '', reason = '', salt = '', redacted = 1 WHERE id = %d`, "", "no forget row"},
		} {
			storagetest.Exec(t, dsn, fmt.Sprintf(c.tamper, c.id))
			brk, _, err := db.Audit().VerifyAudit(ctx)
			if err != nil || brk == nil || brk.ID != c.id || !strings.Contains(brk.Why, c.why) {
				t.Errorf("%s: verify = %+v, %v; want a break at row %d (%s)", c.name, brk, err, c.id, c.why)
			}
			if c.undo == "" {
				continue
			}
			storagetest.Exec(t, dsn, fmt.Sprintf(c.undo, c.id))
			if brk, _, err := db.Audit().VerifyAudit(ctx); brk != nil || err != nil {
				t.Fatalf("%s undone: verify = %+v, %v", c.name, brk, err)
			}
		}
	})
}

// A legacy row emptied to look redacted, with no forget row, is a
// break; so is a row changed before nod forgot its person: forgetting
// its words does not hide that it was changed.
func TestForgetLegacyRowsNobodyRedacted(t *testing.T) {
	t.Parallel()
	forEachChain(t, func(t *testing.T, db *storage.DB, dsn string, clock *fixtures.Clock) {
		ctx := t.Context()
		seedEveryTable(t, db, dsn)
		rows := auditRows(t, db, group)
		legacyAlice, legacyBob := rows[0], rows[3]
		if legacyAlice.UserID != alice || legacyBob.UserID != bob {
			t.Fatalf("rows: %+v", rows)
		}
		storagetest.Exec(t, dsn, fmt.Sprintf(`UPDATE audit_log SET user_id = 0, args = '{}', verdict = '', error = '', reason = '', redacted = 1 WHERE id = %d`, legacyBob.ID))
		if brk, _, err := db.Audit().VerifyAudit(ctx); err != nil || brk == nil || brk.ID != legacyBob.ID || !strings.Contains(brk.Why, "no forget row") {
			t.Errorf("a legacy row emptied behind nod's back: %+v, %v", brk, err)
		}
		storagetest.Exec(t, dsn, fmt.Sprintf(`UPDATE audit_log SET user_id = %d, args = '%s', verdict = 'explicit', error = 'err %s', reason = 'because %s', redacted = 0 WHERE id = %d`,
			bob, legacyBob.Args, bobMark, bobMark, legacyBob.ID))
		if brk, _, err := db.Audit().VerifyAudit(ctx); brk != nil || err != nil {
			t.Fatalf("restored: %+v, %v", brk, err)
		}
		// Changed before the forget: the forget row says so.
		storagetest.Exec(t, dsn, fmt.Sprintf(`UPDATE audit_log SET reason = 'rewritten' WHERE id = %d`, legacyAlice.ID))
		if err := db.People().AskForget(ctx, nod.ForgetRequest{UserID: alice, ChatID: aliceChat, ExpiresAt: clock.Now().Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.People().Forget(ctx, aliceChat, alice); err != nil {
			t.Fatal(err)
		}
		if brk, _, err := db.Audit().VerifyAudit(ctx); err != nil || brk == nil || brk.ID != legacyAlice.ID || !strings.Contains(brk.Why, "changed before nod redacted it") {
			t.Errorf("a row changed before the forget: %+v, %v", brk, err)
		}
	})
}

// A /forget ends once: two deliveries of the phrase forget once, the
// other finds nothing waiting; one asked and left expires once, and then
// forgets nothing.
func TestForgetOnce(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, db *storage.DB, clock *fixtures.Clock) {
		ctx := t.Context()
		ask := func() {
			t.Helper()
			if err := db.People().AskForget(ctx, nod.ForgetRequest{UserID: alice, ChatID: aliceChat, ExpiresAt: clock.Now().Add(10 * time.Minute)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Audit().AddAudit(ctx, nod.AuditEntry{ChatID: aliceChat, UserID: alice, Tool: "mode", Outcome: nod.OutcomeExecuted}); err != nil {
			t.Fatal(err)
		}
		ask()
		var (
			wg   sync.WaitGroup
			errs = make([]error, 4)
		)
		for i := range errs {
			wg.Go(func() { _, errs[i] = db.People().Forget(ctx, aliceChat, alice) })
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, nod.ErrNotFound):
				t.Errorf("a racing Forget failed: %v", err)
			}
		}
		forgets := 0
		for _, r := range auditRows(t, db, aliceChat) {
			if r.Tool == nod.ToolForget {
				forgets++
			}
		}
		if won != 1 || forgets != 1 {
			t.Errorf("%d of 4 racing Forgets won, %d forget rows; want 1, 1", won, forgets)
		}

		ask()
		if r, ok, err := db.People().ForgetRequest(ctx, alice); !ok || err != nil || r.ChatID != aliceChat {
			t.Fatalf("ForgetRequest = %+v, %v, %v", r, ok, err)
		}
		clock.Advance(10 * time.Minute)
		if _, err := db.People().Forget(ctx, aliceChat, alice); !errors.Is(err, nod.ErrNotFound) {
			t.Errorf("Forget after its time = %v, want ErrNotFound", err)
		}
		exp, err := db.People().ExpireForgets(ctx, clock.Now())
		if err != nil || len(exp) != 1 || exp[0].UserID != alice {
			t.Errorf("ExpireForgets = %+v, %v", exp, err)
		}
		if exp, err := db.People().ExpireForgets(ctx, clock.Now()); len(exp) != 0 || err != nil {
			t.Errorf("ExpireForgets again = %+v, %v", exp, err)
		}
		ask()
		if _, ok, err := db.People().EndForget(ctx, alice); !ok || err != nil {
			t.Errorf("EndForget = %v, %v", ok, err)
		}
		if _, ok, err := db.People().EndForget(ctx, alice); ok || err != nil {
			t.Errorf("EndForget again = %v, %v", ok, err)
		}
	})
}
