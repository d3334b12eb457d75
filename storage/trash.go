package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// Trash returns the chat's tasks in the trash, newest deletion first.
func (db *Tasks) Trash(ctx context.Context, chatID nod.ChatID) ([]nod.Task, error) {
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
func (db *Tasks) PurgeTrash(ctx context.Context, cutoff time.Time) (int, error) {
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
