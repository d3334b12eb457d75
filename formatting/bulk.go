package formatting

import (
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/nodbot/nod"
)

// BulkAt is the number of changes from which a receipt is short: a line
// per change and one Undo all. Up to three, each change's diff and its
// own Undo still fit a phone's screen and one row of buttons; a
// twenty-three-part receipt with twenty-three Undo buttons does not.
const BulkAt = 4

// The most changes a short receipt names, and how many Undo buttons a
// page of Undo one… shows: the rest are counted ("… and 8 more") and
// paged.
const (
	bulkLines = 15
	undoPage  = 8
)

// The templates of a short receipt.
var (
	bulkHeader     = define[receiptHead]("receipt_bulk")
	bulkLine       = define[bulkItem]("receipt_bulk_line")
	bulkMore       = define[int]("receipt_bulk_more")
	bulkUndone     = define[receiptHead]("receipt_bulk_undone") // what an Undo all took back
	undoAllButton  = fixed("b_undo_all")
	undoOneButton  = fixed("b_undo_one")
	undoItemButton = define[bulkItem]("b_undo_item")
	pageButton     = define[pageTurn]("b_undo_page")
)

func init() { partial[bulkItem]("receipt_bulk_body") }

// bulkItem is one change of a short receipt: its number, the task's
// title, and what it did unless it created the task; Undone once it was
// taken back.
type bulkItem struct {
	N       int
	Title   string
	Summary string
	// Text is the description a change wrote, cut: "Updated the
	// description" alone left the person guessing what it says.
	Text   string
	Undone bool
	// Same says the line before is of the same task: the line shows "↳"
	// and what changed, so that a field set on a task just added does
	// not read as another task.
	Same bool
	// Due and Remind are a task added's due date and reminder, as read
	// from the person's words ("by thursday"), for them to check.
	Due, Remind string
}

// added fills in its Due and Remind from the task a line added.
func (cv Changes) added(it *bulkItem, due string, remind *time.Time, clock *nod.Clock) {
	if due != "" {
		it.Due = cv.l.Date(due)
	}
	if remind != nil {
		it.Remind = cv.l.stampWithClock(*remind, clock)
	}
}

// bulkText is the start of the description change it wrote, for its line.
func bulkText(tool nod.Tool, after string) string {
	if tool != nod.ToolUpdateDescription {
		return ""
	}
	return cut(strings.Join(strings.Fields(after), " "), 50)
}

// pageTurn is a button to another page of Undo one…: Page is its
// number, Back whether it lies before this one.
type pageTurn struct {
	Page int
	Back bool
}

// bulkReceipt is Receipts for many changes: one line each (at most
// bulkLines, the rest counted), the person's words once, and Undo all
// beside Undo one…. Each change's own Undo is bound to the message
// (Message.Bind, numbered from 1) without being shown, so that Undo all
// and Undo one… find the changes on the message that was tapped.
// Redrawn, it strikes and counts the changes undone since, and keeps its
// buttons while one of its changes can still be undone from it.
func (cv Changes) bulkReceipt(rs []Receipt) Message {
	live := false // a change whose Undo can still be used
	for _, r := range rs {
		live = live || !r.Undone && !r.Spent
	}
	var b strings.Builder
	b.WriteString(cv.l.Render(bulkHeader.With(headOf(receiptChanges(rs)))))
	for i, r := range rs {
		if i == bulkLines && len(rs) > bulkLines+1 {
			b.WriteString("\n" + cv.l.Render(bulkMore.With(len(rs)-i)))
			break
		}
		it := cv.bulkLineOf(i+1, r)
		it.Same = i > 0 && receiptTask(rs[i-1]) == receiptTask(r)
		b.WriteString("\n" + cv.l.Render(bulkLine.With(it)))
	}
	// The person's words once, cut: a list of twenty tasks is in them.
	said := slices.Clone(rs)
	for i := range said {
		said[i].Quote = cut(said[i].Quote, 300)
	}
	for _, line := range cv.l.receiptReasons(said) {
		b.WriteString("\n\n" + line)
	}
	m := Message{HTML: b.String()}
	first := string(rs[0].Item.UndoID)
	if live {
		m.Keyboard = [][]Button{{
			cv.l.button(undoAllButton, nod.Action{Kind: nod.ActUndoAll, ID: first}),
			cv.l.button(undoOneButton, nod.Action{Kind: nod.ActUndoPick, ID: first, N: 1}),
		}}
	}
	for i, r := range rs {
		m.Bind = append(m.Bind, nod.Action{Kind: nod.ActUndo, ID: string(r.Item.UndoID), N: i + 1})
	}
	return m
}

// receiptTask is the task a receipt's change is of; for a creation, the
// task it added.
func receiptTask(r Receipt) nod.TaskID {
	if r.Item.NewTask != nil && r.Item.NewTask.ID != "" {
		return r.Item.NewTask.ID
	}
	return r.Item.TaskID
}

// bulkLineOf is change n of a short receipt as its line names it.
func (cv Changes) bulkLineOf(n int, r Receipt) bulkItem {
	it := bulkItem{N: n, Title: cut(r.TaskTitle, 60), Undone: r.Undone}
	if r.Item.Tool != nod.ToolCreateTask {
		it.Summary, it.Text = cut(cv.DoneSummary(r.Item), 80), bulkText(r.Item.Tool, r.Item.After)
	} else if t := r.Item.NewTask; t != nil {
		cv.added(&it, t.DueDate, t.RemindAt, t.RemindClock)
	}
	return it
}

// BulkRedrawn is a short receipt's text redrawn after some of its
// changes were undone (Undo one…, Undo all): es are its changes' undo
// entries in the order it lists them, each struck through once undone,
// and the header counts them; said is the rest of the receipt as
// Telegram hands it back, plain (why nod did not ask), which it was sent
// with in italics. The caller gives it its buttons.
func (cv Changes) BulkRedrawn(es []nod.UndoEntry, said string) Message {
	var b strings.Builder
	b.WriteString(cv.l.Render(bulkHeader.With(headOf(entryChanges(es, func(u nod.UndoEntry) bool { return u.UndoneNow })))))
	for i, u := range es {
		if i == bulkLines && len(es) > bulkLines+1 {
			b.WriteString("\n" + cv.l.Render(bulkMore.With(len(es)-i)))
			break
		}
		it := bulkItem{N: i + 1, Title: cut(u.Title, 60), Undone: u.UndoneNow, Same: i > 0 && es[i-1].TaskID == u.TaskID}
		if u.Tool == nod.ToolCreateTask {
			var t nod.Task
			for _, f := range u.Change.Fields {
				if f.Field == nod.FieldDue || f.Field == nod.FieldReminder {
					t.SetValue(f.Field, f.After, time.Time{})
				}
			}
			cv.added(&it, t.DueDate, t.RemindAt, t.RemindClock)
		} else {
			it.Summary = cut(cv.l.appliedSummary(u), 80)
			for _, f := range u.Change.Fields {
				if f.Field == nod.FieldDescription {
					it.Text = bulkText(u.Tool, f.After)
				}
			}
		}
		b.WriteString("\n" + cv.l.Render(bulkLine.With(it)))
	}
	for _, p := range strings.Split(strings.TrimSpace(said), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			b.WriteString("\n\n<i>" + Escape(p) + "</i>")
		}
	}
	return Message{HTML: b.String()}
}

// BulkSaid is what follows a short receipt's lines in its text as
// Telegram hands it back: its first paragraph is the header and lines.
func BulkSaid(text string) string {
	_, said, _ := strings.Cut(text, "\n\n")
	return said
}

// BulkChange is one change of a short receipt that can still be undone,
// as Undo one… lists it: N is its number on the receipt.
type BulkChange struct {
	N      int
	UndoID nod.UndoID
	Title  string
	// Summary says what the change did, unless it created the task: two
	// changes of one task read apart ("Renew passport: Set priority to P1").
	Summary string
}

// BulkChangeOf is change n of a short receipt, undo entry u, as Undo
// one… lists it.
func (cv Changes) BulkChangeOf(n int, u nod.UndoEntry) BulkChange {
	c := BulkChange{N: n, UndoID: u.ID, Title: u.Title}
	if u.Tool != nod.ToolCreateTask {
		c.Summary = cv.l.appliedSummary(u)
	}
	return c
}

// UndoOne is the keyboard of a short receipt showing page page (from 1)
// of its changes that can still be undone, one Undo button each, with
// buttons to the other pages and Undo all. first names the receipt as
// its Undo all does.
func (cv Changes) UndoOne(first nod.UndoID, open []BulkChange, page int) [][]Button {
	pages := max((len(open)+undoPage-1)/undoPage, 1)
	page = min(max(page, 1), pages)
	var kb [][]Button
	for _, c := range open[min((page-1)*undoPage, len(open)):min(page*undoPage, len(open))] {
		it := bulkItem{N: c.N, Title: cut(c.Title, 40)}
		if c.Summary != "" {
			it.Title, it.Summary = cut(c.Title, 20), cut(c.Summary, 24)
		}
		kb = append(kb, []Button{cv.l.button(undoItemButton.With(it), nod.Action{Kind: nod.ActUndo, ID: string(c.UndoID), N: c.N})})
	}
	var turn []Button
	if page > 1 {
		turn = append(turn, cv.l.button(pageButton.With(pageTurn{Page: page - 1, Back: true}), nod.Action{Kind: nod.ActUndoPick, ID: string(first), N: page - 1}))
	}
	if page < pages {
		turn = append(turn, cv.l.button(pageButton.With(pageTurn{Page: page + 1}), nod.Action{Kind: nod.ActUndoPick, ID: string(first), N: page + 1}))
	}
	if len(turn) > 0 {
		kb = append(kb, turn)
	}
	if len(open) > 0 {
		kb = append(kb, []Button{cv.l.button(undoAllButton, nod.Action{Kind: nod.ActUndoAll, ID: string(first)})})
	}
	return kb
}

// UndoOneNear is UndoOne at the page where change n is or was: after
// the person undid n, the page they were on.
func (cv Changes) UndoOneNear(first nod.UndoID, open []BulkChange, n int) [][]Button {
	before := 0
	for _, c := range open {
		if c.N < n {
			before++
		}
	}
	return cv.UndoOne(first, open, before/undoPage+1)
}

// BulkUndone reports an Undo all that took back the changes of a short
// receipt whose undo entries are es: the tasks it added are gone again,
// and what else it did to them with them.
func (cv Changes) BulkUndone(es []nod.UndoEntry) Message {
	return cv.l.Text(bulkUndone.With(headOf(entryChanges(es, func(nod.UndoEntry) bool { return true }))))
}

// cut shortens s to at most n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	// At a word's end when one is near: "to 2 Dec…", not "to 2 Dec 2…".
	keep := n - 1
	if !unicode.IsSpace(r[keep]) {
		if j := lastSpace(r[:keep]); j >= keep/2 {
			keep = j
		}
	}
	return strings.TrimSpace(string(r[:keep])) + "…"
}

// lastSpace is the index of r's last space, or -1.
func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if unicode.IsSpace(r[i]) {
			return i
		}
	}
	return -1
}

// CombinedReceipt is Receipts for the changes of one request that came
// in more than one step (a task created, then its reminder set): one
// Undo takes them all back together, as Undo all does, so its changes
// are bound to the message (Message.Bind) rather than shown one by one.
func (cv Changes) CombinedReceipt(rs []Receipt) Message {
	m := cv.Receipts(rs)
	if len(rs) < 2 || len(rs) >= BulkAt {
		return m // one change, or a short receipt with Undo all already
	}
	kb := [][]Button{{cv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndoAll, ID: string(rs[0].Item.UndoID)})}}
	for _, row := range m.Keyboard {
		if row[0].Action.Kind != nod.ActUndo {
			kb = append(kb, row) // a rule's Stop
		}
	}
	m.Keyboard = kb
	for i, r := range rs {
		m.Bind = append(m.Bind, nod.Action{Kind: nod.ActUndo, ID: string(r.Item.UndoID), N: i + 1})
	}
	return m
}
