package confirm_test

import (
	"testing"

	"github.com/nodbot/nod/fixtures"
	_ "github.com/nodbot/nod/fixtures/golden" // defines -update
	"github.com/nodbot/nod/fixtures/servicetest"
)

// The service decides what the agent proposed: these tests let the agent
// propose on the fake model endpoint, as the app does.

const (
	chat   = 100
	user   = 42
	agentM = servicetest.AgentModel
	clfM   = servicetest.ClfModel
)

// env is one backend's agent and confirmation service, wired as the app
// wires them; the tests add helpers of their own.
type env struct{ *servicetest.Env }

// forEachDialect runs fn on every backend (servicetest.ForEachDialect).
func forEachDialect(t *testing.T, fn func(t *testing.T, e *env)) {
	servicetest.ForEachDialect(t, func(t *testing.T, e *servicetest.Env) { fn(t, &env{e}) })
}

var titles = fixtures.ChecklistTitles
