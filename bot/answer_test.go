package bot

import (
	"slices"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	for text, want := range map[string]struct {
		confirm, ok bool
		items       []int
	}{
		"yes": {true, true, nil}, "OK!": {true, true, nil}, "👍": {true, true, nil}, "no": {false, true, nil},
		"yes to 1, 3": {true, true, []int{1, 3}}, "yes 2 and 4": {true, true, []int{2, 4}},
		"Ja": {true, true, nil}, "nein.": {false, true, nil}, "ja zu 1 und 3": {true, true, []int{1, 3}}, "ja für 2": {true, true, []int{2}},
		"yes please do it": {false, false, nil}, "no to 1": {false, false, nil}, "1, 2": {false, false, nil},
	} {
		confirm, items, ok := parseAnswer(text)
		if confirm != want.confirm || ok != want.ok || !slices.Equal(items, want.items) {
			t.Errorf("parseAnswer(%q) = %v %v %v, want %v %v %v", text, confirm, items, ok, want.confirm, want.items, want.ok)
		}
	}
}
