package confirm

import (
	"context"
	"fmt"
	"slices"

	"github.com/nodbot/nod"
)

// offerRule offers a learned rule when the confirmations just made end a
// streak: the person confirmed the same kind of change in nod.RuleStreak
// different change sets, with no rejection of that kind since (the
// streaks their transaction read). Confirming several items of one set
// at once is one decision, not a streak. A failure to offer is logged:
// the confirmation itself stands.
func (c *Service) offerRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, d *nod.Decided) {
	ns := make([]int, 0, len(d.Applied)+len(d.Calls))
	for n := range d.Applied {
		ns = append(ns, n)
	}
	for _, c := range d.Calls { // a destructive call has no kind: never a rule
		ns = append(ns, c.N)
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
		if d.Streaks[kind] < nod.RuleStreak {
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

// DecideRule accepts or declines an offered rule for the person it was
// offered to. Errors wrap nod.ErrNotFound, nod.ErrForbidden or
// nod.ErrDecided.
func (c *Service) DecideRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id nod.RuleID, accept bool) (nod.Rule, error) {
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
func (c *Service) RevokeRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id nod.RuleID) (nod.Rule, error) {
	r, err := c.rules.Rule(ctx, chatID, id)
	if err != nil {
		return r, err
	}
	if r.UserID != userID {
		return r, fmt.Errorf("rule %s belongs to user %d: %w", id, r.UserID, nod.ErrForbidden)
	}
	return c.rules.RevokeRule(ctx, chatID, id, userID)
}
