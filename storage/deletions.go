package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// A person's deletions wait in line in pending_deletions, ordered by seq;
// expires_at is 0 until a deletion's question is asked. Only the first of
// a line is ever asked, so that the questions come one at a time.

const deletionColumns = `id, chat_id, thread, user_id, task_id, title, checklist, wait_us, expires_at, message_id`

func scanDeletion(row interface{ Scan(...any) error }, extra ...any) (nod.PendingDeletion, error) {
	var (
		d             nod.PendingDeletion
		wait, expires int64
	)
	err := row.Scan(append([]any{&d.ID, &d.ChatID, &d.Thread, &d.UserID, &d.TaskID, &d.Title, &d.Checklist, &wait, &expires, &d.MessageID}, extra...)...)
	d.Wait = time.Duration(wait) * time.Microsecond
	if expires != 0 {
		d.ExpiresAt = fromMicros(expires)
	}
	return d, err
}

// queueDeletion puts d at the end of its person's line, unless the same
// task already waits there: asking twice would delete it once anyway.
func queueDeletion(ctx context.Context, q conn, d nod.PendingDeletion, now time.Time) error {
	if d.ID == "" {
		d.ID = nod.DeletionID(nod.NewID())
	}
	_, err := q.ExecContext(ctx, `INSERT INTO pending_deletions (id, chat_id, user_id, task_id, title, checklist, wait_us, created_at, thread)
		SELECT CAST($1 AS TEXT), CAST($2 AS BIGINT), CAST($3 AS BIGINT), CAST($4 AS TEXT), CAST($5 AS TEXT), CAST($6 AS INTEGER), CAST($7 AS BIGINT), CAST($8 AS BIGINT), CAST($9 AS BIGINT)
		WHERE NOT EXISTS (SELECT 1 FROM pending_deletions WHERE chat_id = $2 AND user_id = $3 AND task_id = $4)`,
		d.ID, d.ChatID, d.UserID, d.TaskID, d.Title, d.Checklist, d.Wait.Microseconds(), micros(now), d.Thread)
	if err != nil {
		return fmt.Errorf("queue deletion of %s: %w", d.TaskID, err)
	}
	return nil
}

// WaitingDeletion returns the person's deletion whose question was asked
// and shown, expired or not (the caller compares ExpiresAt with its
// clock); ok is false when none is.
func (db *Deletions) WaitingDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.PendingDeletion, bool, error) {
	d, err := scanDeletion(db.reader().QueryRowContext(ctx, `SELECT `+deletionColumns+` FROM pending_deletions
		WHERE chat_id = $1 AND user_id = $2 AND expires_at > 0 AND message_id <> 0 ORDER BY seq LIMIT 1`, chatID, userID))
	if noRows(err) {
		return d, false, nil
	}
	if err != nil {
		return d, false, fmt.Errorf("waiting deletion: %w", err)
	}
	return d, true, nil
}

// EndDeletion takes deletion id out of its line, answered or cancelled.
// Exactly one caller ends it: the others get false.
func (db *Deletions) EndDeletion(ctx context.Context, chatID nod.ChatID, id nod.DeletionID) (bool, error) {
	res, err := db.exec(ctx, `DELETE FROM pending_deletions WHERE chat_id = $1 AND id = $2`, chatID, id)
	if err != nil {
		return false, fmt.Errorf("end deletion %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Deletion returns deletion id of the chat; nod.ErrNotFound once it has
// left its line.
func (db *Deletions) Deletion(ctx context.Context, chatID nod.ChatID, id nod.DeletionID) (nod.PendingDeletion, error) {
	d, err := scanDeletion(db.reader().QueryRowContext(ctx, `SELECT `+deletionColumns+` FROM pending_deletions WHERE chat_id = $1 AND id = $2`, chatID, id))
	if noRows(err) {
		return d, fmt.Errorf("deletion %s: %w", id, nod.ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("deletion %s: %w", id, err)
	}
	return d, nil
}

// AskDeletion moves the person's line on, in one transaction: an asked
// question whose time is up leaves the line (Expired), a deletion whose
// task is gone or in the trash leaves it silently, and when no question
// waits for an answer the first in line is asked (Ask): it waits from now
// for its Wait, and its message is owed (nod.OwedDeletion) until it is
// delivered. Of callers racing, one asks it.
func (db *Deletions) AskDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (nod.DeletionStep, error) {
	now := db.now()
	var step nod.DeletionStep
	err := db.inTx(ctx, func(tx conn) error {
		step = nod.DeletionStep{}
		line, err := readLine(ctx, tx, chatID, userID)
		if err != nil {
			return err
		}
		for i, q := range line {
			d := q.d
			if d.Asked() && now.Before(d.ExpiresAt) {
				return nil // its question still waits for the answer
			}
			if d.Asked() || q.live == 0 {
				res, err := tx.ExecContext(ctx, `DELETE FROM pending_deletions WHERE id = $1`, d.ID)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 1 && d.Asked() {
					step.Expired = append(step.Expired, d)
				}
				continue
			}
			d.ExpiresAt = now.Add(d.Wait)
			res, err := tx.ExecContext(ctx, `UPDATE pending_deletions SET expires_at = $1 WHERE id = $2 AND expires_at = 0`, micros(d.ExpiresAt), d.ID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return nil // asked by another caller
			}
			step.Ask = &d
			for _, r := range line[i+1:] {
				step.Behind += r.live
			}
			return db.owe(ctx, tx, nod.Owed{Topic: nod.Topic{ChatID: chatID, Thread: d.Thread}, Kind: nod.OwedDeletion, Ref: string(d.ID)}, now)
		}
		return nil
	})
	if err != nil {
		return nod.DeletionStep{}, fmt.Errorf("ask deletion: %w", err)
	}
	return step, nil
}

// SetDeletionMessage records the message that asks deletion id's
// question; the question waits its full time from now, when the person
// sees it.
func (db *Messages) SetDeletionMessage(ctx context.Context, chatID nod.ChatID, id nod.DeletionID, msgID int) error {
	_, err := db.exec(ctx, `UPDATE pending_deletions SET message_id = $1, expires_at = CAST($2 AS BIGINT) + wait_us WHERE chat_id = $3 AND id = $4 AND expires_at > 0`,
		msgID, micros(db.now()), chatID, id)
	if err != nil {
		return fmt.Errorf("remember deletion prompt: %w", err)
	}
	return nil
}

// DeletionsDue returns, one per person, the deletions whose line must move
// on at now: an asked question whose time is up, or a first in line that
// was never asked (its asking was cut short).
func (db *Deletions) DeletionsDue(ctx context.Context, now time.Time) ([]nod.PendingDeletion, error) {
	rows, err := db.reader().QueryContext(ctx, `SELECT `+deletionColumns+` FROM pending_deletions p
		WHERE (p.expires_at > 0 AND p.expires_at <= $1)
		OR (p.expires_at = 0 AND p.seq = (SELECT MIN(q.seq) FROM pending_deletions q WHERE q.chat_id = p.chat_id AND q.user_id = p.user_id))
		ORDER BY p.seq LIMIT 100`, micros(now))
	if err != nil {
		return nil, fmt.Errorf("deletions due: %w", err)
	}
	defer rows.Close()
	var out []nod.PendingDeletion
	seen := map[[2]int64]bool{}
	for rows.Next() {
		d, err := scanDeletion(rows)
		if err != nil {
			return nil, fmt.Errorf("deletions due: %w", err)
		}
		if k := [2]int64{int64(d.ChatID), int64(d.UserID)}; !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("deletions due: %w", err)
	}
	return out, nil
}

// CancelDeletion ends deletion id, cancelled, and when line is set the
// rest of its person's line with it, in one transaction, each with its
// audit row. rest holds the deletions taken out after id whose task was
// still there, in line order; why is id's audited reason. ended is false (and nothing changes) when
// another caller ended id first.
func (db *Deletions) CancelDeletion(ctx context.Context, chatID nod.ChatID, userID nod.UserID, id nod.DeletionID, line bool, why string) (ended bool, rest []nod.PendingDeletion, err error) {
	now := db.now()
	err = db.inTx(ctx, func(tx conn) error {
		ended, rest = false, nil
		queue, err := readLine(ctx, tx, chatID, userID)
		if err != nil {
			return err
		}
		// What waits behind id, said in its audit row: the agent reads the
		// row as an event, and played without it, it told the person a
		// task stays whose deletion was asked next.
		var waiting []string
		for _, q := range queue {
			if !line && q.d.ID != id && q.live == 1 {
				waiting = append(waiting, "“"+q.d.Title+"”")
			}
		}
		for _, q := range queue {
			if !line && q.d.ID != id {
				continue
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM pending_deletions WHERE id = $1`, q.d.ID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 || (q.live == 0 && q.d.ID != id) {
				continue // taken meanwhile, or its task is gone: nothing to tell
			}
			reason := why
			if q.d.ID == id {
				ended = true
			} else {
				reason = "cancelled with the deletion before it"
				rest = append(rest, q.d)
			}
			fields := map[string]string{"task_id": string(q.d.TaskID)}
			if q.d.ID == id && len(waiting) > 0 {
				fields["waiting"] = strings.Join(waiting, ", ")
			}
			args, err := json.Marshal(fields)
			if err != nil {
				return err
			}
			a := nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: nod.ToolDeleteTask, Outcome: nod.OutcomeRejected, UserConfirmed: true,
				Args: args, Reason: reason, At: now}
			if err := db.insertAudit(ctx, tx, a); err != nil {
				return err
			}
		}
		if !ended {
			return errNotEnded
		}
		return nil
	})
	if errors.Is(err, errNotEnded) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("cancel deletion line of %s: %w", id, err)
	}
	return ended, rest, nil
}

// errNotEnded rolls CancelDeletion back when another caller ended its
// deletion first.
var errNotEnded = errors.New("deletion ended meanwhile")

// queued is a deletion in a person's line, and whether its task is still
// there (live is 1) and not in the trash.
type queued struct {
	d    nod.PendingDeletion
	live int
}

// readLine reads the person's line of deletions, in order.
func readLine(ctx context.Context, tx conn, chatID nod.ChatID, userID nod.UserID) ([]queued, error) {
	rows, err := tx.QueryContext(ctx, `SELECT p.id, p.chat_id, p.thread, p.user_id, p.task_id, p.title, p.checklist, p.wait_us, p.expires_at, p.message_id,
		CASE WHEN t.id IS NOT NULL AND t.deleted_at IS NULL THEN 1 ELSE 0 END
		FROM pending_deletions p LEFT JOIN tasks t ON t.id = p.task_id AND t.chat_id = p.chat_id
		WHERE p.chat_id = $1 AND p.user_id = $2 ORDER BY p.seq`, chatID, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var line []queued
	for rows.Next() {
		var q queued
		if q.d, err = scanDeletion(rows, &q.live); err != nil {
			return nil, err
		}
		line = append(line, q)
	}
	return line, rows.Err()
}
