package bot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodbot/nod/answer"
)

// reading says what a reading decides, in the words of the table below.
func reading(r answer.Reading) string {
	if !r.Whole {
		return "none"
	}
	var parts []string
	switch {
	case r.AllNo:
		parts = append(parts, "all no")
	case r.AllYes && len(r.Except)+len(r.No) == 0:
		parts = append(parts, "all yes")
	case r.AllYes:
		parts = append(parts, "all yes but")
	}
	if len(r.Yes) > 0 {
		parts = append(parts, fmt.Sprintf("yes %v", r.Yes))
	}
	if len(r.No) > 0 {
		parts = append(parts, fmt.Sprintf("no %v", r.No))
	}
	if len(r.Except) > 0 {
		parts = append(parts, fmt.Sprintf("except %v", r.Except))
	}
	return strings.Join(parts, " ")
}

// docs/design.md §3.4, rule 2: the answers nod reads itself, in the words
// of every language it speaks. It decides only what every word of an
// answer says: an answer with a word it cannot place, or with two
// readings, is "none" (the agent reads it).
func TestReadAnswer(t *testing.T) {
	t.Parallel()
	r := newReader()
	for text, want := range map[string]string{
		"yes": "all yes", "OK!": "all yes", "👍": "all yes", "no": "all no", "Ja": "all yes", "nein.": "all no", "yes!!": "all yes",
		"passt": "all yes", "nee": "all no", "nope": "all no", "nee…": "all no", "ja zu 1": "yes [1]",
		"yes to 1, 3": "yes [1 3]", "yes 2 and 4": "yes [2 4]", "ja zu 1 und 3": "yes [1 3]", "ja für 2": "yes [2]", "👍 1,3": "yes [1 3]",
		"no to 2": "no [2]", "no 1": "no [1]", "yes to all": "all yes", "no to all": "all no",
		"yes to 4 and 6, no to 5":       "yes [4 6] no [5]",
		"yes to 4 and 6 but no to 5":    "yes [4 6] no [5]",
		"yes to 4 and 6 and no to 5":    "yes [4 6] no [5]",
		"no to 1; yes to 2":             "yes [2] no [1]",
		"yes to 3-5":                    "yes [3 4 5]",
		"yes to 3–5":                    "yes [3 4 5]",
		"ja zu 3 bis 5":                 "yes [3 4 5]",
		"3 bis 5 passt, 7 auch":         "yes [3 4 5 7]",
		"1 and 2 yes, 3 no":             "yes [1 2] no [3]",
		"1 und 3 passen, 2 und 4 nicht": "yes [1 3] no [2 4]",
		"all but 2":                     "all yes but except [2]",
		"alle außer 2 und 3":            "all yes but except [2 3]",
		"ja zu allen außer 2":           "all yes but except [2]",

		// The refusals people write, where nod can place them exactly.
		"ja zu 1 und 3, 2 nicht":     "yes [1 3] no [2]",
		"yes to 1 and 3, 2 not":      "yes [1 3] no [2]",
		"1 und 3 ja, 2 lieber nicht": "yes [1 3] no [2]",
		"yes to 1 and 3 but not 2":   "yes [1 3] no [2]",
		"2 nicht":                    "no [2]",
		"2 not":                      "no [2]",
		"nicht 2":                    "no [2]",
		"not 2":                      "no [2]",
		"yes, but not 2":             "all yes but no [2]",
		"ja, 2 nicht":                "all yes but no [2]",
		"yes except 2":               "all yes but except [2]",
		"ja bis auf 2":               "all yes but except [2]",
		"ja, ohne 2":                 "all yes but except [2]",
		"ja, außer 2":                "all yes but except [2]",
		"all but 2, 3 no":            "all yes but no [3] except [2]",

		// What nod cannot read whole: the agent reads it.
		"yes please do it":            "none",
		"1, 2":                        "none",
		"2-4":                         "none",
		"yes to 1, no to 1":           "none",
		"make it friday":              "none",
		"yes to 5-3":                  "none",
		"no to 2 because it's urgent": "none",
		"7 auch":                      "none",
		"all but":                     "none",
		"no way":                      "none",
		"2 not yet":                   "none",
		"1 ok, 2 later":               "none",
		"1? 2?":                       "none",
		"yes?":                        "none",
		"nicht":                       "none",
		"außer 2":                     "none",
		"except 2":                    "none",
		"ohne 2":                      "none",
		"bis auf 2":                   "none",
		"2 passt nicht":               "none",
		"yes, 2 too":                  "none",
		"nee, 1 ja":                   "none",
		"no to all but 2":             "none",
		// "und" binds numbers: each could close either list.
		"ja zu 1 und 3 und 2 nicht": "none",
		"no to 1 and 3 yes":         "none",
		"yes to 1 and 3 no to 2":    "none",
		"nicht 2, 3 ja":             "yes [3] no [2]",
	} {
		if got := reading(r.Read(text)); got != want {
			t.Errorf("Read(%q) = %s, want %s", text, got, want)
		}
	}
}

// The items words refuse, whole or not: what an answer_proposals call may
// never confirm on them (docs/design.md §3.4).
func TestRefusedItems(t *testing.T) {
	t.Parallel()
	r := newReader()
	for text, want := range map[string]string{
		"ja zu 1 und 3, 2 nicht":    "[2]",
		"alle außer 2":              "[2]",
		"yes, but not 2":            "[2]",
		"nee":                       "all",
		"no way":                    "all",
		"later":                     "all",
		"not ok":                    "all",
		"what is item 2?":           "[2]",
		"2 not yet":                 "[2]",
		"1 ok, 2 later":             "[2]",
		"1 ok, 2 maybe later":       "[2]",
		"1? 2?":                     "[1 2]",
		"yes to 1 and not 2 pls":    "[2]",
		"2 passt nicht, 1 schon":    "[2]",
		"everything except 2 pls":   "[2]",
		"all of them but the title": "[]",
		"I won't say yes to all":    "[]",
		"keep the fast ones":        "[]",
		"the first two are fine":    "[]",
	} {
		rd := r.Read(text)
		got := fmt.Sprint(rd.Refused)
		if rd.RefusesAll {
			got = "all"
		}
		if rd.Refused == nil && !rd.RefusesAll {
			got = "[]"
		}
		if got != want {
			t.Errorf("Read(%q) refuses %s, want %s", text, got, want)
		}
	}
}
