package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
	"github.com/nodbot/nod/tools"
)

// commit applies or queues a proposal's changes and returns the call's
// result. Explicit and trusted changes apply at once; the rest is queued.
// The checklist guard runs here, because who decides depends on the route.
func (t *turn) commit(ctx context.Context, p *proposal, v confidence.Verdict) string {
	if p.answer != nil {
		return t.commitAnswer(ctx, p, v)
	}
	if p.zone != nil {
		return t.commitZone(ctx, p, v)
	}
	if p.ext != nil {
		return t.commitExternal(ctx, p, v)
	}
	var r routing
	var revised []string
	for _, pc := range p.changes {
		if t.revise != nil && !t.revise.done && v.Explicit() {
			// An explicit edit applies at once; its old proposal closes.
			if pc.c.Tool() == t.revise.item.Tool && pc.c.TaskID() == t.revise.item.TaskID {
				t.revise.done = true
				t.supersede = append(t.supersede, t.revise.ref)
			}
		} else if out, ok := t.reviseWith(ctx, pc); ok {
			revised = append(revised, out)
			continue
		}
		run, ask, wait := t.covered(pc, v, p.args.Present("repeat"))
		r.waits = append(r.waits, wait)
		r.later = append(r.later, ask...)
		for _, pc := range run {
			t.routeInto(&r, pc, v)
		}
	}
	now, later, guarded, left := r.now, r.later, r.guarded, r.left
	queued, ruled, lines := t.queue(ctx, later)
	now = append(now, ruled...)
	var waits []string
	for _, w := range r.waits {
		if n := w.note(ruled); n != "" {
			waits = append(waits, n)
		}
	}
	notes := slices.Concat(revised, lines, guarded, waits, p.dropped)
	if len(now) > 0 {
		if len(guarded) > 0 {
			t.record(p.start, p.tool.Name, p.args.JSON(), nod.OutcomeBlocked, strings.Join(guarded, " "))
		}
		if queued > 0 {
			// Part of the call applies (explicit, or by a rule), part waits.
			what := fmt.Sprintf("%d changes of this call were", queued)
			if queued == 1 {
				what = "1 change of this call was"
			}
			notes = append([]string{what + " queued for user review; the rest was applied."}, notes...)
			t.record(p.start, p.tool.Name, p.args.JSON(), nod.OutcomeQueued, "")
		}
		return t.apply(ctx, p, v, now, notes, left)
	}
	var out []string
	if queued > 0 {
		out = append(out, resultQueued)
		if v.Answered == confidence.Explicit && v.Default != "" {
			// The words seemed to ask for it, and nod's own check said
			// otherwise: the model can tell the person why it waits.
			out = append(out, "It waits for the user's tap because "+v.Default+".")
		}
	}
	out = append(out, notes...)
	outcome := nod.OutcomeQueued
	if queued == 0 && len(revised) == 0 {
		outcome = nod.OutcomeBlocked
	}
	t.a.metrics.proposals.WithLabelValues("blocked").Add(float64(len(p.changes) - queued + len(guarded)))
	t.recordEntry(p.start, nod.AuditEntry{Tool: p.tool.Name, Args: p.args.JSON(), Outcome: outcome, Error: strings.Join(guarded, " "),
		Verdict: verdictName(v), Reason: reasonOf(p.changes)})
	return strings.Join(out, "\n")
}

// routing collects where a call's changes go: now, or later (queued);
// why the checklist guard kept some (guarded), the titles of the
// person's items it left as they set them (left), and what waits because
// no words of theirs cover it (waits).
type routing struct {
	now, later    []prepared
	guarded, left []string
	waits         []waitNote
}

// routeInto routes one change that the person's words cover.
func (t *turn) routeInto(r *routing, pc prepared, v confidence.Verdict) {
	route, why, kept := t.route(pc, v)
	if why != "" {
		r.guarded = append(r.guarded, why)
		if u, ok := pc.c.(tools.Item); ok && u.Reason == "" {
			if it, ok := pc.task.Item(u.ItemID); ok {
				r.left = append(r.left, it.Title)
			}
		}
	}
	switch {
	case !kept:
	case route.now:
		r.now = append(r.now, route.pc)
	default:
		r.later = append(r.later, route.pc)
	}
}

// routed is where one change goes.
type routed struct {
	pc  prepared
	now bool
}

// route decides whether a change applies now or is queued, and applies the
// checklist guard (docs/design.md §5): flipping the checked state of the person's
// item needs their own words sent at or after they set it, or, from the
// agent on its own, a reason of minReason characters. A blocked check
// change keeps a rename of the same item; kept is false if nothing is left.
func (t *turn) route(pc prepared, v confidence.Verdict) (r routed, why string, kept bool) {
	auto := v.Explicit()
	u, ok := pc.c.(tools.Item)
	if !ok || !u.ChangesCheck(pc.task) {
		return routed{pc, auto}, "", true
	}
	it, _ := pc.task.Item(u.ItemID)
	if it.CheckedBy.Normalize() != nod.ActorUser {
		return routed{pc, auto}, "", true // the agent's own item changes freely
	}
	fresh := auto && t.mode != nod.ModeTrusted && !v.QuoteAt.IsZero() && (it.CheckedAt == nil || !v.QuoteAt.Before(*it.CheckedAt))
	if fresh {
		return routed{pc, true}, "", true
	}
	if why = u.Sovereign(pc.task); why == "" {
		// A reason: trusted mode applies it (stamped agent); otherwise the
		// person decides, even when a stale quote called it explicit.
		return routed{pc, t.mode == nod.ModeTrusted && auto}, "", true
	}
	rest, ok := u.TitleOnly()
	if !ok {
		return routed{}, why, false
	}
	cur, err1 := rest.Current(pc.task)
	target, err2 := rest.Target(pc.task)
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
			overflow = append(overflow, pc.c.Summary(pc.task))
			continue
		}
		t.items = append(t.items, tools.Typed(pc.c, pc.task, nod.ChangeItem{
			Tool: pc.c.Tool(), TaskID: pc.c.TaskID(), Args: pc.c.Args(), Summary: pc.c.Summary(pc.task),
			Field: pc.c.Field(), Before: pc.cur, After: pc.target, Why: t.whyOf(pc),
		}))
		queued++
	}
	if len(overflow) > 0 {
		blocked = append(blocked, fmt.Sprintf("The change set is full (%d items); not queued: %s. Propose it again in a later turn, once the user has decided some of the waiting items.", nod.MaxItems, strings.Join(overflow, "; ")))
	}
	return queued, ruled, blocked
}

// reasonOf is the reasons the changes carry, for the audit log.
func reasonOf(changes []prepared) string {
	var rs []string
	for _, pc := range changes {
		if u, ok := pc.c.(tools.Item); ok && u.Reason != "" {
			rs = append(rs, u.Reason)
		}
	}
	return strings.Join(rs, "; ")
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
	for i, pc := range changes {
		quote := firstNonEmpty(pc.quote, v.Quote)
		actor, verdict, why := by, verdictName(v), firstNonEmpty(quote, reasonOf([]prepared{pc}))
		if pc.rule != nil {
			// The person's standing permission, not their words this time.
			actor, verdict, why, quote = nod.ActorAgent, "rule", "rule "+string(pc.rule.ID)+" ("+pc.rule.Kind+")", ""
		}
		item := tools.Typed(pc.c, pc.task, nod.ChangeItem{N: len(t.receipts) + 1, Tool: pc.c.Tool(), TaskID: pc.c.TaskID(), Args: pc.c.Args(), Summary: pc.c.Summary(pc.task),
			Field: pc.c.Field(), Before: pc.cur, After: pc.target, Status: nod.ItemConfirmed})
		applied, err := t.a.editor.Apply(ctx, nod.Edit{
			Topic: t.req.Topic, UserID: t.req.UserID, TaskID: pc.c.TaskID(), Tool: pc.c.Tool(), Args: pc.c.Args(),
			Summary: pc.c.Summary(pc.task), Auto: true,
			Mutate: func(cur *nod.Task) (nod.Task, error) {
				var tk nod.Task
				if cur != nil {
					tk = *cur
				}
				err := pc.c.Apply(&tk, now, actor)
				return tk, err
			},
			Audit:   nod.AuditEntry{Outcome: nod.OutcomeExecuted, Verdict: verdict, Reason: why, Duration: time.Since(p.start)},
			Receipt: &nod.Receipt{Item: item, Quote: quote, Trusted: t.mode == nod.ModeTrusted, Rule: pc.rule},
		})
		if errors.Is(err, nod.ErrUnchanged) {
			// An earlier call of this step made it so already (its calls
			// are all prepared before any runs: answer_proposals
			// confirming the same reminder, say): the rest still runs.
			notes = append(notes, pc.c.Summary(pc.task)+": already so, by an earlier call of this step; not changed again")
			continue
		}
		if err != nil {
			if c, ok := pc.c.(tools.Create); ok && c.NewTask().ID != "" {
				// Its fields that wait for a tap would wait on no task.
				t.items = slices.DeleteFunc(t.items, func(it nod.ChangeItem) bool { return it.TaskID == c.NewTask().ID })
			}
			t.a.log.Error("apply change", "chat", t.req.ChatID, "tool", pc.c.Tool(), "err", err)
			t.unreserve(changes[i:])
			return errorJSON(fmt.Errorf("%s could not be applied: %s; nothing more of it was changed", p.tool.Name, nod.Detail(err)))
		}
		last = applied.After
		notes = append(notes, t.overtaken(applied.Overtook)...)
		if pc.rule != nil {
			notes = append(notes, t.ruledNote(item.Summary, *pc.rule))
		}
		item.TaskID, item.UndoID = applied.After.ID, applied.Undo.ID
		t.receipts = append(t.receipts, nod.Receipt{TaskTitle: applied.After.Title, Item: item, Quote: quote, Trusted: t.mode == nod.ModeTrusted, Rule: pc.rule})
	}
	if !t.req.Review {
		for _, title := range left {
			t.notices = append(t.notices, nod.Note{Key: nod.NoteLeftAsSet, Args: []string{title}})
		}
	}
	if last.ID == "" && len(changes) > 0 { // every part was so already
		if got, err := t.a.tasks.Task(ctx, t.req.ChatID, changes[0].c.TaskID()); err == nil {
			last = got
		}
	}
	j := toJSON(last, t.zone, t.a.now())
	j.Notes, j.ReminderAfter = notes, t.afterStay(last)
	return string(tools.MustJSON(j))
}

// ruledNote tells the model that a change applied by the person's
// learned rule, not their words or tap: it is not told which rules are
// in force, and played, it offered for a tap what the rule had applied.
func (t *turn) ruledNote(summary string, r nod.Rule) string {
	note := fmt.Sprintf("%s: applied without the user's tap by their learned rule for %s", summary, r.Kind)
	if r.ExpiresAt != nil {
		note += " (until " + r.ExpiresAt.In(t.zone).Format(nod.DateLayout) + ")"
	}
	return note + "; the receipt says so. Changes of that kind apply at once while the rule lasts: do not offer them for a tap."
}

// overtaken tells the model which of its waiting proposals a change
// applied at once closed, and that a reading of the person's answer shown
// in this step no longer offers them. Played, the model told the person
// to tap a reading of items that no longer waited.
func (t *turn) overtaken(refs []nod.ItemRef) []string {
	var notes []string
	for _, r := range refs {
		note := fmt.Sprintf("item %d of proposal %s no longer waits for the user: this change set what it would have set, and nod's message shows it overtaken", r.N, r.SetID)
		for _, rd := range t.readings {
			if rd.SetID == r.SetID && (slices.Contains(rd.Confirm, r.N) || slices.Contains(rd.Reject, r.N)) {
				note += "; the reading of their answer shown in this step no longer offers it"
				break
			}
		}
		notes = append(notes, note)
	}
	return notes
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

// whyOf is the reason a proposed change shows (whyFor): the model's text
// beside its step, told the task's title and, for a field a person writes
// words into, the value it sets; for labels, the labels alone. Enum
// values ("done", "P1") name no item.
func (t *turn) whyOf(pc prepared) string {
	var title, value string
	if pc.task != nil {
		title = pc.task.Title
	} else if c, ok := pc.c.(tools.Create); ok {
		title = c.NewTask().Title
	}
	switch pc.c.Field() {
	case nod.FieldLabels:
		// A label's reason names the label: played, "Sketches are due
		// Thursday" showed as the reason for labelling the sketches work.
		return whyFor(t.beside, "", pc.target)
	case nod.FieldTitle, nod.FieldDescription, nod.FieldChecklist:
		value = pc.target
	}
	return whyFor(t.beside, title, value)
}
