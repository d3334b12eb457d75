package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: every nod started
// here must stop whole, its pollers, sweepers, queues and clients.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
