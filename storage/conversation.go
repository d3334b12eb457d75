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

// SaveTurn stores the turn's messages, audit rows and change set; the set
// gets its id and item numbers.
func (db *DB) SaveTurn(ctx context.Context, t nod.TurnRecord) error {
	now := db.now()
	return db.inTx(ctx, func(tx *sql.Tx) error {
		for _, m := range t.Messages {
			if m.At.IsZero() {
				m.At = now
			}
			m.At = nod.Stamp(m.At) // as created_at keeps it: quotes are compared with checked_at

			body, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("save message: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO messages (chat_id, body, created_at) VALUES ($1,$2,$3)`, t.ChatID, string(body), micros(m.At)); err != nil {
				return fmt.Errorf("save message: %w", err)
			}
		}
		for _, a := range t.Audit {
			a.ChatID = t.ChatID
			if a.At.IsZero() {
				a.At = now
			}
			if err := db.insertAudit(ctx, tx, a); err != nil {
				return err
			}
		}
		for _, ref := range t.Supersede {
			if err := supersede(ctx, tx, t.ChatID, ref, now); err != nil {
				return err
			}
		}
		if t.Deletion != nil {
			if err := savePendingDeletion(ctx, tx, *t.Deletion, now); err != nil {
				return err
			}
		}
		for _, r := range t.Readings {
			if err := insertReading(ctx, tx, r, now); err != nil {
				return err
			}
		}
		if t.Set != nil && len(t.Set.Items) > 0 {
			t.Set.ChatID, t.Set.UserID = t.ChatID, t.UserID
			if err := db.insertSet(ctx, tx, t.Set, now); err != nil {
				return err
			}
			return db.owe(ctx, tx, nod.Owed{ChatID: t.ChatID, Kind: nod.OwedSet, Ref: t.Set.ID}, now)
		}
		return nil
	})
}

// History returns up to limit of the chat's latest messages, oldest first.
func (db *DB) History(ctx context.Context, chatID int64, limit int) ([]nod.ChatMessage, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT body FROM messages WHERE chat_id = $1 ORDER BY id DESC LIMIT $2`, chatID, limit)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []nod.ChatMessage
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		var m nod.ChatMessage
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// MarkUpdate records that update id is being handled. It returns false when
// the update was seen before (a redelivery), in which case it must be
// ignored.
func (db *DB) MarkUpdate(ctx context.Context, id int64) (bool, error) {
	res, err := db.db.ExecContext(ctx, `INSERT INTO processed_updates (update_id, created_at) VALUES ($1, $2) ON CONFLICT (update_id) DO NOTHING`, id, micros(db.now()))
	if err != nil {
		return false, fmt.Errorf("mark update %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// LastUpdateID returns the highest update id handled, or 0.
func (db *DB) LastUpdateID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := db.db.QueryRowContext(ctx, `SELECT MAX(update_id) FROM processed_updates`).Scan(&id); err != nil {
		return 0, fmt.Errorf("last update: %w", err)
	}
	return id.Int64, nil
}

// supersede closes a pending item replaced by a newer proposal; an item
// decided meanwhile is left as it is.
func supersede(ctx context.Context, tx *sql.Tx, chatID int64, ref nod.ItemRef, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = 'stale', note = $4
		WHERE set_id = $1 AND n = $2 AND status = 'pending' AND set_id IN (SELECT id FROM change_sets WHERE chat_id = $3)`, ref.SetID, ref.N, chatID, nod.Note{Key: nod.NoteSuperseded}.String())
	if err != nil {
		return fmt.Errorf("supersede item %d of %s: %w", ref.N, ref.SetID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	set, err := loadSet(ctx, tx, ref.SetID)
	if err != nil {
		return err
	}
	set.Status = "" // recompute
	return updateSetStatus(ctx, tx, &set, now)
}
