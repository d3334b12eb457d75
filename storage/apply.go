package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// applyTx applies e inside tx: it reads the task (nod.ErrTrashed if it is
// in the trash, unless e may act there), computes its new state with
// e.Mutate and writes the change.
func (db *core) applyTx(ctx context.Context, tx conn, now time.Time, e nod.Edit) (nod.Applied, error) {
	if err := db.lockChat(ctx, tx, e.ChatID); err != nil {
		return nod.Applied{}, err
	}
	var before *nod.Task
	if e.TaskID != "" {
		t, err := getTask(ctx, tx, e.ChatID, e.TaskID)
		if err != nil {
			return nod.Applied{}, err
		}
		if t.DeletedAt != nil && !e.Trashed {
			return nod.Applied{}, fmt.Errorf("task %q: %w", t.Title, nod.ErrTrashed)
		}
		before = &t
	}
	after, err := e.Mutate(cloneTask(before))
	if err != nil {
		return nod.Applied{}, err
	}
	return db.write(ctx, tx, now, e, before, after, "")
}

// write records the change from before to after made by edit e: the task's
// changed fields and items, its audit row and its undo entry. The change
// is exactly what differs, and each part of it is written only if it still
// holds what before says. Open proposals to set the same fields or items
// (but item self, being confirmed) are closed as superseded.
func (db *core) write(ctx context.Context, tx conn, now time.Time, e nod.Edit, before *nod.Task, after nod.Task, self string) (nod.Applied, error) {
	after.ChatID, after.UpdatedAt = e.ChatID, now
	if before != nil {
		after.ID, after.CreatedAt = before.ID, before.CreatedAt
	} else {
		after.CreatedAt = now
		if after.ID == "" {
			after.ID = nod.TaskID(nod.NewID())
		}
	}
	if err := after.Validate(); err != nil {
		return nod.Applied{}, err
	}
	ch := nod.Diff(before, after)
	if ch.Empty() {
		return nod.Applied{}, fmt.Errorf("%s on task %q: %w: %w", e.Tool, after.Title, nod.ErrUnchanged, nod.ErrInvalid)
	}
	if before != nil {
		after = ch.ApplyTo(*before, now) // as stored: times at the database's precision
		after.UpdatedAt = now
	} else {
		after = stampTask(after)
	}
	if err := writeChange(ctx, tx, e.Topic, reminderOwner(e.UserID, before, e.Tool, e.Summary), ch, &after, now); err != nil {
		return nod.Applied{}, err
	}
	overtook, err := db.supersedeBy(ctx, tx, e.ChatID, e.UserID, ch, self, now)
	if err != nil {
		return nod.Applied{}, err
	}
	a := e.Audit
	a.ChatID, a.UserID, a.Tool, a.Args, a.At = e.ChatID, e.UserID, e.Tool, e.Args, now
	if e.Tool == nod.ToolSetReminder {
		a.Args = reminderWas(e.Args, ch)
	}
	if err := db.insertAudit(ctx, tx, a); err != nil {
		return nod.Applied{}, err
	}
	u := nod.UndoEntry{
		ID: nod.UndoID(nod.NewID()), Topic: e.Topic, UserID: e.UserID, TaskID: after.ID, Tool: e.Tool, Summary: e.Summary,
		Change: ch, Title: after.Title, CreatedAt: now, ExpiresAt: now.Add(db.opts.UndoWindow), Auto: e.Auto,
	}
	if err := insertUndo(ctx, tx, u); err != nil {
		return nod.Applied{}, err
	}
	if e.Receipt != nil {
		r := *e.Receipt
		r.TaskTitle, r.Item.TaskID, r.Item.UndoID = after.Title, after.ID, u.ID
		if err := db.owe(ctx, tx, nod.Owed{Topic: e.Topic, Kind: nod.OwedReceipt, Ref: string(u.ID), Receipt: &r}, now); err != nil {
			return nod.Applied{}, err
		}
	}
	return nod.Applied{Before: before, After: after, Undo: u, Overtook: overtook}, nil
}

func cloneTask(t *nod.Task) *nod.Task {
	if t == nil {
		return nil
	}
	c := t.Clone()
	return &c
}

// stampTask is a new task as it is stored: times cut to the database's
// precision, labels normalised.
func stampTask(t nod.Task) nod.Task {
	t = t.Clone()
	t.Labels = nod.NormalizeLabels(t.Labels)
	t.CreatedAt, t.UpdatedAt = nod.Stamp(t.CreatedAt), nod.Stamp(t.UpdatedAt)
	if t.DeletedAt != nil {
		d := nod.Stamp(*t.DeletedAt)
		t.DeletedAt = &d
	}
	for i, it := range t.Checklist {
		t.Checklist[i] = it.Stamped()
	}
	return t
}

// Apply applies c at once (an explicit request, a toggle on the task card):
// the task, its audit row and its undo entry in one transaction.
func (db *Tasks) Apply(ctx context.Context, c nod.Edit) (nod.Applied, error) {
	var applied nod.Applied
	err := db.inTx(ctx, func(tx conn) error {
		var err error
		applied, err = db.applyTx(ctx, tx, db.now(), c)
		return err
	})
	return applied, err
}

// supersedeBy closes, as superseded, every pending proposal of an open set
// that would set a field or checklist item that change ch just set
// (docs/design.md §4): the person's applied change answers it. A deletion closes every
// proposal for its task. The sets' messages are owed a refresh.
func (db *core) supersedeBy(ctx context.Context, tx conn, chatID nod.ChatID, by nod.UserID, ch nod.Change, self string, now time.Time) ([]nod.ItemRef, error) {
	if ch.Created {
		return nil, nil
	}
	fields := map[string]bool{}
	trashed := ch.Trashes() // a deletion closes every proposal for the task
	for _, f := range ch.Fields {
		fields[string(f.Field)] = true
	}
	items := map[nod.ItemID]bool{}
	for _, ic := range ch.Items {
		if ic.Before != nil {
			items[ic.ID()] = true
		}
	}
	if len(fields) == 0 && len(items) == 0 {
		return nil, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT i.id, i.set_id, i.n, i.field, i.detail FROM change_items i JOIN change_sets s ON s.id = i.set_id
		WHERE s.chat_id = $1 AND s.status IN ('pending', 'partially_resolved') AND i.task_id = $2 AND i.status = 'pending' AND i.id <> $3`, chatID, ch.TaskID, self)
	if err != nil {
		return nil, fmt.Errorf("supersede: %w", err)
	}
	type hit struct {
		id  string
		ref nod.ItemRef
	}
	var hits []hit
	for rows.Next() {
		var id, field, detail string
		var ref nod.ItemRef
		if err := rows.Scan(&id, &ref.SetID, &ref.N, &field, &detail); err != nil {
			rows.Close()
			return nil, fmt.Errorf("supersede: %w", err)
		}
		if trashed {
			hits = append(hits, hit{id, ref})
			continue
		}
		if field == string(nod.FieldChecklist) {
			// An update or removal names its item; an add touches none.
			it := nod.ChangeItem{ID: id}
			if err := decodeDetail(&it, detail); err != nil {
				rows.Close()
				return nil, err
			}
			if it.ItemBefore != nil && items[it.ItemBefore.ID] {
				hits = append(hits, hit{id, ref})
			}
			continue
		}
		if fields[field] {
			hits = append(hits, hit{id, ref})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("supersede: %w", err)
	}
	if len(hits) == 0 {
		return nil, nil
	}
	var name string // whose change overtook them, in a group
	err = tx.QueryRowContext(ctx, `SELECT name FROM chat_members WHERE chat_id = $1 AND user_id = $2`, chatID, by).Scan(&name)
	if err != nil && !noRows(err) {
		return nil, fmt.Errorf("supersede: %w", err)
	}
	note := encodeNote(nod.Note{Key: nod.NoteSuperseded, Args: []string{"direct", name}})
	if trashed {
		note = encodeNote(nod.Note{Key: nod.NoteTaskGone})
	}
	sets := map[nod.SetID]bool{}
	var refs []nod.ItemRef
	for _, h := range hits {
		if _, err := tx.ExecContext(ctx, `UPDATE change_items SET status = 'stale', note = $1 WHERE id = $2 AND status = 'pending'`, note, h.id); err != nil {
			return nil, fmt.Errorf("supersede item: %w", err)
		}
		sets[h.ref.SetID] = true
		refs = append(refs, h.ref)
	}
	for id := range sets {
		set, err := loadSet(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		set.Status = "" // recompute
		if err := updateSetStatus(ctx, tx, &set, now); err != nil {
			return nil, err
		}
		if err := db.owe(ctx, tx, nod.Owed{Topic: nod.Topic{ChatID: chatID}, Kind: nod.OwedRefresh, Ref: string(id)}, now); err != nil {
			return nil, err
		}
	}
	return refs, nil
}
