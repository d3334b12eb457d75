package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// forum is a forum supergroup of the topic tests; plain is a supergroup
// without topics. Telegram gives supergroups ids -100….
const (
	forum = -1001234567890
	plain = int64(-1009876543210)
)

// seedForumTask stores the forum's task F1, "Fix login bug" at P3.
func (h *harness) seedForumTask() {
	h.t.Helper()
	h.seed(forum, nod.Task{ID: "F1", Title: "Fix login bug", Priority: nod.P3})
}

// forumTask reads F1 as stored.
func (h *harness) forumTask() nod.Task {
	h.t.Helper()
	t, err := h.db.Tasks().Task(h.t.Context(), forum, "F1")
	if err != nil {
		h.t.Fatal(err)
	}
	return t
}

// wantTopic fails the test unless every message went to topic thread.
func wantTopic(t *testing.T, what string, thread int, msgs ...telegramtest.Message) {
	t.Helper()
	for _, m := range msgs {
		if m.Thread != thread || m.InTopic != (thread != 0) {
			t.Errorf("%s went to thread %d (topic %v), want %d: %q", what, m.Thread, m.InTopic, thread, m.Text)
		}
	}
}

// Two topics of a forum are two conversations over one task list: a
// request in topic A gets its change set in A; a tap confirms it, and
// the refresh, an Undo tap and its report stay in A. Topic B's request
// carries none of A's conversation or proposals, its "yes" answers none
// of A's sets, and its /undo takes back none of A's changes.
func TestTopicConversations(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedForumTask()
	h.start()
	a := h.tg.CreateTopic(forum, user, "Backend")
	b := h.tg.CreateTopic(forum, user, "Travel")

	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "F1", "priority": "P1"})), openaitest.Text("Raise it?"))
	h.tg.SendTopicText(forum, a, user, "the login bug looks urgent")
	set := h.changeSetMessage(forum, 2)
	wantTopic(t, "topic A's reply and change set", a, h.tg.BotMessages(forum)...)
	if req := h.llm.RequestsFor(agentM)[0]; !strings.Contains(req.LastUser(), "the login bug looks urgent") || strings.Contains(req.LastUser(), "replying to") {
		t.Errorf("topic A's request says %q: a topic's message replies to nothing but the topic's opening", req.LastUser())
	}

	// "yes" in topic B: B has no set to answer; it goes to B's agent,
	// which sees nothing of A.
	h.script(openaitest.Text("Yes to what?"))
	h.tg.SendTopicText(forum, b, user, "yes")
	reply := h.tg.WaitBotMessages(forum, 3)[2]
	wantTopic(t, "topic B's reply", b, reply)
	reqs := h.llm.RequestsFor(agentM)
	reqB := reqs[len(reqs)-1]
	if reqB.LastUser() != "User (42): yes" {
		t.Errorf("topic B's request ends with %q", reqB.LastUser())
	}
	for _, m := range reqB.Messages {
		if strings.Contains(m.Content, "looks urgent") || strings.Contains(m.Content, "Raise it?") {
			t.Errorf("topic B's request carries topic A's conversation (%s): %q", m.Role, m.Content)
		}
	}
	if strings.Contains(reqB.System(), "Your proposals still waiting") {
		t.Errorf("topic B's system prompt lists topic A's proposals:\n%s", grepLines(reqB.System(), "proposal"))
	}
	if sets, _ := h.db.ChangeSets().OpenChangeSets(t.Context(), nod.Topic{ChatID: forum, Thread: nod.ThreadID(a)}); len(sets) != 1 || len(sets[0].Pending()) != 1 || h.forumTask().Priority != nod.P3 {
		t.Fatalf("topic B's yes decided topic A's set: %d open sets in A, F1 at %s", len(sets), h.forumTask().Priority)
	}

	// A tap in topic A confirms; the set's message shows it, with Undo.
	if ans := h.tap(forum, user, set.ID, "✓ 1"); !strings.Contains(ans, "Applied") {
		t.Errorf("answer to ✓ 1 = %q", ans)
	}
	if h.forumTask().Priority != nod.P1 {
		t.Fatalf("F1 after ✓ 1 = %s, want P1", h.forumTask().Priority)
	}
	set, _ = h.tg.Message(forum, set.ID)
	if !hasButton(set, "↩️ Undo") {
		t.Fatalf("set after ✓ 1 = %q %v", set.Text, buttonTexts(set))
	}
	before := len(h.tg.BotMessages(forum))
	h.tap(forum, user, set.ID, "↩️ Undo")
	report := h.tg.WaitBotMessages(forum, before+1)[before]
	if !strings.Contains(report.Text, "Undone") || h.forumTask().Priority != nod.P3 {
		t.Fatalf("after Undo: %q, F1 at %s", report.Text, h.forumTask().Priority)
	}
	wantTopic(t, "the undo's report", a, report)

	// An explicit change in topic A: its receipt goes to A, and /undo in B
	// does not take it back; /undo in A does.
	h.clf = answer("explicit:make the login bug P2")
	h.script(openaitest.Calls(call("p", "set_task_priority", map[string]any{"task_id": "F1", "priority": "P2"})), openaitest.Text("Done."))
	h.tg.SendTopicText(forum, a, user, "make the login bug P2")
	msgs := h.tg.WaitBotMessages(forum, before+3)
	receipt := msgs[before+1]
	if !hasButton(receipt, "↩️ Undo") || h.forumTask().Priority != nod.P2 {
		t.Fatalf("receipt = %q %v, F1 at %s", receipt.Text, buttonTexts(receipt), h.forumTask().Priority)
	}
	wantTopic(t, "topic A's receipt and reply", a, msgs[before+1:]...)
	h.tg.SendTopicText(forum, b, user, "/undo")
	nothing := h.tg.WaitBotMessages(forum, before+4)[before+3]
	if !strings.Contains(nothing.Text, "nothing to undo") || h.forumTask().Priority != nod.P2 {
		t.Errorf("/undo in topic B: %q, F1 at %s; want nothing undone", nothing.Text, h.forumTask().Priority)
	}
	wantTopic(t, "topic B's /undo", b, nothing)
	h.tg.SendTopicText(forum, a, user, "/undo")
	undone := h.tg.WaitBotMessages(forum, before+5)[before+4]
	if !strings.Contains(undone.Text, "Undone") || h.forumTask().Priority != nod.P3 {
		t.Errorf("/undo in topic A: %q, F1 at %s; want P3 back", undone.Text, h.forumTask().Priority)
	}
	wantTopic(t, "topic A's /undo", a, undone)

	// The topics' opening messages got no answer: every message is one
	// of the above.
	if n := len(h.tg.BotMessages(forum)); n != before+5 {
		t.Errorf("%d bot messages in the forum, want %d", n, before+5)
	}
}

// Outside topics nothing names a thread: the forum's General topic and a
// supergroup without topics are answered in the chat, also when the
// person's message is a reply, which Telegram gives the thread id of its
// reply chain (nod sending that is refused: "message thread not found",
// a test failure in the fake). A real reply inside a topic stays there,
// and reaches the agent as a reply.
func TestTopicRepliesOutsideTopics(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start()
	topic := h.tg.CreateTopic(forum, user, "Backend")
	h.script(openaitest.Text("Hello."), openaitest.Text("Still here."), openaitest.Text("Hi."), openaitest.Text("Yes."),
		openaitest.Text("In the topic."), openaitest.Text("That one."))

	for _, c := range []int64{forum, plain} {
		h.tg.SendText(c, user, "hello")
		first := h.tg.WaitBotMessages(c, 1)[0]
		h.tg.ReplyText(c, user, first.ID, "are you there?")
		msgs := h.tg.WaitBotMessages(c, 2)
		wantTopic(t, "an answer outside topics", 0, msgs...)
		last, _ := h.tg.Message(c, msgs[1].ID-1) // the person's reply
		if last.Thread != first.ID || last.InTopic {
			t.Fatalf("the fake's reply outside topics: thread %d, topic %v; want the reply chain's thread %d", last.Thread, last.InTopic, first.ID)
		}
	}
	h.tg.SendTopicText(forum, topic, user, "and here?")
	in := h.tg.WaitBotMessages(forum, 3)[2]
	wantTopic(t, "the topic's answer", topic, in)
	h.tg.ReplyText(forum, user, in.ID, "which one?")
	again := h.tg.WaitBotMessages(forum, 4)[3]
	wantTopic(t, "the answer to a reply in the topic", topic, again)
	reqs := h.llm.RequestsFor(agentM)
	if got := reqs[len(reqs)-1].LastUser(); !strings.Contains(got, "replying to nod's message “In the topic.”") {
		t.Errorf("a reply in the topic reaches the agent as %q", got)
	}
	if n := len(h.tg.Calls("sendChatAction")); n == 0 {
		t.Errorf("no typing shown")
	}
}

// A reminder set by a turn in a topic fires in that topic, and its ✓ Done
// is undone from there; /daily given in a topic delivers the review
// there, and its change set is that topic's to answer.
func TestTopicReminderAndDailyReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedForumTask()
	h.inBerlin(forum)
	h.tg.Wire().SetMember(forum, user, "creator")
	h.start()
	ops := h.tg.CreateTopic(forum, user, "Ops")
	daily := h.tg.CreateTopic(forum, user, "Daily")

	h.clf = answer("explicit:remind me tomorrow at 9 about the login bug")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "F1", "remind_at": "2026-03-12T09:00"})), openaitest.Text("I'll remind you."))
	h.tg.SendTopicText(forum, ops, user, "remind me tomorrow at 9 about the login bug")
	wantTopic(t, "the reminder's receipt and reply", ops, h.tg.WaitBotMessages(forum, 2)...)
	h.tg.SendTopicText(forum, daily, user, "/daily 8:00")
	set := h.tg.WaitBotMessages(forum, 3)[2]
	if !strings.Contains(set.Text, "Every day at <b>08:00</b>") {
		t.Fatalf("/daily 8:00 = %q", set.Text)
	}
	wantTopic(t, "/daily's answer", daily, set)

	h.clock.Set(time.Date(2026, 3, 12, 8, 0, 30, 0, time.UTC)) // 09:00:30 in Berlin: after the review's 08:00
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "F1", "priority": "P1"})), openaitest.Text("The login bug is due soon; raise it?"))
	var review telegramtest.Message
	h.tg.Wait("the reminder and the review's set", func() bool {
		for _, m := range h.tg.BotMessages(forum) {
			if hasButton(m, "✓ 1") {
				review = m
			}
		}
		return len(h.reminders(forum)) == 1 && review.ID != 0
	})
	r := h.reminders(forum)[0]
	wantTopic(t, "the reminder", ops, r)
	wantTopic(t, "the daily review's set", daily, review)
	for _, m := range h.tg.BotMessages(forum)[3:] {
		if m.ID != r.ID {
			wantTopic(t, "the daily review", daily, m)
		}
	}
	h.tg.Wait("the review's set to be recorded", func() bool {
		_, err := h.db.ChangeSets().ChangeSetByMessage(t.Context(), forum, review.ID)
		return err == nil
	})

	h.tap(forum, user, r.ID, "✓ Done")
	if st := h.forumTask().Status; st != nod.StatusDone {
		t.Fatalf("F1 after ✓ Done = %s", st)
	}
	if u, err := h.db.Undo().LatestUndo(t.Context(), nod.Topic{ChatID: forum, Thread: nod.ThreadID(ops)}, user); err != nil || u.Tool != "set_task_status" {
		t.Errorf("the ✓ Done tap's undo in the reminder's topic = %s, %v", u.Tool, err)
	}

	// The review's set is the Daily topic's: "yes" there answers it.
	n := len(h.tg.BotMessages(forum))
	h.tg.SendTopicText(forum, daily, user, "yes")
	ok := h.tg.WaitBotMessages(forum, n+1)[n]
	if !strings.Contains(ok.Text, "Applied 1 change") || h.forumTask().Priority != nod.P1 {
		t.Errorf("yes in the review's topic: %q, F1 at %s", ok.Text, h.forumTask().Priority)
	}
	wantTopic(t, "the answer to yes", daily, ok)
}

// An update nod cannot decode, sent in a topic, is answered there.
func TestTopicUndecodableAnsweredThere(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start()
	topic := h.tg.CreateTopic(forum, user, "Backend")
	u := unknownKind(forum, user, "a forwarded story")
	m := u["message"].(map[string]any)
	m["chat"] = map[string]any{"id": forum, "type": "supergroup", "is_forum": true}
	m["message_thread_id"], m["is_topic_message"] = topic, true
	h.tg.Wire().SendUpdate(u)
	got := h.tg.WaitBotMessages(forum, 1)[0]
	if !strings.Contains(got.Text, "couldn't read that message") {
		t.Errorf("answer to an unreadable update = %q", got.Text)
	}
	wantTopic(t, "the answer to an unreadable update", topic, got)
}

// An edit of a message nod answered in a topic is new words in that
// topic: answered there, and the agent told what it replaces.
func TestTopicEditAnsweredThere(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start()
	topic := h.tg.CreateTopic(forum, user, "Backend")
	h.script(openaitest.Text("Noted."), openaitest.Text("Noted again."))
	id := h.tg.SendTopicText(forum, topic, user, "look at the lunch")
	h.tg.WaitBotMessages(forum, 1)
	h.tg.EditText(forum, id, "look at the launch")
	msgs := h.tg.WaitBotMessages(forum, 2)
	wantTopic(t, "the answers to a message and its edit", topic, msgs...)
	reqs := h.llm.RequestsFor(agentM)
	if got := reqs[len(reqs)-1].LastUser(); !strings.Contains(got, "edited their message “look at the lunch” to: “look at the launch”") {
		t.Errorf("the edit reaches the agent as %q", got)
	}
}
