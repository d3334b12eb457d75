package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/golden"
	"github.com/nodbot/nod/fixtures/openaitest"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// transcript renders what the person saw: each bot message as it is now,
// with its buttons' labels.
func transcript(ms []telegramtest.Message) string {
	var b strings.Builder
	for i, m := range ms {
		fmt.Fprintf(&b, "## %d\n%s\n", i+1, m.Text)
		if bs := buttonTexts(m); len(bs) > 0 {
			fmt.Fprintf(&b, "[%s]\n", strings.Join(bs, "] ["))
		}
	}
	return b.String()
}

// A person whose Telegram app is set to German reads nod in German: a
// proposal and its decision, a receipt, the expiry warning the sweep
// writes with no update to go by, and callback answers. /lang switches the
// chat to English and back; the whole session is a golden file.
func TestGermanUser(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.env["NOD_SWEEP_INTERVAL"] = "20ms"
	h.seedT1()
	h.tg.Wire().SetLanguage(user, "de-DE")
	h.start()

	h.raiseT1()
	h.tg.SendText(chat, user, "Sollte das nicht dringender sein?")
	set := h.changeSetMessage(chat, 2)
	for _, want := range []string{"Vorgeschlagene Änderungen", "1.</b> Priorität: P3 → P1", "Tippe ✓ 1 zum Übernehmen"} {
		if !strings.Contains(set.Text, want) {
			t.Errorf("change set lacks %q:\n%s", want, set.Text)
		}
	}
	if sys := h.llm.RequestsFor(agentM)[0].System(); !strings.Contains(sys, `The chat's language is "de": reply in it`) {
		t.Errorf("the agent was not told the chat's language:\n%s", sys)
	}
	if got := h.tap(chat, user, set.ID, "✓ 1"); got != "Punkt 1 übernommen." {
		t.Errorf("tap answered %q", got)
	}
	set, _ = h.tg.Message(chat, set.ID)
	if !strings.Contains(set.Text, "1 von 1 übernommen.") || !hasButton(set, "↩️ Rückgängig 1") {
		t.Errorf("decided set = %q %v", set.Text, buttonTexts(set))
	}

	// An explicit request: a receipt that quotes the person.
	h.clf = answer("explicit:auf 90 Minuten")
	h.script(openaitest.Calls(call("e", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 90})), openaitest.Text("Erledigt."))
	h.tg.SendText(chat, user, "Setz die Schätzung auf 90 Minuten")
	receipt := h.tg.WaitBotMessages(chat, 3)[2]
	if !strings.Contains(receipt.Text, "Schätzung: 2 Std. → 1 Std. 30 Min.") || !strings.Contains(receipt.Text, "weil du „auf 90 Minuten“ gesagt hast") ||
		!hasButton(receipt, "↩️ Rückgängig") {
		t.Errorf("receipt = %q %v", receipt.Text, buttonTexts(receipt))
	}
	h.tg.WaitBotMessages(chat, 4) // the model's own text

	// A proposal that the sweep warns about a day before it expires.
	h.clf = func(openaitest.Request) openaitest.Response { return openaitest.Text(`{"actions":[]}`) }
	h.script(openaitest.Calls(call("d", "update_task_due_date", map[string]any{"task_id": "T1", "due_date": "2026-03-20"})), openaitest.Text("Vorschlag?"))
	h.tg.SendText(chat, user, "Und die Fälligkeit?")
	due := h.changeSetMessage(chat, 6)
	h.clock.Advance(6*24*time.Hour + time.Hour)
	due = h.tg.WaitMessage(chat, due.ID, "the warning", func(m telegramtest.Message) bool { return hasButton(m, "⏳ 7 Tage länger behalten") })
	if !strings.Contains(due.Text, "Dieser Vorschlag läuft am 18. März 2026, 10:00 Uhr ab") {
		t.Errorf("warning = %q", due.Text)
	}

	if m := h.say("ja"); m.Text != "✅ 1 Änderung übernommen." || h.task("T1").DueDate != "2026-03-20" {
		t.Errorf("'ja' = %q, due %s", m.Text, h.task("T1").DueDate)
	}

	// /lang en: English, though the app says German; /lang auto: German again.
	if m := h.say("/lang en"); m.Text != "🌐 I'll write in English in this chat." {
		t.Errorf("/lang en = %q", m.Text)
	}
	if m := h.say("/tasks"); !strings.Contains(m.Text, "Your tasks") {
		t.Errorf("/tasks after /lang en = %q", m.Text)
	}
	if m := h.say("/lang auto"); m.Text != "🌐 Ich schreibe in diesem Chat auf Deutsch." {
		t.Errorf("/lang auto = %q", m.Text)
	}
	if m := h.say("/lang fr"); !strings.Contains(m.Text, "/lang auto") {
		t.Errorf("/lang fr = %q", m.Text)
	}
	golden.Check(t, "de/e2e/session", "TestGermanUser: what the person saw", golden.Section{Name: "messages", Data: transcript(h.tg.BotMessages(chat))})
	if h.task("T1").Priority != nod.P1 || *h.task("T1").EstimateMinutes != 90 {
		t.Errorf("T1 = %+v", h.task("T1"))
	}
}

// A stranger is refused in their app's language; an app in a language nod
// does not speak gets English.
func TestRefusalLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tg.Wire().SetLanguage(stranger, "de")
	h.tg.Wire().SetLanguage(user, "fr")
	h.script(openaitest.Text("Bonjour"))
	h.start()
	h.tg.SendText(chat+1, stranger, "hallo")
	if m := h.tg.WaitBotMessages(chat+1, 1)[0]; !strings.Contains(m.Text, "Entschuldige, dieser Bot ist privat") {
		t.Errorf("refusal = %q", m.Text)
	}
	if m := h.say("/tasks"); !strings.Contains(m.Text, "no tasks") {
		t.Errorf("a French app's /tasks = %q", m.Text)
	}
}

// A German-speaking person decides a set in their own words (a reply with
// a range and "auch", a plain "nee"), answers in words nod cannot read
// (shown as a reading, in German), redoes an undo ("Erneut angewendet"),
// and /review and /lang reach the model as the chat's language.
func TestGermanAnswersInWords(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.seedT1()
	h.tg.Wire().SetLanguage(user, "de")
	var calls []openaitest.ToolCall
	for i, p := range []map[string]any{
		{"priority": "P1"}, {"estimate_minutes": 90}, {"due_date": "2026-03-20"}, {"status": "BLOCKED"}, {"labels": []string{"auth"}},
	} {
		tool := map[int]string{0: "set_task_priority", 1: "update_task_estimate", 2: "update_task_due_date", 3: "set_task_status", 4: "assign_task_labels"}[i]
		p["task_id"] = "T1"
		calls = append(calls, call(fmt.Sprint(i), tool, p))
	}
	h.script(openaitest.Calls(calls...), openaitest.Text("Fünf Ideen."))
	h.start()
	h.tg.SendText(chat, user, "räum den Login-Bug auf")
	set := h.changeSetMessage(chat, 2)
	h.tg.ReplyText(chat, user, set.ID, "1 bis 2 passt, 4 auch")
	if m := h.tg.WaitBotMessages(chat, 3)[2]; m.Text != "✅ 3 Änderungen übernommen. 2 warten noch auf deine Antwort." {
		t.Errorf("'1 bis 2 passt, 4 auch' = %q", m.Text)
	}
	if m := h.say("nee"); m.Text != "❌ 2 abgelehnt." {
		t.Errorf("'nee' = %q", m.Text)
	}
	task := h.task("T1")
	if task.Priority != nod.P1 || task.Status != nod.StatusBlocked || task.DueDate != "2026-03-15" || len(task.Labels) != 2 {
		t.Errorf("T1 = %s %s %s %v", task.Priority, task.Status, task.DueDate, task.Labels)
	}

	// Words nod cannot read go to the agent, whose answer is shown as a
	// reading, in German.
	h.script(openaitest.Calls(call("d", "set_task_priority", map[string]any{"task_id": "T1", "priority": "P0"}),
		call("e", "update_task_estimate", map[string]any{"task_id": "T1", "estimate_minutes": 30})), openaitest.Text("Zwei Ideen."))
	h.tg.SendText(chat, user, "noch was?")
	second := h.changeSetMessage(chat, 6)
	h.clf = answer("needs")
	h.script(openaitest.Calls(call("x", "answer_proposals", map[string]any{"confirm": []int{2}})), openaitest.Text("Ich frage nach."))
	h.tg.ReplyText(chat, user, second.ID, "nur das mit der Zeit")
	reading := h.tg.WaitBotMessages(chat, 8)[7]
	if !strings.Contains(reading.Text, "Ich verstehe deine Antwort so:") || !strings.Contains(reading.Text, "✓ 2. Schätzung auf 30 Min. setzen") || !hasButton(reading, "✓ Ja, so") {
		t.Errorf("reading = %q %v", reading.Text, buttonTexts(reading))
	}
	if ans := h.tap(chat, user, reading.ID, "✓ Ja, so"); ans != "✅ 1 Änderung übernommen. 1 wartet noch auf deine Antwort." {
		t.Errorf("reading accepted: %q", ans)
	}

	// Undo and Redo, in German words.
	h.tg.SendText(chat, user, "/undo")
	undone := h.tg.WaitBotMessages(chat, 9)[8]
	if undone.Text != "↩️ Rückgängig gemacht bei „Fix login bug“: Schätzung wieder <b>1 Std. 30 Min.</b>\nZurückgenommen: <s>Schätzung auf 30 Min. gesetzt</s>" || !hasButton(undone, "↪️ Erneut anwenden") {
		t.Errorf("undo = %q %v", undone.Text, buttonTexts(undone))
	}
	if ans := h.tap(chat, user, undone.ID, "↪️ Erneut anwenden"); ans != "Erneut angewendet." || *h.task("T1").EstimateMinutes != 30 {
		t.Errorf("redo = %q, estimate %d", ans, *h.task("T1").EstimateMinutes)
	}
	if m := h.tg.WaitBotMessages(chat, 10)[9]; !strings.HasPrefix(m.Text, "↪️ Erneut angewendet") || !hasButton(m, "↩️ Rückgängig") {
		t.Errorf("after redo: %q %v", m.Text, buttonTexts(m))
	}

	// /review and /lang reach the model as the chat's language.
	h.script(openaitest.Text("Alles gut."))
	h.say("/review")
	last := h.llm.RequestsFor(agentM)[len(h.llm.RequestsFor(agentM))-1]
	if sys := last.System(); !strings.Contains(sys, `The chat's language is "de"`) || !strings.Contains(sys, "The user sent /review") || last.LastUser() != "/review" {
		t.Errorf("/review request: user %q, system:\n%s", last.LastUser(), sys)
	}
	h.say("/lang en")
	h.script(openaitest.Text("Fine."))
	h.say("and now?")
	last = h.llm.RequestsFor(agentM)[len(h.llm.RequestsFor(agentM))-1]
	if sys := last.System(); !strings.Contains(sys, `The chat's language is "en"`) {
		t.Errorf("after /lang en the model was not told English:\n%s", sys)
	}
}
