package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// Trash returns the chat's tasks in the trash, newest deletion first.
func (db *DB) Trash(ctx context.Context, chatID int64) ([]nod.Task, error) {
	rows, err := db.reader().QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks WHERE chat_id = $1 AND deleted_at IS NOT NULL ORDER BY deleted_at DESC, seq`, chatID)
	if err != nil {
		return nil, fmt.Errorf("trash: %w", err)
	}
	tasks, err := scanTasks(rows)
	if err != nil {
		return nil, fmt.Errorf("trash: %w", err)
	}
	if err := loadChecklists(ctx, db.reader(), tasks); err != nil {
		return nil, fmt.Errorf("trash: %w", err)
	}
	return tasks, nil
}

// PurgeTrash deletes for good the tasks trashed before cutoff, with their
// checklists, and returns how many.
func (db *DB) PurgeTrash(ctx context.Context, cutoff time.Time) (int, error) {
	var n int64
	err := db.inTx(ctx, func(tx conn) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM checklist_items WHERE task_id IN (SELECT id FROM tasks WHERE deleted_at < $1)`, micros(cutoff)); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM tasks WHERE deleted_at < $1`, micros(cutoff))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("purge trash: %w", err)
	}
	return int(n), nil
}

// KeepDeletion puts a taken deletion back to wait for another answer, as
// it was (its expiry unchanged).
func (db *DB) KeepDeletion(ctx context.Context, d nod.PendingDeletion) error {
	now := db.now()
	return db.inTx(ctx, func(tx conn) error { return savePendingDeletion(ctx, tx, d, now) })
}

func savePendingDeletion(ctx context.Context, q conn, d nod.PendingDeletion, now time.Time) error {
	_, err := q.ExecContext(ctx, `INSERT INTO pending_deletions (chat_id, user_id, task_id, title, created_at, expires_at, message_id) VALUES ($1,$2,$3,$4,$5,$6,$7)
		ON CONFLICT (chat_id) DO UPDATE SET user_id = excluded.user_id, task_id = excluded.task_id, title = excluded.title,
		created_at = excluded.created_at, expires_at = excluded.expires_at, message_id = excluded.message_id`,
		d.ChatID, d.UserID, d.TaskID, d.Title, micros(now), micros(d.ExpiresAt), d.MessageID)
	if err != nil {
		return fmt.Errorf("save pending deletion: %w", err)
	}
	return nil
}

// TakeDeletion removes and returns the chat's pending deletion if user
// asked for it and it has not expired; ok is false when there is none to
// answer. Exactly one caller takes it.
func (db *DB) TakeDeletion(ctx context.Context, chatID, userID int64) (nod.PendingDeletion, bool, error) {
	d := nod.PendingDeletion{ChatID: chatID}
	var expires int64
	err := db.inTx(ctx, func(tx conn) error {
		return tx.QueryRowContext(ctx, `DELETE FROM pending_deletions WHERE chat_id = $1 AND user_id = $2 RETURNING user_id, task_id, title, expires_at, message_id`, chatID, userID).
			Scan(&d.UserID, &d.TaskID, &d.Title, &expires, &d.MessageID)
	})
	if noRows(err) {
		return d, false, nil
	}
	if err != nil {
		return d, false, fmt.Errorf("take deletion: %w", err)
	}
	d.ExpiresAt = fromMicros(expires)
	if !db.now().Before(d.ExpiresAt) {
		return d, false, nil // expired: the message is an ordinary one
	}
	return d, true, nil
}

// SetDeletionMessage records which message asks for the chat's pending
// deletion's title.
func (db *DB) SetDeletionMessage(ctx context.Context, chatID int64, taskID string, msgID int) error {
	if _, err := db.exec(ctx, `UPDATE pending_deletions SET message_id = $1 WHERE chat_id = $2 AND task_id = $3`, msgID, chatID, taskID); err != nil {
		return fmt.Errorf("remember deletion prompt: %w", err)
	}
	return nil
}
