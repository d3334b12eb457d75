package nod

import (
	"fmt"
	"strings"
	"time"
)

// Mode is how much a chat wants to be asked (docs/design.md §3.1).
type Mode string

// Chat modes.
const (
	ModeSmart   Mode = "smart"   // explicit requests run at once, the rest asks
	ModeAlways  Mode = "always"  // every mutating change asks
	ModeTrusted Mode = "trusted" // mutating changes run at once; destructive still asks
)

// ParseMode matches s case-insensitively against the modes.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeSmart, ModeAlways, ModeTrusted:
		return m, nil
	}
	return "", fmt.Errorf("mode %q is not smart, always or trusted: %w", s, ErrInvalid)
}

// ChatSettings are a chat's stored preferences, with those of the person
// they were read for: in a group, a mode and a circuit breaker are each
// member's own.
type ChatSettings struct {
	ChatID ChatID
	UserID UserID
	Mode   Mode
	// BreakerUntil is set while the circuit breaker makes nod ask the
	// person for everything, after they undid auto-applied changes.
	BreakerUntil *time.Time
	// Language is the code chosen with /lang; empty follows LanguageSeen,
	// the language_code Telegram last reported in the chat.
	Language     string
	LanguageSeen string
	// DeletionAsked is set when the question of one of the person's
	// deletions waits for their typed answer: read with the settings, so
	// that an ordinary message costs no look for one.
	DeletionAsked bool
	// ForgetAsked is set when the person's /forget waits for its typed
	// phrase in this chat, their private one.
	ForgetAsked bool
	// TimeZone is the chat's IANA zone; empty: the operator's default.
	TimeZone string
	// ZoneAsked is when the agent was told to ask where the person is,
	// the first time a date or time came up with no zone set; nil: never.
	ZoneAsked *time.Time
	// ZoneUntil is when the chat goes back to the zone ZoneBack names
	// ("" the default), for a zone set for a while; nil: it stays.
	ZoneUntil *time.Time
	ZoneBack  string
	// Daily is the local HH:MM of the chat's daily review, empty while
	// off; DailyQuiet says nothing when the review finds nothing.
	Daily      string
	DailyQuiet bool
	// Digest names these settings as PostgreSQL read them (empty on
	// SQLite): a turn routed by a reading the process kept checks it
	// in its first write (OpeningRequest.Settings).
	Digest string
}

// Lang is the language code to write in: the chosen one, else the one
// Telegram reports in this update (seen), else the last one seen.
func (s ChatSettings) Lang(seen string) string {
	switch {
	case s.Language != "":
		return s.Language
	case seen != "":
		return seen
	}
	return s.LanguageSeen
}

// Effective is the mode in force at now: the breaker overrides the chosen
// mode while it lasts.
func (s ChatSettings) Effective(now time.Time) Mode {
	if s.BreakerUntil != nil && now.Before(*s.BreakerUntil) {
		return ModeAlways
	}
	if s.Mode == "" {
		return ModeSmart
	}
	return s.Mode
}

// EvalRun is what nod eval found for a classifier model: how many of the
// changes its verdicts would have applied were not asked for.
type EvalRun struct {
	Model                       string
	At                          time.Time
	Cases, Calls                int
	FalseExplicit, FalseConfirm int
}

// BreakerUndos of a person's auto-applied changes undone within
// BreakerWindow make nod ask them for everything for BreakerFor
// (docs/design.md §3.1).
const (
	BreakerUndos  = 2
	BreakerWindow = time.Hour
	BreakerFor    = 24 * time.Hour
)
