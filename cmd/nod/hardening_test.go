package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// Forwarded words are never the person's: a learned rule that covers the
// change does not apply it, and the person is told why nod asks.
func TestForwardNeverRunsByRule(t *testing.T) {
	t.Parallel()
	h := ruleHarness(t, 4)
	h.earnRaiseRule()
	before := len(h.tg.BotMessages(chat))
	h.script(openaitest.Calls(raise("T4", "P1")), openaitest.Text("Raise task 4?"))
	h.tg.Forward(chat, user, "raise task 4 to P1", telegramtest.OriginUser(7007, "Boss", bossSent))
	set := h.changeSetMessage(chat, before+2)
	if p := h.task("T4").Priority; p != nod.P3 {
		t.Errorf("the rule applied a forwarded request: T4 is %s", p)
	}
	if text := h.tg.BotMessages(chat)[before].Text; !strings.Contains(text, "That was a forwarded message") {
		t.Errorf("the reply does not say why nod asks: %q", text)
	}
	if !strings.Contains(set.Text, "Priority: P3 → P1") {
		t.Errorf("set = %q", set.Text)
	}
}

// Trusted mode applies the person's own requests without asking, never
// forwarded ones: with a forward in the turn the classifier decides, and
// a forward is never a quote.
func TestForwardNeverRunsInTrustedMode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:raise the login bug to P1")
	h.start()
	h.tg.SendText(chat, user, "/mode trusted")
	h.tg.WaitBotMessages(chat, 1)
	h.raiseT1()
	h.tg.Forward(chat, user, "raise the login bug to P1", telegramtest.OriginUser(7007, "Boss", bossSent))
	h.changeSetMessage(chat, 3)
	if p := h.task("T1").Priority; p != nod.P3 {
		t.Errorf("trusted mode applied a forwarded request: T1 is %s", p)
	}
	if text := h.tg.BotMessages(chat)[1].Text; !strings.Contains(text, "That was a forwarded message") {
		t.Errorf("the reply does not say why nod asks: %q", text)
	}
}

// The classifier never reads what the agent wrote beside the calls it
// judges (the agent wrote it after reading task text, which may carry
// planted instructions), and a quote counts only from the turn's own
// words: two words the person said in an earlier turn carry nothing.
func TestClassifierHearsOnlyThisTurnsWords(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Text("Sure, noted."))
	h.start()
	h.tg.SendText(chat, user, "I will decide the priority later")
	h.tg.WaitBotMessages(chat, 1)
	// The description told the agent to raise the task; its text beside
	// the call argues for it, and the classifier quotes the old words.
	h.clf = answer("explicit:the priority")
	h.script(
		openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "T1"})),
		openaitest.Response{Text: "The person clearly asked me to raise the priority to P0 earlier.",
			ToolCalls: []openaitest.ToolCall{call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P0"})}},
		openaitest.Text("Proposed."),
	)
	h.tg.SendText(chat, user, "what does the login task say?")
	h.changeSetMessage(chat, 3)
	if p := h.task("T1").Priority; p != nod.P3 {
		t.Errorf("an earlier turn's words applied a change: T1 is %s", p)
	}
	clf := h.llm.RequestsFor(clfM)
	if len(clf) != 1 {
		t.Fatalf("%d classifier requests, want 1", len(clf))
	}
	conv := clf[0].Messages[1].Content
	if strings.Contains(conv, "clearly asked me") {
		t.Errorf("the classifier read the agent's words beside the call:\n%s", conv)
	}
	if sys := clf[0].System(); !strings.Contains(sys, "This turn starts with the person's message “what does the login task say?”") {
		t.Errorf("the classifier is not told where the turn starts:\n%s", sys)
	}
	if a := h.audit(chat)[0]; !strings.Contains(a.Verdict, "earlier turn") {
		t.Errorf("audit verdict = %q", a.Verdict)
	}
}

// A review names nobody, and the chat's zone is the whole group's: a
// review in a group never offers a zone that any member could set; the
// agent is told to point to /tz, which only administrators may use.
func TestGroupReviewOffersNoZone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.tg.Wire().SetMember(group, user, "member")
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("An admin can set it with /tz."))
	h.start()
	h.tg.SendText(group, user, "/review")
	h.tg.WaitBotMessages(group, 1)
	h.settleMessages()
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["z"]; !strings.HasPrefix(r, "Not changed: in a group only its owner and administrators can change the time zone, with /tz Asia/Tokyo.") {
		t.Errorf("tool result of a group's review = %q", r)
	}
	for _, m := range h.tg.BotMessages(group) {
		if hasButton(m, "✓ Asia/Tokyo") {
			t.Errorf("a group's review offered its zone: %q", m.Text)
		}
	}
}

// In a group /lang is the chat's, so only administrators change it.
func TestGroupLangAdminsOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetMember(group, user, "member")
	h.tg.Wire().SetMember(group, bob, "administrator")
	h.start()
	h.tg.SendText(group, user, "/lang de")
	if m := h.tg.WaitBotMessages(group, 1)[0]; !strings.Contains(m.Text, "only its administrators can change the chat's language") {
		t.Errorf("a member's /lang = %q", m.Text)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), group, 0); s.Language != "" {
		t.Fatalf("a member's /lang set %q", s.Language)
	}
	h.tg.SendText(group, bob, "/lang de")
	h.tg.WaitBotMessages(group, 2)
	if s, _ := h.db.Settings().ChatSettings(t.Context(), group, 0); s.Language != "de" {
		t.Errorf("an admin's /lang left %q", s.Language)
	}
}

// Only the member who rejected an item says why: Bob's reply to the set
// after Alice's rejection is not stored as her reason.
func TestGroupReasonOnlyFromWhoRejected(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("A suggestion."))
	h.start()
	h.tg.SendText(group, user, "/review") // a review's set is anyone's to decide
	set := h.changeSetMessage(group, 2)
	h.tap(group, user, set.ID, "✗ 1")
	h.script(openaitest.Text("Alice decides that one."))
	h.tg.ReplyText(group, bob, set.ID, "because it is silly")
	h.settleMessages()
	rs, err := h.db.ChangeSets().RecentRejections(t.Context(), group, time.Time{})
	if err != nil || len(rs) != 1 {
		t.Fatalf("rejections %v, %v", rs, err)
	}
	if rs[0].Reason != "" {
		t.Errorf("Bob's words became Alice's reason: %q", rs[0].Reason)
	}
	h.tg.ReplyText(group, user, set.ID, "not now")
	h.tg.Wait("Alice's reason", func() bool {
		rs, _ := h.db.ChangeSets().RecentRejections(t.Context(), group, time.Time{})
		return len(rs) == 1 && rs[0].Reason == "not now"
	})
}

// A zone offer lives as long as a change set: a week later its button
// sets nothing.
func TestZoneOfferExpires(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("Shall I?"))
	h.start()
	h.tg.SendText(chat, user, "I might move to Tokyo")
	offer := h.withButton(chat, "✓ Asia/Tokyo")
	h.clock.Advance(8 * 24 * time.Hour)
	if got := h.tap(chat, user, offer.ID, "✓ Asia/Tokyo"); !strings.Contains(got, "expired") {
		t.Errorf("a week-old offer answered %q", got)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
		t.Errorf("a week-old offer set the zone to %q", s.TimeZone)
	}
}

// The allowlist is read when scheduled work is due, not when it was set
// up: taken off NOD_ALLOWED_USERS, a person gets no more reminders or
// daily reviews (the model is not asked), in their private chat or in a
// group where they set them up; the others of the group still get theirs.
func TestScheduledWorkRechecksTheAllowlist(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	due := fixtures.DefaultNow.Add(2 * time.Hour)
	remind := func(chatID int64, by int64, id, title string) {
		t.Helper()
		_, err := h.db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(chatID)}, UserID: nod.UserID(by), Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
			Mutate: func(*nod.Task) (nod.Task, error) {
				return nod.Task{ID: nod.TaskID(id), Title: title, Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &due}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	remind(chat, user, "R1", "Alice's own reminder")
	remind(group, user, "R2", "Alice's group reminder")
	remind(group, bob, "R3", "Bob's group reminder")
	if err := h.db.Schedule().SetDaily(t.Context(), nod.Topic{ChatID: chat}, user, "08:00", false, time.UTC); err != nil {
		t.Fatal(err)
	}
	h.env["NOD_ALLOWED_USERS"] = "43" // Alice (42) is taken off
	h.start()
	h.clock.Set(fixtures.DefaultNow.Add(26 * time.Hour)) // past the reminders and the next 08:00
	h.sweeps(3)
	h.tg.Wait("Bob's reminder", func() bool {
		return strings.Contains(strings.Join(texts(h.reminders(group)), "\n"), "Bob's group reminder")
	})
	h.sweeps(3)
	if rs := h.reminders(group); len(rs) != 1 || !strings.Contains(rs[0].Text, "Bob's group reminder") {
		t.Errorf("group reminders: %v", texts(rs))
	}
	if ms := h.tg.BotMessages(chat); len(ms) != 0 {
		t.Errorf("Alice, no longer allowed, was sent %q", texts(ms))
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 0 {
		t.Errorf("the model was asked %d times for someone no longer allowed", n)
	}
}

// groupProposal starts nod in the group, where Alice's question is
// answered with a proposal to raise the launch post to P1; it returns the
// set's message.
func (h *harness) groupProposal() telegramtest.Message {
	h.t.Helper()
	h.inGroup()
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("Raise it?"))
	h.start()
	h.tg.SendText(group, user, "should the launch post be P1?")
	return h.changeSetMessage(group, 2)
}

// aliceReminds starts nod in the group, where Alice asked in words to be
// reminded of the launch post at 09:00 on 12 March.
func aliceReminds(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.inGroup()
	h.clf = answer("explicit:remind me tomorrow at 9 about the launch post")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "L1", "remind_at": "2026-03-12T09:00"})), openaitest.Text("I'll remind you."))
	h.start()
	h.tg.SendText(group, user, "remind me tomorrow at 9 about the launch post")
	h.tg.WaitBotMessages(group, 2)
	return h
}

// A reminder belongs to whoever set it: in a group it names them, and
// another member's ✓ Done or ⏰ is refused with whose it is; nothing
// changes until its person taps.
func TestGroupReminderIsItsPersons(t *testing.T) {
	t.Parallel()
	h := aliceReminds(t)
	h.clock.Set(time.Date(2026, 3, 12, 9, 0, 30, 0, time.UTC))
	h.tg.Wait("the reminder", func() bool { return len(h.reminders(group)) == 1 })
	r := h.reminders(group)[0]
	if !strings.Contains(r.Text, "Launch post</b> · for Alice") {
		t.Errorf("the group's reminder does not name whose it is: %q", r.Text)
	}
	for _, b := range []string{"✓ Done", "⏰ 1 h", "⏰ Tomorrow"} {
		if got := h.tap(group, bob, r.ID, b); got != "This is Alice's reminder: only Alice can act on it." {
			t.Errorf("Bob's %s answered %q", b, got)
		}
	}
	if task := h.groupTask("L1"); task.Status != nod.StatusOpen || task.RemindAt == nil || !task.RemindAt.Equal(time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("Bob's taps changed Alice's task: %s, reminder %v", task.Status, task.RemindAt)
	}
	h.tap(group, user, r.ID, "✓ Done")
	if st := h.groupTask("L1").Status; st != nod.StatusDone {
		t.Errorf("Alice's ✓ Done left %s", st)
	}
	done := h.tg.WaitMessage(group, r.ID, "the reminder marked done", func(m telegramtest.Message) bool { return !hasButton(m, "✓ Done") })
	if done.Text != "✅ Done by Alice: <b>Launch post</b>" {
		t.Errorf("the group reads Alice's ✓ Done as %q", done.Text)
	}
}

// In a group every note the agent reads names who did it, and each
// member's turn lists only their own waiting proposals as theirs: Bob's
// turn is told Alice's proposal waits for her, and that Alice confirmed
// it, never that "the user" did.
func TestGroupAgentToldWhoDidWhat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.groupProposal()
	h.script(openaitest.Text("Alice decides that one."))
	h.tg.SendText(group, bob, "anything for me?")
	h.tg.WaitBotMessages(group, 3)
	sys := h.llm.RequestsFor(agentM)[2].System()
	if strings.Contains(sys, "Your proposals still waiting") || !strings.Contains(sys, "Proposals waiting for other members") ||
		!strings.Contains(sys, "(waiting for member 42)") {
		t.Errorf("Bob's turn is told of Alice's proposal as:\n%s", grepLines(sys, "waiting"))
	}
	h.clock.Advance(time.Minute)
	h.tap(group, user, set.ID, "✓ 1")
	h.clock.Advance(time.Minute)
	h.script(openaitest.Text("Noted."))
	h.tg.SendText(group, bob, "and now?")
	h.tg.WaitBotMessages(group, 4)
	var notes []string
	for _, m := range h.llm.RequestsFor(agentM)[3].Messages {
		if strings.HasPrefix(m.Content, "Meanwhile") {
			notes = append(notes, m.Content)
		}
	}
	n := strings.Join(notes, "\n")
	if !strings.Contains(n, "Alice (42) confirmed your proposal “Set priority to P1”") || strings.Contains(n, "the user") {
		t.Errorf("Bob's turn reads:\n%s", n)
	}
}

// "/undo" right after an Undo never applies again what the person just
// took back: it says the change is undone already and where Redo is; a
// Redo then says plainly what came back, naming the task once.
func TestUndoCommandNeverRedoes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = answer("explicit:add a task to write the postmortem")
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Write the postmortem"})), openaitest.Text("Added."))
	h.start()
	h.tg.SendText(chat, user, "add a task to write the postmortem")
	receipt := h.tg.WaitBotMessages(chat, 2)[0]
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	undone := h.withButton(chat, "↪️ Redo")
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "/undo")
	m := h.tg.WaitBotMessages(chat, n+1)[n]
	if !strings.Contains(m.Text, "undone already") || !strings.Contains(m.Text, "Write the postmortem") {
		t.Errorf("/undo after Undo said %q", m.Text)
	}
	if tasks, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(tasks) != 0 {
		t.Fatalf("/undo after Undo brought the task back: %+v", tasks)
	}
	h.tap(chat, user, undone.ID, "↪️ Redo")
	again := h.tg.WaitBotMessages(chat, n+2)[n+1]
	if again.Text != "↪️ Redone: “Write the postmortem” is on the list again." {
		t.Errorf("after Redo: %q", again.Text)
	}
}

// A message is true when it is read: once a reminder has gone out, the
// agent's list and get_task say so, as the task card does, so the model
// never tells the person a reminder is still to come.
func TestSentReminderReadsAsSent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	at := fixtures.DefaultNow.Add(time.Hour)
	h.seed(chat, nod.Task{ID: "T1", Title: "Call the printer", RemindAt: &at})
	h.start()
	h.clock.Set(at.Add(time.Minute))
	h.tg.Wait("the reminder", func() bool { return len(h.reminders(chat)) == 1 })
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "T1"})), openaitest.Text("It went out at the hour."))
	h.tg.SendText(chat, user, "did the printer reminder come?")
	h.tg.WaitBotMessages(chat, 2)
	reqs := h.llm.RequestsFor(agentM)
	if sys := reqs[0].System(); !strings.Contains(grepLines(sys, "Call the printer"), "(sent)") {
		t.Errorf("the prompt lists the fired reminder as:\n%s", grepLines(sys, "Call the printer"))
	}
	if r := reqs[1].ToolResults()["g"]; !strings.Contains(r, `"reminder_sent":true`) {
		t.Errorf("get_task after the reminder fired = %s", r)
	}
}

// A closed task's reminder still ahead does not go off unless the task
// is reopened first: the prompt and get_task say so, so that the model
// never tells the person they will be reminded of a task they closed.
func TestClosedTasksReminderReadsAsSilent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	at := fixtures.DefaultNow.Add(3 * time.Hour)
	h.seed(chat, nod.Task{ID: "T1", Title: "Call the printer", Status: nod.StatusDone, RemindAt: &at})
	h.seed(chat, nod.Task{ID: "T2", Title: "Order toner", RemindAt: &at})
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "T1"})), openaitest.Text("It is done, so it stays quiet."))
	h.start()
	h.tg.SendText(chat, user, "will the printer thing still ping me?")
	h.tg.WaitBotMessages(chat, 1)
	reqs := h.llm.RequestsFor(agentM)
	sys := reqs[0].System()
	if !strings.Contains(grepLines(sys, "Call the printer"), "(silent: the task is closed)") {
		t.Errorf("the prompt lists the closed task's reminder as:\n%s", grepLines(sys, "Call the printer"))
	}
	if strings.Contains(grepLines(sys, "Order toner"), "silent") {
		t.Errorf("the prompt lists an open task's reminder as:\n%s", grepLines(sys, "Order toner"))
	}
	if r := reqs[1].ToolResults()["g"]; !strings.Contains(r, `"reminder_silent":true`) || strings.Contains(r, `"reminder_sent"`) {
		t.Errorf("get_task of the closed task = %s", r)
	}
}

// Nothing tells one member that another's set waits for them: /pending in
// a group says whom each set waits for.
func TestGroupPendingSaysForWhom(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.groupProposal()
	h.tg.SendText(group, bob, "/pending")
	if m := h.tg.WaitBotMessages(group, 3)[2]; m.Text != "⏳ The change here is waiting for Alice." {
		t.Errorf("Bob's /pending = %q", m.Text)
	}
	h.tg.SendText(group, user, "/pending")
	if m := h.tg.WaitBotMessages(group, 4)[3]; m.Text != "⏳ The change here is waiting for you." {
		t.Errorf("Alice's /pending = %q", m.Text)
	}
}

// A set overtaken by someone's direct change says whose change it was,
// not that a newer proposal replaced it.
func TestGroupSetOvertakenSaysByWhom(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.groupProposal()
	h.clf = answer("explicit:make the launch post P2")
	h.script(openaitest.Calls(call("b", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P2"})), openaitest.Text("P2."))
	h.tg.SendText(group, bob, "make the launch post P2")
	m := h.tg.WaitMessage(group, set.ID, "the set to be closed", func(m telegramtest.Message) bool { return !hasButton(m, "✓ 1") })
	if !strings.Contains(m.Text, "Overtaken by Bob's change.") || strings.Contains(m.Text, "newer proposal") {
		t.Errorf("Alice's overtaken set reads %q", m.Text)
	}
}

// What the model writes beside a call that a result then refuses is not
// shown: "Thanks, I'll use Berlin time" beside a zone change a group
// member may not make would tell the person the opposite of what happened.
// The model's words after the results are.
func TestAsideRefusedByItsResultIsDropped(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.clf = answer("explicit:we are in Berlin now")
	h.script(openaitest.Response{Text: "Thanks, I'll use Berlin time.",
		ToolCalls: []openaitest.ToolCall{call("z", "set_chat_timezone", map[string]any{"timezone": "Europe/Berlin"})}},
		openaitest.Text("Only an admin can set the zone, with /tz Europe/Berlin."))
	h.start()
	h.tg.SendText(group, user, "we are in Berlin now")
	h.tg.WaitBotMessages(group, 1)
	h.settleMessages()
	all := strings.Join(texts(h.tg.BotMessages(group)), "\n")
	if strings.Contains(all, "I'll use Berlin time") || !strings.Contains(all, "Only an admin can set the zone") {
		t.Errorf("the person read:\n%s", all)
	}
	// The model is told, or its next words correct what nobody read.
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["z"]; !strings.HasPrefix(r, "Not changed:") || !strings.HasSuffix(r, "The user did not see the text you wrote beside these calls: say what happened as news, not as a correction.") {
		t.Errorf("the refused call's result = %q", r)
	}
	// Nor does the classifier hear it in a later turn, as if it was said.
	h.clf = answer("explicit:make the launch post P1")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "L1", "priority": "P1"})), openaitest.Text("P1."))
	n := len(h.tg.BotMessages(group))
	h.tg.SendText(group, user, "make the launch post P1")
	h.tg.WaitBotMessages(group, n+2)
	if heard := lastClassifierHeard(h); strings.Contains(heard, "I'll use Berlin time") {
		t.Errorf("the classifier heard the refused aside:\n%s", heard)
	}
}

// Text beside a call that waits for a tap is shown only as its reason,
// and the classifier of a later turn does not hear it as nod's words.
// Played, "Ink is no longer urgent" beside a queued label change read as
// said.
func TestAsideBesideAQueuedCallIsNotHeard(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("needs")
	h.script(openaitest.Response{Text: "The login bug is urgent now.",
		ToolCalls: []openaitest.ToolCall{call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})}},
		openaitest.Text("Raising it needs your tap below."))
	h.start()
	h.tg.SendText(chat, user, "the login bug is getting worse")
	h.changeSetMessage(chat, 2)
	h.settleMessages()
	// Shown, it is the proposal's reason, never nod's own words.
	for _, m := range h.tg.BotMessages(chat) {
		if strings.Contains(m.Text, "urgent now") && !strings.Contains(m.Text, "💬 Why: <i>The login bug is urgent now.</i>") {
			t.Errorf("the person read the aside as nod's words:\n%s", m.Text)
		}
	}
	h.clf = answer("explicit:make it due friday")
	h.script(openaitest.Calls(call("d", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-13"})), openaitest.Text("Friday."))
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "make it due friday")
	h.tg.WaitBotMessages(chat, n+2)
	if heard := lastClassifierHeard(h); strings.Contains(heard, "urgent now") || !strings.Contains(heard, "Raising it needs your tap below.") {
		t.Errorf("the classifier heard the aside beside a queued call, or not what nod did say:\n%s", heard)
	}
}

// lastClassifierHeard is what the latest classifier request told it.
func lastClassifierHeard(h *harness) string {
	clf := h.llm.RequestsFor(clfM)
	var out []string
	for _, m := range clf[len(clf)-1].Messages {
		out = append(out, m.Content)
	}
	return strings.Join(out, "\n")
}

// A turn that answers the model's question carries the words it asked
// about: "raise the login bug" → "To P1 or P0?" → "P1" may quote either.
func TestAnswerToAQuestionCarriesItsRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.script(openaitest.Text("To P1 or P0?"))
	h.start()
	h.tg.SendText(chat, user, "raise the login bug")
	h.tg.WaitBotMessages(chat, 1)
	h.clf = answer("explicit:raise the login bug")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("P1."))
	h.tg.SendText(chat, user, "P1")
	h.tg.Wait("P1 to apply", func() bool { return h.task("T1").Priority == nod.P1 })
}

// An Undo ends that carry: "add a task: pay the bill" → "Want a due
// date?" → Undo → "yes, friday". The classifier is told the turn starts
// at "yes, friday", the undone request being context; and a model that
// makes the task again, with a classifier that quotes the earlier line
// all the same, gets a change set to confirm, not the task back behind
// the person's back.
func TestUndoEndsTheAnsweredExchange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const asked = "add a task: Pay the electricity bill"
	h.clf = answer("explicit:" + asked)
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Pay the electricity bill"})), openaitest.Text("Added. Want a due date or a reminder for it?"))
	h.start()
	h.tg.SendText(chat, user, asked)
	receipt := h.tg.WaitBotMessages(chat, 2)[0]
	h.settleMessages()
	h.clock.Advance(time.Minute)
	h.tap(chat, user, receipt.ID, "↩️ Undo")
	h.tg.WaitBotMessages(chat, 3)
	h.clock.Advance(time.Minute)
	h.script(openaitest.Calls(call("d", "create_task", map[string]any{"title": "Pay the electricity bill", "due_date": "2026-03-13"})), openaitest.Text("Added, due Friday."))
	h.tg.SendText(chat, user, "yes, friday")
	set := h.changeSetMessage(chat, 5)
	if !strings.Contains(set.Text, "Pay the electricity bill") {
		t.Errorf("the change set reads %q", set.Text)
	}
	if ts, _ := h.db.Tasks().ListTasks(t.Context(), chat, nod.TaskFilter{}); len(ts) != 0 {
		t.Errorf("%d tasks on the list: the undone request made one again", len(ts))
	}
	clf := h.llm.RequestsFor(clfM)
	last := clf[len(clf)-1]
	var told strings.Builder
	for _, m := range last.Messages {
		told.WriteString(m.Content + "\n")
	}
	if !strings.Contains(told.String(), "This turn starts with the person's message “yes, friday”") || strings.Contains(told.String(), "No earlier turn is shown") {
		t.Errorf("the classifier was told:\n%s", told.String())
	}
}

// Every message says whom it means: in a group the receipt of Bob's
// request says Bob said it, and Alice's change set says it is hers, both
// while it waits and once decided. A private chat still says "you".
func TestGroupMessagesNameThePerson(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.groupProposal()
	if !strings.HasPrefix(set.Text, "<b>Proposed changes for Alice</b>\n") {
		t.Errorf("Alice's set reads:\n%s", set.Text)
	}
	h.clf = answer("explicit:give the launch post the label press")
	h.script(openaitest.Calls(call("b", "assign_task_labels", map[string]any{"task_id": "L1", "add": []string{"press"}})), openaitest.Text("Labelled."))
	h.tg.SendText(group, bob, "give the launch post the label press")
	receipt := h.tg.WaitBotMessages(group, 4)[2]
	if !strings.Contains(receipt.Text, "because Bob said “give the launch post the label press”") {
		t.Errorf("Bob's receipt reads:\n%s", receipt.Text)
	}
	h.tap(group, user, set.ID, "✓ 1")
	m := h.tg.WaitMessage(group, set.ID, "the set decided", func(m telegramtest.Message) bool { return !hasButton(m, "✓ 1") })
	if !strings.HasPrefix(m.Text, "<b>Changes Alice decided</b>\n") {
		t.Errorf("Alice's decided set reads:\n%s", m.Text)
	}
}

// A reminder belongs to whoever set it, in words as in taps: Bob's
// "remind me at 8 instead" does not move Alice's upcoming reminder; the
// model is told whose it is. Once it went out, Bob may set one anew.
func TestGroupWordsLeaveAnothersReminder(t *testing.T) {
	t.Parallel()
	h := aliceReminds(t)
	h.clf = answer("explicit:remind me at 8 about the launch post instead")
	h.script(openaitest.Calls(call("b", "set_task_reminder", map[string]any{"task_id": "L1", "remind_at": "2026-03-12T08:00"})), openaitest.Text("That reminder is Alice's."))
	h.tg.SendText(group, bob, "remind me at 8 about the launch post instead")
	h.tg.WaitBotMessages(group, 3)
	nine := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	if task := h.groupTask("L1"); task.RemindAt == nil || !task.RemindAt.Equal(nine) || task.RemindBy != user {
		t.Fatalf("Bob's words moved Alice's reminder: %v by %d", task.RemindAt, task.RemindBy)
	}
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["b"]; !strings.Contains(r, "member 42's") {
		t.Errorf("the model was not told whose the reminder is: %s", r)
	}
	h.clock.Set(nine.Add(time.Minute))
	h.tg.Wait("the reminder", func() bool { return len(h.reminders(group)) == 1 })
	h.clf = answer("explicit:remind me tomorrow at 8 about the launch post")
	h.script(openaitest.Calls(call("c", "set_task_reminder", map[string]any{"task_id": "L1", "remind_at": "2026-03-13T08:00"})), openaitest.Text("Set."))
	h.tg.SendText(group, bob, "remind me tomorrow at 8 about the launch post")
	h.tg.Wait("Bob's reminder", func() bool { return h.groupTask("L1").RemindBy == bob })
}

// In a group each decision the agent reads says whose it was: Bob's turn
// reads Alice's ✗ as member 42's, not as "the user's".
func TestGroupDecisionsNameWhoDecided(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.groupProposal()
	h.tap(group, user, set.ID, "✗ 1")
	h.script(openaitest.Text("Alice turned that down."))
	h.tg.SendText(group, bob, "what happened to the launch post?")
	h.tg.WaitBotMessages(group, 3)
	sys := h.llm.RequestsFor(agentM)[2].System()
	if !strings.Contains(sys, "- member 42 rejected: Set priority to P1") || strings.Contains(sys, "The user's latest decisions") {
		t.Errorf("Bob's turn reads the decisions as:\n%s", grepLines(sys, "rejected"))
	}
}

// In a private chat every waiting proposal is the person's, listed once:
// none is said to wait for another member of a group there is not.
func TestPrivateProposalsListedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.threeIdeas()
	h.script(openaitest.Text("They wait below."))
	h.tg.SendText(chat, user, "what is still open?")
	h.tg.WaitBotMessages(chat, 3)
	sys := h.llm.RequestsFor(agentM)[2].System()
	if n := strings.Count(sys, "item 1: Set priority to P1"); n != 1 || strings.Contains(sys, "other members") {
		t.Errorf("set %d's item 1 is listed %d times:\n%s", set.ID, n, grepLines(sys, "proposal"))
	}
}

// A label decided a turn ago is on the next turn's list: the prompt's
// line of a task carries its labels, so the model answers from what is
// stored, not from its memory of a decision (found in a play).
func TestPromptListsTheLabels(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "T1", Title: "Renew passport", Labels: []string{"admin", "travel"}})
	h.seed(chat, nod.Task{ID: "T2", Title: "Buy milk"})
	h.start()
	h.script(openaitest.Text("Both are open."))
	h.tg.SendText(chat, user, "what's open?")
	h.tg.WaitBotMessages(chat, 1)
	sys := h.llm.RequestsFor(agentM)[0].System()
	if line := grepLines(sys, "Renew passport"); !strings.Contains(line, " labels admin,travel") {
		t.Errorf("the prompt lists the labelled task as:\n%s", line)
	}
	if line := grepLines(sys, "Buy milk"); strings.Contains(line, "labels") {
		t.Errorf("the prompt lists the task without labels as:\n%s", line)
	}
}

// The agent learns what became of its time zone offer, and of a zone
// the person set themselves, as notes of what happened outside the
// conversation: not only from the clock line of its prompt.
func TestZoneDecisionsReachTheAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	remind := fixtures.DefaultNow.Add(48 * time.Hour)
	h.seed(chat, nod.Task{ID: "R1", Title: "Call the bank", RemindAt: &remind})
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("Shall I?"))
	h.start()
	h.tg.SendText(chat, user, "I'm in Tokyo now")
	offer := h.withButton(chat, "✓ Asia/Tokyo")
	h.clock.Advance(time.Minute)
	h.tap(chat, user, offer.ID, "✓ Asia/Tokyo")
	h.clock.Advance(time.Minute)
	notes := func(i int) string {
		t.Helper()
		h.tg.Wait("the agent's request", func() bool { return len(h.llm.RequestsFor(agentM)) > i })
		last := ""
		for _, m := range h.llm.RequestsFor(agentM)[i].Messages {
			if strings.HasPrefix(m.Content, "Meanwhile") {
				last = m.Content
			}
		}
		return last // the earlier turns' notes are kept in the conversation
	}
	h.script(openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "what time is it for you?")
	if n := notes(2); !strings.Contains(n, "(oldest first, times in Asia/Tokyo):") ||
		!strings.Contains(n, "the user confirmed your proposal to set the chat's time zone to Asia/Tokyo (it was nod's default): their dates and times are read in it from now on; the one upcoming reminder kept its clock time, now in Asia/Tokyo") {
		t.Errorf("after the tap the agent reads:\n%s", n)
	}
	h.tg.WaitBotMessages(chat, 3)
	h.clock.Advance(time.Minute)
	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	h.tg.WaitBotMessages(chat, 4)
	h.clock.Advance(time.Minute)
	h.script(openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "and now?")
	if n := notes(3); !strings.Contains(n, "the user set the chat's time zone to Europe/Berlin with /tz (it was Asia/Tokyo); the one upcoming reminder kept its clock time, now in Europe/Berlin") || strings.Contains(n, "confirmed your proposal") {
		t.Errorf("after /tz the agent reads:\n%s", n)
	}
}

// A turn that answers the model's question is told to the classifier as
// such: the words it asked about are not "where this turn starts", which
// read as a mistake when played.
func TestClassifierToldTheTurnAnswersAQuestion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("explicit:label the login bug urgent")
	h.script(openaitest.Text("Hello."), openaitest.Calls(call("l", "assign_task_labels", map[string]any{"task_id": "T1", "labels": []string{"backend", "bug", "urgent"}})), openaitest.Text("Labelled. Raise it to P1 too?"))
	h.start()
	h.tg.SendText(chat, user, "hi")
	botMessage(h, "Hello.")
	h.tg.SendText(chat, user, "label the login bug urgent")
	botMessage(h, "Labelled. Raise it to P1 too?")
	h.clf = answer("explicit:yes please do")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("P1 it is."))
	h.tg.SendText(chat, user, "yes please do")
	botMessage(h, "P1 it is.")
	clf := h.llm.RequestsFor(clfM)
	if sys := clf[len(clf)-1].System(); !strings.Contains(sys, "This turn may answer what nod asked about the person's message “label the login bug urgent”") {
		t.Errorf("the classifier was told:\n%s", sys)
	}
}
