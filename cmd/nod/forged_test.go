package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// editsOf counts the edits nod asked Telegram for of message id of chatID.
func (h *harness) editsOf(chatID int64, id int) int {
	n := 0
	for _, c := range h.tg.Calls("") {
		if (c.Method == "editMessageText" || c.Method == "editMessageReplyMarkup") &&
			c.Params.Get("chat_id") == strconv.FormatInt(chatID, 10) && c.Params.Get("message_id") == strconv.Itoa(id) {
			n++
		}
	}
	return n
}

// docs/design.md §7: callback data pressed on a message other than the one it was
// sent with is refused and changes nothing. Two members of a group each
// have an applied change with its receipt; the Undo of one, pressed on
// the other's receipt, undoes nothing and leaves that receipt as it was;
// so does a change set's ✓ pressed there. Pressed on its own message, the
// Undo works.
func TestForgedUndoOnAnothersReceipt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const group, bob = -500, 43
	h.seed(group, nod.Task{ID: "G1", Title: "Plan offsite", Priority: nod.P3})
	h.seed(group, nod.Task{ID: "G2", Title: "Budget review", Priority: nod.P3})
	h.start()
	h.clf = answer("explicit:make the offsite P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "G1", "priority": "P1"})), openaitest.Text("Done."))
	h.tg.SendText(group, user, "make the offsite P1")
	alices := h.tg.WaitBotMessages(group, 2)[0]
	h.clf = answer("explicit:make the budget review P0")
	h.script(openaitest.Calls(call("b", "set_task_priority", map[string]any{"task_id": "G2", "priority": "P0"})), openaitest.Text("Done."))
	h.tg.SendText(group, bob, "make the budget review P0")
	bobs := h.tg.WaitBotMessages(group, 4)[2]
	// A proposal of Alice's, whose ✓ 1 she may press on its own message.
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("c", "update_task_due_date", map[string]any{"task_id": "G1", "due_date": "2026-04-01"})), openaitest.Text("Shall I?"))
	h.tg.SendText(group, user, "the offsite is in April")
	set := h.changeSetMessage(group, 6)
	bobUndo, ok := bobs.Button("↩️ Undo")
	if !ok || !strings.Contains(bobs.Text, "Priority: P3 → P0") || !strings.Contains(alices.Text, "Priority: P3 → P1") {
		t.Fatalf("receipts: %q %v / %q", bobs.Text, buttonTexts(bobs), alices.Text)
	}
	aliceUndo, _ := alices.Button("↩️ Undo")
	confirm, _ := set.Button("✓ 1")
	h.settle()
	editsBefore := h.editsOf(group, alices.ID) + h.editsOf(group, bobs.ID)

	for _, p := range []struct {
		name string
		user int64
		on   int
		data string
	}{
		{"Bob's Undo on Alice's receipt", bob, alices.ID, bobUndo.Data},
		{"Alice's Undo on Bob's receipt", user, bobs.ID, aliceUndo.Data},
		{"Alice's ✓ 1 on Bob's receipt", user, bobs.ID, confirm.Data},
		{"Alice's Undo on her change set", user, set.ID, aliceUndo.Data},
	} {
		ans := h.tg.WaitAnswer(h.tg.Press(group, p.user, p.on, p.data))
		h.settle()
		if !strings.Contains(ans, "not valid here") {
			t.Errorf("%s answered %q", p.name, ans)
		}
	}
	g1, _ := h.db.Tasks().Task(t.Context(), group, "G1")
	g2, _ := h.db.Tasks().Task(t.Context(), group, "G2")
	if g1.Priority != nod.P1 || g1.DueDate != "" || g2.Priority != nod.P0 {
		t.Errorf("after refused presses: G1 %s due %q, G2 %s", g1.Priority, g1.DueDate, g2.Priority)
	}
	if n := h.editsOf(group, alices.ID) + h.editsOf(group, bobs.ID); n != editsBefore {
		t.Errorf("refused presses edited the receipts %d times", n-editsBefore)
	}
	for _, m := range []telegramtest.Message{alices, bobs} {
		if now, _ := h.tg.Message(group, m.ID); now.Text != m.Text || !hasButton(now, "↩️ Undo") {
			t.Errorf("receipt %d now reads %q %v", m.ID, now.Text, buttonTexts(now))
		}
	}
	if n := h.count(nod.OutcomeUndone); n != 0 {
		t.Errorf("%d undos in the audit", n)
	}

	// On its own message the same data works.
	if ans := h.tg.WaitAnswer(h.tg.Press(group, bob, bobs.ID, bobUndo.Data)); ans != "Undone." {
		t.Errorf("Bob's Undo on his receipt answered %q", ans)
	}
	h.settle()
	if g2, _ := h.db.Tasks().Task(t.Context(), group, "G2"); g2.Priority != nod.P3 {
		t.Errorf("G2 after Bob's Undo: %s", g2.Priority)
	}
	h.tg.WaitMessage(group, bobs.ID, "Bob's receipt to say undone", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "undone") })
	if now, _ := h.tg.Message(group, alices.ID); now.Text != alices.Text {
		t.Errorf("Alice's receipt changed: %q", now.Text)
	}
	if ans := h.tap(group, user, set.ID, "✓ 1"); ans != "Applied item 1." {
		t.Errorf("Alice's ✓ 1 on her set answered %q", ans)
	}
}
