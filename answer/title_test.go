package answer_test

import (
	"testing"

	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/formatting"
)

func TestReadTitle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		typed  string
		spoken bool
		want   answer.TitleAnswer
	}{
		{"Fix login bug", false, answer.SameTitle},
		{"  fix LOGIN bug ", false, answer.SameTitle},
		{"Fix login bug.", true, answer.SameTitle},
		{"Fix login bug.", false, answer.NearTitle},
		{"Fix lgin bg", false, answer.NearTitle},
		{"Fix lgn bgu", false, answer.OtherWords},
		{"no", false, answer.OtherWords},
		{"", false, answer.OtherWords},
	} {
		if got := answer.ReadTitle(c.typed, "Fix login bug", c.spoken); got != c.want {
			t.Errorf("ReadTitle(%q, spoken %v) = %v, want %v", c.typed, c.spoken, got, c.want)
		}
	}
}

// A cancelled deletion's "yes but keep the coffee" opened with a yes,
// which nod says is not the title; anything else did not.
func TestOpensWithYes(t *testing.T) {
	r := answer.NewReader(formatting.AnswerWords())
	for text, want := range map[string]bool{"yes but keep the coffee": true, "Ja, aber nicht den Kaffee": true, "ok": true,
		"no, keep it": false, "keep the coffee, yes": false, "": false, "Buy milk": false} {
		if got := r.OpensWithYes(text); got != want {
			t.Errorf("OpensWithYes(%q) = %v, want %v", text, got, want)
		}
	}
}
