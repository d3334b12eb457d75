package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
)

// One turn queues four deletions; the person types the first title (it
// is deleted), then writes something else: that question and the two
// after it are cancelled in one message, and nothing more is asked.
func TestOtherTextCancelsTheRestOfTheLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedTwo(chat)
	h.seed(chat, nod.Task{ID: "T3", Title: "Cancel gym"})
	h.seed(chat, nod.Task{ID: "T4", Title: "Book dentist"})
	h.start()
	words := "delete all four of them"
	h.clf = answer("explicit:" + words)
	var calls []openaitest.ToolCall
	for _, id := range []string{"T1", "T2", "T3", "T4"} {
		calls = append(calls, call("d"+id, "delete_task", map[string]any{"task_id": id}))
	}
	h.script(openaitest.Calls(calls...), openaitest.Text("All four go to the trash once you confirm."))
	h.tg.SendText(chat, user, words)
	h.tg.WaitBotMessages(chat, 2)
	h.shown(chat, user, "T1")
	h.tg.SendText(chat, user, "Fix login bug")
	msgs := h.tg.WaitBotMessages(chat, 4)
	if !isQuestion(msgs[3], "Update README") {
		t.Fatalf("after the first title: %q", messageTexts(msgs[2:]))
	}
	h.shown(chat, user, "T2")
	h.script(openaitest.Text("Alright, I'll leave them."))
	h.tg.SendText(chat, user, "ugh too much typing, forget it, leave the rest")
	msgs = h.tg.WaitBotMessages(chat, 6)
	want := "Nothing was deleted: that was not the task's title “Update README”. I won't ask about “Cancel gym” or “Book dentist” either."
	if msgs[4].Text != want || msgs[5].Text != "Alright, I'll leave them." {
		t.Fatalf("after other text: %q", messageTexts(msgs[4:]))
	}
	h.quiet(chat, 6)
	if !h.trashed(chat, "T1") || h.trashed(chat, "T2") || h.trashed(chat, "T3") || h.trashed(chat, "T4") {
		t.Errorf("trashed T1..T4: %v %v %v %v; want only T1", h.trashed(chat, "T1"), h.trashed(chat, "T2"), h.trashed(chat, "T3"), h.trashed(chat, "T4"))
	}
	if _, ok, err := h.db.Deletions().WaitingDeletion(t.Context(), chat, user); ok || err != nil {
		t.Errorf("a deletion still waits (%v)", err)
	}
	got := outcomes(h.audit(chat))
	if want := []string{"delete_task:confirmed", "delete_task:rejected", "delete_task:rejected", "delete_task:rejected"}; len(got) < 4 || !slices.Equal(got[len(got)-4:], want) {
		t.Errorf("audit outcomes %v, want them to end in %v", got, want)
	}
	h.tg.SendText(chat, user, "Cancel gym") // too late: nothing asks for it
	h.script(openaitest.Text("It stays."))
	h.tg.WaitBotMessages(chat, 7)
	if h.trashed(chat, "T3") {
		t.Error("a title typed after the line was cancelled deleted its task")
	}
}

// A command is no answer to a waiting deletion: /trash shows the trash
// and the question stays, to be answered by the title.
func TestCommandLeavesTheDeletionQuestion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedTwo(chat)
	h.start()
	h.askTwo(chat, user)
	h.tg.SendText(chat, user, "/trash")
	msgs := h.tg.WaitBotMessages(chat, 3)
	if strings.Contains(msgs[2].Text, "Nothing was deleted") || !strings.Contains(strings.ToLower(msgs[2].Text), "trash") {
		t.Fatalf("after /trash: %q", messageTexts(msgs[2:]))
	}
	if d, ok, err := h.db.Deletions().WaitingDeletion(t.Context(), chat, user); !ok || err != nil || d.TaskID != "T1" {
		t.Fatalf("the question on T1 no longer waits: %v %v %v", d.TaskID, ok, err)
	}
	h.tg.SendText(chat, user, "fix login bug")
	msgs = h.tg.WaitBotMessages(chat, 5)
	if !h.trashed(chat, "T1") || !isQuestion(msgs[4], "Update README") {
		t.Errorf("after the title: T1 trashed %v, %q", h.trashed(chat, "T1"), messageTexts(msgs[3:]))
	}
}
