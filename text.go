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
