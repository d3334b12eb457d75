package formatting

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Models write Markdown whatever they are told; Telegram, sent HTML,
// would show its asterisks and backticks. The two marks whose meaning is
// plain become tags; single asterisks and underscores stay as written
// ("5 * 3", snake_case). A scanner this small beats a Markdown
// library: CommonMark would also read *maybe* as italics, lists and
// headings, which the person should see as written.
var mdCode = regexp.MustCompile("`[^`\n]+`")

// mark is a Markdown mark of the model's text and the tag it becomes.
type mark struct {
	at, n int // where it is in the text, and how many bytes long
	tag   string
}

// ModelText is the model's text as Telegram HTML: escaped, with
// **bold** and `code` as the person's app shows them. The tags always
// nest, since Telegram refuses a whole message for one that does not:
// code spans are read first and hold no other mark (as in CommonMark,
// where they bind tighter than emphasis), and bold opens and closes
// outside them, so "**a `b** c`" is "**a <code>b** c</code>".
func ModelText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	last := 0
	for _, m := range marks(s) {
		b.WriteString(Escape(s[last:m.at]))
		b.WriteString(m.tag)
		last = m.at + m.n
	}
	b.WriteString(Escape(s[last:]))
	return b.String()
}

// marks returns the marks of s in the order they appear.
func marks(s string) []mark {
	var out []mark
	code := map[int]int{} // a code span's first byte → the byte after it
	for _, c := range mdCode.FindAllStringIndex(s, -1) {
		code[c[0]] = c[1]
		out = append(out, mark{c[0], 1, "<code>"}, mark{c[1] - 1, 1, "</code>"})
	}
	for i := 0; i < len(s); i++ {
		if end, ok := code[i]; ok {
			i = end - 1
			continue
		}
		if strings.HasPrefix(s[i:], "**") && !firstIsSpace(s[i+2:]) {
			if j := boldEnd(s, i+2, code); j >= 0 {
				out = append(out, mark{i, 2, "<b>"}, mark{j, 2, "</b>"})
				i = j + 1
			}
		}
	}
	slices.SortFunc(out, func(a, b mark) int { return a.at - b.at })
	return out
}

// boldEnd returns where the ** is that closes bold text starting at
// from, or -1 if none does: the text is not empty, holds no newline and
// no asterisk but inside whole code spans, and (as in CommonMark) neither
// starts nor ends with white space, so that "**a `b** c`, then **d**"
// leaves its first ** as written rather than pairing it with the third.
func boldEnd(s string, from int, code map[int]int) int {
	for j := from; j < len(s); j++ {
		if end, ok := code[j]; ok {
			j = end - 1
			continue
		}
		switch s[j] {
		case '\n':
			return -1
		case '*':
			if j > from && strings.HasPrefix(s[j:], "**") && !lastIsSpace(s[:j]) {
				return j
			}
			return -1
		}
	}
	return -1
}

// firstIsSpace reports whether s starts with white space, or is empty.
func firstIsSpace(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == 0 || unicode.IsSpace(r)
}

// lastIsSpace reports whether s ends with white space, or is empty.
func lastIsSpace(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	return n == 0 || unicode.IsSpace(r)
}
