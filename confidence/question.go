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
func asks(m, q string) bool {
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
		if question(s) && !politeRequest(s) {
			return true
		}
	}
	return false
}

// sentenceEnd reports whether a sentence ends with byte i of m: at a
// question or exclamation mark, or a full stop before a space that does
// not end a number ("am 13.3. fällig" is one sentence; "P0." ends one).
// Read too few ends, and a sentence holds more words, never fewer
// questions.
func sentenceEnd(m string, i int) bool {
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
func question(s string) bool {
	if strings.Contains(s, "?") {
		return true
	}
	ws := words(s)
	for len(ws) > 0 && fillers[ws[0]] {
		ws = ws[1:]
	}
	return len(ws) > 0 && (interrogatives[ws[0]] || opens(ws) == 0 || len(ws) > 1 && askingVerbs[ws[0]] && persons[ws[1]])
}

// politeRequest reports whether a question asks for a change politely
// ("could you set it to P1?", "kannst du das auf Freitag schieben?"): it
// holds an opener addressed to nod, a word that asks for a change, and no
// word that asks about something. "Can you tell me what the description
// says?" asks about something, opener or not. A polite question without a
// word nod knows for a change asks the person: failing closed costs a
// tap.
func politeRequest(s string) bool {
	ws := words(s)
	if opens(ws) < 0 {
		return false
	}
	change := false
	for i, w := range ws {
		if interrogatives[w] || conditionals[w] || telling[w] {
			return false
		}
		change = change || changeWord(w) || (w == "check" && slices.Contains(ws[i+1:], "off"))
	}
	return change
}

// opens returns where the first polite opener in ws starts, -1 if none.
func opens(ws []string) int {
	for i, w := range ws {
		if openerOne[w] {
			return i
		}
		if i+1 < len(ws) && openers[w] != nil && openers[w][ws[i+1]] {
			return i
		}
	}
	return -1
}

// changeWord reports whether w asks for a change: a verb of nod's
// changes, or its -ing form ("would you mind moving it").
func changeWord(w string) bool {
	if changes[w] {
		return true
	}
	s, ok := strings.CutSuffix(w, "ing")
	if !ok || s == "" {
		return false
	}
	return changes[s] || changes[s+"e"] || (len(s) > 1 && s[len(s)-1] == s[len(s)-2] && changes[s[:len(s)-1]])
}

// words are the words of folded text, apostrophes kept ("what's").
func words(s string) []string {
	return strings.FieldsFunc(strings.ReplaceAll(s, "’", "'"), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

func wordSet(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// fillers may come before a question's first word: "ok, what's next".
var fillers = wordSet("ok", "okay", "so", "and", "also", "hey", "hi", "hello", "oh", "hm", "hmm", "well", "btw", "but", "nod", "please", "pls",
	"und", "na", "naja", "hallo", "ähm", "äh", "aber", "bitte", "sag", "mal")

// interrogatives ask about something, in English and German.
var interrogatives = wordSet("what", "what's", "whats", "why", "when", "when's", "where", "where's", "which", "who", "who's", "whom", "whose",
	"how", "how's", "whether",
	"was", "warum", "wieso", "weshalb", "weswegen", "wann", "wo", "woran", "worin", "worum", "wohin", "woher", "wozu", "womit", "worauf",
	"wofür", "wer", "wen", "wem", "wessen", "wie", "welche", "welcher", "welches", "welchen", "welchem", "ob")

// conditionals make a polite request depend on something the person
// asks about: "could you move it if that works?".
var conditionals = wordSet("if", "unless", "wenn", "falls", "sofern")

// telling asks for words, not for a change: "can you tell me the
// description?", "kannst du mir das zeigen?".
var telling = wordSet("tell", "show", "explain", "describe", "say", "summarize", "summarise", "summary", "recap", "overview", "rundown",
	"read", "look", "find", "search", "think", "consider", "suggest", "recommend", "know",
	"sag", "sage", "sagen", "zeig", "zeige", "zeigen", "erklär", "erkläre", "erklären", "erklaer", "erklaeren", "beschreib", "beschreibe",
	"beschreiben", "erzähl", "erzähle", "erzählen", "vorlesen", "lies", "lesen", "zusammenfassen", "zusammenfassung", "überblick",
	"übersicht", "schau", "schauen", "nachschauen", "guck", "gucken", "nachgucken", "nachsehen", "such", "suchen", "prüf", "prüfen",
	"überleg", "überlegen", "denk", "denken", "vorschlagen", "empfehlen")

// askingVerbs, followed by one of persons, begin a question. Other
// verbs first are an order ("mach es", "do it").
var askingVerbs = wordSet("can", "could", "would", "will", "should", "shall", "may", "might", "is", "are", "was", "were", "does", "did",
	"has", "have", "kann", "kannst", "könnte", "könntest", "soll", "sollte", "sollen", "muss", "müssen", "darf", "ist", "sind", "hat",
	"hast", "war", "wird", "würde", "würdest")

var persons = wordSet("i", "you", "u", "we", "it", "he", "she", "they", "ich", "du", "es", "er", "wir", "ihr", "man", "das")

// openers are a modal and whom it addresses, as a polite request opens:
// "could you", "can we", "kannst du", "könnten Sie".
var openers = map[string]map[string]bool{
	"can": wordSet("you", "u", "we"), "could": wordSet("you", "u", "we"), "would": wordSet("you", "u"), "will": wordSet("you", "u"),
	"kannst": wordSet("du"), "könntest": wordSet("du"), "koenntest": wordSet("du"), "würdest": wordSet("du"), "wuerdest": wordSet("du"),
	"magst": wordSet("du"), "willst": wordSet("du"),
	"können": wordSet("sie", "wir"), "koennen": wordSet("sie", "wir"), "könnten": wordSet("sie", "wir"), "koennten": wordSet("sie", "wir"),
	"würden": wordSet("sie"), "wuerden": wordSet("sie"), "könnt": wordSet("ihr"), "könntet": wordSet("ihr"), "würdet": wordSet("ihr"),
}

// openerOne are openers in one word, as people type them.
var openerOne = wordSet("kannste", "könntste", "koenntste", "magste", "willste")

// changes are the verbs with which people ask nod for its changes, in
// English and German; a polite question counts as a request only with
// one of them.
var changes = wordSet(
	"set", "move", "raise", "lower", "bump", "push", "postpone", "delay", "reschedule", "schedule", "shift", "change", "make", "put",
	"mark", "tick", "untick", "uncheck", "add", "create", "remove", "delete", "drop", "trash", "clear", "rename", "retitle", "label",
	"tag", "untag", "unlabel", "close", "reopen", "finish", "complete", "prioritize", "prioritise", "deprioritize", "deprioritise",
	"update", "edit", "replace", "remind", "snooze", "assign", "estimate", "append", "restore", "confirm", "accept", "approve",
	"reject", "apply", "archive", "cancel", "increase", "decrease", "reduce", "note", "flag", "start", "block", "pause", "resume",
	"setz", "setze", "setzen", "hochsetzen", "runtersetzen", "stell", "stelle", "stellen", "umstellen", "leg", "lege", "legen",
	"anlegen", "festlegen", "verschieb", "verschiebe", "verschieben", "schieb", "schiebe", "schieben", "änder", "ändere", "ändern",
	"aender", "aendern", "mach", "mache", "machen", "markier", "markiere", "markieren", "hak", "hake", "haken", "abhaken", "füg",
	"füge", "fügen", "hinzufügen", "hinzufuegen", "nimm", "nehmen", "aufnehmen", "rausnehmen", "reinnehmen", "trag", "trage",
	"tragen", "eintragen", "lösch", "lösche", "löschen", "loesch", "loeschen", "entfern", "entferne", "entfernen", "streich",
	"streiche", "streichen", "benenn", "benenne", "umbenennen", "erinner", "erinnere", "erinnern", "erhöh", "erhöhe", "erhöhen",
	"erhoehen", "senk", "senke", "senken", "schließ", "schließe", "schließen", "schliessen", "abschließen", "erledige", "erledigen",
	"bestätig", "bestätige", "bestätigen", "übernimm", "übernehmen", "akzeptier", "akzeptieren", "ablehnen", "priorisier",
	"priorisieren", "pack", "packe", "packen", "notier", "notiere", "notieren", "ergänz", "ergänze", "ergänzen", "aktualisier",
	"aktualisieren", "vertag", "vertagen", "verleg", "verlegen", "zuweisen", "anhängen", "einplanen", "starten", "blockieren",
)
