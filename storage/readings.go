package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

func insertReading(ctx context.Context, q conn, r nod.Reading, now time.Time) error {
	yes, err := json.Marshal(nonNil(r.Confirm))
	if err != nil {
		return err
	}
	no, err := json.Marshal(nonNil(r.Reject))
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO readings (id, chat_id, user_id, set_id, confirm, reject, reason, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
		r.ID, r.ChatID, r.UserID, r.SetID, string(yes), string(no), r.Reason, micros(now))
	if err != nil {
		return fmt.Errorf("save reading: %w", err)
	}
	return nil
}

func nonNil(ns []int) []int {
	if ns == nil {
		return []int{}
	}
	return ns
}

// TakeReading marks reading id of the chat used by userID and returns it,
// exactly once: nod.ErrNotFound if the chat has no such reading,
// nod.ErrForbidden if it is someone else's, nod.ErrDecided if it was used,
// nod.ErrExpired once ChangeSetTTL has passed since it was shown.
func (db *ChangeSets) TakeReading(ctx context.Context, chatID nod.ChatID, id string, userID nod.UserID) (nod.Reading, error) {
	r := nod.Reading{ID: id, ChatID: chatID}
	var (
		yes, no string
		at      int64
		used    sql.NullInt64
	)
	err := db.reader().QueryRowContext(ctx, `SELECT user_id, set_id, confirm, reject, reason, created_at, used_at FROM readings WHERE id = $1 AND chat_id = $2`, id, chatID).
		Scan(&r.UserID, &r.SetID, &yes, &no, &r.Reason, &at, &used)
	switch {
	case noRows(err):
		return r, fmt.Errorf("reading %s: %w", id, nod.ErrNotFound)
	case err != nil:
		return r, fmt.Errorf("reading %s: %w", id, err)
	case r.UserID != userID:
		return r, fmt.Errorf("reading %s is user %d's: %w", id, r.UserID, nod.ErrForbidden)
	case used.Valid:
		return r, fmt.Errorf("reading %s was used: %w", id, nod.ErrDecided)
	case !db.now().Before(fromMicros(at).Add(db.opts.ChangeSetTTL)):
		// It lives as long as the proposals it answers.
		return r, fmt.Errorf("reading %s: %w", id, nod.ErrExpired)
	}
	res, err := db.exec(ctx, `UPDATE readings SET used_at = $1 WHERE id = $2 AND used_at IS NULL`, micros(db.now()), id)
	if err != nil {
		return r, fmt.Errorf("take reading %s: %w", id, err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return r, fmt.Errorf("reading %s was used: %w", id, nod.ErrDecided)
	}
	if err := json.Unmarshal([]byte(yes), &r.Confirm); err != nil {
		return r, fmt.Errorf("reading %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(no), &r.Reject); err != nil {
		return r, fmt.Errorf("reading %s: %w", id, err)
	}
	r.At = fromMicros(at)
	return r, nil
}
