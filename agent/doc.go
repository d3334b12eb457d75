// Package agent runs nod's LLM agent: the tool-calling loop on openai-go,
// the tool registry with each tool's risk, and the change-set builder that
// queues what needs the person's confirmation. What each tool's arguments
// mean, and the change they make, is package tools'; package confirm
// applies what the person confirms.
//
// The registry, not the prompt, decides what runs at once: read-only tools
// run, mutating calls become change items, and a destructive call never runs
// from a tool call at all.
package agent
