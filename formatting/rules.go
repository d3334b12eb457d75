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
	rulesList    = define[rulesView]("rules_list")

	ruleAcceptButton  = define[ruleView]("b_rule_accept")
	ruleDeclineButton = fixed("b_rule_decline")
	ruleRevokeButton  = define[ruleView]("b_rule_revoke")
	ruleStopButton    = define[ruleView]("b_rule_stop")
)

// ruleKindText is a kind of change split at "=": the tool and the value
// it sets, if the kind names one.
type ruleKindText struct {
	Tool, Value string
	// Server and Call name an external tool's service and its own name.
	Server, Call string
}

// ruleView is a rule as its messages show it.
type ruleView struct {
	N      int
	Name   string
	Until  string // YYYY-MM-DD
	Streak int
	Days   int
	// Call marks a rule for a tool of an operator's MCP server: what it
	// runs, nod cannot undo.
	Call bool
	// Offered marks a kind whose rule was offered and waits for an answer.
	Offered bool
}

// rulesView is /rules: the rules in force, and the kinds on their way
// to one, N each the proposals in a row of the Streak a rule needs.
type rulesView struct {
	Rules  []ruleView
	Near   []ruleView
	Streak int
}

func (l *Locale) viewRule(r nod.Rule) ruleView {
	v := ruleView{Name: l.Rules().Name(r.Kind), Streak: nod.RuleStreak, Days: int(nod.RuleLifetime.Hours() / 24), Call: nod.Tool(r.Kind).External()}
	if r.ExpiresAt != nil {
		v.Until = r.ExpiresAt.UTC().Format(nod.DateLayout)
	}
	return v
}

// Name renders a kind of change as the person reads it: "Set
// priority to P1".
func (rv Rules) Name(kind string) string {
	tool, value, _ := strings.Cut(kind, "=")
	server, call := nod.Tool(tool).Server()
	return rv.l.Render(ruleKind.With(ruleKindText{Tool: tool, Value: value, Server: server, Call: call}))
}

// Offer asks whether changes of the rule's kind may apply without
// asking.
func (rv Rules) Offer(r nod.Rule) Message {
	v := rv.l.viewRule(r)
	m := rv.l.Text(ruleOffer.With(v))
	m.Keyboard = [][]Button{{
		rv.l.button(ruleAcceptButton.With(v), nod.Action{Kind: nod.ActAcceptRule, ID: string(r.ID)}),
		rv.l.button(ruleDeclineButton, nod.Action{Kind: nod.ActDeclineRule, ID: string(r.ID)}),
	}}
	return m
}

// Decided is the offer's message once answered.
func (rv Rules) Decided(r nod.Rule) Message {
	if r.Status == nod.RuleActive {
		return rv.l.Text(ruleOn.With(rv.l.viewRule(r)))
	}
	return rv.l.Text(ruleDeclined.With(rv.Name(r.Kind)))
}

// List renders /rules: the rules in force, a revoke button each, and how
// far the person has come toward a rule of other kinds, so that "I said
// yes three times" can be checked against what counts.
func (rv Rules) List(rs []nod.Rule, near []nod.Streak) Message {
	if len(rs) == 0 && len(near) == 0 {
		return rv.l.Text(rulesNone)
	}
	v := rulesView{Rules: make([]ruleView, len(rs)), Streak: nod.RuleStreak}
	m := Message{}
	for i, r := range rs {
		v.Rules[i] = rv.l.viewRule(r)
		v.Rules[i].N = i + 1
		m.Keyboard = append(m.Keyboard, []Button{rv.l.button(ruleRevokeButton.With(v.Rules[i]), nod.Action{Kind: nod.ActRevokeRule, ID: string(r.ID)})})
	}
	for _, s := range near {
		v.Near = append(v.Near, ruleView{Name: rv.Name(s.Kind), N: s.N, Offered: s.Offered})
	}
	m.HTML = rv.l.Render(rulesList.With(v))
	return m
}

// Until is the date a rule ends, as the locale writes it.
func (rv Rules) Until(r nod.Rule) string { return rv.l.Date(rv.l.viewRule(r).Until) }
