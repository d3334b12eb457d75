package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
	"github.com/nodbot/nod/place"
)

// readPlaces reads the gazetteer and the zone data before nod runs: they
// take seconds under the race detector, which belong to no wait for an
// answer.
func readPlaces(t *testing.T) {
	t.Helper()
	if _, err := place.Shared.FindCity("Berlin"); err != nil {
		t.Fatal(err)
	}
}

// /tz takes a city's name as it takes a zone's, in any spelling, and its
// reminders keep their local times; the receipt names the city, in the
// person's language. A name that is no place says what works.
func TestTzCity(t *testing.T) {
	t.Parallel()
	readPlaces(t)
	h := newHarness(t)
	h.clock.Set(time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC))
	at := time.Date(2026, 3, 12, 8, 0, 0, 0, time.UTC)
	h.seed(chat, nod.Task{ID: "T9", Title: "Check the build", RemindAt: &at})
	h.start()

	h.tg.SendText(chat, user, "/tz München")
	if m := h.tg.WaitBotMessages(chat, 1)[0]; !strings.Contains(m.Text, "Time zone: UTC → <b>Europe/Berlin</b> (Munich, Germany).") ||
		!strings.Contains(m.Text, "⏰ Your reminder stays at its local time, now Europe/Berlin time: “Check the build” tomorrow, 08:00.") {
		t.Errorf("/tz München = %q", m.Text)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
		t.Fatalf("zone after /tz München = %q", s.TimeZone)
	}
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, berlin)) {
		t.Errorf("reminder at %v, want 08:00 in Berlin", got)
	}

	h.tg.SendText(chat, user, "/tz Blorptown")
	if m := h.tg.WaitBotMessages(chat, 2)[1]; !strings.Contains(m.Text, "I don't know a place or time zone called “Blorptown”") ||
		!strings.Contains(m.Text, "/tz Europe/Berlin") || !strings.Contains(m.Text, "share a location") {
		t.Errorf("/tz Blorptown = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/tz <b>Paris</b>")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; !strings.Contains(m.Text, "“&lt;b&gt;Paris&lt;/b&gt;”") {
		t.Errorf("/tz <b>Paris</b> = %q", m.Text)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
		t.Errorf("a name that is no place changed the zone to %q", s.TimeZone)
	}

	h.tg.Wire().SetLanguage(user, "de")
	h.tg.SendText(chat, user, "/tz lissabon")
	if m := h.tg.WaitBotMessages(chat, 4)[3]; !strings.Contains(m.Text, "Zeitzone: Europe/Berlin → <b>Europe/Lisbon</b> (Lissabon, Portugal).") ||
		!strings.Contains(m.Text, "⏰ Deine Erinnerung bleibt bei ihrer Uhrzeit, jetzt in Europe/Lisbon: „Check the build“ morgen, 08:00.") {
		t.Errorf("/tz lissabon = %q", m.Text)
	}
	lisbon, _ := time.LoadLocation("Europe/Lisbon")
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, lisbon)) {
		t.Errorf("reminder at %v, want 08:00 in Lisbon", got)
	}
	// IANA names still work, and /tz alone shows the zone.
	h.tg.SendText(chat, user, "/tz Asia/Tokyo")
	if m := h.tg.WaitBotMessages(chat, 5)[4]; !strings.Contains(m.Text, "Europe/Lisbon → <b>Asia/Tokyo</b>.") {
		t.Errorf("/tz Asia/Tokyo = %q", m.Text)
	}
	h.tg.SendText(chat, user, "/tz")
	if m := h.tg.WaitBotMessages(chat, 6)[5]; !strings.Contains(m.Text, "<b>Asia/Tokyo</b>") {
		t.Errorf("/tz = %q", m.Text)
	}
	// /tz NAME has its Undo, as every zone's receipt does (in German
	// here): Lisbon again, and the reminder back where Tokyo found it.
	tokyo := h.tg.BotMessages(chat)[4]
	h.tap(chat, user, tokyo.ID, "↩️ Rückgängig")
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Lisbon" {
		t.Errorf("zone after the undo = %q", s.TimeZone)
	}
	if got := h.task("T9").RemindAt; got == nil || !got.Equal(time.Date(2026, 3, 12, 8, 0, 0, 0, lisbon)) {
		t.Errorf("reminder at %v after the undo, want 08:00 in Lisbon", got)
	}
	if m, _ := h.tg.Message(chat, tokyo.ID); !strings.Contains(m.Text, "Zeitzone wieder <b>Europe/Lisbon</b>.") || len(m.Buttons()) != 0 {
		t.Errorf("/tz Asia/Tokyo after its undo = %q", m.Text)
	}
}

// A name several places share is asked about, one button per place; the
// tap of the administrator who asked sets its zone, and a receipt naming
// the place replaces the question. In a group a member's tap, or another
// administrator's, is refused and changes nothing.
func TestTzAmbiguousCity(t *testing.T) {
	t.Parallel()
	readPlaces(t)
	h := newHarness(t)
	h.env["NOD_ALLOWED_USERS"] = "42,43,44" // a member of the group may use nod too
	h.tg.Wire().SetMember(board, 43, "creator")
	h.tg.Wire().SetMember(board, user, "administrator")
	h.tg.Wire().SetMember(board, 44, "member")
	h.start()
	zone := func() string {
		s, _ := h.db.Settings().ChatSettings(t.Context(), board, 0)
		return s.TimeZone
	}

	h.tg.SendText(board, 44, "/tz Frankfurt")
	if m := h.tg.WaitBotMessages(board, 1)[0]; !strings.Contains(m.Text, "only its administrators can change the time zone") || len(m.Buttons()) != 0 {
		t.Errorf("member's /tz Frankfurt = %q %v", m.Text, buttonTexts(m))
	}
	h.tg.SendText(board, 43, "/tz Frankfurt")
	q := h.tg.WaitBotMessages(board, 2)[1]
	if !strings.Contains(q.Text, "There is more than one Frankfurt. Which one do you mean?") {
		t.Errorf("question = %q", q.Text)
	}
	if b := buttonTexts(q); len(b) < 2 || len(b) > place.MaxCandidates || b[0] != "📍 Frankfurt am Main, Germany" || b[1] != "📍 Frankfurt (Oder), Germany" {
		t.Fatalf("buttons = %q", b)
	}
	for _, b := range q.Buttons() {
		if len(b.Data) > 64 {
			t.Errorf("callback data %q is over Telegram's 64 bytes", b.Data)
		}
	}
	if z := zone(); z != "" {
		t.Fatalf("asking set the zone to %q", z)
	}

	if ans := h.tap(board, 44, q.ID, "📍 Frankfurt (Oder)"); !strings.Contains(ans, "only its administrators") {
		t.Errorf("member's tap answered %q", ans)
	}
	if ans := h.tap(board, user, q.ID, "📍 Frankfurt (Oder)"); !strings.Contains(ans, "Only the person who asked") {
		t.Errorf("another administrator's tap answered %q", ans)
	}
	if z := zone(); z != "" {
		t.Fatalf("a refused tap set the zone to %q", z)
	}

	h.tap(board, 43, q.ID, "📍 Frankfurt (Oder)")
	m := h.tg.WaitMessage(board, q.ID, "the receipt", func(m telegramtest.Message) bool { return strings.Contains(m.Text, "Time zone:") })
	if !strings.Contains(m.Text, "Time zone: UTC → <b>Europe/Berlin</b> (Frankfurt (Oder), Germany)") || !hasButton(m, "↩️ Undo") || hasButton(m, "📍") {
		t.Errorf("after the tap: %q %v", m.Text, buttonTexts(m))
	}
	if z := zone(); z != "Europe/Berlin" {
		t.Errorf("zone after the tap = %q", z)
	}
	h.tap(board, 43, m.ID, "↩️ Undo")
	if z := zone(); z != "" {
		t.Errorf("zone after Undo = %q", z)
	}
}

// The agent's set_chat_timezone takes a city: "Lisbon" sets Europe/Lisbon
// with a receipt naming it, and the agent is told the city it found; a
// city several places share sets nothing and tells the agent which
// places, to ask the person; an inferred city is offered by name.
func TestSetChatTimezoneTakesACity(t *testing.T) {
	t.Parallel()
	readPlaces(t)
	h := newHarness(t)
	h.clf = answer("explicit:I'm in Lisbon")
	h.script(openaitest.Calls(call("z", "set_chat_timezone", map[string]any{"timezone": "Lisbon"})), openaitest.Text("Set to Lisbon's time."))
	h.start()
	h.tg.SendText(chat, user, "I'm in Lisbon")
	rcpt := h.tg.WaitBotMessages(chat, 2)[0]
	if !strings.Contains(rcpt.Text, "Time zone: UTC → <b>Europe/Lisbon</b> (Lisbon, Portugal)") || !hasButton(rcpt, "↩️ Undo") {
		t.Errorf("receipt = %q %v", rcpt.Text, buttonTexts(rcpt))
	}
	if r := h.llm.RequestsFor(agentM)[1].ToolResults()["z"]; !strings.Contains(r, `"timezone":"Europe/Lisbon","city":"Lisbon, Lisbon District, Portugal"`) {
		t.Errorf("tool result = %q", r)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Lisbon" {
		t.Fatalf("zone = %q", s.TimeZone)
	}
	if raw := h.llm.RequestsFor(agentM)[0].Raw; !strings.Contains(string(raw), "or the city they named") {
		t.Errorf("the tool's description does not say cities work")
	}

	h.clf = answer("explicit:now I'm in Frankfurt")
	h.script(openaitest.Calls(call("f", "set_chat_timezone", map[string]any{"timezone": "Frankfurt"})), openaitest.Text("Which Frankfurt?"))
	h.tg.SendText(chat, user, "now I'm in Frankfurt")
	h.tg.WaitBotMessages(chat, 3)
	r := h.llm.RequestsFor(agentM)[3].ToolResults()["f"]
	for _, want := range []string{`"error"`, "more than one place", "Frankfurt am Main, Germany (Europe/Berlin)", "Frankfurt (Oder), Germany (Europe/Berlin)", "ask the user which one"} {
		if !strings.Contains(r, want) {
			t.Errorf("tool result %q lacks %q", r, want)
		}
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Lisbon" {
		t.Errorf("an ambiguous city changed the zone to %q", s.TimeZone)
	}

	// Inferred, the city's zone is offered, named, and set on the tap.
	h.clf = answer() // not explicit
	h.script(openaitest.Calls(call("k", "set_chat_timezone", map[string]any{"timezone": "Köln"})), openaitest.Text("Shall I?"))
	h.tg.SendText(chat, user, "flying to Köln next week")
	offer := h.tg.WaitBotMessages(chat, 5)[4]
	if r := h.llm.RequestsFor(agentM)[5].ToolResults()["k"]; r != "Proposal queued for user review." {
		t.Errorf("tool result of an inferred city = %q", r)
	}
	if !strings.Contains(offer.Text, "Set this chat's time zone to <b>Europe/Berlin</b> (Cologne, Germany)?") || !hasButton(offer, "✓ Europe/Berlin") {
		t.Fatalf("offer = %q %v", offer.Text, buttonTexts(offer))
	}
	h.tap(chat, user, offer.ID, "✓ Europe/Berlin")
	if m, _ := h.tg.Message(chat, offer.ID); !strings.Contains(m.Text, "Time zone: Europe/Lisbon → <b>Europe/Berlin</b> (Cologne, Germany)") {
		t.Errorf("offer after the tap = %q", m.Text)
	}
	if s, _ := h.db.Settings().ChatSettings(t.Context(), chat, user); s.TimeZone != "Europe/Berlin" {
		t.Errorf("zone after the tap = %q", s.TimeZone)
	}
}
