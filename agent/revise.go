package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/nodbot/nod"
	"github.com/nodbot/nod/tools"
)

type revision struct {
	ref  nod.ItemRef
	item nod.ChangeItem
	key  string // what the item sets, as supersedeKey names it
	done bool
}

// loadRevision reads the item the person's reply revises.
func (t *turn) loadRevision(ctx context.Context) error {
	set, err := t.a.sets.ChangeSet(ctx, t.req.ChatID, t.req.Revise.SetID)
	if err != nil {
		return err
	}
	it, ok := set.Item(t.req.Revise.N)
	if !ok || it.Status != nod.ItemPending {
		return fmt.Errorf("revise item %d of %s: %w", t.req.Revise.N, set.ID, nod.ErrDecided)
	}
	c, err := tools.Parse(it.Tool, it.Args)
	if err != nil {
		return err
	}
	t.revise = &revision{ref: *t.req.Revise, item: *it, key: supersedeKey(c)}
	return nil
}

// revisionNote tells the agent which proposal the person's reply revises.
func revisionNote(it nod.ChangeItem) string {
	task := it.TaskID
	if task == "" {
		task = "a new one"
	}
	return fmt.Sprintf("\nThe user's message is a reply to your pending proposal %q (made with %s, task %s). If they ask to change it, revise it as they say: call %s once more with the corrected arguments for the same task, every argument it should keep included. The revision replaces the proposal; do not propose anything else in this turn. If they only ask about it, answer and change nothing.\n",
		it.Summary, batchTool(it.Tool), task, batchTool(it.Tool))
}

// batchTool is the tool the model calls for an exploded item.
func batchTool(tool nod.Tool) nod.Tool {
	switch tool {
	case nod.ToolAddItem:
		return nod.ToolAddItems
	case nod.ToolUpdateItem:
		return nod.ToolUpdateItems
	case nod.ToolSetRepeat:
		return nod.ToolSetReminder
	}
	return tool
}

// reviseWith revises the pending item in place with pc, if pc is the
// revision the person asked for; it returns the call's result and true.
func (t *turn) reviseWith(ctx context.Context, pc prepared) (string, bool) {
	r := t.revise
	if r == nil || r.done || pc.c.Tool() != r.item.Tool || pc.c.TaskID() != r.item.TaskID ||
		(r.key != "" && supersedeKey(pc.c) != r.key) {
		return "", false
	}
	r.done = true
	set, err := t.a.sets.ReviseItem(ctx, t.req.ChatID, r.ref.SetID, r.ref.N, t.req.UserID, tools.Typed(pc.c, pc.task, nod.ChangeItem{
		Tool: pc.c.Tool(), TaskID: pc.c.TaskID(), Args: pc.c.Args(), Summary: pc.c.Summary(pc.task), Field: pc.c.Field(), Before: pc.cur, After: pc.target,
	}))
	if errors.Is(err, nod.ErrDecided) {
		// Decided since the turn began: by the person's tap, or by an
		// answer_proposals of this very step ("no, I meant three
		// tasks"). The call is then a change of its own, not lost.
		return "", false
	}
	if err != nil {
		t.unreserve([]prepared{pc})
		return errorJSON(fmt.Errorf("the proposal could not be revised: %s", nod.Detail(err))), true
	}
	t.revised = &set
	return fmt.Sprintf("Proposal revised: item %d now reads %q and awaits the user's decision.", r.ref.N, pc.c.Summary(pc.task)), true
}
