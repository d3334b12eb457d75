package app

import (
	"os"
	"regexp"
	"strings"
	"testing"
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
