package agent

import (
	"slices"
	"strings"
	"unicode"

	"github.com/nodbot/nod"
)

// whyFor is the reason a proposed item shows (nod.ChangeItem.Why): the
// first sentence of the model's text beside the call that names the item
// (a word of its task's title or of the value it sets, four letters or
// more, a word of the text starting with it), does not open with an
// acknowledgement ("Sure!", "Nice, …", "Klar, …") and asks nothing; ""
// when no sentence does. Models open with filler and write one text
// beside several calls, so the first line is often not about the item at
// all. A line of a list ("- Mark the tests – by Fri", "2. …") is never
// one: a model lists what stands and gives its reasons in sentences, and
// played, such lines (or a piece of one) stood as the reason for items
// they only restated. An item with a reason argument of its own shows
// that instead, in its diff.
func whyFor(text, title, value string) string {
	names := keyWords(title + " " + value)
	if len(names) == 0 {
		return ""
	}
	for _, s := range sentences(withoutLists(nod.CleanText(text))) {
		words := keyWords(s)
		if len(words) == 0 || filler(words[0]) || (len(words) > 1 && filler(words[:2]...)) || asking(s) || claimsDone(words) {
			continue
		}
		if !namesAny(words, names) {
			continue
		}
		if r := []rune(s); len(r) > maxWhy {
			s = strings.TrimSpace(string(r[:maxWhy-1])) + "…"
		}
		return s
	}
	return ""
}

// bullets open a line of a list.
var bullets = []string{"•", "- ", "* ", "– ", "· "}

// withoutLists is text without its lines that are a list's: those that
// open with a bullet, or a number and "." or ")".
func withoutLists(text string) string {
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		digits := strings.TrimLeft(t, "0123456789")
		numbered := len(digits) < len(t) && (strings.HasPrefix(digits, ". ") || strings.HasPrefix(digits, ") "))
		bullet := slices.ContainsFunc(bullets, func(b string) bool { return strings.HasPrefix(t, b) })
		if !numbered && !bullet {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// asking reports whether sentence s is a question: it asks the person
// something ("When's her birthday?"), and gives no reason for the item.
func asking(s string) bool { return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") }

// maxWhy is the longest reason a proposal shows, in runes.
const maxWhy = 160

// filler reports whether a sentence opening with these words (its first,
// or first two) acknowledges rather than explains, in nod's languages.
func filler(words ...string) bool {
	switch strings.Join(words, " ") {
	case "sure", "ok", "okay", "nice", "great", "perfect", "alright", "got it", "done",
		"hi", "hello", "hey", "thanks", "of course", "no problem", "sounds good", "will do",
		"klar", "gern", "gerne", "super", "prima", "alles klar", "hallo", "danke",
		"erledigt", "verstanden", "mache ich":
		return true
	}
	return false
}

// claimsDone reports whether a sentence opening with words says a change
// was made ("Moved the login bug to P1.", "I've set it", "Habe ihn auf
// P1 gesetzt"): the model writes beside a call before it knows whether
// the call applies, and a proposal that waits for a tap must not show it
// as its reason.
func claimsDone(words []string) bool {
	first, second := words[0], ""
	if len(words) > 1 {
		second = words[1]
	}
	switch {
	case doneVerbs[first]:
		return true
	case first == "i":
		return second == "ve" || second == "have" || doneVerbs[second]
	case first == "ich":
		return second == "habe" || second == "hab"
	}
	return first == "habe" || first == "hab"
}

// doneVerbs are the words a sentence that reports a change opens with,
// in nod's languages.
var doneVerbs = map[string]bool{
	"moved": true, "set": true, "changed": true, "added": true, "updated": true, "marked": true, "raised": true, "lowered": true,
	"created": true, "renamed": true, "removed": true, "cleared": true, "scheduled": true, "rescheduled": true, "labeled": true,
	"labelled": true, "tagged": true, "closed": true, "reopened": true, "deleted": true, "completed": true, "ticked": true, "bumped": true,
	"verschoben": true, "gesetzt": true, "geändert": true, "hinzugefügt": true, "erstellt": true, "markiert": true, "gelöscht": true,
	"umbenannt": true, "entfernt": true, "angelegt": true, "abgehakt": true,
}

// sentences splits text at line breaks and at ".", "!" or "?" followed by
// a space, each sentence on one line with its runs of white space folded.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		start := 0
		rs := []rune(line)
		for i, r := range rs {
			if (r == '.' || r == '!' || r == '?') && (i+1 == len(rs) || rs[i+1] == ' ') {
				out = appendSentence(out, string(rs[start:i+1]))
				start = i + 1
			}
		}
		out = appendSentence(out, string(rs[start:]))
	}
	return out
}

func appendSentence(out []string, s string) []string {
	if s = strings.Join(strings.Fields(s), " "); s != "" {
		out = append(out, s)
	}
	return out
}

// keyWords is text's words in lower case: its runs of letters and digits.
func keyWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// namesAny reports whether a word of the sentence starts with one of the
// names of four letters or more ("booked" names "book").
func namesAny(words, names []string) bool {
	for _, n := range names {
		if len([]rune(n)) < 4 {
			continue
		}
		for _, w := range words {
			if strings.HasPrefix(w, n) {
				return true
			}
		}
	}
	return false
}
