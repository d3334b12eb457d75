package confidence

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// asks reports whether the sentences that quote q (folded) stands in,
// within message m (folded), ask something rather than for something: a
// question decides nothing, whichever change it is quoted for
// (docs/design.md §3.3). A polite request phrased as a question ("could
// you set it to P1?") stays a request.
//
// The sentence, not the clause, is judged: in "set it to P1, what do you
// think?" the request is put as a question, and in "can you tell me, what
// does it say?" the opener is the question's.
func (l *lexicon) asks(m, q string) bool {
	at := strings.Index(m, q)
	if at < 0 {
		return false
	}
	start, end := at, at+len(q)
	for start > 0 && !sentenceEnd(m, start-1) {
		start--
	}
	for end < len(m) && !sentenceEnd(m, end-1) {
		end++
	}
	for _, s := range sentences(m[start:end]) {
		if l.question(s) && !l.politeRequest(s) {
			return true
		}
	}
	return false
}

// sentenceEnd reports whether a sentence ends with byte i of m: at a
// question or exclamation mark, a full stop before a space that does
// not end a number ("am 13.3. fällig" is one sentence; "P0." ends one),
// or an emoji before a space, as people end a sentence in a chat
// ("called them, all good 🙌 whats left for tmrw?" says one thing, then
// asks another). Read too few ends, and a sentence holds more words,
// never fewer questions.
func sentenceEnd(m string, i int) bool {
	if r, size := utf8.DecodeLastRuneInString(m[:i+1]); size > 1 && emoji(r) {
		return i+1 < len(m) && m[i+1] == ' '
	}
	switch m[i] {
	case '?', '!':
		return true
	case '.':
		if i+1 < len(m) && m[i+1] != ' ' {
			return false
		}
		j := i
		for j > 0 && m[j-1] >= '0' && m[j-1] <= '9' {
			j--
		}
		before, _ := utf8.DecodeLastRuneInString(m[:j])
		number := j < i && !unicode.IsLetter(before)
		return !number
	}
	return false
}

// emoji reports whether r is a pictograph: the emoticons, symbols and
// pictographs of the planes people type them from, and the older
// symbols and dingbats (☀, ✅, ✈).
func emoji(r rune) bool {
	return r >= 0x1F300 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF
}

// sentences cuts s at the ends of its sentences, each keeping its mark.
func sentences(s string) []string {
	var out []string
	from := 0
	for i := range len(s) {
		if sentenceEnd(s, i) {
			out = append(out, s[from:i+1])
			from = i + 1
		}
	}
	if from < len(s) {
		out = append(out, s[from:])
	}
	return out
}

// question reports whether a sentence is a question: it ends in a
// question mark, or, typed without one, begins with a question word
// ("what's on my list"), a polite opener ("can you tell me …") or a verb
// asking about someone ("is it done", "soll ich …").
func (l *lexicon) question(s string) bool {
	if strings.Contains(s, "?") {
		return true
	}
	ws := words(s)
	for len(ws) > 0 && l.fillers[ws[0]] {
		ws = ws[1:]
	}
	return len(ws) > 0 && (l.interrogatives[ws[0]] || l.opens(ws) == 0 || len(ws) > 1 && l.askingVerbs[ws[0]] && l.persons[ws[1]])
}

// politeRequest reports whether a question asks for a change politely
// ("could you set it to P1?", "kannst du das auf Freitag schieben?"): it
// holds an opener addressed to nod, a word that asks for a change, and no
// word that asks about something. "Can you tell me what the description
// says?" asks about something, opener or not; a word that asks for words
// after the change's ("can you move the slides to wed so alice can look
// at them") is the change's purpose, not what is asked. A polite question
// without a word nod knows for a change asks the person: failing closed
// costs a tap.
func (l *lexicon) politeRequest(s string) bool {
	ws := words(s)
	if l.opens(ws) < 0 {
		return false
	}
	change := false
	for i, w := range ws {
		if l.interrogatives[w] || l.conditionals[w] || l.telling[w] && !change {
			return false
		}
		change = change || l.changeWord(w) || slices.ContainsFunc(l.phrasal, func(p [2]string) bool { return w == p[0] && slices.Contains(ws[i+1:], p[1]) })
	}
	return change
}

// opens returns where the first polite opener in ws starts, -1 if none.
func (l *lexicon) opens(ws []string) int {
	for i, w := range ws {
		if l.openers[w] {
			return i
		}
		if i+1 < len(ws) && l.openers[w+" "+ws[i+1]] {
			return i
		}
	}
	return -1
}

// changeWord reports whether w asks for a change: a verb of nod's
// changes, or its form with a change suffix ("would you mind moving it"),
// whose stem may have lost an e or doubled its last letter.
func (l *lexicon) changeWord(w string) bool {
	if l.changes[w] {
		return true
	}
	for _, suffix := range l.changeSuffixes {
		s, ok := strings.CutSuffix(w, suffix)
		if ok && s != "" && (l.changes[s] || l.changes[s+"e"] || (len(s) > 1 && s[len(s)-1] == s[len(s)-2] && l.changes[s[:len(s)-1]])) {
			return true
		}
	}
	return false
}

// words are the words of folded text, apostrophes kept ("what's").
func words(s string) []string {
	return strings.FieldsFunc(strings.ReplaceAll(s, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}
