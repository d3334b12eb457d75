package formatting_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// englishWords are words nod's English templates use that German output
// must never show outside quoted text (the person's or the model's words,
// task titles).
var englishWords = []string{"the", "and", "applied", "undone", "confirmed", "rejected", "executed", "queued", "failed", "blocked",
	"always", "trusted", "your", "nothing", "none", "proposal", "minutes", "priority", "checklist", "estimate", "change", "changes",
	"already", "please", "task", "tasks", "done", "undo", "redo", "skip", "retry", "abort"}

// quoted is what is not nod's own German: text nod quotes („…“, “…”,
// "…"), code, and commands (/tasks, /mode always).
var quoted = regexp.MustCompile(`„[^“]*“|“[^”]*”|"[^"]*"|<code>[^<]*</code>|/mode \w+|/\w+`)

// fixtureText is English the tests give nod as task data.
var buttonLabels = regexp.MustCompile(` → [^\]]*\]`)

var fixtureText = []string{"users are logged out", "explain setup", "across reloads"}

// TestGermanGoldensAreGerman scans every German golden file's text for
// English words outside quotes.
func TestGermanGoldensAreGerman(t *testing.T) {
	files, err := filepath.Glob("../fixtures/golden/de/*/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../fixtures/golden/de/*.txtar")
	files = append(files, more...)
	if len(files) < 50 {
		t.Fatalf("only %d German golden files", len(files))
	}
	notesFile := "../fixtures/golden/de/notes.txtar"
	word := regexp.MustCompile(`\b(` + strings.Join(englishWords, "|") + `)\b`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range txtar.Parse(b).Files {
			if !strings.HasPrefix(file.Name, "text") && !strings.HasSuffix(file.Name, "buttons") && file.Name != "messages" {
				continue
			}
			english := false // between /lang en and /lang auto nod writes English on purpose
			for i, line := range strings.Split(string(file.Data), "\n") {
				switch {
				case strings.Contains(line, "I'll write in English"):
					english = true
				case strings.Contains(line, "Ich schreibe in diesem Chat auf Deutsch"):
					english = false
				}
				if english {
					continue
				}
				if strings.HasPrefix(line, "you  ›") || strings.HasPrefix(line, "📋 ") || slices.ContainsFunc(fixtureText, func(s string) bool {
					return strings.Contains(strings.ToLower(line), s)
				}) {
					continue // the person's own words; a task's title or description
				}
				if strings.HasSuffix(file.Name, "buttons") {
					line = buttonLabels.ReplaceAllString(line, "]") // callback data is not shown
				}
				if f == notesFile {
					_, line, _ = strings.Cut(line, ": ") // after the test's key and arguments
				}
				rest := quoted.ReplaceAllString(strings.ToLower(line), "")
				if m := word.FindString(rest); m != "" {
					t.Errorf("%s (%s line %d): English %q in %q", filepath.Base(f), file.Name, i+1, m, line)
				}
			}
		}
	}
}

// Undo entries keep the English summary nod wrote when the change was
// made; German messages about them say what the change did in German,
// from the typed change, and never show the stored English.
func TestGermanUndoMessagesShowNoStoredEnglish(t *testing.T) {
	de := formatting.For("de")
	const stored = "STORED ENGLISH"
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	item := &nod.ChecklistItem{ID: "c1", Title: "Tests schreiben", CheckedBy: nod.ActorUser}
	ticked := &nod.ChecklistItem{ID: "c1", Title: "Tests schreiben", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &at}
	changes := map[string]nod.UndoEntry{
		"priority": {Tool: "set_task_priority", Change: nod.Change{Fields: []nod.FieldChange{{Field: nod.FieldPriority, Before: "P3", After: "P1"}}}},
		"labels":   {Tool: "assign_task_labels", Change: nod.Change{Fields: []nod.FieldChange{{Field: nod.FieldLabels, Before: `["bug"]`, After: `["auth","bug"]`}}}},
		"add":      {Tool: "add_checklist_item", Change: nod.Change{Items: []nod.ItemChange{{After: item}}}},
		"tick":     {Tool: "update_checklist_item", Change: nod.Change{Items: []nod.ItemChange{{Before: item, After: ticked}}}},
		"remove":   {Tool: "remove_checklist_item", Change: nod.Change{Items: []nod.ItemChange{{Before: item}}}},
	}
	for name, u := range changes {
		u.ID, u.Title, u.Summary = "u1", "Login reparieren", stored
		redo := u
		for what, m := range map[string]formatting.Message{
			"undo_stale": de.Undo().Stale(u, nod.Conflict{Field: nod.FieldPriority}, time.Time{}),
			"undone":     de.Undo().Undone(redo),
			"redone":     de.Undo().Redone(u),
		} {
			if strings.Contains(m.HTML, stored) {
				t.Errorf("%s of a %s change shows the stored English summary: %s", what, name, m.HTML)
			}
		}
	}
}

// Every German message about a change is written from the typed change,
// never from the English summary stored with it: each kind of change, in
// each state, shown in a change set, a receipt, a reading, an undo, a
// redo, a stale undo and an undone receipt, with a stored summary that
// would show if anything leaked.
func TestGermanShowsNoStoredEnglish(t *testing.T) {
	de := formatting.For("de")
	const stored = "STORED ENGLISH"
	due := "2026-03-20"
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	open := &nod.ChecklistItem{ID: "c1", Title: "Tests schreiben", CheckedBy: nod.ActorUser}
	ticked := &nod.ChecklistItem{ID: "c1", Title: "Tests schreiben", Checked: true, CheckedBy: nod.ActorUser, CheckedAt: &at}
	renamed := &nod.ChecklistItem{ID: "c1", Title: "Mehr Tests schreiben", CheckedBy: nod.ActorUser}
	items := []nod.ChangeItem{
		{Tool: nod.ToolCreateTask, After: "Neue Aufgabe", NewTask: &nod.Task{Title: "Neue Aufgabe", Priority: nod.P2, DueDate: due}},
		{Tool: nod.ToolSetTitle, Field: nod.FieldTitle, Before: "Login", After: "Login reparieren"},
		{Tool: nod.ToolUpdateDescription, Field: nod.FieldDescription, Before: "alt", After: "neu"},
		{Tool: nod.ToolSetStatus, Field: nod.FieldStatus, Before: "OPEN", After: "DONE"},
		{Tool: nod.ToolSetPriority, Field: nod.FieldPriority, Before: "P3", After: "P1"},
		{Tool: nod.ToolUpdateEstimate, Field: nod.FieldEstimate, Before: "60", After: "90"},
		{Tool: nod.ToolUpdateDueDate, Field: nod.FieldDue, Before: "", After: due},
		{Tool: nod.ToolSetReminder, Field: nod.FieldReminder, Before: "", After: at.Format(time.RFC3339)},
		{Tool: nod.ToolAssignLabels, Field: nod.FieldLabels, Before: `["bug"]`, After: `["auth","bug"]`},
		{Tool: nod.ToolAddItem, After: "Doku schreiben"},
		{Tool: nod.ToolUpdateItem, ItemBefore: open, ItemAfter: ticked},
		{Tool: nod.ToolUpdateItem, ItemBefore: open, ItemAfter: renamed},
		{Tool: nod.ToolRemoveItem, ItemBefore: open},
	}
	var set nod.ChangeSet
	for i, it := range items {
		it.ID, it.N, it.TaskID, it.Summary = "i"+strconv.Itoa(i), i+1, "T1", stored
		if it.Tool == nod.ToolCreateTask {
			it.TaskID = ""
		}
		it.Status = []nod.ItemStatus{nod.ItemPending, nod.ItemConfirmed, nod.ItemRejected, nod.ItemStale}[i%4]
		set.Items = append(set.Items, it)
	}
	set.ID, set.ChatID = "s1", 1
	titles := map[nod.TaskID]string{"T1": "Login reparieren"}
	shown := map[string]string{
		"change set": de.Changes().ChangeSet(formatting.ChangeSetView{Set: set, Titles: titles}).HTML,
		"reading":    de.Changes().Reading(nod.Reading{SetID: "s1", Confirm: []int{1, 2, 3, 4, 5, 6, 7}, Reject: []int{8, 9, 10, 11, 12, 13}}, set).HTML,
	}
	var rs []formatting.Receipt
	for _, it := range set.Items {
		rs = append(rs, formatting.Receipt{TaskTitle: "Login reparieren", Item: it})
	}
	shown["receipts"] = de.Changes().Receipts(rs).HTML
	for _, it := range set.Items {
		u := nod.UndoEntry{ID: nod.UndoID("u-" + it.ID), Tool: it.Tool, TaskID: it.TaskID, Title: "Login reparieren", Summary: stored, Change: changeOf(it)}
		shown["undone "+string(it.Tool)] = de.Undo().Undone(u).HTML
		shown["undone receipt "+string(it.Tool)] = de.Undo().ReceiptUndone(u).HTML
		shown["redone "+string(it.Tool)] = de.Undo().Redone(u).HTML
		shown["stale undo "+string(it.Tool)] = de.Undo().Stale(u, nod.Conflict{Field: it.Field}, time.Time{}).HTML
	}
	for what, html := range shown {
		if strings.Contains(html, stored) {
			t.Errorf("German %s shows the stored English summary:\n%s", what, html)
		}
	}
}

// changeOf is the typed change a change item makes, as an undo entry
// keeps it.
func changeOf(it nod.ChangeItem) nod.Change {
	switch {
	case it.Field != "":
		return nod.Change{Fields: []nod.FieldChange{{Field: it.Field, Before: it.Before, After: it.After}}}
	case it.Tool == nod.ToolAddItem:
		return nod.Change{Items: []nod.ItemChange{{After: &nod.ChecklistItem{ID: "c9", Title: it.After}}}}
	case it.ItemBefore != nil:
		return nod.Change{Items: []nod.ItemChange{{Before: it.ItemBefore, After: it.ItemAfter}}}
	}
	return nod.Change{Fields: []nod.FieldChange{{Field: nod.FieldTrash, Before: nod.TrashedValue, After: ""}}}
}

// An undone receipt names the change from the typed change in English
// too, not from the summary stored with it ("Set status to DONE" read as
// a code beside "Status: back to Open", found in a play).
func TestUndoneReceiptFromTheTypedChange(t *testing.T) {
	redo := nod.UndoEntry{ID: "u1", Tool: nod.ToolSetStatus, Title: "Send the invoice", Summary: "Set status to DONE",
		Change: nod.Change{Fields: []nod.FieldChange{{Field: nod.FieldStatus, Before: "DONE", After: "OPEN"}}}}
	for lang, want := range map[string]string{"en": "<s>Set status to Done</s> on “Send the invoice”: undone, back to <b>Open</b>.", "de": "<s>Status auf Erledigt gesetzt</s> bei „Send the invoice“: rückgängig gemacht, wieder <b>Offen</b>."} {
		if got := formatting.For(lang).Undo().ReceiptUndone(redo).HTML; !strings.Contains(got, want) || strings.Contains(got, "DONE") {
			t.Errorf("%s: %q", lang, got)
		}
	}
}
