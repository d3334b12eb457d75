package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/nodbot/nod/fixtures/openaitest"
)

// prompts is what the agent's requests of a scenario cost in prompt
// tokens, and how much of that a provider's prompt cache could reuse.
// OpenAI-style caching reuses the longest prefix a request shares with
// an earlier one, tools first, then the messages in order.
type prompts struct {
	Calls  int `json:"calls"`
	Tokens int `json:"tokens_est"` // all agent calls
	// Stable is the part of Tokens that repeats a prefix of an earlier
	// call of the conversation (the first call has none).
	Stable int `json:"stable_prefix_tokens_est"`
	// TurnTokens and TurnStable count the first call of each turn after
	// the first only: what stays stable from one turn to the next.
	TurnTokens int `json:"turn_start_tokens_est"`
	TurnStable int `json:"turn_start_stable_tokens_est"`
}

func (p *prompts) add(q prompts) {
	p.Calls += q.Calls
	p.Tokens += q.Tokens
	p.Stable += q.Stable
	p.TurnTokens += q.TurnTokens
	p.TurnStable += q.TurnStable
}

// stablePct is the share of the turns' first prompts that repeats an
// earlier prefix.
func (p prompts) stablePct() float64 {
	if p.TurnTokens == 0 {
		return 0
	}
	return 100 * float64(p.TurnStable) / float64(p.TurnTokens)
}

// promptStats measures the agent requests qs of one conversation, whose
// turns start at the indexes turnStarts.
func promptStats(qs []openaitest.Request, turnStarts []int) prompts {
	var p prompts
	rendered := make([]string, len(qs))
	for i, q := range qs {
		rendered[i] = renderPrompt(q)
		stable := 0
		for _, earlier := range rendered[:i] {
			stable = max(stable, commonPrefix(rendered[i], earlier))
		}
		p.Calls++
		p.Tokens += tokens(len(rendered[i]))
		p.Stable += tokens(stable)
		if i > 0 && slices.Contains(turnStarts, i) {
			p.TurnTokens += tokens(len(rendered[i]))
			p.TurnStable += tokens(stable)
		}
	}
	return p
}

// renderPrompt lays a request out as a model reads it: the tool schemas
// first, then each message.
func renderPrompt(q openaitest.Request) string {
	var wire struct {
		Tools json.RawMessage `json:"tools"`
	}
	json.Unmarshal(q.Raw, &wire)
	var b strings.Builder
	var tools bytes.Buffer
	json.Compact(&tools, wire.Tools)
	b.Write(tools.Bytes())
	for _, m := range q.Messages {
		b.WriteString("\n<|" + m.Role + "|>" + m.ToolCallID + "\n" + m.Content)
		for _, tc := range m.ToolCalls {
			b.WriteString("\n" + tc.ID + " " + tc.Name + " " + tc.Arguments)
		}
	}
	return b.String()
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
