package answer

import (
	"fmt"
	"slices"
)

// The grammar of an answer nod reads itself. An answer is parts with
// separators between them:
//
//	part:  verdict [to] list        "yes to 1 and 3", "no 2"
//	       not list                 "nicht 2"
//	       list verdict|not         "1 und 3 passen", "2 nicht", "2 lieber nicht"
//	       list too                 "7 auch": the verdict of the part before
//	       verdict [to] all         "yes to all", "no to all"
//	       all verdict              "alle ja"
//	       [yes [to]] all except list   "all but 2", "alle außer 2", "yes to all but 2"
//	       yes except list          "yes except 2", "ja bis auf 2"
//	       except list              "außer 2", after a yes to all ("ja, außer 2")
//	       verdict                  "yes", "nee"
//	list:  item (joiner item)*      joiner: ",", "and", "&", ", and"
//	item:  number | number range number
//
// A separator is a run of ",", ";", "and" and "but"; one of "and" alone
// may only come before a part that starts with a verdict ("yes to 1 and
// no to 2"), so that "ja zu 1 und 3, 2 nicht" has one reading ("ja zu 1
// und 3" and "2 nicht"), not also "ja zu 1" and "3, 2 nicht". A yes to all takes no other yes, only parts
// that refuse ("yes, but not 2"); a no to all stands alone; every item is
// named once. An answer with two readings that mean different things is
// no answer.

// kind is what a part says.
type kind int

const (
	kList   kind = iota // a verdict on its numbers
	kToo                // the verdict of the part before, on its numbers
	kExcept             // its numbers are left out of a yes to all
	kAllYes             // yes to every pending item, but its numbers
	kAllNo              // no to every pending item
)

type part struct {
	kind   kind
	yes    bool  // kList: the verdict
	nums   []int // in the order named
	prefix bool  // starts with a verdict word: may follow "and"
	end    int   // the token after it
}

// maxTokens bounds the answers nod reads itself; longer ones are the
// agent's.
const maxTokens = 48

// maxReadings bounds the part sequences tried from one position: an
// answer with more readings than that is no answer.
const maxReadings = 32

type parser struct {
	toks []token
	memo map[int][][]part
	over bool // some position had more than maxReadings readings
}

// meaning is what a parse says: the answer a reading decides.
type meaning struct {
	allYes, allNo   bool
	yes, no, except []int
}

func (m meaning) key() string {
	s := func(ns []int) []int { return slices.Sorted(slices.Values(ns)) }
	return fmt.Sprint(m.allYes, m.allNo, s(m.yes), s(m.no), s(m.except))
}

// parse returns the one meaning of toks, or false when the tokens are not
// an answer or have readings that differ.
func parse(toks []token) (meaning, bool) {
	if len(toks) == 0 || len(toks) > maxTokens {
		return meaning{}, false
	}
	for _, t := range toks {
		if t.cls&placed == 0 {
			return meaning{}, false // a word nod cannot place
		}
	}
	p := &parser{toks: toks, memo: map[int][][]part{}}
	seqs := p.sequences(0)
	if p.over {
		return meaning{}, false
	}
	var (
		found meaning
		key   string
	)
	for _, seq := range seqs {
		m, ok := evaluate(seq)
		if !ok {
			continue
		}
		switch k := m.key(); {
		case key == "":
			found, key = m, k
		case k != key:
			return meaning{}, false // two readings that mean different things
		}
	}
	return found, key != ""
}

// sequences returns every way tokens from i on are parts with separators
// between them.
func (p *parser) sequences(i int) [][]part {
	if seqs, ok := p.memo[i]; ok {
		return seqs
	}
	var out [][]part
	for _, pt := range p.parts(i) {
		if pt.end == len(p.toks) {
			out = append(out, []part{pt})
			continue
		}
		k, strong := pt.end, false
		for k < len(p.toks) && p.toks[k].is(cSep|cAnd|cBut) {
			strong = strong || p.toks[k].is(cSep|cBut)
			k++
		}
		if k == pt.end || k == len(p.toks) || k-pt.end > 3 {
			continue // no separator, a trailing one, or a run too long to mean one thing
		}
		for _, tail := range p.sequences(k) {
			if strong || tail[0].prefix {
				out = append(out, append([]part{pt}, tail...))
			}
		}
	}
	if len(out) > maxReadings {
		p.over, out = true, out[:maxReadings]
	}
	p.memo[i] = out
	return out
}

// parts returns every part that starts at token i.
func (p *parser) parts(i int) []part {
	if i >= len(p.toks) {
		return nil
	}
	t := p.toks[i]
	var out []part
	if t.is(cYes | cNo) {
		out = append(out, p.verdictParts(i)...)
	}
	if t.is(cNot) {
		for _, l := range p.lists(i + 1) {
			out = append(out, part{kind: kList, nums: l.nums, prefix: true, end: l.end})
		}
	}
	if t.is(cAll) {
		out = append(out, p.allParts(i, nil)...)
	}
	if t.is(cExcept) {
		for _, l := range p.lists(i + 1) {
			out = append(out, part{kind: kExcept, nums: l.nums, end: l.end})
		}
	}
	if t.is(cNum) {
		for _, l := range p.lists(i) {
			if l.end >= len(p.toks) {
				continue
			}
			next := p.toks[l.end]
			if next.is(cYes | cNo | cNot) {
				out = append(out, part{kind: kList, yes: next.is(cYes) && !next.is(cNo|cNot), nums: l.nums, end: l.end + 1})
			}
			if next.is(cToo) {
				out = append(out, part{kind: kToo, nums: l.nums, end: l.end + 1})
			}
		}
	}
	return out
}

// verdictParts are the parts that start with the yes or no at i.
func (p *parser) verdictParts(i int) []part {
	t := p.toks[i]
	yes := t.is(cYes) && !t.is(cNo)
	out := []part{{kind: kAllNo, prefix: true, end: i + 1}}
	if yes {
		out[0].kind = kAllYes
	}
	j := i + 1
	if j < len(p.toks) && p.toks[j].is(cTo) {
		j++
	}
	if j < len(p.toks) && p.toks[j].is(cAll) {
		out = append(out, p.allParts(j, &yes)...)
	}
	for _, l := range p.lists(j) {
		out = append(out, part{kind: kList, yes: yes, nums: l.nums, prefix: true, end: l.end})
	}
	if yes && i+1 < len(p.toks) && p.toks[i+1].is(cExcept) {
		for _, l := range p.lists(i + 2) {
			out = append(out, part{kind: kAllYes, nums: l.nums, prefix: true, end: l.end})
		}
	}
	return out
}

// allParts are the parts that start with the "all" at i. After a verdict
// ("yes to all", "no to all") it takes that verdict, and only a yes to all
// leaves items out ("yes to all but 2").
func (p *parser) allParts(i int, verdict *bool) []part {
	var out []part
	if (verdict == nil || *verdict) && i+1 < len(p.toks) && p.toks[i+1].is(cExcept|cBut) {
		for _, l := range p.lists(i + 2) {
			out = append(out, part{kind: kAllYes, nums: l.nums, prefix: verdict != nil, end: l.end})
		}
	}
	switch {
	case verdict != nil && *verdict:
		out = append(out, part{kind: kAllYes, prefix: true, end: i + 1})
	case verdict != nil:
		out = append(out, part{kind: kAllNo, prefix: true, end: i + 1})
	case i+1 < len(p.toks) && p.toks[i+1].is(cYes|cNo):
		k := kAllYes
		if p.toks[i+1].is(cNo) {
			k = kAllNo
		}
		out = append(out, part{kind: k, end: i + 2})
	}
	return out
}

// list is a run of numbers and ranges, ending before token end.
type list struct {
	nums []int
	end  int
}

// lists returns every list that starts at token i, shortest first.
func (p *parser) lists(i int) []list {
	var (
		out  []list
		nums []int
	)
	for {
		n, end, ok := p.item(i)
		if !ok {
			return out
		}
		nums = append(slices.Clone(nums), n...)
		out = append(out, list{nums: nums, end: end})
		// a joiner: ",", "and", "&", or ", and"
		j := end
		for j < len(p.toks) && j-end < 2 && (p.toks[j].text == "," || p.toks[j].is(cAnd)) {
			j++
		}
		if j == end {
			return out
		}
		i = j
	}
}

// item reads a number or a range at token i.
func (p *parser) item(i int) ([]int, int, bool) {
	if i >= len(p.toks) || !p.toks[i].is(cNum) {
		return nil, 0, false
	}
	from := p.toks[i].n
	if from < 1 || from > maxNumber {
		return nil, 0, false
	}
	if i+2 < len(p.toks) && p.toks[i+1].is(cRange) && p.toks[i+2].is(cNum) {
		to := p.toks[i+2].n
		if to < from || to > maxNumber {
			return nil, 0, false
		}
		var ns []int
		for n := from; n <= to; n++ {
			ns = append(ns, n)
		}
		return ns, i + 3, true
	}
	return []int{from}, i + 1, true
}

// evaluate turns a sequence of parts into what it decides, or false when
// the parts do not make one answer.
func evaluate(seq []part) (meaning, bool) {
	var (
		m     meaning
		named = map[int]bool{}
		prev  *bool // the verdict of the part before, for "too"
		alls  int
	)
	add := func(to *[]int, ns []int) bool {
		for _, n := range ns {
			if named[n] {
				return false
			}
			named[n] = true
		}
		*to = append(*to, ns...)
		return true
	}
	for _, pt := range seq {
		verdict := pt.yes
		switch pt.kind {
		case kToo:
			if prev == nil {
				return m, false
			}
			verdict = *prev
			fallthrough
		case kList:
			to := &m.no
			if verdict {
				to = &m.yes
			}
			if !add(to, pt.nums) {
				return m, false
			}
			prev = &verdict
			continue
		case kExcept:
			if !add(&m.except, pt.nums) {
				return m, false
			}
		case kAllYes:
			alls++
			m.allYes = true
			if !add(&m.except, pt.nums) {
				return m, false
			}
		case kAllNo:
			alls++
			m.allNo = true
		}
		prev = nil
	}
	switch {
	case alls > 1, m.allNo && len(seq) > 1:
		return m, false // a no to all stands alone
	case m.allYes && len(m.yes) > 0:
		return m, false // "yes, 2 too": yes to all takes only refusals
	case len(m.except) > 0 && !m.allYes:
		return m, false // "außer 2" alone: except what?
	}
	return m, true
}
