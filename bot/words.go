package bot

import (
	"github.com/nodbot/nod/answer"
	"github.com/nodbot/nod/formatting"
)

// newReader reads answers in the words of every language nod speaks, from
// each language's template file: a German "ja zu 1 und 3" in an English
// chat means the same (docs/design.md §3.4, rule 2).
func newReader() *answer.Reader { return answer.NewReader(formatting.AnswerWords()) }
