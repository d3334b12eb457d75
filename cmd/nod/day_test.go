package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/place"
)

// board is a group chat of the day tests: Telegram gives groups
// negative ids.
const board = -500

// /tz shows the default zone until one is set, sets an IANA name, refuses
// anything else; the agent's request states the local date, weekday,
// time and zone, and the classifier's date line is local too.
func TestTimeZoneCommandAndPromptLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.env["NOD_TIMEZONE"] = "America/Los_Angeles"
	h.start()
	// Before the person says where they are, the agent is told to ask
	// once, when a date or time comes up, and never to guess.
	const ask = "The user has not said where they are; this is nod's default zone. When they give a date or time"
	h.script(openaitest.Text("Where are you, so that I read “tomorrow” right?"))
	h.tg.SendText(chat, user, "remind me tomorrow at 9 about the tax return")
	h.tg.WaitBotMessages(chat, 1)
	if sys := h.llm.RequestsFor(agentM)[0].System(); !strings.Contains(sys, ask) || !strings.Contains(sys, "never guess it") {
		t.Errorf("with no zone set, the agent is not told to ask:\n%s", grepLines(sys, "where they are"))
	}
	h.tg.SendText(chat, user, "/tz")
	if m := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(m.Text, "No time zone is set") || !strings.Contains(m.Text, "America/Los_Angeles") ||
		!strings.Contains(m.Text, "11 Mar 2026, 03:00") {
		t.Errorf("/tz = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/tz Mars/Olympus")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "I don't know a place or time zone called “Mars/Olympus”") {
		t.Errorf("/tz Mars/Olympus = %q", m.Text)
	}
	// The zone answers the agent's question: its turn goes on.
	h.script(openaitest.Text("Thanks: Berlin it is. Shall I set the reminder for 9:00?"))
	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(chat, 5)[3]; !strings.Contains(m.Text, "America/Los_Angeles → <b>Europe/Berlin</b>") || !strings.Contains(m.Text, "11 Mar 2026, 11:00") {
		t.Errorf("/tz Europe/Berlin = %q", m.Text)
	}
	// 23:40 in Berlin is already tomorrow there.
	h.clock.Set(time.Date(2026, 3, 11, 22, 40, 0, 0, time.UTC))
	h.clf = answer("explicit:make it P1")
	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P1"})), openaitest.Text("Done."))
	h.tg.SendText(chat, user, "make it P1")
	h.tg.WaitBotMessages(chat, 7)
	if sys := h.llm.RequestsFor(agentM)[2].System(); !strings.Contains(sys, "Today is Wednesday, 2026-03-11, 23:40 (Europe/Berlin).") {
		t.Errorf("the agent's request does not state the local time:\n%s", grepLines(sys, "Today"))
	} else if strings.Contains(sys, ask) {
		t.Errorf("the agent is told to ask where the person is after they set a zone")
	}
	if sys := h.llm.RequestsFor(clfM)[0].System(); !strings.Contains(sys, "Today is Wednesday, 2026-03-11, 23:40 (Europe/Berlin)") {
		t.Errorf("the classifier's date line is not local:\n%s", grepLines(sys, "Today"))
	}
	h.tg.SendText(chat, user, "/tz")
	if m := h.tg.WaitBotMessages(chat, 8)[7]; !strings.Contains(m.Text, "time zone is <b>Europe/Berlin</b>") || !strings.Contains(m.Text, "11 Mar 2026, 23:40") {
		t.Errorf("/tz after setting = %q", m.Text)
	}
}

// With no zone set, the agent is told to ask where the person is once: in
// the result of the first call that writes a date or time, which the chat
// records; from then on its prompt says it was told, and no later date
// tells it again. A real model writes the date it was asked for at once,
// rather than asking first, so the note comes after the change.
func TestZoneAskedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.start()
	const note = "ask them now, once, where they are"
	h.clf = answer("explicit:due tomorrow")
	h.script(openaitest.Calls(call("a", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-12"})),
		openaitest.Text("Due tomorrow. Where are you, so that I read your dates right?"))
	h.tg.SendText(chat, user, "login bug due tomorrow")
	h.tg.WaitBotMessages(chat, 2)
	reqs := h.llm.RequestsFor(agentM)
	if got := reqs[1].ToolResults()["a"]; !strings.Contains(got, note) || !strings.Contains(got, "(UTC)") {
		t.Errorf("the first date's result does not tell the agent to ask:\n%s", got)
	}
	if s, err := h.db.Settings().ChatSettings(t.Context(), chat, user); err != nil || s.ZoneAsked == nil {
		t.Fatalf("the chat does not record that the agent was told: %+v %v", s, err)
	}

	// The person does not answer where they are, and gives a time.
	h.clf = answer("explicit:remind me about it at 9 tomorrow")
	h.script(openaitest.Calls(call("b", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T09:00"})),
		openaitest.Text("I'll remind you at 9."))
	h.tg.SendText(chat, user, "remind me about it at 9 tomorrow")
	h.tg.WaitBotMessages(chat, 4)
	reqs = h.llm.RequestsFor(agentM)
	sys := reqs[2].System()
	if !strings.Contains(sys, "You were told to ask them on 2026-03-11: do not ask again.") || strings.Contains(sys, "ask once where they are") {
		t.Errorf("after it was told, the prompt says:\n%s", grepLines(sys, "where they are"))
	}
	if got := reqs[3].ToolResults()["b"]; strings.Contains(got, note) {
		t.Errorf("the agent is told to ask again:\n%s", got)
	}
}

// In a group the note asks where the group is, and says who can set it.
func TestZoneAskedOfTheGroup(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.start()
	h.clf = answer("explicit:launch post due tomorrow")
	h.script(openaitest.Calls(call("a", "update_task_due_date", map[string]any{"task_id": "L1", "due_date": "2026-03-12"})), openaitest.Text("Due tomorrow. Where is the group?"))
	h.tg.SendText(group, user, "launch post due tomorrow")
	h.tg.WaitBotMessages(group, 2)
	got := h.llm.RequestsFor(agentM)[1].ToolResults()["a"]
	if !strings.Contains(got, "ask now, once, where the group is; its owner or an administrator can set it") || strings.Contains(got, "where they are") {
		t.Errorf("the first date's result in a group:\n%s", got)
	}
}

// In a group, /tz and /daily change the chat only for its administrators:
// a member is refused and nothing changes; the creator's works. In a
// private chat nobody is asked.
func TestChatSettingsAdminsOnlyInGroup(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetMember(board, 43, "creator")
	h.tg.Wire().SetMember(board, user, "member")
	h.start()
	h.tg.SendText(board, user, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(board, 1)[0]; !strings.Contains(m.Text, "only its administrators can change the time zone") {
		t.Errorf("member's /tz = %q", m.Text)
	}
	h.tg.SendText(board, user, "/daily 08:00")
	if m := h.tg.WaitBotMessages(board, 2)[1]; !strings.Contains(m.Text, "only its administrators can change the daily review") {
		t.Errorf("member's /daily = %q", m.Text)
	}
	s, err := h.db.Settings().ChatSettings(t.Context(), board, 0)
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
	if s, _ := h.db.Settings().ChatSettings(t.Context(), board, 0); s.TimeZone != "Europe/Berlin" || s.Daily != "08:00" {
		t.Errorf("settings after the creator's commands: %+v", s)
	}
	before := len(h.tg.Calls("getChatMember"))
	h.tg.SendText(chat, user, "/tz Asia/Tokyo")
	h.tg.WaitBotMessages(chat, 1)
	if n := len(h.tg.Calls("getChatMember")); n != before {
		t.Errorf("a private chat asked Telegram who may change it")
	}
}

// inTokyoInWords starts nod, and the person says they are in Tokyo: the
// agent sets the zone, as asked in words. It returns the zone's receipt.
func (h *harness) inTokyoInWords() telegramtest.Message {
	h.t.Helper()
	h.clf = answer("explicit:I'm in Tokyo this week")
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("Noted."))
	h.start()
	h.tg.SendText(chat, user, "I'm in Tokyo this week")
	return h.tg.WaitBotMessages(chat, 2)[0]
}

// set_chat_timezone from the person's own words applies at once with a
// receipt and Undo; Undo puts the zone before back. Not asked for in
// words, it changes nothing and the agent is told to ask.
func TestSetChatTimezoneExplicitAndUndo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rcpt := h.inTokyoInWords()
	if !strings.Contains(rcpt.Text, "Time zone: UTC → <b>Asia/Tokyo</b>") || !strings.Contains(rcpt.Text, "because you said") || !hasButton(rcpt, "↩️ Undo") {
		t.Fatalf("receipt = %q %v", rcpt.Text, buttonTexts(rcpt))
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Asia/Tokyo" {
		t.Fatalf("zone = %q", s.TimeZone)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["z"]; !strings.Contains(r, `"timezone":"Asia/Tokyo"`) || !strings.Contains(r, "19:00 (Asia/Tokyo)") {
		t.Errorf("tool result = %q", r)
	}
	// The turn's next step reads its clock in the zone it set, and is no
	// longer told that the person has not said where they are.
	reqs := h.llm.RequestsFor(agentM)
	if first := reqs[0].System(); !strings.Contains(first, "10:00 (UTC).") || !strings.Contains(first, "has not said where they are") {
		t.Errorf("the first step's prompt:\n%s", grepLines(first, "Today is")+grepLines(first, "where they are"))
	}
	if next := reqs[1].System(); !strings.Contains(next, "19:00 (Asia/Tokyo). The user set this zone in this turn.\n") || strings.Contains(next, "(UTC)") || strings.Contains(next, "has not said where they are") {
		t.Errorf("the next step's prompt:\n%s", grepLines(next, "Today is")+grepLines(next, "where they are"))
	}
	if ans := h.tap(chat, user, rcpt.ID, "↩️ Undo"); ans != "Undone." {
		t.Errorf("undo answer = %q", ans)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
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
	offer := h.tg.WaitBotMessages(chat, 4)[3]
	if r := h.llm.RequestsFor(agentM)[3].ToolResults()["z"]; r != "Proposal queued for user review." {
		t.Errorf("tool result of an inferred zone = %q", r)
	}
	if !strings.Contains(offer.Text, "Set this chat's time zone to <b>Europe/Berlin</b>?") || !hasButton(offer, "✓ Europe/Berlin") || !hasButton(offer, "✗ Keep UTC") {
		t.Fatalf("zone offer = %q %v", offer.Text, buttonTexts(offer))
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
		t.Fatalf("an inferred zone was set before the tap: %q", s.TimeZone)
	}
	if ans := h.tap(chat, stranger, offer.ID, "✓ Europe/Berlin"); ans == "" {
		t.Errorf("a stranger's tap was not refused")
	}
	h.tap(chat, user, offer.ID, "✓ Europe/Berlin")
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
		t.Fatalf("zone after the tap = %q", s.TimeZone)
	}
	m, _ := h.tg.Message(chat, offer.ID)
	if !strings.Contains(m.Text, "Time zone: UTC → <b>Europe/Berlin</b>") || !hasButton(m, "↩️ Undo") || hasButton(m, "✓ Europe/Berlin") {
		t.Fatalf("offer after the tap = %q %v", m.Text, buttonTexts(m))
	}
	h.tap(chat, user, offer.ID, "↩️ Undo")
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
		t.Errorf("zone after undoing the tap = %q", s.TimeZone)
	}
}

// "Flying to Cologne, remind me tomorrow at 9": the zone waits for a tap,
// and the reminder is read in it at once (9 in Cologne). Accepting the
// zone keeps every other reminder's clock time, and must not move this
// one again: it went off at 8 (found by a probe after a play).
func TestProposedZoneKeepsTheRemindersReadInIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.seed(chat, nod.Task{ID: "T2", Title: "Launch plan", Priority: nod.P2})
	h.clf = answer("needs", "explicit:remind me tomorrow at 9 about the login bug")
	h.script(toCologneAt9(),
		openaitest.Text("Set for 9; the zone waits for your tap."))
	h.start()
	h.tg.SendText(chat, user, "flying to Cologne, remind me tomorrow at 9 about the login bug")
	offer := h.withButton(chat, "✓ Europe/Berlin")
	nine := time.Date(2026, 3, 12, 9, 0, 0, 0, berlin)
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(nine) {
		t.Fatalf("reminder at %v, want 9:00 in Cologne", at)
	}
	// A later turn, naming no place, reads its time in the chat's zone:
	// that reminder keeps its clock time when the zone is accepted.
	h.clf = answer("explicit:remind me about the launch plan at 10 tomorrow")
	h.script(openaitest.Calls(call("l", "set_task_reminder", map[string]any{"task_id": "T2", "remind_at": "2026-03-12T10:00"})), openaitest.Text("Set."))
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, "remind me about the launch plan at 10 tomorrow")
	h.tg.WaitBotMessages(chat, n+2)
	h.tap(chat, user, offer.ID, "✓ Europe/Berlin")
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(nine) {
		t.Errorf("after the zone's tap the reminder read in it is at %v, want %v", at, nine)
	}
	if at := h.task("T2").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 10, 0, 0, 0, berlin)) {
		t.Errorf("after the zone's tap the reminder read in UTC is at %v, want 10:00 in Berlin", at)
	}
}

// A reminder proposed with a zone, both read in it, stays where its item
// set it when the item is tapped before the zone: accepting the zone
// then does not move it an hour.
func TestProposedReminderTappedBeforeItsZone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.clf = answer("needs", "needs")
	h.script(toCologneAt9(),
		openaitest.Text("Both wait for your tap."))
	h.start()
	h.tg.SendText(chat, user, "off to Cologne tomorrow; the login bug, 9ish there I guess")
	offer, set := h.withButton(chat, "✓ Europe/Berlin"), h.withButton(chat, "✓ 1")
	h.tap(chat, user, set.ID, "✓ 1")
	nine := time.Date(2026, 3, 12, 9, 0, 0, 0, berlin)
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(nine) {
		t.Fatalf("after ✓ 1 the reminder is at %v, want 9:00 in Cologne", at)
	}
	h.tap(chat, user, offer.ID, "✓ Europe/Berlin")
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(nine) {
		t.Errorf("after the zone's tap the reminder is at %v, want %v", at, nine)
	}
}

// A zone set at once keeps the clock times of the chat's reminders, but
// not of those its own step reads in it: "switch me to Cologne time,
// the hotel call stays at 9 there" leaves the reminder at 9 in Cologne,
// whichever order the model writes the calls in and whether or not the
// reminder's call changes anything.
func TestZoneSetAtOnceKeepsTheRemindersItsStepReads(t *testing.T) {
	t.Parallel()
	zone := call("z", "set_chat_timezone", map[string]any{"timezone": "Cologne"})
	for _, tc := range []struct {
		name  string
		calls []openaitest.ToolCall
		want  time.Time
	}{
		{"the reminder already there, the zone first", []openaitest.ToolCall{zone,
			call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T09:00"})},
			time.Date(2026, 3, 12, 9, 0, 0, 0, berlin)},
		{"a new time, the zone first", []openaitest.ToolCall{zone,
			call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T10:00"})},
			time.Date(2026, 3, 12, 10, 0, 0, 0, berlin)},
		{"a new time, the reminder first", []openaitest.ToolCall{
			call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T10:00"}), zone},
			time.Date(2026, 3, 12, 10, 0, 0, 0, berlin)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.seedT1()
			h.seed(chat, nod.Task{ID: "T2", Title: "Launch plan", Priority: nod.P2})
			if _, err := h.db.Schedule().SetTimeZone(t.Context(), chat, user, "Europe/London", time.UTC, "tz", nil); err != nil {
				t.Fatal(err)
			}
			h.clf = answer("explicit:remind me at 9 Cologne time about the login bug", "explicit:at 11 about the launch plan")
			h.script(openaitest.Calls(
				call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T08:00"}),
				call("l", "set_task_reminder", map[string]any{"task_id": "T2", "remind_at": "2026-03-12T11:00"})),
				openaitest.Text("9 in Cologne is 8 in London: set for 8, and the launch plan at 11."))
			h.start()
			h.tg.SendText(chat, user, "remind me at 9 Cologne time about the login bug, and at 11 about the launch plan")
			h.tg.WaitBotMessages(chat, 2)
			h.clf = answer("explicit:switch me to Cologne time now", "explicit:the login bug stays at 9 there")
			h.script(openaitest.Calls(tc.calls...), openaitest.Text("Cologne time it is."))
			n := len(h.tg.BotMessages(chat))
			h.tg.SendText(chat, user, "switch me to Cologne time now, the login bug stays at 9 there")
			h.tg.Wait("the zone's receipt and the reply", func() bool {
				ms := h.tg.BotMessages(chat)
				return len(ms) > n+1 && ms[len(ms)-1].Text == "Cologne time it is."
			})
			if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
				t.Fatalf("zone = %q, want Europe/Berlin", s.TimeZone)
			}
			if at := h.task("T1").RemindAt; at == nil || !at.Equal(tc.want) {
				t.Errorf("login bug's reminder at %v, want %v", at, tc.want.In(berlin))
			}
			if tc.name == "the reminder already there, the zone first" {
				// The model is told the time as it writes it, in the zone.
				reqs := h.llm.RequestsFor(agentM)
				if r := reqs[len(reqs)-1].ToolResults()["r"]; !strings.Contains(r, "the reminder is already at 2026-03-12T09:00 (Europe/Berlin)") {
					t.Errorf("the no-op call's result = %q", r)
				}
			}
			// The reminder the step did not read keeps its clock time.
			if at := h.task("T2").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 11, 0, 0, 0, berlin)) {
				t.Errorf("launch plan's reminder at %v, want 11:00 in Berlin (11:00 in London before)", at)
			}
			if tc.name != "the reminder already there, the zone first" {
				return
			}
			// The zone's Undo puts back what the zone moved, and only that:
			// the login bug, which it never moved, stays at 9 in Cologne.
			i := slices.IndexFunc(h.tg.BotMessages(chat), func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Time zone: Europe/London →") })
			if i < 0 {
				t.Fatal("no receipt of the zone")
			}
			h.tap(chat, user, h.tg.BotMessages(chat)[i].ID, "↩️ Undo")
			london, _ := time.LoadLocation("Europe/London")
			if at := h.task("T1").RemindAt; at == nil || !at.Equal(tc.want) {
				t.Errorf("after the zone's undo the login bug's reminder is at %v, want it left at %v", at, tc.want.In(berlin))
			}
			if at := h.task("T2").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 11, 0, 0, 0, london)) {
				t.Errorf("after the zone's undo the launch plan's reminder is at %v, want 11:00 in London again", at)
			}
		})
	}
}

// toCologneAt9 is a model's step for "off to Cologne, the login bug at
// 9 there": the zone and T1's reminder, read in it, in one step.
func toCologneAt9() openaitest.Response {
	return openaitest.Calls(
		call("z", "set_chat_timezone", map[string]any{"timezone": "Cologne"}),
		call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T09:00"}))
}

// berlin is the zone of the reminder tests.
var berlin, _ = time.LoadLocation("Europe/Berlin")

// inBerlin sets the chat's zone before nod starts.
func (h *harness) inBerlin(chatID int64) {
	h.t.Helper()
	if _, err := h.db.Schedule().SetTimeZone(h.t.Context(), nod.ChatID(chatID), user, "Europe/Berlin", time.UTC, "tz", nil); err != nil {
		h.t.Fatal(err)
	}
}

// reminders returns the bot's reminder messages in chat.
func (h *harness) reminders(chatID int64) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range h.tg.BotMessages(chatID) {
		if hasButton(m, "⏰ Tomorrow") || hasButton(m, "⏰ Morgen") || strings.Contains(m.Text, "I'll remind you again") || strings.Contains(m.Text, "I reminded you again") || strings.Contains(m.Text, "✅ Done") {
			out = append(out, m)
		}
	}
	return out
}

// A reminder asked for in words is set with a receipt (local time) and
// fires once at its time, across a restart; ⏰ 1 h moves it, ✓ Done
// closes the task, each with Undo; the reminder's message says what was
// done.
func TestReminderSetFiredTappedUndone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedT1()
	h.inBerlin(chat)
	h.clf = answer("explicit:remind me tomorrow at 9 about the login bug")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T09:00"})), openaitest.Text("I'll remind you."))
	h.start()
	h.tg.SendText(chat, user, "remind me tomorrow at 9 about the login bug")
	rcpt := h.tg.WaitBotMessages(chat, 2)[0]
	if !strings.Contains(rcpt.Text, "Reminder: none → 12 Mar 2026, 09:00") || !hasButton(rcpt, "↩️ Undo") {
		t.Fatalf("receipt = %q %v", rcpt.Text, buttonTexts(rcpt))
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["r"]; !strings.Contains(r, `"remind_at":"2026-03-12T09:00:00+01:00"`) {
		t.Errorf("tool result = %s", r)
	}
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("remind_at = %v", at)
	}
	h.sweeps(2)
	if n := len(h.reminders(chat)); n != 0 {
		t.Fatalf("%d reminders before their time", n)
	}

	h.clock.Set(time.Date(2026, 3, 12, 8, 0, 30, 0, time.UTC))
	h.sweeps(3)
	rs := h.reminders(chat)
	if len(rs) != 1 {
		t.Fatalf("%d reminders at their time, want 1", len(rs))
	}
	r := rs[0]
	if !strings.Contains(r.Text, "⏰ <b>Fix login bug</b>") || !strings.Contains(r.Text, "Due 15 Mar 2026") || strings.Contains(r.Text, "late") ||
		!strings.HasPrefix(buttonTexts(r)[0], "✓ Done") || !strings.HasPrefix(buttonTexts(r)[1], "⏰ 1 h") || !strings.HasPrefix(buttonTexts(r)[2], "⏰ Tomorrow") {
		t.Errorf("reminder = %q %v", r.Text, buttonTexts(r))
	}
	h.stop()
	h.start()
	h.sweeps(3)
	if n := len(h.reminders(chat)); n != 1 {
		t.Fatalf("%d reminders after a restart, want 1", n)
	}

	h.tap(chat, user, r.ID, "⏰ 1 h")
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("remind_at after ⏰ 1 h = %v", at)
	}
	if m, _ := h.tg.Message(chat, r.ID); !strings.Contains(m.Text, "I'll remind you again on 12 Mar 2026, 10:00") || !hasButton(m, "↩️ Undo") || hasButton(m, "✓ Done") {
		t.Errorf("reminder after ⏰ 1 h = %q %v", m.Text, buttonTexts(m))
	}
	h.clock.Set(time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC))
	h.sweeps(3)
	rs = h.reminders(chat)
	if len(rs) != 2 {
		t.Fatalf("%d reminders after the snooze's hour, want 2", len(rs))
	}
	second := rs[1]
	h.tap(chat, user, second.ID, "✓ Done")
	if st := h.task("T1").Status; st != nod.StatusDone {
		t.Fatalf("status after ✓ Done = %s", st)
	}
	if m, _ := h.tg.Message(chat, second.ID); !strings.Contains(m.Text, "✅ Done: <b>Fix login bug</b>") || !hasButton(m, "↩️ Undo") {
		t.Errorf("reminder after ✓ Done = %q %v", m.Text, buttonTexts(m))
	}
	h.tap(chat, user, second.ID, "↩️ Undo")
	if st := h.task("T1").Status; st != nod.StatusInProgress {
		t.Errorf("status after undoing ✓ Done = %s", st)
	}
	got := strings.Join(outcomes(h.audit(chat)), " ")
	for _, want := range []string{"set_task_reminder:executed set_task_reminder:executed", "set_task_status:executed"} {
		if !strings.Contains(got, want) {
			t.Errorf("audit %s lacks %s", got, want)
		}
	}
	// The agent hears of the reminder's taps as of anything else the
	// person did outside the conversation (a play's model was not told).
	h.script(openaitest.Text("Noted."))
	before := len(h.llm.RequestsFor(agentM))
	h.tg.SendText(chat, user, "anything else today?")
	h.tg.Wait("the agent's request", func() bool { return len(h.llm.RequestsFor(agentM)) > before })
	reqs := h.llm.RequestsFor(agentM)
	told := fmt.Sprint(reqs[len(reqs)-1].Messages)
	for _, want := range []string{"the user snoozed the reminder of “Fix login bug” (id T1) to 2026-03-12 10:00: it goes out again then",
		"the user marked the task “Fix login bug” (id T1) done from its reminder", "the user undid"} {
		if !strings.Contains(told, want) {
			t.Errorf("the agent is not told %q:\n%s", want, told)
		}
	}
}

// ⏰ Tomorrow keeps the local wall time across the night clocks go
// forward (23 hours later); a reminder at a local time that does not
// exist that night fires at the time Go moves it to (02:30 → 03:30).
func TestReminderAcrossDaylightSaving(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.inBerlin(chat)
	h.clock.Set(time.Date(2026, 3, 28, 7, 0, 0, 0, time.UTC))
	at := time.Date(2026, 3, 28, 9, 0, 0, 0, berlin)
	h.seed(chat, nod.Task{ID: "T9", Title: "Call the tax office", RemindAt: &at})
	h.start()
	h.clock.Set(at)
	h.sweeps(3)
	r := h.reminders(chat)[0]
	h.tap(chat, user, r.ID, "⏰ Tomorrow")
	want := time.Date(2026, 3, 29, 9, 0, 0, 0, berlin)
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(want) || want.Sub(at) != 23*time.Hour {
		t.Fatalf("⏰ Tomorrow across the change = %v, want %v (23 h later)", got, want)
	}
	if m, _ := h.tg.Message(chat, r.ID); !strings.Contains(m.Text, "29 Mar 2026, 09:00") {
		t.Errorf("reminder after ⏰ Tomorrow = %q", m.Text)
	}

	h.clf = answer("explicit:remind me at half past two tonight")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T9", "remind_at": "2026-03-29T02:30"})), openaitest.Text("OK."))
	h.tg.SendText(chat, user, "remind me at half past two tonight")
	h.tg.WaitBotMessages(chat, 3)
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)) {
		t.Errorf("02:30 on the night clocks skip = %v, want 03:30 CEST", got)
	}
}

// A reminder due while nod was down fires once when it is back and says
// how late it is; a task in the trash or done gets none.
func TestReminderLateAfterDowntimeNotForTrashOrDone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	at := time.Date(2026, 3, 11, 12, 0, 0, 0, time.UTC)
	trashed := fixturesNow()
	h.seed(chat, nod.Task{ID: "A", Title: "Renew passport", DueDate: "2026-03-20", RemindAt: &at})
	h.seed(chat, nod.Task{ID: "B", Title: "Old idea", RemindAt: &at, DeletedAt: &trashed})
	h.seed(chat, nod.Task{ID: "C", Title: "Finished thing", Status: nod.StatusDone, RemindAt: &at})
	h.start()
	h.sweeps(2)
	h.stop()
	h.clock.Set(at.Add(3*time.Hour + 10*time.Minute))
	h.start()
	h.sweeps(3)
	rs := h.reminders(chat)
	if len(rs) != 1 {
		t.Fatalf("%d reminders, want 1 (not for the trash or a done task)", len(rs))
	}
	if !strings.Contains(rs[0].Text, "Renew passport") || !strings.Contains(rs[0].Text, "This reminder was set for 11 Mar 2026, 12:00 (3 h 10 min ago)") {
		t.Errorf("late reminder = %q", rs[0].Text)
	}
}

func fixturesNow() time.Time { return time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC) }

// /daily in a chat that never set its zone says whose time that is and
// how to give it; /tz then says when the review runs in the new zone.
func TestDailyPointsToTheZone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start()
	const hint = "No time zone is set for this chat, so that is UTC time. Tell me yours with <code>/tz</code>"
	h.tg.SendText(chat, user, "/daily 08:00")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "Every day at <b>08:00</b> (UTC)") || !strings.Contains(m.Text, hint) {
		t.Errorf("/daily 08:00 with no zone = %q", m.Text)
	}
	// 10:00 UTC is 11:00 in Berlin: the next review is tomorrow's.
	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(m.Text, "The daily review stays at <b>08:00</b>, now Europe/Berlin time: the next one is on 12 Mar 2026, 08:00.") {
		t.Errorf("/tz with a daily review = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/daily")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "(Europe/Berlin)") || strings.Contains(m.Text, "No time zone is set") {
		t.Errorf("/daily with a zone = %q", m.Text)
	}
}

// /daily 08:00 runs the review at 08:00 local time, once a day across a
// restart: it only proposes (no classifier call, nothing applied, even
// with a classifier that would say explicit); days missed while nod was
// down are caught up once; nothing to say is one line, or nothing when
// quiet.
func TestDailyReview(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedT1()
	h.seed(chat, nod.Task{ID: "T2", Title: "Book flights", DueDate: "2026-03-12"})
	h.inBerlin(chat)
	h.clf = answer("explicit:make it P1")
	h.start()
	h.tg.SendText(chat, user, "/daily")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "No daily review") {
		t.Errorf("/daily = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/daily 8:00")
	// 11:00 in Berlin: the next one is tomorrow's, in Berlin's time.
	if m := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(m.Text, "Every day at <b>08:00</b> (Europe/Berlin)") || !strings.Contains(m.Text, "The next one: 12 Mar 2026, 08:00.") {
		t.Errorf("/daily 8:00 = %q", m.Text)
	}
	h.sweeps(2)
	if n := len(h.llm.RequestsFor(agentM)); n != 0 {
		t.Fatalf("the review ran before its time (%d requests)", n)
	}

	h.script(openaitest.Calls(call("a", "set_task_priority", map[string]any{"task_id": "T2", "priority": "P1"})), openaitest.Text("**Book flights** is due today; raise it?"))
	h.clock.Set(time.Date(2026, 3, 12, 7, 0, 0, 0, time.UTC)) // 08:00 in Berlin
	set := h.changeSetMessage(chat, 4)
	if !strings.Contains(set.Text, "Priority: P2 → P1") {
		t.Errorf("review's set = %q", set.Text)
	}
	// A review with proposals has the same header as one without.
	if said := h.tg.BotMessages(chat)[2]; said.Text != "☀️ <b>Daily review</b>\n<b>Book flights</b> is due today; raise it?" {
		t.Errorf("the review's line before its set = %q", said.Text)
	}
	reqs := h.llm.RequestsFor(agentM)
	if len(reqs) != 2 || reqs[0].LastUser() != "/daily" || !strings.Contains(reqs[0].System(), "Today is Thursday, 2026-03-12, 08:00 (Europe/Berlin).") ||
		!strings.Contains(reqs[0].System(), "the daily review the user turned on with /daily: nod started it at that time and wrote the /daily below itself; the user sent nothing") ||
		!strings.Contains(reqs[0].System(), `Due within a week: T1 "Fix login bug"`) || !strings.Contains(reqs[0].System(), `Due today: T2 "Book flights"`) {
		t.Fatalf("review request: %d requests, last user %q\n%s", len(reqs), reqs[0].LastUser(), grepLines(reqs[0].System(), ":"))
	}
	if n := len(h.llm.RequestsFor(clfM)); n != 0 || h.task("T2").Priority != nod.P2 {
		t.Fatalf("the daily review applied something: %d classifier calls, T2 %s", n, h.task("T2").Priority)
	}
	h.sweeps(3)
	h.stop()
	h.start()
	h.sweeps(3)
	if n := len(h.llm.RequestsFor(agentM)); n != 2 {
		t.Fatalf("%d agent requests after more sweeps and a restart, want 2 (one review a day)", n)
	}

	// Down for three days: one review when back, not three.
	h.stop()
	h.script(openaitest.Text("All good."))
	h.clock.Set(time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC))
	h.start()
	h.tg.WaitBotMessages(chat, 5)
	h.sweeps(3)
	if n := len(h.llm.RequestsFor(agentM)); n != 3 {
		t.Fatalf("%d agent requests after three missed days, want 3", n)
	}
	// The agent's own line, under the review's name: it may be a question
	// about an overdue task, which "nothing needs you" would hide.
	if m := h.tg.BotMessages(chat)[4]; m.Text != "☀️ <b>Daily review</b>\nAll good." {
		t.Errorf("the review's line = %q", m.Text)
	}

	h.tg.SendText(chat, user, "/daily 08:00 quiet")
	h.tg.WaitBotMessages(chat, 6)
	h.script(openaitest.Text("All good."))
	h.clock.Set(time.Date(2026, 3, 16, 7, 0, 0, 0, time.UTC))
	h.tg.Wait("the quiet review", func() bool { return len(h.llm.RequestsFor(agentM)) == 4 })
	h.sweeps(3)
	if n := len(h.tg.BotMessages(chat)); n != 6 {
		t.Errorf("a quiet review with nothing to say sent %d messages", n-6)
	}
	h.tg.SendText(chat, user, "/daily off")
	if m := h.tg.WaitBotMessages(chat, 7)[6]; !strings.Contains(m.Text, "Daily review off") {
		t.Errorf("/daily off = %q", m.Text)
	}
}

// A shared location sets the chat's zone offline, with a receipt and
// Undo; a point at sea is asked about and sets nothing; in a group only
// an administrator's location counts.
func TestLocationSetsTimeZone(t *testing.T) {
	t.Parallel()
	// The data takes seconds to read under the race detector: read here,
	// not within the wait for nod's answer.
	if _, _, err := place.Shared.Zone(0, 0); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.start()
	h.tg.SendLocation(chat, user, 50.94, 6.96) // Cologne
	rcpt := h.tg.WaitBotMessages(chat, 1)[0]
	if !strings.Contains(rcpt.Text, "Time zone: UTC → <b>Europe/Berlin</b>") || !hasButton(rcpt, "↩️ Undo") {
		t.Fatalf("location receipt = %q %v", rcpt.Text, buttonTexts(rcpt))
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
		t.Fatalf("zone = %q", s.TimeZone)
	}
	h.tap(chat, user, rcpt.ID, "↩️ Undo")
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
		t.Errorf("zone after undo = %q", s.TimeZone)
	}
	h.tg.SendLocation(chat, user, 0, -30) // the Atlantic
	if m := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(m.Text, "at sea") || !strings.Contains(m.Text, "?") {
		t.Errorf("sea point = %q", m.Text)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "" {
		t.Errorf("a sea point set the zone to %q", s.TimeZone)
	}
	h.tg.SendLocation(board, user, 35.68, 139.69)
	if m := h.tg.WaitBotMessages(board, 1)[0]; !strings.Contains(m.Text, "only its administrators") {
		t.Errorf("member's location in a group = %q", m.Text)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), board, user); s.TimeZone != "" {
		t.Errorf("a member's location set the group's zone to %q", s.TimeZone)
	}
}

// A reminder the agent only infers is proposed in a change set like any
// field (in German for a German chat); confirmed, it fires in German.
func TestReminderProposedInGerman(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.tg.Wire().SetLanguage(user, "de")
	h.seedT1()
	h.inBerlin(chat)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T09:00"})), openaitest.Text("Soll ich dich erinnern?"))
	h.start()
	h.tg.SendText(chat, user, "der Login-Fehler ist wichtig")
	set := h.changeSetMessage(chat, 2)
	if !strings.Contains(set.Text, "Erinnerung: keine → 12. März 2026, 09:00 Uhr") {
		t.Fatalf("change set = %q", set.Text)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["r"]; r != "Proposal queued for user review." {
		t.Errorf("tool result = %q", r)
	}
	if h.task("T1").RemindAt != nil {
		t.Fatal("an inferred reminder was set without asking")
	}
	h.tap(chat, user, set.ID, "✓ 1")
	h.clock.Set(time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC))
	h.sweeps(3)
	rs := h.reminders(chat)
	if len(rs) != 1 || !strings.Contains(rs[0].Text, "Fällig am 15. März 2026") || !hasButton(rs[0], "✓ Erledigt") || !hasButton(rs[0], "⏰ Morgen") {
		t.Fatalf("German reminder: %d, %v", len(rs), rs)
	}
	h.tap(chat, user, rs[0].ID, "⏰ Morgen")
	if m, _ := h.tg.Message(chat, rs[0].ID); !strings.Contains(m.Text, "Ich erinnere dich wieder am 13. März 2026, 09:00 Uhr") || !hasButton(m, "↩️ Rückgängig") {
		t.Errorf("after ⏰ Morgen: %q %v", m.Text, buttonTexts(m))
	}
}

// "I'm in Hamburg, remind me at 9" in one step: the reminder is read in
// the zone the person just named, though both calls were read before
// either applied, and every message about it says 09:00 (found in a
// German play, where the set said 09:00 and its receipt 10:00).
func TestReminderReadInTheZoneNamedWithIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	// The reminder comes first in the step: it is read before the zone's
	// call is, and still in the zone.
	h.clf = answer("needs", "explicit:ich bin in Hamburg")
	h.script(openaitest.Calls(
		call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": "2026-03-12T09:00"}),
		call("z", "set_chat_timezone", map[string]any{"timezone": "Europe/Berlin"})),
		openaitest.Text("Zone gesetzt; die Erinnerung wartet auf dich."))
	h.start()
	h.tg.SendText(chat, user, "ich bin in Hamburg, erinner mich morgen um 9 an den login bug")
	set := h.changeSetMessage(chat, 3)
	if !strings.Contains(set.Text, "Reminder: none → 12 Mar 2026, 09:00") {
		t.Fatalf("change set = %q", set.Text)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" || s.ZoneAsked != nil {
		t.Fatalf("zone = %q, asked %v: the person said where they are", s.TimeZone, s.ZoneAsked)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["r"]; strings.Contains(r, "ask them now") {
		t.Errorf("told to ask where a person is who just said: %q", r)
	}
	h.tap(chat, user, set.ID, "✓ 1")
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("reminder at %v, want 09:00 in Berlin (08:00 UTC)", at)
	}
	h.tg.WaitMessage(chat, set.ID, "the set decided", func(m telegramtest.Message) bool {
		return strings.Contains(m.Text, "✅") && strings.Contains(m.Text, "12 Mar 2026, 09:00")
	})
}

// In a group the zone is the whole group's: a member's words never
// change it, and the agent is told why and who can; the group is asked
// where it is, not the member where they are.
func TestSetChatTimezoneNotByAMember(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.clf = answer("explicit:we are all in Tokyo this week")
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("An admin can set it with /tz Asia/Tokyo."))
	h.start()
	h.tg.SendText(board, user, "we are all in Tokyo this week")
	h.tg.WaitBotMessages(board, 1)
	reqs := h.llm.RequestsFor(agentM)
	if sys := reqs[0].System(); !strings.Contains(sys, "Nobody has said where this group is") || !strings.Contains(sys, "Only the group's owner and administrators can set its zone") ||
		strings.Contains(sys, "The user has not said where they are") {
		t.Errorf("a group's prompt on its zone:\n%s", grepLines(sys, "where"))
	}
	if sys := reqs[0].System(); !strings.Contains(sys, "\nThe group has no tasks yet.\n") {
		t.Errorf("a group's prompt on its tasks:\n%s", grepLines(sys, "tasks"))
	}
	if r := reqs[1].ToolResults()["z"]; !strings.HasPrefix(r, "Not changed: in this group only its owner and administrators can change the time zone, and User (42) is not one of them.") ||
		!strings.Contains(r, "/tz Asia/Tokyo") || strings.Contains(r, "did not see") {
		t.Errorf("tool result in a group = %q", r)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), board, user); s.TimeZone != "" {
		t.Errorf("a member set a group's zone to %q", s.TimeZone)
	}
	for _, m := range h.tg.BotMessages(board) {
		if strings.Contains(m.Text, "Time zone:") {
			t.Errorf("a zone receipt in a group: %q", m.Text)
		}
	}
	if got := outcomes(h.audit(board)); strings.Join(got, " ") != "set_chat_timezone:blocked" {
		t.Errorf("audit = %v", got)
	}
}

// A member's own place does not move the group's times: "I'm in Munich,
// remind me at 9" from someone who may not set the group's zone reads 9
// in the group's zone, so that the reminder keeps 9 when the owner sets
// the zone. Read in Munich, it went off at 8 once the group was on
// Berlin time (found in a play).
func TestMembersPlaceReadsInTheGroupsZone(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inGroup()
	h.tg.Wire().SetMember(group, user, "creator")
	h.clf = answer("explicit:I'm in Munich", "explicit:remind me tomorrow at 9 about the launch post")
	h.script(openaitest.Calls(
		call("z", "set_chat_timezone", map[string]any{"timezone": "Munich"}),
		call("r", "set_task_reminder", map[string]any{"task_id": "L1", "remind_at": "2026-03-12T09:00"})),
		openaitest.Text("Set for 9."))
	h.start()
	h.tg.SendText(group, bob, "I'm in Munich, remind me tomorrow at 9 about the launch post")
	h.tg.WaitBotMessages(group, 2)
	h.settleMessages()
	if at := h.groupTask("L1").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("reminder at %v, want 9:00 in the group's zone (UTC)", at)
	}
	n := len(h.tg.BotMessages(group))
	h.tg.SendText(group, user, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(group, n+1)[n]; !strings.Contains(m.Text, "Europe/Berlin") {
		t.Fatalf("/tz = %q", m.Text)
	}
	if at := h.groupTask("L1").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("reminder at %v once the group is on Berlin time, want 9:00 there (8:00 UTC)", at)
	}
}

// The group's owner saying where the group is sets its zone, as /tz
// would: at once, with a receipt and Undo that only they may tap.
func TestSetChatTimezoneByTheGroupsOwner(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetMember(board, user, "creator")
	h.clf = answer("explicit:we are all in Tokyo this week")
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("Noted."))
	h.start()
	h.tg.SendText(board, user, "we are all in Tokyo this week")
	rcpt := h.tg.WaitBotMessages(board, 2)[0]
	if !strings.Contains(rcpt.Text, "Time zone: UTC → <b>Asia/Tokyo</b>") || !strings.Contains(rcpt.Text, "because User said") || !hasButton(rcpt, "↩️ Undo") {
		t.Fatalf("receipt = %q %v", rcpt.Text, buttonTexts(rcpt))
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), board, user); s.TimeZone != "Asia/Tokyo" {
		t.Fatalf("zone = %q", s.TimeZone)
	}
	if next := h.llm.RequestsFor(agentM)[1].System(); !strings.Contains(next, "(Asia/Tokyo). The user set this zone in this turn.\n") || strings.Contains(next, "Nobody has said where this group is") {
		t.Errorf("the next step's prompt:\n%s", grepLines(next, "Today is")+grepLines(next, "where"))
	}
	if ans := h.tap(board, 44, rcpt.ID, "↩️ Undo"); ans == "Undone." {
		t.Errorf("another member undid the owner's zone: %q", ans)
	}
	if ans := h.tap(board, user, rcpt.ID, "↩️ Undo"); ans != "Undone." {
		t.Errorf("undo answer = %q", ans)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), board, user); s.TimeZone != "" {
		t.Errorf("zone after undo = %q", s.TimeZone)
	}
}

// /daily takes a time as people type it: "7", "7:30", "19 Uhr", "7pm";
// what it cannot read is asked again and changes nothing.
func TestDailyReadsTimesAsTyped(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start()
	for i, c := range []struct{ typed, want string }{
		{"/daily 7", "Every day at <b>07:00</b>"},
		{"/daily 7:30 quiet", "Every day at <b>07:30</b>"},
		{"/daily 19 Uhr", "Every day at <b>19:00</b>"},
		{"/daily 7pm", "Every day at <b>19:00</b>"},
		{"/daily 25", "Say a time of day"},
	} {
		h.tg.SendText(chat, user, c.typed)
		if m := h.tg.WaitBotMessages(chat, i+1)[i]; !strings.Contains(m.Text, c.want) {
			t.Errorf("%s = %q, want %q", c.typed, m.Text, c.want)
		}
	}
	s, err := h.db.Settings().ChatSettings(t.Context(), chat, user)
	if err != nil || s.Daily != "19:00" || s.DailyQuiet {
		t.Errorf("kept %+v, %v; want 19:00, not quiet", s, err)
	}
}

// A reminder keeps its local clock time when the chat's zone changes, as
// the daily review does: "remind me at 8" means 8 where the person is.
// /tz, the agent's set_chat_timezone and its Undo each say so, and the
// reminder fires at 8 in the zone it ends in; a reminder already sent
// does not move.
func TestRemindersKeepTheirLocalTimes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.clock.Set(time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC))
	at, sent := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC)
	h.seed(chat, nod.Task{ID: "T9", Title: "Check the build", RemindAt: &at})
	h.seed(chat, nod.Task{ID: "T8", Title: "Water the plants", RemindAt: &sent})
	h.start()
	wantAt := func(when string, want time.Time) {
		t.Helper()
		if got := h.task("T9").RemindAt; got == nil || !got.Equal(want) {
			t.Errorf("%s: reminder at %v, want %v", when, got, want)
		}
		if got := h.task("T8").RemindAt; got == nil || !got.Equal(sent) {
			t.Errorf("%s: a sent reminder moved to %v", when, got)
		}
	}

	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "⏰ Your reminder stays at its local time, now Europe/Berlin time: “Check the build” tomorrow, 08:00.") {
		t.Errorf("/tz = %q", m.Text)
	}
	wantAt("after /tz", time.Date(2026, 3, 12, 8, 0, 0, 0, berlin))

	h.clf = answer("explicit:I'm in Tokyo this week")
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Asia/Tokyo"})), openaitest.Text("Noted."))
	h.tg.SendText(chat, user, "I'm in Tokyo this week")
	rcpt := h.tg.WaitBotMessages(chat, 3)[1]
	if !strings.Contains(rcpt.Text, "Time zone: Europe/Berlin → <b>Asia/Tokyo</b>") || !strings.Contains(rcpt.Text, "⏰ Your reminder stays at its local time, now Asia/Tokyo time: “Check the build” tomorrow, 08:00.") {
		t.Errorf("receipt = %q", rcpt.Text)
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["z"]; !strings.Contains(r, `"reminders_kept_local":[{"task_id":"T9","title":"Check the build","remind_at":"2026-03-12T08:00:00+09:00"}]`) {
		t.Errorf("tool result = %q", r)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	wantAt("in Tokyo", time.Date(2026, 3, 12, 8, 0, 0, 0, tokyo))

	h.tap(chat, user, rcpt.ID, "↩️ Undo")
	wantAt("after the undo", time.Date(2026, 3, 12, 8, 0, 0, 0, berlin))
	if m, _ := h.tg.Message(chat, rcpt.ID); !strings.Contains(m.Text, "Time zone back to <b>Europe/Berlin</b>.\n⏰ Your reminder stays at its local time, now Europe/Berlin time: “Check the build” tomorrow, 08:00.") {
		t.Errorf("the undone receipt = %q", m.Text)
	}
	h.clock.Set(time.Date(2026, 3, 12, 7, 0, 0, 0, time.UTC)) // 08:00 in Berlin
	h.sweeps(3)
	if rs := h.reminders(chat); len(rs) != 1 || !strings.Contains(rs[0].Text, "Check the build") {
		t.Errorf("reminders sent at 08:00 Berlin time: %d", len(rs))
	}
}

// The Undo of a zone change made stale by a later one (/tz) is refused
// and goes: it could never work again.
func TestStaleZoneUndoGoes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rcpt := h.inTokyoInWords()
	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	h.tg.WaitBotMessages(chat, 3)
	if ans := h.tap(chat, user, rcpt.ID, "↩️ Undo"); !strings.Contains(ans, "changed since") {
		t.Errorf("a stale zone Undo answered %q", ans)
	}
	h.tg.WaitMessage(chat, rcpt.ID, "the stale Undo to go", func(m telegramtest.Message) bool { return !hasButton(m, "↩️ Undo") })
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
		t.Errorf("zone after a stale Undo = %q", s.TimeZone)
	}
}

// The agent asks where the person is before it sets their time, and they
// answer with /tz: their request goes on in that zone without being said
// again, applied at once on the words they said before the question. A
// /tz with no question waiting, or once the chat has a zone, asks the
// model nothing.
func TestTzAnswersTheAgentsZoneQuestion(t *testing.T) {
	t.Parallel()
	quiet := newHarness(t)
	quiet.script(openaitest.Text("Hello. Your list has nothing due."))
	quiet.start()
	quiet.tg.SendText(chat, user, "hi")
	quiet.tg.WaitBotMessages(chat, 1)
	quiet.tg.SendText(chat, user, "/tz Asia/Tokyo")
	quiet.tg.WaitBotMessages(chat, 2)
	quiet.settleMessages()
	if n := len(quiet.llm.Requests()); n != 1 {
		t.Errorf("a /tz after a reply that asked nothing made %d more model requests", n-1)
	}

	h := newHarness(t)
	h.seed(chat, nod.Task{ID: "M1", Title: "Call mum"})
	h.start()
	// As a real model did: the question beside a call, then nothing more.
	const asked = "remind me to call mum tomorrow at 10"
	look := openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "M1"}))
	look.Text = "Sure, where are you? Tell me your city so that 10:00 is your own time."
	h.script(look, openaitest.Text(""))
	h.tg.SendText(chat, user, asked)
	h.tg.WaitBotMessages(chat, 1)
	h.settleMessages()
	h.clock.Advance(time.Minute)
	h.clf = answer("explicit:" + asked)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "M1", "remind_at": "2026-03-12T10:00"})),
		openaitest.Text("Set for 10:00 New York time."))
	h.tg.SendText(chat, user, "/tz America/New_York")
	msgs := h.tg.WaitBotMessages(chat, 4)
	if !strings.Contains(msgs[1].Text, "America/New_York") {
		t.Errorf("the /tz reply reads %q", msgs[1].Text)
	}
	// The receipt reads in the zone just set: 10:00, not UTC's 14:00.
	if !strings.Contains(msgs[2].Text, "because you said “"+asked+"”") || !strings.Contains(msgs[2].Text, "Reminder: none → 12 Mar 2026, 10:00") || !hasButton(msgs[2], "↩️ Undo") {
		t.Errorf("the reminder's receipt reads %q %v", msgs[2].Text, buttonTexts(msgs[2]))
	}
	newYork, _ := time.LoadLocation("America/New_York")
	if task := h.task("M1"); task.RemindAt == nil || !task.RemindAt.Equal(time.Date(2026, 3, 12, 10, 0, 0, 0, newYork)) {
		t.Errorf("the reminder is at %v, want 10:00 in New York", task.RemindAt)
	}
	reqs := h.llm.RequestsFor(agentM)
	first := reqs[len(reqs)-2]
	if last := first.Messages[len(first.Messages)-1]; last.Role != "user" || last.Content != "/tz America/New_York" {
		t.Errorf("the agent's turn ends with %s %q", last.Role, last.Content)
	}
	// The empty closing answer of the turn before goes into no request:
	// some servers refuse an assistant message with nothing in it.
	for _, m := range first.Messages {
		if m.Role == "assistant" && m.Content == "" && len(m.ToolCalls) == 0 {
			t.Errorf("the request carries an empty assistant message: %+v", first.Messages)
		}
	}
	var notes string
	for _, m := range first.Messages[1:] {
		if m.Role == "system" {
			notes += m.Content
		}
	}
	if !strings.Contains(notes, "America/New_York with /tz") {
		t.Errorf("the agent was not told of the zone:\n%s", notes)
	}
	// Once the chat has a zone, /tz asks the model nothing.
	n := len(h.llm.Requests())
	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	h.tg.WaitBotMessages(chat, 5)
	h.settleMessages()
	if got := len(h.llm.Requests()); got != n {
		t.Errorf("a /tz in a chat with a zone made %d model requests", got-n)
	}
}

// askedMum is a request the model answers with "where are you?" before
// it sets the time (askedWhere).
const askedMum = "remind me to call mum tomorrow at 10"

// askedWhere starts nod with the task "Call mum" (M1), the person asks
// to be reminded of it, and the model asks where they are; the clock
// then moves on, so that what the person does next comes after.
func (h *harness) askedWhere() {
	h.t.Helper()
	h.seed(chat, nod.Task{ID: "M1", Title: "Call mum"})
	h.start()
	h.script(openaitest.Text("Where are you? Then I'll set it for 10:00 your time."))
	h.tg.SendText(chat, user, askedMum)
	h.tg.WaitBotMessages(chat, 1)
	h.settleMessages()
	h.clock.Advance(time.Minute)
}

// A shared location answers the zone question as /tz does: the reminder
// asked for before it is set in the location's zone, and the agent reads
// that the person shared where they are.
func TestLocationAnswersTheAgentsZoneQuestion(t *testing.T) {
	t.Parallel()
	if _, _, err := place.Shared.Zone(0, 0); err != nil { // read before the wait, as above
		t.Fatal(err)
	}
	h := newHarness(t)
	h.askedWhere()
	h.clf = answer("explicit:" + askedMum)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "M1", "remind_at": "2026-03-12T10:00"})), openaitest.Text("Set."))
	h.tg.SendLocation(chat, user, 50.94, 6.96) // Cologne
	msgs := h.tg.WaitBotMessages(chat, 4)
	if !strings.Contains(msgs[1].Text, "Europe/Berlin") || !strings.Contains(msgs[2].Text, "Reminder: none → 12 Mar 2026, 10:00") || !hasButton(msgs[2], "↩️ Undo") {
		t.Errorf("after the location: %q", messageTexts(msgs[1:]))
	}
	reqs := h.llm.RequestsFor(agentM)
	if last := reqs[len(reqs)-2].Messages; last[len(last)-1].Content != "📍 (shared my location)" {
		t.Errorf("the agent read the location as %q", last[len(last)-1].Content)
	}
}

// askedWhichFrankfurt starts nod with the agent's question where the
// person is, answered with /tz Frankfurt, and returns the question which
// Frankfurt they mean.
func askedWhichFrankfurt(t *testing.T) (*harness, telegramtest.Message) {
	t.Helper()
	readPlaces(t)
	h := newHarness(t)
	h.askedWhere()
	h.tg.SendText(chat, user, "/tz Frankfurt")
	return h, h.tg.WaitBotMessages(chat, 2)[1]
}

// So does the city picked by tap when /tz found several of its name.
func TestCityTapAnswersTheAgentsZoneQuestion(t *testing.T) {
	t.Parallel()
	h, q := askedWhichFrankfurt(t)
	if n := len(h.llm.RequestsFor(agentM)); n != 1 {
		t.Fatalf("the question which Frankfurt made %d agent requests", n-1)
	}
	h.clf = answer("explicit:" + askedMum)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "M1", "remind_at": "2026-03-12T10:00"})), openaitest.Text("Set."))
	h.tap(chat, user, q.ID, "📍 Frankfurt (Oder)")
	receipt := h.tg.WaitBotMessages(chat, 4)[2]
	if !strings.Contains(receipt.Text, "Reminder: none → 12 Mar 2026, 10:00") || !strings.Contains(receipt.Text, "because you said “"+askedMum+"”") {
		t.Errorf("after the tap: %q", receipt.Text)
	}
	reqs := h.llm.RequestsFor(agentM)
	if last := reqs[len(reqs)-2].Messages; last[len(last)-1].Content != "/tz Europe/Berlin" {
		t.Errorf("the agent read the tap as %q", last[len(last)-1].Content)
	}
}

// The turn a city's tap resumes is one of the chat's jobs: tapped while
// a turn of the chat runs, it waits for that turn and answers after it,
// in order. It ran beside it on the press's own goroutine, where it read
// a conversation the running turn had not finished (and answered
// nothing), and a message that joined it could be left with no worker to
// run it: a play's chat went silent.
func TestCityTapWaitsForTheChatsTurn(t *testing.T) {
	t.Parallel()
	h, q := askedWhichFrankfurt(t)
	release := make(chan struct{})
	var asked atomic.Int32
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Messages[len(r.Messages)-1].Content == "/tz Europe/Berlin" {
			return openaitest.Text("Frankfurt (Oder) it is: mum at 10:00 there.")
		}
		asked.Add(1)
		select {
		case <-release:
		case <-r.Context.Done():
		}
		return openaitest.Text("The one on the Oder is nearer Berlin. Which do you want?")
	})
	h.tg.SendText(chat, user, "hold on, which one is nearer berlin?")
	h.tg.Wait("the turn to ask the model", func() bool { return asked.Load() == 1 })
	h.tap(chat, user, q.ID, "📍 Frankfurt (Oder)")
	close(release)
	h.tg.Wait("the tap's turn to answer", func() bool {
		ms := h.tg.BotMessages(chat)
		return ms[len(ms)-1].Text == "Frankfurt (Oder) it is: mum at 10:00 there."
	})
	ms := h.tg.BotMessages(chat)
	if got := ms[len(ms)-2].Text; got != "The one on the Oder is nearer Berlin. Which do you want?" {
		t.Errorf("before the tap's turn: %q, want the running turn's answer", got)
	}
	h.settleMessages()
}

// A task moved into the trash with a reminder ahead: the message that
// moved it says the reminder will not go off, since the "Reminder set"
// receipt above still reads as if it would (a play's person could not
// tell); and it does not. Its Redo brings the reminder back, and says so.
// A deletion says the same.
func TestTrashHoldsAReminderAndSaysSo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	var said, id atomic.Value
	h.clf = func(openaitest.Request) openaitest.Response {
		return openaitest.Text(fmt.Sprintf(`{"actions":[{"index":0,"level":"explicit","quote":%q,"quotes":[],"reasoning":"asked"}]}`, said.Load()))
	}
	remindAt := map[string]string{"6pm": "2026-03-11T18:00:00+01:00", "8pm": "2026-03-11T20:00:00+01:00"}
	h.llm.Handle(func(r openaitest.Request) openaitest.Response {
		if r.Model != agentM {
			return h.clf(r)
		}
		res := r.ToolResults()
		if c, ok := res["c"]; ok {
			var task struct{ ID string }
			if err := json.Unmarshal([]byte(c), &task); err == nil && task.ID != "" {
				id.Store(task.ID)
			}
		}
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return openaitest.Text("Done.")
		}
		switch last := said.Load().(string); {
		case strings.HasPrefix(last, "add "):
			return openaitest.Calls(call("c", "create_task", map[string]any{"title": "Buy printer ink"}))
		case strings.HasPrefix(last, "remind me"):
			return openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": id.Load(), "remind_at": remindAt[last[len(last)-3:]]}))
		default:
			return openaitest.Calls(call("d", "delete_task", map[string]any{"task_id": id.Load()}))
		}
	})
	dones := func() (n int) {
		for _, m := range h.tg.BotMessages(chat) {
			if m.Text == "Done." {
				n++
			}
		}
		return n
	}
	// say sends a request and waits for the turn's closing words: the next
	// request is another turn's, and said is its words.
	say := func(text string) {
		said.Store(text)
		n := dones()
		h.tg.SendText(chat, user, text)
		h.tg.Wait("the turn's closing words", func() bool { return dones() > n })
	}
	h.inBerlin(chat)
	h.start()
	say("add buy printer ink")
	created := h.tg.WaitBotMessages(chat, 2)[0]
	say("remind me about the ink at 6pm")
	if set := h.tg.WaitBotMessages(chat, 4)[2]; !strings.HasPrefix(set.Text, "✅ <b>Reminder set</b>") {
		t.Fatalf("the reminder's receipt = %q", set.Text)
	}
	h.tap(chat, user, created.ID, "↩️ Undo")
	undone := h.tg.WaitBotMessages(chat, 5)[4]
	want := "⏰ Its reminder on 11 Mar 2026, 18:00 will not go off while the task is in the trash."
	if !strings.Contains(undone.Text, "it went to the trash.\n"+want) {
		t.Errorf("the Undo's message = %q, want it to end %q", undone.Text, want)
	}
	// Brought back before its time, it says the reminder goes off again;
	// taken back once more, that it does not.
	h.tap(chat, user, undone.ID, "↪️ Redo")
	redone := h.tg.WaitBotMessages(chat, 6)[5]
	if !strings.Contains(redone.Text, "is on the list again.\n⏰ Its reminder on 11 Mar 2026, 18:00 goes off again.") {
		t.Errorf("the Redo's message = %q", redone.Text)
	}
	h.tap(chat, user, redone.ID, "↩️ Undo")
	undone = h.tg.WaitBotMessages(chat, 7)[6]
	if !strings.Contains(undone.Text, want) {
		t.Errorf("the second Undo's message = %q, want %q", undone.Text, want)
	}
	h.clock.Set(time.Date(2026, 3, 11, 17, 0, 30, 0, time.UTC)) // 18:00 in Berlin
	h.sweeps(3)
	if rs := h.reminders(chat); len(rs) != 0 {
		t.Fatalf("a reminder of a task in the trash went out: %q", rs[0].Text)
	}
	// Brought back after its time, the reminder goes out now, as one an
	// undo left in the past does.
	h.tap(chat, user, undone.ID, "↪️ Redo")
	h.sweeps(3)
	if rs := h.reminders(chat); len(rs) != 1 {
		t.Fatalf("%d reminders after the Redo, want the one held", len(rs))
	}
	say("remind me about the ink at 8pm")
	say("delete it")
	h.tg.Wait("the deletion's question", func() bool {
		ms := h.tg.BotMessages(chat)
		return strings.Contains(ms[len(ms)-1].Text, "Delete “Buy printer ink”")
	})
	h.tg.SendText(chat, user, "Buy printer ink")
	var deleted telegramtest.Message
	h.tg.Wait("the deletion's report", func() bool {
		ms := h.tg.BotMessages(chat)
		deleted = ms[len(ms)-1]
		return strings.Contains(deleted.Text, "Moved “Buy printer ink” to the trash")
	})
	if !strings.Contains(deleted.Text, "\n⏰ Its reminder on 11 Mar 2026, 20:00 will not go off while the task is in the trash.") {
		t.Errorf("the deletion's report = %q", deleted.Text)
	}
}

// A reminder's clearing the model proposes applies on ✓: the call also
// clears the reminder's rule, a change of its own, and the stored item
// read back as two changes was refused as no longer valid (a play: a
// done task's reminder could not be taken off by tap).
func TestProposedReminderClearingApplies(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inBerlin(chat)
	at := time.Date(2026, 3, 12, 7, 0, 0, 0, time.UTC)
	h.seed(chat, nod.Task{ID: "T1", Title: "Copy the vaccination card", Status: nod.StatusDone, RemindAt: &at})
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T1", "remind_at": nil})), openaitest.Text("I suggest taking the reminder off."))
	h.start()
	h.tg.SendText(chat, user, "I made the copy")
	set := h.changeSetMessage(chat, 2)
	h.tap(chat, user, set.ID, "✓ 1")
	if got := h.task("T1").RemindAt; got != nil {
		m, _ := h.tg.Message(chat, set.ID)
		t.Errorf("after ✓ 1 the reminder is still %v:\n%s", got, m.Text)
	}
}

// A reminder asked in another place's clock ("9 Berlin time" while the
// chat is in London) stays at that moment when the chat's zone changes,
// where a reminder of the chat's own clock keeps its time of day. The
// model gives the time with that place's offset; the receipt, the
// classifier and the model's later prompts all say which clock it is.
func TestReminderInAnotherPlacesClock(t *testing.T) {
	t.Parallel()
	meds := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC) // 8:00 in London
	h := londonChat(t, nod.Task{ID: "T9", Title: "Check out of the hotel"}, nod.Task{ID: "T8", Title: "Take the meds", RemindAt: &meds})

	h.remindInAnotherClock("remind me thursday at 9 berlin time to check out", "2026-03-12T09:00+01:00",
		"12 Mar 2026, 08:00 (09:00 UTC+01:00)", "reminder: none → 2026-03-12T08:00 (Europe/London), given as 09:00 UTC+01:00")
	checkout := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
	if got := h.task("T9"); got.RemindAt == nil || !got.RemindAt.Equal(checkout) || got.RemindClock == nil || got.RemindClock.Offset != 3600 {
		t.Fatalf("reminder %v in clock %v, want 9:00 in UTC+01:00's", got.RemindAt, got.RemindClock)
	}

	h.tg.SendText(chat, user, "/tz Europe/Berlin")
	m := h.tg.WaitBotMessages(chat, 4)[3]
	if !strings.Contains(m.Text, "Your reminder stays at its local time, now Europe/Berlin time: “Take the meds” Thu, 08:00.") || strings.Contains(m.Text, "Check out") {
		t.Errorf("/tz Europe/Berlin = %q, want only the meds moved", m.Text)
	}
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(checkout) {
		t.Errorf("the check-out reminder moved to %v", got)
	}
	if got := h.task("T8").RemindAt; got == nil || !got.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, berlin)) {
		t.Errorf("the meds' reminder at %v, want 8:00 in Berlin", got)
	}

	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "T9"})), openaitest.Text("Check-out at 9."))
	h.tg.SendText(chat, user, "when do I check out?")
	h.tg.WaitBotMessages(chat, 5)
	reqs := h.llm.RequestsFor(agentM)
	if r := reqs[len(reqs)-1].ToolResults()["g"]; !strings.Contains(r, `"remind_at":"2026-03-12T09:00:00+01:00","reminder_clock":"2026-03-12T09:00:00+01:00"`) {
		t.Errorf("get_task = %s", r)
	}
	if p := reqs[len(reqs)-1].System(); !strings.Contains(p, "reminder 2026-03-12T09:00 (given as 2026-03-12T09:00:00+01:00 in another place's clock: it stays at that moment when the zone changes)") {
		t.Errorf("the prompt's task line:\n%s", grepLines(p, "Check out"))
	}
}

// A reminder given in a named place's clock ("9 Paris time" while the
// chat is in London: …T09:00[Europe/Paris]) reads as that place to the
// person, where an offset alone reads as UTC+01:00: in the receipt, to
// the classifier, in the model's prompt and get_task. It stays at its
// moment when the chat's zone changes, and once the chat's clock is the
// place's it is shown once. A played person asked for "Paris time" and
// read "UTC+01:00".
func TestReminderInANamedPlacesClock(t *testing.T) {
	t.Parallel()
	h := londonChat(t, nod.Task{ID: "T9", Title: "Call the Paris office"})

	h.remindInAnotherClock("remind me thursday at 9 paris time to call the paris office", "2026-03-12T09:00[Europe/Paris]",
		"12 Mar 2026, 08:00 (09:00 in Paris)", "reminder: none → 2026-03-12T08:00 (Europe/London), given as 09:00 in Paris")
	at := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
	if got := h.task("T9"); got.RemindAt == nil || !got.RemindAt.Equal(at) || got.RemindClock == nil || *got.RemindClock != (nod.Clock{Offset: 3600, Zone: "Europe/Paris"}) {
		t.Fatalf("reminder %v in clock %+v, want 9:00 in Paris", got.RemindAt, got.RemindClock)
	}

	h.tg.SendText(chat, user, "/tz Europe/Paris")
	h.tg.WaitBotMessages(chat, 4)
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(at) {
		t.Errorf("the call's reminder moved to %v", got)
	}
	h.script(openaitest.Calls(call("g", "get_task", map[string]any{"task_id": "T9"})), openaitest.Text("At 9."))
	h.tg.SendText(chat, user, "when is the paris call?")
	h.tg.WaitBotMessages(chat, 5)
	reqs := h.llm.RequestsFor(agentM)
	if r := reqs[len(reqs)-1].ToolResults()["g"]; !strings.Contains(r, `"reminder_clock":"2026-03-12T09:00:00+01:00[Europe/Paris]"`) {
		t.Errorf("get_task = %s", r)
	}
	if p := reqs[len(reqs)-1].System(); !strings.Contains(p, "(given as 2026-03-12T09:00:00+01:00[Europe/Paris] in another place's clock") {
		t.Errorf("the prompt's task line:\n%s", grepLines(p, "Paris office"))
	}
	// In Paris's own clock now, the time reads once.
	h.clf = answer("explicit:move the paris call to 10")
	h.script(openaitest.Calls(call("m", "set_task_reminder", map[string]any{"task_id": "T9", "remind_at": "2026-03-12T10:00[Europe/Paris]"})), openaitest.Text("Moved."))
	h.tg.SendText(chat, user, "move the paris call to 10")
	if m := h.tg.WaitBotMessages(chat, 7)[5]; !strings.Contains(m.Text, "Reminder: 12 Mar 2026, 09:00 → 12 Mar 2026, 10:00") {
		t.Errorf("receipt in Paris = %q", m.Text)
	}
}

// A time whose place is on another date than the chat names that date:
// 09:00 on the 12th in Sydney is the 11th, 22:00, in London, and a
// person (or classifier) who reads only "(09:00 in Sydney)" beside the
// 11th takes it for a day early.
func TestReminderOnAnotherDateInAPlacesClock(t *testing.T) {
	t.Parallel()
	h := londonChat(t, nod.Task{ID: "T9", Title: "Call the Sydney client"})
	h.remindInAnotherClock("remind me thursday 9am sydney time to call the sydney client", "2026-03-12T09:00[Australia/Sydney]",
		"11 Mar 2026, 22:00 (12 Mar 2026, 09:00 in Sydney)", "reminder: none → 2026-03-11T22:00 (Europe/London), given as 2026-03-12T09:00 in Sydney")
}

// londonChat starts nod on Tuesday 10 March 2026, 09:00 UTC, with tasks,
// in a chat the person has put in London with /tz.
func londonChat(t *testing.T, tasks ...nod.Task) *harness {
	t.Helper()
	h := newHarness(t)
	h.clock.Set(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
	for _, task := range tasks {
		h.seed(chat, task)
	}
	h.start()
	h.tg.SendText(chat, user, "/tz Europe/London")
	h.tg.WaitBotMessages(chat, 1)
	return h
}

// remindInAnotherClock has the person ask for T9's reminder in words
// said, which the model sets to remindAt in another place's clock at
// once; the receipt must show the time as shown, and the classifier's
// action line must read as told.
func (h *harness) remindInAnotherClock(said, remindAt, shown, told string) {
	h.t.Helper()
	h.clf = answer("explicit:" + said)
	h.script(openaitest.Calls(call("r", "set_task_reminder", map[string]any{"task_id": "T9", "remind_at": remindAt})), openaitest.Text("Set."))
	n := len(h.tg.BotMessages(chat))
	h.tg.SendText(chat, user, said)
	if rcpt := h.tg.WaitBotMessages(chat, n+2)[n]; !strings.Contains(rcpt.Text, shown) {
		h.t.Errorf("receipt = %q, want %q", rcpt.Text, shown)
	}
	if clf := h.llm.RequestsFor(clfM); len(clf) == 0 || !strings.Contains(clf[len(clf)-1].LastUser(), told) {
		h.t.Errorf("the classifier was not told the clock the time was given in, %q", told)
	}
}

// The zone tapped first, then the reminder proposed with it: accepting the
// zone moves the task's old reminder by its clock time, and the item,
// read in the zone, still applies over it rather than finding the
// reminder "changed since".
func TestProposedReminderTappedAfterItsZone(t *testing.T) {
	t.Parallel()
	h, offer, set := offToCologneWithReminders(t)
	h.tap(chat, user, offer.ID, "✓ Europe/Berlin")
	h.tap(chat, user, set.ID, "✓ 1")
	h.wantCologneAt9(set)
}

// The zone and the reminder proposed with it, tapped at the same moment
// (on PostgreSQL too, with NOD_E2E_POSTGRES): whichever decision runs
// first, the reminder ends at 9 in Cologne, and another reminder keeps
// its clock time.
func TestProposedZoneAndReminderTappedAtOnce(t *testing.T) {
	t.Parallel()
	for round := range 4 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			t.Parallel()
			h, offer, set := offToCologneWithReminders(t)
			zone, item := h.tg.Tap(chat, user, offer.ID, "✓ Europe/Berlin"), h.tg.Tap(chat, user, set.ID, "✓ 1")
			h.tg.WaitAnswer(zone)
			h.tg.WaitAnswer(item)
			h.settle()
			h.wantCologneAt9(set)
		})
	}
}

// offToCologneWithReminders starts nod with the login bug (T1) and the
// plants (T5) reminded at 7:00 UTC, and has the model propose the zone
// and the login bug's reminder at 9 in Cologne, both waiting for a tap:
// it returns the zone's offer and the set.
func offToCologneWithReminders(t *testing.T) (*harness, telegramtest.Message, telegramtest.Message) {
	t.Helper()
	h := newHarness(t)
	old := time.Date(2026, 3, 12, 7, 0, 0, 0, time.UTC)
	h.seedT1()
	h.seed(chat, nod.Task{ID: "T5", Title: "Water the plants", RemindAt: &old})
	if _, err := h.db.Tasks().Apply(t.Context(), nod.Edit{Topic: nod.Topic{ChatID: chat}, UserID: user, TaskID: "T1", Tool: "seed", Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted},
		Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = &old; return *cur, nil }}); err != nil {
		t.Fatal(err)
	}
	h.clf = answer("needs", "needs")
	h.script(toCologneAt9(), openaitest.Text("Both wait for your tap."))
	h.start()
	h.tg.SendText(chat, user, "off to Cologne tomorrow; the login bug, 9ish there I guess")
	return h, h.withButton(chat, "✓ Europe/Berlin"), h.withButton(chat, "✓ 1")
}

// wantCologneAt9 checks, once both are decided, that the login bug's
// reminder is at 9 in Cologne and the plants' kept its clock time.
func (h *harness) wantCologneAt9(set telegramtest.Message) {
	h.t.Helper()
	if at := h.task("T1").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 9, 0, 0, 0, berlin)) {
		m, _ := h.tg.Message(chat, set.ID)
		h.t.Errorf("the login bug's reminder is at %v, want 9:00 in Cologne; the set reads %q", at, m.Text)
	}
	if at := h.task("T5").RemindAt; at == nil || !at.Equal(time.Date(2026, 3, 12, 7, 0, 0, 0, berlin)) {
		h.t.Errorf("the plants' reminder is at %v, want 7:00 in Berlin", at)
	}
}

// In the small hours, "tomorrow" is the day that has just begun for
// someone still up: the agent is told so until 04:00 local time, and not
// after.
func TestSmallHoursTomorrow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.inBerlin(chat)
	h.start()
	const note = "It is the small hours: a user who has not slept yet means by \"tomorrow\" the day that has just begun"
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(2026, 12, 1, 22, 59, 0, 0, time.UTC), false}, // 23:59 in Berlin
		{time.Date(2026, 12, 1, 23, 38, 0, 0, time.UTC), true},  // 00:38
		{time.Date(2026, 12, 2, 2, 59, 0, 0, time.UTC), true},   // 03:59
		{time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC), false},   // 04:00
	} {
		h.clock.Set(c.at)
		n := len(h.tg.BotMessages(chat)) + 1
		h.script(openaitest.Text("Noted."))
		h.tg.SendText(chat, user, "remind me tomorrow about the bins")
		h.tg.WaitBotMessages(chat, n)
		reqs := h.llm.RequestsFor(agentM)
		if got := strings.Contains(reqs[len(reqs)-1].System(), note); got != c.want {
			t.Errorf("at %s Berlin time the note is there: %v, want %v", c.at.In(berlin).Format("15:04"), got, c.want)
		}
	}
	// The classifier that judges the agent's call reads "tomorrow" alike:
	// the reminder for 09:00 of the day just begun is what was asked.
	h.clock.Set(time.Date(2026, 12, 2, 23, 38, 0, 0, time.UTC)) // 00:38 on Thursday in Berlin
	h.clf = answer("explicit:remind me tomorrow at 9 to call the bank")
	h.script(openaitest.Calls(call("c", "create_task", map[string]any{"title": "Call the bank"})), openaitest.Text("Added."))
	n := len(h.tg.BotMessages(chat)) + 1
	h.tg.SendText(chat, user, "remind me tomorrow at 9 to call the bank")
	h.tg.WaitBotMessages(chat, n)
	clf := h.llm.RequestsFor(clfM)
	if len(clf) == 0 || !strings.Contains(clf[len(clf)-1].System(), nod.SmallHoursNote) {
		t.Errorf("the classifier is not told the small hours")
	}
}
