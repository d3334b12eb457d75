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
	switch {
	case len(rs) > 0 && rs[0].Trusted:
		b.WriteString("\n\n<i>Applied without asking: this chat is in trusted mode.</i>")
	case len(rs) > 0:
		var quotes []string
		for _, r := range rs {
			if q := "“" + Escape(r.Quote) + "”"; r.Quote != "" && !slices.Contains(quotes, q) {
				quotes = append(quotes, q)
			}
		}
		if len(quotes) > 0 {
			b.WriteString("\n\n<i>because you said " + strings.Join(quotes, " and ") + "</i>")
		}
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
