package app

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/agent"
	"github.com/nodbot/nod/bot"
	"github.com/nodbot/nod/confidence"
)

// tableRows returns the rows of the first Markdown table after heading in
// doc, split into trimmed cells.
func tableRows(t *testing.T, doc, heading string) [][]string {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no heading %q", doc, heading)
	}
	var rows [][]string
	for _, line := range strings.Split(s[i+len(heading)+2:], "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		if strings.HasPrefix(line, "| ---") || strings.HasPrefix(line, "| variable") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// TestConfigDocumented keeps the configuration tables of README.md and
// docs/design.md §9.1 true to the settings nod reads: every variable
// listed once, with its flag and default, and nothing listed that nod
// does not read (docs/design.md marks what is planned).
func TestConfigDocumented(t *testing.T) {
	byEnv := map[string]setting{}
	for _, s := range settings {
		byEnv[s.env] = s
	}
	check := func(t *testing.T, doc, heading string, flagCol bool) {
		seen := map[string]bool{}
		for _, row := range tableRows(t, doc, heading) {
			if len(row) < 3 {
				t.Errorf("%s: a short row %q", doc, row)
				continue
			}
			planned := strings.Contains(row[len(row)-2], "*planned*")
			for _, m := range codeSpan.FindAllStringSubmatch(row[0], -1) {
				env := m[1]
				s, ok := byEnv[env]
				switch {
				case planned && ok:
					t.Errorf("%s lists %s as planned, but nod reads it", doc, env)
				case planned:
					continue
				case !ok:
					t.Errorf("%s lists %s, which nod does not read", doc, env)
					continue
				}
				seen[env] = true
				if flagCol && row[1] != "`-"+s.flag+"`" {
					t.Errorf("%s: %s's flag is %s, want `-%s`", doc, env, row[1], s.flag)
				}
				def := row[len(row)-1]
				if s.def != "" && len(codeSpan.FindAllString(row[0], -1)) == 1 && !strings.Contains(def, "`"+s.def+"`") {
					t.Errorf("%s: %s's default reads %q, want `%s`", doc, env, def, s.def)
				}
			}
		}
		for _, s := range settings {
			if !seen[s.env] {
				t.Errorf("%s does not list %s (-%s)", doc, s.env, s.flag)
			}
		}
	}
	t.Run("README", func(t *testing.T) { check(t, "../../../README.md", "## Configure", true) })
	t.Run("design", func(t *testing.T) { check(t, "../../../docs/design.md", "### 9.1 Contract: configuration", false) })
}

// TestDefaultsDeclaredOnce keeps the defaults the configuration table
// documents equal to the ones the packages take when an option is unset:
// the table's text is the contract (docs/design.md §9.1), the constants
// are what code and tests that set no option get.
func TestDefaultsDeclaredOnce(t *testing.T) {
	cfg, _, err := loadConfig("nod", nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	limits := bot.DefaultLimits()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"changeset-ttl", cfg.ChangeSetTTL, nod.DefaultChangeSetTTL},
		{"undo-window", cfg.UndoWindow, nod.DefaultUndoWindow},
		{"trash-retention", cfg.TrashRetention, nod.DefaultTrashRetention},
		{"confirm-window", cfg.ConfirmWindow, nod.DefaultConfirmWindow},
		{"step-timeout", cfg.StepTimeout, agent.DefaultStepTimeout},
		{"max-steps", cfg.MaxSteps, agent.DefaultMaxSteps},
		{"classifier-timeout", cfg.ClassifierTimeout, confidence.DefaultTimeout},
		{"sweep-interval", cfg.SweepInterval, bot.DefaultSweepInterval},
		{"update-timeout", cfg.UpdateTimeout, bot.DefaultUpdateTimeout},
		{"voice-max", cfg.VoiceMax, bot.DefaultVoiceMax},
		{"rate-chat", cfg.RateChat, limits.PerChat},
		{"rate-chat-burst", cfg.RateChatBurst, limits.PerChatBurst},
		{"rate-group", cfg.RateGroup, limits.PerGroup},
		{"rate-global", cfg.RateGlobal, limits.Global},
		{"timezone", cfg.TimeZone, time.UTC},
	} {
		if c.got != c.want {
			t.Errorf("-%s defaults to %v in the configuration table, but the package takes %v when it is unset", c.name, c.got, c.want)
		}
	}
}
