package formatting

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// ChangeSetView is what a change-set message shows.
type ChangeSetView struct {
	Set nod.ChangeSet
	// Titles are the current titles of the tasks the items touch.
	Titles map[string]string
	// Undoable holds the undo entries that can still be undone.
	Undoable map[string]bool
	// Failed is the item confirm-all stopped at, or 0.
	Failed int
	// KeepDays is how long Keep extends a set that warns of its expiry.
	KeepDays int
}

// ChangeSet renders a change set as one message: a header, the items
// grouped by task with a diff each, the outcome, and buttons for the
// pending items. It never exceeds MaxLen: content diffs are shortened
// until it fits.
func ChangeSet(v ChangeSetView) Message {
	var html string
	for _, budget := range []int{1500, 600, 200, 60, 0} {
		html = renderChangeSet(v, budget)
		if VisibleLen(html) <= MaxLen {
			break
		}
	}
	return Message{HTML: html, Keyboard: changeSetKeyboard(v)}
}

func renderChangeSet(v ChangeSetView, budget int) string {
	s := v.Set
	var b strings.Builder
	if s.UserID == 0 {
		b.WriteString("<b>Suggestions from a review of your tasks</b>")
	} else {
		b.WriteString("<b>Proposed changes</b>")
	}
	perItem := budget
	if n := len(s.Items); n > 1 {
		perItem = budget / n
	}
	group := "\x00"
	for _, it := range s.Items {
		title := "New task"
		if it.TaskID != "" {
			title = v.Titles[it.TaskID]
			if title == "" {
				title = "A task that no longer exists"
			}
		}
		if title != group {
			group = title
			b.WriteString("\n\n📋 <b>" + Escape(title) + "</b>")
		}
		b.WriteString("\n" + itemMark(it) + " " + Escape(it.Summary))
		if d := itemDiff(it, perItem); d != "" {
			b.WriteString("\n" + d)
		}
		if it.Note != "" {
			b.WriteString("\n<i>" + Escape(it.Note) + "</i>")
		}
	}
	b.WriteString("\n\n" + changeSetFooter(v))
	return b.String()
}

func itemMark(it nod.ChangeItem) string {
	switch it.Status {
	case nod.ItemConfirmed:
		return fmt.Sprintf("✅ <s>%d.</s>", it.N)
	case nod.ItemRejected:
		return fmt.Sprintf("❌ <s>%d.</s>", it.N)
	case nod.ItemStale, nod.ItemFailed:
		return fmt.Sprintf("⚠️ <s>%d.</s>", it.N)
	}
	return fmt.Sprintf("<b>%d.</b>", it.N)
}

// itemDiff shows what an item changes: scalars as one line, content as
// Before / After with the changed words marked.
func itemDiff(it nod.ChangeItem, budget int) string {
	switch it.Field {
	case nod.FieldStatus, nod.FieldPriority, nod.FieldEstimate, nod.FieldDue, nod.FieldLabels:
		return fmt.Sprintf("%s: %s → %s", fieldLabels[it.Field], Escape(scalarValue(it.Field, it.Before)), Escape(scalarValue(it.Field, it.After)))
	case nod.FieldTitle, nod.FieldDescription:
		return ContentDiff(it.Before, it.After, budget)
	case nod.FieldTask:
		return createDetails(it.Args)
	case nod.FieldChecklist:
		return overrideDetails(it)
	}
	return ""
}

// overrideDetails shows why the agent wants to change the checked state of
// an item the person set, and when they set it.
func overrideDetails(it nod.ChangeItem) string {
	var args struct {
		Reason string `json:"reason"`
	}
	var before struct {
		By string     `json:"by"`
		At *time.Time `json:"at"`
	}
	if json.Unmarshal(it.Args, &args) != nil || args.Reason == "" {
		return ""
	}
	out := "Reason: “" + Escape(args.Reason) + "”"
	if json.Unmarshal([]byte(it.Before), &before) == nil && before.By == string(nod.ActorUser) {
		if before.At != nil {
			out += "\n<i>You set this item on " + before.At.UTC().Format("2 Jan 2006, 15:04") + ".</i>"
		} else {
			out += "\n<i>You set this item earlier.</i>"
		}
	}
	return out
}

// ContentDiff renders Before / After of a text change with the changed
// words marked, each side cut to about budget characters with a note of
// what was left out.
func ContentDiff(before, after string, budget int) string {
	if budget <= 0 {
		return fmt.Sprintf("<i>(%d → %d characters; too long to show here)</i>", len([]rune(before)), len([]rune(after)))
	}
	segs := WordDiff(before, after)
	side := func(keep Op, label string, full string) string {
		shown, left := cutSegments(segs, keep, budget)
		body := DiffHTML(shown, keep)
		if strings.TrimSpace(full) == "" {
			body = "<i>(empty)</i>"
		}
		if left > 0 {
			body += fmt.Sprintf(" <i>… %d more characters not shown</i>", left)
		}
		return label + ": " + body
	}
	return side(Delete, "Before", before) + "\n" + side(Insert, "After", after)
}

// cutSegments keeps the segments of one side up to budget runes, starting
// shortly before the first change so that it is always in view.
func cutSegments(segs []Segment, keep Op, budget int) ([]Segment, int) {
	var side []Segment
	total := 0
	for _, s := range segs {
		if s.Op == Equal || s.Op == keep {
			side = append(side, s)
			total += len([]rune(s.Text))
		}
	}
	if total <= budget {
		return side, 0
	}
	var out []Segment
	used := 0
	for i, s := range side {
		r := []rune(s.Text)
		if i == 0 && s.Op == Equal && len(r) > budget/4 && len(side) > 1 {
			// Lead in with only the end of a long unchanged start.
			r = append([]rune("…"), r[len(r)-budget/4:]...)
		}
		if used+len(r) > budget {
			r = r[:budget-used]
			out = append(out, Segment{Op: s.Op, Text: string(r)})
			used = budget
			break
		}
		out = append(out, Segment{Op: s.Op, Text: string(r)})
		used += len(r)
	}
	return out, total - used
}

func createDetails(args json.RawMessage) string {
	var a struct {
		Priority        string   `json:"priority"`
		EstimateMinutes *int     `json:"estimate_minutes"`
		DueDate         string   `json:"due_date"`
		Labels          []string `json:"labels"`
		Description     string   `json:"description"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	parts := []string{"Priority: " + Escape(a.Priority)}
	if a.DueDate != "" {
		parts = append(parts, "Due: "+FormatDate(a.DueDate))
	}
	if a.EstimateMinutes != nil {
		parts = append(parts, "Estimate: "+FormatMinutes(a.EstimateMinutes))
	}
	if len(a.Labels) > 0 {
		parts = append(parts, "Labels: "+Escape(strings.Join(a.Labels, ", ")))
	}
	out := strings.Join(parts, " · ")
	if a.Description != "" {
		d, left := truncate(a.Description, 300)
		out += "\n" + Escape(d)
		if left > 0 {
			out += fmt.Sprintf(" <i>… %d more characters</i>", left)
		}
	}
	return out
}

func changeSetFooter(v ChangeSetView) string {
	s := v.Set
	applied := 0
	for _, it := range s.Items {
		if it.Status == nod.ItemConfirmed {
			applied++
		}
	}
	switch {
	case s.Status == nod.SetExpired:
		if len(s.Pending()) > 0 {
			return "<i>This proposal expired; nothing more will be applied from it. Re-propose checks what still makes sense.</i>"
		}
		return "<i>This proposal expired; nothing more will be applied from it.</i>"
	case s.Status == nod.SetResolved:
		return fmt.Sprintf("<b>Applied %d of %d.</b>", applied, len(s.Items))
	case v.Failed != 0:
		return fmt.Sprintf("Stopped at item %d. Retry it, skip it and go on, or abort: the rest is still waiting for you.", v.Failed)
	}
	footer := "Tap ✓ n to apply item n or ✗ n to reject it, or decide all at once."
	if len(s.Pending()) == 1 {
		footer = "Tap ✓ to apply or ✗ to reject."
	}
	if s.Warned {
		footer += "\n⏳ <b>This proposal expires on " + s.ExpiresAt.UTC().Format("2 Jan 2006, 15:04") + "</b> unless you keep it."
	}
	return footer
}

func changeSetKeyboard(v ChangeSetView) [][]Button {
	s := v.Set
	var rows [][]Button
	if s.Status == nod.SetExpired {
		if len(s.Pending()) > 0 {
			return [][]Button{{{Text: "🔁 Re-propose", Action: nod.Action{Kind: nod.ActRepropose, ID: s.ID}}}}
		}
		return nil
	}
	pending := s.Pending()
	for _, n := range pending {
		if it, _ := s.Item(n); it.Note != "" {
			// Its task changed since: the person sees the value now and
			// chooses, instead of a plain ✓.
			rows = append(rows, []Button{
				{Text: fmt.Sprintf("⚠️ Apply anyway %d", n), Action: nod.Action{Kind: nod.ActApplyAnyway, ID: s.ID, N: n}},
				{Text: fmt.Sprintf("Skip %d", n), Action: nod.Action{Kind: nod.ActSkip, ID: s.ID, N: n}},
			})
			continue
		}
		rows = append(rows, []Button{
			{Text: fmt.Sprintf("✓ %d", n), Action: nod.Action{Kind: nod.ActConfirm, ID: s.ID, N: n}},
			{Text: fmt.Sprintf("✗ %d", n), Action: nod.Action{Kind: nod.ActReject, ID: s.ID, N: n}},
		})
	}
	if v.Failed != 0 {
		rows = append(rows, []Button{
			{Text: "🔁 Retry", Action: nod.Action{Kind: nod.ActRetry, ID: s.ID, N: v.Failed}},
			{Text: "⏭ Skip", Action: nod.Action{Kind: nod.ActSkipRest, ID: s.ID}},
			{Text: "⛔ Abort", Action: nod.Action{Kind: nod.ActAbort, ID: s.ID}},
		})
	}
	var undo []Button
	for _, it := range s.Items {
		if it.Status == nod.ItemConfirmed && it.UndoID != "" && v.Undoable[it.UndoID] {
			undo = append(undo, Button{Text: fmt.Sprintf("↩️ Undo %d", it.N), Action: nod.Action{Kind: nod.ActUndo, ID: it.UndoID}})
			if len(undo) == 4 {
				rows = append(rows, undo)
				undo = nil
			}
		}
	}
	if len(undo) > 0 {
		rows = append(rows, undo)
	}
	if len(pending) > 1 && v.Failed == 0 {
		rows = append(rows, []Button{
			{Text: "✓ All", Action: nod.Action{Kind: nod.ActConfirmAll, ID: s.ID}},
			{Text: "✗ All", Action: nod.Action{Kind: nod.ActRejectAll, ID: s.ID}},
		})
	}
	if s.Warned && len(pending) > 0 {
		label := "⏳ Keep it longer"
		if v.KeepDays > 0 {
			label = fmt.Sprintf("⏳ Keep %d more days", v.KeepDays)
		}
		rows = append(rows, []Button{{Text: label, Action: nod.Action{Kind: nod.ActKeep, ID: s.ID}}})
	}
	return rows
}
