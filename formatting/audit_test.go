package formatting_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// groupAudit is a group's audit log: Alice (42) and Bob (43) by name,
// member 44 whose name nod never learned, a review's proposal,
// nobody's, and the rows of someone nod forgot.
func groupAudit(at time.Time) []nod.AuditEntry {
	return []nod.AuditEntry{
		{UserID: 43, Tool: "set_task_priority", Args: []byte(`{"task_id":"T1","priority":"P1"}`), Outcome: nod.OutcomeConfirmed, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":"2026-03-12T10:00:00Z","snooze":true,"was":"2026-03-12T09:00:00Z"}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":"2026-03-12T09:00:00Z","was":null}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "remind me at 9", At: at},
		{UserID: 42, Tool: "set_task_repeat", Args: []byte(`{"task_id":"T1","repeat":"DTSTART:20260312T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "every weekday at 9", At: at},
		{UserID: 42, Tool: "rule", Outcome: nod.OutcomeCreated, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "set_task_priority", Args: []byte(`{"task_id":"T1","priority":"P1"}`), Outcome: nod.OutcomeExecuted, Verdict: "rule", Reason: "rule r1 (set_task_priority=P1)", At: at},
		{Tool: "set_task_status", Args: []byte(`{"task_id":"T1","status":"DONE"}`), Outcome: nod.OutcomeQueued, At: at},
		{UserID: 44, Tool: "delete_task", Args: []byte(`{"task_id":"T9"}`), Outcome: nod.OutcomeConfirmed, UserConfirmed: true, Reason: "typed the task's title", At: at},
		{UserID: 43, Tool: "delete_task", Args: []byte(`{"task_id":"T9"}`), Outcome: nod.OutcomeQueued, At: at},
		{Tool: "delete_task", Args: []byte(`{"task_id":"T9"}`), Outcome: nod.OutcomeQueued, At: at},
		{UserID: 43, Tool: "mode", Args: []byte(`{"mode":"trusted"}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "mode", Args: []byte(`{"mode":"always"}`), Outcome: nod.OutcomeExecuted, Reason: "circuit breaker", At: at},
		{UserID: 43, Tool: "set_task_priority", Args: []byte(`{"undo_id":"u1","task_id":"T1","tool":"set_task_priority","fields":["priority"]}`), Outcome: nod.OutcomeUndone, UserConfirmed: true, At: at},
		{UserID: 43, Tool: "set_task_priority", Args: []byte(`{"undo_id":"u1","task_id":"T1","tool":"set_task_priority","fields":["priority"]}`), Outcome: nod.OutcomeRedone, UserConfirmed: true, At: at},
		{UserID: 44, Tool: "remove_checklist_items", Args: []byte(`{"task_id":"T1","items":[{"id":"c1"}]}`), Outcome: nod.OutcomeRejected, UserConfirmed: true, At: at},
		{UserID: 43, Tool: "answer_proposals", Args: []byte(`{"set_id":"s1","confirm":[1]}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "yes", At: at},
		{Tool: "interrupted", Args: []byte(`{"text":"make it P1"}`), Outcome: nod.OutcomeExecuted, At: at},
		{Tool: "set_task_title", Args: []byte(`{}`), Outcome: nod.OutcomeExecuted, Redacted: true, At: at},
		{Tool: "forget", Args: []byte(`{"rows":3,"redacted":[{"id":1},{"id":2},{"id":3}]}`), Outcome: nod.OutcomeExecuted, At: at},
	}
}

// reminderAudit is what a reminder's rows can say, newest first: the
// reminder snoozed, cleared, moved and set, a proposal (its time the
// model's, local), and a row written before the reminder it replaced was
// recorded.
func reminderAudit(at time.Time) []nod.AuditEntry {
	return []nod.AuditEntry{
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":"2026-03-13T08:00:00Z","snooze":true,"was":"2026-03-12T10:00:00Z"}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":null,"was":"2026-03-12T10:00:00Z"}`), Outcome: nod.OutcomeConfirmed, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":"2026-03-12T10:00:00Z","was":"2026-03-12T09:00:00Z"}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "an hour later", At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":"2026-03-12T09:00:00Z","was":null}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "remind me at 9", At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":"2026-03-12T09:00"}`), Outcome: nod.OutcomeQueued, At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":null}`), Outcome: nod.OutcomeRejected, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1","remind_at":"2026-03-12T09:00:00Z"}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
		{UserID: 42, Tool: "set_task_reminder", Args: []byte(`{"task_id":"T1"}`), Outcome: nod.OutcomeFailed, At: at},
	}
}

// A reminder's row says what it did, at the chat's time: set, moved,
// snoozed or cleared, never "Clear the reminder" for a reminder set.
func TestAuditReminderRows(t *testing.T) {
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"en": {
			"You did: snoozed the reminder to 13 Mar 2026, 09:00",
			"You confirmed: cleared the reminder",
			"Applied as you asked: moved the reminder to 12 Mar 2026, 11:00 (“an hour later”)",
			"Applied as you asked: set a reminder for 12 Mar 2026, 10:00 (“remind me at 9”)",
			"Proposed: set a reminder for 12 Mar 2026, 09:00",
			"You rejected: clear the reminder",
			"You did: set a reminder for 12 Mar 2026, 10:00",
			"Not applied: a reminder change",
		},
		"de": {
			"Von dir: Erinnerung mit ⏰ auf 13. März 2026, 09:00 Uhr verschoben",
			"Von dir bestätigt: Erinnerung entfernt",
			"Wie gewünscht übernommen: Erinnerung auf 12. März 2026, 11:00 Uhr verschoben („an hour later“)",
			"Wie gewünscht übernommen: Erinnerung auf 12. März 2026, 10:00 Uhr gesetzt („remind me at 9“)",
			"Vorgeschlagen: Erinnerung auf 12. März 2026, 09:00 Uhr setzen",
			"Von dir abgelehnt: Erinnerung entfernen",
			"Von dir: Erinnerung auf 12. März 2026, 10:00 Uhr gesetzt",
			"Nicht übernommen: Änderung einer Erinnerung",
		},
	}
	for lang, rows := range want {
		checkRows(t, lang, formatting.PlainText(formatting.For(lang).In(berlin).Audit(reminderAudit(at), nil, nil).HTML), rows)
	}
}

// you is the reader named as "you", in English or German.
var you = regexp.MustCompile(`\b(You|you asked|your|Du|dir|deine[rn]?)\b`)

// In a group /audit names the member of each row, to everyone who reads
// it; a member nod has no name for is "a member", never "you"; a review's
// proposal is nobody's.
func TestAuditNamesGroupMembers(t *testing.T) {
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	names := map[nod.UserID]string{42: "Alice", 43: "Bob"}
	want := map[string][]string{
		"en": {
			"Bob confirmed: Set priority to P1",
			"Alice did: snoozed the reminder to 12 Mar 2026, 10:00",
			"Applied as Alice asked: set a reminder for 12 Mar 2026, 09:00 (“remind me at 9”)",
			"Applied as Alice asked: Repeat the reminder every weekday at 09:00 (“every weekday at 9”)",
			"Alice accepted a rule",
			"Applied by Alice's rule: Set priority to P1",
			"Proposed: Set status to Done",
			"A member deleted the task",
			"Asked Bob to confirm deleting the task",
			"Asked any of you to confirm deleting the task",
			"Bob switched to the mode Trusted",
			"Switched Alice to the mode Always ask for 24 hours, after two undos",
			"Bob undid a change (Priority)",
			"Bob redid a change (Priority)",
			"A member rejected: Remove a checklist item",
			"Applied as Bob asked: my reading of Bob's answer (“yes”)",
			"Stopped before answering a message",
			"Redacted: nod forgot the person this row was about",
			"Forgot someone who asked: 3 rows redacted",
		},
		"de": {
			"Von Bob bestätigt: Priorität auf P1 setzen",
			"Von Alice: Erinnerung mit ⏰ auf 12. März 2026, 10:00 Uhr verschoben",
			"Wie von Alice gewünscht übernommen: Erinnerung auf 12. März 2026, 09:00 Uhr gesetzt („remind me at 9“)",
			"Wie von Alice gewünscht übernommen: Erinnerung wiederholen: werktags um 09:00 („every weekday at 9“)",
			"Alice hat eine Regel angenommen",
			"Per Regel von Alice übernommen: Priorität auf P1 setzen",
			"Vorgeschlagen: Status auf Erledigt setzen",
			"Ein Mitglied hat die Aufgabe gelöscht",
			"Löschen der Aufgabe bei Bob erfragt",
			"Löschen der Aufgabe bei euch erfragt",
			"Bob hat in den Modus „Vertrauen“ gewechselt",
			"Der Modus von Alice wurde auf „Immer fragen“ geschaltet, für 24 Stunden nach zwei Rückgängig-Aktionen",
			"Bob hat eine Änderung rückgängig gemacht (Priorität)",
			"Bob hat eine Änderung erneut angewendet (Priorität)",
			"Von einem Mitglied abgelehnt: Einen Checklistenpunkt entfernen",
			"Wie von Bob gewünscht übernommen: meine Lesart der Antwort von Bob („yes“)",
			"Vor der Antwort auf eine Nachricht unterbrochen",
			"Geschwärzt: nod hat die Person vergessen, um die es ging",
			"Jemanden auf Wunsch vergessen: 3 Zeilen geschwärzt",
		},
	}
	for lang, rows := range want {
		got := formatting.PlainText(formatting.For(lang).Audit(groupAudit(at), nil, names).HTML)
		checkRows(t, lang, got, rows)
		if you.MatchString(got) {
			t.Errorf("%s: a group's /audit says “you”:\n%s", lang, got)
		}
	}
}

// checkRows holds an /audit's text, after its heading, to rows: one line
// per row, each ending in the row's words.
func checkRows(t *testing.T, lang, got string, rows []string) {
	t.Helper()
	lines := strings.Split(got, "\n")[1:]
	if len(lines) != len(rows) {
		t.Fatalf("%s: %d rows, want %d:\n%s", lang, len(lines), len(rows), got)
	}
	for i, w := range rows {
		if !strings.HasSuffix(lines[i], " "+w) {
			t.Errorf("%s: row %d = %q, want it to end %q", lang, i+1, lines[i], w)
		}
	}
}
