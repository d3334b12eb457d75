package agent

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/confidence"
)

// covered splits a change that an explicit verdict would run at once into
// what the person's quoted words cover, which runs, and what no words of
// theirs cover, which asks (docs/design.md §3.5): a change runs at once
// only if their words cover everything it replaces. A verdict without a
// quote (trusted mode) is not split. note tells the model what waits.
func (t *turn) covered(pc prepared, v confidence.Verdict) (run, ask []prepared, note string) {
	if !v.Explicit() || v.Quote == "" {
		return []prepared{pc}, nil, ""
	}
	if c, ok := pc.c.(labelsChange); ok {
		return coverLabels(pc, c, saidFor(v, nod.FieldLabels))
	}
	return []prepared{pc}, nil, ""
}

// saidFor is the person's words that may cover field f of a call: the
// verdict's quote and its quote for that field.
func saidFor(v confidence.Verdict, f nod.Field) []string {
	said := []string{v.Quote}
	if q, ok := v.Fields[string(f)]; ok {
		said = append(said, q.Quote)
	}
	return said
}

// coverLabels keeps back the labels c takes away that the words do not
// ask to remove: the labels it adds (and the removals asked for) run,
// the rest is a removal of its own, proposed on the task as the running
// part leaves it.
func coverLabels(pc prepared, c labelsChange, said []string) (run, ask []prepared, note string) {
	gone := removedLabels(pc.cur, pc.target)
	var kept []string
	for _, l := range gone {
		if !asksRemoval(said, l, len(gone)) {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		return []prepared{pc}, nil, ""
	}
	now := labelsChange{id: c.id, add: removedLabels(pc.target, pc.cur), remove: slices.DeleteFunc(gone, func(l string) bool { return slices.Contains(kept, l) })}
	mid := pc.task.Clone()
	if p, ok := prepareOn(now, pc.task); ok {
		run = append(run, p)
		_ = now.apply(&mid, applyCtx{})
	}
	if p, ok := prepareOn(labelsChange{id: c.id, remove: kept}, &mid); ok {
		ask = append(ask, p)
	}
	return run, ask, fmt.Sprintf("Taking away %s %s waits for the user's tap: the user's words quoted for this call do not ask to remove it. Labels it adds were applied.",
		labelWord(kept), quoteAll(kept))
}

// prepareOn reads change c against task as validate does; ok is false
// for a change that would change nothing.
func prepareOn(c change, task *nod.Task) (prepared, bool) {
	cur, err1 := c.current(task)
	target, err2 := c.target(task)
	if err1 != nil || err2 != nil || cur == target {
		return prepared{}, false
	}
	return prepared{c: c, task: task, cur: cur, target: target}, true
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// asksRemoval reports whether words said ask to take away label l, one
// of n labels a call takes away (docs/design.md §3.5). They do when they
// name l; when they ask to replace or empty the whole set ("only",
// "nur", "instead", "statt", "replace…", "ersetz…", "clear…", or a word
// that removes beside "all", "alle"); or when they ask to remove and the
// call takes away that one label alone ("remove the label"). Words that
// ask to add never do.
func asksRemoval(said []string, l string, n int) bool {
	label := strings.Join(wordsOf(l), " ")
	for _, s := range said {
		ws := wordsOf(s)
		if label != "" && strings.Contains(" "+strings.Join(ws, " ")+" ", " "+label+" ") {
			return true
		}
		removes, all := false, false
		for _, w := range ws {
			switch {
			case wholeSetWords[w] || hasStem(w, wholeSetStems):
				return true
			case removalWords[w] || hasStem(w, removalStems):
				removes = true
			case allWords[w]:
				all = true
			}
		}
		if removes && (all || n == 1) {
			return true
		}
	}
	return false
}

// The words of asksRemoval, lower case. A stem matches a word it starts.
var (
	wholeSetWords = map[string]bool{"only": true, "nur": true, "instead": true, "statt": true, "anstatt": true, "stattdessen": true, "ausschließlich": true}
	wholeSetStems = []string{"replac", "ersetz", "clear"}
	removalWords  = map[string]bool{"weg": true, "raus": true}
	removalStems  = []string{"remov", "delet", "drop", "untag", "unlabel", "entfern", "lösch", "loesch"}
	allWords      = map[string]bool{"all": true, "every": true, "alle": true, "allen": true, "sämtliche": true}
)

func hasStem(w string, stems []string) bool {
	return slices.ContainsFunc(stems, func(s string) bool { return strings.HasPrefix(w, s) })
}

// wordsOf splits text into lower-case words of letters and digits.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
