package nod

import (
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// ErrNotSent marks the error of an external call that never left nod
// (its server or tool is not available now): it did not run. A call
// error without it may have run.
var ErrNotSent = errors.New("the call was not sent")

// ExternalPrefix starts the name of every tool of an operator's MCP
// servers as the agent sees it: mcp__SERVER__TOOL (docs/design.md §16).
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

// FieldCall marks a change item or receipt that is a call of an external
// tool: its Args are the call's arguments, and its After is the tool's
// risk (RiskName), so that a destructive call is told apart where it waits.
const FieldCall Field = "call"

// RiskName is how a change item of an external call records its tool's
// risk: "read", "mutate" or "destroy" (docs/design.md §16).
func RiskName(r Risk) string {
	switch r {
	case ReadOnly:
		return "read"
	case Mutating:
		return "mutate"
	}
	return "destroy"
}

// CallState is where one external call is: claimed (it may be under way),
// done (its outcome is recorded) or unknown (nod stopped while it was
// under way: it is never sent again).
type CallState string

// External call states.
const (
	CallClaimed CallState = "claimed"
	CallDone    CallState = "done"
	CallUnknown CallState = "unknown"
)

// ExternalCall is one call of an external tool nod sends: claimed in the
// database before it is sent, exactly once, and its outcome recorded.
type ExternalCall struct {
	ID string
	Topic
	UserID UserID
	Tool   Tool
	Args   json.RawMessage
	// SetID and N name the change item a tap confirmed; empty for a call
	// the person's words ran at once.
	SetID  SetID
	N      int
	State  CallState
	Result ExternalResult
	// Err is why the call did not return a result; "" when it did.
	// NotSent says it never left nod (its server is down): it did not
	// run. Otherwise a call without a result may have run.
	Err       string
	NotSent   bool
	ClaimedAt time.Time
}

// Server and ToolName split an external tool's name mcp__SERVER__TOOL.
func (t Tool) Server() (server, tool string) {
	s, ok := strings.CutPrefix(string(t), ExternalPrefix)
	if !ok {
		return "", string(t)
	}
	server, tool, _ = strings.Cut(s, "__")
	return server, tool
}
