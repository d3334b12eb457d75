package formatting_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/golden"
	"github.com/nodbot/nod/formatting"
)

func render(m formatting.Message) []golden.Section {
	var buttons []string
	for _, row := range m.Keyboard {
		var r []string
		for _, b := range row {
			r = append(r, fmt.Sprintf("[%s → %d %s %d]", b.Text, b.Action.Kind, b.Action.ID, b.Action.N))
		}
		buttons = append(buttons, strings.Join(r, " "))
	}
	return []golden.Section{
		{Name: "text", Data: formatting.PlainText(m.HTML)},
		{Name: "html", Data: m.HTML},
		{Name: "buttons", Data: strings.Join(buttons, "\n")},
	}
}

// checkValid fails unless m is what Telegram accepts: balanced tags of
// the supported set, escaped text, within the length limit.
func checkValid(t *testing.T, name string, m formatting.Message) {
	t.Helper()
	if n := formatting.VisibleLen(m.HTML); n > formatting.MaxLen || n == 0 {
		t.Errorf("%s: %d visible characters", name, n)
	}
	if err := validHTML(m.HTML); err != "" {
		t.Errorf("%s: invalid HTML: %s", name, err)
	}
	if !utf8.ValidString(m.HTML) {
		t.Errorf("%s: invalid UTF-8", name)
	}
	if n := len(slices.Concat(m.Keyboard...)); n > formatting.MaxButtons {
		t.Errorf("%s: %d buttons", name, n)
	}
}

var allowed = map[string]bool{"b": true, "i": true, "s": true, "u": true, "code": true, "pre": true, "blockquote": true}

func validHTML(s string) string {
	var stack []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return "unclosed <"
			}
			tag := s[i+1 : i+end]
			i += end
			if strings.HasPrefix(tag, "/") {
				if len(stack) == 0 || stack[len(stack)-1] != tag[1:] {
					return "unbalanced </" + tag[1:] + ">"
				}
				stack = stack[:len(stack)-1]
			} else {
				if !allowed[tag] {
					return "tag <" + tag + ">"
				}
				stack = append(stack, tag)
			}
		case '>':
			return "bare >"
		case '&':
			ok := false
			for _, e := range []string{"&amp;", "&lt;", "&gt;", "&quot;"} {
				if strings.HasPrefix(s[i:], e) {
					ok = true
				}
			}
			if !ok {
				return "bare &"
			}
		}
	}
	if len(stack) > 0 {
		return "unclosed <" + stack[len(stack)-1] + ">"
	}
	return ""
}

func est(n int) *int { return &n }

var en = formatting.For("en")

var (
	// remindToday and remindLater are reminders on 15 March 2026 (CET).
	remindToday = time.Date(2026, 3, 15, 8, 30, 0, 0, time.UTC)
	remindLater = time.Date(2026, 3, 15, 16, 0, 0, 0, time.UTC)
	// remindEarly is a repeating reminder's time that day, marked done;
	// remindTomorrow its next.
	remindEarly    = time.Date(2026, 3, 15, 6, 0, 0, 0, time.UTC)
	remindTomorrow = time.Date(2026, 3, 16, 6, 0, 0, 0, time.UTC)
	at             = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	t1             = nod.Task{
		ID: "T1", Title: "Fix login bug", Description: "Users are logged out after 5 minutes.",
		Status: nod.StatusInProgress, Priority: nod.P3, EstimateMinutes: est(120), DueDate: "2026-03-15",
		Labels: []string{"backend", "bug"},
		Checklist: []nod.ChecklistItem{
			{ID: "c1", Title: "Write tests", CheckedBy: nod.ActorUser},
			{ID: "c2", Title: "Update docs", Checked: true, CheckedBy: nod.ActorAgent, CheckedAt: &at},
		},
	}
	titles = map[nod.TaskID]string{"T1": "Fix login bug", "T2": "Update README"}
	// binsSent is a weekly reminder (Mondays, 07:00) whose time, Monday
	// the 9th, went out and was not ticked off by the 15th.
	binsSent = nod.Task{ID: "T6", Title: "Müll rausbringen", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &binsEarlier, RemindBy: 7,
		Repeat: "DTSTART:20260302T070000\nRRULE:FREQ=WEEKLY;BYDAY=MO"}
	binsEarlier = time.Date(2026, 3, 9, 7, 0, 0, 0, time.UTC)
)

func item(n int, tool nod.Tool, task string, f nod.Field, summary, before, after string) nod.ChangeItem {
	return nod.ChangeItem{ID: fmt.Sprintf("i%d", n), N: n, Tool: tool, TaskID: nod.TaskID(task), Summary: summary, Field: f, Before: before, After: after, Status: nod.ItemPending}
}

// because is it with the model's reason beside its call.
func because(it nod.ChangeItem, why string) nod.ChangeItem {
	it.Why = why
	return it
}

func TestChangeSetGolden(t *testing.T) {
	overrideAt := time.Date(2026, 3, 9, 18, 30, 0, 0, time.UTC)
	fifteen := 15
	scalars := []nod.ChangeItem{
		item(1, "set_task_priority", "T1", nod.FieldPriority, "Set priority to P1", "P3", "P1"),
		item(2, "update_task_estimate", "T1", nod.FieldEstimate, "Set estimate to 90 minutes", "120", "90"),
		item(3, "update_task_estimate", "T2", nod.FieldEstimate, "Set estimate to 120 minutes", "", "120"),
		item(4, "update_task_due_date", "T1", nod.FieldDue, "Set due date to 2026-03-20", "2026-03-15", "2026-03-20"),
		item(5, "update_task_due_date", "T2", nod.FieldDue, "Set due date to 2026-03-31", "", "2026-03-31"),
		item(6, "set_task_status", "T1", nod.FieldStatus, "Set status to DONE", "IN_PROGRESS", "DONE"),
		item(7, "assign_task_labels", "T1", nod.FieldLabels, "Set labels to auth, backend, bug", `["backend","bug"]`, `["auth","backend","bug"]`),
	}
	huge := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 400)
	resolved := []nod.ChangeItem{
		item(1, "set_task_priority", "T1", nod.FieldPriority, "Set priority to P1", "P3", "P1"),
		item(2, "set_task_title", "T1", nod.FieldTitle, `Set title to "Fix login redirect bug"`, "Fix login bug", "Fix login redirect bug"),
		item(3, "add_checklist_item", "T1", nod.FieldChecklist, `Add: "Load test"`, "", "Load test"),
	}
	resolved[0].Status, resolved[0].UndoID = nod.ItemConfirmed, "u1"
	resolved[1].Status = nod.ItemRejected
	resolved[2].Status, resolved[2].Note = nod.ItemStale, nod.Note{Key: nod.NoteAlready}
	partly := slices.Clone(resolved)
	partly[1].Status, partly[1].UndoID = nod.ItemConfirmed, "u2"
	// Closed by the person's edit and a newer proposal: nobody decided it.
	withdrawn := append([]nod.ChangeItem(nil), resolved...)
	withdrawn[0].Status, withdrawn[0].UndoID, withdrawn[0].Note = nod.ItemStale, "", nod.Note{Key: nod.NoteSuperseded}
	withdrawn[1].Status, withdrawn[1].Note = nod.ItemStale, nod.Note{Key: nod.NoteWithdrawn}
	withdrawn[2].Note = nod.Note{Key: nod.NoteWithdrawn}
	partial := append([]nod.ChangeItem(nil), resolved...)
	partial[1].Status, partial[2].Status, partial[2].Note = nod.ItemPending, nod.ItemPending, nod.Note{}

	cases := []struct {
		name string
		v    formatting.ChangeSetView
	}{
		{"scalar", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: scalars}, Titles: titles}},
		{"one_item", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: scalars[:1]}, Titles: titles}},
		// docs/design.md §3.5: a label set says what it takes away.
		{"labels_removed", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			item(1, "assign_task_labels", "T1", nod.FieldLabels, "Remove label bug", `["backend","bug"]`, `["backend"]`),
			item(2, "assign_task_labels", "T2", nod.FieldLabels, "Remove all labels", `["Blog","launch"]`, `[]`),
		}}, Titles: titles}},
		{"content", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			item(1, "update_task_description", "T1", nod.FieldDescription, "Update the description", "Users are logged out after 5 minutes.", "Users are logged out after 30 minutes."),
			item(2, "update_task_description", "T2", nod.FieldDescription, "Update the description", "", "Explain setup and badges."),
			item(3, "set_task_title", "T1", nod.FieldTitle, `Set title to "Fix <b>login</b> & SSO"`, "Fix login bug", "Fix <b>login</b> & SSO"),
		}}, Titles: titles}},
		{"unicode", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			item(1, "update_task_description", "T1", nod.FieldDescription, "Update the description", "Café 🚀 launch 東京 plan; naïve e\u0301", "Café 🚀🚀 launch 大阪 plan; naïve é"),
		}}, Titles: titles}},
		{"huge", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			item(1, "update_task_description", "T1", nod.FieldDescription, "Update the description", huge, huge+" Added at the end."),
			item(2, "update_task_description", "T2", nod.FieldDescription, "Update the description", "", huge),
		}}, Titles: titles}},
		{"long_middle", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			item(1, "update_task_description", "T1", nod.FieldDescription, "Update the description",
				longText("session cookie", "logged out"), longText("session token", "signed out")),
		}}, Titles: titles}},
		{"create", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			{ID: "i1", N: 1, Tool: "create_task", Summary: `Create task "Buy milk"`, Field: nod.FieldTask, After: "Buy milk", Status: nod.ItemPending,
				NewTask: &nod.Task{Title: "Buy milk", Priority: nod.P1, DueDate: "2026-03-20", EstimateMinutes: &fifteen, Labels: []string{"home"}, Description: "2 litres"}},
		}}, Titles: titles}},
		// Two new tasks: each under a heading of its own.
		{"create_two", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			{ID: "i1", N: 1, Tool: "create_task", Field: nod.FieldTask, After: "Fix the export", Status: nod.ItemPending, NewTask: &nod.Task{Title: "Fix the export", Priority: nod.P2}},
			{ID: "i2", N: 2, Tool: "create_task", Field: nod.FieldTask, After: "Fix the import", Status: nod.ItemPending, NewTask: &nod.Task{Title: "Fix the import", Priority: nod.P2}},
		}}, Titles: titles}},
		// A new task that exists: its heading is its title, no longer "New task".
		{"create_applied", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetResolved, Items: []nod.ChangeItem{
			{ID: "i1", N: 1, Tool: "create_task", Field: nod.FieldTask, After: "Fix the export", Status: nod.ItemConfirmed, UndoID: "u1", NewTask: &nod.Task{Title: "Fix the export", Priority: nod.P2}},
		}}, Titles: titles, Undoable: map[nod.UndoID]bool{"u1": true}}},
		// A priority is shown when the call named it, P2 too; the P2 every
		// task gets when none is named (above) is not.
		{"create_named_p2", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			{ID: "i1", N: 1, Tool: "create_task", Field: nod.FieldTask, After: "Fix the export", Status: nod.ItemPending, Args: []byte(`{"title":"Fix the export","priority":"P2"}`),
				NewTask: &nod.Task{Title: "Fix the export", Priority: nod.P2, Labels: []string{"bug"}}},
		}}, Titles: titles}},
		{"partial", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPartiallyResolved, Items: partial}, Titles: titles, Undoable: map[nod.UndoID]bool{"u1": true}}},
		{"resolved", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetResolved, Items: resolved}, Titles: titles, Undoable: map[nod.UndoID]bool{"u1": true}}},
		{"withdrawn", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetResolved, Items: withdrawn}, Titles: titles}},
		// Applied, then taken back: it shows so, and does not count as applied.
		{"resolved_undone", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetResolved, Items: resolved}, Titles: titles, Undone: map[nod.UndoID]bool{"u1": true}}},
		// Two applied, one of them undone since: the footer counts both.
		{"resolved_partly_undone", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetResolved, Items: partly}, Titles: titles, Undone: map[nod.UndoID]bool{"u1": true}}},
		{"review_grouped", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", Status: nod.SetPending, Items: []nod.ChangeItem{
			item(1, "set_task_priority", "T1", nod.FieldPriority, "Set priority to P1", "P3", "P1"),
			item(2, "update_task_due_date", "T2", nod.FieldDue, "Set due date to 2026-03-31", "", "2026-03-31"),
			item(3, "add_checklist_item", "T1", nod.FieldChecklist, `Add: "Load test"`, "", "Load test"),
		}}, Titles: titles}},
		{"group_pending", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: scalars[:2]}, Titles: titles, Who: "Alice"}},
		{"override", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			{N: 1, Tool: "update_checklist_item", TaskID: "T1", Field: nod.FieldChecklist, Summary: `Tick: "Order the <cake>"`, Reason: "Bob ordered it",
				ItemBefore: &nod.ChecklistItem{ID: "c1", Title: "Order the <cake>", CheckedBy: nod.ActorUser},
				ItemAfter:  &nod.ChecklistItem{ID: "c1", Title: "Order the <cake>", Checked: true, CheckedBy: nod.ActorAgent}},
			{N: 2, Tool: "update_checklist_item", TaskID: "T1", Field: nod.FieldChecklist, Summary: `Untick: "Book the table"`, Reason: "the restaurant cancelled",
				ItemBefore: &nod.ChecklistItem{ID: "c2", Title: "Book the table", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &overrideAt},
				ItemAfter:  &nod.ChecklistItem{ID: "c2", Title: "Book the table", CheckedBy: nod.ActorAgent}},
		}}, Titles: titles}},
		// The model's reason beside its calls: once under the last item it
		// was given for, escaped.
		{"why", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			{N: 1, Tool: "set_task_priority", TaskID: "T1", Field: nod.FieldPriority, Summary: "Set priority to P1", Before: "P3", After: "P1", Why: "Slides are due <Tuesday>."},
			{N: 2, Tool: "update_task_due_date", TaskID: "T2", Field: nod.FieldDue, Summary: "Set due date to 2026-03-31", After: "2026-03-31", Why: "Launch moved; both follow it."},
			{N: 3, Tool: "set_task_priority", TaskID: "T2", Field: nod.FieldPriority, Summary: "Set priority to P1", Before: "P2", After: "P1", Why: "Launch moved; both follow it."},
		}}, Titles: titles}},
		// One reason for items of several tasks names them, so that it
		// does not read as the last task's alone.
		{"why_across", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: []nod.ChangeItem{
			because(item(1, "assign_task_labels", "T1", nod.FieldLabels, "Set labels to design", `[]`, `["design"]`), "Login: design; README: billing."),
			because(item(2, "assign_task_labels", "T2", nod.FieldLabels, "Set labels to billing", `[]`, `["billing"]`), "Login: design; README: billing."),
			{N: 3, Tool: "set_task_priority", TaskID: "T2", Field: nod.FieldPriority, Summary: "Set priority to P1", Before: "P2", After: "P1", Why: "It is overdue."},
		}}, Titles: titles}},
		{"expired", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetExpired, Items: scalars[:2]}, Titles: titles}},
		{"warned", formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s1", UserID: 42, Status: nod.SetPending, Items: scalars[:2], Warned: true,
			ExpiresAt: time.Date(2026, 3, 18, 10, 0, 0, 0, time.UTC)}, Titles: titles, KeepDays: 7}},
	}
	for _, lang := range formatting.Languages() {
		loc := formatting.For(lang)
		for _, c := range cases {
			t.Run(lang+"/"+c.name, func(t *testing.T) {
				m := loc.Changes().ChangeSet(c.v)
				checkValid(t, c.name, m)
				golden.Check(t, lang+"/changeset/"+c.name, "formatting.ChangeSet: "+c.name, render(m)...)
			})
		}
	}
}

// Scalar changes read as one line each (docs/design.md §7).
func TestScalarLines(t *testing.T) {
	m := en.Changes().ChangeSet(formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s", UserID: 1, Status: nod.SetPending, Items: []nod.ChangeItem{
		item(1, "set_task_priority", "T1", nod.FieldPriority, "", "P3", "P1"),
		item(2, "update_task_estimate", "T1", nod.FieldEstimate, "", "120", "90"),
		item(3, "update_task_estimate", "T2", nod.FieldEstimate, "", "", "120"),
		item(4, "update_task_due_date", "T1", nod.FieldDue, "", "2026-03-15", "2026-03-20"),
		item(5, "update_task_due_date", "T2", nod.FieldDue, "", "", "2026-03-31"),
		item(6, "set_task_status", "T1", nod.FieldStatus, "", "IN_PROGRESS", "DONE"),
		item(7, "assign_task_labels", "T1", nod.FieldLabels, "", "backend, bug", "auth, backend, bug"),
	}}, Titles: titles})
	text := formatting.PlainText(m.HTML)
	for _, want := range []string{"Priority: P3 → P1", "Estimate: 2 h → 1 h 30 min", "Estimate: — → 2 h", "Due: 15 Mar 2026 → 20 Mar 2026",
		"Due: none → 31 Mar 2026", "Status: In progress → Done", "Labels: backend, bug → auth, backend, bug"} {
		if !strings.Contains(text, want) {
			t.Errorf("change set lacks %q", want)
		}
	}
}

// Only the changed word is marked.
func TestContentDiffMarksChangedWords(t *testing.T) {
	got := en.Changes().ContentDiff("Users are logged out after 5 minutes.", "Users are logged out after 30 minutes.", 1000)
	want := "Before: Users are logged out after <s>5</s> minutes.\nAfter: Users are logged out after <b>30</b> minutes."
	if got != want {
		t.Errorf("ContentDiff = %q, want %q", got, want)
	}
}

// Buttons of one- and three-item sets; callback-relevant ids stay short.
func TestChangeSetButtons(t *testing.T) {
	one := en.Changes().ChangeSet(formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s", UserID: 1, Status: nod.SetPending, Items: []nod.ChangeItem{
		item(1, "set_task_priority", "T1", nod.FieldPriority, "", "P3", "P1")}}, Titles: titles})
	if got := texts(one); strings.Join(got, "|") != "✓ 1|✗ 1" {
		t.Errorf("one-item buttons = %v", got)
	}
	var items []nod.ChangeItem
	for n := 1; n <= 10; n++ {
		items = append(items, item(n, "add_checklist_item", "T1", nod.FieldChecklist, fmt.Sprintf("Add: %q", fmt.Sprint("Step ", n)), "", ""))
	}
	ten := en.Changes().ChangeSet(formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s", UserID: 1, Status: nod.SetPending, Items: items}, Titles: titles})
	got := texts(ten)
	if len(got) != 22 || got[20] != "✓ All" || got[21] != "✗ All" || got[18] != "✓ 10" {
		t.Errorf("ten-item buttons = %v", got)
	}
	for _, b := range got {
		if strings.HasPrefix(b, "✓ 1") && len(b) > len("✓ 1") && b[len("✓ 1")] >= '0' && b[len("✓ 1")] <= '9' && b != "✓ 10" {
			t.Errorf("button %q: a digit follows ✓ n", b)
		}
	}
}

func texts(m formatting.Message) []string {
	var out []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			out = append(out, b.Text)
		}
	}
	return out
}

// messageCases are the messages golden files hold for every language.
func messageCases(loc *formatting.Locale) map[string]formatting.Message {
	ten := 10
	until := time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC)
	rule := nod.Rule{ID: "r1", Kind: "set_task_priority=P1", Status: nod.RuleActive, ExpiresAt: &until}
	return map[string]formatting.Message{
		"start": loc.Text(formatting.Start), "help": loc.Text(formatting.Help), "refusal": loc.Text(formatting.Refusal.With(666)),
		"model_error": loc.Text(formatting.ModelError.With(0)), "internal_error": loc.Text(formatting.InternalError.With(0)),
		"model_error_after_one": loc.Text(formatting.ModelError.With(1)), "internal_error_after_two": loc.Text(formatting.InternalError.With(2)),
		"turn_timeout": loc.Text(formatting.TurnTimeout.With(0)), "receipts_late": loc.Text(formatting.ReceiptsLate), "answer_late": loc.Text(formatting.AnswerLate.With("make the <login> bug P1")),
		"answered_mixed":    loc.Text(formatting.Answered.With(formatting.Tally{Applied: 2, Rejected: 1, Pending: 3})),
		"answered_one":      loc.Text(formatting.Answered.With(formatting.Tally{Applied: 1, Rejected: 0, Pending: 0})),
		"answered_rejected": loc.Text(formatting.Answered.With(formatting.Tally{Applied: 0, Rejected: 2, Pending: 0})),
		"answer_unknown":    loc.Text(formatting.AnswerUnknown.With(formatting.NoSuchItem{N: 12, Total: 6})),
		"reason_too_long":   loc.Text(formatting.ReasonTooLong.With(formatting.Overlong{Len: 539, Max: nod.MaxReasonLen})),
		"delete_again":      loc.Text(formatting.DeleteAgain.With("Fix <login> bug")), "delete_yes_cancelled": loc.Text(formatting.DeleteYesCancelled.With("Fix <login> bug")), "delete_cancelled": loc.Text(formatting.DeleteCancelled.With("Fix <login> bug")), "turn_timeout_after_one": loc.Text(formatting.TurnTimeout.With(1)),
		"forget_ask": loc.Text(formatting.ForgetAsk.With(formatting.ForgetScope{Wait: &ten,
			PersonData: nod.PersonData{Tasks: 12, Messages: 1480, Proposals: 7, Rules: 1, Reminders: 3, Groups: 2, GroupTasks: 40, AuditRows: 2061}})),
		"forget_ask_alone": loc.Text(formatting.ForgetAsk.With(formatting.ForgetScope{Wait: &ten, PersonData: nod.PersonData{Tasks: 1, Messages: 1, Proposals: 1, AuditRows: 1}})),
		"forget_ask_one_group": loc.Text(formatting.ForgetAsk.With(formatting.ForgetScope{Wait: &ten,
			PersonData: nod.PersonData{Messages: 4, Proposals: 1, Rules: 1, Reminders: 1, Groups: 1, GroupTasks: 1, AuditRows: 3}})),
		"forget_group":     loc.Text(formatting.ForgetGroup),
		"forgotten":        loc.Text(formatting.Forgotten.With(nod.PersonData{Tasks: 12, Messages: 1480, Proposals: 7, Rules: 1, Reminders: 3, Groups: 2, GroupTasks: 40, AuditRows: 2061})),
		"forgotten_alone":  loc.Text(formatting.Forgotten.With(nod.PersonData{Tasks: 1, Messages: 1, Proposals: 1, Rules: 1, AuditRows: 1})),
		"forget_cancelled": loc.Text(formatting.ForgetCancelled), "forget_prompt_done": loc.Text(formatting.ForgetPromptDone),
		"forget_prompt_cancelled": loc.Text(formatting.ForgetPromptCancelled), "forget_prompt_expired": loc.Text(formatting.ForgetPromptExpired),
		"redone":             loc.Undo().Redone(nod.UndoEntry{ID: "u3", Summary: "Set priority to P1 <now>", Title: "Fix <login> bug"}),
		"receipt_undone":     loc.Undo().ReceiptUndone(nod.UndoEntry{ID: "u3", Summary: "Set priority to P1", Title: "Fix <login> bug"}),
		"restored":           loc.Text(formatting.Restored.With(formatting.RestoredTask{Title: "Fix <login> bug", Checklist: 0})),
		"restored_checklist": loc.Text(formatting.Restored.With(formatting.RestoredTask{Title: "Fix <login> bug", Checklist: 3})),
		"undone_deletion": loc.Undo().Undone(nod.UndoEntry{ID: "u3", Tool: "delete_task", Summary: `Delete "Fix <login> bug"`, Title: "Fix <login> bug",
			Change: nod.Change{TaskID: "T1", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: nod.TrashedValue, After: ""}}}}),
		"receipt_undone_deletion": loc.Undo().ReceiptUndone(nod.UndoEntry{ID: "u3", Tool: "delete_task", Summary: `Delete "Fix <login> bug"`, Title: "Fix <login> bug",
			Change: nod.Change{TaskID: "T1", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: nod.TrashedValue, After: ""}}}}),
		"undone_restore": loc.Undo().Undone(nod.UndoEntry{ID: "u4", Tool: "restore_task", Summary: `Restore "Fix <login> bug"`, Title: "Fix <login> bug",
			Change: nod.Change{TaskID: "T1", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: "", After: nod.TrashedValue}}}}),
		"undone_created": loc.Undo().Undone(nod.UndoEntry{ID: "u5", Tool: "create_task", Summary: `Create task "Buy <milk>"`, Title: "Buy <milk>",
			Change: nod.Change{TaskID: "T5", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: "", After: nod.TrashedValue}}}}),
		"undone_priority_redone": loc.Undo().UndoneRedone(nod.UndoEntry{ID: "u6", Tool: "set_task_priority", Summary: "Set priority to P1", Title: "Renew passport",
			Change: nod.Change{TaskID: "T6", Fields: []nod.FieldChange{{Field: nod.FieldPriority, Before: "P1", After: "P2"}}}}),
		"redone_created_twin": loc.Tasks().BackTwin(loc.Undo().Redone(nod.UndoEntry{ID: "u7", Tool: "create_task", Summary: `Create task "Call <the> bank"`, Title: "Call <the> bank",
			Change: nod.Change{TaskID: "T7", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: nod.TrashedValue, After: ""}}}}), "Call <the> bank"),
		"undone_created_redone": loc.Undo().UndoneRedone(nod.UndoEntry{ID: "u5", Tool: "create_task", Summary: `Create task "Buy <milk>"`, Title: "Buy <milk>",
			Change: nod.Change{TaskID: "T5", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: "", After: nod.TrashedValue}}}}),
		"receipt_undone_created": loc.Undo().ReceiptUndone(nod.UndoEntry{ID: "u5", Tool: "create_task", Summary: `Create task "Buy <milk>"`, Title: "Buy <milk>",
			Change: nod.Change{TaskID: "T5", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: "", After: nod.TrashedValue}}}}),
		"receipt_undone_named": loc.Undo().ReceiptUndone(nod.UndoEntry{ID: "u3", Summary: `Delete "Fix <login> bug"`, Title: "Fix <login> bug"}),
		"reading": loc.Changes().Reading(nod.Reading{ID: "r1", SetID: "s1", Confirm: []int{1}, Reject: []int{2}, Reason: "not <now>"}, nod.ChangeSet{ID: "s1", Items: []nod.ChangeItem{
			{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1", Status: nod.ItemPending},
			{N: 2, Tool: "update_task_due_date", Summary: "Set due date to 2026-03-20", Field: nod.FieldDue, Before: "2026-03-15", After: "2026-03-20", Status: nod.ItemPending}}}),
		// Items the step's own changes overtook are not offered again.
		"reading_some_gone": loc.Changes().Reading(nod.Reading{ID: "r1", SetID: "s1", Reject: []int{1, 2, 3}}, nod.ChangeSet{ID: "s1", Items: []nod.ChangeItem{
			{N: 1, Tool: "assign_task_labels", Summary: "Set labels to errands", Field: nod.FieldLabels, After: "errands", Status: nod.ItemStale},
			{N: 2, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1", Status: nod.ItemPending},
			{N: 3, Tool: "assign_task_labels", Summary: "Set labels to admin", Field: nod.FieldLabels, After: "admin", Status: nod.ItemStale}}}),
		"reading_all_gone": loc.Changes().Reading(nod.Reading{ID: "r1", SetID: "s1", Reject: []int{1, 3}, Reason: "not errands"}, nod.ChangeSet{ID: "s1", Items: []nod.ChangeItem{
			{N: 1, Tool: "assign_task_labels", Summary: "Set labels to errands", Field: nod.FieldLabels, After: "errands", Status: nod.ItemStale},
			{N: 3, Tool: "assign_task_labels", Summary: "Set labels to admin", Field: nod.FieldLabels, After: "admin", Status: nod.ItemConfirmed}}}),
		"reading_one_gone": loc.Changes().Reading(nod.Reading{ID: "r1", SetID: "s1", Reject: []int{1}}, nod.ChangeSet{ID: "s1", Items: []nod.ChangeItem{
			{N: 1, Tool: "assign_task_labels", Summary: "Set labels to errands", Field: nod.FieldLabels, After: "errands", Status: nod.ItemStale}}}),
		"reading_accepted": loc.Changes().ReadingAccepted(nod.Reading{ID: "r1", SetID: "s1", Confirm: []int{1}, Reject: []int{2}}, nod.ChangeSet{ID: "s1", Items: []nod.ChangeItem{
			{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1"},
			{N: 2, Tool: "update_task_due_date", Summary: "Set due date to 2026-03-20", Field: nod.FieldDue, Before: "2026-03-15", After: "2026-03-20"}}}),
		"steps_exhausted": loc.Text(formatting.StepsExhausted.With(8)), "empty_reply": loc.Text(formatting.EmptyReply),
		"no_tasks": loc.Tasks().List(nod.TaskPage{}, formatting.ListView{}), "pending_none": loc.Text(formatting.PendingNone),
		"undone": loc.Undo().Undone(nod.UndoEntry{ID: "u2", Tool: "set_task_priority", Summary: "Set priority to P1", Title: "Fix <login> bug",
			Change: nod.Change{Fields: []nod.FieldChange{{Field: nod.FieldPriority, Before: "P1", After: "P3"}}}}),
		"undone_unknown": loc.Undo().Undone(nod.UndoEntry{ID: "u2", Tool: "seed", Summary: "Import <tasks>", Title: "Fix <login> bug"}), "nothing_to_undo": loc.Text(formatting.NothingToUndo), "undone_already": loc.Text(formatting.UndoneAlready.With("Fix <login> bug")),
		"toggled": loc.Text(formatting.Toggled.With(&nod.ChecklistItem{Title: "Write <tests>", Checked: true})),
		"panic":   loc.Text(formatting.Panic), "too_long": loc.Text(formatting.TooLong.With(5000)), "not_text": loc.Text(formatting.NotText), "unreadable": loc.Text(formatting.Unreadable), "forwarded_asks": loc.Text(formatting.ForwardedAsks),
		"no_caption": loc.Text(formatting.NoCaption), "heard": loc.Text(formatting.Heard.With("Raise the <login> bug to P1, and “quote” it.")),
		"voice_too_long": loc.VoiceTooLong(7*time.Minute+29*time.Second+200*time.Millisecond, 5*time.Minute), "voice_too_long_hours": loc.VoiceTooLong(75*time.Minute, time.Hour),
		"voice_too_large": loc.VoiceTooLarge(5 * time.Minute), "voice_too_big": loc.Text(formatting.VoiceTooBig), "voice_failed": loc.Text(formatting.VoiceFailed), "voice_empty": loc.Text(formatting.VoiceEmpty),
		// An upcoming reminder shows beside its task, a past one does not,
		// but a repeating one's next time does.
		"task_list": loc.Tasks().List(nod.TaskPage{Tasks: []nod.Task{t1, {ID: "T2", Title: "Update <README> & docs", Status: nod.StatusOpen, Priority: nod.P2, DueDate: "2026-03-10", RemindAt: &remindEarly},
			{ID: "T3", Title: "Call Berta", Status: nod.StatusOpen, Priority: nod.P0, Labels: []string{"office"}, RemindAt: &remindTomorrow, Repeat: "DTSTART:20260309T070000\nRRULE:FREQ=DAILY"},
			binsSent}, Cursors: []string{"1", "2", "3", "6"}, Total: 4, Done: 4},
			formatting.ListView{TaskList: nod.TaskList{Today: "2026-03-15"}, PageSize: 20, Now: time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)}),
		"task_list_paged": loc.Tasks().List(nod.TaskPage{Tasks: []nod.Task{t1, {ID: "T2", Title: "Update <README> & docs", Status: nod.StatusOpen, Priority: nod.P2}},
			Cursors: []string{"k3", "k4"}, Total: 10000, Earlier: true, Later: true}, formatting.ListView{TaskList: nod.TaskList{Today: "2026-03-01"}, Page: 2, PageSize: 20}),
		"task_list_done": loc.Tasks().List(nod.TaskPage{Tasks: []nod.Task{{ID: "T4", Title: "Send <invoices>", Status: nod.StatusDone, Priority: nod.P1, DueDate: "2026-03-01", Labels: []string{"office"}},
			{ID: "T5", Title: "Old idea", Status: nod.StatusRejected, Priority: nod.P3}}, Cursors: []string{"4", "5"}, Total: 3, Done: 2},
			formatting.ListView{TaskList: nod.TaskList{Label: "Office", Done: true, Today: "2026-03-15"}, Page: 1, PageSize: 20}),
		"today": loc.In(time.FixedZone("CET", 3600)).Tasks().Today(nod.TodayList{Due: []nod.Task{{ID: "T2", Title: "Pay <rent>", Status: nod.StatusOpen, Priority: nod.P1, DueDate: "2026-03-10"}, t1},
			DueTotal: 23, Reminders: []nod.Task{{ID: "T3", Title: "Call Berta", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &remindToday, Repeat: "DTSTART:20260309T093000\nRRULE:FREQ=WEEKLY;BYDAY=SU"}, {ID: "T1", Title: t1.Title, Status: t1.Status, Priority: t1.Priority, RemindAt: &remindLater}},
			Done: []nod.DoneReminder{{Task: nod.Task{ID: "T4", Title: "Water plants", Status: nod.StatusOpen, Priority: nod.P2, RemindAt: &remindTomorrow, Repeat: "DTSTART:20260309T070000\nRRULE:FREQ=DAILY"}, At: remindEarly}}},
			"2026-03-15", time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)),
		"today_empty":          loc.Tasks().Today(nod.TodayList{}, "2026-03-15", time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)),
		"task_list_label_none": loc.Tasks().List(nod.TaskPage{Total: 0, Done: 0}, formatting.ListView{TaskList: nod.TaskList{Label: "garden", Today: "2026-03-15"}, PageSize: 20}),
		"task_list_all_done":   loc.Tasks().List(nod.TaskPage{Total: 0, Done: 12}, formatting.ListView{TaskList: nod.TaskList{Today: "2026-03-15"}, PageSize: 20}),
		// A group's list says whose each upcoming reminder is.
		"task_list_group": loc.Tasks().List(nod.TaskPage{Tasks: []nod.Task{t1, {ID: "T3", Title: "Pflanzen gießen", Status: nod.StatusOpen, Priority: nod.P2,
			RemindAt: &remindTomorrow, RemindBy: 7, Repeat: "DTSTART:20260309T070000\nRRULE:FREQ=DAILY"}}, Cursors: []string{"1", "3"}, Total: 2},
			formatting.ListView{TaskList: nod.TaskList{Today: "2026-03-15"}, PageSize: 20, Group: true, Now: time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC),
				Names: map[nod.UserID]string{7: "Alice <&>"}}),
		"task_card": loc.Tasks().Card(t1, time.Time{}),
		// A weekly reminder that went out and was not ticked off names its next time.
		"task_card_repeat_sent": loc.Tasks().Card(binsSent, time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)),
		"receipt_explicit": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "Fix login bug", Quote: "raise it to P1",
			Item: nod.ChangeItem{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1", UndoID: "u1"}}}),
		"receipt_many": loc.Changes().Receipts([]formatting.Receipt{
			{TaskTitle: "Fix login bug", Quote: "Both", Item: nod.ChangeItem{N: 1, Tool: "set_task_title", Summary: `Set title to "Fix login redirect bug"`, Field: nod.FieldTitle, Before: "Fix login bug", After: "Fix login redirect bug", UndoID: "u1"}},
			{TaskTitle: "Fix login bug", Quote: "Both", Item: nod.ChangeItem{N: 2, Tool: "update_task_estimate", Summary: "Set estimate to 90 minutes", Field: nod.FieldEstimate, Before: "120", After: "90", UndoID: "u2"}},
			{TaskTitle: "Update <README>", Quote: "and <b>the</b> readme", Item: nod.ChangeItem{N: 3, Tool: "add_checklist_item", Summary: `Add: "Badges"`, Field: nod.FieldChecklist, After: "Badges", UndoID: "u3"}},
		}),
		"receipt_many_one_undone": loc.Changes().Receipts(manyUndone(2)),
		// A task's creation undone takes what else the receipt did to it along.
		"receipt_many_created_undone": loc.Changes().Receipts(manyUndone(1)),
		"receipt_many_all_undone":     loc.Changes().Receipts(manyUndone(0, 1, 2)),
		"receipt_bulk":                loc.Changes().Receipts(bulkCreated(23)),
		"receipt_bulk_four":           loc.Changes().Receipts(bulkCreated(4)),
		"receipt_bulk_quoted":         loc.Changes().Receipts(bulkQuoted()),
		"receipt_bulk_mixed":          loc.Changes().Receipts(bulkMixed()),
		"receipt_bulk_undone":         loc.Changes().BulkUndone(createdEntries(22)),
		"receipt_bulk_undone_one":     loc.Changes().BulkUndone(createdEntries(1)),
		"receipt_bulk_undone_mixed":   loc.Changes().BulkUndone(bulkEntries()),
		// Three tasks asked for with their days: five changes, three tasks added.
		"receipt_bulk_added_dated": loc.Changes().Receipts(addedDated()),
		// A task added with its due date or reminder shows them, for the
		// person to check what "by thursday" was read as; redrawn too.
		"receipt_bulk_added_with": loc.Changes().Receipts(addedWith()),
		"receipt_bulk_added_with_redrawn": loc.Changes().BulkRedrawn([]nod.UndoEntry{
			{ID: "u1", Tool: nod.ToolCreateTask, Title: "Skizzen an Priya schicken", Change: nod.Change{Created: true, Fields: []nod.FieldChange{{Field: nod.FieldTitle, After: "Skizzen an Priya schicken"}, {Field: nod.FieldDue, After: "2026-12-03"}}}},
			{ID: "u2", Tool: nod.ToolCreateTask, Title: "Zahnarzt anrufen", UndoneNow: true, Change: nod.Change{Created: true, Fields: []nod.FieldChange{{Field: nod.FieldTitle, After: "Zahnarzt anrufen"}, {Field: nod.FieldReminder, After: "2026-12-02T09:00:00Z"}}}},
			{ID: "u3", Tool: nod.ToolCreateTask, Title: "Druckertinte kaufen", Change: nod.Change{Created: true, Fields: []nod.FieldChange{{Field: nod.FieldTitle, After: "Druckertinte kaufen"}}}},
			{ID: "u4", Tool: nod.ToolCreateTask, Title: "Domain verlängern", Change: nod.Change{Created: true, Fields: []nod.FieldChange{{Field: nod.FieldTitle, After: "Domain verlängern"}, {Field: nod.FieldDue, After: "2026-12-09"}}}},
		}, "Skizzen an Priya bis Donnerstag, Zahnarzt morgen um 9, Tinte, Domain vor dem 10."),
		"receipt_bulk_redrawn":  loc.Changes().BulkRedrawn(bulkEntries(), formatting.BulkSaid(formatting.PlainText(loc.Changes().Receipts(bulkMixed()).HTML))),
		"receipt_bulk_undo_one": {HTML: "(keyboard)", Keyboard: loc.Changes().UndoOne("u1", bulkOpen(23), 2)},
		"receipt_bulk_undo_one_same_task": {HTML: "(keyboard)", Keyboard: loc.Changes().UndoOne("u1", []formatting.BulkChange{
			loc.Changes().BulkChangeOf(3, nod.UndoEntry{ID: "u3", Tool: nod.ToolCreateTask, Title: "Renew passport", Change: nod.Change{TaskID: "T3", Created: true}}),
			loc.Changes().BulkChangeOf(4, nod.UndoEntry{ID: "u4", Tool: nod.ToolSetPriority, Title: "Renew passport", Change: nod.Change{TaskID: "T3", Fields: []nod.FieldChange{{Field: nod.FieldPriority, Before: "P2", After: "P1"}}}}),
		}, 1)},
		"receipt_quotes_nested": loc.Changes().Receipts([]formatting.Receipt{
			{TaskTitle: "Send the invoice", Quote: "remind me tomorrow at 9 to send the invoice to Rui", Item: nod.ChangeItem{N: 1, Tool: "create_task", After: "Send the invoice", NewTask: &nod.Task{Title: "Send the invoice", Priority: nod.P2}, UndoID: "u1"}},
			{TaskTitle: "Send the invoice", Quote: "Remind me tomorrow at 9", Item: nod.ChangeItem{N: 2, Tool: "set_task_reminder", Field: nod.FieldReminder, After: "2026-03-12T09:00:00Z", UndoID: "u2"}},
		}),
		"receipt_trusted": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "Fix login bug", Trusted: true,
			Item: nod.ChangeItem{N: 1, Tool: "update_task_due_date", Summary: "Set due date to 2026-03-20", Field: nod.FieldDue, Before: "2026-03-15", After: "2026-03-20", UndoID: "u1"}}}),
		"receipt_group": loc.Changes().Receipts([]formatting.Receipt{
			{TaskTitle: "Fix login bug", Quote: "raise it to P1", Who: "Alice <&>", Item: nod.ChangeItem{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1", UndoID: "u1"}},
			{TaskTitle: "Fix login bug", Quote: "and due friday", Who: "Bob", Item: nod.ChangeItem{N: 2, Tool: "update_task_due_date", Summary: "Set due date to 2026-03-20", Field: nod.FieldDue, Before: "", After: "2026-03-20", UndoID: "u2"}},
		}),
		"receipt_trusted_group": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "Fix login bug", Trusted: true, Who: "Bob",
			Item: nod.ChangeItem{N: 1, Tool: "update_task_due_date", Summary: "Set due date to 2026-03-20", Field: nod.FieldDue, Before: "2026-03-15", After: "2026-03-20", UndoID: "u1"}}}),
		"receipt_rule_group": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "Fix login bug", Rule: &rule, Who: "Bob",
			Item: nod.ChangeItem{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1", UndoID: "u1"}}}),
		"mode_smart": loc.Text(formatting.ModeSet.With("smart")), "mode_always": loc.Text(formatting.ModeSet.With("always")), "mode_trusted": loc.Text(formatting.ModeSet.With("trusted")),
		"mode_show":       loc.Changes().ModeChoice(nod.ChatSettings{Mode: nod.ModeSmart}, at),
		"mode_show_group": loc.Changes().ModeChoice(nod.ChatSettings{ChatID: -100, Mode: nod.ModeSmart}, at),
		"mode_breaker":    loc.Changes().ModeChoice(nod.ChatSettings{Mode: nod.ModeTrusted, BreakerUntil: &until}, at),
		"breaker":         loc.Changes().Breaker(nod.ModeSmart),
		"breaker_ended":   loc.Changes().BreakerEnded(nod.ModeSmart),
		"breaker_trusted": loc.Changes().Breaker(nod.ModeTrusted),
		"notice":          loc.Text(formatting.NoteMessage.With(loc.Changes().Remark(nod.Note{Key: nod.NoteNoop, Args: []string{"priority", "P3"}}))),
		"notice_reminder": loc.Text(formatting.NoteMessage.With(loc.Changes().Remark(nod.Note{Key: nod.NoteNoop, Args: []string{"reminder", "2026-12-01T08:00:00Z", "Call the <Berlin> client"}}))),
		"notice_due":      loc.Text(formatting.NoteMessage.With(loc.Changes().Remark(nod.Note{Key: nod.NoteNoop, Args: []string{"due", "2026-12-03"}}))),
		"task_card_long": loc.Tasks().Card(nod.Task{ID: "T3", Title: "<script>", Status: nod.StatusDone, Priority: nod.P0,
			Description: strings.Repeat("word ", 2000)}, time.Time{}),
		"receipt_rule": loc.Changes().Receipts([]formatting.Receipt{{TaskTitle: "Fix login bug", Rule: &rule,
			Item: nod.ChangeItem{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1", UndoID: "u1"}}}),
		// Beside changes the person's words asked for, a rule names its own.
		"receipt_rule_some": loc.Changes().Receipts([]formatting.Receipt{
			{TaskTitle: "Fix login bug", Quote: "raise it", Item: nod.ChangeItem{N: 1, Tool: "set_task_priority", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P3", After: "P1", UndoID: "u1"}},
			{TaskTitle: "Fix login bug", Rule: &rule, Item: nod.ChangeItem{N: 2, Tool: "assign_task_labels", Summary: "Set labels to backend", Field: nod.FieldLabels, Before: "", After: "backend", UndoID: "u2"}}}),
		"receipt_bulk_rule_some": loc.Changes().Receipts(append(bulkCreated(4), formatting.Receipt{TaskTitle: "Buy <4> & more", Rule: &rule,
			Item: nod.ChangeItem{N: 5, Tool: "assign_task_labels", TaskID: "T4", Summary: "Set labels to work", Field: nod.FieldLabels, After: "work", UndoID: "u5"}},
			formatting.Receipt{TaskTitle: "Buy <3> & more", Rule: &rule,
				Item: nod.ChangeItem{N: 6, Tool: "assign_task_labels", TaskID: "T3", Summary: "Set labels to work", Field: nod.FieldLabels, After: "work", UndoID: "u6"}})),
		"rule_offer":    loc.Rules().Offer(nod.Rule{ID: "r1", Kind: "set_task_status=DONE", Status: nod.RuleOffered}),
		"rule_on":       loc.Rules().Decided(rule),
		"rule_declined": loc.Rules().Decided(nod.Rule{ID: "r1", Kind: "update_task_estimate", Status: nod.RuleDeclined}),
		"rules":         loc.Rules().List([]nod.Rule{rule, {ID: "r2", Kind: "add_checklist_item", Status: nod.RuleActive, ExpiresAt: &until}}, nil),
		"rules_none":    loc.Rules().List(nil, nil),
		// How far the person has come toward a rule of other kinds.
		"rules_near":      loc.Rules().List([]nod.Rule{rule}, []nod.Streak{{Kind: "assign_task_labels", N: 2}, {Kind: "set_task_status=DONE", N: 1}}),
		"rules_none_near": loc.Rules().List(nil, []nod.Streak{{Kind: "assign_task_labels", N: 2}}),
		// A rule that ran out leaves its streak: the next ✓ offers it again.
		"rules_near_again": loc.Rules().List(nil, []nod.Streak{{Kind: "set_task_priority=P1", N: 3}}),
		// An offer that waits for an answer is on the way too.
		"rules_near_offered": loc.Rules().List(nil, []nod.Streak{{Kind: "assign_task_labels", N: 3, Offered: true}, {Kind: "set_task_reminder", N: 1}}),
		"trash":              loc.Tasks().Trash([]nod.Task{{ID: "T1", Title: "Fix login bug", DeletedAt: &at}}, nod.DefaultTrashRetention),
		"trash_long":         loc.Tasks().Trash(trashed(1234, at), nod.DefaultTrashRetention),
		"task_in_trash":      loc.Tasks().InTrash("T1", "Fix <login> bug"),
		"redo_stale":         loc.Undo().Stale(nod.UndoEntry{ID: "u2", Reverts: "u1", Redoes: true, Tool: "set_task_priority", Summary: "Set priority to P1", Title: "Fix login bug", Change: nod.Change{TaskID: "T1", Fields: []nod.FieldChange{{Field: nod.FieldPriority, Before: "P1", After: "P3"}}}}, nod.Conflict{Field: nod.FieldPriority, Want: "P1", Now: "P2"}, time.Time{}),
		"redo_twin": loc.Undo().Stale(nod.UndoEntry{ID: "u8", Reverts: "u7", Redoes: true, Tool: "create_task", Summary: `Create task "Call the bank"`, Title: "Call the bank",
			Change: nod.Change{TaskID: "T8", Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: "", After: nod.TrashedValue}}}}, nod.Conflict{Field: nod.FieldTrash, Twin: time.Date(2026, 11, 30, 9, 46, 0, 0, time.UTC), Added: time.Date(2026, 11, 29, 17, 30, 0, 0, time.UTC)}, time.Date(2026, 11, 30, 10, 2, 0, 0, time.UTC)),
		"undo_left":       loc.Undo().Left(nod.UndoEntry{ID: "u8", Reverts: "u7", Redoes: true, Tool: "create_task", Title: "Call <the> bank"}),
		"undo_stale":      loc.Undo().Stale(nod.UndoEntry{ID: "u1", Tool: "set_task_priority", Summary: "Set priority to P1", Title: "Fix login bug", Change: nod.Change{TaskID: "T1", Fields: []nod.FieldChange{{Field: nod.FieldPriority, Before: "P3", After: "P1"}}}}, nod.Conflict{Field: nod.FieldPriority, Want: "P1", Now: "P2"}, time.Time{}),
		"undo_stale_item": loc.Undo().Stale(nod.UndoEntry{ID: "u1", Tool: "add_checklist_item", Summary: `Add: "Load <test>"`, Title: "Fix login bug", Change: nod.Change{TaskID: "T1", Items: []nod.ItemChange{{After: &nod.ChecklistItem{ID: "c7", Title: "Load <test>", CheckedBy: nod.ActorUser}}}}}, nod.Conflict{Field: nod.FieldChecklist, Item: "Load <test>"}, time.Time{}),
		"delete_ask":      loc.Tasks().DeleteAsk(nod.PendingDeletion{ID: "D1", Title: "Fix login bug", Checklist: 3, Wait: nod.DefaultConfirmWindow}, nod.DefaultTrashRetention, 2, nil, time.Time{}),
		"delete_ask_twin": loc.Tasks().DeleteAsk(nod.PendingDeletion{ID: "D2", Title: "Call the bank", Wait: nod.DefaultConfirmWindow}, nod.DefaultTrashRetention, 0,
			&nod.Task{ID: "T9", Title: "Call the bank", Priority: nod.P2, CreatedAt: time.Date(2026, 11, 30, 6, 16, 0, 0, time.UTC)}, time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)),
		"delete_done_twin": loc.Tasks().DeleteClosed(formatting.DeletePromptDone, "Call the bank",
			&nod.Task{ID: "T9", Title: "Call the bank", Priority: nod.P2, CreatedAt: time.Date(2026, 11, 30, 6, 16, 0, 0, time.UTC)}, true),
		"delete_failed": loc.Tasks().DeleteClosed(formatting.DeletePromptFailed, "Fix <login> bug", nil, false),
		"delete_kept_twin": loc.Tasks().DeleteClosed(formatting.DeletePromptCancelled, "Call the bank",
			&nod.Task{ID: "T9", Title: "Call the bank", Priority: nod.P2, DueDate: "2026-12-02", CreatedAt: time.Date(2026, 11, 30, 6, 16, 0, 0, time.UTC)}, false),
		"audit": loc.Audit([]nod.AuditEntry{
			{Tool: "set_task_priority", Args: []byte(`{"task_id":"T1","priority":"P1"}`), Outcome: nod.OutcomeConfirmed, UserConfirmed: true, At: at},
			{Tool: "rule", Outcome: nod.OutcomeCreated, UserConfirmed: true, At: at},
			{Tool: "set_task_priority", Args: []byte(`{"task_id":"T1","priority":"P1"}`), Outcome: nod.OutcomeExecuted, Verdict: "rule", Reason: "rule r1 (set_task_priority=P1)", At: at},
			{Tool: "update_task_due_date", Args: []byte(`{"task_id":"T1","due_date":"2026-03-20"}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "move it to the 20th", At: at},
			{Tool: "set_task_status", Args: []byte(`{"task_id":"T1","status":"DONE"}`), Outcome: nod.OutcomeQueued, At: at},
			{Tool: "list_tasks", Args: []byte(`{}`), Outcome: nod.OutcomeExecuted, At: at},
			{Tool: "delete_task", Args: []byte(`{"task_id":"T9"}`), Outcome: nod.OutcomeConfirmed, UserConfirmed: true, Reason: "typed the task's title", At: at},
			{Tool: "delete_task", Args: []byte(`{"task_id":"T9"}`), Outcome: nod.OutcomeUndone, UserConfirmed: true, At: at},
			{Tool: "delete_task", Args: []byte(`{"task_id":"T9"}`), Outcome: nod.OutcomeRedone, UserConfirmed: true, At: at},
			{Tool: "mode", Args: []byte(`{"mode":"always"}`), Outcome: nod.OutcomeExecuted, Reason: "circuit breaker", At: at},
			{Tool: "set_task_priority", Args: []byte(`{"undo_id":"u1","task_id":"T1","tool":"set_task_priority","fields":["priority"]}`), Outcome: nod.OutcomeUndone, UserConfirmed: true, At: at},
			{Tool: "assign_task_labels", Args: []byte(`{"task_id":"T1","labels":["launch","Blog"]}`), Outcome: nod.OutcomeQueued, At: at},
			{Tool: "assign_task_labels", Args: []byte(`{"task_id":"T1","add":["backend"]}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "label it backend", At: at},
			{Tool: "assign_task_labels", Args: []byte(`{"task_id":"T1","add":["auth"],"remove":["bug","ops"]}`), Outcome: nod.OutcomeQueued, At: at},
			{Tool: "assign_task_labels", Args: []byte(`{"task_id":"T1","remove":["bug"]}`), Outcome: nod.OutcomeConfirmed, UserConfirmed: true, At: at},
			{Tool: "add_multiple_checklist_items", Args: []byte(`{"task_id":"T1","items":[{"title":"Draft <announcement>"},{"title":"Brief support"},{"title":"Update pricing page"},{"title":"Tell sales"},{"title":"Ship"}]}`), Outcome: nod.OutcomeQueued, At: at},
			{Tool: "add_multiple_checklist_items", Args: []byte(`{"task_id":"T1","items":[{"title":"Write tests"}]}`), Outcome: nod.OutcomeExecuted, Verdict: "explicit", Reason: "add write tests", At: at},
			{Tool: "update_checklist_items", Args: []byte(`{"task_id":"T1","items":[{"id":"c1","checked":true},{"id":"c2","checked":true}]}`), Outcome: nod.OutcomeQueued, At: at},
			{Tool: "remove_checklist_items", Args: []byte(`{"task_id":"T1","items":[{"id":"c1"}]}`), Outcome: nod.OutcomeRejected, UserConfirmed: true, At: at},
			{Tool: "tz", Args: []byte(`{"timezone":"Europe/Berlin","before":"UTC"}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
			{Tool: "location", Args: []byte(`{"timezone":"Europe/Lisbon","before":""}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
			{Tool: "set_chat_timezone", Args: []byte(`{"timezone":"Europe/Berlin"}`), Outcome: nod.OutcomeQueued, At: at},
			{Tool: "daily", Args: []byte(`{"daily":"08:00","quiet":true}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
			{Tool: "daily", Args: []byte(`{"daily":"","quiet":false}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
			{Tool: "export", Args: []byte(`{"scope":"chat","to":100}`), Outcome: nod.OutcomeExecuted, UserConfirmed: true, At: at},
		}, map[nod.TaskID]string{"T1": "Fix <login> bug", "T9": "Old task"}, nil),
		"audit_group":          loc.Audit(groupAudit(at), map[nod.TaskID]string{"T1": "Fix <login> bug", "T9": "Old task"}, map[nod.UserID]string{42: "Alice <&>", 43: "Bob"}),
		"audit_reminders":      loc.Audit(reminderAudit(at), map[nod.TaskID]string{"T1": "Call the printer"}, nil),
		"lang_show":            loc.Text(formatting.LangShow.With(formatting.Languages())),
		"pending_item_one":     loc.Text(formatting.PendingItem.With(formatting.PendingCount{Pending: 1, Total: 1})),
		"pending_item_1_of":    loc.Text(formatting.PendingItem.With(formatting.PendingCount{Pending: 1, Total: 3})),
		"pending_item_2_of":    loc.Text(formatting.PendingItem.With(formatting.PendingCount{Pending: 2, Total: 3})),
		"pending_item_for":     loc.Text(formatting.PendingItem.With(formatting.PendingCount{Pending: 2, Total: 3, For: "Alice <&>", Other: true})),
		"pending_item_any":     loc.Text(formatting.PendingItem.With(formatting.PendingCount{Pending: 1, Total: 1, Anyone: true})),
		"lang_set":             loc.Text(formatting.LangSet),
		"export_caption":       loc.Text(formatting.ExportCaption.With(formatting.ExportFiles{Day: "2026-11-29", Counts: nod.ExportCounts{Tasks: 12, Reminders: 1, Audit: 240}})),
		"export_caption_own":   loc.Text(formatting.ExportCaption.With(formatting.ExportFiles{Day: "2026-11-29", Own: true, Counts: nod.ExportCounts{Tasks: 1, Audit: 1}})),
		"export_table":         loc.Text(formatting.ExportTableCaption),
		"export_sent":          loc.Text(formatting.ExportSent.With("Alice <&>")),
		"export_start":         loc.Text(formatting.ExportStartPrivate.With("Alice <&>")),
		"export_start_unnamed": loc.Text(formatting.ExportStartPrivate.With("")),
		"export_too_big":       loc.Text(formatting.ExportTooBig.With(formatting.ExportTrouble{File: "nod-export-2026-11-29.json", MB: 50})),
		"export_failed":        loc.Text(formatting.ExportFailed.With(formatting.ExportTrouble{File: "nod-tasks-2026-11-29.csv", MB: 50})),
	}
}

func TestTemplatesGolden(t *testing.T) {
	for _, lang := range formatting.Languages() {
		for name, m := range messageCases(formatting.For(lang)) {
			t.Run(lang+"/"+name, func(t *testing.T) {
				checkValid(t, name, m)
				golden.Check(t, lang+"/messages/"+name, "template "+name, render(m)...)
			})
		}
	}
}

// Every note and callback notice, one per line, for a reviewer of a
// language to read in one place.
func TestNotesAndNoticesGolden(t *testing.T) {
	notes := []nod.Note{
		{Key: nod.NoteSkipped}, {Key: nod.NoteInvalid}, {Key: nod.NoteTaskGone}, {Key: nod.NoteItemGone},
		{Key: nod.NoteCannot, Args: []string{"the checklist is full"}}, {Key: nod.NoteAlready},
		{Key: nod.NoteAlreadyItem, Args: []string{"Write tests", "checked"}}, {Key: nod.NoteChanged, Args: []string{"description"}},
		{Key: nod.NoteChanged, Args: []string{"checklist"}}, {Key: nod.NoteNow, Args: []string{"estimate", "90"}},
		{Key: nod.NoteNow, Args: []string{"due", ""}}, {Key: nod.NoteReproposed}, {Key: nod.NoteSuperseded}, {Key: nod.NoteSuperseded, Args: []string{"direct", "Bob <&>"}}, {Key: nod.NoteSuperseded, Args: []string{"direct", ""}}, {Key: nod.NoteWithdrawn},
		{Key: nod.NoteNoop, Args: []string{"title", "Fix login bug"}}, {Key: nod.NoteNoop, Args: []string{"status", "DONE"}},
		{Key: nod.NoteNoop, Args: []string{"estimate", "120"}}, {Key: nod.NoteNoop, Args: []string{"labels", ""}},
		{Key: nod.NoteNoop, Args: []string{"due", "2026-03-15"}}, {Key: nod.NoteNoop, Args: []string{"description", "x"}},
		{Key: nod.NoteNoopItem, Args: []string{"Write tests", "present"}}, {Key: nod.NoteNoopItem, Args: []string{"Write tests", "unchecked"}},
		{Key: nod.NoteLeftAsSet, Args: []string{"Write migration notes"}},
	}
	notices := []struct {
		name string
		c    formatting.Content
	}{
		{"n_forbidden", formatting.NoticeForbidden}, {"n_expired", formatting.NoticeExpired}, {"n_decided", formatting.NoticeDecided},
		{"n_item_decided", formatting.NoticeItemDecided.With(formatting.DecidedItem{N: 2, Status: nod.ItemRejected})}, {"n_stale_undo", formatting.NoticeStaleUndo}, {"n_twin", formatting.NoticeTwin}, {"n_not_here", formatting.NoticeNotHere}, {"n_button_expired", formatting.NoticeButtonExpired},
		{"n_invalid", formatting.NoticeInvalid}, {"n_unreadable", formatting.NoticeUnreadable}, {"n_failed", formatting.NoticeFailed}, {"n_stranger", formatting.NoticeStranger.With(666)},
		{"n_applied_item", formatting.NoticeAppliedItem.With(1)}, {"n_rejected_item", formatting.NoticeRejectedItem.With(1)}, {"n_skipped_item", formatting.NoticeSkippedItem.With(1)},
		{"n_applied_count", formatting.NoticeAppliedCount.With(3)}, {"n_rejected_all", formatting.NoticeRejectedAll}, {"n_nothing_left", formatting.NoticeNothingLeft},
		{"n_stopped_at", formatting.NoticeStoppedAt.With(2)}, {"n_not_applied", nil}, {"n_aborted", formatting.NoticeAborted},
		{"n_undo_late", formatting.NoticeUndoLate}, {"n_undone", formatting.NoticeUndone}, {"n_bulk_undone", formatting.NoticeBulkUndone}, {"n_restored", formatting.NoticeRestored},
		{"n_mode", formatting.NoticeMode.With("smart")}, {"n_kept", formatting.NoticeKept.With("2026-03-25")}, {"n_reproposed_already", formatting.NoticeReproposedAlready},
		{"n_repropose_none", formatting.NoticeReproposeNone}, {"n_reproposed", formatting.NoticeReproposed.With(formatting.Reproposal{Count: 2, Dropped: 1})}, {"n_rule_on", formatting.NoticeRuleOn.With("10 Apr 2026")},
		{"n_rule_declined", formatting.NoticeRuleDeclined}, {"n_rule_revoked", formatting.NoticeRuleRevoked}, {"n_rule_decided", formatting.NoticeRuleDecided},
	}
	for _, lang := range formatting.Languages() {
		loc := formatting.For(lang)
		var b strings.Builder
		for _, n := range notes {
			fmt.Fprintf(&b, "%s %v: %s\n", n.Key, n.Args, loc.Changes().Remark(n))
		}
		for _, n := range notices {
			if n.name == "n_not_applied" { // as the bot passes it: the note in the reader's words
				n.c = formatting.NoticeNotApplied.With(loc.Changes().Remark(nod.Note{Key: nod.NoteNow, Args: []string{"estimate", "90"}}))
			}
			fmt.Fprintf(&b, "%s: %s\n", n.name, loc.Notice(n.c))
		}
		golden.Check(t, lang+"/notes", "notes and notices", golden.Section{Name: "text", Data: b.String()})
	}
}

func TestSplit(t *testing.T) {
	line := "<b>" + strings.Repeat("é", 50) + "</b> &amp; " + strings.Repeat("🚀", 20) + "\n"
	html := strings.Repeat(line, 200)
	parts := formatting.Split(html)
	if len(parts) < 2 {
		t.Fatalf("Split made %d parts", len(parts))
	}
	var joined strings.Builder
	for i, p := range parts {
		checkValid(t, fmt.Sprintf("part %d", i), formatting.Message{HTML: p})
		joined.WriteString(formatting.PlainText(p))
	}
	if got, want := strings.ReplaceAll(joined.String(), "\n", ""), strings.ReplaceAll(formatting.PlainText(html), "\n", ""); got != want {
		t.Errorf("split lost text: %d vs %d characters", len(got), len(want))
	}
	// One line longer than the limit, inside a tag.
	parts = formatting.Split("<i>" + strings.Repeat("word ", 2000) + "</i>")
	for i, p := range parts {
		checkValid(t, fmt.Sprintf("long line part %d", i), formatting.Message{HTML: p})
	}
}

func FuzzChangeSetHTML(f *testing.F) {
	f.Add("Fix <b>login</b> & SSO", "old text", "new text", 3)
	f.Add("🚀\x00\xff", strings.Repeat("a ", 3000), strings.Repeat("b ", 3000), 10)
	f.Fuzz(func(t *testing.T, title, before, after string, n int) {
		n = 1 + (n%10+10)%10
		var items []nod.ChangeItem
		for i := 1; i <= n; i++ {
			items = append(items, item(i, "update_task_description", "T1", nod.FieldDescription, "Update "+title, before, after))
		}
		for _, lang := range formatting.Languages() {
			m := formatting.For(lang).Changes().ChangeSet(formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s", UserID: 1, Status: nod.SetPending, Items: items}, Titles: map[nod.TaskID]string{"T1": title}})
			checkValid(t, "fuzz", m)
		}
	})
}

func BenchmarkChangeSet(b *testing.B) {
	v := formatting.ChangeSetView{Set: nod.ChangeSet{ID: "s", UserID: 1, Status: nod.SetPending, Items: []nod.ChangeItem{
		item(1, "set_task_priority", "T1", nod.FieldPriority, "Set priority to P1", "P3", "P1"),
		item(2, "update_task_description", "T1", nod.FieldDescription, "Update the description", t1.Description, t1.Description+" Also on mobile."),
		item(3, "add_checklist_item", "T1", nod.FieldChecklist, `Add: "Load test"`, "", "Load test"),
	}}, Titles: titles}
	for b.Loop() {
		en.Changes().ChangeSet(v)
	}
}

func BenchmarkWordDiff(b *testing.B) {
	for _, size := range []int{200, 10_000, 100_000} {
		before := strings.Repeat("The quick brown fox jumps over the lazy dog. ", size/45+1)[:size]
		after := strings.Replace(before, "lazy", "sleepy", 3) + " The end."
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			for b.Loop() {
				en.Changes().ContentDiff(before, after, 1500)
			}
		})
	}
}

// A long text is diffed by lines, then its changed lines by words: one
// changed word in 100 KB is that word, not its line.
func TestWordDiffLongText(t *testing.T) {
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf("Line %d of the description keeps its words.", i))
	}
	before := strings.Join(lines, "\n")
	after := strings.Replace(before, "Line 1000 of the description keeps", "Line 1000 of the description loses", 1)
	var changed []string
	for _, s := range formatting.WordDiff(before, after) {
		if s.Op != formatting.Equal {
			changed = append(changed, fmt.Sprintf("%d:%q", s.Op, s.Text))
		}
	}
	if got := strings.Join(changed, " "); got != `1:"keeps" 2:"loses"` {
		t.Errorf("the changes of a long text = %s, want the one word", got)
	}
}

// Found by FuzzChangeSetHTML: a side that is empty.
func TestWordDiffEmptySides(t *testing.T) {
	for _, c := range []struct{ before, after, want string }{
		{"00000000", "", "-00000000"},
		{"", "new words", "+new words"},
		{"", "", ""},
		{"same", "same", "=same"},
	} {
		var got strings.Builder
		for _, s := range formatting.WordDiff(c.before, c.after) {
			got.WriteString(map[formatting.Op]string{formatting.Equal: "=", formatting.Delete: "-", formatting.Insert: "+"}[s.Op] + s.Text)
		}
		if got.String() != c.want {
			t.Errorf("WordDiff(%q, %q) = %q, want %q", c.before, c.after, got.String(), c.want)
		}
	}
}

// longText is a long description with a and b in its middle and near its
// end: a diff must keep both changes in view.
func longText(a, b string) string {
	filler := strings.Repeat("The login page keeps its state across reloads. ", 40)
	return filler + "The " + a + " expires after five minutes. " + filler + "Users are " + b + " too early. The end."
}

// trashed returns n tasks deleted at.
func trashed(n int, at time.Time) []nod.Task {
	out := make([]nod.Task, n)
	for i := range out {
		out[i] = nod.Task{ID: nod.TaskID(fmt.Sprintf("T%d", i)), Title: fmt.Sprintf("Idee %d", i), DeletedAt: &at}
	}
	return out
}

// bulkCreated is the receipts of n tasks created at once, as one
// message asked for them.
func bulkCreated(n int) []formatting.Receipt {
	var rs []formatting.Receipt
	for i := range n {
		title := fmt.Sprintf("Buy <%d> & more", i+1)
		rs = append(rs, formatting.Receipt{TaskTitle: title, Quote: "add these: " + strings.Repeat("buy <1> & more, ", 30),
			Item: nod.ChangeItem{N: i + 1, Tool: "create_task", After: title, NewTask: &nod.Task{Title: title, Priority: nod.P2}, UndoID: nod.UndoID(fmt.Sprintf("u%d", i+1))}})
	}
	return rs
}

// bulkQuoted is a list of tasks the classifier quoted one by one: the
// receipt names three quotes and counts the rest.
func bulkQuoted() []formatting.Receipt {
	var rs []formatting.Receipt
	for i, q := range []string{"add these: book movers", "cancel gym", "forward mail", "sell sofa", "buy boxes"} {
		title := strings.ToUpper(q[:1]) + q[1:]
		rs = append(rs, formatting.Receipt{TaskTitle: title, Quote: q,
			Item: nod.ChangeItem{N: i + 1, Tool: "create_task", After: title, NewTask: &nod.Task{Title: title}, UndoID: nod.UndoID(fmt.Sprintf("u%d", i+1))}})
	}
	return rs
}

// bulkMixed is the receipts of four changes of several kinds.
func bulkMixed() []formatting.Receipt {
	return []formatting.Receipt{
		{TaskTitle: "Fix login bug", Quote: "all of them P1", Item: nod.ChangeItem{N: 1, Tool: "set_task_priority", Field: nod.FieldPriority, Before: "P3", After: "P1", UndoID: "u1"}},
		{TaskTitle: "Write docs", Quote: "all of them P1", Item: nod.ChangeItem{N: 2, Tool: "set_task_priority", Field: nod.FieldPriority, Before: "P2", After: "P1", UndoID: "u2"}},
		{TaskTitle: "Launch <plan>", Quote: "all of them P1", Item: nod.ChangeItem{N: 3, Tool: "set_task_priority", Field: nod.FieldPriority, Before: "P2", After: "P1", UndoID: "u3"}},
		{TaskTitle: "Launch <plan>", Quote: "and add Ship", Item: nod.ChangeItem{N: 4, Tool: "add_checklist_item", Field: nod.FieldChecklist, Summary: `Add: "Ship"`, After: "Ship", UndoID: "u4"}},
	}
}

// createdEntries are the undo entries of n tasks added.
func createdEntries(n int) []nod.UndoEntry {
	var out []nod.UndoEntry
	for i := range n {
		out = append(out, nod.UndoEntry{ID: nod.UndoID(fmt.Sprint("u", i+1)), TaskID: nod.TaskID(fmt.Sprint("T", i+1)), Tool: nod.ToolCreateTask,
			Title: fmt.Sprint("Task ", i+1), Change: nod.Change{TaskID: nod.TaskID(fmt.Sprint("T", i+1)), Created: true}})
	}
	return out
}

// addedDated is a receipt of three tasks added at once, two of them with
// a due date and one with a reminder, each set by a call of its own.
func addedDated() []formatting.Receipt {
	said := "factura a Lola el viernes, tinta, y llamar a la gestoría mañana a las 9"
	add := func(n int, id nod.TaskID, title string) formatting.Receipt {
		return formatting.Receipt{TaskTitle: title, Quote: said, Item: nod.ChangeItem{N: n, Tool: nod.ToolCreateTask, TaskID: id, After: title, NewTask: &nod.Task{Title: title, Priority: nod.P2}, UndoID: nod.UndoID(fmt.Sprint("u", n))}}
	}
	set := func(n int, id nod.TaskID, title string, tool nod.Tool, field nod.Field, after string) formatting.Receipt {
		return formatting.Receipt{TaskTitle: title, Quote: said, Item: nod.ChangeItem{N: n, Tool: tool, TaskID: id, Field: field, After: after, UndoID: nod.UndoID(fmt.Sprint("u", n))}}
	}
	return []formatting.Receipt{
		add(1, "T1", "Factura a Lola"), set(2, "T1", "Factura a Lola", nod.ToolUpdateDueDate, nod.FieldDue, "2026-03-13"),
		add(3, "T2", "Tinta"),
		add(4, "T3", "Gestoría"), set(5, "T3", "Gestoría", nod.ToolSetReminder, nod.FieldReminder, "2026-03-12T09:00:00Z"),
		set(6, "T3", "Gestoría", nod.ToolUpdateDescription, nod.FieldDescription, "Cita a las 11:30,\nllevar la renta y el DNI de María José"),
	}
}

// addedWith is four tasks added at once, three with a date read from
// the person's words.
func addedWith() []formatting.Receipt {
	said := "Skizzen an Priya bis Donnerstag, Zahnarzt morgen um 9, Tinte, Domain vor dem 10."
	nine := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	add := func(n int, t nod.Task) formatting.Receipt {
		t.Priority = nod.P2
		return formatting.Receipt{TaskTitle: t.Title, Quote: said, Item: nod.ChangeItem{N: n, Tool: nod.ToolCreateTask, Field: nod.FieldTask, TaskID: nod.TaskID(fmt.Sprint("T", n)), After: t.Title, NewTask: &t, UndoID: nod.UndoID(fmt.Sprint("u", n))}}
	}
	return []formatting.Receipt{add(1, nod.Task{Title: "Skizzen an Priya schicken", DueDate: "2026-12-03"}), add(2, nod.Task{Title: "Zahnarzt anrufen", RemindAt: &nine}),
		add(3, nod.Task{Title: "Druckertinte kaufen"}), add(4, nod.Task{Title: "Domain verlängern", DueDate: "2026-12-09"})}
}

// bulkEntries are bulkMixed's undo entries, the third undone since.
// manyUndone is a receipt of three changes with those at idx undone.
func manyUndone(idx ...int) []formatting.Receipt {
	rs := []formatting.Receipt{
		{TaskTitle: "Buy stamps", Quote: "add two tasks: buy stamps", Item: nod.ChangeItem{N: 1, Tool: "create_task", TaskID: "T1", After: "Buy stamps", NewTask: &nod.Task{Title: "Buy stamps", Priority: nod.P2}, UndoID: "u1"}},
		{TaskTitle: "Call the bank", Quote: "call the bank", Item: nod.ChangeItem{N: 2, Tool: "create_task", TaskID: "T2", After: "Call the bank", NewTask: &nod.Task{Title: "Call the bank", Priority: nod.P2}, UndoID: "u2"}},
		{TaskTitle: "Call the bank", Quote: "call the bank", Item: nod.ChangeItem{N: 3, Tool: "set_task_priority", TaskID: "T2", Summary: "Set priority to P1", Field: nod.FieldPriority, Before: "P2", After: "P1", UndoID: "u3"}},
	}
	for _, i := range idx {
		rs[i].Undone = true
	}
	return rs
}

func bulkEntries() []nod.UndoEntry {
	undone := time.Date(2026, 3, 10, 9, 5, 0, 0, time.UTC)
	var out []nod.UndoEntry
	for i, r := range bulkMixed() {
		u := nod.UndoEntry{ID: r.Item.UndoID, Tool: r.Item.Tool, Title: r.TaskTitle,
			Change: nod.Change{Fields: []nod.FieldChange{{Field: r.Item.Field, Before: r.Item.Before, After: r.Item.After}}}}
		if r.Item.Tool == "add_checklist_item" {
			u.Change = nod.Change{Items: []nod.ItemChange{{After: &nod.ChecklistItem{ID: "c9", Title: r.Item.After}}}}
		}
		if i == 2 {
			u.UndoneAt, u.UndoneNow = &undone, true
		}
		out = append(out, u)
	}
	return out
}

// bulkOpen is the n changes of a short receipt that can still be undone.
func bulkOpen(n int) []formatting.BulkChange {
	var out []formatting.BulkChange
	for i := range n {
		out = append(out, formatting.BulkChange{N: i + 1, UndoID: nod.UndoID(fmt.Sprintf("u%d", i+1)), Title: fmt.Sprintf("Buy <%d> with a title long enough to be cut on its button", i+1)})
	}
	return out
}

// A receipt's header says what was done as the person asked it: the
// changes made with a new task are part of adding it, and a reminder set
// or a task marked done is named, not counted as a change.
func TestReceiptHeaderSaysWhatWasDone(t *testing.T) {
	at := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	added := func(id nod.TaskID, title string, remind *time.Time) formatting.Receipt {
		return formatting.Receipt{TaskTitle: title, Item: nod.ChangeItem{Tool: nod.ToolCreateTask, TaskID: id, After: title, NewTask: &nod.Task{Title: title, RemindAt: remind}, UndoID: nod.UndoID("u" + id)}}
	}
	set := func(id nod.TaskID, title string, tool nod.Tool, field nod.Field, before, after string) formatting.Receipt {
		return formatting.Receipt{TaskTitle: title, Item: nod.ChangeItem{Tool: tool, TaskID: id, Field: field, Before: before, After: after, UndoID: nod.UndoID("v" + id)}}
	}
	remind := func(id nod.TaskID, title, after string) formatting.Receipt {
		return set(id, title, nod.ToolSetReminder, nod.FieldReminder, "", after)
	}
	done := func(id nod.TaskID, title string) formatting.Receipt {
		return set(id, title, nod.ToolSetStatus, nod.FieldStatus, "OPEN", "DONE")
	}
	const when = "2026-03-12T09:00:00Z"
	cases := []struct {
		name   string
		rs     []formatting.Receipt
		en, de string
	}{
		{"added with a reminder in its call", []formatting.Receipt{added("T1", "Call mum", &at)}, "Task added, with a reminder", "Aufgabe angelegt, mit Erinnerung"},
		{"added, then its reminder", []formatting.Receipt{added("T1", "Call mum", nil), remind("T1", "Call mum", when)}, "Task added, with a reminder", "Aufgabe angelegt, mit Erinnerung"},
		{"two added, one reminded", []formatting.Receipt{added("T1", "Call mum", nil), added("T2", "Buy stamps", nil), remind("T2", "Buy stamps", when)}, "2 tasks added, 1 with a reminder", "2 Aufgaben angelegt, 1 mit Erinnerung"},
		{"two added, both reminded", []formatting.Receipt{added("T1", "Call mum", &at), added("T2", "Buy stamps", nil), remind("T2", "Buy stamps", when)}, "2 tasks added, each with a reminder", "2 Aufgaben angelegt, jede mit Erinnerung"},
		{"added with a priority", []formatting.Receipt{added("T1", "Call mum", nil), set("T1", "Call mum", nod.ToolSetPriority, nod.FieldPriority, "P2", "P1")}, "Task added", "Aufgabe angelegt"},
		{"a reminder on a task there", []formatting.Receipt{remind("T1", "Call mum", when)}, "Reminder set", "Erinnerung gesetzt"},
		{"two reminders", []formatting.Receipt{remind("T1", "Call mum", when), remind("T2", "Buy stamps", when)}, "2 reminders set", "2 Erinnerungen gesetzt"},
		{"a reminder taken off", []formatting.Receipt{remind("T1", "Call mum", "")}, "Changed", "Geändert"},
		{"marked done", []formatting.Receipt{done("T1", "Call mum")}, "Marked done", "Als erledigt markiert"},
		{"two marked done", []formatting.Receipt{done("T1", "Call mum"), done("T2", "Buy stamps")}, "2 tasks marked done", "2 Aufgaben als erledigt markiert"},
		{"started", []formatting.Receipt{set("T1", "Call mum", nod.ToolSetStatus, nod.FieldStatus, "OPEN", "IN_PROGRESS")}, "Changed", "Geändert"},
		{"added beside a change to a task there", []formatting.Receipt{added("T1", "Call mum", nil), done("T2", "Buy stamps")}, "2 changes made", "2 Änderungen übernommen"},
		{"done and reminded", []formatting.Receipt{done("T1", "Call mum"), remind("T2", "Buy stamps", when)}, "2 changes made", "2 Änderungen übernommen"},
	}
	for _, c := range cases {
		for lang, want := range map[string]string{"en": c.en, "de": c.de} {
			html := formatting.For(lang).Changes().Receipts(c.rs).HTML
			if head, _, _ := strings.Cut(html, "\n"); head != "✅ <b>"+want+"</b>" {
				t.Errorf("%s, %s: header %q, want %q", c.name, lang, head, want)
			}
		}
	}
}

// Every kind of change a rule can be earned for reads in words in each
// language: played, /rules showed "set_task_reminder: 1 of 3".
func TestEveryKindHasAName(t *testing.T) {
	t.Parallel()
	kinds := []nod.Tool{nod.ToolCreateTask, nod.ToolSetTitle, nod.ToolUpdateDescription, nod.ToolSetStatus, nod.ToolSetPriority,
		nod.ToolUpdateEstimate, nod.ToolUpdateDueDate, nod.ToolSetReminder, nod.ToolSetRepeat, nod.ToolAssignLabels, nod.ToolSetTimezone,
		nod.ToolAddItem, nod.ToolUpdateItem, nod.ToolRemoveItem, nod.ToolAddItems, nod.ToolUpdateItems, nod.ToolRemoveItems}
	for _, lang := range []string{"en", "de"} {
		for _, tool := range kinds {
			kind := nod.KindOf(tool, "", "")
			switch tool {
			case nod.ToolSetStatus:
				kind = nod.KindOf(tool, nod.FieldStatus, string(nod.StatusDone))
			case nod.ToolSetPriority:
				kind = nod.KindOf(tool, nod.FieldPriority, "P1")
			}
			if name := formatting.For(lang).Rules().Name(kind); strings.Contains(name, "_") || name == "" {
				t.Errorf("%s: the kind %s reads %q", lang, kind, name)
			}
		}
	}
}
