package formatting

import "regexp"

// Models write Markdown whatever they are told; Telegram, sent HTML,
// would show its asterisks and backticks. The two marks whose meaning is
// plain become tags; single asterisks and underscores stay as written
// ("5 * 3", snake_case).
var (
	mdBold = regexp.MustCompile(`\*\*([^*\n]+?)\*\*`)
	mdCode = regexp.MustCompile("`([^`\n]+)`")
)

// ModelText is the model's text as Telegram HTML: escaped, with
// **bold** and `code` as the person's app shows them.
func ModelText(s string) string {
	h := Escape(s)
	h = mdCode.ReplaceAllString(h, "<code>$1</code>")
	return mdBold.ReplaceAllString(h, "<b>$1</b>")
}
