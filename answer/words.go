package answer

import (
	"strconv"
	"strings"
	"unicode"
)

// Words are the words an answer may use, in every language nod speaks,
// by what they do. An entry may be a phrase of several words ("bis auf",
// "lieber nicht"); case does not matter.
type Words struct {
	Yes   []string // "yes", "ja", "passt", "👍": a verdict, before or after its numbers, or alone
	No    []string // "no", "nee": a verdict, before or after its numbers, or alone
	Not   []string // "not", "nicht", "lieber nicht": turns down the numbers beside it ("2 nicht", "not 2")
	To    []string // "to", "zu": between a verdict and its numbers
	And   []string // "and", "und": joins numbers, or a part that starts with a verdict
	Range []string // "-", "bis", "to": between the ends of a range
	All   []string // "all", "alle"
	// Except names the items left out of every other: "alle außer 2",
	// "yes except 2", "ja bis auf 2". They stay pending.
	Except []string
	But    []string // "but", "aber": starts the next part; "all but 2" is All and Except
	Too    []string // "too", "auch": the verdict of the part before ("7 auch")
	// Refuse are words that turn an item down or put it off in a sentence
	// nod does not read ("later", "never", "später"): never placed, so an
	// answer holding one goes to the agent, and the numbers beside them
	// are refused.
	Refuse []string
}

// class is what a token may do in an answer; a word may do several things
// ("to" is To and Range).
type class uint32

const (
	cYes class = 1 << iota
	cNo
	cNot
	cTo
	cAnd
	cRange
	cAll
	cExcept
	cBut
	cToo
	cRefuse
	cSep // "," or ";": ends a part, or joins numbers (",")
	cEnd // ".", "!", ":", "…" inside the text: ends a sentence nod does not read
	cAsk // "?": a question decides nothing
	cNum
)

// placed are the classes the grammar places; a token of no other class
// is a word nod cannot place.
const placed = cYes | cNo | cNot | cTo | cAnd | cRange | cAll | cExcept | cBut | cToo | cSep | cNum

// refusing are the classes that turn down the numbers beside them.
const refusing = cNo | cNot | cExcept | cRefuse

// token is a word, a number or a mark of an answer.
type token struct {
	text string
	cls  class
	n    int // a number's value
}

func (t token) is(c class) bool { return t.cls&c != 0 }

// maxNumber bounds the numbers an answer may name (a set holds 10).
const maxNumber = 99

// Reader reads answers with a set of words. It is immutable and safe for
// concurrent use.
type Reader struct {
	words   map[string]class
	phrases [][]string // entries of several words, longest first
	classes [][]class  // the class of each phrase
}

// NewReader returns a reader of answers in words w.
func NewReader(w Words) *Reader {
	r := &Reader{words: map[string]class{}}
	for _, l := range []struct {
		c  class
		ws []string
	}{{cYes, w.Yes}, {cNo, w.No}, {cNot, w.Not}, {cTo, w.To}, {cAnd, w.And}, {cRange, w.Range}, {cAll, w.All},
		{cExcept, w.Except}, {cBut, w.But}, {cToo, w.Too}, {cRefuse, w.Refuse}} {
		for _, entry := range l.ws {
			parts := split(entry)
			switch len(parts) {
			case 0:
			case 1:
				r.words[parts[0]] |= l.c
			default:
				r.addPhrase(parts, l.c)
			}
		}
	}
	return r
}

func (r *Reader) addPhrase(parts []string, c class) {
	for i, p := range r.phrases {
		if strings.Join(p, " ") == strings.Join(parts, " ") {
			r.classes[i][0] |= c
			return
		}
	}
	// Longest first, so that "bis auf" is read before "bis".
	i := 0
	for i < len(r.phrases) && len(r.phrases[i]) >= len(parts) {
		i++
	}
	r.phrases = append(r.phrases[:i], append([][]string{parts}, r.phrases[i:]...)...)
	r.classes = append(r.classes[:i], append([][]class{{c}}, r.classes[i:]...)...)
}

// tokens splits text into classed tokens: words and phrases of r's words,
// numbers, and marks. Trailing ".", "!" and "…" close the answer and are
// dropped ("yes!!"); any other mark is a token of its own.
func (r *Reader) tokens(text string) []token {
	raw := split(text)
	for len(raw) > 0 && (raw[len(raw)-1] == "." || raw[len(raw)-1] == "!" || raw[len(raw)-1] == "…") {
		raw = raw[:len(raw)-1]
	}
	out := make([]token, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if n, c := r.phraseAt(raw[i:]); n > 0 {
			out = append(out, token{text: strings.Join(raw[i:i+n], " "), cls: c})
			i += n - 1
			continue
		}
		out = append(out, r.classify(raw[i]))
	}
	return out
}

// phraseAt returns the length and class of the longest phrase ws starts
// with, or 0.
func (r *Reader) phraseAt(ws []string) (int, class) {
	for i, p := range r.phrases {
		if len(p) <= len(ws) && strings.Join(ws[:len(p)], " ") == strings.Join(p, " ") {
			return len(p), r.classes[i][0]
		}
	}
	return 0, 0
}

func (r *Reader) classify(w string) token {
	t := token{text: w, cls: r.words[w]}
	switch {
	case isDigits(w):
		if len(w) <= 3 {
			t.n, _ = strconv.Atoi(w)
			t.cls |= cNum
		}
	case w == "," || w == ";":
		t.cls |= cSep
	case w == "&":
		t.cls |= cAnd
	case w == "-":
		t.cls |= cRange
	case w == "?":
		t.cls |= cAsk | cEnd
	case w == "." || w == "!" || w == ":" || w == "…":
		t.cls |= cEnd
	}
	return t
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// split cuts lower-cased text into words (letters, marks, apostrophes
// inside), runs of ASCII digits, and single other characters with the
// modifiers that belong to them (👍🏻). Dashes become "-".
func split(text string) []string {
	var (
		out  []string
		cur  []rune
		kind int // of cur: 0 none, 1 word, 2 digits, 3 other
		join bool
	)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
		}
		cur, kind = cur[:0], 0
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case join: // the character after a zero-width joiner belongs to the one before it
			cur, join = append(cur, r), false
		case unicode.IsSpace(r):
			flush()
		case r >= '0' && r <= '9':
			if kind != 2 {
				flush()
			}
			cur, kind = append(cur, r), 2
		case unicode.IsLetter(r) || (kind == 1 && (unicode.IsMark(r) || r == '\'' || r == '’')):
			if kind != 1 {
				flush()
			}
			cur, kind = append(cur, r), 1
		case kind == 3 && (unicode.IsMark(r) || unicode.Is(unicode.Sk, r) || r == '\u200d' || r == '\ufe0f'):
			cur, join = append(cur, r), r == '\u200d'
		default:
			flush()
			if r == '–' || r == '—' {
				r = '-'
			}
			cur, kind = append(cur, r), 3
		}
	}
	flush()
	return out
}
