package main

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// askTwo seeds T1 and T2 in chatID and has userID ask to delete both in
// one message, the model calling delete_task for each in one step; it
// waits for the reply and the first question and returns them.
func (h *harness) askTwo(chatID, userID int64) []telegramtest.Message {
	h.t.Helper()
	words := "delete the login bug and the README task"
	h.clf = answer("explicit:" + words)
	h.script(openaitest.Calls(call("d1", "delete_task", map[string]any{"task_id": "T1"}), call("d2", "delete_task", map[string]any{"task_id": "T2"})),
		openaitest.Text("Both go to the trash once you confirm."))
	h.tg.SendText(chatID, userID, words)
	msgs := h.tg.WaitBotMessages(chatID, 2)
	h.shown(chatID, userID, "T1")
	return msgs
}

// shown waits until nod has recorded the message of the question about
// task id: from then on it takes the answer, and its time runs.
func (h *harness) shown(chatID, userID int64, id nod.TaskID) {
	h.t.Helper()
	h.tg.Wait("the question to be recorded", func() bool {
		d, ok, err := h.db.Deletions().WaitingDeletion(h.t.Context(), nod.ChatID(chatID), nod.UserID(userID))
		return err == nil && ok && d.TaskID == id
	})
}

// seedTwo stores T1 and T2 of chatID.
func (h *harness) seedTwo(chatID int64) {
	h.seed(chatID, nod.Task{ID: "T1", Title: "Fix login bug"})
	h.seed(chatID, nod.Task{ID: "T2", Title: "Update README"})
}

// isQuestion reports whether m asks for title's typed confirmation,
// with the title as code, which Telegram copies with a tap.
func isQuestion(m telegramtest.Message, title string) bool {
	return strings.Contains(m.Text, "Delete “"+title+"”") && strings.Contains(m.Text, "reply with its exact title: “<code>"+title+"</code>”")
}

// trashed reports whether task id of chatID is in the trash.
func (h *harness) trashed(chatID int64, id nod.TaskID) bool {
	h.t.Helper()
	trash, err := h.db.Tasks().Trash(h.t.Context(), nod.ChatID(chatID))
	if err != nil {
		h.t.Fatal(err)
	}
	return slices.ContainsFunc(trash, func(t nod.Task) bool { return t.ID == id })
}

// quiet checks that the bot sent chatID exactly n messages, once its
// button presses and queued work had time to settle.
func (h *harness) quiet(chatID int64, n int) []telegramtest.Message {
	h.t.Helper()
	h.tg.Wait("nod to settle", h.tg.Wire().Idle)
	time.Sleep(100 * time.Millisecond)
	msgs := h.tg.BotMessages(chatID)
	if len(msgs) != n {
		h.t.Fatalf("%d bot messages, want %d: %q", len(msgs), n, messageTexts(msgs))
	}
	return msgs
}

func messageTexts(msgs []telegramtest.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

// docs/design.md §12: two delete_task calls in one step get a question each,
// asked one at a time in call order; each title typed deletes only its
// own task; both calls were told the truth.
func TestTwoDeletionsInOneTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedTwo(chat)
	h.start()
	msgs := h.askTwo(chat, user)
	if msgs[0].Text != "Both go to the trash once you confirm." || !isQuestion(msgs[1], "Fix login bug") {
		t.Fatalf("after the request: %q", messageTexts(msgs))
	}
	h.quiet(chat, 2) // one question at a time
	results := h.llm.RequestsFor(agentM)[1].ToolResults()
	for _, id := range []string{"d1", "d2"} {
		if results[id] != "Deletion awaits the user's typed confirmation." {
			t.Errorf("tool result of %s = %q", id, results[id])
		}
	}

	h.tg.SendText(chat, user, "fix login BUG ")
	msgs = h.tg.WaitBotMessages(chat, 4)
	if !strings.Contains(msgs[2].Text, "Moved “Fix login bug” to the trash") || !hasButton(msgs[2], "↩️ Undo") || !isQuestion(msgs[3], "Update README") {
		t.Fatalf("after the first title: %q", messageTexts(msgs[2:]))
	}
	if !h.trashed(chat, "T1") || h.trashed(chat, "T2") {
		t.Fatalf("after the first title: T1 trashed %v, T2 trashed %v", h.trashed(chat, "T1"), h.trashed(chat, "T2"))
	}
	if m, _ := h.tg.Message(chat, msgs[1].ID); !strings.Contains(m.Text, "You typed its title: deleted.") {
		t.Errorf("the first question reads %q", m.Text)
	}

	// A near miss of the second title asks again; the title deletes it.
	h.tg.SendText(chat, user, "Update READM")
	if m := h.tg.WaitBotMessages(chat, 5)[4]; !strings.Contains(m.Text, "not quite the title “Update README”") {
		t.Errorf("near miss: %q", m.Text)
	}
	h.tg.SendText(chat, user, "Update README")
	if m := h.tg.WaitBotMessages(chat, 6)[5]; !strings.Contains(m.Text, "Moved “Update README” to the trash") {
		t.Errorf("after the second title: %q", m.Text)
	}
	h.quiet(chat, 6)
	if !h.trashed(chat, "T2") {
		t.Errorf("T2 not in the trash")
	}
	if got, want := outcomes(h.audit(chat))[2:], []string{"delete_task:queued", "delete_task:queued", "delete_task:confirmed", "delete_task:confirmed"}; !slices.Equal(got, want) {
		t.Errorf("audit = %v, want %v", got, want)
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("%d agent requests: a typed title reached the model", n)
	}
}

// Cancelling the first question (a bare "no") asks the second, whose
// title deletes only its own task.
func TestCancelFirstDeletionThenSecond(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedTwo(chat)
	h.start()
	h.askTwo(chat, user)
	h.tg.SendText(chat, user, "no")
	msgs := h.tg.WaitBotMessages(chat, 4)
	if !strings.Contains(msgs[2].Text, "Nothing was deleted") || !isQuestion(msgs[3], "Update README") {
		t.Fatalf("after no: %q", messageTexts(msgs[2:]))
	}
	if m, _ := h.tg.Message(chat, msgs[1].ID); !strings.Contains(m.Text, "Cancelled") {
		t.Errorf("the first question reads %q", m.Text)
	}
	h.tg.SendText(chat, user, "Update README")
	h.tg.WaitBotMessages(chat, 5)
	if h.trashed(chat, "T1") || !h.trashed(chat, "T2") {
		t.Errorf("T1 trashed %v, T2 trashed %v; want only T2", h.trashed(chat, "T1"), h.trashed(chat, "T2"))
	}
	h.quiet(chat, 5)
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("%d agent requests: an answer reached the model", n)
	}
}

// Other text cancels the first question and is handled as a message;
// the second question follows the agent's reply to it. Words that open
// with a yes are told that a yes is not the title: played, the person
// took their "yes but keep the coffee" for one.
func TestOtherTextCancelsAndAsksTheNextAfterTheReply(t *testing.T) {
	t.Parallel()
	for said, cancelled := range map[string]string{
		"actually keep the login bug": "Nothing was deleted: “Fix login bug” stays on your list (only its title, typed back, deletes it).",
		"yes but keep the login bug":  "Nothing was deleted: a yes does not delete “Fix login bug”, only its title typed back does.",
	} {
		t.Run(said, func(t *testing.T) {
			t.Parallel()
			otherTextCancels(t, said, cancelled)
		})
	}
}

func otherTextCancels(t *testing.T, said, cancelled string) {
	h := newHarness(t)
	h.seedTwo(chat)
	h.start()
	h.askTwo(chat, user)
	h.script(openaitest.Text("Keeping the login bug."))
	h.tg.SendText(chat, user, said)
	msgs := h.tg.WaitBotMessages(chat, 5)
	if msgs[2].Text != cancelled || msgs[3].Text != "Keeping the login bug." || !isQuestion(msgs[4], "Update README") {
		t.Fatalf("after %q: %q", said, messageTexts(msgs[2:]))
	}
	h.tg.SendText(chat, user, "update readme")
	h.tg.WaitBotMessages(chat, 6)
	if h.trashed(chat, "T1") || !h.trashed(chat, "T2") {
		t.Errorf("T1 trashed %v, T2 trashed %v; want only T2", h.trashed(chat, "T1"), h.trashed(chat, "T2"))
	}
}

// When the first question's time runs out (NOD_CONFIRM_WINDOW), the
// sweep says so on it and asks the second; the first title typed then
// deletes nothing.
func TestExpiredDeletionMovesOnToTheNext(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.env["NOD_CONFIRM_WINDOW"] = "3m"
	h.seedTwo(chat)
	h.start()
	msgs := h.askTwo(chat, user)
	h.clock.Advance(2 * time.Minute)
	h.sweeps(2)
	h.quiet(chat, 2) // not yet
	h.clock.Advance(time.Minute)
	second := h.tg.WaitBotMessages(chat, 3)[2]
	if !isQuestion(second, "Update README") {
		t.Fatalf("after the first question's time: %q", second.Text)
	}
	h.shown(chat, user, "T2")
	if m, _ := h.tg.Message(chat, msgs[1].ID); !strings.Contains(m.Text, "Time ran out") {
		t.Errorf("the expired question reads %q", m.Text)
	}
	// The second waits its own time from when it was asked.
	h.clock.Advance(2 * time.Minute)
	h.sweeps(2)
	h.tg.SendText(chat, user, "Update README")
	h.tg.WaitBotMessages(chat, 4)
	if h.trashed(chat, "T1") || !h.trashed(chat, "T2") {
		t.Errorf("T1 trashed %v, T2 trashed %v; want only T2", h.trashed(chat, "T1"), h.trashed(chat, "T2"))
	}
	h.script(openaitest.Text("Which one?"))
	h.tg.SendText(chat, user, "Fix login bug")
	if m := h.tg.WaitBotMessages(chat, 5)[4]; m.Text != "Which one?" || h.trashed(chat, "T1") {
		t.Errorf("the expired question's title: %q, T1 trashed %v", m.Text, h.trashed(chat, "T1"))
	}
}

// A question whose time ran out before any sweep noticed: the title typed
// then is an ordinary message, and the next question is asked after its
// reply.
func TestExpiredDeletionWithoutSweep(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "1000h"
	h.seedTwo(chat)
	h.start()
	// The one sweep, at start, is over before the time runs out.
	h.tg.Wait("the start's sweep", func() bool { v, _ := h.metric("nod_sweeps_total"); return v >= 1 })
	h.askTwo(chat, user)
	h.clock.Advance(10 * time.Minute)
	h.script(openaitest.Text("That question had expired."))
	h.tg.SendText(chat, user, "Fix login bug")
	msgs := h.tg.WaitBotMessages(chat, 4)
	if msgs[2].Text != "That question had expired." || !isQuestion(msgs[3], "Update README") || h.trashed(chat, "T1") {
		t.Fatalf("after the late title: %q, T1 trashed %v", messageTexts(msgs[2:]), h.trashed(chat, "T1"))
	}
	if m, _ := h.tg.Message(chat, msgs[1].ID); !strings.Contains(m.Text, "Time ran out") {
		t.Errorf("the expired question reads %q", m.Text)
	}
}

// A line of questions survives a restart: the one shown is answered after
// it, and one whose message never went out is asked when nod is back.
func TestDeletionLineSurvivesRestart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedTwo(chat)
	h.start()
	h.askTwo(chat, user)
	h.stop()
	h.start()
	h.tg.SendText(chat, user, "Fix login bug")
	msgs := h.tg.WaitBotMessages(chat, 4)
	if !strings.Contains(msgs[2].Text, "Moved “Fix login bug”") || !isQuestion(msgs[3], "Update README") {
		t.Fatalf("after the restart: %q", messageTexts(msgs[2:]))
	}

	// The next line's first question fails to go out; nod stops.
	h.seed(chat, nod.Task{ID: "T3", Title: "Plan the offsite"})
	h.tg.SendText(chat, user, "no") // the README question ends
	h.tg.WaitBotMessages(chat, 5)
	h.tg.Wire().SetFault(func(method string, p url.Values) *telegramtest.Error {
		if method == "sendMessage" && strings.Contains(p.Get("text"), "Plan the offsite") {
			return &telegramtest.Error{Code: 400, Description: "Bad Request: not now"}
		}
		return nil
	})
	h.script(openaitest.Calls(call("d3", "delete_task", map[string]any{"task_id": "T3"})), openaitest.Text("It goes once you confirm."))
	h.tg.SendText(chat, user, "delete the offsite task")
	h.tg.WaitBotMessages(chat, 6)
	h.tg.Wait("the question to fail", func() bool { return strings.Contains(h.logs.String(), "not now") })
	h.stop()
	h.tg.Wire().SetFault(nil)
	// Later than a dead process's grace, within the question's time.
	h.clock.Advance(6 * time.Minute)
	h.start()
	if m := h.tg.WaitBotMessages(chat, 7)[6]; !isQuestion(m, "Plan the offsite") {
		t.Fatalf("after the restart: %q", m.Text)
	}
	h.shown(chat, user, "T3")
	h.clock.Advance(5 * time.Minute) // it waits its full time from when it was shown
	h.tg.SendText(chat, user, "Plan the offsite")
	h.tg.WaitBotMessages(chat, 8)
	if !h.trashed(chat, "T3") || h.trashed(chat, "T2") {
		t.Errorf("T3 trashed %v, T2 trashed %v; want only T3", h.trashed(chat, "T3"), h.trashed(chat, "T2"))
	}
}

// In a group each member's deletions are their own: another member's
// text is no answer (it goes to the agent as theirs), and the member who
// asked answers their questions in turn.
func TestGroupDeletionsAreTheAskers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const group, bob = -500, 43
	h.seedTwo(group)
	h.start()
	h.askTwo(group, user)
	h.script(openaitest.Text("Only the one who asked can confirm."))
	h.tg.SendText(group, bob, "Fix login bug")
	if m := h.tg.WaitBotMessages(group, 3)[2]; m.Text != "Only the one who asked can confirm." || h.trashed(group, "T1") {
		t.Fatalf("another member's title: %q, T1 trashed %v", m.Text, h.trashed(group, "T1"))
	}
	h.tg.SendText(group, user, "Fix login bug")
	msgs := h.tg.WaitBotMessages(group, 5)
	if !strings.Contains(msgs[3].Text, "Moved “Fix login bug”") || !isQuestion(msgs[4], "Update README") || !h.trashed(group, "T1") {
		t.Fatalf("the asker's title: %q", messageTexts(msgs[3:]))
	}
	h.tg.SendText(group, user, "Update README")
	h.tg.WaitBotMessages(group, 6)
	if !h.trashed(group, "T2") {
		t.Errorf("T2 not in the trash")
	}
}

// A German deletion and its undo: the task is back, the receipt says so
// once, in German, and nothing English or internal ("trash", the stored
// summary) shows.
func TestGermanDeletionUndone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetLanguage(user, "de")
	h.seed(chat, nod.Task{ID: "T1", Title: "Fix login bug"})
	h.clf = answer("explicit:lösch den Login-Bug")
	h.script(openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})), openaitest.Text("Sie kommt in den Papierkorb, sobald du bestätigst."))
	h.start()
	h.tg.SendText(chat, user, "lösch den Login-Bug")
	h.tg.WaitBotMessages(chat, 2)
	h.shown(chat, user, "T1")
	h.tg.SendText(chat, user, "Fix login bug")
	h.tg.Wait("the deletion", func() bool { return h.trashed(chat, "T1") })
	receipt := h.withButton(chat, "↩️ Rückgängig")
	h.tap(chat, user, receipt.ID, "↩️ Rückgängig")
	if h.trashed(chat, "T1") {
		t.Fatal("the task is still in the trash after Undo")
	}
	msgs := h.quiet(chat, len(h.tg.BotMessages(chat)))
	seen := map[string]bool{}
	for _, m := range msgs {
		if seen[m.Text] {
			t.Errorf("sent twice: %q", m.Text)
		}
		seen[m.Text] = true
		for _, w := range []string{"trash", "Delete", "Undo", "undone"} {
			if strings.Contains(m.Text, w) {
				t.Errorf("%q in German: %q", w, m.Text)
			}
		}
	}
	t.Logf("chat:\n%s", strings.Join(messageTexts(msgs), "\n---\n"))
}

// Restoring one task of a /trash list redraws the list with the trash as
// it is now, and the receipt with Undo follows.
func TestTrashListRedrawnAfterRestore(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gone := h.clock.Now().Add(-time.Hour)
	h.seed(chat, nod.Task{ID: "T1", Title: "Fix login bug", DeletedAt: &gone})
	h.seed(chat, nod.Task{ID: "T2", Title: "Update README", DeletedAt: &gone})
	h.start()
	h.tg.SendText(chat, user, "/trash")
	list := h.tg.WaitBotMessages(chat, 1)[0]
	h.tap(chat, user, list.ID, "♻️ Restore Fix login bug")
	list = h.tg.WaitMessage(chat, list.ID, "the list to be redrawn", func(m telegramtest.Message) bool { return !hasButton(m, "♻️ Restore Fix login bug") })
	if !hasButton(list, "♻️ Restore Update README") || strings.Contains(list.Text, "Fix login bug") {
		t.Errorf("the list after the restore reads %q %v", list.Text, buttonTexts(list))
	}
	if receipt := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(receipt.Text, "Restored “Fix login bug”") || !hasButton(receipt, "↩️ Undo") {
		t.Errorf("receipt = %q %v", receipt.Text, buttonTexts(receipt))
	}
}

// TestDeletionTextsSayTheConfiguredSpans: an operator who keeps the trash
// two days and waits five minutes for a title sees nod say so, in the
// question, the receipt and /trash; nothing says the defaults.
func TestDeletionTextsSayTheConfiguredSpans(t *testing.T) {
	h := newHarness(t)
	h.env["NOD_TRASH_RETENTION"] = "48h"
	h.env["NOD_CONFIRM_WINDOW"] = "5m"
	h.seedT1()
	h.start()
	words := "delete the login bug"
	h.clf = answer("explicit:" + words)
	h.script(openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": "T1"})), openaitest.Text("It goes to the trash once you confirm."))
	h.tg.SendText(chat, user, words)
	asked := h.tg.WaitBotMessages(chat, 2)[1].Text // answered, it is edited
	h.shown(chat, user, "T1")
	h.tg.SendText(chat, user, "Fix login bug")
	h.tg.WaitBotMessages(chat, 3)
	h.tg.SendText(chat, user, "/trash")
	msgs := h.tg.WaitBotMessages(chat, 4)
	text := asked + "\n" + msgs[2].Text + "\n" + msgs[3].Text
	for _, want := range []string{"This waits 5 minutes; a deleted task stays in the trash for 2 days.", "/trash restores it within 2 days.", "tasks are kept 2 days:"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "30 days") || strings.Contains(text, "10 minutes") {
		t.Errorf("a default span in:\n%s", text)
	}
}
