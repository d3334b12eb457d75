// Package mcpclient connects nod to an operator's MCP servers
// (docs/design.md §15): it reads NOD_MCP_CONFIG's file, keeps one
// connection to each server (a stdio child process or streamable HTTP),
// offers their tools as mcp__SERVER__TOOL with a risk decided by the
// configuration or the tool's annotations, and calls them. A server that
// cannot be reached is retried with backoff; its tools are absent
// meanwhile, never guessed.
package mcpclient
