package formatting

import (
	"fmt"
	"strings"

	"github.com/nodbot/nod"
)

// ruleView is a rule as its messages show it.
type ruleView struct {
	Name   string
	Until  string // YYYY-MM-DD
	Streak int
}

func viewRule(r nod.Rule) ruleView {
	v := ruleView{Name: RuleName(r.Kind), Streak: nod.RuleStreak}
	if r.ExpiresAt != nil {
		v.Until = r.ExpiresAt.UTC().Format(nod.DateLayout)
	}
	return v
}

// RuleName renders a kind of change as the person reads it: "Set
// priority to P1".
func RuleName(kind string) string {
	tool, value, _ := strings.Cut(kind, "=")
	return Render("rule_kind", map[string]string{"Tool": tool, "Value": value})
}

// RuleOffer asks whether changes of the rule's kind may apply without
// asking.
func RuleOffer(r nod.Rule) Message {
	m := Text("rule_offer", viewRule(r))
	m.Keyboard = [][]Button{{
		{Text: fmt.Sprintf("✓ For %d days", int(nod.RuleLifetime.Hours()/24)), Action: nod.Action{Kind: nod.ActAcceptRule, ID: r.ID}},
		{Text: "✗ No", Action: nod.Action{Kind: nod.ActDeclineRule, ID: r.ID}},
	}}
	return m
}

// RuleDecided is the offer's message once answered.
func RuleDecided(r nod.Rule) Message {
	if r.Status == nod.RuleActive {
		return Text("rule_on", viewRule(r))
	}
	return Text("rule_declined", RuleName(r.Kind))
}

// Rules renders /rules: the rules in force, a revoke button each.
func Rules(rs []nod.Rule) Message {
	if len(rs) == 0 {
		return Text("rules_none", nil)
	}
	views := make([]ruleView, len(rs))
	m := Message{}
	for i, r := range rs {
		views[i] = viewRule(r)
		m.Keyboard = append(m.Keyboard, []Button{{Text: buttonText(fmt.Sprintf("✖ Revoke %d: %s", i+1, views[i].Name)), Action: nod.Action{Kind: nod.ActRevokeRule, ID: r.ID}}})
	}
	m.HTML = Render("rules_list", views)
	return m
}

// RuleUntil is the date a rule ends, for a notice.
func RuleUntil(r nod.Rule) string { return viewRule(r).Until }
