package formatting_test

import (
	"testing"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/formatting"
)

// A receipt edited to show a later step's change of its task has one
// Undo, Undo all's action, with each change bound to it in order; a
// rule's Stop stays.
func TestCombinedReceiptHasOneUndo(t *testing.T) {
	t.Parallel()
	rule := &nod.Rule{ID: "R1", Kind: "status_done"}
	rs := []formatting.Receipt{
		{TaskTitle: "Check the build", Item: nod.ChangeItem{Tool: nod.ToolCreateTask, TaskID: "T1", Field: nod.FieldTask, UndoID: "U1"}, Quote: "remind me at 8"},
		{TaskTitle: "Check the build", Item: nod.ChangeItem{Tool: nod.ToolSetStatus, TaskID: "T1", Field: nod.FieldStatus, Before: "OPEN", After: "DONE", UndoID: "U2"}, Rule: rule},
	}
	m := en.Changes().CombinedReceipt(rs)
	if len(m.Keyboard) != 2 || len(m.Keyboard[0]) != 1 || m.Keyboard[0][0].Text != "↩️ Undo" || m.Keyboard[0][0].Action != (nod.Action{Kind: nod.ActUndoAll, ID: "U1"}) {
		t.Fatalf("keyboard = %+v, want one Undo of all, then the rule's Stop", m.Keyboard)
	}
	if m.Keyboard[1][0].Action.Kind != nod.ActStopRule {
		t.Errorf("second row = %+v, want the rule's Stop", m.Keyboard[1])
	}
	want := []nod.Action{{Kind: nod.ActUndo, ID: "U1", N: 1}, {Kind: nod.ActUndo, ID: "U2", N: 2}}
	if len(m.Bind) != 2 || m.Bind[0] != want[0] || m.Bind[1] != want[1] {
		t.Errorf("bound = %+v, want %+v", m.Bind, want)
	}
	// One change keeps the receipt it always had.
	if one := en.Changes().CombinedReceipt(rs[:1]); len(one.Bind) != 0 || one.Keyboard[0][0].Action.Kind != nod.ActUndo {
		t.Errorf("one change: %+v", one)
	}
}
