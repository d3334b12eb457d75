package agent

import (
	"slices"

	"github.com/nodbot/nod/tools"
)

// What the registry's tests read of it, exported to them alone.

// Tools returns every tool, in the order the model sees them.
func Tools() []Tool { return slices.Clone(registry) }

// Explodes reports whether a call of the tool with two elements in its
// array argument becomes two changes, as its parser says.
func (t Tool) Explodes() bool {
	a, err := tools.Decode(t.Name, `{"task_id": "T1", "items": [{"id": "c1", "title": "One"}, {"id": "c2", "title": "Two"}]}`)
	if err != nil {
		return false
	}
	changes, _, err := a.Calls()
	return err == nil && len(changes) == 2
}

// EventNotes is what the agent is told of events outside the conversation.
var EventNotes = eventNotes
