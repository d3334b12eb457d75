package formatting

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nodbot/nod"
)

// ChangeSetView is what a change-set message shows.
type ChangeSetView struct {
	Set nod.ChangeSet
	// Titles are the current titles of the tasks the items touch.
	Titles map[nod.TaskID]string
	// Trashed holds the tasks among them that are in the trash.
	Trashed map[nod.TaskID]bool
	// Undoable holds the undo entries that can still be undone; Undone
	// those that were: their items were applied and taken back since.
	Undoable map[nod.UndoID]bool
	Undone   map[nod.UndoID]bool
	// Failed is the item confirm-all stopped at, or 0.
	Failed int
	// KeepDays is how long Keep extends a set that warns of its expiry.
	KeepDays int
	// Who is the person the set is for, named in a group; "" in a
	// private chat.
	Who string
}

// The templates of change sets.
var (
	csHeader      = define[setHeader]("cs_header")
	newTask       = fixed("new_task")
	taskGone      = fixed("task_gone")
	taskTrashed   = define[string]("task_trashed")
	scalarLine    = define[scalarChange]("scalar_line")
	diffBefore    = fixed("diff_before")
	diffAfter     = fixed("diff_after")
	diffEmpty     = fixed("diff_empty")
	diffMore      = define[int]("diff_more")
	diffTooLong   = define[textLengths]("diff_too_long")
	overrideTmpl  = define[override]("override")
	createDetails = define[newTaskDetails]("create_details")
	csFooter      = define[setFooter]("cs_footer")
	itemWhy       = define[string]("item_why") // the model's words beside its call
	itemWhyFor    = define[whyFor]("item_why_for")

	reproposeButton   = fixed("b_repropose")
	applyAnywayButton = define[int]("b_apply_anyway")
	skipItemButton    = define[int]("b_skip_item")
	retryButton       = fixed("b_retry")
	skipRestButton    = fixed("b_skip_rest")
	abortButton       = fixed("b_abort")
	confirmAllButton  = fixed("b_confirm_all")
	rejectAllButton   = fixed("b_reject_all")
	keepButton        = define[int]("b_keep") // days; 0 says no number
)

// setHeader is what a change set's header says of it: whether a review
// proposed it, whether it is Decided or Closed undecided, and in a group
// Who it is for.
type setHeader struct {
	Review, Decided, Closed bool
	Who                     string
}

// scalarChange is a scalar field's change, both values as the person
// reads them; Removed, for labels, names those it takes away, so that a
// new set never drops one unsaid (docs/design.md §3.5).
type scalarChange struct {
	Field         nod.Field
	Before, After string
	Removed       string
}

// textLengths are the lengths in runes of a text before and after.
type textLengths struct{ Before, After int }

// override is why the agent wants to change an item the person set:
// ByYou when they did, At when.
type override struct {
	Reason string
	ByYou  bool
	At     string
}

// newTaskDetails is what a new task gets besides its title, as the
// person reads it; More counts the description's characters left out.
type newTaskDetails struct {
	Priority, Due, Estimate, Labels, Description string
	More                                         int
}

// setFooter is what a change set's footer says of its outcome.
type setFooter struct {
	Status                          string
	Pending, Applied, Undone, Total int
	Only                            int    // the number of the one item pending, when one is
	Failed                          int    // the item confirm-all stopped at
	Warned                          bool   // the set warned it expires
	Expires                         string // when, if Warned
	Closed                          bool   // resolved with nothing decided
}

// ChangeSet renders a change set as one message: a header, the items
// grouped by task with a diff each, the outcome, and buttons for the
// pending items. It never exceeds MaxLen: content diffs are shortened
// until it fits. Each text's word diff is computed once, whatever the
// number of tries.
func (cv Changes) ChangeSet(v ChangeSetView) Message {
	segs := map[int][]Segment{}
	for _, it := range v.Set.Items {
		if it.Field == nod.FieldTitle || it.Field == nod.FieldDescription {
			segs[it.N] = WordDiff(it.Before, it.After)
		}
	}
	var html string
	for _, budget := range []int{1500, 600, 200, 60, 0} {
		html = cv.l.renderChangeSet(v, budget, segs)
		if VisibleLen(html) <= MaxLen {
			break
		}
	}
	return Message{HTML: html, Keyboard: cv.l.changeSetKeyboard(v)}
}

// ChangeSetKeyboard is the buttons alone of the message ChangeSet draws.
func (cv Changes) ChangeSetKeyboard(v ChangeSetView) [][]Button { return cv.l.changeSetKeyboard(v) }

func (l *Locale) renderChangeSet(v ChangeSetView, budget int, segs map[int][]Segment) string {
	s := v.Set
	var b strings.Builder
	closed := s.Status == nod.SetResolved && !decidedAny(s)
	b.WriteString(l.Render(csHeader.With(setHeader{Review: s.UserID == 0, Decided: s.Status == nod.SetResolved && !closed, Closed: closed, Who: v.Who})))
	perItem := budget
	if n := len(s.Items); n > 1 {
		perItem = budget / n
	}
	group := "\x00"
	runFrom, runGroup, runSpans := 0, "", false // the items that share the current item's Why, and whether their tasks differ
	for i, it := range s.Items {
		title := l.Render(newTask)
		if it.TaskID == "" && it.NewTask != nil && it.Status == nod.ItemConfirmed && !v.Undone[it.UndoID] {
			// It exists: its heading is the task's, "New task" only while proposed.
			title = it.NewTask.Title
		}
		if it.TaskID != "" {
			title = v.Titles[it.TaskID]
			switch {
			case title == "":
				title = l.Render(taskGone)
			case v.Trashed[it.TaskID]:
				title = l.Render(taskTrashed.With(title))
			}
		}
		key := title
		if it.TaskID == "" {
			key = fmt.Sprintf("\x01%d", it.N) // each new task under a heading of its own
		}
		if it.Field == nod.FieldCall {
			// An external call's heading is its service.
			server, _ := it.Tool.Server()
			if key = "\x02" + server; key != group {
				group = key
				b.WriteString("\n\n" + l.Render(callHeading.With(server)))
			}
		} else if key != group {
			group = key
			b.WriteString("\n\n📋 <b>" + Escape(title) + "</b>")
		}
		if i == 0 || it.Why != s.Items[i-1].Why {
			runFrom, runGroup, runSpans = i, group, false
		} else if group != runGroup {
			runSpans = true
		}
		line, diff := l.itemLines(it, Escape(l.Changes().Summary(it)), l.itemDiff(it, perItem, segs[it.N]))
		b.WriteString("\n" + markedLine(it, v.Undone[it.UndoID], line, diff))
		if diff != "" {
			b.WriteString("\n" + diff)
		}
		if !it.Note.IsZero() {
			b.WriteString("\n<i>" + Escape(l.Changes().Remark(it.Note)) + "</i>")
		}
		// The model's reason, once under the last of the items it gave
		// it for, naming them when they are more than one task's; a
		// checklist item's own reason shows in its diff.
		if it.Why != "" && it.Reason == "" && (i == len(s.Items)-1 || s.Items[i+1].Why != it.Why) {
			if runSpans {
				b.WriteString("\n" + l.Render(itemWhyFor.With(whyFor{Why: it.Why, Items: itemNumbers(s.Items[runFrom : i+1])})))
			} else {
				b.WriteString("\n" + l.Render(itemWhy.With(it.Why)))
			}
		}
	}
	b.WriteString("\n\n" + l.changeSetFooter(v))
	return b.String()
}

// itemLines says each change once: a scalar change is its one line
// ("Priority: P3 → P1"), a new title is named by its field above Before and
// After; anything else keeps its summary, then its diff.
func (l *Locale) itemLines(it nod.ChangeItem, summary, diff string) (string, string) {
	switch {
	case diff == "":
		return summary, ""
	case it.Field == nod.FieldStatus || it.Field == nod.FieldPriority || it.Field == nod.FieldEstimate || it.Field == nod.FieldDue || it.Field == nod.FieldReminder || it.Field == nod.FieldRepeat || it.Field == nod.FieldLabels:
		return diff, ""
	case it.Field == nod.FieldTitle:
		return l.Field(nod.FieldTitle), diff
	}
	return summary, diff
}

// markedLine is an item's line after its number and state: bold while
// it waits; ✅ once applied, the number not struck (people read a struck
// number beside ✅ as "cancelled"); struck once it did not happen or was
// taken back. A struck item's one line is struck whole ("❌ 2. Priority:
// P2 → P3" struck at its number alone read as if the change stood),
// unless the line or a diff below it has strikes of its own, which inside
// another would read as taken back twice: then its number.
func markedLine(it nod.ChangeItem, undone bool, line, diff string) string {
	var mark string
	switch {
	case it.Status == nod.ItemConfirmed && undone:
		mark = "↩️"
	case it.Status == nod.ItemConfirmed:
		return fmt.Sprintf("✅ %d. %s", it.N, line)
	case it.Status == nod.ItemRejected:
		mark = "❌"
	case it.Status == nod.ItemStale || it.Status == nod.ItemFailed:
		mark = "⚠️"
	default:
		return fmt.Sprintf("<b>%d.</b> %s", it.N, line)
	}
	if diff == "" && !strings.Contains(line, "<s>") {
		return fmt.Sprintf("%s <s>%d. %s</s>", mark, it.N, line)
	}
	return fmt.Sprintf("%s <s>%d.</s> %s", mark, it.N, line)
}

// itemDiff shows what an item changes: scalars as one line, content as
// Before / After with the changed words marked; segs is the content's
// word diff if it was computed before.
func (l *Locale) itemDiff(it nod.ChangeItem, budget int, segs []Segment) string {
	switch it.Field {
	case nod.FieldStatus, nod.FieldPriority, nod.FieldEstimate, nod.FieldDue, nod.FieldReminder, nod.FieldRepeat, nod.FieldLabels:
		sc := scalarChange{Field: it.Field, Before: l.scalarValue(it.Field, it.Before), After: l.scalarValue(it.Field, it.After)}
		if it.Field == nod.FieldLabels {
			sc.Removed = strings.Join(removedLabels(nod.ParseLabels(it.Before), nod.ParseLabels(it.After)), ", ")
		}
		return l.Render(scalarLine.With(sc))
	case nod.FieldTitle, nod.FieldDescription:
		if segs == nil {
			segs = WordDiff(it.Before, it.After)
		}
		return l.contentDiff(segs, it.Before, it.After, budget)
	case nod.FieldTask:
		return l.createDetails(it.NewTask, it.Args)
	case nod.FieldChecklist:
		return l.overrideDetails(it)
	case nod.FieldCall:
		return l.callDetails(it)
	}
	return ""
}

// overrideDetails shows why the agent wants to change the checked state of
// an item the person set, and when they set it.
func (l *Locale) overrideDetails(it nod.ChangeItem) string {
	if it.Reason == "" {
		return ""
	}
	data := override{Reason: it.Reason}
	if b := it.ItemBefore; b != nil && b.CheckedBy.Normalize() == nod.ActorUser {
		data.ByYou = true
		if b.CheckedAt != nil {
			data.At = l.Stamp(*b.CheckedAt)
		}
	}
	return l.Render(overrideTmpl.With(data))
}

// ContentDiff renders Before / After of a text change with the changed
// words marked, each side cut to about budget characters with a note of
// what was left out.
func (cv Changes) ContentDiff(before, after string, budget int) string {
	return cv.l.contentDiff(WordDiff(before, after), before, after, budget)
}

// contentDiff is ContentDiff over the texts' word diff segs.
func (l *Locale) contentDiff(segs []Segment, before, after string, budget int) string {
	if budget <= 0 {
		return l.Render(diffTooLong.With(textLengths{Before: len([]rune(before)), After: len([]rune(after))}))
	}
	side := func(keep Op, label Fixed, full string) string {
		shown, left := cutSegments(segs, keep, budget)
		body := DiffHTML(shown, keep)
		if strings.TrimSpace(full) == "" {
			body = l.Render(diffEmpty)
		}
		if left > 0 {
			body += " " + l.Render(diffMore.With(left))
		}
		return l.Render(label) + ": " + body
	}
	return side(Delete, diffBefore, before) + "\n" + side(Insert, diffAfter, after)
}

// cutSegments keeps the segments of one side up to budget runes. When
// the side is longer, unchanged text is cut down to some context around
// each change (the start before the first, the end after the last, both
// ends of a stretch between two), so that every change stays in view; it
// returns the segments and how many runes it left out.
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
	ctx := max(budget/8, 20)
	var out []Segment
	used, shown := 0, 0
	for i, s := range side {
		r := []rune(s.Text)
		kept := len(r)
		if s.Op == Equal && len(side) > 1 {
			switch first, last := i == 0, i == len(side)-1; {
			case first && len(r) > ctx:
				r, kept = append([]rune("…"), r[len(r)-ctx:]...), ctx
			case last && len(r) > ctx:
				r, kept = append(r[:ctx:ctx], '…'), ctx
			case !first && !last && len(r) > 2*ctx:
				r, kept = append(append(r[:ctx:ctx], []rune(" … ")...), r[len(r)-ctx:]...), 2*ctx
			}
		}
		if used+len(r) > budget {
			r = r[:budget-used]
			out = append(out, Segment{Op: s.Op, Text: string(r)})
			shown += min(len(r), kept)
			break
		}
		out = append(out, Segment{Op: s.Op, Text: string(r)})
		used += len(r)
		shown += kept
	}
	return out, total - shown
}

// createDetails shows the fields a new task is created with. The
// priority every task gets when none is named is not shown: the person
// would read a P2 nobody chose.
func (l *Locale) createDetails(a *nod.Task, args json.RawMessage) string {
	if a == nil {
		return ""
	}
	data := newTaskDetails{Labels: strings.Join(a.Labels, ", ")}
	if named(args, "priority") || a.Priority != nod.P2 {
		data.Priority = string(a.Priority)
	}
	if a.DueDate != "" {
		data.Due = l.Date(a.DueDate)
	}
	if a.EstimateMinutes != nil {
		data.Estimate = l.Minutes(a.EstimateMinutes)
	}
	data.Description, data.More = truncate(a.Description, 300)
	return l.Render(createDetails.With(data))
}

// named reports whether the call's arguments name key with a value.
func named(args json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	v, ok := m[key]
	return ok && string(v) != "null"
}

// decidedAny reports whether the person decided an item of s (confirmed,
// rejected or skipped it): a set closed only by edits, newer proposals or
// changed tasks was decided by nobody, and says so.
func decidedAny(s nod.ChangeSet) bool {
	return slices.ContainsFunc(s.Items, func(it nod.ChangeItem) bool {
		return it.Status == nod.ItemConfirmed || it.Status == nod.ItemRejected || it.Note.Key == nod.NoteSkipped
	})
}

func (l *Locale) changeSetFooter(v ChangeSetView) string {
	s := v.Set
	applied, undone := 0, 0
	for _, it := range s.Items {
		switch {
		case it.Status == nod.ItemConfirmed && v.Undone[it.UndoID]:
			undone++
		case it.Status == nod.ItemConfirmed:
			applied++
		}
	}
	// Applied counts what was applied, undone since or not: "Applied 0
	// of 1" read as never applied.
	data := setFooter{Status: string(s.Status), Pending: len(s.Pending()), Applied: applied + undone, Undone: undone, Total: len(s.Items),
		Failed: v.Failed, Warned: s.Warned, Closed: s.Status == nod.SetResolved && !decidedAny(s)}
	if p := s.Pending(); len(p) == 1 {
		data.Only = p[0]
	}
	if s.Warned {
		data.Expires = l.Stamp(s.ExpiresAt)
	}
	return l.Render(csFooter.With(data))
}

func (l *Locale) changeSetKeyboard(v ChangeSetView) [][]Button {
	s := v.Set
	var rows [][]Button
	if s.Status == nod.SetExpired {
		if len(s.Pending()) > 0 {
			return [][]Button{{l.button(reproposeButton, nod.Action{Kind: nod.ActRepropose, ID: string(s.ID)})}}
		}
		return nil
	}
	pending := s.Pending()
	for _, n := range pending {
		if it, _ := s.Item(n); !it.Note.IsZero() {
			// Its task changed since: the person sees the value now and
			// chooses, instead of a plain ✓.
			rows = append(rows, []Button{
				l.button(applyAnywayButton.With(n), nod.Action{Kind: nod.ActApplyAnyway, ID: string(s.ID), N: n}),
				l.button(skipItemButton.With(n), nod.Action{Kind: nod.ActSkip, ID: string(s.ID), N: n}),
			})
			continue
		}
		rows = append(rows, []Button{
			{Text: fmt.Sprintf("✓ %d", n), Action: nod.Action{Kind: nod.ActConfirm, ID: string(s.ID), N: n}},
			{Text: fmt.Sprintf("✗ %d", n), Action: nod.Action{Kind: nod.ActReject, ID: string(s.ID), N: n}},
		})
	}
	if v.Failed != 0 {
		rows = append(rows, []Button{
			l.button(retryButton, nod.Action{Kind: nod.ActRetry, ID: string(s.ID), N: v.Failed}),
			l.button(skipRestButton, nod.Action{Kind: nod.ActSkipRest, ID: string(s.ID)}),
			l.button(abortButton, nod.Action{Kind: nod.ActAbort, ID: string(s.ID)}),
		})
	}
	var undo []Button
	for _, it := range s.Items {
		if it.Status == nod.ItemConfirmed && it.UndoID != "" && v.Undoable[it.UndoID] {
			undo = append(undo, l.button(undoButton.With(it.N), nod.Action{Kind: nod.ActUndo, ID: string(it.UndoID)}))
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
			l.button(confirmAllButton, nod.Action{Kind: nod.ActConfirmAll, ID: string(s.ID)}),
			l.button(rejectAllButton, nod.Action{Kind: nod.ActRejectAll, ID: string(s.ID)}),
		})
	}
	if s.Warned && len(pending) > 0 {
		rows = append(rows, []Button{l.button(keepButton.With(v.KeepDays), nod.Action{Kind: nod.ActKeep, ID: string(s.ID)})})
	}
	return rows
}

// removedLabels lists the labels of before that after lacks, compared
// ignoring case.
func removedLabels(before, after []string) []string {
	var gone []string
	for _, l := range before {
		if !slices.ContainsFunc(after, func(a string) bool { return strings.EqualFold(a, l) }) {
			gone = append(gone, l)
		}
	}
	return gone
}

// whyFor is the model's reason for items of more than one task, and
// their numbers ("1–3", "2, 4").
type whyFor struct{ Why, Items string }

// itemNumbers names the items' numbers, a run of consecutive ones as
// "1–3".
func itemNumbers(items []nod.ChangeItem) string {
	var parts []string
	for i := 0; i < len(items); {
		j := i
		for j+1 < len(items) && items[j+1].N == items[j].N+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(items[i].N))
		case j == i+1:
			parts = append(parts, strconv.Itoa(items[i].N), strconv.Itoa(items[j].N))
		default:
			parts = append(parts, strconv.Itoa(items[i].N)+"–"+strconv.Itoa(items[j].N))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
