package formatting

import (
	"fmt"
	"slices"
	"strings"

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
func Receipts(rs []Receipt) Message {
	var b strings.Builder
	b.WriteString("✅ <b>Done</b>")
	group := "\x00"
	budget := 1500 / max(len(rs), 1)
	for i, r := range rs {
		if r.TaskTitle != group {
			group = r.TaskTitle
			b.WriteString("\n\n📋 <b>" + Escape(r.TaskTitle) + "</b>")
		}
		prefix := ""
		if len(rs) > 1 {
			prefix = fmt.Sprintf("%d. ", i+1)
		}
		b.WriteString("\n" + prefix + Escape(r.Item.Summary))
		if d := itemDiff(r.Item, budget); d != "" {
			b.WriteString("\n" + d)
		}
	}
	for _, line := range receiptReasons(rs) {
		b.WriteString("\n\n" + line)
	}
	m := Message{HTML: b.String()}
	var row []Button
	for i, r := range rs {
		label := "↩️ Undo"
		if len(rs) > 1 {
			label = fmt.Sprintf("↩️ Undo %d", i+1)
		}
		row = append(row, Button{Text: label, Action: nod.Action{Kind: nod.ActUndo, ID: r.Item.UndoID}})
		if len(row) == 4 {
			m.Keyboard = append(m.Keyboard, row)
			row = nil
		}
	}
	if len(row) > 0 {
		m.Keyboard = append(m.Keyboard, row)
	}
	return m
}

// receiptReasons says why nod did not ask: trusted mode, the person's
// words, or their learned rules.
func receiptReasons(rs []Receipt) []string {
	if len(rs) > 0 && rs[0].Trusted {
		return []string{Render("receipt_trusted", nil)}
	}
	var quotes, out []string
	rules := map[string]bool{}
	for _, r := range rs {
		if q := "“" + Escape(r.Quote) + "”"; r.Quote != "" && !slices.Contains(quotes, q) {
			quotes = append(quotes, q)
		}
	}
	if len(quotes) > 0 {
		out = append(out, Render("receipt_quote", strings.Join(quotes, " and ")))
	}
	for _, r := range rs {
		if r.Rule != nil && !rules[r.Rule.ID] {
			rules[r.Rule.ID] = true
			out = append(out, Render("receipt_rule", viewRule(*r.Rule)))
		}
	}
	return out
}

// ModeChoice renders /mode: the current mode and a button per mode.
func ModeChoice(current nod.Mode) Message {
	m := Text("mode_show", string(current))
	m.Keyboard = [][]Button{{
		{Text: "🧠 Smart", Action: nod.Action{Kind: nod.ActSetMode, ID: string(nod.ModeSmart)}},
		{Text: "✋ Always ask", Action: nod.Action{Kind: nod.ActSetMode, ID: string(nod.ModeAlways)}},
		{Text: "🔓 Trusted", Action: nod.Action{Kind: nod.ActSetMode, ID: string(nod.ModeTrusted)}},
	}}
	return m
}

// Breaker tells the person the circuit breaker tripped, with a button back
// to the chat's chosen mode.
func Breaker(previous nod.Mode) Message {
	m := Text("breaker", nil)
	label := "🧠 Back to Smart mode"
	if previous == nod.ModeTrusted {
		label = "🔓 Back to trusted mode (not Smart)"
	}
	m.Keyboard = [][]Button{{{Text: label, Action: nod.Action{Kind: nod.ActSetMode, ID: string(previous)}}}}
	return m
}
