package formatting

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// Receipt is a change applied without asking, for its report.
type Receipt struct {
	TaskTitle string
	Item      nod.ChangeItem // what changed; UndoID names its undo entry
	Quote     string         // the person's words that asked for it
	Trusted   bool           // applied because the chat is in trusted mode
	Rule      *nod.Rule      // the learned rule that applied it, if one did
	// Who is the person the change was for, named in a group; "" in a
	// private chat, where the receipt speaks to "you".
	Who string
	// Call is the external call of a receipt of one (CallReceipt).
	Call *nod.ExternalCall
	// Undone says the change was undone since the receipt went out: a
	// receipt of several redrawn after an Undo of one strikes it out.
	Undone bool
	// Spent says its Undo can no longer be used: expired, or used and the
	// change put back since by a Redo, whose own message has its Undo.
	Spent bool
}

// goneWithTheirTask returns rs with every change to a task whose
// creation rs reports undone marked undone too: the task is in the
// trash, and what else the receipt did to it went with it (its Undo
// would change nothing). A Redo of the creation brings them back.
func goneWithTheirTask(rs []Receipt) []Receipt {
	var gone []nod.TaskID
	for _, r := range rs {
		if r.Undone && r.Item.Tool == nod.ToolCreateTask && r.Item.TaskID != "" {
			gone = append(gone, r.Item.TaskID)
		}
	}
	if len(gone) == 0 {
		return rs
	}
	out := slices.Clone(rs)
	for i, r := range out {
		if slices.Contains(gone, r.Item.TaskID) {
			out[i].Undone = true
		}
	}
	return out
}

// receiptKey names the task a receipt's change is of: its id, or its
// title before it has one.
func receiptKey(r Receipt) string { return cmp.Or(string(r.Item.TaskID), r.TaskTitle) }

// receiptHead is what a receipt's header says was done, by what it
// means to the person rather than by its count of changes: tasks added
// (what else the receipt did to them is part of adding them, and
// Reminders of them got a reminder), reminders set, tasks marked done,
// or else changes. Undone counts what was taken back since: tasks whose
// creation was, for tasks added; else changes.
type receiptHead struct {
	Kind      string // "added", "reminders", "done", "this_time" or "changes"
	N         int    // tasks added, reminders set, tasks marked done, or changes
	Reminders int    // of the tasks added, those given a reminder
	Undone    int
}

func init() { partial[receiptHead]("receipt_head") }

// headChange is what a receipt's header reads of one of its changes.
type headChange struct {
	task     string // names its task
	created  bool   // it added the task
	reminder bool   // it set a reminder, or added the task with one
	done     bool   // it marked the task done
	thisTime bool   // it marked this time of a repeating reminder done
	undone   bool   // it was taken back since
}

// receiptChanges are the changes of receipts rs as their header reads
// them.
func receiptChanges(rs []Receipt) []headChange {
	out := make([]headChange, len(rs))
	for i, r := range rs {
		it := r.Item
		thisTime := it.CompletesOccurrence()
		out[i] = headChange{task: receiptKey(r), created: it.Tool == nod.ToolCreateTask, undone: r.Undone, thisTime: thisTime,
			reminder: it.Tool == nod.ToolSetReminder && it.After != "" && !thisTime || it.NewTask != nil && it.NewTask.RemindAt != nil,
			done:     it.Tool == nod.ToolSetStatus && it.After == string(nod.StatusDone)}
	}
	return out
}

// entryChanges are the changes of undo entries es, a short receipt's,
// as its header reads them; undone are those taken back now.
func entryChanges(es []nod.UndoEntry, undone func(nod.UndoEntry) bool) []headChange {
	out := make([]headChange, len(es))
	for i, u := range es {
		c := headChange{task: cmp.Or(string(u.TaskID), u.Title), created: u.Tool == nod.ToolCreateTask, undone: undone(u), thisTime: u.CompletesOccurrence()}
		for _, f := range u.Change.Fields {
			c.reminder = c.reminder || f.Field == nod.FieldReminder && f.After != "" && (c.created || u.Tool == nod.ToolSetReminder) && !c.thisTime
			c.done = c.done || f.Field == nod.FieldStatus && f.After == string(nod.StatusDone) && u.Tool == nod.ToolSetStatus
		}
		out[i] = c
	}
	return out
}

// headOf is the header of a receipt of cs.
func headOf(cs []headChange) receiptHead {
	added, reminded, gone := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range cs {
		if c.created {
			added[c.task] = true
			if c.undone {
				gone[c.task] = true
			}
		}
	}
	onAdded, reminders, done, thisTime, undone := len(added) > 0, true, true, true, 0
	for _, c := range cs {
		if c.reminder && added[c.task] {
			reminded[c.task] = true
		}
		onAdded = onAdded && added[c.task]
		reminders = reminders && c.reminder && !c.created
		done = done && c.done
		thisTime = thisTime && c.thisTime
		if c.undone {
			undone++
		}
	}
	switch {
	case onAdded:
		return receiptHead{Kind: "added", N: len(added), Reminders: len(reminded), Undone: len(gone)}
	case reminders:
		return receiptHead{Kind: "reminders", N: len(cs), Undone: undone}
	case done:
		return receiptHead{Kind: "done", N: len(cs), Undone: undone}
	case thisTime:
		return receiptHead{Kind: "this_time", N: len(cs), Undone: undone}
	}
	return receiptHead{Kind: "changes", N: len(cs), Undone: undone}
}

// The templates of receipts and modes.
var (
	receiptHeader   = define[receiptHead]("receipt_header") // what was done, not "Done": a reminder's "✅ Done" is a task finished
	receiptAllBack  = fixed("receipt_header_undone")
	receiptSomeBack = define[undoneOf]("receipt_undone_some")
	receiptTrusted  = define[string]("receipt_trusted") // whose mode
	receiptQuote    = define[saidBy]("receipt_quote")
	receiptRule     = define[ruleBy]("receipt_rule")
	modeShow        = define[modeView]("mode_show")
	modeBreaker     = define[breakerUntil]("mode_breaker")
	breakerTmpl     = fixed("breaker")
	breakerBack     = define[string]("breaker_back")  // the mode its button goes back to
	breakerEnded    = define[string]("breaker_ended") // the mode chosen

	modeButton        = define[string]("b_mode")
	breakerBackButton = define[string]("b_breaker_back")
)

func init() { partial[string]("mode_name") }

// saidBy is one person's words that asked for the changes of a receipt;
// Who is "" in a private chat.
type saidBy struct {
	Who    string
	Quotes []string
	More   int // quotes left out: a list of twenty tasks quoted item by item
}

// maxQuotes is how many of one person's quotes a receipt names.
const maxQuotes = 3

// Last reports whether quote i is the last one named with nothing left
// out, so "and" goes before it rather than a comma.
func (s saidBy) Last(i int) bool { return i == len(s.Quotes)-1 && s.More == 0 }

// ruleBy is the learned rule that applied a change, and whose it is.
type ruleBy struct {
	ruleView
	Who string
	// Items are the numbers of the changes the rule applied, in words,
	// when the receipt shows others it did not ("3", "3 and 4"); Many
	// when more than one.
	Items string
	Many  bool
}

// undoneOf is how many changes of a receipt's were undone since, of all.
type undoneOf struct{ N, Of int }

// breakerUntil says until when the circuit breaker asks for everything,
// and the Mode it goes back to then.
type breakerUntil struct{ Until, Mode string }

// Receipts reports changes applied at once: what changed, as a diff, why
// nod did not ask, and an Undo button per change; from BulkAt changes on,
// a short receipt (bulkReceipt). A receipt of several is redrawn with
// the changes undone since struck out, without their Undo; each Undo
// carries its change's number, so that the message can be redrawn from
// its buttons.
func (cv Changes) Receipts(rs []Receipt) Message {
	rs = goneWithTheirTask(rs)
	if len(rs) >= BulkAt {
		return cv.bulkReceipt(rs)
	}
	undone := 0
	for _, r := range rs {
		if r.Undone {
			undone++
		}
	}
	html := cv.l.Render(receiptHeader.With(headOf(receiptChanges(rs))))
	if undone == len(rs) && undone > 0 {
		html = cv.l.Render(receiptAllBack)
	}
	// One heading per task, with the title it has now: a rename in the
	// same turn does not split the task in two.
	titles := map[string]string{}
	for _, r := range rs {
		titles[receiptKey(r)] = r.TaskTitle
	}
	group := "\x00"
	budget := 1500 / max(len(rs), 1)
	for i, r := range rs {
		if receiptKey(r) != group {
			group = receiptKey(r)
			html += "\n\n📋 <b>" + Escape(titles[group]) + "</b>"
		}
		html += "\n"
		switch {
		case len(rs) > 1 && r.Undone:
			html += "↩️ "
		case len(rs) > 1:
			html += strconv.Itoa(i+1) + ". "
		}
		line, diff := cv.l.itemLines(r.Item, Escape(cv.DoneSummary(r.Item)), cv.l.itemDiff(r.Item, budget, nil))
		if len(rs) > 1 && r.Undone {
			// The line struck whole, unless it has a strike of its own
			// (a diff's), which inside another would read as taken back
			// twice: then its number.
			if strings.Contains(line, "<s>") {
				line = "<s>" + strconv.Itoa(i+1) + ".</s> " + line
			} else {
				line = "<s>" + strconv.Itoa(i+1) + ". " + line + "</s>"
			}
		}
		html += line
		if diff != "" {
			html += "\n" + diff
		}
	}
	for _, line := range cv.l.receiptReasons(rs) {
		html += "\n\n" + line
	}
	if undone > 0 && undone < len(rs) {
		html += "\n\n" + cv.l.Render(receiptSomeBack.With(undoneOf{N: undone, Of: len(rs)}))
	}
	m := Message{HTML: html}
	var row []Button
	for i, r := range rs {
		if r.Undone || r.Spent {
			continue
		}
		n := 0
		if len(rs) > 1 {
			n = i + 1
		}
		row = append(row, cv.l.button(undoButton.With(n), nod.Action{Kind: nod.ActUndo, ID: string(r.Item.UndoID), N: n}))
		if len(row) == 4 {
			m.Keyboard = append(m.Keyboard, row)
			row = nil
		}
	}
	if len(row) > 0 {
		m.Keyboard = append(m.Keyboard, row)
	}
	// A rule's change can stop the rule where the person sees it act.
	seen := map[nod.RuleID]bool{}
	for _, r := range rs {
		if r.Rule != nil && !seen[r.Rule.ID] {
			seen[r.Rule.ID] = true
			m.Keyboard = append(m.Keyboard, []Button{cv.l.button(ruleStopButton.With(cv.l.viewRule(*r.Rule)), nod.Action{Kind: nod.ActStopRule, ID: string(r.Rule.ID)})})
		}
	}
	return m
}

// receiptReasons says why nod did not ask: trusted mode, the person's
// words, or their learned rules; in a group, whose each is.
func (l *Locale) receiptReasons(rs []Receipt) []string {
	if len(rs) > 0 && rs[0].Trusted {
		return []string{l.Render(receiptTrusted.With(rs[0].Who))}
	}
	var said []saidBy // in the order people first appear
	for _, r := range rs {
		if r.Quote == "" {
			continue
		}
		i := slices.IndexFunc(said, func(s saidBy) bool { return s.Who == r.Who })
		if i < 0 {
			said = append(said, saidBy{Who: r.Who})
			i = len(said) - 1
		}
		if !slices.Contains(said[i].Quotes, r.Quote) {
			said[i].Quotes = append(said[i].Quotes, r.Quote)
		}
	}
	var out []string
	for _, s := range said {
		// A quote inside another says nothing more: "remind me at 9" beside
		// "remind me at 9 to send the invoice" read as a glitch.
		s.Quotes = slices.DeleteFunc(slices.Clone(s.Quotes), func(q string) bool {
			return slices.ContainsFunc(s.Quotes, func(o string) bool {
				return o != q && strings.Contains(nod.FoldText(o), nod.FoldText(q))
			})
		})
		if len(s.Quotes) > maxQuotes {
			s.Quotes, s.More = s.Quotes[:maxQuotes], len(s.Quotes)-maxQuotes
		}
		out = append(out, l.Render(receiptQuote.With(s)))
	}
	// A rule names its changes where others came from words: played, a
	// task added on request read as added by the labels' rule.
	seen := map[nod.RuleID]bool{}
	for _, r := range rs {
		if r.Rule == nil || seen[r.Rule.ID] {
			continue
		}
		seen[r.Rule.ID] = true
		var ns []string
		for i, o := range rs {
			if o.Rule != nil && o.Rule.ID == r.Rule.ID {
				ns = append(ns, strconv.Itoa(i+1))
			}
		}
		rb := ruleBy{ruleView: l.viewRule(*r.Rule), Who: r.Who}
		if len(ns) < len(rs) {
			rb.Items, rb.Many = l.joinAnd(ns), len(ns) > 1
		}
		out = append(out, l.Render(receiptRule.With(rb)))
	}
	return out
}

// modeView is /mode's card: the mode now, and whether the chat is a group
// (Telegram's group ids are negative), where each member has their own.
type modeView struct {
	Mode  string
	Group bool
}

// ModeChoice shows the chat's mode with a button per mode; s says whether
// the circuit breaker is asking for everything now, and until when.
func (cv Changes) ModeChoice(s nod.ChatSettings, now time.Time) Message {
	current := s.Effective(now)
	m := cv.l.Text(modeShow.With(modeView{Mode: string(current), Group: s.ChatID < 0}))
	if current != s.Mode && s.BreakerUntil != nil {
		m.HTML += "\n" + cv.l.Render(modeBreaker.With(breakerUntil{Until: cv.l.Stamp(*s.BreakerUntil), Mode: string(s.Mode)}))
	}
	var row []Button
	for _, mode := range []nod.Mode{nod.ModeSmart, nod.ModeAlways, nod.ModeTrusted} {
		row = append(row, cv.l.button(modeButton.With(string(mode)), nod.Action{Kind: nod.ActSetMode, ID: string(mode)}))
	}
	m.Keyboard = [][]Button{row}
	return m
}

// BreakerEnded is the breaker's message once the person chose a mode
// with its button: what it said is struck through, and the mode named.
func (cv Changes) BreakerEnded(chosen nod.Mode) Message {
	return cv.l.Text(breakerEnded.With(string(chosen)))
}

// Breaker tells the person the circuit breaker tripped, with a button back
// to the chat's chosen mode and what that mode does: a mode's name alone
// tells someone who never chose one nothing.
func (cv Changes) Breaker(previous nod.Mode) Message {
	m := cv.l.Text(breakerTmpl)
	m.HTML += "\n\n" + cv.l.Render(breakerBack.With(string(previous)))
	m.Keyboard = [][]Button{{cv.l.button(breakerBackButton.With(string(previous)), nod.Action{Kind: nod.ActSetMode, ID: string(previous)})}}
	return m
}
