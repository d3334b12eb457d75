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
	goleak.VerifyTestMain(m)
}
