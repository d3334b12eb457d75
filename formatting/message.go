package formatting

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
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
	// Bind are actions the message may show later, bound to it when it is
	// sent though not shown: a short receipt's own Undo buttons.
	Bind []nod.Action
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
func (l *Locale) scalarValue(f nod.Field, raw string) string {
	switch f {
	case nod.FieldStatus:
		return l.Status(nod.Status(raw))
	case nod.FieldEstimate:
		if raw == "" {
			return "—"
		}
		n, err := strconv.Atoi(raw)
		if err != nil {
			return raw
		}
		return l.Minutes(&n)
	case nod.FieldDue:
		return l.Date(raw)
	case nod.FieldReminder:
		if raw == "" {
			return l.Render(noneTmpl)
		}
		if t, clock, err := nod.ParseReminderValue(raw); err == nil {
			return l.stampWithClock(t, clock)
		}
	case nod.FieldRepeat:
		return l.Repeat(raw)
	case nod.FieldLabels:
		ls := nod.ParseLabels(raw)
		if len(ls) == 0 {
			return l.Render(noneTmpl)
		}
		return strings.Join(ls, ", ")
	}
	return raw
}

// button is a button labelled c.
func (l *Locale) button(c Content, a nod.Action) Button {
	return Button{Text: buttonText(l.Render(c)), Action: a}
}

// The templates of tasks, the trash and undo.
var (
	noTasks       = fixed("no_tasks")
	taskListTmpl  = define[taskList]("task_list")
	todayTmpl     = define[todayList]("today")
	taskCardTmpl  = define[taskCard]("task_card")
	deleteAsk     = define[deletionAsked]("delete_ask")
	deleteTwin    = define[twinView]("delete_twin")
	backTwin      = define[string]("back_twin")
	trashEmpty    = fixed("trash_empty")
	trashList     = define[trashPage]("trash_list")
	taskInTrash   = define[string]("task_in_trash")
	undoneTmpl    = define[undoText]("undone")
	redoneSince   = fixed("undone_redone_since")
	undoneTrash   = define[trashUndo]("undone_trash")
	receiptUndone = define[receiptUndo]("receipt_undone")
	receiptTrash  = define[trashUndo]("receipt_undone_trash")
	redoneTmpl    = define[redoneText]("redone")
	undoStale     = define[staleUndo]("undo_stale")
	readingTmpl   = define[readingText]("reading")

	undoButton    = define[int]("b_undo") // the item's number, or 0
	reopenButton  = fixed("b_reopen")
	redoButton    = fixed("b_redo")
	undoAnyway    = fixed("b_undo_anyway")
	redoAnyway    = fixed("b_redo_anyway")
	undoLeave     = fixed("b_undo_leave")
	undoLeft      = define[staleUndo]("undo_left")
	restoreButton = define[string]("b_restore")
	keepDeletion  = define[int]("b_keep_deletion") // 0: this one; n: all n of the line
	acceptReading = fixed("b_accept_reading")
	doneList      = define[int]("b_done_list") // how many are done
	openList      = define[int]("b_open_list") // how many are open
)

// taskList is a page of /tasks: Total counts the tasks of its list
// (open or Done, with Label), on page Page of Pages; Today tells what is
// overdue.
type taskList struct {
	Tasks        []nod.Task
	Total        int
	Done         bool
	Label, Today string
	Page, Pages  int
	Now          time.Time
	Group        bool
	Names        map[nod.UserID]string
}

// todayList is /today: More counts the due tasks Due leaves out; Times
// are the day's reminders, sent, to come or done, by time.
type todayList struct {
	nod.TodayList
	Today string
	More  int
	Times []todayReminder
}

// todayReminder is a line of /today's reminders: the task's reminder at
// At, Sent already, or Done this time (a repeating one).
type todayReminder struct {
	nod.Task
	At         *time.Time
	Sent, Done bool
}

// ListView says which page of /tasks a nod.TaskPage is: its list, the
// number its button gave it (0: unknown) and how many tasks a page holds.
type ListView struct {
	nod.TaskList
	Page, PageSize int
	Now            time.Time // a task's upcoming reminder shows beside it
	Group          bool      // the list is a group's: everyone's, not "yours"
	// Names are the group's members by id: an upcoming reminder names
	// whose it is, who alone may move it.
	Names map[nod.UserID]string
}

// trashPage is the trash as /trash shows it: the latest Tasks of Total,
// More left out, and how long the trash Keeps a task.
type trashPage struct {
	Tasks       []nod.Task
	Total, More int
	Keep        time.Duration
}

// undoText reports an undo or a redo. Summary is in the reader's words
// when nod can say what the change did; Stored is the English summary
// kept with the entry. Back is the value an undo put back in Field, when
// it is one a line can show.
type undoText struct{ Title, Summary, Stored, Field, Back string }

// trashUndo reports the undo of a move into or out of the trash: Back
// when the task came back, Created when the undone change created it.
type trashUndo struct {
	Title         string
	Back, Created bool
}

// receiptUndo is a receipt once undone; Named when its summary names
// the task already.
type receiptUndo struct {
	Title, Summary string // Summary in the reader's words, "" when nod cannot say
	Stored         string // the English summary kept with the entry
	Named          bool   // the summary names the task already
	Back           string // the value the field holds again, "" when not one field's
}

// staleUndo says why an undo was refused: the Field, or the checklist
// Item, changed since.
type staleUndo struct {
	Title, Summary, Stored, Field, Item string
	Redo                                bool   // the change is an undo, to be applied again
	Twin                                string // when another task of the title was added since
	TwinDay                             bool   // Twin names its day in words: today, yesterday
	Added                               string // when the task the undo brings back was added, "" if unknown
	AddedDay                            bool
}

// readingText is nod's reading of an answer in words.
type readingText struct {
	Lines    []readingLine
	Reason   string
	Accepted bool
	// Gone are the numbers of the items the answer named that no longer
	// wait for the person (decided, or overtaken by a change made since),
	// in words ("1, 3 and 6"), GoneMany when more than one: shown before
	// it was accepted, it has no line for them.
	Gone     string
	GoneMany bool
}

// readingLine is an item of a reading: confirmed, or else rejected.
type readingLine struct {
	N       int
	Confirm bool
	Summary string
}

// MaxButtons is the most buttons a keyboard may hold: Telegram refuses
// more.
const MaxButtons = 100

// List renders a page of /tasks: one button per task, ◀ / ▶ to the
// pages before and after it, and a button to the done tasks (or back to
// the open ones). A page holds at most MaxButtons-3 tasks.
func (tv Tasks) List(p nod.TaskPage, v ListView) Message {
	n, other := p.Total, p.Done
	if v.Done {
		n, other = p.Done, p.Total
	}
	if n+other == 0 && v.Label == "" {
		return tv.l.Text(noTasks)
	}
	tasks := p.Tasks[:min(len(p.Tasks), MaxButtons-3)]
	pages := max(1, (n+max(v.PageSize, 1)-1)/max(v.PageSize, 1))
	// The number the button gave, kept true to what the read found.
	page := min(max(v.Page, 1), pages)
	switch {
	case !p.Earlier:
		page = 1
	case !p.Later && len(tasks) == len(p.Tasks):
		page = pages
	case page == 1 && pages > 1:
		page = 2
	}
	m := Message{HTML: tv.l.Render(taskListTmpl.With(taskList{Tasks: tasks, Total: n, Done: v.Done, Label: v.Label, Today: v.Today, Page: page, Pages: pages, Now: v.Now, Group: v.Group, Names: v.Names}))}
	for _, t := range tasks {
		m.Keyboard = append(m.Keyboard, []Button{{Text: buttonText(statusIcon(t.Status) + " " + t.Title), Action: nod.Action{Kind: nod.ActOpenTask, ID: string(t.ID)}}})
	}
	ref := func(page int, cursor string) (string, bool) {
		return nod.ListRef{Label: v.Label, Done: v.Done, Page: page, Cursor: cursor}.ID()
	}
	var nav []Button
	if id, ok := ref(page-1, firstOf(p.Cursors)); ok && p.Earlier {
		nav = append(nav, Button{Text: "◀", Action: nod.Action{Kind: nod.ActTaskPage, ID: id, N: nod.PageEarlier}})
	}
	if id, ok := ref(page+1, lastOf(p.Cursors[:len(tasks)])); ok && (p.Later || len(tasks) < len(p.Tasks)) {
		nav = append(nav, Button{Text: "▶", Action: nod.Action{Kind: nod.ActTaskPage, ID: id, N: nod.PageLater}})
	}
	if len(nav) > 0 {
		m.Keyboard = append(m.Keyboard, nav)
	}
	// The other list's first page: the done tasks, or back to the open.
	if id, ok := (nod.ListRef{Label: v.Label, Done: !v.Done, Page: 1}).ID(); ok && (v.Done || other > 0) {
		c := doneList.With(other)
		if v.Done {
			c = openList.With(other)
		}
		m.Keyboard = append(m.Keyboard, []Button{tv.l.button(c, nod.Action{Kind: nod.ActTaskPage, ID: id, N: nod.PageLater})})
	}
	return m
}

// Today renders /today on day today (YYYY-MM-DD) at now: what is overdue
// or due, and the day's reminders, those sent already (until the task is
// done) and those done this time among them, each task with a button that
// opens it.
func (tv Tasks) Today(l nod.TodayList, today string, now time.Time) Message {
	v := todayList{TodayList: l, Today: today, More: l.DueTotal - len(l.Due)}
	for _, t := range l.Reminders {
		v.Times = append(v.Times, todayReminder{Task: t, At: t.RemindAt, Sent: t.ReminderSent(now)})
	}
	for _, d := range l.Done {
		v.Times = append(v.Times, todayReminder{Task: d.Task, At: &d.At, Done: true})
	}
	slices.SortStableFunc(v.Times, func(a, b todayReminder) int { return a.At.Compare(*b.At) })
	m := Message{HTML: tv.l.Render(todayTmpl.With(v))}
	seen := map[nod.TaskID]bool{}
	tasks := slices.Clip(l.Due)
	for _, r := range v.Times {
		tasks = append(tasks, r.Task)
	}
	for _, t := range tasks {
		if seen[t.ID] || len(m.Keyboard) == MaxButtons {
			continue
		}
		seen[t.ID] = true
		m.Keyboard = append(m.Keyboard, []Button{{Text: buttonText(statusIcon(t.Status) + " " + t.Title), Action: nod.Action{Kind: nod.ActOpenTask, ID: string(t.ID)}}})
	}
	return m
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func lastOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// Card renders a task with its checklist as toggle buttons, and what a
// person does with it: ✓ Done and the reminder's ⏰ on an open task,
// ↩️ Reopen on a closed one. Each of those buttons carries the reminder
// the card shows, so that a tap on a card out of date changes nothing.
func (tv Tasks) Card(t nod.Task, now time.Time) Message {
	c := taskCard{Task: t, Sent: t.ReminderSent(now), Next: tv.l.nextAfterSent(t, now), Rule: tv.ruleWords(t), Now: now}
	if !now.IsZero() {
		c.Today = now.In(tv.l.Zone()).Format(nod.DateLayout)
	}
	m := Message{HTML: tv.l.Render(taskCardTmpl.With(c))}
	for _, it := range t.Checklist {
		// The button says what a tap does, so that a stale card never ticks
		// what the person meant to untick.
		box, want := "⬜", nod.ToggleTick
		if it.Checked {
			box, want = "☑️", nod.ToggleUntick
		}
		m.Keyboard = append(m.Keyboard, []Button{{Text: buttonText(box + " " + it.Title), Action: nod.Action{Kind: nod.ActToggle, ID: string(it.ID), N: want}}})
	}
	if t.Status == nod.StatusDone || t.Status == nod.StatusRejected {
		return m.withRow([]Button{tv.l.button(reopenButton, nod.Action{Kind: nod.ActCardReopen, ID: string(t.ID)})})
	}
	shown := 0
	if t.RemindAt != nil {
		shown = int(t.RemindAt.Unix())
	}
	row := []Button{tv.l.button(remindDoneButton, nod.Action{Kind: nod.ActCardDone, ID: string(t.ID), N: shown})}
	if t.RemindAt != nil {
		row = append(row,
			tv.l.button(remindHourButton, nod.Action{Kind: nod.ActCardHour, ID: string(t.ID), N: shown}),
			tv.l.button(remindTomorrowButton, nod.Action{Kind: nod.ActCardTomorrow, ID: string(t.ID), N: shown}))
	}
	return m.withRow(row)
}

// CardTapped is a task's card after a tap on one of its buttons changed
// it: the task as it is now, with the Undo of that change.
// A closed task's card then has only its Undo: ↩️ Reopen beside ↩️ Undo
// would offer the same twice.
func (tv Tasks) CardTapped(t nod.Task, now time.Time, undoID nod.UndoID) Message {
	m := tv.Card(t, now)
	if t.Status == nod.StatusDone || t.Status == nod.StatusRejected {
		m.Keyboard = m.Keyboard[:len(m.Keyboard)-1]
	}
	return m.withRow([]Button{tv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndo, ID: string(undoID)})})
}

// withRow is m with row of buttons added below its others.
func (m Message) withRow(row []Button) Message {
	m.Keyboard = append(m.Keyboard, row)
	return m
}

// ruleWords is t's repeating reminder's rule in words, "" if it has none.
func (tv Tasks) ruleWords(t nod.Task) string {
	if t.Repeat == "" || t.RemindAt == nil {
		return ""
	}
	return tv.l.Repeat(t.Repeat)
}

// taskCard is a task as its card shows it at a moment, Now (zero: dates
// as they are, else relative to Today, its local date): Sent when its
// reminder went out already; Rule its repeating reminder's rule in words.
type taskCard struct {
	nod.Task
	Sent  bool
	Next  *time.Time // a repeating reminder's next time, once this one went out
	Rule  string
	Now   time.Time
	Today string
}

// buttonText keeps a button label readable; Telegram shows about 64.
func buttonText(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
}

// DeleteAsk asks the person to type a task's title to delete it; keep is
// how long the trash keeps it, behind how many deletions wait after it.
// Its ✗ keeps the task without typing, and with more waiting a second ✗
// keeps them all; only the title deletes.
//
// twin, when another task of the chat has the same title, is the task
// asked about: its line says which of them the title deletes, when it
// was added said relative to now ("today, 10:03"), as the question is
// read when it is sent.
func (tv Tasks) DeleteAsk(d nod.PendingDeletion, keep time.Duration, behind int, twin *nod.Task, now time.Time) Message {
	m := tv.l.Text(deleteAsk.With(deletionAsked{d, keep, behind}))
	if twin != nil {
		// Under the question, before how to answer it.
		q, how, _ := strings.Cut(m.HTML, "\n")
		m.HTML = q + "\n" + tv.twinLine(*twin, false, now) + "\n" + how
	}
	row := []Button{tv.l.button(keepDeletion.With(0), nod.Action{Kind: nod.ActKeepDeletion, ID: string(d.ID), N: nod.KeepOne})}
	if behind > 0 {
		row = append(row, tv.l.button(keepDeletion.With(behind+1), nod.Action{Kind: nod.ActKeepDeletion, ID: string(d.ID), N: nod.KeepLine}))
	}
	m.Keyboard = [][]Button{row}
	return m
}

// DeleteClosed is a deletion's question once closed (end: answered,
// cancelled, its time run out). twin, when another task of the chat has
// the same title, is the task it asked about, gone once deleted: the
// closed question still says which of them it was.
func (tv Tasks) DeleteClosed(end Template[string], title string, twin *nod.Task, gone bool) Message {
	m := tv.l.Text(end.With(title))
	if twin != nil {
		m.HTML += "\n" + tv.twinLine(*twin, gone, time.Time{}) // a record: its dates stay dates
	}
	return m
}

// BackTwin adds to m, which says a task came back to the list (restored,
// its deletion or its creation's Undo taken back), that another task has
// its title: the person may have asked for it anew meanwhile.
func (tv Tasks) BackTwin(m Message, title string) Message {
	m.HTML += "\n" + tv.l.Render(backTwin.With(title))
	return m
}

// twinLine says what tells twin from the other task of its title; when
// it was added is relative to now, unless now is zero.
func (tv Tasks) twinLine(twin nod.Task, gone bool, now time.Time) string {
	w := twinView{Priority: string(twin.Priority), Gone: gone}
	w.Created, w.CreatedDay = tv.l.recentStamp(twin.CreatedAt, now)
	if twin.DueDate != "" {
		w.Due = tv.l.Date(twin.DueDate)
	}
	if twin.RemindAt != nil {
		w.Reminder = tv.l.Stamp(*twin.RemindAt)
	}
	return tv.l.Render(deleteTwin.With(w))
}

// twinView is the task a deletion asks about when another has its
// title: what tells them apart. Gone is once it was deleted.
type twinView struct {
	Priority, Due, Reminder, Created string
	Gone                             bool
	CreatedDay                       bool // Created names its day in words: today, yesterday
}

// deletionAsked is a deletion's question with how long the trash keeps
// the task.
type deletionAsked struct {
	nod.PendingDeletion
	Keep   time.Duration
	Behind int // how many wait after it, cancelled with it
}

// trashShown is how many trashed tasks /trash shows, newest first: each
// has a button, and a keyboard holds 100 at most.
const trashShown = 20

// Trash lists the trash with a Restore button per task, the latest
// deleted first; keep is how long the trash keeps a task.
func (tv Tasks) Trash(tasks []nod.Task, keep time.Duration) Message {
	if len(tasks) == 0 {
		return tv.l.Text(trashEmpty)
	}
	shown := tasks[:min(len(tasks), trashShown)]
	m := tv.l.Text(trashList.With(trashPage{Tasks: shown, Total: len(tasks), More: len(tasks) - len(shown), Keep: keep}))
	for _, t := range shown {
		m.Keyboard = append(m.Keyboard, []Button{tv.l.button(restoreButton.With(t.Title), nod.Action{Kind: nod.ActRestore, ID: string(t.ID)})})
	}
	return m
}

// InTrash says a task tapped in a list is in the trash now, with a
// button that restores it.
func (tv Tasks) InTrash(id nod.TaskID, title string) Message {
	m := tv.l.Text(taskInTrash.With(title))
	m.Keyboard = [][]Button{{tv.l.button(restoreButton.With(title), nod.Action{Kind: nod.ActRestore, ID: string(id)})}}
	return m
}

// Button adds an Undo button for undo entry id to m.
func (uv Undo) Button(m Message, id nod.UndoID) Message {
	m.Keyboard = append(m.Keyboard, []Button{uv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndo, ID: string(id)})})
	return m
}

// Undone reports an undo, with a button that redoes it.
func (uv Undo) Undone(redo nod.UndoEntry) Message {
	var m Message
	if back, ok := trashMove(redo.Change); ok {
		m = uv.l.Text(undoneTrash.With(trashUndo{Title: redo.Title, Back: back, Created: redo.Tool == nod.ToolCreateTask}))
	} else {
		u := undoText{Title: redo.Title, Summary: uv.l.undoneSummary(redo), Stored: redo.Summary}
		u.Field, u.Back = uv.l.wentBack(redo)
		m = uv.l.Text(undoneTmpl.With(u))
	}
	m.Keyboard = [][]Button{{uv.l.button(redoButton, nod.Action{Kind: nod.ActUndo, ID: string(redo.ID)})}}
	return m
}

// UndoneRedone is the message that reported an undo, redo its entry,
// once its Redo put the change back: what it said, struck, and that.
func (uv Undo) UndoneRedone(redo nod.UndoEntry) Message {
	// Struck whole: a strike inside it ("Taken back: <s>…</s>") would
	// read as a strike in a strike.
	html := strings.NewReplacer("<s>", "", "</s>", "").Replace(uv.Undone(redo).HTML)
	return Message{HTML: "<s>" + html + "</s>\n" + uv.l.Render(redoneSince)}
}

// ReceiptUndone is the text a receipt is edited to once the person undid
// its change; redo is the undo's own entry. It carries no buttons.
func (uv Undo) ReceiptUndone(redo nod.UndoEntry) Message {
	if back, ok := trashMove(redo.Change); ok {
		return uv.l.Text(receiptTrash.With(trashUndo{Title: redo.Title, Back: back, Created: redo.Tool == nod.ToolCreateTask}))
	}
	summary := uv.l.undoneSummary(redo)
	named := redo.Title != "" && strings.Contains(cmp.Or(summary, redo.Summary), redo.Title)
	_, back := uv.l.wentBack(redo)
	return uv.l.Text(receiptUndone.With(receiptUndo{Title: redo.Title, Summary: summary, Stored: redo.Summary, Named: named, Back: back}))
}

// wentBack is the one field an undo set back and the value it holds
// again, when the undone change set one field to a value a line can show.
func (l *Locale) wentBack(redo nod.UndoEntry) (field, value string) {
	if fs := redo.Change.Fields; len(fs) == 1 && fs[0].After != "" && fs[0].Field != nod.FieldDescription && fs[0].Field != nod.FieldTrash {
		return string(fs[0].Field), l.scalarValue(fs[0].Field, fs[0].After)
	}
	return "", ""
}

// trashMove reports whether change c only moves a task in or out of the
// trash, and back whether it takes it out.
func trashMove(c nod.Change) (back, ok bool) {
	if len(c.Fields) != 1 || len(c.Items) != 0 || c.Fields[0].Field != nod.FieldTrash {
		return false, false
	}
	return c.Fields[0].After == "", true
}

// redoneText is a Redo's report: the change in the reader's words (Named
// when they name the task already), or, for a move into or out of the
// trash (Trash), where the task is now (Back: on the list).
type redoneText struct {
	Title, Summary, Stored string
	Named, Trash, Back     bool
}

// Redone reports a Redo: the undone change applied again, with an Undo
// button that takes it back once more.
func (uv Undo) Redone(again nod.UndoEntry) Message {
	summary := uv.l.appliedSummary(again)
	data := redoneText{Title: again.Title, Summary: summary, Stored: again.Summary,
		Named: again.Title != "" && strings.Contains(cmp.Or(summary, again.Summary), again.Title)}
	if back, ok := trashMove(again.Change); ok && again.Title != "" {
		data.Trash, data.Back = true, back
	}
	m := uv.l.Text(redoneTmpl.With(data))
	m.Keyboard = [][]Button{{uv.l.button(undoButton.With(0), nod.Action{Kind: nod.ActUndo, ID: string(again.ID)})}}
	return m
}

// Stale says an undo was refused because the task changed since, and
// offers to undo anyway. cf names what changed; now is when it is asked.
func (uv Undo) Stale(u nod.UndoEntry, cf nod.Conflict, now time.Time) Message {
	d := staleUndo{Title: u.Title, Summary: uv.l.appliedSummary(u), Stored: u.Summary, Field: string(cf.Field), Item: cf.Item}
	if !cf.Twin.IsZero() {
		d.Twin, d.TwinDay = uv.l.recentStamp(cf.Twin, now) // "added today, 10:03": asked now
		if !cf.Added.IsZero() {
			d.Added, d.AddedDay = uv.l.recentStamp(cf.Added, now)
		}
	}
	anyway := undoAnyway
	if u.Redoes {
		// u took a change back: undoing it applies that change again.
		d.Redo, d.Summary, anyway = true, uv.l.undoneSummary(u), redoAnyway
	}
	m := uv.l.Text(undoStale.With(d))
	m.Keyboard = [][]Button{{uv.l.button(anyway, nod.Action{Kind: nod.ActUndoForce, ID: string(u.ID)}),
		uv.l.button(undoLeave, nod.Action{Kind: nod.ActUndoLeave, ID: string(u.ID)})}}
	return m
}

// Left is the question Stale asked once the person chose to leave the
// task as it is: what they chose, without buttons.
func (uv Undo) Left(u nod.UndoEntry) Message {
	return uv.l.Text(undoLeft.With(staleUndo{Title: u.Title, Redo: u.Redoes}))
}

// Reading shows nod's reading of a decision the person stated in words,
// with one button that applies it, as set stands now: an item the same
// step's changes overtook (played: "ink is home stuff, not errands"
// labelled it home and turned down the errands label) is not offered,
// and with none left there is no button.
func (cv Changes) Reading(r nod.Reading, set nod.ChangeSet) Message {
	m, open := cv.l.reading(r, set, false)
	if open > 0 {
		m.Keyboard = [][]Button{{cv.l.button(acceptReading, nod.Action{Kind: nod.ActAcceptReading, ID: r.ID})}}
	}
	return m
}

// ReadingAccepted is a reading once its button was tapped: decided as
// read, with no button left.
func (cv Changes) ReadingAccepted(r nod.Reading, set nod.ChangeSet) Message {
	m, _ := cv.l.reading(r, set, true)
	return m
}

// reading renders r and counts its lines: before it was accepted, the
// items that still wait.
func (l *Locale) reading(r nod.Reading, set nod.ChangeSet, accepted bool) (Message, int) {
	v := readingText{Reason: r.Reason, Accepted: accepted}
	var gone []string
	add := func(ns []int, confirm bool) {
		for _, n := range ns {
			it, ok := set.Item(n)
			switch {
			case !ok:
			case accepted || it.Status == nod.ItemPending:
				v.Lines = append(v.Lines, readingLine{n, confirm, l.Changes().Summary(*it)})
			default:
				gone = append(gone, strconv.Itoa(n))
			}
		}
	}
	add(r.Confirm, true)
	add(r.Reject, false)
	if len(gone) > 0 {
		v.Gone, v.GoneMany = l.joinAnd(gone), len(gone) > 1
	}
	return l.Text(readingTmpl.With(v)), len(v.Lines)
}

// stampWithClock is t as the chat reads it, and beside it, for a time
// given in another place's clock, as that place reads it: "14:00 (09:00
// in New York)", the place's date too where it is another
// ("31 Dec 2026, 22:00 (1 Jan 2027, 09:00 in Sydney)").
func (l *Locale) stampWithClock(t time.Time, clock *nod.Clock) string {
	if there := l.elsewhere(t, clock); there != "" {
		return l.Stamp(t) + " (" + there + ")"
	}
	return l.Stamp(t)
}

// stampOn is t as clock, another place's, shows it, with the place
// ("14 Mar 2026, 18:00 in Berlin"); the chat's own stamp for none, or a
// clock like the chat's at t.
func (l *Locale) stampOn(t time.Time, clock *nod.Clock) string {
	if _, here := t.In(l.Zone()).Zone(); clock == nil || clock.Offset == here {
		return l.Stamp(t)
	}
	return l.stampThere(nod.ClockIn(t, *clock))
}

// stampThere is a moment on another place's clock, with the place.
func (l *Locale) stampThere(there time.Time, where string) string {
	return l.Render(stampTmpl.With(l.partsIn(there))) + " " + where
}

// elsewhere is t on clock, another place's, as stampWithClock writes it
// in brackets; "" for none, or a clock like the chat's at t.
func (l *Locale) elsewhere(t time.Time, clock *nod.Clock) string {
	if _, here := t.In(l.Zone()).Zone(); clock == nil || clock.Offset == here {
		return ""
	}
	there, where := nod.ClockIn(t, *clock)
	if !nod.SameDay(there, t.In(l.Zone())) { // the 1st in Sydney is the 31st in London
		return l.stampThere(there, where)
	}
	return nod.ClockTime(t, *clock)
}
