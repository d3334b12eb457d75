package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// Text past its limit is a tool error naming the field and the limit, so
// that the model can call again with less: nothing is cut, queued or
// applied. A label holds at most 64 characters and a task 20 labels; a
// checklist item's new title at most what a new item's may (500 bytes); a
// reason 500 characters.
func TestToolArgumentLimits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.startWithRaise("raise the login bug")
	long := func(n int) string { return strings.Repeat("é", n) }
	many := make([]string, 21)
	for i := range many {
		many[i] = "label" + string(rune('a'+i))
	}
	h.script(openaitest.Calls(
		call("labels", "assign_task_labels", map[string]any{"task_id": "T1", "labels": []string{"backend", long(65)}}),
		call("create", "create_task", map[string]any{"title": "Write the release notes", "labels": many}),
		call("rename", "update_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]any{{"id": "c1", "title": strings.Repeat("x", 501)}}}),
		call("remove", "remove_checklist_items", map[string]any{"task_id": "T1", "items": []map[string]any{{"id": "c1", "reason": long(501)}}}),
		call("answer", "answer_proposals", map[string]any{"reject": []int{1}, "reason": long(501)}),
	), openaitest.Text("Some of that was too long."))
	h.tg.SendText(chat, user, "tidy it all up")
	h.tg.WaitBotMessages(chat, 3)
	h.settleMessages()

	results := h.llm.RequestsFor(agentM)[3].ToolResults()
	for id, want := range map[string][]string{
		"labels": {`"labels"`, "65 characters", "64"},
		"create": {`"labels"`, "20 labels"},
		"rename": {`"title"`, "500 bytes"},
		"remove": {`"reason"`, "501 characters", "500"},
		"answer": {`"reason"`, "501 characters", "500"},
	} {
		text := results[id]
		var e struct{ Error string }
		if json.Unmarshal([]byte(text), &e) == nil && e.Error != "" {
			text = e.Error
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: tool result %q lacks %q", id, text, w)
			}
		}
		if strings.Contains(results[id], "queued") {
			t.Errorf("%s: an oversized call was queued: %q", id, results[id])
		}
	}
	if n := len(h.tg.BotMessages(chat)); n != 3 {
		t.Errorf("%d bot messages, want 3 (no change set from oversized calls)", n)
	}
	task := h.task("T1")
	if len(task.Labels) != 2 || task.Checklist[0].Title != "Write tests" {
		t.Errorf("T1 changed: labels %v, first item %q", task.Labels, task.Checklist[0].Title)
	}
	if set := h.tg.BotMessages(chat)[1]; !strings.Contains(set.Text, "P1") || strings.Contains(set.Text, "rejected") {
		t.Errorf("the pending set changed: %q", set.Text)
	}
}

// A reason the person gives for a rejection is kept up to 500 characters:
// a longer one is not cut but answered, naming both lengths, and nothing
// is stored, so that a shorter reply is still taken as the reason.
func TestRejectionReasonTooLong(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	set := h.startWithRaise("raise the login bug")
	h.tap(chat, user, set.ID, "✗ 1")
	h.tg.ReplyText(chat, user, set.ID, strings.Repeat("too long ", 60)) // 540 characters
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "539") || !strings.Contains(m.Text, "500") || !strings.Contains(m.Text, "shorter") {
		t.Errorf("an over-long reason answered %q", m.Text)
	}
	if ds, _ := h.db.ChangeSets().RecentDecisions(t.Context(), chat, 10); len(ds) != 1 || ds[0].Reason != "" {
		t.Errorf("decisions after an over-long reason = %+v", ds)
	}
	h.tg.ReplyText(chat, user, set.ID, "Not now, it can wait")
	if m := h.tg.WaitBotMessages(chat, 4)[3]; !strings.Contains(m.Text, "Noted") {
		t.Errorf("the shorter reason answered %q", m.Text)
	}
	if ds, _ := h.db.ChangeSets().RecentDecisions(t.Context(), chat, 10); len(ds) != 1 || ds[0].Reason != "Not now, it can wait" {
		t.Errorf("decisions after the shorter reason = %+v", ds)
	}
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Errorf("%d agent requests, want 2: a reason is not a request", n)
	}
}
