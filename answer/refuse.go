package answer

import "slices"

// refusals are the items that words nod could not read whole turn down.
// The words are cut into sentence parts at ",", ";", ".", "!", "?", ":",
// "…" and "but". A part that holds a word that refuses (no, not, except,
// later, …) or ends in a question mark refuses every number in it,
// unless a yes stands right beside the number and no refusal does: "yes
// to 1 and not 2" refuses 2 only, "1 ok, 2 maybe later" refuses 2. all
// is set when the words refuse without naming an item: every part
// refuses, no number is named and no yes is said but a negated one ("no
// way", "not ok", "later").
func refusals(toks []token) (refused []int, all bool) {
	toks = slices.Clone(toks)
	for i := 1; i < len(toks); i++ {
		if toks[i].is(cBut) && toks[i-1].is(cAll) {
			toks[i].cls = cExcept // "all but 2"
		}
	}
	parts, refusingParts, saysYes := 0, 0, false
	for start := 0; start < len(toks); {
		end := start
		for end < len(toks) && !toks[end].is(cSep|cEnd|cBut) {
			end++
		}
		asks := end < len(toks) && toks[end].is(cAsk)
		if part := toks[start:end]; len(part) > 0 {
			parts++
			ns, refuses, yes := partRefusals(part, asks)
			refused = append(refused, ns...)
			saysYes = saysYes || yes
			if refuses {
				refusingParts++
			}
		}
		start = end + 1
	}
	slices.Sort(refused)
	names := slices.ContainsFunc(toks, func(t token) bool { return t.is(cNum) })
	return slices.Compact(refused), parts > 0 && refusingParts == parts && !saysYes && !names
}

// partRefusals reads one sentence part: the numbers it refuses, whether
// it refuses, and whether it says a yes (or all) that no refusal negates.
func partRefusals(part []token, asks bool) (refused []int, refuses, yes bool) {
	els := elements(part)
	refuses = asks
	yesBound, noBound := map[int]bool{}, map[int]bool{}
	for i, e := range els {
		switch {
		case e.tok.is(refusing), e.tok.is(cYes) && negated(els, i):
			// "2 passt nicht", "not ok 2": a yes beside a refusal refuses.
			refuses = true
			bind(els, i, noBound)
		case e.tok.is(cYes | cAll):
			yes = true
			bind(els, i, yesBound)
		}
	}
	if !refuses {
		return nil, false, yes
	}
	for _, e := range els {
		for _, n := range e.nums {
			if asks || noBound[n] || !yesBound[n] {
				refused = append(refused, n)
			}
		}
	}
	return refused, true, yes
}

// negated reports whether the word at i has a refusal right beside it.
func negated(els []element, i int) bool {
	return i > 0 && els[i-1].tok.is(refusing) || i+1 < len(els) && els[i+1].tok.is(refusing)
}

// element is a token, or a number or range as the numbers it names.
type element struct {
	tok  token
	nums []int
}

// elements reads numbers and ranges out of toks. A chain of ranges
// ("1-3-5") names every number of each range in it: read either way, a
// refusal of it refuses them all.
func elements(toks []token) []element {
	var out []element
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !t.is(cNum) {
			out = append(out, element{tok: t})
			continue
		}
		e := element{tok: t, nums: []int{t.n}}
		for i+2 < len(toks) && toks[i+1].is(cRange) && toks[i+2].is(cNum) {
			lo, hi := min(toks[i].n, toks[i+2].n), max(toks[i].n, toks[i+2].n)
			e.nums = append(e.nums, lo, hi)
			for n := lo + 1; n < hi && hi-lo <= maxNumber; n++ { // too wide a range names its ends only
				e.nums = append(e.nums, n)
			}
			i += 2
		}
		slices.Sort(e.nums)
		e.nums = slices.Compact(e.nums)
		out = append(out, e)
	}
	return out
}

// bind marks the numbers right beside the word at i: after it (past a
// "to") and before it, each a run joined by "and".
func bind(els []element, i int, marks map[int]bool) {
	j := i + 1
	for j < len(els) && els[j].tok.is(cTo) && els[j].nums == nil {
		j++
	}
	for step := 1; step >= -1; step -= 2 {
		if step == -1 {
			j = i - 1
		}
		for j >= 0 && j < len(els) && els[j].nums != nil {
			for _, n := range els[j].nums {
				marks[n] = true
			}
			j += step
			if j < 0 || j >= len(els) || !els[j].tok.is(cAnd) || els[j].nums != nil {
				break
			}
			j += step
		}
	}
}
