package bot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// Telegram's limits hold for every message nod sends, in every language:
// no part over 4096 characters as Telegram counts them (UTF-16 units of
// the visible text), no keyboard over 100 buttons, no callback data over
// 64 bytes. The inputs are change sets and receipts of up to ten items
// of every kind, with long titles, long texts and German words.
func FuzzMessageLimits(f *testing.F) {
	f.Add("Fix login bug", "Users are logged out after 5 minutes.", "raise it to P1", 3, uint16(0))
	f.Add(strings.Repeat("Überprüfe die Anmeldung für „Kunden“ (ß) ", 30), strings.Repeat("Änderungen an der Größe ", 400), strings.Repeat("mach das ", 200), 10, uint16(0xffff))
	f.Add(strings.Repeat("🚀<b>&", 2000), strings.Repeat("\n", 5000), "", 10, uint16(0x5555))
	f.Fuzz(func(t *testing.T, title, text, quote string, n int, applied uint16) {
		n = 1 + (n%10+10)%10
		// Long enough that ten items overflow a message many times over;
		// bounded, so that an input's word diffs stay quick.
		title, text, quote = cutBytes(title, 600), cutBytes(text, 8000), cutBytes(quote, 600)
		set := nod.ChangeSet{ID: nod.SetID(nod.NewID()), UserID: 42, Status: nod.SetPending, AfterSeq: 1}
		titles := map[nod.TaskID]string{}
		undoable := map[nod.UndoID]bool{}
		var receipts []formatting.Receipt
		for i := 1; i <= n; i++ {
			task := nod.TaskID(fmt.Sprintf("t%03d%s", i, strings.Repeat("x", 6)))
			titles[task] = fmt.Sprintf("%d %s", i, title)
			it := limitItem(i, task, title, text)
			if applied&(1<<i) != 0 {
				it.Status, it.UndoID = nod.ItemConfirmed, nod.UndoID(nod.NewID())
				undoable[it.UndoID] = true
			}
			set.Items = append(set.Items, it)
			done := it
			done.Status, done.UndoID = nod.ItemConfirmed, nod.UndoID(nod.NewID()) // a receipt's item is applied
			receipts = append(receipts, formatting.Receipt{TaskTitle: titles[task], Item: done, Quote: quote})
		}
		for _, lang := range formatting.Languages() {
			loc := formatting.For(lang)
			checkLimits(t, lang+" change set", loc.Changes().ChangeSet(formatting.ChangeSetView{Set: set, Titles: titles, Undoable: undoable, KeepDays: 7}))
			checkLimits(t, lang+" receipts", loc.Changes().Receipts(receipts))
		}
	})
}

// limitItem is item i of a fuzzed set: each of the kinds a set holds in
// turn, made of title and text.
func limitItem(i int, task nod.TaskID, title, text string) nod.ChangeItem {
	it := nod.ChangeItem{ID: nod.NewID(), N: i, TaskID: task, Status: nod.ItemPending}
	switch i % 5 {
	case 0:
		args, _ := json.Marshal(map[string]any{"title": title, "description": text, "priority": "P2", "labels": []string{title, "de"}})
		it.Tool, it.TaskID, it.Summary, it.Field, it.After, it.Args = "create_task", "", "Create "+title, nod.FieldTitle, title, args
	case 1:
		it.Tool, it.Summary, it.Field, it.Before, it.After = "set_task_title", "Rename to "+title, nod.FieldTitle, text, title
	case 2:
		it.Tool, it.Summary, it.Field, it.Before, it.After = "update_task_description", "Update the description", nod.FieldDescription, title+text, text+title
	case 3:
		it.Tool, it.Summary, it.Field, it.After = "add_checklist_item", "Add: "+title, nod.FieldChecklist, title
	default:
		it.Tool, it.Summary, it.Field, it.Before, it.After = "set_task_priority", "Set priority to P1", nod.FieldPriority, "P3", "P1"
	}
	return it
}

// checkLimits sends m through the sender's own steps, the keyboard's
// encoding and the split, and checks each part against Telegram's limits.
func checkLimits(t *testing.T, what string, m formatting.Message) {
	t.Helper()
	kb, err := keyboard(m)
	if err != nil {
		t.Fatalf("%s: keyboard: %v", what, err)
	}
	if n := len(slices.Concat(kb.InlineKeyboard...)); n > formatting.MaxButtons {
		t.Errorf("%s: %d buttons", what, n)
	}
	for _, data := range callbackData(kb) {
		if len(data) > 64 {
			t.Errorf("%s: callback data %q is %d bytes", what, data, len(data))
		}
	}
	for _, a := range m.Bind {
		if _, err := EncodeAction(a); err != nil {
			t.Errorf("%s: bound action %+v: %v", what, a, err)
		}
	}
	for i, part := range formatting.Split(m.HTML) {
		if n := formatting.VisibleLen(part); n > formatting.MaxLen || n == 0 {
			t.Errorf("%s: part %d has %d characters as Telegram counts them", what, i, n)
		}
	}
}

func cutBytes(s string, n int) string { return s[:min(len(s), n)] }

// A short receipt of very many changes with long titles and words is one
// message within Telegram's limits: its lines and the quote are cut.
func TestBulkReceiptLimits(t *testing.T) {
	title, quote := strings.Repeat("Überprüfe „Kunden“ 🚀<b>& ", 40), strings.Repeat("mach das 🚀 ", 200)
	var receipts []formatting.Receipt
	for i := range 200 {
		it := nod.ChangeItem{N: i + 1, Tool: nod.ToolSetTitle, TaskID: nod.TaskID(fmt.Sprintf("t%d", i)), Field: nod.FieldTitle,
			Before: title, After: title + "!", UndoID: nod.UndoID(nod.NewID()), Status: nod.ItemConfirmed}
		receipts = append(receipts, formatting.Receipt{TaskTitle: title, Item: it, Quote: quote})
	}
	for _, lang := range formatting.Languages() {
		m := formatting.For(lang).Changes().Receipts(receipts)
		checkLimits(t, lang+" short receipt", m)
		if parts := formatting.Split(m.HTML); len(parts) != 1 || len(m.Bind) != 200 {
			t.Errorf("%s: %d parts, %d changes bound", lang, len(parts), len(m.Bind))
		}
	}
}
