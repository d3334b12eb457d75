package formatting

import (
	"bytes"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/nodbot/nod"
)

// Button is an inline button: what it says and what it does.
type Button struct {
	Text   string
	Action nod.Action
}

// Message is a rendered message: Telegram HTML and an inline keyboard.
type Message struct {
	HTML     string
	Keyboard [][]Button
}

//go:embed templates/*.tmpl
var templateFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"h":          Escape,
	"date":       FormatDate,
	"minutes":    func(m *int) string { return FormatMinutes(m) },
	"statusName": StatusName,
	"statusIcon": statusIcon,
	"join":       func(ls []string) string { return strings.Join(ls, ", ") },
	"inc":        func(i int) int { return i + 1 },
	"cut": func(s string, n int) string {
		t, left := truncate(s, n)
		if left > 0 {
			t += fmt.Sprintf(" … (%d more characters)", left)
		}
		return t
	},
	"done": func(items []nod.ChecklistItem) int {
		n := 0
		for _, it := range items {
			if it.Checked {
				n++
			}
		}
		return n
	},
	"stamp": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			return v.UTC().Format("2 Jan 2006, 15:04")
		case *time.Time:
			if v != nil {
				return v.UTC().Format("2 Jan 2006, 15:04")
			}
		}
		return "—"
	},
}).ParseFS(templateFS, "templates/*.tmpl"))

// Render executes template name with data. A template that fails to run
// is a programming error caught by the golden tests.
func Render(name string, data any) string {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("formatting: template %s: %v", name, err))
	}
	return strings.TrimSpace(b.String())
}

// Text renders a template with no buttons.
func Text(name string, data any) Message { return Message{HTML: Render(name, data)} }

// FormatDate renders a YYYY-MM-DD date as "15 Mar 2026"; empty is "none".
func FormatDate(d string) string {
	if d == "" {
		return "none"
	}
	t, err := time.Parse(nod.DateLayout, d)
	if err != nil {
		return d
	}
	return t.Format("2 Jan 2006")
}

// FormatMinutes renders an estimate as "2 h", "1 h 30 min", "45 min"; nil
// is "—".
func FormatMinutes(m *int) string {
	if m == nil {
		return "—"
	}
	h, min := *m/60, *m%60
	switch {
	case h == 0:
		return fmt.Sprintf("%d min", min)
	case min == 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, min)
}

// StatusName renders IN_PROGRESS as "In progress".
func StatusName(s nod.Status) string {
	if s == "" {
		return "—"
	}
	l := strings.ToLower(strings.ReplaceAll(string(s), "_", " "))
	return strings.ToUpper(l[:1]) + l[1:]
}

func statusIcon(s nod.Status) string {
	switch s {
	case nod.StatusDone:
		return "✅"
	case nod.StatusInProgress:
		return "🔄"
	case nod.StatusBlocked:
		return "⛔"
	case nod.StatusOnHold:
		return "⏸"
	case nod.StatusRejected:
		return "✖️"
	}
	return "▫️"
}

// scalarValue renders a raw field value as the person reads it.
func scalarValue(f nod.Field, raw string) string {
	switch f {
	case nod.FieldStatus:
		return StatusName(nod.Status(raw))
	case nod.FieldEstimate:
		if raw == "" {
			return "—"
		}
		n, err := strconv.Atoi(raw)
		if err != nil {
			return raw
		}
		return FormatMinutes(&n)
	case nod.FieldDue:
		return FormatDate(raw)
	case nod.FieldLabels:
		if raw == "" {
			return "none"
		}
	}
	return raw
}

var fieldLabels = map[nod.Field]string{
	nod.FieldTitle: "Title", nod.FieldDescription: "Description", nod.FieldStatus: "Status",
	nod.FieldPriority: "Priority", nod.FieldEstimate: "Estimate", nod.FieldDue: "Due", nod.FieldLabels: "Labels",
}

// TaskList renders /tasks: one button per task.
func TaskList(tasks []nod.Task) Message {
	if len(tasks) == 0 {
		return Text("no_tasks", nil)
	}
	m := Message{HTML: Render("task_list", tasks)}
	for _, t := range tasks {
		m.Keyboard = append(m.Keyboard, []Button{{Text: buttonText(statusIcon(t.Status) + " " + t.Title), Action: nod.Action{Kind: nod.ActOpenTask, ID: t.ID}}})
	}
	return m
}

// TaskCard renders a task with its checklist as toggle buttons.
func TaskCard(t nod.Task) Message {
	m := Message{HTML: Render("task_card", t)}
	for _, it := range t.Checklist {
		box := "⬜"
		if it.Checked {
			box = "☑️"
		}
		m.Keyboard = append(m.Keyboard, []Button{{Text: buttonText(box + " " + it.Title), Action: nod.Action{Kind: nod.ActToggle, ID: it.ID}}})
	}
	return m
}

// buttonText keeps a button label readable; Telegram shows about 64.
func buttonText(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
}

// DeleteAsk asks the person to type a task's title to delete it.
func DeleteAsk(d nod.PendingDeletion) Message { return Text("delete_ask", d) }

// Trash lists the trash with a Restore button per task.
func Trash(tasks []nod.Task) Message {
	if len(tasks) == 0 {
		return Text("trash_empty", nil)
	}
	m := Text("trash_list", tasks)
	for _, t := range tasks {
		m.Keyboard = append(m.Keyboard, []Button{{Text: buttonText("♻️ Restore " + t.Title), Action: nod.Action{Kind: nod.ActRestore, ID: t.ID}}})
	}
	return m
}

// WithUndo adds an Undo button for undo entry id to m.
func WithUndo(m Message, id string) Message {
	m.Keyboard = append(m.Keyboard, []Button{{Text: "↩️ Undo", Action: nod.Action{Kind: nod.ActUndo, ID: id}}})
	return m
}

// Audit lists a chat's latest audit entries.
func Audit(entries []nod.AuditEntry) Message {
	if len(entries) == 0 {
		return Text("audit_empty", nil)
	}
	return Text("audit", entries)
}

// UndoStale says an undo was refused because the task changed since, and
// offers to undo anyway.
func UndoStale(u nod.UndoEntry, title string) Message {
	m := Text("undo_stale", map[string]string{"Title": title, "Summary": u.Summary})
	m.Keyboard = [][]Button{{{Text: "↩️ Undo anyway", Action: nod.Action{Kind: nod.ActUndoForce, ID: u.ID}}}}
	return m
}

// Notice renders a short notice, the text of a callback answer: plain
// text, at most 200 characters.
func Notice(name string, data any) string {
	s := PlainText(Render(name, data))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}
