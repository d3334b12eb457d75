// Package agent runs nod's LLM agent: the tool-calling loop on openai-go,
// the tool registry with each tool's risk, the change-set builder that
// queues what needs the person's confirmation, and the confirmation service
// that applies a confirmed change exactly once.
//
// The registry, not the prompt, decides what runs at once: read-only tools
// run, mutating calls become change items, and a destructive call never runs
// from a tool call at all.
package agent
