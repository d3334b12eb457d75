package nod

import "time"

// Role of a stored conversation message.
type Role string

// Conversation roles, as the chat completions API names them.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ChatMessage is one entry of a chat's conversation with the agent. The
// history persists so that multi-turn requests survive a restart.
type ChatMessage struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Review marks the instruction that starts a proactive review: it is
	// sent as a user message but is not the person's words.
	Review bool      `json:"review,omitempty"`
	At     time.Time `json:"at"`
}

// ToolCall is one function call the agent asked for.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
