package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
)

// Texts the model receives; outside tests script against some of them.
const (
	resultQueued   = "Proposal queued for user review."
	resultDeletion = "Deletion awaits the user's typed confirmation."
)

// turn is the state of one agent turn.
type turn struct {
	a       *Agent
	req     Request
	started time.Time // on the injected clock
	wall    time.Time // for the log line's duration
	// classified counts classifier requests.
	classified int
	msgs       []nod.ChatMessage
	audit      []nod.AuditEntry
	items      []nod.ChangeItem
	fields     map[string]bool // task id + field proposed or applied in this turn
	seen       map[string]bool // changes proposed or applied in this turn
	history    []nod.ChatMessage
	mode       nod.Mode
	receipts   []Receipt
	notices    []nod.Note // what the person is told beside receipts
	deletion   *nod.PendingDeletion
	// what new proposals are checked against, loaded on first use
	loaded     bool
	rejections []nod.Rejection
	waiting    []waitingItem
	supersede  []nod.ItemRef
	// the person's learned rules, loaded on first use
	rulesLoaded bool
	rules       []nod.Rule
	// the changes the person undid lately, loaded on first use
	undoneLoaded bool
	undone       []nod.UndoEntry
	// asides are what the model wrote beside its tool calls
	asides []string
	// replyItems lists the numbered items of the set the person's message
	// replies to, for the classifier
	replyItems string
	// decisions passed on in the person's words, and readings shown instead
	answered []string
	readings []nod.Reading
	// the pending item the person's reply revises, and the set once revised
	revise  *revision
	revised *nod.ChangeSet
}

type revision struct {
	ref  nod.ItemRef
	item nod.ChangeItem
	key  string // what the item sets, as supersedeKey names it
	done bool
}

// waitingItem is a pending item of an open set.
type waitingItem struct {
	set string
	nod.ChangeItem
}

// step runs the tool calls of one model step and returns their results in
// call order. Read-only calls run at once. The step's mutating calls are
// prepared first; then one classifier request covers all of them, and each
// is applied at once (explicit, or trusted mode) or queued for the person.
func (t *turn) step(ctx context.Context, calls []nod.ToolCall) []string {
	results := make([]string, len(calls))
	var props []*proposal
	for i, c := range calls {
		p, res := t.prepare(ctx, c)
		if p == nil {
			results[i] = res
			continue
		}
		p.idx = i
		props = append(props, p)
	}
	verdicts := t.decide(ctx, props)
	for i, p := range props {
		if verdicts[i].Explicit() && t.mode != nod.ModeTrusted && t.revivesUndone(ctx, p, verdicts[i].QuoteAt) {
			verdicts[i] = confidence.Verdict{Level: confidence.NeedsConfirmation, Reasoning: verdicts[i].Reasoning,
				Default: "the quote predates the person's undo of this change"}
		}
		results[p.idx] = t.commit(ctx, p, verdicts[i])
	}
	return results
}

// undoMemory is how far back an undo keeps an old quote from bringing the
// same change back.
const undoMemory = 30 * 24 * time.Hour

// revivesUndone reports whether p would set a field or checklist item of a
// task to the value of a change the person undid after quoteAt: the
// person's words from before they took it back prove nothing now (DESIGN
// §3). Unknown quote times count as before.
func (t *turn) revivesUndone(ctx context.Context, p *proposal, quoteAt time.Time) bool {
	if !t.undoneLoaded {
		t.undoneLoaded = true
		u, err := t.a.store.UndoneSince(ctx, t.req.ChatID, t.a.now().Add(-undoMemory))
		if err != nil {
			t.a.log.Warn("undone changes", "chat", t.req.ChatID, "err", err)
		}
		t.undone = u
	}
	for _, pc := range p.changes {
		if pc.task == nil {
			continue
		}
		after := pc.task.Clone()
		if pc.c.apply(&after, applyCtx{now: t.a.now(), by: nod.ActorUser}) != nil {
			continue
		}
		ch := nod.Diff(pc.task, after)
		for _, u := range t.undone {
			if u.TaskID == pc.task.ID && u.UndoneAt != nil && !quoteAt.After(*u.UndoneAt) && sameEffect(ch, u.Change) {
				return true
			}
		}
	}
	return false
}

// sameEffect reports whether c sets something to the value undone set it
// to: a field to the same value, an item to the same state, or an added
// item of the same title.
func sameEffect(c, undone nod.Change) bool {
	for _, f := range c.Fields {
		for _, g := range undone.Fields {
			if f.Field == g.Field && f.After == g.After {
				return true
			}
		}
	}
	for _, ic := range c.Items {
		for _, ug := range undone.Items {
			switch {
			case ic.After == nil || ug.After == nil:
				if ic.After == nil && ug.After == nil && ic.ID() == ug.ID() {
					return true // removing the same item again
				}
			case ic.Before == nil && ug.Before == nil:
				if normalize(ic.After.Title) == normalize(ug.After.Title) {
					return true // adding the same item again
				}
			case ic.ID() == ug.ID() && ic.After.Checked == ug.After.Checked && ic.After.Title == ug.After.Title:
				return true
			}
		}
	}
	return false
}

// proposal is a mutating call, validated and compared with the tasks as
// they are, waiting to be routed.
type proposal struct {
	idx     int
	start   time.Time
	tool    Tool
	args    args
	changes []prepared
	dropped []string    // one line per kind of dropped element
	answer  *answerCall // answer_proposals: a decision stated in words
}

// prepared is one change of a proposal with the values it was read with.
type prepared struct {
	c           change
	task        *nod.Task // nil for create_task
	cur, target string
	rule        *nod.Rule // the learned rule that applies it without asking
}

// record audits the outcome of one call.
func (t *turn) record(start time.Time, tool string, a json.RawMessage, o nod.Outcome, errText string) {
	if len(a) == 0 {
		a = json.RawMessage("{}")
	}
	t.audit = append(t.audit, nod.AuditEntry{UserID: t.req.UserID, Tool: tool, Args: a, Outcome: o, Error: errText,
		Duration: time.Since(start), At: t.a.now()})
}

// prepare runs a call that needs no routing and returns its result, or
// returns the proposal a mutating call makes. It never fails: every
// problem becomes a result the model can act on.
func (t *turn) prepare(ctx context.Context, call nod.ToolCall) (*proposal, string) {
	start := time.Now()
	tool, ok := Lookup(call.Name)
	if !ok {
		err := fmt.Sprintf("unknown tool %q: it does not exist and nothing was done; use only the tools you were given", call.Name)
		t.record(start, call.Name, nil, nod.OutcomeFailed, err)
		return nil, errorJSON(errors.New(err))
	}
	a, err := decodeArgs(tool.Name, call.Arguments)
	if err != nil {
		t.record(start, tool.Name, nil, nod.OutcomeFailed, userError(err))
		return nil, errorJSON(err)
	}
	switch tool.Risk {
	case nod.ReadOnly:
		out, err := t.read(ctx, tool, a)
		if err != nil {
			t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, userError(err))
			return nil, errorJSON(err)
		}
		t.record(start, tool.Name, a.JSON(), nod.OutcomeExecuted, "")
		return nil, out
	case nod.Decides:
		call, err := t.prepareAnswer(ctx, a)
		if err != nil {
			t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, userError(err))
			return nil, errorJSON(err)
		}
		return &proposal{start: start, tool: tool, args: a, answer: call}, ""
	case nod.Destructive:
		out, err := t.askDeletion(ctx, a)
		if err != nil {
			t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, userError(err))
			return nil, errorJSON(err)
		}
		t.record(start, tool.Name, a.JSON(), nod.OutcomeQueued, "")
		return nil, out
	}
	p, err := t.validate(ctx, tool, a)
	if err != nil {
		t.record(start, tool.Name, a.JSON(), nod.OutcomeFailed, userError(err))
		return nil, errorJSON(err)
	}
	p.start = start
	if len(p.changes) == 0 {
		out := strings.Join(p.dropped, "\n")
		t.record(start, tool.Name, a.JSON(), nod.OutcomeBlocked, out)
		return nil, out
	}
	return p, ""
}

// askDeletion never deletes: it asks the person to type the task's title,
// whatever the mode and whatever the classifier would say.
func (t *turn) askDeletion(ctx context.Context, a args) (string, error) {
	id, _, err := a.str("task_id", true)
	if err != nil {
		return "", err
	}
	task, err := t.a.store.Task(ctx, t.req.ChatID, strings.TrimSpace(id))
	if errors.Is(err, nod.ErrNotFound) {
		return "", fmt.Errorf("delete_task: task %q does not exist; use only ids from list_tasks or get_task, never invent them: %w", id, nod.ErrInvalid)
	}
	if err != nil {
		return "", err
	}
	t.deletion = &nod.PendingDeletion{ChatID: t.req.ChatID, UserID: t.req.UserID, TaskID: task.ID, Title: task.Title,
		Checklist: len(task.Checklist), ExpiresAt: t.a.now().Add(t.a.opts.ConfirmWindow)}
	return resultDeletion, nil
}

// validate parses a mutating call and compares each of its changes with
// the task as it is, dropping no-ops, repeats and invented item ids.
func (t *turn) validate(ctx context.Context, tool Tool, a args) (*proposal, error) {
	changes, notes, err := tool.parse(a)
	if err != nil {
		return nil, err
	}
	p := &proposal{tool: tool, args: a}
	var missing, redundant []string
	tasks := map[string]*nod.Task{}
	for _, c := range changes {
		var task *nod.Task
		if id := c.task(); id != "" {
			if task = tasks[id]; task == nil {
				got, err := t.a.store.Task(ctx, t.req.ChatID, id)
				if errors.Is(err, nod.ErrNotFound) {
					return nil, fmt.Errorf("%s: task %q does not exist; use only ids from list_tasks or get_task, never invent them: %w", tool.Name, id, nod.ErrInvalid)
				}
				if err != nil {
					return nil, err
				}
				task = &got
				tasks[id] = task
			}
		}
		cur, err := c.current(task)
		if errors.Is(err, nod.ErrNotFound) {
			missing = append(missing, itemIDOf(c))
			continue
		}
		if err != nil {
			return nil, err
		}
		target, err := c.target(task)
		if err != nil {
			return nil, err
		}
		if cur == target {
			redundant = append(redundant, noopReason(c, task))
			continue
		}
		seen := c.tool() + "/" + c.task() + "/" + normalize(c.summary(task))
		if t.seen[seen] {
			redundant = append(redundant, fmt.Sprintf("%q is already proposed in this turn", strings.TrimPrefix(c.summary(task), "Add: ")))
			continue
		}
		key := fieldKey(c)
		if key != "" && t.fields[key] {
			return nil, fmt.Errorf("%s: a %s change for %q is already proposed in this turn; propose each field once: %w", tool.Name, c.field(), task.Title, nod.ErrInvalid)
		}
		// Reserved now, so that later calls of the same step see them; not a
		// check the guard may still block, so the agent can retry it with a
		// reason.
		if u, ok := c.(updateItem); !ok || u.sovereign(task) == "" {
			t.seen[seen] = true
		}
		if key != "" {
			t.fields[key] = true
		}
		p.changes = append(p.changes, prepared{c: c, task: task, cur: cur, target: target})
	}
	if len(redundant) == 1 && len(changes) == 1 {
		p.dropped = append(p.dropped, redundant[0])
		if !t.req.Review {
			t.notices = append(t.notices, noopNote(changes[0], tasks[changes[0].task()]))
		}
	} else if len(redundant) > 0 {
		p.dropped = append(p.dropped, fmt.Sprintf("Skipped %d redundant item(s): %s.", len(redundant), strings.Join(redundant, "; ")))
	}
	if len(missing) > 0 {
		p.dropped = append(p.dropped, fmt.Sprintf("Not queued: %s are not checklist items of this task; use only item ids from get_task, never invent them.", strings.Join(missing, ", ")))
	}
	p.dropped = append(p.dropped, notes...)
	return p, nil
}

// decide returns a verdict per proposal: the mode decides, or, in smart
// mode outside a review, one classifier request for all of them.
func (t *turn) decide(ctx context.Context, props []*proposal) []confidence.Verdict {
	verdicts := make([]confidence.Verdict, len(props))
	if len(props) == 0 {
		return verdicts
	}
	switch {
	case t.req.Review || t.mode == nod.ModeAlways:
		for i := range verdicts {
			verdicts[i] = confidence.Verdict{Level: confidence.NeedsConfirmation}
		}
		return verdicts
	case t.mode == nod.ModeTrusted:
		for i := range verdicts {
			verdicts[i] = confidence.Verdict{Level: confidence.Explicit}
		}
		return verdicts
	}
	conv := t.conversation()
	var said strings.Builder
	for _, e := range conv {
		if e.Role == nod.RoleUser {
			said.WriteString(e.Text + "\n")
		}
	}
	actions := make([]confidence.Action, len(props))
	for i, p := range props {
		var task *nod.Task
		if len(p.changes) > 0 {
			task = p.changes[0].task
		}
		summary := classifierSummary(p.tool.Name, p.args, task, said.String())
		if p.answer != nil {
			summary = p.answer.summary()
		}
		actions[i] = confidence.Action{Tool: p.tool.Name, Summary: summary}
	}
	t.classified++
	return t.a.classifier.Classify(ctx, conv, actions)
}

// loadRevision reads the item the person's reply revises.
func (t *turn) loadRevision(ctx context.Context) error {
	set, err := t.a.store.ChangeSet(ctx, t.req.ChatID, t.req.Revise.SetID)
	if err != nil {
		return err
	}
	it, ok := set.Item(t.req.Revise.N)
	if !ok || it.Status != nod.ItemPending {
		return fmt.Errorf("revise item %d of %s: %w", t.req.Revise.N, set.ID, nod.ErrDecided)
	}
	c, err := parseChange(it.Tool, it.Args)
	if err != nil {
		return err
	}
	t.revise = &revision{ref: *t.req.Revise, item: *it, key: supersedeKey(c)}
	return nil
}

// revisionNote tells the agent which proposal the person's reply revises.
func revisionNote(it nod.ChangeItem) string {
	return fmt.Sprintf("\nThe user's message is a reply to your pending proposal %q (tool %s, task %s). Revise it as they say: call %s once more with the corrected arguments for the same task. The revision replaces the proposal; do not propose anything else in this turn.\n",
		it.Summary, it.Tool, it.TaskID, batchTool(it.Tool))
}

// batchTool is the tool the model calls for an exploded item.
func batchTool(tool string) string {
	switch tool {
	case "add_checklist_item":
		return "add_multiple_checklist_items"
	case "update_checklist_item":
		return "update_checklist_items"
	}
	return tool
}

// reviseWith revises the pending item in place with pc, if pc is the
// revision the person asked for; it returns the call's result and true.
func (t *turn) reviseWith(ctx context.Context, pc prepared) (string, bool) {
	r := t.revise
	if r == nil || r.done || pc.c.tool() != r.item.Tool || pc.c.task() != r.item.TaskID ||
		(r.key != "" && supersedeKey(pc.c) != r.key) {
		return "", false
	}
	r.done = true
	set, err := t.a.store.ReviseItem(ctx, t.req.ChatID, r.ref.SetID, r.ref.N, t.req.UserID, nod.ChangeItem{
		Tool: pc.c.tool(), TaskID: pc.c.task(), Args: pc.c.args(), Summary: pc.c.summary(pc.task), Field: pc.c.field(), Before: pc.cur, After: pc.target,
	})
	if err != nil {
		return errorJSON(fmt.Errorf("the proposal could not be revised: %s", userError(err))), true
	}
	t.revised = &set
	return fmt.Sprintf("Proposal revised: item %d now reads %q and awaits the user's decision.", r.ref.N, pc.c.summary(pc.task)), true
}

// commit applies or queues a proposal's changes and returns the call's
// result. Explicit and trusted changes apply at once; the rest is queued.
// The checklist guard runs here, because who decides depends on the route.
func (t *turn) commit(ctx context.Context, p *proposal, v confidence.Verdict) string {
	if p.answer != nil {
		return t.commitAnswer(ctx, p, v)
	}
	var now, later []prepared
	var guarded, revised, left []string // left: titles of the person's items the guard kept
	for _, pc := range p.changes {
		if t.revise != nil && !t.revise.done && v.Explicit() {
			// An explicit edit applies at once; its old proposal closes.
			if pc.c.tool() == t.revise.item.Tool && pc.c.task() == t.revise.item.TaskID {
				t.revise.done = true
				t.supersede = append(t.supersede, t.revise.ref)
			}
		} else if out, ok := t.reviseWith(ctx, pc); ok {
			revised = append(revised, out)
			continue
		}
		route, why, kept := t.route(pc, v)
		if why != "" {
			guarded = append(guarded, why)
			if u, ok := pc.c.(updateItem); ok && u.reason == "" {
				if it, err := u.item(pc.task); err == nil {
					left = append(left, it.Title)
				}
			}
		}
		if !kept {
			continue
		}
		pc = route.pc
		if route.now {
			now = append(now, pc)
		} else {
			later = append(later, pc)
		}
	}
	queued, ruled, lines := t.queue(ctx, later)
	now = append(now, ruled...)
	notes := append(append(append(revised, lines...), guarded...), p.dropped...)
	if len(now) > 0 {
		if len(guarded) > 0 {
			t.record(p.start, p.tool.Name, p.args.JSON(), nod.OutcomeBlocked, strings.Join(guarded, " "))
		}
		if queued > 0 {
			// Part of the call applies (explicit, or by a rule), part waits.
			notes = append([]string{fmt.Sprintf("%d change(s) of this call were queued for user review; the rest was applied.", queued)}, notes...)
			t.record(p.start, p.tool.Name, p.args.JSON(), nod.OutcomeQueued, "")
		}
		return t.apply(ctx, p, v, now, notes, left)
	}
	var out []string
	if queued > 0 {
		out = append(out, resultQueued)
	}
	out = append(out, notes...)
	outcome := nod.OutcomeQueued
	if queued == 0 && len(revised) == 0 {
		outcome = nod.OutcomeBlocked
	}
	t.a.metrics.proposals.WithLabelValues("blocked").Add(float64(len(p.changes) - queued + len(guarded)))
	t.record(p.start, p.tool.Name, p.args.JSON(), outcome, strings.Join(guarded, " "))
	a := &t.audit[len(t.audit)-1]
	a.Verdict, a.Reason = verdictName(v), reasonOf(p.changes)
	return strings.Join(out, "\n")
}

// routed is where one change goes.
type routed struct {
	pc  prepared
	now bool
}

// route decides whether a change applies now or is queued, and applies the
// checklist guard (DESIGN §5): flipping the checked state of the person's
// item needs their own words sent at or after they set it, or, from the
// agent on its own, a reason of minReason characters. A blocked check
// change keeps a rename of the same item; kept is false if nothing is left.
func (t *turn) route(pc prepared, v confidence.Verdict) (r routed, why string, kept bool) {
	auto := v.Explicit()
	u, ok := pc.c.(updateItem)
	if !ok || !u.changesCheck(pc.task) {
		return routed{pc, auto}, "", true
	}
	it, _ := u.item(pc.task)
	if it.CheckedBy.Normalize() != nod.ActorUser {
		return routed{pc, auto}, "", true // the agent's own item changes freely
	}
	fresh := auto && t.mode != nod.ModeTrusted && !v.QuoteAt.IsZero() && (it.CheckedAt == nil || !v.QuoteAt.Before(*it.CheckedAt))
	if fresh {
		return routed{pc, true}, "", true
	}
	if why = u.sovereign(pc.task); why == "" {
		// A reason: trusted mode applies it (stamped agent); otherwise the
		// person decides, even when a stale quote called it explicit.
		return routed{pc, t.mode == nod.ModeTrusted && auto}, "", true
	}
	rest, ok := u.titleOnly()
	if !ok {
		return routed{}, why, false
	}
	cur, err1 := rest.current(pc.task)
	target, err2 := rest.target(pc.task)
	if err1 != nil || err2 != nil || cur == target {
		return routed{}, why, false
	}
	return routed{prepared{c: rest, task: pc.task, cur: cur, target: target}, auto}, why, true
}

// queue adds changes to the turn's change set, unless they repeat a
// rejected or waiting proposal or the set is full; it returns how many it
// queued, the changes a learned rule applies instead, and a line per kind
// of change it did not queue.
func (t *turn) queue(ctx context.Context, changes []prepared) (int, []prepared, []string) {
	var (
		queued            int
		ruled             []prepared
		overflow, blocked []string
	)
	for _, pc := range changes {
		if why := t.repeated(ctx, pc); why != "" {
			blocked = append(blocked, why)
			continue
		}
		if pc.rule = t.ruleFor(ctx, pc); pc.rule != nil {
			ruled = append(ruled, pc)
			continue
		}
		if len(t.items) >= nod.MaxItems {
			overflow = append(overflow, pc.c.summary(pc.task))
			continue
		}
		t.items = append(t.items, nod.ChangeItem{
			Tool: pc.c.tool(), TaskID: pc.c.task(), Args: pc.c.args(), Summary: pc.c.summary(pc.task),
			Field: pc.c.field(), Before: pc.cur, After: pc.target,
		})
		queued++
	}
	if len(overflow) > 0 {
		blocked = append(blocked, fmt.Sprintf("The change set is full (%d items); not queued: %s.", nod.MaxItems, strings.Join(overflow, "; ")))
	}
	return queued, ruled, blocked
}

// reasonOf is the reasons the changes carry, for the audit log.
func reasonOf(changes []prepared) string {
	var rs []string
	for _, pc := range changes {
		if u, ok := pc.c.(updateItem); ok && u.reason != "" {
			rs = append(rs, u.reason)
		}
	}
	return strings.Join(rs, "; ")
}

// rejectionMemory is how long a rejection keeps a proposal from coming back.
const rejectionMemory = 30 * 24 * time.Hour

// repeated says why a change must not be queued again: the person rejected
// the same change within rejectionMemory, or it already waits in an open
// set. Same means the same tool and task and either the same arguments
// (ignoring key order, case and runs of white space) or the same summary
// as nod renders it. Lookup failures are logged and let the change through:
// the person still decides it.
func (t *turn) repeated(ctx context.Context, pc prepared) string {
	if !t.loaded {
		t.loaded = true
		var err error
		if t.rejections, err = t.a.store.RecentRejections(ctx, t.req.ChatID, t.a.now().Add(-rejectionMemory)); err != nil {
			t.a.log.Error("recent rejections", "chat", t.req.ChatID, "err", err)
		}
		sets, err := t.a.store.OpenChangeSets(ctx, t.req.ChatID)
		if err != nil {
			t.a.log.Error("open change sets", "chat", t.req.ChatID, "err", err)
		}
		for _, s := range sets {
			for _, it := range s.Items {
				if it.Status == nod.ItemPending {
					t.waiting = append(t.waiting, waitingItem{s.ID, it})
				}
			}
		}
	}
	args, summary := canonical(pc.c.args()), normalize(pc.c.summary(pc.task))
	same := func(tool, task string, a []byte, sum string) bool {
		return tool == pc.c.tool() && task == pc.c.task() && (canonical(a) == args || normalize(sum) == summary)
	}
	for _, r := range t.rejections {
		if same(r.Tool, r.TaskID, r.Args, r.Summary) {
			why := fmt.Sprintf("Not queued: the user rejected this exact change (%s) on %s", r.Summary, r.At.Format(nod.DateLayout))
			if reason := strings.Join(strings.Fields(r.Reason), " "); reason != "" {
				why += fmt.Sprintf(" with the reason %q", reason)
			}
			return why + ". Do not propose it again unless the task has changed or the user asks for it."
		}
	}
	for _, it := range t.waiting {
		if same(it.Tool, it.TaskID, it.Args, it.Summary) {
			return fmt.Sprintf("Not queued: an identical proposal (%s) already awaits the user's decision.", it.Summary)
		}
	}
	// Another value for a field an open set proposes: the new proposal
	// replaces the old, so that no two open items set the same field.
	if key := supersedeKey(pc.c); key != "" {
		for _, it := range t.waiting {
			if old, err := parseChange(it.Tool, it.Args); err == nil && supersedeKey(old) == key {
				t.supersede = append(t.supersede, nod.ItemRef{SetID: it.set, N: it.N})
			}
		}
	}
	return ""
}

// supersedeKey names what a change sets: a task's field, or one checklist
// item; empty for changes that never conflict (new tasks, added items).
func supersedeKey(c change) string {
	if u, ok := c.(updateItem); ok {
		return u.id + "/checklist/" + u.itemID
	}
	return fieldKey(c)
}

// canonical renders arguments for comparison: keys sorted, text folded.
func canonical(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var fold func(any) any
	fold = func(v any) any {
		switch x := v.(type) {
		case string:
			return normalize(x)
		case []any:
			for i := range x {
				x[i] = fold(x[i])
			}
		case map[string]any:
			delete(x, "human_summary")
			for k := range x {
				x[k] = fold(x[k])
			}
		}
		return v
	}
	b, _ := json.Marshal(fold(v))
	return string(b)
}

// apply runs changes at once, each through the same transactional path as
// a confirmation, and returns the task as it is now, with notes on what of
// the call was not applied. left names the person's items the guard kept
// as they set them, to tell them so.
func (t *turn) apply(ctx context.Context, p *proposal, v confidence.Verdict, changes []prepared, notes, left []string) string {
	by := nod.ActorUser // the person's own words asked for it
	if t.mode == nod.ModeTrusted {
		by = nod.ActorAgent
	}
	now := t.a.now()
	var last nod.Task
	for _, pc := range changes {
		actor, verdict, why, quote := by, verdictName(v), firstNonEmpty(v.Quote, reasonOf([]prepared{pc})), v.Quote
		if pc.rule != nil {
			// The person's standing permission, not their words this time.
			actor, verdict, why, quote = nod.ActorAgent, "rule", "rule "+pc.rule.ID+" ("+pc.rule.Kind+")", ""
		}
		item := nod.ChangeItem{N: len(t.receipts) + 1, Tool: pc.c.tool(), TaskID: pc.c.task(), Args: pc.c.args(), Summary: pc.c.summary(pc.task),
			Field: pc.c.field(), Before: pc.cur, After: pc.target, Status: nod.ItemConfirmed}
		rule := ""
		if pc.rule != nil {
			rule = pc.rule.ID
		}
		applied, err := t.a.store.Apply(ctx, nod.Edit{
			ChatID: t.req.ChatID, UserID: t.req.UserID, TaskID: pc.c.task(), Tool: pc.c.tool(), Args: pc.c.args(),
			Summary: pc.c.summary(pc.task), Auto: true,
			Mutate: func(cur *nod.Task) (nod.Task, error) {
				var tk nod.Task
				if cur != nil {
					tk = *cur
				}
				err := pc.c.apply(&tk, applyCtx{now: now, by: actor})
				return tk, err
			},
			Audit:   nod.AuditEntry{Outcome: nod.OutcomeExecuted, Verdict: verdict, Reason: why, Duration: time.Since(p.start)},
			Receipt: &nod.Receipt{Item: item, Quote: quote, Trusted: t.mode == nod.ModeTrusted, RuleID: rule},
		})
		if err != nil {
			t.a.log.Error("apply change", "chat", t.req.ChatID, "tool", pc.c.tool(), "err", err)
			return errorJSON(fmt.Errorf("%s could not be applied: %s; nothing more of it was changed", p.tool.Name, userError(err)))
		}
		last = applied.After
		item.TaskID, item.UndoID = applied.After.ID, applied.Undo.ID
		t.receipts = append(t.receipts, Receipt{TaskTitle: applied.After.Title, Quote: quote, Mode: t.mode, Rule: pc.rule, Item: item})
	}
	if !t.req.Review {
		for _, title := range left {
			t.notices = append(t.notices, nod.Note{Key: nod.NoteLeftAsSet, Args: []string{title}})
		}
	}
	j := toJSON(last)
	j.Notes = notes
	return string(mustJSON(j))
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func verdictName(v confidence.Verdict) string {
	if v.Level == "" {
		return ""
	}
	if v.Default != "" {
		return string(v.Level) + " (" + v.Default + ")"
	}
	return string(v.Level)
}

// conversation is what the classifier may see: the person's messages and
// the assistant's plain text, latest last, within a budget.
func (t *turn) conversation() []confidence.Entry {
	const maxEntries, maxChars = 12, 4000
	var out []confidence.Entry
	size := 0
	all := append(append([]nod.ChatMessage(nil), t.history...), t.msgs...)
	for i := len(all) - 1; i >= 0 && len(out) < maxEntries; i-- {
		m := all[i]
		text := strings.TrimSpace(m.Content)
		if text == "" || m.Review || (m.Role != nod.RoleUser && m.Role != nod.RoleAssistant) {
			continue
		}
		if size += len(text); size > maxChars && len(out) > 0 {
			break
		}
		out = append(out, confidence.Entry{Role: m.Role, Text: text, At: m.At})
	}
	slices.Reverse(out)
	if t.replyItems != "" && len(out) > 0 && out[len(out)-1].Role == nod.RoleUser && !t.req.Review {
		out[len(out)-1].ReplyTo = t.replyItems
	}
	return out
}

// read runs a read-only tool.
func (t *turn) read(ctx context.Context, tool Tool, a args) (string, error) {
	switch tool.Name {
	case "get_task":
		id, _, err := a.str("task_id", true)
		if err != nil {
			return "", err
		}
		task, err := t.a.store.Task(ctx, t.req.ChatID, strings.TrimSpace(id))
		if errors.Is(err, nod.ErrNotFound) {
			return errorJSON(fmt.Errorf("task %q does not exist; use only ids from list_tasks, never invent them", id)), nil
		}
		if err != nil {
			return "", err
		}
		return TaskJSON(task), nil
	case "list_tasks":
		var f nod.TaskFilter
		q, _, err := a.str("query", false)
		if err != nil {
			return "", err
		}
		f.Query = q
		if s, ok, err := a.str("status", false); err != nil {
			return "", err
		} else if ok && strings.TrimSpace(s) != "" {
			if f.Status, err = a.status("status"); err != nil {
				return "", err
			}
		}
		tasks, err := t.a.store.ListTasks(ctx, t.req.ChatID, f)
		if err != nil {
			return "", err
		}
		out := struct {
			Tasks []taskJSON `json:"tasks"`
		}{Tasks: make([]taskJSON, 0, len(tasks))}
		for _, task := range tasks {
			out.Tasks = append(out.Tasks, toJSON(task))
		}
		return string(mustJSON(out)), nil
	}
	return "", fmt.Errorf("%s is not a read-only tool", tool.Name)
}

// fieldKey names the scalar field a change sets; checklist changes and new
// tasks have none, since several of them in one turn are fine.
func fieldKey(c change) string {
	switch c.field() {
	case nod.FieldChecklist, nod.FieldTask:
		return ""
	}
	return c.task() + "/" + string(c.field())
}

func itemIDOf(c change) string {
	if u, ok := c.(updateItem); ok {
		return u.itemID
	}
	return c.task()
}

// noopReason says why a change would change nothing.
func noopReason(c change, task *nod.Task) string {
	switch c.field() {
	case nod.FieldTitle:
		return fmt.Sprintf("Skipped: title is already %q.", task.Title)
	case nod.FieldDescription:
		return "Skipped: description is already that text."
	case nod.FieldStatus:
		return fmt.Sprintf("Skipped: status is already %s.", task.Status)
	case nod.FieldPriority:
		return fmt.Sprintf("Skipped: priority is already %s.", task.Priority)
	case nod.FieldEstimate:
		return fmt.Sprintf("Skipped: estimate is already %s minutes.", estimateString(task.EstimateMinutes))
	case nod.FieldDue:
		if task.DueDate == "" {
			return "Skipped: due date is already none."
		}
		return fmt.Sprintf("Skipped: due date is already %s.", task.DueDate)
	case nod.FieldLabels:
		ls := strings.Join(nod.NormalizeLabels(task.Labels), ", ")
		if ls == "" {
			ls = "none"
		}
		return fmt.Sprintf("Skipped: labels are already %s.", ls)
	}
	switch c := c.(type) {
	case addItem:
		return fmt.Sprintf("%q is already on the task", c.title)
	case updateItem:
		it, _ := task.Item(c.itemID)
		if c.checked != nil && c.title == nil {
			state := "unchecked"
			if *c.checked {
				state = "checked"
			}
			return fmt.Sprintf("%q is already %s", it.Title, state)
		}
		return fmt.Sprintf("%q already reads like that", it.Title)
	}
	return "Skipped: nothing would change."
}

// noopNote tells the person why a change they asked for changes nothing.
func noopNote(c change, task *nod.Task) nod.Note {
	switch c := c.(type) {
	case addItem:
		return nod.Note{Key: nod.NoteNoopItem, Args: []string{c.title, "present"}}
	case updateItem:
		it, _ := task.Item(c.itemID)
		state := "same"
		if c.checked != nil && c.title == nil {
			state = checkState(*c.checked)
		}
		return nod.Note{Key: nod.NoteNoopItem, Args: []string{it.Title, state}}
	}
	if task == nil {
		return nod.Note{Key: nod.NoteAlready}
	}
	cur, _ := c.current(task)
	return nod.Note{Key: nod.NoteNoop, Args: []string{string(c.field()), cur}}
}

// normalize folds case and runs of white space, for comparing texts.
func normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
