package nod

import (
	"strings"
	"unicode/utf8"
)

// CleanText makes text from outside (Telegram, the model) safe to store in
// either database alike: invalid UTF-8 becomes U+FFFD and NUL characters,
// which PostgreSQL refuses in text, are dropped.
func CleanText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// FoldText folds case and runs of white space, for comparing texts as a
// person reads them: "Buy  Milk" and "buy milk" say the same.
func FoldText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
