package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

func insertUndo(ctx context.Context, q conn, u nod.UndoEntry) error {
	delta, err := encodeChange(u.Change)
	if err != nil {
		return err
	}
	err = q.later(ctx, `INSERT INTO undo_entries (id, chat_id, thread, user_id, task_id, tool, summary, delta, reverts, root, created_at, expires_at, auto, redoes) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)`,
		u.ID, u.ChatID, u.Thread, u.UserID, u.TaskID, u.Tool, u.Summary, delta, u.Reverts, u.Root, micros(u.CreatedAt), micros(u.ExpiresAt), boolInt(u.Auto), boolInt(u.Redoes))
	if err != nil {
		return fmt.Errorf("record undo entry: %w", err)
	}
	return nil
}

// UndoEntry returns undo entry id of the chat.
func (db *Undo) UndoEntry(ctx context.Context, chatID nod.ChatID, id nod.UndoID) (nod.UndoEntry, error) {
	return getUndo(ctx, db.reader(), chatID, id)
}

// LatestUndo returns userID's newest undo entry in the topic that is
// neither undone nor expired, or nod.ErrNotFound: /undo takes back the
// sender's own change, never someone else's, made in the topic it is
// given in.
func (db *Undo) LatestUndo(ctx context.Context, at nod.Topic, userID nod.UserID) (nod.UndoEntry, error) {
	var id nod.UndoID
	err := db.reader().QueryRowContext(ctx, `SELECT id FROM undo_entries WHERE chat_id = $1 AND thread = $2 AND user_id = $3 AND undone_at IS NULL AND expires_at > $4 ORDER BY seq DESC LIMIT 1`,
		at.ChatID, at.Thread, userID, micros(db.now())).Scan(&id)
	if noRows(err) {
		return nod.UndoEntry{}, fmt.Errorf("nothing to undo: %w", nod.ErrNotFound)
	}
	if err != nil {
		return nod.UndoEntry{}, fmt.Errorf("latest undo: %w", err)
	}
	return db.UndoEntry(ctx, at.ChatID, id)
}

// Undo reverts undo entry id for userID by applying the inverse of its
// change: only the fields and checklist items that change touched, each
// only if it still holds the value the change left (with force, whatever
// it holds now). The entry is marked undone, an audit row is written and a
// new entry makes the undo itself undoable (Redo), in one transaction.
// A reminder the undo leaves at a time that has passed never stays
// silent: if it never went out it goes out now (see rearm); the result
// says which. Errors wrap nod.ErrNotFound, nod.ErrForbidden (someone
// else's change), nod.ErrDecided (already undone), nod.ErrExpired,
// nod.ErrSent (the change set a reminder that has gone out since),
// nod.ErrTrashed (the task is in the trash and the undo would not restore
// it) or nod.ErrStale (as a nod.Conflict naming what changed since).
func (db *Undo) Undo(ctx context.Context, chatID nod.ChatID, id nod.UndoID, userID nod.UserID, force bool) (nod.Undone, error) {
	var out nod.Undone
	now := db.now()
	err := db.inTx(ctx, func(tx conn) error {
		if err := db.lockChat(ctx, tx, chatID); err != nil {
			return err
		}
		var err error
		out, err = db.undoIn(ctx, tx, chatID, id, userID, force, now)
		return err
	})
	return out, err
}

// UndoAll reverts the undo entries ids for userID as Undo does each, all
// in one transaction: the Undo all of a receipt of many changes. Entries
// undone already (a double tap) or expired are left out, and done names
// the ones it undid, in order; any other refusal (a change made since,
// someone else's, a task in the trash) undoes none of them and is
// returned as Undo returns it. With nothing left to undo the error wraps
// nod.ErrDecided.
func (db *Undo) UndoAll(ctx context.Context, chatID nod.ChatID, ids []nod.UndoID, userID nod.UserID) (done []nod.Undone, err error) {
	now := db.now()
	err = db.inTx(ctx, func(tx conn) error {
		done = nil // a retried transaction starts afresh
		if err := db.lockChat(ctx, tx, chatID); err != nil {
			return err
		}
		for _, id := range ids {
			u, err := db.undoIn(ctx, tx, chatID, id, userID, false, now)
			switch {
			case errors.Is(err, nod.ErrDecided) || errors.Is(err, nod.ErrExpired):
				continue
			case err != nil:
				return err
			}
			done = append(done, u)
		}
		if len(done) == 0 {
			return fmt.Errorf("undo all of %d changes: %w", len(ids), nod.ErrDecided)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return done, nil
}

// undoIn is Undo's work inside transaction tx, which holds the chat's lock.
func (db *Undo) undoIn(ctx context.Context, tx conn, chatID nod.ChatID, id nod.UndoID, userID nod.UserID, force bool, now time.Time) (nod.Undone, error) {
	var out nod.Undone
	u, err := getUndo(ctx, tx, chatID, id)
	if err != nil {
		return out, err
	}
	switch {
	case u.UserID != userID:
		return out, fmt.Errorf("undo %s was made by user %d: %w", id, u.UserID, nod.ErrForbidden)
	case u.UndoneAt != nil:
		return out, fmt.Errorf("undo %s: %w", id, nod.ErrDecided)
	case !now.Before(u.ExpiresAt):
		return out, fmt.Errorf("undo %s: %w", id, nod.ErrExpired)
	}
	if at, ok := u.Change.RemindsAt(); ok {
		// Not even with force: the reminder it set is a message the
		// person has had, which no undo takes back.
		sent, err := reminderSent(ctx, tx, chatID, u.TaskID, at, u.CreatedAt)
		if err != nil {
			return out, err
		}
		if sent {
			return out, fmt.Errorf("undo %s: the reminder at %s went out since: %w", id, at.Format(time.RFC3339), nod.ErrSent)
		}
	}
	cur, err := getTask(ctx, tx, chatID, u.TaskID)
	if err != nil {
		return out, err
	}
	inv := u.Change.Inverse()
	if cur.DeletedAt != nil && !inv.ExpectsTrashed() {
		return out, fmt.Errorf("undo %s: task %q: %w", id, cur.Title, nod.ErrTrashed)
	}
	if force {
		inv = inv.Rebase(cur)
	} else if cf, ok := inv.Conflict(cur); ok {
		return out, fmt.Errorf("undo %s: task %q: %w", id, cur.Title, cf)
	} else if inv.ExpectsTrashed() {
		// Back on the list beside a task of its title that the person
		// asked for anew since: two only if they say so.
		at, ok, err := twinSince(ctx, tx, chatID, u.TaskID, cur.Title, u.CreatedAt)
		if err != nil {
			return out, err
		}
		if ok {
			return out, fmt.Errorf("undo %s: task %q: %w", id, cur.Title, nod.Conflict{Field: nod.FieldTrash, Twin: at, Added: cur.CreatedAt})
		}
	}
	if !inv.Empty() {
		if err := writeChange(ctx, tx, nod.Topic{ChatID: chatID, Thread: u.Thread}, reminderOwner(userID, &cur, u.Tool, u.Summary), inv, nil, now); err != nil {
			return out, err
		}
	}
	if inv.Trashes() {
		// A creation undone: what waits for the task goes with it, as
		// with a deletion.
		if _, err := db.supersedeBy(ctx, tx, chatID, userID, inv, "", now); err != nil {
			return out, err
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE undo_entries SET undone_at = $1 WHERE id = $2 AND undone_at IS NULL`, micros(now), id)
	if err != nil {
		return out, fmt.Errorf("mark undo %s: %w", id, err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return out, fmt.Errorf("undo %s: %w", id, nod.ErrDecided)
	}
	// Every step of the chain takes the change back or puts it back.
	root := cmp.Or(u.Root, id)
	if err := tx.later(ctx, `UPDATE undo_entries SET undone_now = 1 - undone_now WHERE id = $1 AND chat_id = $2`, root, chatID); err != nil {
		return out, fmt.Errorf("mark change %s undone or redone: %w", root, err)
	}
	outcome := nod.OutcomeUndone
	if u.Redoes {
		outcome = nod.OutcomeRedone
	}
	args, err := json.Marshal(map[string]any{"undo_id": id, "task_id": u.TaskID, "tool": u.Tool, "fields": touched(inv)})
	if err != nil {
		return out, err
	}
	if err := db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: u.Tool, Args: args, Outcome: outcome, UserConfirmed: true, At: now}); err != nil {
		return out, err
	}
	after := inv.ApplyTo(cur, now)
	if out.Reminder, err = rearm(ctx, tx, chatID, inv, after, now); err != nil {
		return out, err
	}
	out.Held, out.Resumed = trashedReminder(inv, after, now)
	redo := nod.UndoEntry{
		ID: nod.UndoID(nod.NewID()), Topic: nod.Topic{ChatID: chatID, Thread: u.Thread}, UserID: userID, TaskID: u.TaskID, Tool: u.Tool, Summary: u.Summary,
		Change: inv, Title: after.Title, CreatedAt: now, ExpiresAt: now.Add(db.opts.UndoWindow), Reverts: id, Root: root,
		Redoes: !u.Redoes, // this step's taken back by the next
	}
	if err := insertUndo(ctx, tx, redo); err != nil {
		return out, err
	}
	out.Redo, out.Redone = redo, u.Redoes
	return out, db.owe(ctx, tx, nod.Owed{Topic: nod.Topic{ChatID: chatID, Thread: u.Thread}, Kind: nod.OwedUndone, Ref: string(redo.ID)}, now)
}

// twinSince returns when the latest task of the chat outside the trash,
// other than id, with title (in any case: "call the bank" asks for the
// same task) was added after since, if one was; any, from a zero since.
func twinSince(ctx context.Context, q conn, chatID nod.ChatID, id nod.TaskID, title string, since time.Time) (time.Time, bool, error) {
	fold := foldSQL(q.db.postgres)
	var at int64
	err := q.QueryRowContext(ctx, `SELECT created_at FROM tasks WHERE chat_id = $1 AND deleted_at IS NULL AND id <> $2 AND `+fold+`(title) = `+fold+`($3) AND created_at > $4 ORDER BY created_at DESC LIMIT 1`,
		chatID, id, title, micros(since)).Scan(&at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, false, nil
	case err != nil:
		return time.Time{}, false, fmt.Errorf("task of title %q since: %w", title, err)
	}
	return fromMicros(at), true, nil
}

// trashedReminder is the reminder ahead of t, the task after an undo's
// inverse inv, that the undo holds back by moving t into the trash, or
// resumes by bringing it out.
func trashedReminder(inv nod.Change, t nod.Task, now time.Time) (held, resumed time.Time) {
	switch {
	case inv.Trashes():
		return nod.HeldReminder(t, now), time.Time{}
	case inv.ExpectsTrashed():
		return time.Time{}, nod.ReminderAhead(t, now)
	}
	return time.Time{}, time.Time{}
}

// rearm keeps an undo from leaving a reminder that never fires: when the
// inverse inv puts a reminder back, or reopens or restores a task that
// has one, and t (the task after it) is open with a reminder whose time
// has passed, that reminder goes out now unless it went out at its time.
// It reports what it found; nothing for a reminder still ahead, which
// fires at its time as ever, nor for one a reopening kept as sent.
func rearm(ctx context.Context, q conn, chatID nod.ChatID, inv nod.Change, t nod.Task, now time.Time) (nod.ReminderBack, error) {
	moved := inv.Touches(nod.FieldReminder)
	if !moved && !inv.Reopens() || t.RemindAt == nil || t.RemindAt.After(now) ||
		t.DeletedAt != nil || t.Status == nod.StatusDone || t.Status == nod.StatusRejected {
		return nod.ReminderBack{}, nil
	}
	at := *t.RemindAt
	sent, err := reminderSent(ctx, q, chatID, t.ID, at, time.Time{})
	if err != nil || sent && !moved {
		return nod.ReminderBack{}, err
	}
	if sent {
		return nod.ReminderBack{At: at, Sent: true}, nil
	}
	if _, err := q.ExecContext(ctx, `UPDATE tasks SET remind_due = $1 WHERE id = $2 AND chat_id = $3`, micros(now), t.ID, chatID); err != nil {
		return nod.ReminderBack{}, fmt.Errorf("send the reminder of task %s now: %w", t.ID, err)
	}
	return nod.ReminderBack{At: at}, nil
}

// reminderSent reports whether the reminder of task taskID at the time at
// was claimed to go out at or after since (ClaimDue owes it then).
func reminderSent(ctx context.Context, q conn, chatID nod.ChatID, taskID nod.TaskID, at, since time.Time) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE chat_id = $1 AND kind = $2 AND ref = $3 AND taken_at >= $4`,
		chatID, string(nod.OwedReminder), reminderRef(taskID, at), micros(since)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("whether the reminder of task %s went out: %w", taskID, err)
	}
	return n > 0, nil
}

// reminderRef names the reminder of task taskID at the time at in the
// outbox: each time a task's reminder goes out once.
func reminderRef(taskID nod.TaskID, at time.Time) string {
	return fmt.Sprintf("%s@%d", taskID, micros(at))
}

// touched names what a change sets, for its audit row.
func touched(c nod.Change) []string {
	out := []string{}
	for _, f := range c.Fields {
		out = append(out, string(f.Field))
	}
	for _, it := range c.Items {
		out = append(out, "checklist:"+string(it.ID()))
	}
	return out
}

func getUndo(ctx context.Context, q conn, chatID nod.ChatID, id nod.UndoID) (nod.UndoEntry, error) {
	var (
		u                nod.UndoEntry
		delta, title     sql.NullString
		created, expires int64
		undone           sql.NullInt64
		auto, undoneNow  int
		redoes           int
	)
	err := q.QueryRowContext(ctx, `SELECT u.id, u.chat_id, u.thread, u.user_id, u.task_id, u.tool, u.summary, u.delta, u.reverts, u.root,
		u.created_at, u.expires_at, u.undone_at, u.undone_now, u.auto, u.redoes, t.title
		FROM undo_entries u LEFT JOIN tasks t ON t.id = u.task_id WHERE u.id = $1 AND u.chat_id = $2`, id, chatID).
		Scan(&u.ID, &u.ChatID, &u.Thread, &u.UserID, &u.TaskID, &u.Tool, &u.Summary, &delta, &u.Reverts, &u.Root,
			&created, &expires, &undone, &undoneNow, &auto, &redoes, &title)
	if noRows(err) {
		return u, fmt.Errorf("undo entry %s: %w", id, nod.ErrNotFound)
	}
	if err != nil {
		return u, fmt.Errorf("undo entry %s: %w", id, err)
	}
	u.Title = title.String
	if !delta.Valid {
		return u, fmt.Errorf("undo entry %s records no change", id)
	}
	if u.Change, err = decodeChange(u.TaskID, delta.String); err != nil {
		return u, err
	}
	u.CreatedAt, u.ExpiresAt, u.UndoneAt, u.Auto, u.UndoneNow, u.Redoes = fromMicros(created), fromMicros(expires), timePtr(undone), auto != 0, undoneNow != 0, redoes != 0
	return u, nil
}

// UndoneSince returns the chat's changes that were undone at or after
// since and are undone now (not redone since; not the undos of undos),
// newest undo first.
func (db *Undo) UndoneSince(ctx context.Context, chatID nod.ChatID, since time.Time) ([]nod.UndoEntry, error) {
	ids, err := queryIDs[nod.UndoID](ctx, db.reader(), `SELECT id FROM undo_entries WHERE chat_id = $1 AND undone_at >= $2 AND reverts = '' AND undone_now = 1 ORDER BY undone_at DESC, seq DESC LIMIT 50`,
		chatID, micros(since))
	if err != nil {
		return nil, fmt.Errorf("undone changes: %w", err)
	}
	out := make([]nod.UndoEntry, 0, len(ids))
	for _, id := range ids {
		u, err := getUndo(ctx, db.reader(), chatID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// AutoUndosSince counts userID's auto-applied changes in the chat undone
// at or after since and undone now: what the circuit breaker watches. A
// change the person put back with Redo was wanted after all.
func (db *Undo) AutoUndosSince(ctx context.Context, chatID nod.ChatID, userID nod.UserID, since time.Time) (int, error) {
	var n int
	err := db.reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM undo_entries WHERE chat_id = $1 AND user_id = $2 AND auto = 1 AND undone_at >= $3 AND undone_now = 1`, chatID, userID, micros(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count undos: %w", err)
	}
	return n, nil
}
