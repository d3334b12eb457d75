package agent

import (
	"context"
	"strings"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

// ruleFor returns the person's rule that applies pc without asking, or
// nil. Rules act only on the person's own requests in smart mode (not in a
// review, nor on a turn that carries forwarded words, nor while the
// circuit breaker asks for everything), and never
// flip the checked state of an item the person set.
func (t *turn) ruleFor(ctx context.Context, pc prepared) *nod.Rule {
	if t.mode != nod.ModeSmart || t.req.Review || t.req.UserID == 0 || t.forwarded() {
		return nil
	}
	if u, ok := pc.c.(tools.Item); ok && u.ChangesCheck(pc.task) {
		if it, _ := pc.task.Item(u.ItemID); it.CheckedBy.Normalize() == nod.ActorUser {
			return nil
		}
	}
	rules := t.rules(ctx)
	kind := nod.KindOf(pc.c.Tool(), pc.c.Field(), pc.target)
	for i := range rules {
		if kind != "" && rules[i].Kind == kind && rules[i].Active(t.a.now()) {
			return &rules[i]
		}
	}
	return nil
}

// avoidedKinds are the kinds of change user rejected in at least two
// change sets since they last confirmed one, among ds (newest first),
// rendered for the prompt. Items of one set count once: "no bakery label"
// on three label proposals is one no, not a no to labels. Rejections in
// a set where the person also confirmed that kind do not count: they
// picked among items, and did not turn the kind down.
// In a group (user set) only the person's own decisions count.
func avoidedKinds(ds []nod.Decision, since time.Time, user nod.UserID) []string {
	picked := map[kindSet]bool{} // confirmed there
	for _, d := range ds {
		if d.Verdict == nod.Confirmed {
			picked[kindSet{d.Kind, d.SetID}] = true
		}
	}
	rejected, settled, counted := map[string]int{}, map[string]bool{}, map[kindSet]bool{}
	var out []string
	for _, d := range ds {
		if d.Kind == "" || settled[d.Kind] || d.At.Before(since) || (user != 0 && d.UserID != user) {
			continue
		}
		if d.Verdict == nod.Confirmed {
			settled[d.Kind] = true
			continue
		}
		ks := kindSet{d.Kind, d.SetID}
		if picked[ks] || counted[ks] {
			continue
		}
		counted[ks] = true
		if rejected[d.Kind]++; rejected[d.Kind] == 2 {
			out = append(out, strings.Replace(d.Kind, "=", " to ", 1))
		}
	}
	return out
}

// kindSet is a kind of change in one change set.
type kindSet struct {
	kind string
	set  nod.SetID
}
