package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// ExpireSets marks open sets whose time is up at now expired and returns
// them, so that their messages can say so. Each set is expired by one
// caller only, however many replicas sweep at once.
func (db *ChangeSets) ExpireSets(ctx context.Context, now time.Time) ([]nod.ChangeSet, error) {
	// A set whose message is not recorded yet is being shown right now: it
	// waits for the next sweep, unless its message never went out.
	ids, err := queryIDs[nod.SetID](ctx, db.reader(), `SELECT id FROM change_sets WHERE status IN ('pending', 'partially_resolved') AND expires_at <= $1
		AND (message_id <> 0 OR expires_at <= $2)`, micros(now), micros(now.Add(-time.Hour)))
	if err != nil {
		return nil, fmt.Errorf("expire sets: %w", err)
	}
	var out []nod.ChangeSet
	for _, id := range ids {
		res, err := db.exec(ctx, `UPDATE change_sets SET status = 'expired' WHERE id = $1 AND status IN ('pending', 'partially_resolved')`, id)
		if err != nil {
			return out, fmt.Errorf("expire set %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue // another replica got it
		}
		set, err := loadSet(ctx, db.reader(), id)
		if err != nil {
			return out, err
		}
		out = append(out, set)
	}
	return out, nil
}

// Repropose closes the pending items of expired set oldID as re-proposed
// and opens a new set of items for userID, in one transaction: exactly one
// of concurrent re-proposals wins, the others get nod.ErrDecided. With no
// items, the old set is closed and no new set opened.
func (db *ChangeSets) Repropose(ctx context.Context, chatID nod.ChatID, oldID nod.SetID, userID nod.UserID, items []nod.ChangeItem) (*nod.ChangeSet, error) {
	var fresh *nod.ChangeSet
	now := db.now()
	err := db.inTx(ctx, func(tx conn) error {
		// The chat's lock before any row's, as every writer takes them.
		if err := db.lockChat(ctx, tx, chatID); err != nil {
			return err
		}
		old, err := chatSet(ctx, tx, chatID, oldID)
		if err != nil {
			return err
		}
		if old.Status != nod.SetExpired {
			return fmt.Errorf("change set %s has not expired: %w", oldID, nod.ErrInvalid)
		}
		res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = 'stale', note = $2 WHERE set_id = $1 AND status = 'pending'`, oldID, encodeNote(nod.Note{Key: nod.NoteReproposed}))
		if err != nil {
			return fmt.Errorf("re-propose %s: %w", oldID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("change set %s was re-proposed already: %w", oldID, nod.ErrDecided)
		}
		if len(items) == 0 {
			return nil
		}
		fresh = &nod.ChangeSet{Topic: nod.Topic{ChatID: chatID, Thread: old.Thread}, UserID: userID, Items: items} // where the old one was
		return db.insertSet(ctx, tx, fresh, now)
	})
	return fresh, err
}

// WarnSets marks open sets that expire before soon as warned and returns
// them, each once, so that their messages can say so.
func (db *ChangeSets) WarnSets(ctx context.Context, now time.Time, before func(nod.ChangeSet) time.Time) ([]nod.ChangeSet, error) {
	ids, err := queryIDs[nod.SetID](ctx, db.reader(), `SELECT id FROM change_sets WHERE status IN ('pending', 'partially_resolved') AND warned = 0 AND message_id <> 0 AND expires_at > $1`, micros(now))
	if err != nil {
		return nil, fmt.Errorf("warn sets: %w", err)
	}
	var out []nod.ChangeSet
	for _, id := range ids {
		set, err := loadSet(ctx, db.reader(), id)
		if err != nil {
			return out, err
		}
		if now.Before(before(set)) {
			continue
		}
		res, err := db.exec(ctx, `UPDATE change_sets SET warned = 1 WHERE id = $1 AND warned = 0`, id)
		if err != nil {
			return out, fmt.Errorf("warn set %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			set.Warned = true
			out = append(out, set)
		}
	}
	return out, nil
}

// KeepSet gives an open set another ChangeSetTTL from now, for a person
// who may decide it: nod.ErrForbidden if they may not, nod.ErrExpired if
// it is not open.
func (db *ChangeSets) KeepSet(ctx context.Context, chatID nod.ChatID, id nod.SetID, userID nod.UserID) (nod.ChangeSet, error) {
	now := db.now()
	res, err := db.exec(ctx, `UPDATE change_sets SET expires_at = $1, warned = 0 WHERE id = $2 AND chat_id = $3 AND status IN ('pending', 'partially_resolved') AND expires_at > $4
		AND (user_id = 0 OR user_id = $5)`,
		micros(now.Add(db.opts.ChangeSetTTL)), id, chatID, micros(now), userID)
	if err != nil {
		return nod.ChangeSet{}, fmt.Errorf("keep set %s: %w", id, err)
	}
	set, err := db.ChangeSet(ctx, chatID, id)
	if n, _ := res.RowsAffected(); n == 1 || err != nil {
		return set, err
	}
	if !set.DecidableBy(userID) {
		return set, fmt.Errorf("change set %s belongs to user %d: %w", id, set.UserID, nod.ErrForbidden)
	}
	return set, fmt.Errorf("change set %s is not open: %w", id, nod.ErrExpired)
}
