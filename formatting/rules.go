package formatting

import (
	"strings"

	"github.com/nodbot/nod"
)

// The templates of learned rules.
var (
	ruleKind     = define[ruleKindText]("rule_kind")
	ruleOffer    = define[ruleView]("rule_offer")
	ruleOn       = define[ruleView]("rule_on")
	ruleDeclined = define[string]("rule_declined")
	rulesNone    = fixed("rules_none")
	rulesList    = define[[]ruleView]("rules_list")

	ruleAcceptButton  = define[ruleView]("b_rule_accept")
	ruleDeclineButton = fixed("b_rule_decline")
	ruleRevokeButton  = define[ruleView]("b_rule_revoke")
	ruleStopButton    = define[ruleView]("b_rule_stop")
)

// ruleKindText is a kind of change split at "=": the tool and the value
// it sets, if the kind names one.
type ruleKindText struct{ Tool, Value string }

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
	return l.Render(ruleKind.With(ruleKindText{Tool: tool, Value: value}))
}

// RuleOffer asks whether changes of the rule's kind may apply without
// asking.
func (l *Locale) RuleOffer(r nod.Rule) Message {
	v := l.viewRule(r)
	m := l.Text(ruleOffer.With(v))
	m.Keyboard = [][]Button{{
		l.button(ruleAcceptButton.With(v), nod.Action{Kind: nod.ActAcceptRule, ID: r.ID}),
		l.button(ruleDeclineButton, nod.Action{Kind: nod.ActDeclineRule, ID: r.ID}),
	}}
	return m
}

// RuleDecided is the offer's message once answered.
func (l *Locale) RuleDecided(r nod.Rule) Message {
	if r.Status == nod.RuleActive {
		return l.Text(ruleOn.With(l.viewRule(r)))
	}
	return l.Text(ruleDeclined.With(l.RuleName(r.Kind)))
}

// Rules renders /rules: the rules in force, a revoke button each.
func (l *Locale) Rules(rs []nod.Rule) Message {
	if len(rs) == 0 {
		return l.Text(rulesNone)
	}
	views := make([]ruleView, len(rs))
	m := Message{}
	for i, r := range rs {
		views[i] = l.viewRule(r)
		views[i].N = i + 1
		m.Keyboard = append(m.Keyboard, []Button{l.button(ruleRevokeButton.With(views[i]), nod.Action{Kind: nod.ActRevokeRule, ID: r.ID})})
	}
	m.HTML = l.Render(rulesList.With(views))
	return m
}

// RuleUntil is the date a rule ends, as the locale writes it.
func (l *Locale) RuleUntil(r nod.Rule) string { return l.Date(l.viewRule(r).Until) }
