package formatting

import (
	"strings"

	"github.com/nodbot/nod"
)

// The templates of summaries and notes.
var (
	summaryTmpl = define[summaryData]("summary")
	noteTmpl    = define[nod.Note]("note")
)

func init() {
	partial[string]("field_word")
	partial[nod.Note]("noop")
	partial[string]("minutes_of")
}

// summaryData is what the summary template reads of a change item.
type summaryData struct {
	Tool               nod.Tool
	Value              string
	OldTitle, NewTitle string // checklist item edits
	Rename             bool
	Check              string // "check", "uncheck" or ""
	Fallback           string // the stored summary
	Done               bool   // the change is applied: said as done, not as a to-do
	// Added and Removed are the labels a call of assign_task_labels adds
	// and takes away when it names them rather than the whole set.
	Added, Removed string
	// Call is an external call's risk ("mutate" or "destroy"; "" for nod's
	// own changes), Server its service and ToolName the service's tool.
	Call, Server, ToolName string
}

// Summary is a change item's one-line summary in the locale's language,
// rendered from what the item changes. Items of tools the template does
// not know keep the summary stored with them.
func (cv Changes) Summary(it nod.ChangeItem) string { return cv.l.summary(it, false) }

// DoneSummary is Summary for a change that is applied, as a receipt says
// it: "Priorität auf P1 gesetzt", not "… setzen".
func (cv Changes) DoneSummary(it nod.ChangeItem) string { return cv.l.summary(it, true) }

func (l *Locale) summary(it nod.ChangeItem, done bool) string {
	d := summaryData{Tool: it.Tool, Value: it.After, Fallback: it.Summary, Done: done}
	if it.Field == nod.FieldCall {
		d.Call = it.After
		d.Server, d.ToolName = it.Tool.Server()
	}
	switch it.Tool {
	case nod.ToolAssignLabels:
		d.Value = strings.Join(nod.ParseLabels(it.After), ", ")
	case nod.ToolRemoveItem:
		if it.ItemBefore == nil || it.ItemBefore.Title == "" {
			return it.Summary
		}
		d.OldTitle = it.ItemBefore.Title
	case nod.ToolUpdateItem:
		before, after := it.ItemBefore, it.ItemAfter
		if before == nil || after == nil {
			return it.Summary
		}
		d.OldTitle, d.NewTitle, d.Rename = before.Title, after.Title, before.Title != after.Title
		switch {
		case after.Checked && !before.Checked:
			d.Check = "check"
		case !after.Checked && before.Checked:
			d.Check = "uncheck"
		}
	}
	return l.Render(summaryTmpl.With(d))
}

// Remark renders a note.
func (cv Changes) Remark(n nod.Note) string { return cv.l.Render(noteTmpl.With(n)) }

// appliedSummary says in the locale's words what the change of undo entry
// u did, from its typed change rather than the English summary stored
// with it; "" when the change is not one summaries know.
func (l *Locale) appliedSummary(u nod.UndoEntry) string {
	ch := u.Change
	switch {
	case ch.Created:
		return ""
	case len(ch.Fields) == 1 && ch.Fields[0].Field != nod.FieldTrash:
		f := ch.Fields[0]
		return l.Changes().DoneSummary(nod.ChangeItem{Tool: u.Tool, After: f.After})
	case len(ch.Fields) == 0 && len(ch.Items) == 1:
		ic := ch.Items[0]
		switch {
		case ic.Before == nil && ic.After != nil:
			return l.Changes().DoneSummary(nod.ChangeItem{Tool: nod.ToolAddItem, After: ic.After.Title})
		case ic.After == nil && ic.Before != nil:
			return l.Changes().DoneSummary(nod.ChangeItem{Tool: nod.ToolRemoveItem, ItemBefore: ic.Before})
		case ic.Before != nil:
			return l.Changes().DoneSummary(nod.ChangeItem{Tool: nod.ToolUpdateItem, ItemBefore: ic.Before, ItemAfter: ic.After})
		}
	}
	return ""
}

// undoneSummary says in the locale's words what change an undo took back
// ("Status auf Erledigt gesetzt", done, not "… setzen", a request),
// from the undo's own change (the inverse of the one undone); "" when the
// change is not one summaries know.
func (l *Locale) undoneSummary(redo nod.UndoEntry) string {
	inv := redo.Change
	tool := redo.Tool
	switch {
	case len(inv.Fields) == 1 && inv.Fields[0].Field != nod.FieldTrash:
		f := inv.Fields[0]
		return l.Changes().DoneSummary(nod.ChangeItem{Tool: tool, After: f.Before}) // what the undone change had set
	case len(inv.Items) == 1:
		ic := inv.Items[0]
		switch {
		case ic.After == nil: // the undone change added it
			return l.Changes().DoneSummary(nod.ChangeItem{Tool: nod.ToolAddItem, After: ic.Before.Title})
		case ic.Before == nil: // it removed it
			return l.Changes().DoneSummary(nod.ChangeItem{Tool: nod.ToolRemoveItem, ItemBefore: ic.After})
		default:
			return l.Changes().DoneSummary(nod.ChangeItem{Tool: nod.ToolUpdateItem, ItemBefore: ic.After, ItemAfter: ic.Before})
		}
	}
	return ""
}
