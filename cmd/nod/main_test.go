package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/nodbot/nod/fixtures/mcptest"
	"github.com/nodbot/nod/place"
	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: every nod started
// here must stop whole, its pollers, sweepers, queues and clients. Run
// as a stdio MCP server's child (mcptest.StdioCommand), it serves a
// notebook instead.
func TestMain(m *testing.M) {
	mcptest.ServeStdioIfChild() // the stdio MCP server of TestMCPStdioServer
	// The places' data is the process's, read on the first city named
	// (place.Shared): under -race on a busy machine that took longer than
	// a test waits for a message, so no test's turn pays for it.
	if _, err := place.Shared.FindCity("Munich"); err != nil {
		fmt.Fprintln(os.Stderr, "read the places' data:", err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m)
}
