package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nodbot/nod"
)

// MaxResult bounds a call's result, text and structured content
// together: the bound agent/list.go keeps for list_tasks.
const MaxResult = 64<<10 - 1

// result reads a tool's answer: text contents joined by newlines, other
// kinds in one line each, structured content as JSON, all within
// MaxResult. Structured content too large to fit whole is dropped (cut
// JSON would mislead) and the text cut; either sets Truncated.
func result(r *mcp.CallToolResult) nod.ExternalResult {
	out := nod.ExternalResult{IsError: r.IsError}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			if len(b) <= MaxResult {
				out.Structured = b
			} else {
				out.Truncated = true
			}
		}
	}
	parts := make([]string, 0, len(r.Content))
	for _, c := range r.Content {
		parts = append(parts, contentText(c))
	}
	text := strings.Join(parts, "\n")
	if room := MaxResult - len(out.Structured); len(text) > room {
		text = cut(text, room)
		out.Truncated = true
	}
	out.Text = text
	return out
}

// contentText is a content's text, or a line that says what it is.
func contentText(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image %s, %s]", c.MIMEType, size(len(c.Data)))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio %s, %s]", c.MIMEType, size(len(c.Data)))
	case *mcp.ResourceLink:
		return fmt.Sprintf("[resource link %s]", c.URI)
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return "[resource]"
		}
		n := len(c.Resource.Text) + len(c.Resource.Blob)
		return fmt.Sprintf("[resource %s %s, %s]", c.Resource.URI, c.Resource.MIMEType, size(n))
	}
	return fmt.Sprintf("[%T]", c)
}

// size reads a byte count as people do: 812 B, 12 KB, 3.4 MB.
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// cut shortens s to at most n bytes on a character boundary.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
