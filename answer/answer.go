package answer

import (
	"slices"

	"github.com/nodbot/nod"
)

// Reading is what nod read in an answer.
type Reading struct {
	// Whole is set when every word of the answer was placed and the words
	// have one meaning: only then does the reading decide anything (On).
	Whole bool
	// AllYes is a yes to every pending item but those of Except and No
	// ("yes", "all but 2", "yes, but not 2"); AllNo a no to every one.
	AllYes, AllNo bool
	// Yes and No are the items the answer names with a verdict, in the
	// order named; Except those it leaves out of a yes to all: they stay
	// pending.
	Yes, No, Except []int
	// Refused are the items the words turn down, ask about or put off:
	// never to be confirmed on these words, whether the reading is whole
	// or not; RefusesAll is set when they turn down the proposal as a
	// whole ("no", "no way", "later").
	Refused    []int
	RefusesAll bool
}

// Read reads text as an answer to a change set.
func (r *Reader) Read(text string) Reading {
	toks := r.tokens(text)
	if m, ok := parse(toks); ok {
		out := Reading{Whole: true, AllYes: m.allYes, AllNo: m.allNo, Yes: m.yes, No: m.no, Except: m.except, RefusesAll: m.allNo}
		out.Refused = append(slices.Clone(m.no), m.except...)
		return out
	}
	refused, all := refusals(toks)
	return Reading{Refused: refused, RefusesAll: all}
}

// OpensWithYes reports whether text begins with a yes ("yes but keep
// the coffee"), whatever follows it.
func (r *Reader) OpensWithYes(text string) bool {
	toks := r.tokens(text)
	return len(toks) > 0 && toks[0].is(cYes)
}

// Bare reports whether the reading is a bare yes or no ("ok", "nee"),
// naming no item.
func (r Reading) Bare() bool {
	return r.Whole && (r.AllYes || r.AllNo) && len(r.Yes)+len(r.No)+len(r.Except) == 0
}

// Refuses reports whether the words turn item n down: confirming it on
// them would decide what the person did not say yes to.
func (r Reading) Refuses(n int) bool { return r.RefusesAll || slices.Contains(r.Refused, n) }

// On is what a whole reading decides of set: the pending items to confirm,
// in the order named, and the items to reject. Unknown is the first
// number the answer names that set has no item of; then, as when the
// reading is not whole, it decides nothing.
func (r Reading) On(set nod.ChangeSet) (confirm, reject []int, unknown int) {
	if !r.Whole {
		return nil, nil, 0
	}
	for _, n := range slices.Concat(r.Yes, r.No, r.Except) {
		if _, ok := set.Item(n); !ok {
			return nil, nil, n
		}
	}
	switch {
	case r.AllNo:
		return nil, set.Pending(), 0
	case r.AllYes:
		for _, n := range set.Pending() {
			if !slices.Contains(r.Except, n) && !slices.Contains(r.No, n) {
				confirm = append(confirm, n)
			}
		}
		return confirm, slices.Clone(r.No), 0
	}
	return slices.Clone(r.Yes), slices.Clone(r.No), 0
}
