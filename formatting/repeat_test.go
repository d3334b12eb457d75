package formatting_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/fixtures/golden"
	"github.com/nodbot/nod/formatting"
	"github.com/nodbot/nod/repeat"
)

// rules are repeating reminders as a task keeps them, read from Monday
// 30 November 2026 at the given local time.
func rule(t *testing.T, rrule string, h, m int) string {
	t.Helper()
	r, err := repeat.Parse(rrule)
	if err != nil {
		t.Fatal(err)
	}
	return r.At(time.Date(2026, 11, 30, h, m, 0, 0, time.UTC)).String()
}

// TestRepeatWords: each rule in words, in every language, one per line.
func TestRepeatWords(t *testing.T) {
	rules := []string{
		rule(t, "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", 8, 0),
		rule(t, "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO", 9, 0),
		rule(t, "FREQ=MONTHLY;BYMONTHDAY=1", 10, 0),
		rule(t, "FREQ=DAILY;COUNT=5", 8, 0),
		rule(t, "FREQ=DAILY", 7, 30),
		rule(t, "FREQ=WEEKLY", 18, 0),
		rule(t, "FREQ=WEEKLY;BYDAY=MO,WE,FR", 6, 45),
		rule(t, "FREQ=MONTHLY;BYMONTHDAY=-1,2,3,22", 12, 0),
		rule(t, "FREQ=MONTHLY", 8, 0),
		rule(t, "FREQ=YEARLY", 9, 0),
		rule(t, "FREQ=DAILY;INTERVAL=3;UNTIL=20261231", 21, 0),
	}
	for _, lang := range formatting.Languages() {
		l := formatting.For(lang)
		var b strings.Builder
		for _, r := range rules {
			b.WriteString(repeat.Show(r) + "\n  " + l.Repeat(r) + "\n")
		}
		b.WriteString("(none)\n  " + l.Repeat("") + "\n")
		// A receipt: the reminder's time and its rule, each with its Undo.
		m := l.Changes().Receipts([]formatting.Receipt{
			{TaskTitle: "Stretch", Quote: "remind me every weekday at 8 to stretch",
				Item: nod.ChangeItem{N: 1, Tool: nod.ToolSetReminder, TaskID: "T1", Field: nod.FieldReminder, After: "2026-11-30T07:00:00Z", UndoID: "u1"}},
			{TaskTitle: "Stretch", Quote: "remind me every weekday at 8 to stretch",
				Item: nod.ChangeItem{N: 2, Tool: nod.ToolSetRepeat, TaskID: "T1", Field: nod.FieldRepeat, After: rules[0], UndoID: "u2"}},
		})
		next := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
		done := l.Day().ReminderDone(nod.Task{ID: "T1", Title: "Stretch", Status: nod.StatusOpen, RemindAt: &next, Repeat: rules[0]}, "u3", "")
		golden.Check(t, lang+"/repeat", "repeating reminders in words; a receipt; a repeating reminder's ✓ Done",
			append(append([]golden.Section{{Name: "words", Data: b.String()}}, render(m)...), render(done)...)...)
	}
}
