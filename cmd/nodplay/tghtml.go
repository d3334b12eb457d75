package main

import (
	"html"
	"strings"
)

// browserTags maps the tags of Telegram's HTML parse mode to what the page
// shows for them.
var browserTags = map[string]string{
	"b": "b", "strong": "b", "i": "i", "em": "i", "u": "u", "ins": "u", "s": "s", "strike": "s", "del": "s",
	"code": "code", "pre": "pre", "blockquote": "blockquote", "tg-spoiler": "span", "span": "span", "a": "a",
}

// browserHTML renders a message written in Telegram's HTML parse mode as
// the page's HTML: the supported tags with no attributes of their own but
// a checked link, every text re-escaped, anything else dropped. What nod
// sends Telegram is what the person sees, and nothing in a title can add
// markup to the page.
func browserHTML(text string) string {
	var (
		b     strings.Builder
		stack []string
	)
	for len(text) > 0 {
		lt := strings.IndexByte(text, '<')
		if lt < 0 {
			lt = len(text)
		}
		b.WriteString(html.EscapeString(html.UnescapeString(text[:lt])))
		text = text[lt:]
		if text == "" {
			break
		}
		gt := strings.IndexByte(text, '>')
		if gt < 0 {
			b.WriteString(html.EscapeString(text))
			break
		}
		tag := text[1:gt]
		text = text[gt+1:]
		if name, ok := strings.CutPrefix(tag, "/"); ok {
			if n := len(stack); n > 0 && stack[n-1] == strings.TrimSpace(name) {
				b.WriteString("</" + browserTags[stack[n-1]] + ">")
				stack = stack[:n-1]
			}
			continue
		}
		name, attrs, _ := strings.Cut(tag, " ")
		out, ok := browserTags[name]
		if !ok {
			continue
		}
		stack = append(stack, name)
		switch {
		case name == "a":
			href := attr(attrs, "href")
			if !strings.HasPrefix(href, "https://") && !strings.HasPrefix(href, "http://") {
				href = "#"
			}
			b.WriteString(`<a href="` + html.EscapeString(href) + `" target="_blank" rel="noopener noreferrer">`)
		case out == "span":
			b.WriteString(`<span class="spoiler">`)
		default:
			b.WriteString("<" + out + ">")
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		b.WriteString("</" + browserTags[stack[i]] + ">")
	}
	return b.String()
}

// attr returns the unescaped value of attribute name in attrs.
func attr(attrs, name string) string {
	_, v, ok := strings.Cut(attrs, name+`="`)
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, `"`)
	return html.UnescapeString(v)
}
