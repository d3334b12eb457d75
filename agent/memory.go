package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// memory is what a turn checks new proposals against, each part read from
// storage the first time the turn needs it and kept for the rest of the
// turn: most turns propose nothing and read none of it.
type memory struct {
	repeats lazy[repeats]
	rules   lazy[[]nod.Rule] // the person's own
	undone  lazy[[]nod.UndoEntry]
}

// lazy is a value loaded on first use. A turn runs on one goroutine, so
// it needs no lock.
type lazy[T any] struct {
	v    T
	done bool
}

// get returns the value, loading it first if this is the first call.
func (l *lazy[T]) get(load func() T) T {
	if !l.done {
		l.v, l.done = load(), true
	}
	return l.v
}

// repeats are what a new proposal must not repeat: the person's recent
// rejections and the items waiting in open sets, read together.
type repeats struct {
	rejections []nod.Rejection
	waiting    []waitingItem
}

// waitingItem is a pending item of an open set.
type waitingItem struct {
	set nod.SetID
	nod.ChangeItem
}

// repeats returns the rejections within rejectionMemory and the pending
// items of open sets. Lookup failures are logged, and what was read is
// kept.
func (t *turn) repeats(ctx context.Context) repeats {
	return t.mem.repeats.get(func() repeats {
		var r repeats
		var err error
		if r.rejections, err = t.a.memory.RecentRejections(ctx, t.req.ChatID, t.a.now().Add(-rejectionMemory)); err != nil {
			t.a.log.Error("recent rejections", "chat", t.req.ChatID, "err", err)
		}
		sets, err := t.a.sets.OpenChangeSets(ctx, t.req.Topic)
		if err != nil {
			t.a.log.Error("open change sets", "chat", t.req.ChatID, "err", err)
		}
		for _, s := range sets {
			for _, it := range s.Items {
				// What this turn's edit withdraws waits no longer, though
				// it is closed only when the turn is stored.
				if it.Status == nod.ItemPending && !slices.Contains(t.withdraw, nod.ItemRef{SetID: s.ID, N: it.N}) {
					r.waiting = append(r.waiting, waitingItem{s.ID, it})
				}
			}
		}
		return r
	})
}

// rules returns the person's learned rules in force at the turn's first
// need of them; a lookup failure is logged and leaves none.
func (t *turn) rules(ctx context.Context) []nod.Rule {
	return t.mem.rules.get(func() []nod.Rule {
		rs, err := t.a.rulebook.Rules(ctx, t.req.ChatID, t.a.now())
		if err != nil {
			t.a.log.Error("rules", "chat", t.req.ChatID, "err", err)
		}
		var own []nod.Rule
		for _, r := range rs {
			if r.UserID == t.req.UserID {
				own = append(own, r)
			}
		}
		return own
	})
}

// undone returns the changes the person undid within undoMemory; a lookup
// failure is logged.
func (t *turn) undone(ctx context.Context) []nod.UndoEntry {
	return t.mem.undone.get(func() []nod.UndoEntry {
		u, err := t.a.undone.UndoneSince(ctx, t.req.ChatID, t.a.now().Add(-undoMemory))
		if err != nil {
			t.a.log.Warn("undone changes", "chat", t.req.ChatID, "err", err)
		}
		return u
	})
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
	if r := t.rejection(ctx, pc); r != nil {
		why := fmt.Sprintf("Not queued: the user rejected this exact change (%s) on %s", r.Summary, r.At.Format(nod.DateLayout))
		if reason := strings.Join(strings.Fields(r.Reason), " "); reason != "" {
			why += fmt.Sprintf(" with the reason %q", reason)
		}
		return why + ". It is made again only when the user's own words since then clearly ask for this change; if they seem to want it after all, ask them to say so plainly."
	}
	seen := t.repeats(ctx)
	for _, it := range seen.waiting {
		if sameChange(pc, it.Tool, it.TaskID, it.Args, it.Summary) {
			return fmt.Sprintf("Not queued: an identical proposal (%s) already awaits the user's decision.", it.Summary)
		}
	}
	// Another value for a field an open set proposes: the new proposal
	// replaces the old, so that no two open items set the same field.
	if key := supersedeKey(pc.c); key != "" {
		for _, it := range seen.waiting {
			if old, err := tools.Parse(it.Tool, it.Args); err == nil && supersedeKey(old) == key {
				t.supersede = append(t.supersede, nod.ItemRef{SetID: it.set, N: it.N})
			}
		}
	}
	return ""
}

// supersedeKey names what a change sets: a task's field, or one checklist
// item; empty for changes that never conflict (new tasks, added items).
func supersedeKey(c tools.Call) string {
	if u, ok := c.(tools.Item); ok {
		return string(u.Task) + "/checklist/" + string(u.ItemID)
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
			return nod.FoldText(x)
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

// revivesRejected reports whether p repeats a change the person rejected
// after quoteAt: words from before they said no prove nothing now. Unknown
// quote times count as before.
func (t *turn) revivesRejected(ctx context.Context, p *proposal, quoteAt time.Time) bool {
	for _, pc := range p.changes {
		if r := t.rejection(ctx, pc); r != nil && !quoteAt.After(r.At) {
			return true
		}
	}
	return false
}

// rejection returns the person's recent rejection of the same change as
// pc, or nil.
func (t *turn) rejection(ctx context.Context, pc prepared) *nod.Rejection {
	seen := t.repeats(ctx)
	for i, r := range seen.rejections {
		if t.req.Speaker != "" && r.UserID != t.req.UserID {
			continue // in a group another member's no is theirs: this person decides for themselves
		}
		if sameChange(pc, r.Tool, r.TaskID, r.Args, r.Summary) {
			return &seen.rejections[i]
		}
	}
	return nil
}

// sameChange reports whether pc is the change of tool to task with args
// and summary: the same arguments, or a summary that names the one value
// both set. A new task's summary names only its title, and a
// description's says only that it is updated: their other arguments tell
// two changes apart.
func sameChange(pc prepared, tool nod.Tool, task nod.TaskID, args []byte, summary string) bool {
	if tool != pc.c.Tool() || task != pc.c.TaskID() {
		return false
	}
	if canonical(args) == canonical(pc.c.Args()) {
		return true
	}
	return tool != nod.ToolCreateTask && tool != nod.ToolUpdateDescription && nod.FoldText(summary) == nod.FoldText(pc.c.Summary(pc.task))
}

// undoMemory is how far back an undo keeps an old quote from bringing the
// same change back.
const undoMemory = 30 * 24 * time.Hour

// revivesUndone reports whether p would set a field or checklist item of a
// task to the value of a change the person undid after quoteAt, or create
// again a task whose creation they undid: the person's words from before
// they took it back prove nothing now (docs/design.md §3.3). Unknown
// quote times count as before.
func (t *turn) revivesUndone(ctx context.Context, p *proposal, quoteAt time.Time) bool {
	undone := t.undone(ctx)
	for _, pc := range p.changes {
		if c, ok := pc.c.(tools.Create); ok {
			// A task created again under the title of one whose creation
			// the person undid is the same change, under a new id.
			for _, u := range undone {
				if u.Change.Created && u.UndoneAt != nil && !quoteAt.After(*u.UndoneAt) && nod.FoldText(u.Title) == nod.FoldText(c.NewTask().Title) {
					return true
				}
			}
			continue
		}
		if pc.task == nil {
			continue
		}
		after := pc.task.Clone()
		if pc.c.Apply(&after, t.a.now(), nod.ActorUser) != nil {
			continue
		}
		ch := nod.Diff(pc.task, after)
		for _, u := range undone {
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
				if nod.FoldText(ic.After.Title) == nod.FoldText(ug.After.Title) {
					return true // adding the same item again
				}
			case ic.ID() == ug.ID() && ic.After.Checked == ug.After.Checked && ic.After.Title == ug.After.Title:
				return true
			}
		}
	}
	return false
}
