package agent

import (
	"encoding/json"
	"slices"

	"github.com/nodbot/nod"
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

// Zoned is a time as the agent reads it in a zone.
var Zoned = zoned

// EncodedAfresh is the request the agent wrote before messages kept their
// encodings, for a turn with history as storage reads it and the turn's
// own messages: the history read as a turn reads it, every message
// decoded and encoded again.
func EncodedAfresh(model, system string, tools json.RawMessage, history, own []nod.ChatMessage) []byte {
	h := pastReads(fromUserMessage(history))
	msgs := slices.Concat(h, own)
	for i := range msgs {
		msgs[i].Wire = nil
	}
	nod.MarkReplaced(msgs)
	return requestBodyWhole(model, system, tools, msgs)
}
