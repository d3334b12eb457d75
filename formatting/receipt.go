package formatting

import (
	"cmp"
	"slices"
	"strconv"
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
}

// Receipts reports changes applied at once: what changed, as a diff, why
// nod did not ask, and an Undo button per change.
func (l *Locale) Receipts(rs []Receipt) Message {
	html := l.Render("receipt_header", nil)
	// One heading per task, with the title it has now: a rename in the
	// same turn does not split the task in two.
	key := func(r Receipt) string { return cmp.Or(r.Item.TaskID, r.TaskTitle) }
	titles := map[string]string{}
	for _, r := range rs {
		titles[key(r)] = r.TaskTitle
	}
	group := "\x00"
	budget := 1500 / max(len(rs), 1)
	for i, r := range rs {
		if key(r) != group {
			group = key(r)
			html += "\n\n📋 <b>" + Escape(titles[group]) + "</b>"
		}
		html += "\n"
		if len(rs) > 1 {
			html += strconv.Itoa(i+1) + ". "
		}
		line, diff := l.itemLines(r.Item, Escape(l.DoneSummary(r.Item)), l.itemDiff(r.Item, budget, nil))
		html += line
		if diff != "" {
			html += "\n" + diff
		}
	}
	for _, line := range l.receiptReasons(rs) {
		html += "\n\n" + line
	}
	m := Message{HTML: html}
	var row []Button
	for i, r := range rs {
		n := 0
		if len(rs) > 1 {
			n = i + 1
		}
		row = append(row, l.button("b_undo", n, nod.Action{Kind: nod.ActUndo, ID: r.Item.UndoID}))
		if len(row) == 4 {
			m.Keyboard = append(m.Keyboard, row)
			row = nil
		}
	}
	if len(row) > 0 {
		m.Keyboard = append(m.Keyboard, row)
	}
	// A rule's change can stop the rule where the person sees it act.
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Rule != nil && !seen[r.Rule.ID] {
			seen[r.Rule.ID] = true
			m.Keyboard = append(m.Keyboard, []Button{l.button("b_rule_stop", l.viewRule(*r.Rule), nod.Action{Kind: nod.ActStopRule, ID: r.Rule.ID})})
		}
	}
	return m
}

// receiptReasons says why nod did not ask: trusted mode, the person's
// words, or their learned rules.
func (l *Locale) receiptReasons(rs []Receipt) []string {
	if len(rs) > 0 && rs[0].Trusted {
		return []string{l.Render("receipt_trusted", nil)}
	}
	var quotes, out []string
	for _, r := range rs {
		if r.Quote != "" && !slices.Contains(quotes, r.Quote) {
			quotes = append(quotes, r.Quote)
		}
	}
	if len(quotes) > 0 {
		out = append(out, l.Render("receipt_quote", quotes))
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Rule != nil && !seen[r.Rule.ID] {
			seen[r.Rule.ID] = true
			out = append(out, l.Render("receipt_rule", l.viewRule(*r.Rule)))
		}
	}
	return out
}

// ModeChoice renders /mode: the current mode and a button per mode.
// ModeChoice shows the chat's mode with a button per mode; s says whether
// the circuit breaker is asking for everything now, and until when.
func (l *Locale) ModeChoice(s nod.ChatSettings, now time.Time) Message {
	current := s.Effective(now)
	m := l.Text("mode_show", string(current))
	if current != s.Mode && s.BreakerUntil != nil {
		m.HTML += "\n" + l.Render("mode_breaker", map[string]any{"Until": l.Stamp(*s.BreakerUntil), "Mode": string(s.Mode)})
	}
	var row []Button
	for _, mode := range []nod.Mode{nod.ModeSmart, nod.ModeAlways, nod.ModeTrusted} {
		row = append(row, l.button("b_mode", string(mode), nod.Action{Kind: nod.ActSetMode, ID: string(mode)}))
	}
	m.Keyboard = [][]Button{row}
	return m
}

// Breaker tells the person the circuit breaker tripped, with a button back
// to the chat's chosen mode.
func (l *Locale) Breaker(previous nod.Mode) Message {
	m := l.Text("breaker", nil)
	m.Keyboard = [][]Button{{l.button("b_breaker_back", string(previous), nod.Action{Kind: nod.ActSetMode, ID: string(previous)})}}
	return m
}
