package nod_test

import (
	"testing"

	"github.com/nodbot/nod"
)

// An edit replaces every earlier line of its message, an earlier edit
// included, across a history and a turn's own lines; the edit itself and
// other messages stay as they are.
func TestMarkReplaced(t *testing.T) {
	history := []nod.ChatMessage{
		{Role: nod.RoleUser, Content: "plan the launhc", MsgID: 7},
		{Role: nod.RoleAssistant, Content: "Planned."},
		{Role: nod.RoleUser, Content: "plan the lunch", MsgID: 7, EditOf: 7, Edits: "plan the launhc"},
		{Role: nod.RoleUser, Content: "and the docs", MsgID: 8},
	}
	turn := []nod.ChatMessage{{Role: nod.RoleUser, Content: "plan the launch", MsgID: 7, EditOf: 7, Edits: "plan the lunch"}}
	nod.MarkReplaced(history, turn)
	got := []bool{history[0].Replaced, history[2].Replaced, history[3].Replaced, turn[0].Replaced}
	if want := []bool{true, true, false, false}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("replaced = %v, want %v", got, want)
	}
	if s := history[2].Said(); s != "(edited since, see below; these words no longer count) The person edited their message “plan the launhc” to: “plan the lunch” (changes already applied from the earlier words stay applied unless changed again)" {
		t.Errorf("a replaced edit reads %q", s)
	}
	fwd := nod.ChatMessage{Role: nod.RoleUser, Content: "raise it", Forwarded: "Boss (7007)", Speaker: "Alice (1001)"}
	if s := fwd.Said(); s != "Alice (1001): (forwarded: a message from Boss (7007), not the person's own words) raise it" {
		t.Errorf("a forward reads %q", s)
	}
}
