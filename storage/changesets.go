package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// ConfirmItem confirms item n of change set setID for userID and applies
// mutate to its task; the item and set status, the decision, the audit row,
// the task and its undo entry are written in one transaction, or nothing is.
// Errors wrap nod.ErrNotFound (no such set in the chat, or no item n),
// nod.ErrExpired, nod.ErrDecided (the item is no longer pending; the
// returned set shows its state) or the mutation's error.
func (db *DB) ConfirmItem(ctx context.Context, chatID int64, setID string, n int, userID int64, mutate nod.Mutate) (nod.ChangeSet, nod.Applied, error) {
	var (
		set     nod.ChangeSet
		applied nod.Applied
	)
	now := db.now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if set, err = claimItem(ctx, tx, chatID, setID, n, nod.ItemConfirmed, ""); err != nil {
			return err
		}
		it, _ := set.Item(n)
		applied, err = db.applyTx(ctx, tx, now, nod.Edit{
			ChatID: chatID, UserID: userID, TaskID: it.TaskID, Tool: it.Tool, Args: it.Args,
			Summary: it.Summary, Mutate: mutate,
			Audit: nod.AuditEntry{Outcome: nod.OutcomeConfirmed, UserConfirmed: true, Reason: argReason(it.Args)},
		})
		if err != nil {
			return err
		}
		it.UndoID = applied.Undo.ID
		if _, err := tx.ExecContext(ctx, `UPDATE change_items SET undo_id = $1 WHERE id = $2`, it.UndoID, it.ID); err != nil {
			return fmt.Errorf("link undo entry: %w", err)
		}
		if err := insertDecision(ctx, tx, set, *it, userID, nod.Confirmed, now); err != nil {
			return err
		}
		return updateSetStatus(ctx, tx, &set, now)
	})
	if err != nil {
		return db.afterFailedClaim(ctx, chatID, setID, set, err), nod.Applied{}, err
	}
	return set, applied, nil
}

// afterFailedClaim is the set to report when a decision's transaction
// failed: as stored now. A claim that lost a race read the set before the
// winner committed; a rolled-back mutation changed nothing of it.
func (db *DB) afterFailedClaim(ctx context.Context, chatID int64, setID string, set nod.ChangeSet, err error) nod.ChangeSet {
	if set.ID == "" || (isClaimErr(err) && !errors.Is(err, nod.ErrDecided)) {
		return set
	}
	if now, rerr := db.ChangeSet(ctx, chatID, setID); rerr == nil {
		return now
	}
	return set
}

// RejectItem rejects item n of change set setID for userID: the item and set
// status, the decision and the audit row are written in one transaction.
// Errors are those of ConfirmItem.
func (db *DB) RejectItem(ctx context.Context, chatID int64, setID string, n int, userID int64) (nod.ChangeSet, error) {
	var set nod.ChangeSet
	now := db.now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if set, err = claimItem(ctx, tx, chatID, setID, n, nod.ItemRejected, ""); err != nil {
			return err
		}
		it, _ := set.Item(n)
		if err := insertDecision(ctx, tx, set, *it, userID, nod.Rejected, now); err != nil {
			return err
		}
		if err := db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: it.Tool, Args: it.Args, Outcome: nod.OutcomeRejected, At: now}); err != nil {
			return err
		}
		return updateSetStatus(ctx, tx, &set, now)
	})
	if err != nil {
		set = db.afterFailedClaim(ctx, chatID, setID, set, err)
	}
	return set, err
}

// FailItem marks pending item n as stale or failed with a note for the
// person, and audits it as failed, in one transaction. Errors are those of
// ConfirmItem.
func (db *DB) FailItem(ctx context.Context, chatID int64, setID string, n int, userID int64, status nod.ItemStatus, note string) (nod.ChangeSet, error) {
	var set nod.ChangeSet
	now := db.now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if set, err = claimItem(ctx, tx, chatID, setID, n, status, note); err != nil {
			return err
		}
		it, _ := set.Item(n)
		if err := db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: it.Tool, Args: it.Args, Outcome: nod.OutcomeFailed, Error: note, At: now}); err != nil {
			return err
		}
		return updateSetStatus(ctx, tx, &set, now)
	})
	if err != nil {
		set = db.afterFailedClaim(ctx, chatID, setID, set, err)
	}
	return set, err
}

type claimError struct{ err error }

func (e claimError) Error() string { return e.err.Error() }
func (e claimError) Unwrap() error { return e.err }

func isClaimErr(err error) bool {
	_, ok := err.(claimError)
	return ok
}

// claimItem moves a pending item to status, exactly once: of concurrent
// claims (double taps, redelivered updates, replicas) one wins and the
// others get nod.ErrDecided. It returns the set with the item updated.
func claimItem(ctx context.Context, tx *sql.Tx, chatID int64, setID string, n int, status nod.ItemStatus, note string) (nod.ChangeSet, error) {
	set, err := loadSet(ctx, tx, setID)
	if err != nil || set.ChatID != chatID {
		return nod.ChangeSet{}, claimError{fmt.Errorf("change set %s: %w", setID, nod.ErrNotFound)}
	}
	it, ok := set.Item(n)
	if !ok {
		return set, claimError{fmt.Errorf("change set %s item %d: %w", setID, n, nod.ErrNotFound)}
	}
	if set.Status == nod.SetExpired {
		return set, claimError{fmt.Errorf("change set %s: %w", setID, nod.ErrExpired)}
	}
	res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = $1, note = $2 WHERE set_id = $3 AND n = $4 AND status = 'pending'`, string(status), note, setID, n)
	if err != nil {
		return set, fmt.Errorf("claim item %d of %s: %w", n, setID, err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return set, claimError{fmt.Errorf("change set %s item %d is %s: %w", setID, n, it.Status, nod.ErrDecided)}
	}
	it.Status, it.Note = status, note
	return set, nil
}

func updateSetStatus(ctx context.Context, tx *sql.Tx, set *nod.ChangeSet, now time.Time) error {
	st := set.DeriveStatus()
	if st == set.Status {
		return nil
	}
	set.Status = st
	var resolved sql.NullInt64
	if st == nod.SetResolved {
		set.ResolvedAt = &now
		resolved = nullMicros(&now)
	}
	_, err := tx.ExecContext(ctx, `UPDATE change_sets SET status = $1, resolved_at = $2 WHERE id = $3`, string(st), resolved, set.ID)
	if err != nil {
		return fmt.Errorf("update change set %s: %w", set.ID, err)
	}
	return nil
}

func insertDecision(ctx context.Context, tx *sql.Tx, set nod.ChangeSet, it nod.ChangeItem, userID int64, v nod.Verdict, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO decisions (id, chat_id, set_id, item_id, n, user_id, verdict, tool, summary, kind, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
		nod.NewID(), set.ChatID, set.ID, it.ID, it.N, userID, string(v), it.Tool, it.Summary, nod.KindOf(it.Tool, it.Field, it.After), micros(now))
	if err != nil {
		return fmt.Errorf("record decision: %w", err)
	}
	return nil
}

// applyTx applies c inside tx: the task, its audit row and its undo entry.
func (db *DB) applyTx(ctx context.Context, tx *sql.Tx, now time.Time, c nod.Edit) (nod.Applied, error) {
	var before *nod.Task
	if c.TaskID != "" {
		t, err := getTask(ctx, tx, c.ChatID, c.TaskID)
		if err != nil {
			return nod.Applied{}, err
		}
		if t.DeletedAt != nil && !c.Trashed {
			return nod.Applied{}, fmt.Errorf("task %q is in the trash: %w", t.Title, nod.ErrNotFound)
		}
		before = &t
	}
	var cur *nod.Task
	if before != nil {
		c := before.Clone()
		cur = &c
	}
	after, err := c.Mutate(cur)
	if err != nil {
		return nod.Applied{}, err
	}
	after.ChatID = c.ChatID
	if before != nil {
		after.ID, after.CreatedAt = before.ID, before.CreatedAt
	} else {
		after.CreatedAt = now
	}
	after.UpdatedAt = now
	if err := after.Validate(); err != nil {
		return nod.Applied{}, err
	}
	if err := saveTask(ctx, tx, after); err != nil {
		return nod.Applied{}, err
	}
	a := c.Audit
	a.ChatID, a.UserID, a.Tool, a.Args, a.At = c.ChatID, c.UserID, c.Tool, c.Args, now
	if err := db.insertAudit(ctx, tx, a); err != nil {
		return nod.Applied{}, err
	}
	u := nod.UndoEntry{
		ID: nod.NewID(), ChatID: c.ChatID, UserID: c.UserID, TaskID: after.ID, Tool: c.Tool, Summary: c.Summary,
		Before: before, After: &after, CreatedAt: now, ExpiresAt: now.Add(db.opts.UndoWindow), Auto: c.Auto,
	}
	if err := insertUndo(ctx, tx, u); err != nil {
		return nod.Applied{}, err
	}
	return nod.Applied{Before: before, After: after, Undo: u}, nil
}

// ChangeSet returns change set id of the chat with its items.
func (db *DB) ChangeSet(ctx context.Context, chatID int64, id string) (nod.ChangeSet, error) {
	set, err := loadSet(ctx, db.db, id)
	if err != nil {
		return nod.ChangeSet{}, err
	}
	if set.ChatID != chatID {
		return nod.ChangeSet{}, fmt.Errorf("change set %s: %w", id, nod.ErrNotFound)
	}
	return set, nil
}

// OpenChangeSets returns the chat's pending and partially resolved sets,
// newest first.
func (db *DB) OpenChangeSets(ctx context.Context, chatID int64) ([]nod.ChangeSet, error) {
	ids, err := queryIDs(ctx, db.db, `SELECT id FROM change_sets WHERE chat_id = $1 AND status IN ('pending', 'partially_resolved') ORDER BY seq DESC`, chatID)
	if err != nil {
		return nil, fmt.Errorf("open change sets: %w", err)
	}
	sets := make([]nod.ChangeSet, 0, len(ids))
	for _, id := range ids {
		s, err := loadSet(ctx, db.db, id)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// SetMessageID records which Telegram message shows the set.
func (db *DB) SetMessageID(ctx context.Context, setID string, messageID int) error {
	if _, err := db.db.ExecContext(ctx, `UPDATE change_sets SET message_id = $1 WHERE id = $2`, messageID, setID); err != nil {
		return fmt.Errorf("set message of change set %s: %w", setID, err)
	}
	return nil
}

func loadSet(ctx context.Context, q querier, id string) (nod.ChangeSet, error) {
	var (
		s        nod.ChangeSet
		status   string
		created  int64
		resolved sql.NullInt64
		expires  int64
		warned   int
	)
	err := q.QueryRowContext(ctx, `SELECT id, chat_id, user_id, status, message_id, created_at, resolved_at, expires_at, warned FROM change_sets WHERE id = $1`, id).
		Scan(&s.ID, &s.ChatID, &s.UserID, &status, &s.MessageID, &created, &resolved, &expires, &warned)
	if noRows(err) {
		return s, fmt.Errorf("change set %s: %w", id, nod.ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("change set %s: %w", id, err)
	}
	s.Status, s.CreatedAt, s.ResolvedAt = nod.SetStatus(status), fromMicros(created), timePtr(resolved)
	s.ExpiresAt, s.Warned = fromMicros(expires), warned != 0
	rows, err := q.QueryContext(ctx, `SELECT id, n, tool, task_id, args, summary, field, before, after, status, note, undo_id FROM change_items WHERE set_id = $1 ORDER BY n`, id)
	if err != nil {
		return s, fmt.Errorf("change set %s items: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			it          nod.ChangeItem
			args        string
			field, stat string
		)
		if err := rows.Scan(&it.ID, &it.N, &it.Tool, &it.TaskID, &args, &it.Summary, &field, &it.Before, &it.After, &stat, &it.Note, &it.UndoID); err != nil {
			return s, fmt.Errorf("change set %s items: %w", id, err)
		}
		it.Args, it.Field, it.Status = json.RawMessage(args), nod.Field(field), nod.ItemStatus(stat)
		s.Items = append(s.Items, it)
	}
	return s, rows.Err()
}

func (db *DB) insertSet(ctx context.Context, tx *sql.Tx, s *nod.ChangeSet, now time.Time) error {
	s.ID, s.Status, s.CreatedAt, s.ExpiresAt = nod.NewID(), nod.SetPending, now, now.Add(db.opts.ChangeSetTTL)
	if _, err := tx.ExecContext(ctx, `INSERT INTO change_sets (id, chat_id, user_id, status, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6)`,
		s.ID, s.ChatID, s.UserID, string(s.Status), micros(now), micros(s.ExpiresAt)); err != nil {
		return fmt.Errorf("insert change set: %w", err)
	}
	for i := range s.Items {
		it := &s.Items[i]
		it.ID, it.N, it.Status = nod.NewID(), i+1, nod.ItemPending
		if _, err := tx.ExecContext(ctx, `INSERT INTO change_items (id, set_id, n, tool, task_id, args, summary, field, before, after, status) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
			it.ID, s.ID, it.N, it.Tool, it.TaskID, string(it.Args), it.Summary, string(it.Field), it.Before, it.After, string(it.Status)); err != nil {
			return fmt.Errorf("insert change item %d: %w", it.N, err)
		}
	}
	return nil
}

// Apply applies c at once (an explicit request, a toggle on the task card):
// the task, its audit row and its undo entry in one transaction.
func (db *DB) Apply(ctx context.Context, c nod.Edit) (nod.Applied, error) {
	var applied nod.Applied
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		applied, err = db.applyTx(ctx, tx, db.now(), c)
		return err
	})
	return applied, err
}

// ChangeSetByUndo returns the change set whose item was applied with undo
// entry undoID, or nod.ErrNotFound.
func (db *DB) ChangeSetByUndo(ctx context.Context, chatID int64, undoID string) (nod.ChangeSet, error) {
	var setID string
	err := db.db.QueryRowContext(ctx, `SELECT set_id FROM change_items WHERE undo_id = $1`, undoID).Scan(&setID)
	if noRows(err) {
		return nod.ChangeSet{}, fmt.Errorf("change set of undo %s: %w", undoID, nod.ErrNotFound)
	}
	if err != nil {
		return nod.ChangeSet{}, fmt.Errorf("change set of undo %s: %w", undoID, err)
	}
	return db.ChangeSet(ctx, chatID, setID)
}

// ChangeSetByMessage returns the set shown by message msgID of the chat.
func (db *DB) ChangeSetByMessage(ctx context.Context, chatID int64, msgID int) (nod.ChangeSet, error) {
	var id string
	err := db.db.QueryRowContext(ctx, `SELECT id FROM change_sets WHERE chat_id = $1 AND message_id = $2`, chatID, msgID).Scan(&id)
	if noRows(err) {
		return nod.ChangeSet{}, fmt.Errorf("change set of message %d: %w", msgID, nod.ErrNotFound)
	}
	if err != nil {
		return nod.ChangeSet{}, fmt.Errorf("change set of message %d: %w", msgID, err)
	}
	return db.ChangeSet(ctx, chatID, id)
}

// LatestRejection returns the newest decision on the set if it is a
// rejection, or nod.ErrNotFound.
func (db *DB) LatestRejection(ctx context.Context, setID string) (nod.Decision, error) {
	ds, err := queryDecisions(ctx, db.db, `WHERE set_id = $1 ORDER BY seq DESC LIMIT 1`, setID)
	if err != nil {
		return nod.Decision{}, fmt.Errorf("latest rejection: %w", err)
	}
	if len(ds) == 0 || ds[0].Verdict != nod.Rejected {
		return nod.Decision{}, fmt.Errorf("rejection in set %s: %w", setID, nod.ErrNotFound)
	}
	return ds[0], nil
}

// SetReason stores the reason of a rejection that has none yet; it returns
// nod.ErrDecided if it already has one.
func (db *DB) SetReason(ctx context.Context, decisionID, reason string) error {
	res, err := db.db.ExecContext(ctx, `UPDATE decisions SET reason = $1 WHERE id = $2 AND reason = '' AND verdict = 'rejected'`, reason, decisionID)
	if err != nil {
		return fmt.Errorf("set reason: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("decision %s has a reason: %w", decisionID, nod.ErrDecided)
	}
	return nil
}

// ExpireSets marks open sets whose time is up at now expired and returns
// them, so that their messages can say so. Each set is expired by one
// caller only, however many replicas sweep at once.
func (db *DB) ExpireSets(ctx context.Context, now time.Time) ([]nod.ChangeSet, error) {
	// A set whose message is not recorded yet is being shown right now: it
	// waits for the next sweep, unless its message never went out.
	ids, err := queryIDs(ctx, db.db, `SELECT id FROM change_sets WHERE status IN ('pending', 'partially_resolved') AND expires_at <= $1
		AND (message_id <> 0 OR expires_at <= $2)`, micros(now), micros(now.Add(-time.Hour)))
	if err != nil {
		return nil, fmt.Errorf("expire sets: %w", err)
	}
	var out []nod.ChangeSet
	for _, id := range ids {
		res, err := db.db.ExecContext(ctx, `UPDATE change_sets SET status = 'expired' WHERE id = $1 AND status IN ('pending', 'partially_resolved')`, id)
		if err != nil {
			return out, fmt.Errorf("expire set %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue // another replica got it
		}
		set, err := loadSet(ctx, db.db, id)
		if err != nil {
			return out, err
		}
		out = append(out, set)
	}
	return out, nil
}

// NoteItem sets the note of a pending item (why it waits for a second
// look); nod.ErrDecided if it is no longer pending.
func (db *DB) NoteItem(ctx context.Context, chatID int64, setID string, n int, note string) (nod.ChangeSet, error) {
	res, err := db.db.ExecContext(ctx, `UPDATE change_items SET note = $1 WHERE set_id = $2 AND n = $3 AND status = 'pending'
		AND set_id IN (SELECT id FROM change_sets WHERE chat_id = $4)`, note, setID, n, chatID)
	if err != nil {
		return nod.ChangeSet{}, fmt.Errorf("note item: %w", err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return nod.ChangeSet{}, fmt.Errorf("item %d of %s: %w", n, setID, nod.ErrDecided)
	}
	return db.ChangeSet(ctx, chatID, setID)
}

// ReopenItem makes a failed item pending again, for a retry; its set is
// open again too.
func (db *DB) ReopenItem(ctx context.Context, chatID int64, setID string, n int) (nod.ChangeSet, error) {
	var set nod.ChangeSet
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		s, err := loadSet(ctx, tx, setID)
		if err != nil || s.ChatID != chatID {
			return fmt.Errorf("change set %s: %w", setID, nod.ErrNotFound)
		}
		if s.Status == nod.SetExpired {
			return fmt.Errorf("change set %s: %w", setID, nod.ErrExpired)
		}
		res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = 'pending', note = '' WHERE set_id = $1 AND n = $2 AND status = 'failed'`, setID, n)
		if err != nil {
			return fmt.Errorf("reopen item: %w", err)
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return fmt.Errorf("item %d of %s is not failed: %w", n, setID, nod.ErrDecided)
		}
		it, _ := s.Item(n)
		it.Status, it.Note = nod.ItemPending, ""
		s.ResolvedAt = nil
		if _, err := tx.ExecContext(ctx, `UPDATE change_sets SET resolved_at = NULL WHERE id = $1`, setID); err != nil {
			return err
		}
		s.Status = "" // force a write of the derived status
		set = s
		return updateSetStatus(ctx, tx, &set, db.now())
	})
	return set, err
}

// RecentRejections returns the chat's rejections made at or after since.
func (db *DB) RecentRejections(ctx context.Context, chatID int64, since time.Time) ([]nod.Rejection, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT d.tool, i.task_id, i.args, d.summary, d.reason, d.created_at
		FROM decisions d JOIN change_items i ON i.id = d.item_id
		WHERE d.chat_id = $1 AND d.verdict = 'rejected' AND d.created_at >= $2 ORDER BY d.seq DESC`, chatID, micros(since))
	if err != nil {
		return nil, fmt.Errorf("recent rejections: %w", err)
	}
	defer rows.Close()
	var out []nod.Rejection
	for rows.Next() {
		var (
			r    nod.Rejection
			args string
			at   int64
		)
		if err := rows.Scan(&r.Tool, &r.TaskID, &args, &r.Summary, &r.Reason, &at); err != nil {
			return nil, fmt.Errorf("recent rejections: %w", err)
		}
		r.Args, r.At = json.RawMessage(args), fromMicros(at)
		out = append(out, r)
	}
	return out, rows.Err()
}

// argReason is the "reason" argument of an item (a checklist override),
// kept in the audit row of its confirmation.
func argReason(args json.RawMessage) string {
	var a struct {
		Reason string `json:"reason"`
	}
	json.Unmarshal(args, &a)
	return a.Reason
}

// Repropose closes the pending items of expired set oldID as re-proposed
// and opens a new set of items for userID, in one transaction: exactly one
// of concurrent re-proposals wins, the others get nod.ErrDecided. With no
// items, the old set is closed and no new set opened.
func (db *DB) Repropose(ctx context.Context, chatID int64, oldID string, userID int64, items []nod.ChangeItem) (*nod.ChangeSet, error) {
	var fresh *nod.ChangeSet
	now := db.now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		old, err := loadSet(ctx, tx, oldID)
		if err != nil || old.ChatID != chatID {
			return fmt.Errorf("change set %s: %w", oldID, nod.ErrNotFound)
		}
		if old.Status != nod.SetExpired {
			return fmt.Errorf("change set %s has not expired: %w", oldID, nod.ErrInvalid)
		}
		res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = 'stale', note = $2 WHERE set_id = $1 AND status = 'pending'`, oldID, nod.Note{Key: nod.NoteReproposed}.String())
		if err != nil {
			return fmt.Errorf("re-propose %s: %w", oldID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("change set %s was re-proposed already: %w", oldID, nod.ErrDecided)
		}
		if len(items) == 0 {
			return nil
		}
		fresh = &nod.ChangeSet{ChatID: chatID, UserID: userID, Items: items}
		return db.insertSet(ctx, tx, fresh, now)
	})
	return fresh, err
}

// WarnSets marks open sets that expire before soon as warned and returns
// them, each once, so that their messages can say so.
func (db *DB) WarnSets(ctx context.Context, now time.Time, before func(nod.ChangeSet) time.Time) ([]nod.ChangeSet, error) {
	ids, err := queryIDs(ctx, db.db, `SELECT id FROM change_sets WHERE status IN ('pending', 'partially_resolved') AND warned = 0 AND message_id <> 0 AND expires_at > $1`, micros(now))
	if err != nil {
		return nil, fmt.Errorf("warn sets: %w", err)
	}
	var out []nod.ChangeSet
	for _, id := range ids {
		set, err := loadSet(ctx, db.db, id)
		if err != nil {
			return out, err
		}
		if now.Before(before(set)) {
			continue
		}
		res, err := db.db.ExecContext(ctx, `UPDATE change_sets SET warned = 1 WHERE id = $1 AND warned = 0`, id)
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

// KeepSet gives an open set another ChangeSetTTL from now.
func (db *DB) KeepSet(ctx context.Context, chatID int64, id string) (nod.ChangeSet, error) {
	res, err := db.db.ExecContext(ctx, `UPDATE change_sets SET expires_at = $1, warned = 0 WHERE id = $2 AND chat_id = $3 AND status IN ('pending', 'partially_resolved')`,
		micros(db.now().Add(db.opts.ChangeSetTTL)), id, chatID)
	if err != nil {
		return nod.ChangeSet{}, fmt.Errorf("keep set %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nod.ChangeSet{}, fmt.Errorf("change set %s is not open: %w", id, nod.ErrExpired)
	}
	return db.ChangeSet(ctx, chatID, id)
}

// ReviseItem replaces pending item n of set setID with a revised version
// under the same number, auditing the old version as superseded, in one
// transaction; nod.ErrDecided if the item is no longer pending.
func (db *DB) ReviseItem(ctx context.Context, chatID int64, setID string, n int, userID int64, it nod.ChangeItem) (nod.ChangeSet, error) {
	var set nod.ChangeSet
	now := db.now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		old, err := loadSet(ctx, tx, setID)
		if err != nil || old.ChatID != chatID {
			return fmt.Errorf("change set %s: %w", setID, nod.ErrNotFound)
		}
		prev, ok := old.Item(n)
		if !ok {
			return fmt.Errorf("change set %s item %d: %w", setID, n, nod.ErrNotFound)
		}
		res, err := tx.ExecContext(ctx, `UPDATE change_items SET args = $1, summary = $2, field = $3, before = $4, after = $5, note = ''
			WHERE set_id = $6 AND n = $7 AND status = 'pending'`, string(it.Args), it.Summary, string(it.Field), it.Before, it.After, setID, n)
		if err != nil {
			return fmt.Errorf("revise item %d of %s: %w", n, setID, err)
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return fmt.Errorf("item %d of %s is %s: %w", n, setID, prev.Status, nod.ErrDecided)
		}
		if err := db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: prev.Tool, Args: prev.Args,
			Outcome: nod.OutcomeSuperseded, Reason: "revised by reply: " + it.Summary, At: now}); err != nil {
			return err
		}
		set, err = loadSet(ctx, tx, setID)
		return err
	})
	return set, err
}
