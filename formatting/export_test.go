package formatting_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/golden"
	"github.com/nodbot/nod/formatting"
)

// seq is a sequence of values, as storage walks the database.
func seq[T any](vs ...T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for _, v := range vs {
			if !yield(v, nil) {
				return
			}
		}
	}
}

// tricky is a title as people and models write them: commas, quotes, a
// line break, HTML.
const tricky = "Call \"Bob\", then <b>ship</b> & tell <i>everyone</i>\nsecond line"

func exportFixture() nod.Export {
	created := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	ticked := time.Date(2026, 11, 21, 17, 5, 0, 0, time.UTC)
	remind := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	breaker := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	expires := created.AddDate(0, 0, 30)
	est := 90
	tasks := []nod.Task{
		{ID: "T1", Title: tricky, Description: "- first\n- second", Status: nod.StatusInProgress, Priority: nod.P1, EstimateMinutes: &est,
			DueDate: "2026-12-01", Labels: []string{"backend", "bug"}, RemindAt: &remind, RemindBy: 42, Repeat: "DTSTART:20261130T090000\nRRULE:FREQ=WEEKLY;BYDAY=MO", CreatedBy: 42, CreatedAt: created, UpdatedAt: ticked,
			Checklist: []nod.ChecklistItem{
				{ID: "c1", Title: "Write tests", CheckedBy: nod.ActorUser},
				{ID: "c2", Title: "Update, \"docs\"", Checked: true, CheckedBy: nod.ActorAgent, CheckedAt: &ticked},
			}},
		{ID: "T2", Title: "=HYPERLINK(\"http://x\")", Status: nod.StatusOpen, Priority: nod.P2, CreatedAt: created, UpdatedAt: created, DeletedAt: &ticked},
	}
	return nod.Export{
		Scope:     nod.ExportScope{ChatID: 100, UserID: 42},
		Settings:  nod.ChatSettings{Mode: nod.ModeSmart, BreakerUntil: &breaker, Language: "de", TimeZone: "Europe/Berlin", Daily: "08:00"},
		Rules:     []nod.Rule{{Kind: "set_task_priority=P1", Status: nod.RuleActive, CreatedAt: created, ExpiresAt: &expires}},
		Counts:    nod.ExportCounts{Tasks: 2, Reminders: 1, Audit: 2},
		Tasks:     seq(tasks...),
		Reminders: seq(tasks[0]),
		Audit: seq(
			nod.AuditEntry{ID: 1, UserID: 42, Tool: nod.ToolCreateTask, Args: []byte(`{"title":"Call \"Bob\""}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "add a task", At: created},
			nod.AuditEntry{ID: 2, UserID: 42, Tool: nod.ToolExport, Args: []byte(`not json`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: ticked},
		),
	}
}

// The export's JSON holds every field as stored, its times in UTC and the
// chat's zone; its CSV opens in a spreadsheet with the same text in its
// cells. Both are golden.
func TestExportFiles(t *testing.T) {
	zone, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	var js, table bytes.Buffer
	if err := formatting.ExportJSON(&js, exportFixture(), zone, at); err != nil {
		t.Fatal(err)
	}
	if err := formatting.ExportCSV(&table, exportFixture(), zone); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "export", "/export's two files from one export: a task with a tricky title, a checklist, a reminder; a trashed task whose title is a formula",
		golden.Section{Name: "json", Data: js.String()}, golden.Section{Name: "csv", Data: table.String()})

	var doc struct {
		Scope    string `json:"scope"`
		Settings struct {
			Language *string `json:"language"`
		} `json:"settings"`
		Tasks []struct {
			Title     string `json:"title"`
			Checklist []struct {
				CheckedBy string  `json:"checked_by"`
				CheckedAt *string `json:"checked_at"`
			} `json:"checklist"`
			Reminder *struct{ Local, UTC string } `json:"reminder"`
		} `json:"tasks"`
		Reminders []struct{ Local, UTC string } `json:"reminders"`
		Audit     []struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"audit"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("the JSON does not parse: %v", err)
	}
	if doc.Scope != "chat" || doc.Settings.Language == nil || len(doc.Tasks) != 2 || doc.Tasks[0].Title != tricky {
		t.Errorf("JSON: scope %q, language %v, %d tasks, first %q", doc.Scope, doc.Settings.Language, len(doc.Tasks), doc.Tasks[0].Title)
	}
	if r := doc.Tasks[0].Reminder; r == nil || r.Local != "2026-11-30T09:00:00+01:00" || r.UTC != "2026-11-30T08:00:00Z" || len(doc.Reminders) != 1 {
		t.Errorf("the reminder reads %+v, listed %d times; want 09:00 in Berlin, 08:00 UTC, once", r, len(doc.Reminders))
	}
	if c := doc.Tasks[0].Checklist[1]; c.CheckedBy != "agent" || c.CheckedAt == nil || *c.CheckedAt != "2026-11-21T18:05:00+01:00" {
		t.Errorf("who ticked the item: %+v", c)
	}
	if string(doc.Audit[1].Arguments) != `"not json"` {
		t.Errorf("arguments that are not JSON read %s, want them kept as a string", doc.Audit[1].Arguments)
	}

	text := table.String()
	if !strings.HasPrefix(text, "\ufeffid,title,") || !strings.Contains(text, "\r\n") {
		t.Errorf("the CSV does not start with a byte order mark and its header, or has no CRLF: %q", text[:min(len(text), 40)])
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(text, "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	want := [][]string{
		{"T1", tricky, "'- first\n- second", "IN_PROGRESS", "P1", "90", "2026-12-01", "backend, bug",
			"[ ] Write tests\n[x] Update, \"docs\" (agent, 2026-11-21 18:05)", "2026-11-30 09:00", "2026-11-30 08:00", "FREQ=WEEKLY;BYDAY=MO", "2026-11-20 09:30", "2026-11-21 18:05", "", "42"},
		{"T2", "'=HYPERLINK(\"http://x\")", "", "OPEN", "P2", "", "", "", "", "", "", "", "2026-11-20 09:30", "2026-11-20 09:30", "2026-11-21 18:05", ""},
	}
	if diff := cmp.Diff(want, rows[1:]); diff != "" || len(rows[0]) != len(want[0]) {
		t.Errorf("CSV rows (-want +got):\n%s", diff)
	}
}

// A reminder given in another place's clock is exported with that
// clock, its place named, in the task and in the reminders' list; one of
// the chat's own clock has none.
func TestExportKeepsTheReminderClock(t *testing.T) {
	at := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	tasks := []nod.Task{
		{ID: "T1", Title: "Call the Paris office", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &at, RemindClock: &nod.Clock{Offset: 3600, Zone: "Europe/Paris"}, CreatedAt: at, UpdatedAt: at},
		{ID: "T2", Title: "Take the meds", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &at, CreatedAt: at, UpdatedAt: at},
	}
	e := nod.Export{Scope: nod.ExportScope{ChatID: 100, UserID: 42}, Counts: nod.ExportCounts{Tasks: 2, Reminders: 2},
		Tasks: seq(tasks...), Reminders: seq(tasks...), Audit: seq[nod.AuditEntry]()}
	var js bytes.Buffer
	if err := formatting.ExportJSON(&js, e, time.UTC, at); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tasks []struct {
			Reminder struct{ Clock *string } `json:"reminder"`
		} `json:"tasks"`
		Reminders []struct{ Clock *string } `json:"reminders"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	const want = "2026-12-03T09:00:00+01:00[Europe/Paris]"
	for _, got := range [][2]*string{{doc.Tasks[0].Reminder.Clock, doc.Tasks[1].Reminder.Clock}, {doc.Reminders[0].Clock, doc.Reminders[1].Clock}} {
		if got[0] == nil || *got[0] != want || got[1] != nil {
			t.Errorf("clocks exported %v, %v; want %q for the Paris call and none for the meds", got[0], got[1], want)
		}
	}
}

// A failed read ends the file with the read's error, not a file that
// looks whole.
func TestExportReadFails(t *testing.T) {
	broken := errors.New("disk on fire")
	e := exportFixture()
	e.Tasks = func(yield func(nod.Task, error) bool) { yield(nod.Task{}, broken) }
	for name, write := range map[string]func() error{
		"json": func() error { return formatting.ExportJSON(&bytes.Buffer{}, e, time.UTC, time.Now()) },
		"csv":  func() error { return formatting.ExportCSV(&bytes.Buffer{}, e, time.UTC) },
	} {
		if err := write(); !errors.Is(err, broken) {
			t.Errorf("%s: %v, want the read's error", name, err)
		}
	}
}
