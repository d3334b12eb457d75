package bot

import (
	"fmt"
	"testing"
)

// docs/design.md §3.4, rule 2: the answers nod reads itself, in every language it
// speaks; what it cannot read in full goes to the agent.
func TestParseAnswer(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"yes": "all yes", "OK!": "all yes", "👍": "all yes", "no": "all no", "Ja": "all yes", "nein.": "all no",
		"passt": "all yes", "nee": "all no", "nope": "all no", "nee…": "all no", "ja zu 1": "yes [1]",
		"yes to 1, 3": "yes [1 3]", "yes 2 and 4": "yes [2 4]", "ja zu 1 und 3": "yes [1 3]", "ja für 2": "yes [2]",
		"no to 2": "no [2]", "no 1": "no [1]",
		"yes to 4 and 6, no to 5":     "yes [4 6] no [5]",
		"yes to 4 and 6 but no to 5":  "yes [4 6] no [5]",
		"no to 1; yes to 2":           "yes [2] no [1]",
		"yes to 3-5":                  "yes [3 4 5]",
		"yes to 3–5":                  "yes [3 4 5]",
		"ja zu 3 bis 5":               "yes [3 4 5]",
		"3 bis 5 passt, 7 auch":       "yes [3 4 5 7]",
		"1 and 2 yes, 3 no":           "yes [1 2] no [3]",
		"all but 2":                   "except [2]",
		"alle außer 2 und 3":          "except [2 3]",
		"yes please do it":            "none",
		"1, 2":                        "none",
		"yes to 1, no to 1":           "none",
		"make it friday":              "none",
		"yes to 5-3":                  "none",
		"no to 2 because it's urgent": "none",
		"7 auch":                      "none",
		"all but":                     "none",
	} {
		a, ok := parseAnswer(text)
		got := "none"
		switch {
		case !ok:
		case a.all && a.confirm:
			got = "all yes"
		case a.all:
			got = "all no"
		case len(a.except) > 0:
			got = fmt.Sprintf("except %v", a.except)
		default:
			got = ""
			if len(a.yes) > 0 {
				got = fmt.Sprintf("yes %v", a.yes)
			}
			if len(a.no) > 0 {
				if got != "" {
					got += " "
				}
				got += fmt.Sprintf("no %v", a.no)
			}
		}
		if got != want {
			t.Errorf("parseAnswer(%q) = %s, want %s", text, got, want)
		}
	}
}
