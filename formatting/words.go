package formatting

import (
	"fmt"
	"slices"
	"strings"
)

// wordLists name the lists of words, beyond an answer's (AnswerWords),
// with which nod reads the person's messages: the classifier's quotes
// (package confidence) and what the agent's changes cover (package
// agent). Each is the template words_<name> of every language.
var wordLists = []string{
	// confidence
	"negation", "negation_suffix", "correction", "clause", "filler", "interrogative", "conditional", "telling",
	"asking_verb", "person", "opener", "change", "change_suffix", "change_phrasal",
	// agent
	"repeat", "whole_set", "removal", "every", "priority", "priority_name", "due", "ordinal", "estimate",
	"duration_unit", "description", "little", "pointer",
	// confirm
	"forget",
}

func init() {
	for _, l := range wordLists {
		fixed("words_" + l)
	}
}

// Words returns the entries of the word list named list ("negation":
// the templates words_negation) in every language nod speaks, lower
// case, each once: a German word counts in an English chat. confidence
// and agent read the person's words with them. Words panics on a list
// nod does not declare, or a language's list with an empty or repeated
// entry: a programming error every test that builds them catches.
func Words(list string) []string {
	if !slices.Contains(wordLists, list) {
		panic(fmt.Sprintf("formatting: no word list %q", list))
	}
	return union(Fixed{"words_" + list})
}

// union gathers the words template f lists in every language, each once;
// it panics on a language's list that parseWords refuses.
func union(f Fixed) []string {
	var out []string
	for _, code := range Languages() {
		ws, err := parseWords(locales[code].Render(f))
		if err != nil {
			panic(fmt.Sprintf("formatting: %s.tmpl: %s: %v", code, f.name, err))
		}
		for _, w := range ws {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// parseWords reads one language's list: comma-separated entries, lower
// case. A list may be empty (a language need not have every kind of
// word), an entry may not: ", ," or a word listed twice is a slip in the
// file.
func parseWords(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, w := range strings.Split(strings.ToLower(s), ",") {
		w = strings.TrimSpace(w)
		switch {
		case w == "":
			return nil, fmt.Errorf("an empty entry in %q", s)
		case slices.Contains(out, w):
			return nil, fmt.Errorf("%q listed twice", w)
		}
		out = append(out, w)
	}
	return out, nil
}
