package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/race"
	"github.com/nodbot/nod/fixtures/telegramtest"
)

// exportDoc is the part of /export's JSON the tests read.
type exportDoc struct {
	ChatID   int64  `json:"chat_id"`
	UserID   int64  `json:"user_id"`
	Scope    string `json:"scope"`
	TimeZone string `json:"time_zone"`
	Settings struct {
		Mode     string  `json:"mode"`
		Language *string `json:"language"`
	} `json:"settings"`
	Counts struct{ Tasks, Reminders, Audit int } `json:"counts"`
	Tasks  []struct {
		ID        string   `json:"id"`
		Title     string   `json:"title"`
		Status    string   `json:"status"`
		Labels    []string `json:"labels"`
		CreatedBy *int64   `json:"created_by"`
		Checklist []struct {
			Title     string  `json:"title"`
			Checked   bool    `json:"checked"`
			CheckedBy string  `json:"checked_by"`
			CheckedAt *string `json:"checked_at"`
		} `json:"checklist"`
		Reminder *struct {
			Local string `json:"local"`
			UTC   string `json:"utc"`
			SetBy int64  `json:"set_by"`
		} `json:"reminder"`
	} `json:"tasks"`
	Reminders []struct {
		Task  string `json:"task"`
		Local string `json:"local"`
		UTC   string `json:"utc"`
		SetBy int64  `json:"set_by"`
	} `json:"reminders"`
	Audit []struct {
		UserID    int64           `json:"user_id"`
		Tool      string          `json:"tool"`
		Outcome   string          `json:"outcome"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"audit"`
}

// exportFiles waits for an export's two files in chat and reads them.
func (h *harness) exportFiles(chatID int64) (exportDoc, [][]string, []telegramtest.Document) {
	h.t.Helper()
	docs := h.tg.WaitDocuments(chatID, 2)
	var doc exportDoc
	if err := json.Unmarshal(docs[0].Data, &doc); err != nil {
		h.t.Fatalf("%s does not parse as JSON: %v\n%s", docs[0].Name, err, docs[0].Data)
	}
	text := string(docs[1].Data)
	if !strings.HasPrefix(text, "\ufeff") {
		h.t.Errorf("%s does not start with UTF-8's byte order mark", docs[1].Name)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(text, "\ufeff"))).ReadAll()
	if err != nil {
		h.t.Fatalf("%s does not parse as CSV: %v", docs[1].Name, err)
	}
	return doc, rows, docs
}

// seedBy stores a task of chat as created by userID.
func (h *harness) seedBy(chatID, userID int64, t nod.Task) nod.Task {
	h.t.Helper()
	t.ID, t.Status, t.Priority = nod.TaskID(nod.NewID()), nod.StatusOpen, nod.P2
	a, err := h.db.Tasks().Apply(h.t.Context(), nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(chatID)}, UserID: nod.UserID(userID), Tool: nod.ToolCreateTask,
		Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}, Mutate: func(*nod.Task) (nod.Task, error) { return t, nil }})
	if err != nil {
		h.t.Fatal(err)
	}
	return a.After
}

// remindBy sets task id's reminder in chat as userID.
func (h *harness) remindBy(chatID, userID int64, id nod.TaskID, at time.Time) {
	h.t.Helper()
	args, _ := json.Marshal(map[string]string{"task_id": string(id), "remind_at": at.Format(time.RFC3339)})
	_, err := h.db.Tasks().Apply(h.t.Context(), nod.Edit{Topic: nod.Topic{ChatID: nod.ChatID(chatID)}, UserID: nod.UserID(userID), TaskID: id, Tool: nod.ToolSetReminder, Args: args,
		Audit: nod.AuditEntry{Outcome: nod.OutcomeExecuted}, Mutate: func(cur *nod.Task) (nod.Task, error) { cur.RemindAt = &at; return *cur, nil }})
	if err != nil {
		h.t.Fatal(err)
	}
}

// exports lists the chat's export audit rows, oldest first, as
// "user:outcome".
func (h *harness) exports(chatID int64) []string {
	var out []string
	for _, a := range h.audit(chatID) {
		if a.Tool == nod.ToolExport {
			out = append([]string{string(rune('0'+a.UserID%10)) + ":" + string(a.Outcome)}, out...)
		}
	}
	return out
}

// The title a spreadsheet and a JSON reader must both get back exactly.
const trickyTitle = "Call \"Bob\", then <b>ship</b> & tell <i>everyone</i>\nsecond line"

// In a private chat /export sends everything of the chat as two files: a
// JSON that holds the tasks with their checklists (who ticked what),
// reminders in the chat's zone and UTC, the settings and the audit log,
// and a CSV table a spreadsheet opens. No model is asked; the export is
// itself audited.
func TestExportPrivateChat(t *testing.T) {
	h := newHarness(t)
	h.inBerlin(chat)
	h.seedT1()
	tricky := h.seed(chat, nod.Task{Title: trickyTitle, Labels: []string{"ops", "q1"}})
	h.remindBy(chat, user, "T1", tomorrowAt(8))
	h.start()

	h.tg.SendText(chat, user, "/export")
	doc, rows, docs := h.exportFiles(chat)
	if docs[0].Name != "nod-export-2026-03-11.json" || docs[1].Name != "nod-tasks-2026-03-11.csv" {
		t.Errorf("files %q and %q, want them named with the chat's date", docs[0].Name, docs[1].Name)
	}
	if !strings.Contains(docs[0].Caption, "2 tasks") || !strings.Contains(docs[0].Caption, "1 reminder") || !strings.Contains(docs[1].Caption, "table") {
		t.Errorf("captions %q and %q do not say what the files hold", docs[0].Caption, docs[1].Caption)
	}
	if doc.Scope != "chat" || doc.ChatID != chat || doc.TimeZone != "Europe/Berlin" || doc.Settings.Mode != "smart" || doc.Settings.Language == nil {
		t.Errorf("the export's head: %+v", doc)
	}
	if len(doc.Tasks) != 2 || doc.Tasks[0].ID != "T1" || doc.Tasks[1].Title != trickyTitle || doc.Counts.Tasks != 2 {
		t.Fatalf("the export's tasks: %+v", doc.Tasks)
	}
	t1 := doc.Tasks[0]
	if len(t1.Checklist) != 3 || t1.Checklist[1].CheckedBy != "agent" || t1.Checklist[2].CheckedBy != "user" ||
		t1.Checklist[2].CheckedAt == nil || *t1.Checklist[2].CheckedAt != "2026-03-10T10:00:00+01:00" || t1.Checklist[0].Checked {
		t.Errorf("T1's checklist: %+v", t1.Checklist)
	}
	if r := t1.Reminder; r == nil || r.Local != "2026-03-12T09:00:00+01:00" || r.UTC != "2026-03-12T08:00:00Z" || r.SetBy != user {
		t.Errorf("T1's reminder: %+v, want 09:00 in Berlin, 08:00 UTC, set by %d", r, user)
	}
	if len(doc.Reminders) != 1 || doc.Reminders[0].Task != "Fix login bug" || doc.Reminders[0].UTC != "2026-03-12T08:00:00Z" {
		t.Errorf("the reminders: %+v", doc.Reminders)
	}
	if n := len(doc.Audit); n != doc.Counts.Audit || n < 3 || doc.Audit[n-1].Tool != "set_task_reminder" || doc.Audit[n-1].Outcome != "executed" ||
		!strings.Contains(string(doc.Audit[n-1].Arguments), `"was"`) {
		t.Errorf("the audit rows (%d counted): %+v", doc.Counts.Audit, doc.Audit)
	}
	if len(rows) != 3 || rows[0][0] != "id" || rows[0][1] != "title" {
		t.Fatalf("the CSV: %q", rows)
	}
	if got := rows[2]; got[0] != string(tricky.ID) || got[1] != trickyTitle || got[7] != "ops, q1" {
		t.Errorf("the tricky task's row: %q, want its title as typed and its labels", got)
	}
	if got := rows[1][8]; got != "[ ] Write tests\n[x] Update docs (agent, 2026-03-09 19:00)\n[x] Write migration notes (user, 2026-03-10 10:00)" {
		t.Errorf("T1's checklist cell: %q", got)
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("the export asked the model %d times", n)
	}
	h.tg.Wait("the export's audit row", func() bool { return len(h.exports(chat)) == 1 })
	if got := h.exports(chat); got[0] != "2:executed" {
		t.Errorf("the export's audit row: %q", got)
	}
	// The next export holds the first one's row.
	h.tg.SendText(chat, user, "/export")
	docs = h.tg.WaitDocuments(chat, 4)
	var again exportDoc
	if err := json.Unmarshal(docs[2].Data, &again); err != nil {
		t.Fatal(err)
	}
	if last := again.Audit[len(again.Audit)-1]; last.Tool != "export" || last.Outcome != "executed" || last.UserID != user {
		t.Errorf("the second export's last audit row: %+v, want the first export", last)
	}
}

// In a group each member's export holds only their own: the tasks they
// created, the reminders they set, their audit rows. It goes to their
// private chat; the group hears one line naming them, and sees no data.
func TestExportGroup(t *testing.T) {
	h := newHarness(t)
	h.tg.Wire().SetName(user, "Alice")
	h.tg.Wire().SetName(bob, "Bob")
	alices := h.seedBy(group, user, nod.Task{Title: "Alice's launch post", Checklist: []nod.ChecklistItem{{ID: "a1", Title: "Draft"}}})
	bobs := h.seedBy(group, bob, nod.Task{Title: "Bob's printer"})
	h.remindBy(group, user, bobs.ID, tomorrowAt(9))   // Alice's reminder on Bob's task
	h.remindBy(group, bob, alices.ID, tomorrowAt(10)) // and Bob's on hers
	for _, who := range []int64{user, bob} {
		h.tg.Wire().Unstarted(who)
	}
	h.start()
	for _, who := range []int64{user, bob} {
		h.tg.SendText(who, who, "/start") // each opens a private chat with the bot
		h.tg.WaitBotMessages(who, 1)
	}

	h.tg.SendText(group, user, "/export")
	alice, aliceRows, _ := h.exportFiles(user)
	h.tg.SendText(group, bob, "/export")
	bobDoc, bobRows, _ := h.exportFiles(bob)
	for _, c := range []struct {
		who     string
		doc     exportDoc
		rows    [][]string
		task    string
		remind  string
		userID  int64
		audited int
	}{{"Alice", alice, aliceRows, "Alice's launch post", "Bob's printer", user, 2}, {"Bob", bobDoc, bobRows, "Bob's printer", "Alice's launch post", bob, 2}} {
		d := c.doc
		if d.Scope != "own" || d.ChatID != group || d.UserID != c.userID || d.Settings.Language != nil {
			t.Errorf("%s's export: scope %q, chat %d, user %d, language %v", c.who, d.Scope, d.ChatID, d.UserID, d.Settings.Language)
		}
		if len(d.Tasks) != 1 || d.Tasks[0].Title != c.task || d.Tasks[0].CreatedBy == nil || *d.Tasks[0].CreatedBy != c.userID {
			t.Errorf("%s's export holds tasks %+v, want only %q", c.who, d.Tasks, c.task)
		}
		if len(d.Reminders) != 1 || d.Reminders[0].Task != c.remind || d.Reminders[0].SetBy != c.userID {
			t.Errorf("%s's export holds reminders %+v, want only theirs on %q", c.who, d.Reminders, c.remind)
		}
		for _, a := range d.Audit {
			if a.UserID != c.userID {
				t.Errorf("%s's export holds an audit row of user %d: %+v", c.who, a.UserID, a)
			}
		}
		if len(d.Audit) < c.audited {
			t.Errorf("%s's export holds %d audit rows, want at least %d", c.who, len(d.Audit), c.audited)
		}
		if len(c.rows) != 2 || c.rows[1][1] != c.task {
			t.Errorf("%s's table: %q", c.who, c.rows)
		}
	}
	if docs := h.tg.Documents(group); len(docs) != 0 {
		t.Errorf("the group got %d files", len(docs))
	}
	lines := h.tg.WaitBotMessages(group, 2)
	for i, name := range []string{"Alice", "Bob"} {
		if m := lines[i]; !strings.Contains(m.Text, name+", I sent you your data in our private chat") {
			t.Errorf("the group's line for %s: %q", name, m.Text)
		}
	}
	for _, m := range h.tg.BotMessages(group) {
		if strings.Contains(m.Text, "launch post") || strings.Contains(m.Text, "printer") {
			t.Errorf("the group was shown data: %q", m.Text)
		}
	}
	h.tg.Wait("both exports audited", func() bool { return len(h.exports(group)) == 2 })
	if got := strings.Join(h.exports(group), " "); got != "2:executed 3:executed" {
		t.Errorf("the group's export rows: %s", got)
	}
}

// A member who never opened a private chat with the bot gets nothing
// sent: Telegram refuses (403), and the group is told, in one line, to
// open that chat and send /start. Once they have, /export works.
func TestExportNeedsPrivateChat(t *testing.T) {
	h := newHarness(t)
	h.tg.Wire().SetName(bob, "Bob")
	h.seedBy(group, bob, nod.Task{Title: "Bob's printer"})
	h.tg.Wire().Unstarted(bob)
	h.start()

	h.tg.SendText(group, bob, "/export")
	msgs := h.tg.WaitBotMessages(group, 1)
	if !strings.Contains(msgs[0].Text, "Bob, I can't write to you privately yet") || !strings.Contains(msgs[0].Text, "/start") {
		t.Errorf("the group's line: %q", msgs[0].Text)
	}
	h.tg.Wait("the failed export audited", func() bool { return len(h.exports(group)) == 1 })
	if got := h.exports(group); got[0] != "3:failed" {
		t.Errorf("the export's row: %q", got)
	}
	if docs := len(h.tg.Documents(group)) + len(h.tg.Documents(bob)); docs != 0 {
		t.Errorf("%d files were sent", docs)
	}
	if calls := len(h.tg.Calls("sendDocument")); calls != 1 {
		t.Errorf("%d sendDocument calls, want 1: nothing more after the 403", calls)
	}

	h.tg.SendText(bob, bob, "/start")
	h.tg.WaitBotMessages(bob, 1)
	h.tg.SendText(group, bob, "/export")
	doc, _, _ := h.exportFiles(bob)
	if len(doc.Tasks) != 1 || doc.Tasks[0].Title != "Bob's printer" {
		t.Errorf("Bob's export after /start: %+v", doc.Tasks)
	}
	if msgs := h.tg.WaitBotMessages(group, 2); !strings.Contains(msgs[1].Text, "sent you your data") {
		t.Errorf("the group's second line: %q", msgs[1].Text)
	}
}

// A stranger's /export gets the usual refusal and nothing else: no file,
// no audit row.
func TestExportStranger(t *testing.T) {
	h := newHarness(t)
	h.seedT1()
	h.start()
	h.tg.SendText(chat, stranger, "/export")
	msgs := h.tg.WaitBotMessages(chat, 1)
	if !strings.Contains(msgs[0].Text, "666") {
		t.Errorf("the stranger got %q, want the refusal naming their id", msgs[0].Text)
	}
	h.tg.SendText(chat, user, "/help") // handled after the stranger's message
	h.tg.WaitBotMessages(chat, 2)
	if n := len(h.tg.Calls("sendDocument")); n != 0 {
		t.Errorf("%d files sent to a stranger", n)
	}
	if got := h.exports(chat); len(got) != 0 {
		t.Errorf("a stranger's export was audited: %q", got)
	}
}

// tomorrowAt is the day after the tests' day (11 March 2026) at hour h,
// UTC.
func tomorrowAt(h int) time.Time { return time.Date(2026, 3, 12, h, 0, 0, 0, time.UTC) }

// A chat of 10,000 tasks, each with its create_task audit row, exports
// whole: both files hold every task, well under Telegram's 50 MB, and no
// model is asked. The sizes are logged (docs/design.md §15 quotes them).
func TestExportTenThousandTasks(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Under the race detector seeding and exporting 10,000 tasks takes
	// minutes; 1,500 still stream past the 1 MB upload buffer. The
	// plain run (go test without -race) exports all 10,000.
	n := 10000
	if race.Enabled {
		n = 1500
	}
	var rows []nod.AuditEntry
	h.seedMany(n, func(i int, t *nod.Task) {
		t.Title = fmt.Sprintf("Task %d: call the printer about the invoice", i)
		t.Description = "Ask about the March invoice; they charged twice. Bring the contract number and the delivery note."
		t.Labels = []string{"office", "money"}
		t.CreatedBy = user
		t.Checklist = []nod.ChecklistItem{{ID: nod.ItemID(fmt.Sprintf("k%05d-1", i)), Title: "Find the contract"},
			{ID: nod.ItemID(fmt.Sprintf("k%05d-2", i)), Title: "Call them", Checked: i%2 == 0}}
		if i%10 == 0 {
			at := tomorrowAt(9)
			t.RemindAt, t.RemindBy = &at, user
		}
		args, _ := json.Marshal(map[string]any{"title": t.Title, "labels": t.Labels})
		rows = append(rows, nod.AuditEntry{ChatID: chat, UserID: user, Tool: nod.ToolCreateTask, Args: args, Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "add a task"})
	})
	if err := h.db.Audit().AddAudit(t.Context(), rows...); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.tg.SendText(chat, user, "/export")
	doc, table, docs := h.exportFiles(chat)
	if len(doc.Tasks) != n || len(doc.Reminders) != n/10 || len(doc.Audit) != n || len(table) != n+1 {
		t.Errorf("exported %d tasks, %d reminders, %d audit rows, %d table rows; want %d, %d, %d, %d",
			len(doc.Tasks), len(doc.Reminders), len(doc.Audit), len(table), n, n/10, n, n+1)
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("the export asked the model %d times", n)
	}
	t.Logf("%d tasks: %s is %d KB, %s %d KB", n, docs[0].Name, len(docs[0].Data)>>10, docs[1].Name, len(docs[1].Data)>>10)
}
