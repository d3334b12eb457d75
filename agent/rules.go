package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// streakWindow is how many of a kind's latest decisions are read to find a
// streak of confirmations.
const streakWindow = 20

// offerRule offers a learned rule when the confirmations just made end a
// streak: the person confirmed the same kind of change in nod.RuleStreak
// different change sets, with no rejection of that kind since. Confirming
// several items of one set at once is one decision, not a streak. A
// failure to offer is logged: the confirmation itself stands.
func (c *Confirmations) offerRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, d *nod.Decided) {
	ns := make([]int, 0, len(d.Applied))
	for n := range d.Applied {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	tried := map[string]bool{}
	for _, n := range ns {
		it, _ := d.Set.Item(n)
		kind := nod.KindOf(it.Tool, it.Field, it.After)
		if kind == "" || tried[kind] {
			continue
		}
		tried[kind] = true
		ds, err := c.rules.KindDecisions(ctx, chatID, userID, kind, streakWindow)
		if err != nil {
			c.log.Error("rule streak", "chat", chatID, "kind", kind, "err", err)
			return
		}
		if streak(ds) < nod.RuleStreak {
			continue
		}
		r, created, err := c.rules.OfferRule(ctx, chatID, userID, kind)
		if err != nil {
			c.log.Error("offer rule", "chat", chatID, "kind", kind, "err", err)
			return
		}
		if created {
			d.Offer = &r
			return
		}
	}
}

// streak counts the change sets in which the latest decisions, newest
// first, confirmed, up to the first rejection.
func streak(ds []nod.Decision) int {
	sets := map[string]bool{}
	for _, d := range ds {
		if d.Verdict != nod.Confirmed {
			break
		}
		sets[d.SetID] = true
	}
	return len(sets)
}

// DecideRule accepts or declines an offered rule for the person it was
// offered to. Errors wrap nod.ErrNotFound, nod.ErrForbidden or
// nod.ErrDecided.
func (c *Confirmations) DecideRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string, accept bool) (nod.Rule, error) {
	r, err := c.rules.Rule(ctx, chatID, id)
	if err != nil {
		return r, err
	}
	if r.UserID != userID {
		return r, fmt.Errorf("rule %s belongs to user %d: %w", id, r.UserID, nod.ErrForbidden)
	}
	return c.rules.DecideRule(ctx, chatID, id, userID, accept)
}

// RevokeRule ends a rule of the person's. Errors as DecideRule.
func (c *Confirmations) RevokeRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id string) (nod.Rule, error) {
	r, err := c.rules.Rule(ctx, chatID, id)
	if err != nil {
		return r, err
	}
	if r.UserID != userID {
		return r, fmt.Errorf("rule %s belongs to user %d: %w", id, r.UserID, nod.ErrForbidden)
	}
	return c.rules.RevokeRule(ctx, chatID, id, userID)
}

// ruleFor returns the person's rule that applies pc without asking, or
// nil. Rules act only on the person's own requests in smart mode (not in a
// review, nor on a turn that carries forwarded words, nor while the
// circuit breaker asks for everything), and never
// flip the checked state of an item the person set.
func (t *turn) ruleFor(ctx context.Context, pc prepared) *nod.Rule {
	if t.mode != nod.ModeSmart || t.req.Review || t.req.UserID == 0 || t.forwarded() {
		return nil
	}
	if u, ok := pc.c.(updateItem); ok && u.changesCheck(pc.task) {
		if it, _ := u.item(pc.task); it.CheckedBy.Normalize() == nod.ActorUser {
			return nil
		}
	}
	rules := t.rules(ctx)
	kind := nod.KindOf(pc.c.tool(), pc.c.field(), pc.target)
	for i := range rules {
		if kind != "" && rules[i].Kind == kind && rules[i].Active(t.a.now()) {
			return &rules[i]
		}
	}
	return nil
}

// avoidedKinds are the kinds of change user rejected at least twice since
// they last confirmed one, among ds (newest first), rendered for the
// prompt. Rejections in a set where the person also confirmed that kind
// do not count: they picked among items, and did not turn the kind down.
// In a group (user set) only the person's own decisions count.
func avoidedKinds(ds []nod.Decision, since time.Time, user nod.UserID) []string {
	picked := map[[2]string]bool{} // kind, set: confirmed there
	for _, d := range ds {
		if d.Verdict == nod.Confirmed {
			picked[[2]string{d.Kind, d.SetID}] = true
		}
	}
	rejected, settled := map[string]int{}, map[string]bool{}
	var out []string
	for _, d := range ds {
		if d.Kind == "" || settled[d.Kind] || d.At.Before(since) || (user != 0 && d.UserID != user) {
			continue
		}
		if d.Verdict == nod.Confirmed {
			settled[d.Kind] = true
			continue
		}
		if picked[[2]string{d.Kind, d.SetID}] {
			continue
		}
		if rejected[d.Kind]++; rejected[d.Kind] == 2 {
			out = append(out, strings.Replace(d.Kind, "=", " to ", 1))
		}
	}
	return out
}
