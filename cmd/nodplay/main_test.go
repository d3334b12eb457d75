package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: a closed playground
// leaves nothing running, nod, the stand-in, the relay and the page.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
