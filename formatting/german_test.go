package formatting_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
			"undo_stale": de.UndoStale(u, nod.Conflict{Field: nod.FieldPriority}),
			"undone":     de.Undone(redo),
			"redone":     de.Redone(u),
		} {
			if strings.Contains(m.HTML, stored) {
				t.Errorf("%s of a %s change shows the stored English summary: %s", what, name, m.HTML)
			}
		}
	}
}
