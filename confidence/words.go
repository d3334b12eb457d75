package confidence

import "strings"

// lexicon is the words quotes are read with, in every language nod
// speaks, from Options.Lexicon. A classifier without words has an empty
// one, and reads no quote as explicit.
type lexicon struct {
	ok bool
	// negations say no; so does a word ending in a negationSuffix
	// ("n't"), contractions typed without their apostrophe among them.
	negations        map[string]bool
	negationSuffixes []string
	// corrections take back what came before ("no wait"), each also with
	// a comma after its first word ("no, wait").
	corrections []string
	// clauses start a new clause ("but", "aber"), read with a space on
	// either side.
	clauses []string
	// fillers may come before a question's first word: "ok, what's next".
	fillers map[string]bool
	// interrogatives ask about something.
	interrogatives map[string]bool
	// conditionals make a polite request depend on something the person
	// asks about: "could you move it if that works?".
	conditionals map[string]bool
	// telling asks for words, not for a change: "can you tell me the
	// description?", "kannst du mir das zeigen?".
	telling map[string]bool
	// askingVerbs, followed by one of persons, begin a question. Other
	// verbs first are an order ("mach es", "do it").
	askingVerbs, persons map[string]bool
	// openers are a polite request's opening, a modal and whom it
	// addresses ("could you", "kannst du") or one word as people type it
	// ("kannste").
	openers map[string]bool
	// changes are the verbs with which people ask nod for its changes; a
	// polite question counts as a request only with one of them, with a
	// changeSuffix ("moving"), or with a phrasal verb whose particle
	// comes after it ("check it off").
	changes        map[string]bool
	changeSuffixes []string
	phrasal        [][2]string
}

// newLexicon reads the lists list gives by name (formatting.Words); nil
// gives the empty lexicon.
func newLexicon(list func(name string) []string) *lexicon {
	if list == nil {
		return &lexicon{}
	}
	set := func(name string) map[string]bool {
		m := map[string]bool{}
		for _, w := range list(name) {
			m[w] = true
		}
		return m
	}
	l := &lexicon{ok: true,
		negations: set("negation"), negationSuffixes: list("negation_suffix"), clauses: list("clause"),
		fillers: set("filler"), interrogatives: set("interrogative"), conditionals: set("conditional"), telling: set("telling"),
		askingVerbs: set("asking_verb"), persons: set("person"), openers: set("opener"),
		changes: set("change"), changeSuffixes: list("change_suffix"),
	}
	for _, c := range list("correction") {
		l.corrections = append(l.corrections, c)
		if first, rest, ok := strings.Cut(c, " "); ok {
			l.corrections = append(l.corrections, first+", "+rest)
		}
	}
	for _, p := range list("change_phrasal") {
		if verb, particle, ok := strings.Cut(p, " "); ok {
			l.phrasal = append(l.phrasal, [2]string{verb, particle})
		}
	}
	return l
}
