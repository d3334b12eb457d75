package formatting

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/nodbot/nod"
)

// The templates of external calls (docs/design.md §16): the receipt of a
// call the person's words ran, a call's arguments in a change set, the
// heading of a service's items, and the report of a call's outcome.
var (
	callReceiptTmpl = define[callReceipt]("call_receipt")
	callArgsTmpl    = define[[]CallArg]("call_args")
	callHeading     = define[string]("call_heading")
	callOutcomeTmpl = define[callOutcome]("call_outcome")
)

// CallArg is one argument of an external call as people read it.
type CallArg struct{ Name, Value string }

// callReceipt is what the receipt of a call says.
type callReceipt struct {
	Server, Tool string
	Quote, Who   string
	Rule         string // the learned rule's kind, if one ran it
	Trusted      bool
	Args         []CallArg
	Failed       bool
	Lost         bool   // no answer came back: whether it happened is unknown
	NotSent      bool   // it never left nod: it did not run
	Error        string // why it failed, its first lines
}

// callOutcome is what a call came to, for its report.
type callOutcome struct {
	Server, Tool string
	Unknown      bool
	// Lost: the call was sent and no answer came back (the connection
	// broke, its time ran out): whether it happened is unknown.
	Lost      bool
	Failed    bool
	Result    string // the first lines of what it returned, or why it failed
	Truncated bool
}

// maxArgValue bounds an argument's value where people read it.
const maxArgValue = 200

// CallArgs reads a call's arguments for people: one per name, in name
// order, text as it is and other values as JSON, each bounded.
func CallArgs(args json.RawMessage) []CallArg {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return nil
	}
	out := make([]CallArg, 0, len(obj))
	for k, raw := range obj {
		v := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			v = s
		}
		v = strings.Join(strings.Fields(v), " ")
		if r := []rune(v); len(r) > maxArgValue {
			v = string(r[:maxArgValue-1]) + "…"
		}
		out = append(out, CallArg{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, b CallArg) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// resultLines is how much of a call's result people are shown.
const resultLines = 8

// shortResult is the start of a call's result for people.
func shortResult(s string) (string, bool) {
	s = strings.TrimSpace(s)
	lines := strings.SplitN(s, "\n", resultLines+1)
	cut := len(lines) > resultLines
	if cut {
		lines = lines[:resultLines]
	}
	s = strings.Join(lines, "\n")
	if r := []rune(s); len(r) > 600 {
		s, cut = string(r[:599])+"…", true
	}
	return s, cut
}

// CallReceipt reports a call the person's words (or their rule, or
// trusted mode) ran: what ran, with its arguments, why nod did not ask,
// and that nod cannot undo it. It carries no Undo button.
func (cv Changes) CallReceipt(r Receipt) Message {
	server, tool := r.Item.Tool.Server()
	data := callReceipt{Server: server, Tool: tool, Quote: r.Quote, Who: r.Who, Trusted: r.Trusted, Args: CallArgs(r.Item.Args)}
	if r.Rule != nil {
		data.Rule = cv.l.viewRule(*r.Rule).Name
		data.Quote = ""
	}
	if c := r.Call; c != nil && (c.Err != "" || c.Result.IsError) {
		data.Failed, data.Lost, data.NotSent = true, c.Err != "" && !c.NotSent, c.NotSent
		data.Error, _ = shortResult(c.Err + c.Result.Text)
	}
	m := Message{HTML: cv.l.Render(callReceiptTmpl.With(data))}
	if r.Rule != nil {
		m.Keyboard = [][]Button{{cv.l.button(ruleStopButton.With(cv.l.viewRule(*r.Rule)), nod.Action{Kind: nod.ActStopRule, ID: string(r.Rule.ID)})}}
	}
	return m
}

// CallOutcome reports what a call came to: its result's first lines, why
// it failed, or, when nod stopped while it was under way, that its
// outcome is unknown and it will not be sent again.
func (cv Changes) CallOutcome(c nod.ExternalCall) Message {
	server, tool := c.Tool.Server()
	data := callOutcome{Server: server, Tool: tool, Unknown: c.State == nod.CallUnknown}
	text := c.Result.Text
	if text == "" && len(c.Result.Structured) > 0 {
		text = string(c.Result.Structured)
	}
	if c.Err != "" || c.Result.IsError {
		data.Failed, text = true, strings.TrimSpace(c.Err+"\n"+c.Result.Text)
	}
	data.Lost = c.Err != "" && !c.NotSent && !data.Unknown
	data.Result, data.Truncated = shortResult(text)
	data.Truncated = data.Truncated || c.Result.Truncated
	return Message{HTML: cv.l.Render(callOutcomeTmpl.With(data))}
}

// auditCall names an external call in an audit line: its service, its
// tool and its first arguments, short.
func auditCall(a nod.AuditEntry) string {
	server, tool := a.Tool.Server()
	s := server + " › " + tool
	var parts []string
	for _, arg := range CallArgs(json.RawMessage(a.Arg("arguments"))) {
		if len(parts) == 2 {
			parts = append(parts, "…")
			break
		}
		v := arg.Value
		if r := []rune(v); len(r) > 40 {
			v = string(r[:39]) + "…"
		}
		parts = append(parts, arg.Name+" = "+v)
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// callDetails shows a waiting call's arguments, as a change's diff.
func (l *Locale) callDetails(it nod.ChangeItem) string {
	args := CallArgs(it.Args)
	if len(args) == 0 {
		return ""
	}
	return l.Render(callArgsTmpl.With(args))
}
