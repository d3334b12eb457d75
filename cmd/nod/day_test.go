package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// board is a group chat of the day tests: Telegram gives groups
// negative ids.
const board = int64(-500)

// /tz shows the default zone until one is set, sets an IANA name, refuses
// anything else; the agent's request states the local date, weekday,
// time and zone, and the classifier's date line is local too.
func TestTimeZoneCommandAndPromptLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.env["NOD_TIMEZONE"] = "America/Los_Angeles"
	h.start()
	h.tg.SendText(chat, user, "/tz")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "No time zone is set") || !strings.Contains(m.Text, "America/Los_Angeles") ||
		!strings.Contains(m.Text, "11 Mar 2026, 03:00") {
		t.Errorf("/tz = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/tz Mars/Olympus")
	if m := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(m.Text, "not a time zone I know") {
		t.Errorf("/tz Mars/Olympus = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "America/Los_Angeles → <b>Europe/Berlin</b>") || !strings.Contains(m.Text, "11 Mar 2026, 11:00") {
		t.Errorf("/tz Europe/Berlin = %q", m.Text)
	}
	// 23:40 in Berlin is already tomorrow there.
	h.clock.Set(time.Date(2026, 3, 11, 22, 40, 0, 0, time.UTC))
	h.clf = answer("explicit:make it P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Done."))
	h.tg.SendText(chat, user, "make it P1")
	h.tg.WaitBotMessages(chat, 5)
	if sys := h.llm.RequestsFor(agentM)[0].System(); !strings.Contains(sys, "Today is Wednesday, 2026-03-11, 23:40 (Europe/Berlin).") {
		t.Errorf("the agent's request does not state the local time:\n%s", grepLines(sys, "Today"))
	}
	if sys := h.llm.RequestsFor(clfM)[0].System(); !strings.Contains(sys, "Today is Wednesday, 2026-03-11, 23:40 (Europe/Berlin)") {
		t.Errorf("the classifier's date line is not local:\n%s", grepLines(sys, "Today"))
	}
	h.tg.SendText(chat, user, "/tz")
	if m := h.tg.WaitBotMessages(chat, 6)[5]; !strings.Contains(m.Text, "time zone is <b>Europe/Berlin</b>") || !strings.Contains(m.Text, "11 Mar 2026, 23:40") {
		t.Errorf("/tz after setting = %q", m.Text)
	}
}

// In a group, /tz and /daily change the chat only for its administrators:
// a member is refused and nothing changes; the creator's works. In a
// private chat nobody is asked.
func TestChatSettingsAdminsOnlyInGroup(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.SetMember(board, 43, "creator")
	h.tg.SetMember(board, user, "member")
	h.start()
	h.tg.SendText(board, user, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(board, 1)[0]; !strings.Contains(m.Text, "only its administrators can change the time zone") {
		t.Errorf("member's /tz = %q", m.Text)
	}
	h.tg.SendText(board, user, "/daily 08:00")
	if m := h.tg.WaitBotMessages(board, 2)[1]; !strings.Contains(m.Text, "only its administrators can change the daily review") {
		t.Errorf("member's /daily = %q", m.Text)
	}
	s, err := h.db.ChatSettings(t.Context(), board, 0)
	if err != nil || s.TimeZone != "" || s.Daily != "" {
		t.Fatalf("a member's refused commands changed the chat: %+v %v", s, err)
	}
	h.tg.SendText(board, 43, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(board, 3)[2]; !strings.Contains(m.Text, "UTC → <b>Europe/Berlin</b>") {
		t.Errorf("creator's /tz = %q", m.Text)
	}
	h.tg.SendText(board, 43, "/daily 08:00")
	if m := h.tg.WaitBotMessages(board, 4)[3]; !strings.Contains(m.Text, "Every day at <b>08:00</b> (Europe/Berlin)") {
		t.Errorf("creator's /daily = %q", m.Text)
	}
	if s, _ := h.db.ChatSettings(t.Context(), board, 0); s.TimeZone != "Europe/Berlin" || s.Daily != "08:00" {
		t.Errorf("settings after the creator's commands: %+v", s)
	}
	before := len(h.tg.Calls("getChatMember"))
	h.tg.SendText(chat, user, "/tz Asia/Tokyo")
	h.tg.WaitBotMessages(chat, 1)
	if n := len(h.tg.Calls("getChatMember")); n != before {
		t.Errorf("a private chat asked Telegram who may change it")
	}
}

// set_chat_timezone from the person's own words applies at once with a
// receipt and Undo; Undo puts the zone before back. Not asked for in
// words, it changes nothing and the agent is told to ask.
func TestSetChatTimezoneExplicitAndUndo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = answer("explicit:I'm in Tokyo this week")
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("Noted."))
	h.start()
	h.tg.SendText(chat, user, "I'm in Tokyo this week")
	msgs := h.tg.WaitBotMessages(chat, 2)
	rcpt := msgs[0]
	if !strings.Contains(rcpt.Text, "Time zone: UTC → <b>Asia/Tokyo</b>") || !strings.Contains(rcpt.Text, "because you said") || !hasButton(rcpt, "↩️ Undo") {
		t.Fatalf("receipt = %q %v", rcpt.Text, buttonTexts(rcpt))
	}
	if s, _ := h.db.ChatSettings(t.Context(), chat, user); s.TimeZone != "Asia/Tokyo" {
		t.Fatalf("zone = %q", s.TimeZone)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["z"]; !strings.Contains(r, `"timezone":"Asia/Tokyo"`) || !strings.Contains(r, "19:00 (Asia/Tokyo)") {
		t.Errorf("tool result = %q", r)
	}
	if ans := h.tap(chat, user, rcpt.ID, "↩️ Undo"); ans != "Undone." {
		t.Errorf("undo answer = %q", ans)
	}
	if s, _ := h.db.ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
		t.Errorf("zone after undo = %q", s.TimeZone)
	}
	if m, _ := h.tg.Message(chat, rcpt.ID); !strings.Contains(m.Text, "Time zone back to <b>UTC</b>") || hasButton(m, "↩️ Undo") {
		t.Errorf("receipt after undo = %q %v", m.Text, buttonTexts(m))
	}
	if got := outcomes(h.audit(chat)); !strings.Contains(strings.Join(got, " "), "set_chat_timezone:executed") || got[len(got)-1] != "set_chat_timezone:undone" {
		t.Errorf("audit = %v", got)
	}

	h.clf = answer() // not explicit
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Europe/Berlin"})), openaitest.Text("Shall I?"))
	h.tg.SendText(chat, user, "flying to Cologne soon")
	h.tg.WaitBotMessages(chat, 3)
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["z"]; !strings.HasPrefix(r, "Not changed: the user did not clearly ask") {
		t.Errorf("tool result of an inferred zone = %q", r)
	}
	if s, _ := h.db.ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
		t.Errorf("an inferred zone was set: %q", s.TimeZone)
	}
}
