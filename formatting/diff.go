package formatting

import (
	"strings"
	"time"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Op is the kind of a diff segment.
type Op int

// Diff segment kinds.
const (
	Equal Op = iota
	Delete
	Insert
)

// Segment is a run of text a word diff keeps, deletes or inserts.
type Segment struct {
	Op   Op
	Text string
}

// WordDiff diffs two texts word by word: each word and each run of white
// space is one token, so a change marks whole words and never splits a
// character. Long texts are diffed by lines first, then each changed run
// of lines by words, which keeps a 100 KB description fast. The same
// texts give the same diff on any machine: what bounds the work is the
// size of the input (wordTokens), never a deadline.
func WordDiff(before, after string) []Segment {
	before, after = strings.ToValidUTF8(before, "\uFFFD"), strings.ToValidUTF8(after, "\uFFFD")
	dmp := diffmatchpatch.New()
	// A limit no input reaches: go-diff's half-match speed-up runs only
	// under a limit, and a deadline that could pass would make the output
	// depend on the machine.
	dmp.DiffTimeout = time.Hour
	if len(before)+len(after) <= 20_000 {
		return wordDiff(dmp, before, after)
	}
	a, b, lines := dmp.DiffLinesToRunes(before, after)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), lines)
	var out []Segment
	for i := 0; i < len(diffs); i++ {
		d := diffs[i]
		if d.Type == diffmatchpatch.DiffDelete && i+1 < len(diffs) && diffs[i+1].Type == diffmatchpatch.DiffInsert {
			for _, s := range wordDiff(dmp, d.Text, diffs[i+1].Text) {
				out = appendSeg(out, s)
			}
			i++
			continue
		}
		out = appendSeg(out, Segment{Op: op(d.Type), Text: d.Text})
	}
	return out
}

// wordBytes and wordTokens bound a word diff's work by the input alone
// (bytes first, as they cost nothing to count): past either, the texts
// read as replaced.
const (
	wordBytes  = 40_000
	wordTokens = 6000
)

// wordDiff diffs two texts by words.
func wordDiff(dmp *diffmatchpatch.DiffMatchPatch, before, after string) []Segment {
	replaced := appendSeg(appendSeg(nil, Segment{Op: Delete, Text: before}), Segment{Op: Insert, Text: after})
	if len(before)+len(after) > wordBytes {
		return replaced
	}
	a, b, words := tokensToRunes(before, after)
	if len(a)+len(b) > wordTokens {
		return replaced
	}
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(a, b, false))
	var out []Segment
	for _, d := range diffs {
		var sb strings.Builder
		for _, r := range d.Text {
			sb.WriteString(words[r])
		}
		out = appendSeg(out, Segment{Op: op(d.Type), Text: sb.String()})
	}
	return out
}

func op(t diffmatchpatch.Operation) Op {
	switch t {
	case diffmatchpatch.DiffDelete:
		return Delete
	case diffmatchpatch.DiffInsert:
		return Insert
	}
	return Equal
}

func appendSeg(out []Segment, s Segment) []Segment {
	if s.Text == "" {
		return out
	}
	if n := len(out); n > 0 && out[n-1].Op == s.Op {
		out[n-1].Text += s.Text
		return out
	}
	return append(out, s)
}

// tokensToRunes maps each distinct word or space run of both texts to one
// rune, as go-diff's line mode does for lines.
func tokensToRunes(a, b string) ([]rune, []rune, []string) {
	index := map[string]rune{}
	words := []string{""} // rune 0 unused
	enc := func(s string) []rune {
		var out []rune
		for _, tok := range splitWords(s) {
			r, ok := index[tok]
			if !ok {
				r = rune(len(words))
				if r >= 0xD800 { // skip surrogates, which are not valid runes
					r += 0x800
				}
				for int(r) >= len(words) {
					words = append(words, "")
				}
				words[r] = tok
				index[tok] = r
			}
			out = append(out, r)
		}
		return out
	}
	// Sequenced on purpose: in "return enc(a), enc(b), words" the read of
	// words may happen before the calls that grow it.
	ra := enc(a)
	rb := enc(b)
	return ra, rb, words
}

// splitWords cuts s into words, runs of white space, and single
// punctuation or symbol characters.
func splitWords(s string) []string {
	var (
		out   []string
		start = -1
		space bool
	)
	for i, r := range s {
		isSpace := unicode.IsSpace(r)
		isWord := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_'
		switch {
		case !isSpace && !isWord:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, string(r))
		case start >= 0 && isSpace == space:
		default:
			if start >= 0 {
				out = append(out, s[start:i])
			}
			start, space = i, isSpace
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// DiffHTML renders segments as Telegram HTML: deleted text struck through,
// inserted text bold. Tags are closed at every newline so that a message
// can be split on lines.
func DiffHTML(segs []Segment, keep Op) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Op != Equal && s.Op != keep {
			continue
		}
		open, close := "", ""
		switch s.Op {
		case Delete:
			open, close = "<s>", "</s>"
		case Insert:
			open, close = "<b>", "</b>"
		}
		lines := strings.Split(s.Text, "\n")
		for i, l := range lines {
			if i > 0 {
				b.WriteByte('\n')
			}
			if l == "" {
				continue
			}
			if open == "" {
				b.WriteString(Escape(l))
				continue
			}
			// The marks cover the words, not the spaces around them.
			core := strings.TrimSpace(l)
			if core == "" {
				b.WriteString(l)
				continue
			}
			lead := l[:strings.Index(l, core)]
			trail := l[len(lead)+len(core):]
			b.WriteString(lead + open + Escape(core) + close + trail)
		}
	}
	return b.String()
}
