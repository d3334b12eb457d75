package main

import (
	"testing"

	"github.com/nodbot/nod/fixtures/mcptest"
	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: every nod started
// here must stop whole, its pollers, sweepers, queues and clients. Run
// as a stdio MCP server's child (mcptest.StdioCommand), it serves a
// notebook instead.
func TestMain(m *testing.M) {
	mcptest.ServeStdioIfChild() // the stdio MCP server of TestMCPStdioServer
	// The fixture MCP server's sessions outlive its stop (the SDK's
	// streamable handler keeps them until their client goes); they are
	// the test server's, not nod's.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/modelcontextprotocol/go-sdk/mcp.(*streamableServerConn).Read"))
}
