package agent

import (
	"regexp"
	"slices"
	"strings"
)

// lexicon is the words with which the agent reads what the person's
// quoted words cover (cover.go) and name (names.go), in every language
// nod speaks, from Options.Lexicon. An agent without words has an empty
// lexicon: its words name and cover only what they spell out.
type lexicon struct {
	repeat   wordList // asks for a reminder that repeats: "every", "montags"
	wholeSet wordList // replaces or empties a set of labels: "only", "ersetz…"
	removal  wordList // takes something away: "remov…", "weg"
	every    wordList // every one of them: "all", "alle"
	// The words that speak of a new task's fields.
	priority, due, estimate, description wordList
	// little are the words every sentence has, which never tell tasks
	// apart; pointers point at the task talked about ("it", "es").
	little, pointers wordList
	// priorityName finds a priority in folded words: "P1", "prio 1",
	// "Priorität 1".
	priorityName *regexp.Regexp
	// dateLike is a written date: "2026-03-13", "13.3.", "3/13", "13th".
	dateLike *regexp.Regexp
	// duration is an amount of time: "15 min", "2h", "1,5 std", "3 days".
	duration *regexp.Regexp
}

// newLexicon reads the lists list gives by name (formatting.Words).
func newLexicon(list func(name string) []string) *lexicon {
	if list == nil {
		// Without words "every day" would not ask for a repeat: a quote
		// would cover more than the person said, not less.
		panic("agent: Options.Lexicon is nil; pass formatting.Words")
	}
	words := func(name string) wordList { return newWordList(list(name)) }
	return &lexicon{
		repeat: words("repeat"), wholeSet: words("whole_set"), removal: words("removal"), every: words("every"),
		priority: words("priority"), due: words("due"), estimate: words("estimate"), description: words("description"),
		little: words("little"), pointers: words("pointer"),
		priorityName: regexp.MustCompile(`\b(?:` + alternatives(list("priority_name")) + `)\s?([0-3])\b`),
		dateLike:     regexp.MustCompile(`\d{1,4}[./-]\d{1,2}|\b\d{1,2}(` + alternatives(list("ordinal")) + `)\b`),
		duration:     regexp.MustCompile(`\d\s*(` + alternatives(list("duration_unit")) + `)\b`),
	}
}

// alternatives is a regular expression's alternation of words, longest
// first; with none, one that matches nothing.
func alternatives(ws []string) string {
	if len(ws) == 0 {
		return `[^\s\S]`
	}
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = regexp.QuoteMeta(w)
	}
	slices.SortStableFunc(q, func(a, b string) int { return len(b) - len(a) })
	return strings.Join(q, "|")
}

// wordList is a list of lower-case words, and of stems, written with a
// trailing "*", that match every word they start.
type wordList struct {
	words map[string]bool
	stems []string
}

func newWordList(entries []string) wordList {
	l := wordList{words: map[string]bool{}}
	for _, e := range entries {
		if stem, ok := strings.CutSuffix(e, "*"); ok {
			l.stems = append(l.stems, stem)
		} else {
			l.words[e] = true
		}
	}
	return l
}

// has reports whether the list holds w, or a stem of it.
func (l wordList) has(w string) bool {
	return l.words[w] || slices.ContainsFunc(l.stems, func(s string) bool { return strings.HasPrefix(w, s) })
}

// any reports whether the list holds any of ws.
func (l wordList) any(ws []string) bool { return slices.ContainsFunc(ws, l.has) }
