package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/storage/storagetest"
)

// The forget tests' people: Alice (user, 42) and Bob (43), each in a
// private chat of their own (Telegram gives it the person's id) and both
// in group. Every word Alice says holds aliceMark, every word of Bob's
// bobMark.
const (
	aliceChat = user
	bobChat   = bob
	aliceMark = "ALICE-MARK"
	bobMark   = "BOB-MARK"
)

// seedAs stores a task of chatID as userID's (0: nobody's, as a group's
// imported tasks are).
func (h *harness) seedAs(chatID int64, userID nod.UserID, t nod.Task) {
	h.t.Helper()
	t.Status, t.Priority = nod.StatusOpen, nod.P3
	_, err := h.db.Tasks().Apply(h.t.Context(), nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(chatID)}, UserID: userID, Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(*nod.Task) (nod.Task, error) { return t, nil }})
	if err != nil {
		h.t.Fatalf("seed %q: %v", t.Title, err)
	}
}

// sayIn has userID send text in chatID and waits for replies more bot
// messages there; it returns them.
func (h *harness) sayIn(chatID, userID int64, text string, replies int) []telegramtest.Message {
	h.t.Helper()
	n := len(h.tg.BotMessages(chatID))
	h.tg.SendText(chatID, userID, text)
	return h.tg.WaitBotMessages(chatID, n+replies)[n:]
}

// ruleFor gives userID an accepted rule in chatID.
func (h *harness) ruleFor(chatID int64, userID nod.UserID) {
	h.t.Helper()
	r, _, err := h.db.Rules().OfferRule(h.t.Context(), nod.ChatID(chatID), userID, "set_task_priority=P1")
	if err == nil {
		_, err = h.db.Rules().DecideRule(h.t.Context(), nod.ChatID(chatID), r.ID, userID, true)
	}
	if err != nil {
		h.t.Fatal(err)
	}
}

// seedPerson gives a person, whose words hold mark, a task in their
// private chat and a rule there and in the group: before nod starts,
// as the database's own rows are written unkeyed.
func (h *harness) seedPerson(private int64, userID nod.UserID, mark, task string) {
	h.t.Helper()
	h.seedAs(private, userID, nod.Task{ID: nod.TaskID(task), Title: "Pay rent " + mark})
	h.ruleFor(private, userID)
	h.ruleFor(group, userID)
}

// livesIn gives a seeded person a life in nod: in their private chat a
// reminder they asked for and a proposal waiting; in the group a
// reminder on the group's task, a proposal waiting and a mode.
func (h *harness) livesIn(private int64, userID nod.UserID, mark, task, groupTask string) {
	h.t.Helper()
	id := int64(userID)
	words := "remind me tomorrow at 9 to pay rent " + mark
	h.clf = answer("explicit:" + words)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": task, "remind_at": "2026-03-12T09:00"})), openaitest.Text("I'll remind you."))
	h.sayIn(private, id, words, 2)
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": task, "priority": "P2"})), openaitest.Text("Raise it?"))
	h.sayIn(private, id, "rent feels urgent "+mark, 2)

	words = "remind me tomorrow at 9 about the " + groupTask + " " + mark
	h.clf = answer("explicit:" + words)
	// The model answers in the person's words, as models do.
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": groupTask, "remind_at": "2026-03-12T09:00"})), openaitest.Text("I'll remind you, "+mark+"."))
	h.sayIn(group, id, words, 2)
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": groupTask, "priority": "P2"})), openaitest.Text("Raise it?"))
	h.sayIn(group, id, "the "+groupTask+" could be urgent "+mark, 2)
	h.sayIn(group, id, "/mode always", 1)
	h.settleMessages()
}

// auditCLI runs `nod audit` with args on h's database, the audit key
// given when keyed.
func (h *harness) auditCLI(keyed bool, args ...string) (string, error) {
	h.t.Helper()
	env := map[string]string{"NOD_DB": h.dsn}
	if keyed {
		env["NOD_AUDIT_KEY"] = h.env["NOD_AUDIT_KEY"]
	}
	var out, errb bytes.Buffer
	err := run(h.t.Context(), append([]string{"audit"}, args...), func(k string) string { return env[k] }, &out, &errb)
	return out.String() + errb.String(), err
}

// Alice has nod forget her: /forget in her private chat shows what goes
// and waits for the phrase; typed (any case, any space around it), one
// transaction deletes her private chat and her traces in the group. No
// table holds a word of hers or names her afterwards but the private
// chat's audit chain by its id; Bob's rows are as they were; the
// group's tasks stay, her reminder on one cleared; a redelivered phrase
// forgets nothing more; `nod audit verify` passes, keyed and plain, and
// still finds a redacted row's digest or Bob's row changed.
func TestForgetAPerson(t *testing.T) {
	t.Parallel()
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if keyed {
				h.env["NOD_AUDIT_KEY"] = "audit-key-for-tests"
			}
			h.tg.Wire().SetName(user, "Alice")
			h.tg.Wire().SetName(bob, "Bob")
			h.seedAs(group, 0, nod.Task{ID: "L1", Title: "Launch post"})
			h.seedAs(group, 0, nod.Task{ID: "L2", Title: "Budget review"})
			h.seedPerson(aliceChat, user, aliceMark, "A1")
			h.seedPerson(bobChat, bob, bobMark, "B1")
			h.start()
			h.livesIn(aliceChat, user, aliceMark, "A1", "L1")
			h.livesIn(bobChat, bob, bobMark, "B1", "L2")
			head, err := h.auditCLI(keyed, "head")
			if err != nil {
				t.Fatal(err)
			}

			// In the group, /forget says where; nothing goes.
			if m := h.sayIn(group, user, "/forget", 1)[0]; !strings.Contains(m.Text, "send /forget to me in a private chat") {
				t.Errorf("/forget in the group = %q", m.Text)
			}
			before := storagetest.Dump(t, h.dsn)
			if n := len(storagetest.Find(before, aliceMark, user)); n < 30 {
				t.Fatalf("Alice is named only %d times before: the test sees too little", n)
			}
			prompt := h.sayIn(aliceChat, user, "/forget", 1)[0]
			for _, want := range []string{"Forget everything I keep about you?", "1 task of this chat", "2 proposals and 2 rules", "2 reminders you set", "In the group", "Its 2 tasks stay", "forget me"} {
				if !strings.Contains(prompt.Text, want) {
					t.Errorf("the prompt lacks %q:\n%s", want, prompt.Text)
				}
			}
			asked := storagetest.Holding(storagetest.Dump(t, h.dsn), aliceMark, user)
			for _, r := range storagetest.Holding(before, aliceMark, user) {
				if !slices.Contains(asked, r) {
					t.Errorf("asking changed or deleted %s", r)
				}
			}
			done := h.sayIn(aliceChat, user, "  Forget ME ", 1)[0]
			if !strings.Contains(done.Text, "Done: I forgot you. I deleted 1 task") || !strings.Contains(done.Text, "The groups' tasks stay") {
				t.Errorf("the answer = %q", done.Text)
			}
			if m, _ := h.tg.Message(aliceChat, prompt.ID); !strings.Contains(m.Text, "You typed the phrase: forgotten") {
				t.Errorf("the prompt now = %q", m.Text)
			}
			// Telegram delivers the phrase again: it is dropped.
			h.tg.Wire().Redeliver(h.tg.Wire().LastUpdateID())
			h.tg.Wait("the redelivered phrase to be dropped", func() bool { return strings.Contains(h.logs.String(), "duplicate update ignored") })
			h.settleMessages()
			// The group's /audit keeps that something happened, not who or
			// what.
			list := h.sayIn(group, bob, "/audit", 1)[0].Text
			if !strings.Contains(list, "Redacted: nod forgot the person this row was about") || !strings.Contains(list, "Forgot someone who asked") ||
				strings.Contains(list, "Alice") || !strings.Contains(list, "Bob") {
				t.Errorf("the group's /audit after /forget:\n%s", list)
			}
			h.stop()

			after := storagetest.Dump(t, h.dsn)
			for _, hit := range storagetest.Find(after, aliceMark, user) {
				// The private chat's audit chain keeps its chat id, the
				// name of the chain its links were written under.
				if hit.Table == "audit_log" && hit.Column == "chat_id" && (hit.Row["redacted"] == "1" || hit.Row["tool"] == "forget") {
					continue
				}
				t.Errorf("after /forget, still: %s", hit)
			}
			alices := storagetest.Holding(before, aliceMark, user)
			kept := storagetest.Holding(after, bobMark, bob)
			for _, r := range storagetest.Holding(before, bobMark, bob) {
				if !slices.Contains(alices, r) && !slices.Contains(kept, r) {
					t.Errorf("Bob's row changed or went: %s", r)
				}
			}
			forgets := 0
			for _, r := range after["audit_log"] {
				if r["tool"] == "forget" {
					forgets++
				}
			}
			if forgets != 2 {
				t.Errorf("%d forget rows, want 2: one in her chat, one in the group", forgets)
			}
			if l1, l2 := h.groupTask("L1"), h.groupTask("L2"); l1.RemindAt != nil || l2.RemindAt == nil {
				t.Errorf("the group's tasks: L1 reminder %v (Alice's, want cleared), L2 %v (Bob's)", l1.RemindAt, l2.RemindAt)
			}

			if out, err := h.auditCLI(keyed, "verify", "-head", strings.TrimSpace(head)); err != nil || !strings.HasPrefix(out, "ok:") {
				t.Fatalf("verify after /forget: %q, %v", out, err)
			}
			var redacted, bobs int64
			for _, r := range h.audit(group) {
				switch {
				case r.Redacted && redacted == 0:
					redacted = r.ID
				case r.UserID == bob && bobs == 0:
					bobs = r.ID
				}
			}
			for _, c := range []struct {
				id             int64
				tamper, repair string
			}{
				{redacted, `UPDATE audit_log SET digest = 'ab' || digest WHERE id = %d`, `UPDATE audit_log SET digest = substr(digest, 3) WHERE id = %d`},
				{bobs, `UPDATE audit_log SET outcome = 'failed' WHERE id = %d`, ""},
			} {
				storagetest.Exec(t, h.dsn, fmt.Sprintf(c.tamper, c.id))
				if out, err := h.auditCLI(keyed, "verify"); !errors.Is(err, errBroken) || !strings.Contains(out, fmt.Sprintf("audit row %d", c.id)) {
					t.Errorf("verify after changing row %d: %q, %v", c.id, out, err)
				}
				if c.repair != "" {
					storagetest.Exec(t, h.dsn, fmt.Sprintf(c.repair, c.id))
				}
			}
		})
	}
}

// A /forget that is not confirmed deletes nothing: a bare "no" cancels
// and ends there; other words cancel and go on to the agent; after its
// time a message is an ordinary one. A stranger's /forget is refused and
// stores nothing of theirs.
func TestForgetCancelledExpiredAndStranger(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedAs(aliceChat, user, nod.Task{ID: "A1", Title: "Pay rent " + aliceMark})
	h.start()
	task := func() {
		t.Helper()
		if _, err := h.db.Tasks().Task(t.Context(), aliceChat, "A1"); err != nil {
			t.Fatalf("the task went: %v", err)
		}
	}
	prompt := h.sayIn(aliceChat, user, "/forget", 1)[0]
	agentCalls := len(h.llm.RequestsFor(agentM))
	if m := h.sayIn(aliceChat, user, "no", 1)[0]; !strings.Contains(m.Text, "Nothing was deleted") {
		t.Errorf("a bare no = %q", m.Text)
	}
	if m, _ := h.tg.Message(aliceChat, prompt.ID); !strings.Contains(m.Text, "Cancelled: nothing was deleted") {
		t.Errorf("the prompt after a no = %q", m.Text)
	}
	if n := len(h.llm.RequestsFor(agentM)); n != agentCalls {
		t.Errorf("a bare no went on to the agent")
	}
	task()

	h.sayIn(aliceChat, user, "/forget", 1)
	h.script(openaitest.Text("Kept."))
	msgs := h.sayIn(aliceChat, user, "actually keep everything "+aliceMark, 2)
	if !strings.Contains(msgs[0].Text, "Nothing was deleted") || msgs[1].Text != "Kept." ||
		!strings.Contains(h.llm.RequestsFor(agentM)[agentCalls].LastUser(), "actually keep everything") {
		t.Errorf("cancelling words = %q; the agent read %q", messageTexts(msgs), h.llm.RequestsFor(agentM)[agentCalls].LastUser())
	}
	task()

	prompt = h.sayIn(aliceChat, user, "/forget", 1)[0]
	h.clock.Advance(10*time.Minute + time.Second)
	h.script(openaitest.Text("What should I forget?"))
	if m := h.sayIn(aliceChat, user, "forget me", 1)[0]; m.Text != "What should I forget?" {
		t.Errorf("the phrase after its time = %q, want the agent's answer", m.Text)
	}
	if m, _ := h.tg.Message(aliceChat, prompt.ID); !strings.Contains(m.Text, "Time ran out: nothing was deleted") {
		t.Errorf("the prompt after its time = %q", m.Text)
	}
	task()

	// A stranger is refused, here and in a group, and nothing of theirs
	// is kept.
	if m := h.sayIn(stranger, stranger, "/forget", 1)[0]; !strings.Contains(m.Text, "666") {
		t.Errorf("a stranger's /forget = %q", m.Text)
	}
	if m := h.sayIn(group, stranger, "/forget", 1)[0]; !strings.Contains(m.Text, "666") {
		t.Errorf("a stranger's /forget in a group = %q", m.Text)
	}
	h.settleMessages()
	if hits := storagetest.Find(storagetest.Dump(t, h.dsn), "no word of theirs", stranger); len(hits) > 0 {
		t.Errorf("the stranger is stored: %v", hits)
	}
	task()
}

// A /forget left waiting is ended by the sweep at its time: its prompt
// says so, and nothing was deleted.
func TestForgetPromptExpires(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedAs(aliceChat, user, nod.Task{ID: "A1", Title: "Pay rent " + aliceMark})
	h.start()
	prompt := h.sayIn(aliceChat, user, "/forget", 1)[0]
	h.sweeps(2)
	if r, ok, _ := h.db.People().ForgetRequest(t.Context(), user); !ok || r.MessageID != prompt.ID {
		t.Fatalf("the /forget does not wait before its time: %+v, %v", r, ok)
	}
	h.clock.Advance(10 * time.Minute)
	h.tg.WaitMessage(aliceChat, prompt.ID, "the prompt to expire", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "Time ran out: nothing was deleted")
	})
	if _, ok, _ := h.db.People().ForgetRequest(t.Context(), user); ok {
		t.Errorf("the /forget still waits after its time")
	}
	if _, err := h.db.Tasks().Task(t.Context(), aliceChat, "A1"); err != nil {
		t.Errorf("the task went: %v", err)
	}
}

// When forgetting fails, nothing is deleted and the /forget still waits:
// the person is told, and the phrase typed again forgets them.
func TestForgetFailsWhole(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedAs(aliceChat, user, nod.Task{ID: "A1", Title: "Pay rent " + aliceMark})
	h.start()
	h.sayIn(aliceChat, user, "/forget", 1)
	storagetest.FailInserts(t, h.db, "audit_log") // the forget row cannot be written
	if m := h.sayIn(aliceChat, user, "forget me", 1)[0]; !strings.Contains(m.Text, "Something went wrong") {
		t.Errorf("a failed forget = %q", m.Text)
	}
	if _, err := h.db.Tasks().Task(t.Context(), aliceChat, "A1"); err != nil {
		t.Errorf("a failed forget deleted the task: %v", err)
	}
	if _, ok, _ := h.db.People().ForgetRequest(t.Context(), user); !ok {
		t.Fatalf("a failed forget ended the /forget")
	}
	drop := `DROP TRIGGER fail_audit_log`
	if h.db.Postgres() {
		drop += ` ON audit_log`
	}
	storagetest.Exec(t, h.dsn, drop)
	if m := h.sayIn(aliceChat, user, "forget me", 1)[0]; !strings.Contains(m.Text, "Done: I forgot you") {
		t.Errorf("the phrase again = %q", m.Text)
	}
	if _, err := h.db.Tasks().Task(t.Context(), aliceChat, "A1"); !errors.Is(err, nod.ErrNotFound) {
		t.Errorf("the task after forgetting: %v", err)
	}
}
