package nod_test

import (
	"testing"

	"github.com/nodbot/nod"
)

func TestForgetPhrase(t *testing.T) {
	phrases := []string{"forget me", "vergiss mich"}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"forget me", true}, {"  Forget   ME \n", true}, {"VERGISS MICH", true}, {"vergiss\tmich", true},
		{"forget me!", false}, {"please forget me", false}, {"forget", false}, {"", false}, {"   ", false}, {"forgetme", false},
	} {
		if got := nod.ForgetPhrase(c.text, phrases); got != c.want {
			t.Errorf("ForgetPhrase(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if nod.ForgetPhrase("", []string{""}) {
		t.Errorf("an empty phrase list entry confirms an empty text")
	}
}
