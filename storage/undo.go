package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

func insertUndo(ctx context.Context, q querier, u nod.UndoEntry) error {
	before, err := marshalTask(u.Before)
	if err != nil {
		return err
	}
	after, err := marshalTask(u.After)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO undo_entries (id, chat_id, user_id, task_id, tool, summary, before, after, created_at, expires_at, auto) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
		u.ID, u.ChatID, u.UserID, u.TaskID, u.Tool, u.Summary, before, after, micros(u.CreatedAt), micros(u.ExpiresAt), boolInt(u.Auto))
	if err != nil {
		return fmt.Errorf("record undo entry: %w", err)
	}
	return nil
}

// UndoEntry returns undo entry id of the chat.
func (db *DB) UndoEntry(ctx context.Context, chatID int64, id string) (nod.UndoEntry, error) {
	return getUndo(ctx, db.db, chatID, id)
}

// LatestUndo returns the chat's newest undo entry that is neither undone
// nor expired, or nod.ErrNotFound.
func (db *DB) LatestUndo(ctx context.Context, chatID int64) (nod.UndoEntry, error) {
	var id string
	err := db.db.QueryRowContext(ctx, `SELECT id FROM undo_entries WHERE chat_id = $1 AND undone_at IS NULL AND expires_at > $2 ORDER BY seq DESC LIMIT 1`,
		chatID, micros(db.now())).Scan(&id)
	if noRows(err) {
		return nod.UndoEntry{}, fmt.Errorf("nothing to undo: %w", nod.ErrNotFound)
	}
	if err != nil {
		return nod.UndoEntry{}, fmt.Errorf("latest undo: %w", err)
	}
	return db.UndoEntry(ctx, chatID, id)
}

// Undo reverts undo entry id for userID: the task goes back to its before
// state (a created task goes to the trash), the entry is marked undone, an
// audit row is written and a new entry makes the undo itself undoable, in
// one transaction. Unless force is set, it refuses with nod.ErrStale when
// the task no longer looks as the change left it; other errors wrap
// nod.ErrNotFound, nod.ErrDecided (already undone) or nod.ErrExpired.
func (db *DB) Undo(ctx context.Context, chatID int64, id string, userID int64, force bool) (nod.UndoEntry, error) {
	var redo nod.UndoEntry
	now := db.now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		u, err := getUndo(ctx, tx, chatID, id)
		if err != nil {
			return err
		}
		switch {
		case u.UndoneAt != nil:
			return fmt.Errorf("undo %s: %w", id, nod.ErrDecided)
		case !now.Before(u.ExpiresAt):
			return fmt.Errorf("undo %s: %w", id, nod.ErrExpired)
		}
		cur, err := getTask(ctx, tx, chatID, u.TaskID)
		if err != nil {
			return err
		}
		if !force && (u.After == nil || !cur.SameContent(*u.After)) {
			return fmt.Errorf("undo %s: task %q: %w", id, cur.Title, nod.ErrStale)
		}
		var restored nod.Task
		if u.Before != nil {
			restored = u.Before.Clone()
		} else {
			restored = cur.Clone()
			restored.DeletedAt = &now
		}
		restored.UpdatedAt = now
		if err := saveTask(ctx, tx, restored); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE undo_entries SET undone_at = $1 WHERE id = $2 AND undone_at IS NULL`, micros(now), id)
		if err != nil {
			return fmt.Errorf("mark undo %s: %w", id, err)
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return fmt.Errorf("undo %s: %w", id, nod.ErrDecided)
		}
		args, _ := json.Marshal(map[string]string{"undo_id": id, "task_id": u.TaskID, "tool": u.Tool})
		if err := db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: u.Tool, Args: args, Outcome: nod.OutcomeUndone, UserConfirmed: true, At: now}); err != nil {
			return err
		}
		curCopy := cur
		redo = nod.UndoEntry{
			ID: nod.NewID(), ChatID: chatID, UserID: userID, TaskID: u.TaskID, Tool: u.Tool, Summary: "Undo: " + u.Summary,
			Before: &curCopy, After: &restored, CreatedAt: now, ExpiresAt: now.Add(db.opts.UndoWindow),
		}
		return insertUndo(ctx, tx, redo)
	})
	return redo, err
}

func getUndo(ctx context.Context, q querier, chatID int64, id string) (nod.UndoEntry, error) {
	var (
		u                nod.UndoEntry
		before, after    sql.NullString
		created, expires int64
		undone           sql.NullInt64
		auto             int
	)
	err := q.QueryRowContext(ctx, `SELECT id, chat_id, user_id, task_id, tool, summary, before, after, created_at, expires_at, undone_at, auto FROM undo_entries WHERE id = $1 AND chat_id = $2`, id, chatID).
		Scan(&u.ID, &u.ChatID, &u.UserID, &u.TaskID, &u.Tool, &u.Summary, &before, &after, &created, &expires, &undone, &auto)
	if noRows(err) {
		return u, fmt.Errorf("undo entry %s: %w", id, nod.ErrNotFound)
	}
	if err != nil {
		return u, fmt.Errorf("undo entry %s: %w", id, err)
	}
	if u.Before, err = unmarshalTask(before); err != nil {
		return u, err
	}
	if u.After, err = unmarshalTask(after); err != nil {
		return u, err
	}
	u.CreatedAt, u.ExpiresAt, u.UndoneAt, u.Auto = fromMicros(created), fromMicros(expires), timePtr(undone), auto != 0
	return u, nil
}

func marshalTask(t *nod.Task) (sql.NullString, error) {
	if t == nil {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(t)
	if err != nil {
		return sql.NullString{}, fmt.Errorf("snapshot task: %w", err)
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}

func unmarshalTask(s sql.NullString) (*nod.Task, error) {
	if !s.Valid {
		return nil, nil
	}
	var t nod.Task
	if err := json.Unmarshal([]byte(s.String), &t); err != nil {
		return nil, fmt.Errorf("read task snapshot: %w", err)
	}
	return &t, nil
}

// AutoUndosSince counts the chat's undone auto-applied changes undone at
// or after since: what the circuit breaker watches.
func (db *DB) AutoUndosSince(ctx context.Context, chatID int64, since time.Time) (int, error) {
	var n int
	err := db.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM undo_entries WHERE chat_id = $1 AND auto = 1 AND undone_at >= $2`, chatID, micros(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count undos: %w", err)
	}
	return n, nil
}
