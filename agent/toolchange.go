package agent

import (
	"encoding/json"
	"time"

	"github.com/nodbot/nod"
)

// Changes rebuilds the changes of the agent's tools for the confirmation
// service, which applies them on the person's behalf: the tools, and what
// their arguments mean, are the agent's.
type Changes struct{}

// Parse rebuilds a stored change item's change; an error wraps
// nod.ErrInvalid.
func (Changes) Parse(tool nod.Tool, raw json.RawMessage) (nod.ToolChange, error) {
	c, err := parseChange(tool, raw)
	if err != nil {
		return nil, err
	}
	return toolChange{c}, nil
}

// Remind is the change that sets task taskID's reminder to at, stored and
// summarised in at's zone.
func (Changes) Remind(taskID string, at time.Time) (nod.ToolChange, error) {
	cs, _, err := parseReminder(args{tool: nod.ToolSetReminder, m: map[string]json.RawMessage{"task_id": mustJSON(taskID), "remind_at": mustJSON(at.Format(time.RFC3339))}, zone: at.Location()})
	if err != nil {
		return nil, err
	}
	return toolChange{cs[0]}, nil
}

// Typed fills in what other packages read of item it as values (see
// typed); c is a change Parse or Remind returned.
func (Changes) Typed(c nod.ToolChange, t *nod.Task, it nod.ChangeItem) nod.ChangeItem {
	tc, ok := c.(toolChange)
	if !ok {
		return it
	}
	return typed(tc.c, t, it)
}

// toolChange shows a change as a nod.ToolChange.
type toolChange struct{ c change }

func (tc toolChange) Tool() nod.Tool                      { return tc.c.tool() }
func (tc toolChange) TaskID() string                      { return tc.c.task() }
func (tc toolChange) Field() nod.Field                    { return tc.c.field() }
func (tc toolChange) Args() json.RawMessage               { return tc.c.args() }
func (tc toolChange) Current(t *nod.Task) (string, error) { return tc.c.current(t) }
func (tc toolChange) Target(t *nod.Task) (string, error)  { return tc.c.target(t) }
func (tc toolChange) Summary(t *nod.Task) string          { return tc.c.summary(t) }
func (tc toolChange) Apply(t *nod.Task, now time.Time, by nod.Actor) error {
	return tc.c.apply(t, applyCtx{now: now, by: by})
}
