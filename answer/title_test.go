package answer_test

import (
	"testing"

	"github.com/nodbot/nod/answer"
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
