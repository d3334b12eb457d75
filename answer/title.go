package answer

import "strings"

// TitleAnswer is how the words a person typed answer a deletion's
// question, which asks them to type the task's title.
type TitleAnswer int

const (
	// OtherWords are not the title: the deletion is cancelled.
	OtherWords TitleAnswer = iota
	// SameTitle is the title, ignoring case and the space around it: the
	// task goes to the trash.
	SameTitle
	// NearTitle is the title but for NearMiss letters: a typo, asked
	// again rather than taken for a no.
	NearTitle
)

// NearMiss is how many letters a typed title may be off to be asked again
// rather than cancel the deletion.
const NearMiss = 2

// ReadTitle reads typed as an answer to the question that asked for
// title. spoken says speech to text heard it, which ends what it hears
// as a sentence ("Fix login bug."): a final stop does not count.
func ReadTitle(typed, title string, spoken bool) TitleAnswer {
	typed, title = strings.ToLower(strings.TrimSpace(typed)), strings.ToLower(strings.TrimSpace(title))
	if spoken {
		typed, title = strings.TrimRight(typed, ".!?…"), strings.TrimRight(title, ".!?…")
	}
	switch {
	case typed == title:
		return SameTitle
	case editDistance(typed, title, NearMiss) <= NearMiss:
		return NearTitle
	}
	return OtherWords
}

// editDistance is the Levenshtein distance of a and b in runes, or more
// than limit once it is known to be.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
