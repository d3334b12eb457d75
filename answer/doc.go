// Package answer reads a person's answer to a change set in words: "yes",
// "ja zu 1 und 3, 2 nicht", "all but 2" (docs/design.md §3.4).
//
// Its one promise: an answer decides only what every word of it says. A
// reading decides anything (Whole) only when every word of the answer was
// placed and the words allow one meaning; a word it cannot place ("later",
// "no way", "?") leaves the answer to the agent and the classifier, and
// whatever reads it then is held to the items the words refuse (Refuses):
// those are never confirmed.
//
// The words of every language come from formatting's template files
// (formatting.AnswerWords); this package holds the grammar, so that the
// bot, the agent and nod eval read an answer the same way.
package answer
