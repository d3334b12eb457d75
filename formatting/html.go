package formatting

import (
	"html"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxLen is Telegram's limit on a message: UTF-16 code units of the text
// after entity parsing.
const MaxLen = 4096

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// Escape makes text safe inside Telegram HTML. Invalid UTF-8 is replaced,
// since Telegram rejects it.
func Escape(s string) string { return escaper.Replace(strings.ToValidUTF8(s, "\uFFFD")) }

// VisibleLen counts s as Telegram does: UTF-16 code units of the text
// after tags are removed and entities decoded.
func VisibleLen(html string) int {
	n := 0
	for _, t := range tokenize(html) {
		if t.kind == tokText {
			n += utf16Len(t.s)
		} else if t.kind == tokEntity {
			n++
		}
	}
	return n
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

type tokKind int

const (
	tokText tokKind = iota
	tokEntity
	tokOpen
	tokClose
)

type token struct {
	kind tokKind
	s    string // the raw markup
	name string // tag name
}

// tokenize splits well-formed HTML (as the templates produce it) into
// text runs, entities and tags.
func tokenize(s string) []token {
	var out []token
	for len(s) > 0 {
		switch s[0] {
		case '<':
			end := strings.IndexByte(s, '>')
			if end < 0 {
				out = append(out, token{kind: tokText, s: s})
				return out
			}
			raw := s[:end+1]
			if strings.HasPrefix(raw, "</") {
				out = append(out, token{kind: tokClose, s: raw, name: strings.Trim(raw, "</>")})
			} else {
				name, _, _ := strings.Cut(strings.Trim(raw, "<>"), " ")
				out = append(out, token{kind: tokOpen, s: raw, name: name})
			}
			s = s[end+1:]
		case '&':
			end := strings.IndexByte(s, ';')
			if end < 0 {
				end = 0
			}
			out = append(out, token{kind: tokEntity, s: s[:end+1]})
			s = s[end+1:]
		default:
			i := strings.IndexAny(s, "<&")
			if i < 0 {
				i = len(s)
			}
			out = append(out, token{kind: tokText, s: s[:i]})
			s = s[i:]
		}
	}
	return out
}

// Split cuts an HTML message into parts of at most MaxLen visible units,
// preferring line boundaries, never inside a tag, an entity or a
// character; tags open at a cut are closed and reopened in the next part.
func Split(html string) []string { return split(html, MaxLen) }

func split(html string, limit int) []string {
	if VisibleLen(html) <= limit {
		return []string{html}
	}
	var (
		parts []string
		cur   strings.Builder
		n     int
		open  []token
		// the best place to cut in cur so far (after a newline, else after
		// a space), and the tags open there
		cutAt   = -1
		cutNL   bool
		cutOpen []token
	)
	flush := func(at int, stack []token) {
		body := cur.String()
		rest := body[at:]
		head := body[:at]
		var b strings.Builder
		b.WriteString(strings.TrimRight(head, "\n"))
		for i := len(stack) - 1; i >= 0; i-- {
			b.WriteString("</" + stack[i].name + ">")
		}
		parts = append(parts, b.String())
		cur.Reset()
		for _, t := range stack {
			cur.WriteString(t.s)
		}
		cur.WriteString(strings.TrimLeft(rest, "\n"))
		n = VisibleLen(cur.String())
		cutAt, cutNL, cutOpen = -1, false, nil
	}
	for _, t := range tokenize(html) {
		switch t.kind {
		case tokOpen:
			cur.WriteString(t.s)
			open = append(open, t)
		case tokClose:
			cur.WriteString(t.s)
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case tokEntity:
			if n+1 > limit {
				flush(cur.Len(), open)
			}
			cur.WriteString(t.s)
			n++
		case tokText:
			for _, r := range t.s {
				w := len(utf16.Encode([]rune{r}))
				if n+w > limit {
					// A cut in the first half would make a stub message.
					if cutAt > cur.Len()/2 {
						flush(cutAt, cutOpen)
					} else {
						flush(cur.Len(), open)
					}
				}
				if r == '\n' || (r == ' ' && !(cutNL && cutAt > cur.Len()*3/4)) {
					cutAt, cutNL, cutOpen = cur.Len()+1, r == '\n', append([]token(nil), open...)
				}
				var buf [utf8.UTFMax]byte
				cur.Write(buf[:utf8.EncodeRune(buf[:], r)])
				n += w
			}
		}
	}
	if strings.TrimSpace(stripTags(cur.String())) != "" {
		parts = append(parts, cur.String())
	}
	return parts
}

// stripTags returns the visible text of html, entities decoded.
func stripTags(html string) string {
	var b strings.Builder
	for _, t := range tokenize(html) {
		switch t.kind {
		case tokText:
			b.WriteString(t.s)
		case tokEntity:
			b.WriteString(unescapeEntity(t.s))
		}
	}
	return b.String()
}

// PlainText is what a person reads of an HTML message.
func PlainText(html string) string { return stripTags(html) }

func unescapeEntity(e string) string {
	switch e {
	case "&amp;":
		return "&"
	case "&lt;":
		return "<"
	case "&gt;":
		return ">"
	case "&quot;":
		return `"`
	}
	if strings.HasPrefix(e, "&#") { // Telegram takes every numeric entity
		return html.UnescapeString(e)
	}
	return e
}

// truncate cuts plain text to at most n runes, on a word boundary when one
// is near, and says how much was left out.
func truncate(s string, n int) (string, int) {
	r := []rune(s)
	if len(r) <= n {
		return s, 0
	}
	cut := n
	for i := n; i > n-40 && i > 0; i-- {
		if r[i] == ' ' || r[i] == '\n' {
			cut = i
			break
		}
	}
	return string(r[:cut]), len(r) - cut
}
