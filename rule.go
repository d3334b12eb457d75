package nod

import "time"

// A learned rule lets one person's changes of one kind apply without
// asking in one chat, for a while. nod offers it after the person
// confirmed that kind of change RuleStreak times in a row.
const (
	RuleStreak   = 3
	RuleLifetime = 30 * 24 * time.Hour
)

// RuleStatus is where a rule is in its life.
type RuleStatus string

// Rule statuses. Only an offered or active rule is open: a kind has at
// most one open rule per person and chat, and a declined or revoked kind
// is never offered again.
const (
	RuleOffered  RuleStatus = "offered"
	RuleActive   RuleStatus = "active"
	RuleDeclined RuleStatus = "declined"
	RuleRevoked  RuleStatus = "revoked"
	RuleExpired  RuleStatus = "expired"
)

// Rule is a learned rule, or the offer of one.
type Rule struct {
	ID        RuleID
	ChatID    ChatID
	UserID    UserID
	Kind      string // as KindOf names it
	Status    RuleStatus
	MessageID int // the offer's message
	CreatedAt time.Time
	ExpiresAt *time.Time // set when accepted
}

// Streak is how far a person has come toward a rule of one kind: the
// change sets in a row in which they confirmed it, since any other
// verdict on it. At RuleStreak nod offers the rule; Offered is set while
// that offer waits for their answer.
type Streak struct {
	Kind    string // as KindOf names it
	N       int
	Offered bool
}

// Active reports whether the rule applies changes at now.
func (r Rule) Active(now time.Time) bool {
	return r.Status == RuleActive && r.ExpiresAt != nil && now.Before(*r.ExpiresAt)
}

// KindOf names the kind of change an item makes, as rules and the
// rejection memory group them: its tool, and for status and priority the
// value it sets. Empty means the change can never get a rule.
func KindOf(tool Tool, field Field, after string) string {
	switch {
	case tool == "" || tool == ToolDeleteTask:
		return ""
	case field == FieldCall && after != RiskName(Mutating):
		return "" // a destructive call always asks (docs/design.md §16)
	case field == FieldStatus || field == FieldPriority:
		return string(tool) + "=" + after
	}
	return string(tool)
}
