package answer_test

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/answer"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/formatting"
)

// seeds are the answers people write: those docs/design.md §3.4 and the
// README name, in English and German, and the tricky ones.
var seeds = []string{
	"yes", "ok", "okay", "confirm", "👍", "no", "cancel", "nope", "ja", "passt", "nee", "nein", "nö", "jo", "klar",
	"yes to 1, 3", "no to 2", "yes to 4 and 6, no to 5", "yes to 4 and 6 but no to 5", "3-5", "2-4", "all but 2",
	"yes to 3–5", "ja zu 1 und 3", "3 bis 5", "3 bis 5 passt", "3 bis 5 passt, 7 auch", "alle außer 2", "alle außer 2 und 3",
	"all but the title", "1 und 3 passen, 2 und 4 nicht", "the first two are fine, drop the date", "keep the fast ones",
	"ja zu 1 und 3, 2 nicht", "yes to 1 and 3, 2 not", "1 und 3 ja, 2 lieber nicht", "alle außer 2", "all but 2",
	"yes except 2", "yes, but not 2", "ja bis auf 2", "2 not yet", "1 ok, 2 later", "1? 2?", "nicht 2", "no way",
	"yes!!", "👍 1,3", "2 nicht", "2 not", "not 2", "ohne 2", "bis auf 2", "außer 2", "except 2", "no to 2",
	"ja, ohne 2", "ja zu allen außer 2", "yes to all but 2", "no to all", "yes to all", "ja zu 1 und 3 und 2 nicht",
	"no to 1 and 3 yes", "nicht 2, 3 ja", "2 passt nicht", "I won't say yes to all", "what is item 2?",
	"yes to 1 and not 2 please", "1 ok, 2 maybe later", "nee, keine anderen. aber nimm das doch rein",
	"yes to 1, no to 1", "yes to 5-3", "7 auch", "all but", "yes please do it", "make it friday", "1, 2",
	"1 yes 2 no", "ja 2 nicht", "yes, 2 too", "👍🏻", "yes to 1 to 3", "no 1 - 3, 4 ja", "all but 2, 3 no",
}

// FuzzRead checks the reader against rules that hold for any text
// (docs/design.md §3.4), with oracles of its own over the same words: a
// word nod cannot place decides nothing; the numbers beside a refusing
// word are never confirmed, and are refused for answer_proposals too;
// what an answer confirms is what it names (or "all" names) and does not
// refuse; what it refuses it names.
func FuzzRead(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	words := formatting.AnswerWords()
	r := answer.NewReader(words)
	o := newOracle(words)
	set := nod.ChangeSet{}
	for n := 1; n <= 99; n++ {
		set.Items = append(set.Items, nod.ChangeItem{N: n, Status: nod.ItemPending})
	}
	f.Fuzz(func(t *testing.T, text string) {
		rd := r.Read(text)
		if again := r.Read(text); !reflect.DeepEqual(rd, again) {
			t.Fatalf("Read(%q) twice: %+v, then %+v", text, rd, again)
		}
		confirm, reject, unknown := rd.On(set)
		if unknown != 0 {
			t.Fatalf("Read(%q) names item %d, outside 1..99", text, unknown)
		}
		toks := o.tokens(text)
		if w, ok := o.unplaced(toks); ok && (rd.Whole || len(confirm)+len(reject) > 0) {
			t.Fatalf("Read(%q) decided (%v, %v) though it cannot place %q", text, confirm, reject, w)
		}
		if !rd.Whole && len(confirm)+len(reject) > 0 {
			t.Fatalf("Read(%q) is not whole and decided (%v, %v)", text, confirm, reject)
		}
		refused := o.refused(toks)
		for _, n := range refused {
			if slices.Contains(confirm, n) {
				t.Fatalf("Read(%q) confirms %d, which a word beside it refuses (%+v)", text, n, rd)
			}
			if !rd.Refuses(n) {
				t.Fatalf("Read(%q) does not refuse %d for answer_proposals, though a word beside it does (%+v)", text, n, rd)
			}
		}
		named := o.named(toks)
		for _, n := range slices.Concat(rd.No, rd.Except, reject) {
			if !o.namesAll(toks, "no") && !slices.Contains(named, n) {
				t.Fatalf("Read(%q) refuses %d, which it does not name (%+v)", text, n, rd)
			}
		}
		all := o.namesAll(toks, "yes")
		for _, n := range confirm {
			switch {
			case slices.Contains(rd.No, n) || slices.Contains(rd.Except, n) || slices.Contains(reject, n):
				t.Fatalf("Read(%q) both confirms and refuses %d (%+v)", text, n, rd)
			case !all && !slices.Contains(named, n):
				t.Fatalf("Read(%q) confirms %d, which it does not name (%+v)", text, n, rd)
			}
		}
	})
}

// oracle reads a text as plainly as it can: words by their lists, with
// no grammar.
type oracle struct {
	classes map[string][]string // class names of a word or phrase
	phrases [][]string          // of several words, longest first
}

var wordRE = regexp.MustCompile(`\p{L}[\p{L}\p{M}'’]*|[0-9]+|[^\s\v\x{85}\p{Z}]`)

func newOracle(w answer.Words) *oracle {
	o := &oracle{classes: map[string][]string{}}
	for name, list := range map[string][]string{"yes": w.Yes, "no": w.No, "not": w.Not, "to": w.To, "and": w.And, "range": w.Range,
		"all": w.All, "except": w.Except, "but": w.But, "too": w.Too, "refuse": w.Refuse} {
		for _, e := range list {
			ws := wordRE.FindAllString(strings.ToLower(e), -1)
			key := strings.Join(ws, " ")
			o.classes[key] = append(o.classes[key], name)
			if len(ws) > 1 && !slices.ContainsFunc(o.phrases, func(p []string) bool { return strings.Join(p, " ") == key }) {
				o.phrases = append(o.phrases, ws)
			}
		}
	}
	slices.SortStableFunc(o.phrases, func(a, b []string) int { return len(b) - len(a) })
	return o
}

type otok struct {
	text    string
	classes []string
}

func (t otok) is(names ...string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return slices.Contains(t.classes, n) })
}

func (t otok) number() (int, bool) {
	if t.text == "" || len(t.text) > 3 || strings.Trim(t.text, "0123456789") != "" {
		return 0, false
	}
	n, _ := strconv.Atoi(t.text)
	return n, true
}

func (o *oracle) tokens(text string) []otok {
	ws := wordRE.FindAllString(strings.ToLower(text), -1)
	for i, w := range ws {
		if w == "–" || w == "—" {
			ws[i] = "-"
		}
	}
	for len(ws) > 0 && strings.Contains(".!…", ws[len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	var out []otok
	for i := 0; i < len(ws); i++ {
		matched := false
		for _, p := range o.phrases {
			if len(p) <= len(ws)-i && slices.Equal(ws[i:i+len(p)], p) {
				key := strings.Join(p, " ")
				out = append(out, otok{key, o.classes[key]})
				i += len(p) - 1
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, otok{ws[i], o.classes[ws[i]]})
		}
	}
	return out
}

// unplaced returns a token no list holds and no grammar could place.
func (o *oracle) unplaced(toks []otok) (string, bool) {
	for _, t := range toks {
		if _, ok := t.number(); ok || t.text == "," || t.text == ";" || t.text == "&" || t.text == "-" {
			continue
		}
		if !t.is("yes", "no", "not", "to", "and", "range", "all", "except", "but", "too") {
			return t.text, true
		}
	}
	return "", false
}

// item reads a number or a range at i: its numbers and the index after it.
func item(toks []otok, i int) ([]int, int) {
	if i < 0 || i >= len(toks) {
		return nil, i
	}
	from, ok := toks[i].number()
	if !ok {
		return nil, i
	}
	if i+2 < len(toks) && (toks[i+1].is("range") || toks[i+1].text == "-") {
		if to, ok := toks[i+2].number(); ok && to >= from && to-from <= 99 {
			var ns []int
			for n := from; n <= to; n++ {
				ns = append(ns, n)
			}
			return ns, i + 3
		}
	}
	return []int{from}, i + 1
}

// named are the numbers a text names, ranges filled in.
func (o *oracle) named(toks []otok) []int {
	var out []int
	for i := 0; i < len(toks); {
		ns, next := item(toks, i)
		if ns == nil {
			i++
			continue
		}
		out, i = append(out, ns...), next
	}
	return out
}

// refused are the numbers right beside a refusing word: after it (past a
// "to"), and before it, each a run of numbers joined by "and".
func (o *oracle) refused(toks []otok) []int {
	var out []int
	for i, t := range toks {
		refuses := t.is("no", "not", "except", "refuse") || t.is("but") && i > 0 && toks[i-1].is("all")
		if !refuses {
			continue
		}
		j := i + 1
		for j < len(toks) && toks[j].is("to") {
			if _, ok := toks[j].number(); ok {
				break
			}
			j++
		}
		for {
			ns, next := item(toks, j)
			if ns == nil {
				break
			}
			out = append(out, ns...)
			if next >= len(toks) || !(toks[next].is("and") || toks[next].text == "&") {
				break
			}
			j = next + 1
		}
		// Before it: the run that ends right there.
		for j = i - 1; j >= 0; {
			if _, ok := toks[j].number(); !ok {
				break
			}
			start := j
			if j >= 2 && (toks[j-1].is("range") || toks[j-1].text == "-") {
				if _, ok := toks[j-2].number(); ok {
					start = j - 2
				}
			}
			ns, _ := item(toks, start)
			if start != j && len(ns) == 1 {
				ns, _ = item(toks, j) // "5 bis 3": not a range
				start = j
			}
			out = append(out, ns...)
			if start == 0 || !(toks[start-1].is("and") || toks[start-1].text == "&") {
				break
			}
			j = start - 2
		}
	}
	return out
}

// namesAll reports whether a text speaks of every item with the verdict
// v ("yes" or "no"): it says "all", or a v that no number stands beside
// ("yes", "nee", "ja, außer 2").
func (o *oracle) namesAll(toks []otok, v string) bool {
	for i, t := range toks {
		if t.is("all") {
			return true
		}
		if !t.is(v) {
			continue
		}
		j := i + 1
		for j < len(toks) && toks[j].is("to") {
			j++
		}
		_, after := item(toks, j)
		_, before := item(toks, i-1)
		if after == j && (i == 0 || before == i-1) {
			return true
		}
	}
	return false
}
