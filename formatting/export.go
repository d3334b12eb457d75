package formatting

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/repeat"
)

// ExportFiles is what an export's JSON holds, for its caption: the
// chat's local date (YYYY-MM-DD), whether it is a group member's own part
// and how many of each it holds.
type ExportFiles struct {
	Day    string
	Own    bool
	Counts nod.ExportCounts
}

// ExportTrouble is a file of an export that did not go out, and the
// upload limit in MB.
type ExportTrouble struct {
	File string
	MB   int
}

// ExportFormat is the version of the export's JSON shape, its
// "nod_export" field: a reader can tell which shape it holds.
const ExportFormat = 1

// The files of an export, as /export names them: nod-export-DATE.json and
// nod-tasks-DATE.csv, DATE the chat's local date.
func ExportJSONName(day string) string { return "nod-export-" + day + ".json" }

// ExportCSVName is the file name of an export's table of tasks.
func ExportCSVName(day string) string { return "nod-tasks-" + day + ".csv" }

// utf8BOM starts the CSV: without it Excel reads a CSV file in the
// system's legacy code page (Windows-1252 in Western Europe) and shows
// "StraÃŸe" for "Straße"; LibreOffice, Numbers, Google Sheets and
// Python's "utf-8-sig" read it as the UTF-8 it is.
const utf8BOM = "\ufeff"

// The shapes of the export's JSON, field by field in the order written:
// storage's and the domain's names stay free to change.
type (
	exportSetting struct {
		Mode         nod.Mode     `json:"mode"`
		BreakerUntil *string      `json:"circuit_breaker_until"`
		Language     *string      `json:"language,omitempty"` // the chat's, so only in a private chat's export
		Daily        *exportDaily `json:"daily_review"`
		Rules        []exportRule `json:"rules"`
	}
	exportDaily struct {
		At    string `json:"at"`
		Quiet bool   `json:"quiet"`
	}
	exportRule struct {
		Kind  string  `json:"kind"`
		Since string  `json:"since"`
		Until *string `json:"until"`
	}
	exportCounts struct {
		Tasks     int `json:"tasks"`
		Reminders int `json:"reminders"`
		Audit     int `json:"audit"`
	}
	exportTask struct {
		ID              nod.TaskID      `json:"id"`
		Title           string          `json:"title"`
		Description     string          `json:"description"`
		Status          nod.Status      `json:"status"`
		Priority        nod.Priority    `json:"priority"`
		EstimateMinutes *int            `json:"estimate_minutes"`
		DueDate         *string         `json:"due_date"`
		Labels          []string        `json:"labels"`
		Checklist       []exportItem    `json:"checklist"`
		Reminder        *exportReminder `json:"reminder"`
		CreatedBy       *nod.UserID     `json:"created_by"`
		CreatedAt       string          `json:"created_at"`
		UpdatedAt       string          `json:"updated_at"`
		TrashedAt       *string         `json:"trashed_at"`
	}
	exportItem struct {
		ID        nod.ItemID `json:"id"`
		Title     string     `json:"title"`
		Checked   bool       `json:"checked"`
		CheckedBy nod.Actor  `json:"checked_by"`
		CheckedAt *string    `json:"checked_at"`
	}
	exportReminder struct {
		TaskID nod.TaskID `json:"task_id,omitempty"`
		Task   string     `json:"task,omitempty"`
		Local  string     `json:"local"`
		UTC    string     `json:"utc"`
		Repeat *string    `json:"repeat"` // its rule, an RFC 5545 RRULE as get_task shows it; null: once
		// Clock is the reminder as given in another place's clock, at that
		// place's offset with its zone after it when named (RFC 9557,
		// "…T09:00:00+01:00[Europe/Paris]"): it stays at that moment when
		// the chat's zone changes. Left out for the chat's own clock.
		Clock string      `json:"clock,omitempty"`
		SetBy *nod.UserID `json:"set_by"`
	}
	exportAudit struct {
		ID            int64           `json:"id"`
		Time          string          `json:"time"`
		UserID        nod.UserID      `json:"user_id"`
		Tool          nod.Tool        `json:"tool"`
		Arguments     json.RawMessage `json:"arguments"`
		Outcome       nod.Outcome     `json:"outcome"`
		UserConfirmed bool            `json:"user_confirmed"`
		Verdict       string          `json:"verdict"`
		Reason        string          `json:"reason"`
		Error         string          `json:"error"`
		Redacted      bool            `json:"redacted,omitempty"` // its person was forgotten (/forget)
	}
)

// ExportJSON writes export e as one JSON object: what it is (format, when,
// whose, the zone of its local times), the person's settings and the
// counts, then the tasks, the reminders and the audit rows, one to a line,
// written as the sequences are walked. Times are RFC 3339: moments in
// UTC, a reminder also in the chat's zone (zone), a checklist tick in
// the chat's zone as get_task shows it. Text is exactly as stored.
func ExportJSON(w io.Writer, e nod.Export, zone *time.Location, at time.Time) error {
	s := newJSONStream(w)
	scope := "chat"
	if e.Scope.Own {
		scope = "own"
	}
	s.raw("{")
	s.field("nod_export", ExportFormat)
	s.field("exported_at", utc(at))
	s.field("chat_id", e.Scope.ChatID)
	s.field("user_id", e.Scope.UserID)
	s.field("scope", scope)
	s.field("time_zone", zone.String())
	s.field("settings", exportSettings(e))
	s.field("counts", exportCounts{Tasks: e.Counts.Tasks, Reminders: e.Counts.Reminders, Audit: e.Counts.Audit})
	s.open("tasks")
	for t, err := range e.Tasks {
		if err != nil {
			return err
		}
		if err := s.element(exportTaskOf(t, zone)); err != nil {
			return err
		}
	}
	s.open("reminders")
	for t, err := range e.Reminders {
		if err != nil {
			return err
		}
		if r := reminderOf(t, zone); r != nil {
			r.TaskID, r.Task = t.ID, t.Title
			if err := s.element(r); err != nil {
				return err
			}
		}
	}
	s.open("audit")
	for a, err := range e.Audit {
		if err != nil {
			return err
		}
		args := a.Args
		if !json.Valid(args) {
			args, _ = json.Marshal(string(args)) // kept, as a string
		}
		err = s.element(exportAudit{ID: a.ID, Time: utc(a.At), UserID: a.UserID, Tool: a.Tool, Arguments: args, Outcome: a.Outcome,
			UserConfirmed: a.UserConfirmed, Verdict: a.Verdict, Reason: a.Reason, Error: a.Error, Redacted: a.Redacted})
		if err != nil {
			return err
		}
	}
	s.close()
	s.raw("\n}\n")
	return s.flush()
}

func exportSettings(e nod.Export) exportSetting {
	st := e.Settings
	out := exportSetting{Mode: st.Mode, BreakerUntil: stampUTC(st.BreakerUntil), Rules: []exportRule{}}
	if !e.Scope.Own {
		lang := st.Language
		out.Language = &lang
	}
	if st.Daily != "" {
		out.Daily = &exportDaily{At: st.Daily, Quiet: st.DailyQuiet}
	}
	for _, r := range e.Rules {
		out.Rules = append(out.Rules, exportRule{Kind: r.Kind, Since: utc(r.CreatedAt), Until: stampUTC(r.ExpiresAt)})
	}
	return out
}

func exportTaskOf(t nod.Task, zone *time.Location) exportTask {
	out := exportTask{ID: t.ID, Title: t.Title, Description: t.Description, Status: t.Status, Priority: t.Priority,
		EstimateMinutes: t.EstimateMinutes, Labels: t.Labels, Checklist: []exportItem{}, Reminder: reminderOf(t, zone),
		CreatedAt: utc(t.CreatedAt), UpdatedAt: utc(t.UpdatedAt), TrashedAt: stampUTC(t.DeletedAt)}
	if out.Labels == nil {
		out.Labels = []string{}
	}
	if t.DueDate != "" {
		out.DueDate = &t.DueDate
	}
	if t.CreatedBy != 0 {
		out.CreatedBy = &t.CreatedBy
	}
	for _, it := range t.Checklist {
		item := exportItem{ID: it.ID, Title: it.Title, Checked: it.Checked, CheckedBy: it.CheckedBy.Normalize()}
		if it.CheckedAt != nil {
			at := it.CheckedAt.In(zone).Format(time.RFC3339)
			item.CheckedAt = &at
		}
		out.Checklist = append(out.Checklist, item)
	}
	return out
}

// reminderOf is t's reminder in the chat's zone and in UTC; nil for none.
func reminderOf(t nod.Task, zone *time.Location) *exportReminder {
	if t.RemindAt == nil {
		return nil
	}
	r := &exportReminder{Local: t.RemindAt.In(zone).Format(time.RFC3339), UTC: utc(*t.RemindAt)}
	if t.RemindClock != nil {
		r.Clock = nod.ReminderValue(*t.RemindAt, t.RemindClock)
	}
	if rule := rruleOf(t.Repeat); rule != "" {
		r.Repeat = &rule
	}
	if t.RemindBy != 0 {
		r.SetBy = &t.RemindBy
	}
	return r
}

// rruleOf is a stored repeat rule's RRULE, as get_task shows it; the
// stored text itself if it does not read as one.
func rruleOf(stored string) string {
	if stored == "" {
		return ""
	}
	r, err := repeat.Read(stored)
	if err != nil {
		return stored
	}
	return r.RRULE()
}

func utc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func stampUTC(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := utc(*t)
	return &s
}

// jsonStream writes a JSON object piece by piece through a buffer, its
// fields one to a line and its arrays' elements one to a line, keeping
// the first error: the pieces are nod's own and cannot fail to encode,
// so only the writer can.
type jsonStream struct {
	w      *bufio.Writer
	buf    bytes.Buffer
	enc    *json.Encoder
	fields int  // written so far
	array  bool // an array is open
	empty  bool // and has no element yet
	err    error
}

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{w: bufio.NewWriterSize(w, 64<<10)}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false) // "<b>" in a title reads as typed
	return s
}

func (s *jsonStream) raw(text string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(text)
	}
}

// encode writes v compact, on one line.
func (s *jsonStream) encode(v any) {
	s.buf.Reset()
	if err := s.enc.Encode(v); err != nil && s.err == nil {
		s.err = fmt.Errorf("export json: %w", err)
	}
	if s.err == nil {
		_, s.err = s.w.Write(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
	}
}

// key starts the object's next field, closing an array left open.
func (s *jsonStream) key(name string) {
	s.close()
	if s.fields > 0 {
		s.raw(",")
	}
	s.fields++
	s.raw("\n")
	s.encode(name)
	s.raw(": ")
}

func (s *jsonStream) field(name string, v any) {
	s.key(name)
	s.encode(v)
}

// open starts field name as an array; element adds to it.
func (s *jsonStream) open(name string) {
	s.key(name)
	s.raw("[")
	s.array, s.empty = true, true
}

// element adds v to the open array; it returns the first error so far,
// so that a file whose upload ended stops reading the database.
func (s *jsonStream) element(v any) error {
	if !s.empty {
		s.raw(",")
	}
	s.empty = false
	s.raw("\n")
	s.encode(v)
	return s.err
}

func (s *jsonStream) close() {
	if !s.array {
		return
	}
	if !s.empty {
		s.raw("\n")
	}
	s.raw("]")
	s.array = false
}

func (s *jsonStream) flush() error {
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// exportColumns head the CSV's columns: one row per task. Times are the
// chat's local time (YYYY-MM-DD HH:MM), which spreadsheets read as a
// date and time; reminder_utc is the reminder in UTC.
var exportColumns = []string{"id", "title", "description", "status", "priority", "estimate_minutes", "due_date", "labels",
	"checklist", "reminder_local", "reminder_utc", "reminder_repeat", "created", "updated", "in_trash_since", "created_by"}

// sheetTime is how the CSV writes a moment.
const sheetTime = "2006-01-02 15:04"

// ExportCSV writes export e's tasks as a CSV table (RFC 4180: commas,
// CRLF line ends, fields quoted where they hold a comma, a quote or a
// line break), UTF-8 with a byte order mark, one row per task written as
// the tasks are walked. Labels are one cell, "a, b"; the checklist is
// one cell, an item a line ("[x] title (user, 2026-03-10 10:00)"). A
// cell a spreadsheet would run as a formula (starting with =, +, -, @)
// starts with an apostrophe; the JSON keeps the text exactly.
func ExportCSV(w io.Writer, e nod.Export, zone *time.Location) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString(utf8BOM); err != nil {
		return err
	}
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	if err := cw.Write(exportColumns); err != nil {
		return err
	}
	local := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.In(zone).Format(sheetTime)
	}
	for t, err := range e.Tasks {
		if err != nil {
			return err
		}
		est, utcReminder, by := "", "", ""
		if t.EstimateMinutes != nil {
			est = strconv.Itoa(*t.EstimateMinutes)
		}
		if t.RemindAt != nil {
			utcReminder = t.RemindAt.UTC().Format(sheetTime)
		}
		if t.CreatedBy != 0 {
			by = strconv.FormatInt(int64(t.CreatedBy), 10)
		}
		row := []string{string(t.ID), cell(t.Title), cell(t.Description), string(t.Status), string(t.Priority), est, t.DueDate,
			cell(strings.Join(t.Labels, ", ")), cell(checklistCell(t.Checklist, zone)), local(t.RemindAt), utcReminder, rruleOf(t.Repeat),
			local(&t.CreatedAt), local(&t.UpdatedAt), local(t.DeletedAt), by}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// checklistCell is a checklist as one cell: an item a line, ticked or
// not, with who ticked it and when.
func checklistCell(items []nod.ChecklistItem, zone *time.Location) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		if !it.Checked {
			b.WriteString("[ ] " + it.Title)
			continue
		}
		b.WriteString("[x] " + it.Title + " (" + string(it.CheckedBy.Normalize()))
		if it.CheckedAt != nil {
			b.WriteString(", " + it.CheckedAt.In(zone).Format(sheetTime))
		}
		b.WriteString(")")
	}
	return b.String()
}

// cell guards text a spreadsheet would take for a formula.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
