package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/tools"
)

// The tools of the operator's MCP servers (docs/design.md §16) reach the
// agent beside nod's own, under the same promise: a read runs at once, a
// mutation is classified like any change, a destructive call always waits
// for a tap, and nod sends each call it lets run exactly once.

// maxExternalResult bounds what the agent is told of a call's result, as
// list_tasks's result is bounded (maxListBytes).
const maxExternalResult = 64 << 10

// externalCall is a mutating or destructive call, waiting to be routed.
type externalCall struct {
	tool nod.ExternalTool
	args json.RawMessage
}

// offerExternal takes the turn's view of the operator's servers: the
// tools offered (and encoded for the request) and the servers down. The
// view holds for the whole turn, so that the tools the model was shown
// are the ones its calls are checked against.
func (t *turn) offerExternal() {
	t.requestTools = t.a.tools
	if t.a.external == nil || t.a.calls == nil {
		return
	}
	t.unavailable = t.a.external.Unavailable()
	list := t.a.external.Tools()
	if len(list) == 0 {
		return
	}
	t.external = make(map[nod.Tool]nod.ExternalTool, len(list))
	for _, et := range list {
		t.external[et.Name] = et
	}
	t.requestTools = encodeWith(t.a.tools, list)
}

// encodeWith appends the external tools to nod's own encoded ones.
func encodeWith(own json.RawMessage, list []nod.ExternalTool) json.RawMessage {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type tool struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	out := make([]tool, 0, len(list))
	for _, et := range list {
		schema := et.Schema
		if len(bytes.TrimSpace(schema)) == 0 || !json.Valid(schema) {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		desc := et.Description
		if desc == "" {
			desc = fmt.Sprintf("Tool %s of the %s service.", et.Tool, et.Server)
		}
		out = append(out, tool{"function", function{string(et.Name), desc, schema}})
	}
	ext := tools.MustJSON(out)
	// Both are JSON arrays: splice them into one.
	own = bytes.TrimSpace(own)
	if len(own) < 2 || string(own) == "[]" {
		return ext
	}
	joined := make([]byte, 0, len(own)+len(ext))
	joined = append(joined, own[:len(own)-1]...)
	joined = append(joined, ',')
	joined = append(joined, ext[1:]...)
	return joined
}

// externalNote tells the agent about the operator's services: that their
// tools follow nod's rules, and which configured ones are down now.
func (t *turn) externalNote() string {
	if t.a.external == nil || t.a.calls == nil || len(t.external) == 0 && len(t.unavailable) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nTools named mcp__SERVICE__TOOL belong to services the operator connected. They follow the same rules as nod's own: reading ones run at once; a call that changes something runs at once only when the user's own words ask for it (the user sees a receipt; nod cannot undo it), otherwise it waits for the user's tap (\"Proposal queued for user review.\"); a call that deletes or cannot be taken back always waits for the tap. Never claim a call ran unless its result says so.\n")
	if len(t.unavailable) > 0 {
		fmt.Fprintf(&b, "These services are configured but not reachable now, so their tools are missing: %s. Tell the user if they ask for one of them; do not guess what it would return.\n", strings.Join(t.unavailable, ", "))
	}
	return b.String()
}

// prepareExternal reads a call of an external tool: an unknown one (or a
// tool of a server that is down) never runs; a read runs at once; a
// mutating or destructive one is the proposal it makes.
func (t *turn) prepareExternal(ctx context.Context, call nod.ToolCall) (*proposal, string) {
	start := time.Now()
	name := nod.Tool(call.Name)
	et, ok := t.external[name]
	if !ok {
		server, _ := name.Server()
		why := fmt.Sprintf("unknown tool %q: no connected service offers it, and nothing was done; use only the tools you were given", call.Name)
		if slices.Contains(t.unavailable, server) {
			why = fmt.Sprintf("tool %q is not available: the service %q is not reachable now, and nothing was done; tell the user it is down", call.Name, server)
		}
		t.record(start, name, nil, nod.OutcomeFailed, why)
		return nil, errorJSON(errors.New(why))
	}
	args, err := externalArgs(call.Arguments)
	if err != nil {
		err = fmt.Errorf("%s: %w", call.Name, err)
		t.record(start, name, nil, nod.OutcomeFailed, nod.Detail(err))
		return nil, errorJSON(err)
	}
	if et.Risk == nod.ReadOnly {
		return nil, t.runRead(ctx, start, et, args)
	}
	return &proposal{start: start, tool: Tool{Name: et.Name, Risk: et.Risk, Description: et.Description}, ext: &externalCall{tool: et, args: args}}, ""
}

// externalArgs reads a call's arguments: a JSON object (empty: none),
// compacted as it is stored and sent.
func externalArgs(raw string) (json.RawMessage, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return json.RawMessage("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("the arguments must be a JSON object: %w", nod.ErrInvalid)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return nil, fmt.Errorf("the arguments must be a JSON object: %w", nod.ErrInvalid)
	}
	return b.Bytes(), nil
}

// runRead runs a read-only call at once and returns its result.
func (t *turn) runRead(ctx context.Context, start time.Time, et nod.ExternalTool, args json.RawMessage) string {
	res, err := t.a.external.Call(ctx, et.Name, args)
	c := nod.ExternalCall{Topic: t.req.Topic, UserID: t.req.UserID, Tool: et.Name, Args: args, State: nod.CallDone, Result: res}
	e := nod.AuditEntry{Tool: et.Name, Outcome: nod.OutcomeExecuted}
	if err != nil {
		c.Err, c.NotSent, e.Outcome, e.Error = nod.Detail(err), errors.Is(err, nod.ErrNotSent), nod.OutcomeFailed, nod.Detail(err)
	} else if res.IsError {
		e.Outcome, e.Error = nod.OutcomeFailed, firstLine(res.Text)
	}
	e.Args = auditArgs(c)
	t.recordEntry(start, e)
	return resultFor(c)
}

// commitExternal routes a mutating or destructive call: a destructive
// one always waits for a tap; a mutating one runs at once when the
// person's words ask for it (or trusted mode, or their learned rule for
// that tool) and waits otherwise.
func (t *turn) commitExternal(ctx context.Context, p *proposal, v confidence.Verdict) string {
	x := p.ext
	summary := externalSummary(x.tool.Name, x.args)
	if x.tool.Risk == nod.Mutating {
		if v.Explicit() {
			return t.runExternal(ctx, p, v.Quote, verdictName(v), nil)
		}
		if rule := t.ruleForKind(ctx, nod.KindOf(x.tool.Name, nod.FieldCall, nod.RiskName(nod.Mutating))); rule != nil {
			return t.runExternal(ctx, p, "", "rule", rule)
		}
	}
	if t.rejectedCall(ctx, x) {
		why := fmt.Sprintf("Not queued: the user rejected %s recently; do not propose it again unless they ask for it.", summary)
		t.recordEntry(p.start, nod.AuditEntry{Tool: x.tool.Name, Args: auditArgs(nod.ExternalCall{Tool: x.tool.Name, Args: x.args}), Outcome: nod.OutcomeBlocked, Error: why})
		return why
	}
	if len(t.items) >= nod.MaxItems {
		why := fmt.Sprintf("The change set is full (%d items); not queued: %s. Propose it again in a later turn, once the user has decided some of the waiting items.", nod.MaxItems, summary)
		t.recordEntry(p.start, nod.AuditEntry{Tool: x.tool.Name, Args: auditArgs(nod.ExternalCall{Tool: x.tool.Name, Args: x.args}), Outcome: nod.OutcomeBlocked, Error: why})
		return why
	}
	t.items = append(t.items, nod.ChangeItem{Tool: x.tool.Name, Args: x.args, Summary: summary, Field: nod.FieldCall, After: nod.RiskName(x.tool.Risk)})
	t.recordEntry(p.start, nod.AuditEntry{Tool: x.tool.Name, Args: auditArgs(nod.ExternalCall{Tool: x.tool.Name, Args: x.args}), Outcome: nod.OutcomeQueued, Verdict: verdictName(v)})
	out := resultQueued
	if x.tool.Risk != nod.Mutating {
		out += "\nThis tool may delete or change what cannot be restored: it always waits for the user's tap, whatever they said."
	} else if v.Answered == confidence.Explicit && v.Default != "" {
		out += "\nIt waits for the user's tap because " + v.Default + "."
	}
	return out
}

// rejectedCall reports whether the person rejected the same call (same
// tool, same arguments) recently: it is not shown again (docs/design.md
// §4).
func (t *turn) rejectedCall(ctx context.Context, x *externalCall) bool {
	args := canonical(x.args)
	for _, r := range t.repeats(ctx).rejections {
		if r.Tool == x.tool.Name && canonical(r.Args) == args {
			return true
		}
	}
	return false
}

// ruleForKind returns the person's active rule for kind, as ruleFor does
// for nod's own changes; nil if none applies.
func (t *turn) ruleForKind(ctx context.Context, kind string) *nod.Rule {
	if kind == "" || t.mode != nod.ModeSmart || t.req.Review || t.req.UserID == 0 || t.forwarded() {
		return nil
	}
	rules := t.rules(ctx)
	for i := range rules {
		if rules[i].Kind == kind && rules[i].Active(t.a.now()) {
			return &rules[i]
		}
	}
	return nil
}

// runExternal runs a mutating call at once: claimed in the database
// first, sent once, its outcome recorded, and a receipt for the person
// (without Undo: nod cannot take it back).
func (t *turn) runExternal(ctx context.Context, p *proposal, quote, verdict string, rule *nod.Rule) string {
	x := p.ext
	c := nod.ExternalCall{Topic: t.req.Topic, UserID: t.req.UserID, Tool: x.tool.Name, Args: x.args}
	if err := t.a.calls.Claim(ctx, &c); err != nil {
		t.a.log.Error("claim external call", "chat", t.req.ChatID, "tool", x.tool.Name, "err", err)
		t.recordEntry(p.start, nod.AuditEntry{Tool: x.tool.Name, Args: auditArgs(nod.ExternalCall{Tool: x.tool.Name, Args: x.args}), Outcome: nod.OutcomeFailed, Error: nod.Detail(err)})
		return errorJSON(fmt.Errorf("%s was not called: %s", x.tool.Name, nod.Detail(err)))
	}
	res, err := t.a.external.Call(ctx, x.tool.Name, x.args)
	c.Result = res
	if err != nil {
		c.Err, c.NotSent = nod.Detail(err), errors.Is(err, nod.ErrNotSent)
	}
	why := quote
	if rule != nil {
		why = "rule " + string(rule.ID) + " (" + rule.Kind + ")"
	}
	// The outcome is recorded even when the turn's time ran out.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failedSaveTimeout)
	defer cancel()
	if ferr := t.a.calls.Finish(fctx, &c, nod.AuditEntry{Verdict: verdict, Reason: why, Duration: time.Since(p.start)}); ferr != nil {
		t.a.log.Error("record external call", "chat", t.req.ChatID, "tool", x.tool.Name, "err", ferr)
	}
	item := nod.ChangeItem{N: len(t.receipts) + 1, Tool: x.tool.Name, Args: x.args, Summary: externalSummary(x.tool.Name, x.args),
		Field: nod.FieldCall, After: nod.RiskName(x.tool.Risk), Status: nod.ItemConfirmed}
	t.receipts = append(t.receipts, nod.Receipt{Item: item, Quote: quote, Trusted: t.mode == nod.ModeTrusted && rule == nil, Rule: rule, Call: &c})
	return resultFor(c)
}

// resultJSON is what the agent is told a call returned.
type resultJSON struct {
	Result     string          `json:"result"`
	Structured json.RawMessage `json:"structured_content,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Truncated  bool            `json:"truncated,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// resultFor is the tool result of call c for the agent, bounded.
func resultFor(c nod.ExternalCall) string {
	if c.NotSent {
		return errorJSON(fmt.Errorf("%s was not called: %s; it did not run", c.Tool, c.Err))
	}
	if c.Err != "" {
		return errorJSON(fmt.Errorf("%s returned no result: %s; it may or may not have run", c.Tool, c.Err))
	}
	r := resultJSON{Result: c.Result.Text, IsError: c.Result.IsError, Truncated: c.Result.Truncated}
	if json.Valid(c.Result.Structured) {
		r.Structured = c.Result.Structured
	}
	out := tools.MustJSON(r)
	if len(out) <= maxExternalResult {
		return string(out)
	}
	// Too long together: the structured content goes, then the text is cut.
	r.Structured, r.Truncated = nil, true
	for {
		out = tools.MustJSON(r)
		if len(out) <= maxExternalResult || r.Result == "" {
			return string(out)
		}
		r.Result = strings.ToValidUTF8(r.Result[:len(r.Result)*7/8], "")
	}
}

// auditArgs is what an external call's audit row records: its server,
// tool and arguments, and its result's first line.
func auditArgs(c nod.ExternalCall) json.RawMessage {
	server, tool := c.Tool.Server()
	rec := map[string]any{"server": server, "tool": tool, "arguments": c.Args}
	if c.State == nod.CallDone {
		rec["result"] = firstLine(c.Result.Text)
		if c.Result.IsError || c.Err != "" {
			rec["is_error"] = true
		}
	}
	return tools.MustJSON(rec)
}

// firstLine is the start of a result for an audit row.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return cutTo(s, 200)
}

// externalSummary is nod's own summary of a call, from its arguments
// (never the model's words about it): the service, the tool, and every
// argument, long values cut to 80 characters.
func externalSummary(name nod.Tool, args json.RawMessage) string {
	server, tool := name.Server()
	s := server + " › " + tool
	if parts := ArgLines(args); len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// ArgLines renders a call's arguments, one "name = value" each, in name
// order: text quoted, other values as JSON, each cut to 80 characters.
func ArgLines(args json.RawMessage) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		var s string
		v := string(obj[k])
		if json.Unmarshal(obj[k], &s) == nil {
			v = fmt.Sprintf("%q", cut(s))
		} else {
			v = cut(v)
		}
		out = append(out, k+" = "+v)
	}
	return out
}
