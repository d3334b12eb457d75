package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/nodbot/nod"
)

// Events returns what happened in the chat after since outside the
// conversation with the agent, oldest first: decisions on proposals,
// undos and redos, deletions and restores, ticks on task cards and mode
// changes.
func (db *DB) Events(ctx context.Context, chatID int64, since time.Time) ([]nod.Event, error) {
	var out []nod.Event
	add := func(query string, scan func(*sql.Rows) (nod.Event, error)) error {
		rows, err := db.db.QueryContext(ctx, query, chatID, micros(since))
		if err != nil {
			return fmt.Errorf("events: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scan(rows)
			if err != nil {
				return fmt.Errorf("events: %w", err)
			}
			out = append(out, e)
		}
		return rows.Err()
	}
	err := add(`SELECT d.verdict, d.summary, d.reason, d.created_at, COALESCE(t.title, '') FROM decisions d
		LEFT JOIN change_items i ON i.id = d.item_id LEFT JOIN tasks t ON t.id = i.task_id
		WHERE d.chat_id = $1 AND d.created_at > $2`, func(r *sql.Rows) (nod.Event, error) {
		var (
			e       nod.Event
			verdict string
			at      int64
		)
		err := r.Scan(&verdict, &e.Summary, &e.Reason, &at, &e.Task)
		e.Kind, e.At = nod.EventConfirmed, fromMicros(at)
		if verdict == string(nod.Rejected) {
			e.Kind = nod.EventRejected
		}
		return e, err
	})
	if err != nil {
		return nil, err
	}
	err = add(`SELECT u.summary, u.reverts, u.undone_at, COALESCE(t.title, '') FROM undo_entries u LEFT JOIN tasks t ON t.id = u.task_id
		WHERE u.chat_id = $1 AND u.undone_at > $2`, func(r *sql.Rows) (nod.Event, error) {
		var (
			e       nod.Event
			reverts string
			at      int64
		)
		err := r.Scan(&e.Summary, &reverts, &at, &e.Task)
		e.Kind, e.At = nod.EventUndone, fromMicros(at)
		if reverts != "" {
			e.Kind = nod.EventRedone // the undo of an undo
		}
		return e, err
	})
	if err != nil {
		return nil, err
	}
	titles := map[string]nod.Task{}
	task := func(id string) nod.Task {
		if t, ok := titles[id]; ok {
			return t
		}
		t, _ := getTask(ctx, db.db, chatID, id) // a purged task has no title left
		titles[id] = t
		return t
	}
	err = add(`SELECT tool, args, reason, created_at FROM audit_log WHERE chat_id = $1 AND created_at > $2
		AND outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode')`, func(r *sql.Rows) (nod.Event, error) {
		var (
			e          nod.Event
			tool, args string
			at         int64
		)
		err := r.Scan(&tool, &args, &e.Reason, &at)
		e.At = fromMicros(at)
		var a struct {
			TaskID  string `json:"task_id"`
			ItemID  string `json:"id"`
			Mode    string `json:"mode"`
			Checked *bool  `json:"isChecked"`
		}
		json.Unmarshal([]byte(args), &a)
		if a.TaskID != "" {
			e.Task = task(a.TaskID).Title
		}
		switch tool {
		case "delete_task":
			e.Kind = nod.EventDeleted
		case "restore_task":
			e.Kind = nod.EventRestored
		case "toggle_checklist_item":
			e.Kind = nod.EventUnticked
			if a.Checked != nil && *a.Checked {
				e.Kind = nod.EventTicked
			}
			t := task(a.TaskID)
			if it, ok := t.Item(a.ItemID); ok {
				e.Value = it.Title
			}
		case "mode":
			e.Kind, e.Value = nod.EventMode, a.Mode
		}
		return e, err
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b nod.Event) int { return a.At.Compare(b.At) })
	return out, nil
}
