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
