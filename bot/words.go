package bot

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/nodbot/nod/formatting"
)

// answer is what a text answer to a change set says.
type answer struct {
	// all is set for a bare "yes" or "no": every pending item; confirm
	// says which.
	all     bool
	confirm bool
	// yes and no are the items named, in the order named; except lists
	// the items of "all but …", which confirms every other pending item.
	yes, no, except []int
}

// Answers are read in the words of every language nod speaks, from each
// language's template file: a German "ja zu 1 und 3" in an English chat
// means the same.
var answerWords = struct {
	yes, no, to, and, rng, but, all, too map[string]bool
}{
	yes: wordSet(formatting.Words(formatting.WordsYes)), no: wordSet(formatting.Words(formatting.WordsNo)),
	to: wordSet(formatting.Words(formatting.WordsTo)), and: wordSet(formatting.Words(formatting.WordsAnd)),
	rng: wordSet(formatting.Words(formatting.WordsRange)), but: wordSet(formatting.Words(formatting.WordsBut)),
	all: wordSet(formatting.Words(formatting.WordsAll)), too: wordSet(formatting.Words(formatting.WordsToo)),
}

func wordSet(ws []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// maxAnswerItem bounds the numbers an answer may name (a set holds 10).
const maxAnswerItem = 99

// parseAnswer reads a text answer: "yes", "no", "yes to 1, 3", "no to 2",
// "yes to 4 and 6, no to 5", "3-5", "3 bis 5 passt, 7 auch", "all but 2".
// Anything it cannot read in full is no answer (ok false): the agent then
// reads it, so that nothing the person said is half understood.
func parseAnswer(text string) (a answer, ok bool) {
	toks := answerTokens(text)
	if len(toks) == 1 {
		switch w := toks[0]; {
		case answerWords.yes[w]:
			return answer{all: true, confirm: true}, true
		case answerWords.no[w]:
			return answer{all: true}, true
		}
	}
	var (
		verdict string // "yes", "no", "but" (all but …), or "" before any
		last    string // the verdict the numbers before it were given
		waiting []int  // numbers whose verdict comes after them
		postfix bool   // the answer names numbers first ("3 bis 5 passt")
		named   = map[int]bool{}
	)
	give := func(v string, ns []int) bool {
		for _, n := range ns {
			if named[n] {
				return false // named twice: ambiguous
			}
			named[n] = true
		}
		switch v {
		case "yes":
			a.yes = append(a.yes, ns...)
		case "no":
			a.no = append(a.no, ns...)
		case "but":
			a.except = append(a.except, ns...)
		}
		return true
	}
	for i := 0; i < len(toks); i++ {
		w := toks[i]
		switch {
		case answerWords.yes[w], answerWords.no[w]:
			v := "no"
			if answerWords.yes[w] {
				v = "yes"
			}
			if len(waiting) > 0 { // "3 bis 5 passt"
				if !give(v, waiting) {
					return answer{}, false
				}
				waiting, last, postfix = nil, v, true
			}
			verdict = v
		case answerWords.all[w] && i+1 < len(toks) && answerWords.but[toks[i+1]]:
			verdict, i = "but", i+1
		case answerWords.too[w]: // "7 auch": the verdict before
			if len(waiting) == 0 || last == "" || !give(last, waiting) {
				return answer{}, false
			}
			waiting = nil
		case isNumber(w):
			ns := []int{atoi(w)}
			if i+2 < len(toks) && answerWords.rng[toks[i+1]] && isNumber(toks[i+2]) {
				from, to := atoi(w), atoi(toks[i+2])
				if from > to || to-from > maxAnswerItem {
					return answer{}, false
				}
				ns = ns[:0]
				for n := from; n <= to; n++ {
					ns = append(ns, n)
				}
				i += 2
			}
			if ns[len(ns)-1] > maxAnswerItem || ns[0] < 1 {
				return answer{}, false
			}
			if verdict == "" || postfix || len(waiting) > 0 {
				waiting = append(waiting, ns...)
			} else if !give(verdict, ns) {
				return answer{}, false
			} else {
				last = verdict
			}
		case answerWords.to[w], answerWords.and[w], answerWords.but[w], w == ",", w == ";", w == "&":
			if answerWords.but[w] || w == ";" {
				verdict = "" // "…, but no to 5": the next verdict word decides
			}
		default:
			return answer{}, false
		}
	}
	if len(waiting) > 0 || len(named) == 0 && len(a.except) == 0 {
		return answer{}, false
	}
	if verdict == "but" && len(a.except) == 0 {
		return answer{}, false
	}
	return a, true
}

// answerTokens splits text into lower-case words, numbers and the
// punctuation that separates them; "3-5" and "3–5" become "3 - 5".
func answerTokens(text string) []string {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.TrimRightFunc(t, func(r rune) bool { return r == '.' || r == '!' || r == '…' })
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	prevDigit := false
	for _, r := range t {
		switch {
		case unicode.IsSpace(r):
			flush()
		case r == ',' || r == ';' || r == '&':
			flush()
			out = append(out, string(r))
		case (r == '-' || r == '–') && prevDigit:
			flush()
			out = append(out, "-")
		case unicode.IsDigit(r) != prevDigit && cur.Len() > 0:
			flush()
			cur.WriteRune(r)
		default:
			cur.WriteRune(r)
		}
		prevDigit = unicode.IsDigit(r)
	}
	flush()
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

func isNumber(s string) bool {
	if s == "" || len(s) > 3 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
