package formatting

import (
	"strings"

	"github.com/nodbot/nod"
)

// ruleView is a rule as its messages show it.
type ruleView struct {
	N      int
	Name   string
	Until  string // YYYY-MM-DD
	Streak int
	Days   int
}

func (l *Locale) viewRule(r nod.Rule) ruleView {
	v := ruleView{Name: l.RuleName(r.Kind), Streak: nod.RuleStreak, Days: int(nod.RuleLifetime.Hours() / 24)}
	if r.ExpiresAt != nil {
		v.Until = r.ExpiresAt.UTC().Format(nod.DateLayout)
	}
	return v
}

// RuleName renders a kind of change as the person reads it: "Set
// priority to P1".
func (l *Locale) RuleName(kind string) string {
	tool, value, _ := strings.Cut(kind, "=")
	return l.Render("rule_kind", map[string]string{"Tool": tool, "Value": value})
}

// RuleOffer asks whether changes of the rule's kind may apply without
// asking.
func (l *Locale) RuleOffer(r nod.Rule) Message {
	v := l.viewRule(r)
	m := l.Text("rule_offer", v)
	m.Keyboard = [][]Button{{
		l.button("b_rule_accept", v, nod.Action{Kind: nod.ActAcceptRule, ID: r.ID}),
		l.button("b_rule_decline", v, nod.Action{Kind: nod.ActDeclineRule, ID: r.ID}),
	}}
	return m
}

// RuleDecided is the offer's message once answered.
func (l *Locale) RuleDecided(r nod.Rule) Message {
	if r.Status == nod.RuleActive {
		return l.Text("rule_on", l.viewRule(r))
	}
	return l.Text("rule_declined", l.RuleName(r.Kind))
}

// Rules renders /rules: the rules in force, a revoke button each.
func (l *Locale) Rules(rs []nod.Rule) Message {
	if len(rs) == 0 {
		return l.Text("rules_none", nil)
	}
	views := make([]ruleView, len(rs))
	m := Message{}
	for i, r := range rs {
		views[i] = l.viewRule(r)
		views[i].N = i + 1
		m.Keyboard = append(m.Keyboard, []Button{l.button("b_rule_revoke", views[i], nod.Action{Kind: nod.ActRevokeRule, ID: r.ID})})
	}
	m.HTML = l.Render("rules_list", views)
	return m
}

// RuleUntil is the date a rule ends, as the locale writes it.
func (l *Locale) RuleUntil(r nod.Rule) string { return l.Date(l.viewRule(r).Until) }
