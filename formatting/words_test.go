package formatting

import (
	"slices"
	"strings"
	"testing"
)

// Every language defines every list of words, and each loads: no
// language's list holds an empty or a repeated entry. A language may
// leave a list empty (German has no "n't").
func TestEveryLanguageDefinesEveryWordList(t *testing.T) {
	for _, code := range Languages() {
		l := For(code)
		names := templateNames(l)
		for name := range declared {
			if !strings.HasPrefix(name, "words_") {
				continue
			}
			if !slices.Contains(names, name) {
				t.Errorf("%s.tmpl does not define the word list %q", code, name)
				continue
			}
			if _, err := parseWords(l.render(name, nil)); err != nil {
				t.Errorf("%s.tmpl: %s: %v", code, name, err)
			}
		}
	}
	for _, list := range wordLists {
		if len(Words(list)) == 0 {
			t.Errorf("Words(%q) is empty in every language", list)
		}
	}
}

func TestParseWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"  ", nil, true},
		{"No wait, n't,  Kannst du ", []string{"no wait", "n't", "kannst du"}, true},
		{"a, , b", nil, false},
		{"a, b,", nil, false},
		{",a", nil, false},
		{"a, b, A", nil, false},
	} {
		got, err := parseWords(c.in)
		if (err == nil) != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("parseWords(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

// A list nobody declared is a programming error, not an empty list that
// would read nothing.
func TestWordsPanicsOnAnUnknownList(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Words(\"nonsense\") did not panic")
		}
	}()
	Words("nonsense")
}

// A cut text ends at a word where one ends near the cut ("to 2 Dec…",
// not "to 2 Dec 2…"), and is never longer than asked, whatever the text.
func TestCutEndsAtAWord(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"Set due date to 2 Dec 2026", 24, "Set due date to 2 Dec…"},
		{"Set due date to 2 Dec 2026", 26, "Set due date to 2 Dec 2026"},
		{"Set due date to 2 Dec 2026", 23, "Set due date to 2 Dec…"},
		{"Supercalifragilisticexpialidocious", 10, "Supercali…"},
		{"ab cdefghijklmnop", 8, "ab cdef…"},
		{"Renew the passport before März", 20, "Renew the passport…"},
	} {
		if got := cut(tc.s, tc.n); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	for _, s := range []string{"", " ", "  a  b  ", "ü ü ü ü ü ü ü ü", "日本語 のテキスト です", "x\ty\nz w v u t s r q"} {
		for n := 1; n < 20; n++ {
			if got := []rune(cut(s, n)); len(got) > n {
				t.Errorf("cut(%q, %d) = %q, longer than %d", s, n, string(got), n)
			}
		}
	}
}
