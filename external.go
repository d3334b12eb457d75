package nod

import (
	"encoding/json"
	"strings"
)

// ExternalPrefix starts the name of every tool of an operator's MCP
// servers as the agent sees it: mcp__SERVER__TOOL (docs/design.md §15).
const ExternalPrefix = "mcp__"

// ExternalTool is one tool of an operator's MCP server, as the agent is
// offered it. Its Risk is ReadOnly, Mutating or Destructive, decided by
// the operator's configuration or the server's annotations, never by the
// model.
type ExternalTool struct {
	Name        Tool // mcp__SERVER__TOOL
	Server      string
	Tool        string // the server's own name for it
	Description string
	Schema      json.RawMessage // input schema, cleaned for the model API
	Risk        Risk
}

// ExternalResult is what an external call returned, bounded in size for
// the agent and the audit.
type ExternalResult struct {
	Text       string          // the text content, joined
	Structured json.RawMessage // structured content, if the tool gave any
	IsError    bool            // the tool reported an error
	Truncated  bool            // cut to the bound
}

// External reports whether t names a tool of an MCP server.
func (t Tool) External() bool { return strings.HasPrefix(string(t), ExternalPrefix) }
