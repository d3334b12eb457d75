package confidence

import (
	"strings"
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// FuzzQuestionsDecideNothing checks rules of docs/design.md §3.3 that
// hold for any words: a question about something decides nothing,
// whatever comes after its question word and whichever polite opener
// comes before it; and a question mark never gives words a say they did
// not have.
func FuzzQuestionsDecideNothing(f *testing.F) {
	for _, s := range []string{"does the description of the launch task say?", "P1?", "is it done", "steht in der Beschreibung?",
		"could you set it to P1?", "set the launch to P0, ok", "kannst du den Launch auf P0 setzen", "set it to P1. why", "", "?",
		"am 13.3. fällig", "raise it to P0. 2.", "x. y? z!", "don't raise it", "no wait, to P1"} {
		f.Add(s, uint8(0), uint8(3))
	}
	a := Action{Tool: "set_task_priority", Summary: "task “Launch”: priority: P2 → P0"}
	lex := newLexicon(formatting.Words)
	refused := func(text, quote string) bool {
		_, why := lex.quoted([]Entry{{Role: nod.RoleUser, Text: text}}, a, quote)
		return why != ""
	}
	openers := []string{"", "ok, ", "can you tell me ", "could you please tell me ", "can we find out ", "kannst du mir sagen, ", "könntest du nachschauen, "}
	f.Fuzz(func(t *testing.T, x string, from, to uint8) {
		for w := range lex.interrogatives {
			for _, o := range openers {
				if m := o + w + " " + x; !refused(m, m) {
					t.Fatalf("%q decides something", m)
				}
			}
		}
		ws := strings.Fields(nod.FoldText(x))
		i, j := int(from)%(len(ws)+1), int(to)%(len(ws)+1)
		if i > j {
			i, j = j, i
		}
		if j-i < 2 {
			return
		}
		q := strings.Join(ws[i:j], " ")
		if refused(x, q) && !refused(x+"?", q) {
			t.Fatalf("%q decides nothing quoted from %q, and something from %q", q, x, x+"?")
		}
	})
}
