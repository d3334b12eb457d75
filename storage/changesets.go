package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/nodbot/nod"
)

// ConfirmItems confirms the pending items ns of change set setID for
// userID, in order and in one transaction: for each, decide computes the
// task's new state from the task as stored now (each item seeing the ones
// before it), and the task's change, the item and set status, the
// decision, the audit row and the undo entry are written together. The
// first item decide refuses is recorded as the nod.Refusal says and ends
// the run; the items before it stay applied.
//
// Items no longer pending are passed over (decided meanwhile by another
// tap). Errors wrap nod.ErrNotFound (no such set in the chat, or no item
// n), nod.ErrExpired (the set's time is up, swept or not), nod.ErrDecided
// (none of ns was pending: of concurrent confirmations of one item exactly
// one wins) or an error of decide; then nothing was written and the
// returned set is as stored. words, the person's answer in words that
// decided the items, are kept with each decision (Events).
func (db *ChangeSets) ConfirmItems(ctx context.Context, chatID nod.ChatID, setID nod.SetID, ns []int, userID nod.UserID, words string, decide nod.Decide) (nod.Decided, error) {
	var out nod.Decided
	now := db.now()
	tap := nod.TapOf(ctx)
	err := db.inTx(ctx, func(tx conn) error {
		if err := markTap(ctx, tx, tap, now); err != nil {
			return err
		}
		// The lock first: the tasks read ahead are read under it.
		if err := db.lockChat(ctx, tx, chatID); err != nil {
			return err
		}
		ahead, err := readItemTasksAhead(ctx, tx, chatID, setID, ns)
		if err != nil {
			return err
		}
		set, err := db.lockSet(ctx, tx, chatID, setID, now)
		out = nod.Decided{Set: set, Applied: map[int]nod.Applied{}, Cards: map[nod.TaskID]int{}}
		if err != nil {
			return err
		}
		if !set.DecidableBy(userID) {
			return fmt.Errorf("change set %s belongs to user %d: %w", setID, set.UserID, nod.ErrForbidden)
		}
		if ns == nil {
			if ns = set.Pending(); len(ns) == 0 {
				return fmt.Errorf("nothing left to decide in %s: %w", setID, nod.ErrDecided)
			}
		}
		out.Items = ns
		tasks := map[nod.TaskID]nod.Task{} // as this transaction has left them
		tried := 0
		for _, n := range ns {
			it, ok := out.Set.Item(n)
			switch {
			case !ok:
				return fmt.Errorf("change set %s item %d: %w", setID, n, nod.ErrNotFound)
			case it.Status != nod.ItemPending:
				continue // decided meanwhile by another tap
			}
			tried++
			if it.Field == nod.FieldCall {
				call, err := db.claimItem(ctx, tx, now, &out.Set, it, userID, words)
				if err != nil {
					return err
				}
				out.Calls = append(out.Calls, call)
				continue
			}
			applied, err := db.confirmOne(ctx, tx, now, &out, it, userID, words, tasks, ahead, decide)
			var refused *nod.Refusal
			if errors.As(err, &refused) {
				out.Stopped = n
				if err := db.refuse(ctx, tx, now, chatID, it, userID, *refused); err != nil {
					return err
				}
				break
			}
			if err != nil {
				return err
			}
			out.Applied[n] = applied
		}
		if tried == 0 {
			n := ns[0]
			it, _ := out.Set.Item(n)
			return fmt.Errorf("change set %s item %d is %s: %w", setID, n, it.Status, nod.ErrDecided)
		}
		if err := db.owe(ctx, tx, nod.Owed{Topic: nod.Topic{ChatID: chatID}, Kind: nod.OwedRefresh, Ref: string(setID)}, now); err != nil {
			return err
		}
		if err := updateSetStatus(ctx, tx, &out.Set, now); err != nil {
			return err
		}
		if err := readStreaks(ctx, tx, chatID, userID, &out); err != nil {
			return err
		}
		return bindTap(ctx, tx, tap, out, now)
	})
	err = tapHandled(err, tap)
	if err != nil {
		if !errors.Is(err, nod.ErrHandled) {
			out.Set = db.afterFailedClaim(ctx, chatID, setID, out.Set)
		}
		out.Applied, out.Stopped, out.Calls, out.Cards, out.Streaks = nil, 0, nil, nil, nil
		return out, err
	}
	if tap != nil {
		tap.Marked = true
	}
	return out, nil
}

// markTap marks a tap's update handled inside the transaction that
// decides it: a redelivery's mark fails the transaction, which rolls the
// decision back, and tapHandled makes that nod.ErrHandled.
func markTap(ctx context.Context, tx conn, tap *nod.Tap, now time.Time) error {
	if tap == nil || tap.Marked {
		return nil
	}
	return markUpdate(ctx, tx, tap.Update, now)
}

// tapHandled is err, the outcome of a decision's transaction, as
// nod.ErrHandled when it marked tap's update and found it handled before.
func tapHandled(err error, tap *nod.Tap) error {
	if tap == nil || tap.Marked {
		return err
	}
	return handledBefore(err, tap.Update)
}

// bindTap records, with the decision, the buttons the tapped message's
// edit will carry: a button the edit shows may be pressed at once.
func bindTap(ctx context.Context, tx conn, tap *nod.Tap, d nod.Decided, now time.Time) error {
	if tap == nil || tap.Buttons == nil || tap.Message == 0 {
		return nil
	}
	data := tap.Buttons(d)
	if len(data) == 0 {
		return nil
	}
	query, args := bindSQL(d.Set.ChatID, tap.Message, now, data)
	if err := tx.later(ctx, query, args...); err != nil {
		return fmt.Errorf("bind buttons of message %d: %w", tap.Message, err)
	}
	return nil
}

// confirmOne applies item it of d's set inside tx; tasks caches the tasks
// the transaction has written, ahead those it read with the set. A task
// read here comes with its card's message, kept in d.Cards for its redraw.
func (db *ChangeSets) confirmOne(ctx context.Context, tx conn, now time.Time, d *nod.Decided, it *nod.ChangeItem, userID nod.UserID, words string,
	tasks map[nod.TaskID]nod.Task, ahead map[nod.TaskID]carded, decide nod.Decide) (nod.Applied, error) {
	set := &d.Set
	var cur *nod.Task
	if it.TaskID != "" {
		t, ok := tasks[it.TaskID]
		if !ok {
			read, ok := ahead[it.TaskID]
			if !ok {
				var err error
				read.task, err = readTask(ctx, tx, set.ChatID, it.TaskID, &read.card)
				if errors.Is(err, nod.ErrNotFound) {
					return nod.Applied{}, &nod.Refusal{Status: nod.ItemFailed, Note: nod.Note{Key: nod.NoteTaskGone}}
				}
				if err != nil {
					return nod.Applied{}, err
				}
			}
			t = read.task
			if read.card != 0 {
				d.Cards[t.ID] = read.card
			}
		}
		if t.DeletedAt != nil {
			return nod.Applied{}, &nod.Refusal{Status: nod.ItemFailed, Note: nod.Note{Key: nod.NoteTaskGone}}
		}
		cur = &t
	}
	after, err := decide(*it, cloneTask(cur))
	if err != nil {
		return nod.Applied{}, err
	}
	applied, err := db.write(ctx, tx, now, nod.Edit{
		Topic: set.Topic, UserID: userID, TaskID: it.TaskID, Tool: it.Tool, Args: it.Args, Summary: it.Summary,
		Audit: nod.AuditEntry{Outcome: nod.OutcomeConfirmed, UserConfirmed: true, Reason: it.Reason},
	}, cur, after, it.ID)
	if err != nil {
		return nod.Applied{}, err
	}
	tasks[applied.After.ID] = applied.After
	// The set was read pending under the chat's lock: an item decided
	// meanwhile is a race lost, found with the transaction's next
	// statement, and the transaction runs again.
	err = tx.laterOne(ctx, errRetry, `UPDATE change_items SET status = 'confirmed', note = '', undo_id = $1 WHERE id = $2 AND status = 'pending'`, applied.Undo.ID, it.ID)
	if err != nil {
		return nod.Applied{}, fmt.Errorf("confirm item %d of %s: %w", it.N, set.ID, err)
	}
	it.Status, it.Note, it.UndoID = nod.ItemConfirmed, nod.Note{}, applied.Undo.ID
	if err := insertDecision(ctx, tx, *set, *it, userID, nod.Confirmed, "", words, now); err != nil {
		return nod.Applied{}, err
	}
	return applied, nil
}

// claimItem confirms item it of set, an external call, inside tx: the
// call is claimed for its one send, which the caller makes once the
// transaction committed (docs/design.md §15). The item has no undo: nod
// cannot take an external call back.
func (db *ChangeSets) claimItem(ctx context.Context, tx conn, now time.Time, set *nod.ChangeSet, it *nod.ChangeItem, userID nod.UserID, words string) (nod.ExternalCall, error) {
	res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = 'confirmed', note = '' WHERE id = $1 AND status = 'pending'`, it.ID)
	if err != nil {
		return nod.ExternalCall{}, fmt.Errorf("confirm item %d of %s: %w", it.N, set.ID, err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return nod.ExternalCall{}, fmt.Errorf("confirm item %d of %s: %w", it.N, set.ID, errRetry)
	}
	it.Status, it.Note = nod.ItemConfirmed, nod.Note{}
	call := nod.ExternalCall{Topic: set.Topic, UserID: userID, Tool: it.Tool, Args: it.Args, SetID: set.ID, N: it.N}
	if err := db.claim(ctx, tx, &call, now); err != nil {
		return call, err
	}
	if err := insertDecision(ctx, tx, *set, *it, userID, nod.Confirmed, "", words, now); err != nil {
		return call, err
	}
	return call, db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: set.ChatID, UserID: userID, Tool: it.Tool, Args: CallAuditArgs(call),
		Outcome: nod.OutcomeConfirmed, UserConfirmed: true, At: now})
}

// refuse records why item it was not applied: a note on an item that
// stays pending, or a stale or failed item with its audit row.
func (db *ChangeSets) refuse(ctx context.Context, tx conn, now time.Time, chatID nod.ChatID, it *nod.ChangeItem, userID nod.UserID, r nod.Refusal) error {
	if _, err := tx.ExecContext(ctx, `UPDATE change_items SET status = $1, note = $2 WHERE id = $3`, string(r.Status), encodeNote(r.Note), it.ID); err != nil {
		return fmt.Errorf("refuse item %d: %w", it.N, err)
	}
	it.Status, it.Note = r.Status, r.Note
	if r.Status == nod.ItemPending {
		return nil
	}
	return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: it.Tool, Args: it.Args, Outcome: nod.OutcomeFailed, Error: encodeNote(r.Note), At: now})
}

// lockSet takes the chat's write lock and loads open-for-decision set
// setID: nod.ErrNotFound if the chat has no such set, nod.ErrExpired if
// it expired or its time is up at now, whether or not a sweep has marked
// it yet.
func (db *ChangeSets) lockSet(ctx context.Context, tx conn, chatID nod.ChatID, setID nod.SetID, now time.Time) (nod.ChangeSet, error) {
	if err := db.lockChat(ctx, tx, chatID); err != nil {
		return nod.ChangeSet{}, err
	}
	// A decision writes audit rows: the chat's chain head comes with the
	// set, under the lock, and spares insertAudit its read.
	set, head, err := readSet(ctx, tx, setID, chatID)
	if err != nil {
		return nod.ChangeSet{}, err
	}
	if set.ChatID != chatID {
		return nod.ChangeSet{}, fmt.Errorf("change set %s: %w", setID, nod.ErrNotFound)
	}
	if tx.memo != nil {
		if _, known := tx.memo.auditHead[chatID]; !known {
			tx.memo.auditHead[chatID] = head
		}
	}
	if set.Expired(now) {
		return set, fmt.Errorf("change set %s: %w", setID, nod.ErrExpired)
	}
	return set, nil
}

// afterFailedClaim is the set to report when a decision's transaction
// failed: as stored now (a rolled-back transaction changed nothing of it).
func (db *ChangeSets) afterFailedClaim(ctx context.Context, chatID nod.ChatID, setID nod.SetID, set nod.ChangeSet) nod.ChangeSet {
	if set.ID == "" {
		return set
	}
	if now, err := db.ChangeSet(ctx, chatID, setID); err == nil {
		return now
	}
	return set
}

// RejectItem rejects item n of change set setID for userID: the item and set
// status, the decision and the audit row are written in one transaction.
// Errors wrap nod.ErrNotFound, nod.ErrExpired or nod.ErrDecided, as those
// of ConfirmItems.
func (db *ChangeSets) RejectItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID) (nod.ChangeSet, error) {
	return db.closeItem(ctx, chatID, setID, n, userID, nod.ItemRejected, nod.Note{}, "", "")
}

// RejectItemBecause is RejectItem with the person's reason, and their
// answer in words that rejected it, kept as ConfirmItems keeps it.
func (db *ChangeSets) RejectItemBecause(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, reason, words string) (nod.ChangeSet, error) {
	return db.closeItem(ctx, chatID, setID, n, userID, nod.ItemRejected, nod.Note{}, reason, words)
}

// FailItem marks pending item n as stale or failed with a note for the
// person, and audits it as failed, in one transaction. Errors are those of
// RejectItem.
func (db *ChangeSets) FailItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, status nod.ItemStatus, note nod.Note) (nod.ChangeSet, error) {
	return db.closeItem(ctx, chatID, setID, n, userID, status, note, "", "")
}

// closeItem moves pending item n to a final status other than confirmed,
// exactly once, with its decision (a rejection) or audit row.
func (db *ChangeSets) closeItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, status nod.ItemStatus, note nod.Note, reason, words string) (nod.ChangeSet, error) {
	var set nod.ChangeSet
	now := db.now()
	tap := nod.TapOf(ctx)
	err := db.inTx(ctx, func(tx conn) error {
		if err := markTap(ctx, tx, tap, now); err != nil {
			return err
		}
		var err error
		if set, err = db.lockSet(ctx, tx, chatID, setID, now); err != nil {
			return err
		}
		if !set.DecidableBy(userID) {
			return fmt.Errorf("change set %s belongs to user %d: %w", setID, set.UserID, nod.ErrForbidden)
		}
		it, ok := set.Item(n)
		if !ok {
			return fmt.Errorf("change set %s item %d: %w", setID, n, nod.ErrNotFound)
		}
		res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = $1, note = $2 WHERE id = $3 AND status = 'pending'`, string(status), encodeNote(note), it.ID)
		if err != nil {
			return fmt.Errorf("close item %d of %s: %w", n, setID, err)
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return fmt.Errorf("change set %s item %d is %s: %w", setID, n, it.Status, nod.ErrDecided)
		}
		it.Status, it.Note = status, note
		a := nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: it.Tool, Args: it.Args, Outcome: nod.OutcomeFailed, Error: encodeNote(note), At: now}
		if it.Field == nod.FieldCall { // recorded as every row of a call is
			a.Args = CallAuditArgs(nod.ExternalCall{Tool: it.Tool, Args: it.Args, State: nod.CallClaimed})
		}
		if status == nod.ItemRejected {
			if err := insertDecision(ctx, tx, set, *it, userID, nod.Rejected, reason, words, now); err != nil {
				return err
			}
			a.Outcome, a.Error = nod.OutcomeRejected, ""
		}
		if err := db.insertAudit(ctx, tx, a); err != nil {
			return err
		}
		if err := db.owe(ctx, tx, nod.Owed{Topic: nod.Topic{ChatID: chatID}, Kind: nod.OwedRefresh, Ref: string(setID)}, now); err != nil {
			return err
		}
		if err := updateSetStatus(ctx, tx, &set, now); err != nil {
			return err
		}
		return bindTap(ctx, tx, tap, nod.Decided{Set: set}, now)
	})
	err = tapHandled(err, tap)
	if err != nil {
		if !errors.Is(err, nod.ErrHandled) {
			set = db.afterFailedClaim(ctx, chatID, setID, set)
		}
		return set, err
	}
	if tap != nil {
		tap.Marked = true
	}
	return set, nil
}

func updateSetStatus(ctx context.Context, tx conn, set *nod.ChangeSet, now time.Time) error {
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
	err := tx.later(ctx, `UPDATE change_sets SET status = $1, resolved_at = $2 WHERE id = $3`, string(st), resolved, set.ID)
	if err != nil {
		return fmt.Errorf("update change set %s: %w", set.ID, err)
	}
	return nil
}

func insertDecision(ctx context.Context, tx conn, set nod.ChangeSet, it nod.ChangeItem, userID nod.UserID, v nod.Verdict, reason, words string, now time.Time) error {
	err := tx.later(ctx, `INSERT INTO decisions (id, chat_id, set_id, item_id, n, user_id, verdict, reason, tool, summary, kind, words, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
		nod.NewID(), set.ChatID, set.ID, it.ID, it.N, userID, string(v), reason, it.Tool, it.Summary, nod.KindOf(it.Tool, it.Field, it.After), nod.CleanText(words), micros(now))
	if err != nil {
		return fmt.Errorf("record decision: %w", err)
	}
	return nil
}

// ChangeSet returns change set id of the chat with its items.
func (db *ChangeSets) ChangeSet(ctx context.Context, chatID nod.ChatID, id nod.SetID) (nod.ChangeSet, error) {
	return chatSet(ctx, db.reader(), chatID, id)
}

// chatSet loads set id of the chat: a set of another chat is
// nod.ErrNotFound, like a missing one; a failing database is its own error.
func chatSet(ctx context.Context, q conn, chatID nod.ChatID, id nod.SetID) (nod.ChangeSet, error) {
	set, err := loadSet(ctx, q, id)
	if err != nil {
		return nod.ChangeSet{}, err
	}
	if set.ChatID != chatID {
		return nod.ChangeSet{}, fmt.Errorf("change set %s: %w", id, nod.ErrNotFound)
	}
	return set, nil
}

// OpenChangeSets returns the topic's pending and partially resolved sets,
// newest first: a set proposed in another topic of the chat is that
// topic's to answer (by id, its buttons work anywhere).
func (db *ChangeSets) OpenChangeSets(ctx context.Context, at nod.Topic) ([]nod.ChangeSet, error) {
	var sets []nod.ChangeSet
	if err := db.readOne(ctx, openSetsRead(at, &sets)); err != nil {
		return nil, fmt.Errorf("open change sets: %w", err)
	}
	return sets, nil
}

// openSetsRead reads the topic's open sets with their items into sets,
// newest first, in one query.
func openSetsRead(at nod.Topic, sets *[]nod.ChangeSet) read {
	return read{query: setColumns + setJoin + ` WHERE s.chat_id = $1 AND s.thread = $2 AND s.status IN ('pending', 'partially_resolved') ORDER BY s.seq DESC, i.n`,
		args: []any{at.ChatID, at.Thread}, scan: func(rows scanner) error {
			var err error
			*sets, err = scanSets(rows)
			return err
		}}
}

// SetMessageID records which Telegram message shows the set.
func (db *Messages) SetMessageID(ctx context.Context, setID nod.SetID, messageID int) error {
	if _, err := db.exec(ctx, `UPDATE change_sets SET message_id = $1 WHERE id = $2`, messageID, setID); err != nil {
		return fmt.Errorf("set message of change set %s: %w", setID, err)
	}
	return nil
}

// loadSet reads set id with its items in one statement: the set's
// columns come with every item's row.
func loadSet(ctx context.Context, q conn, id nod.SetID) (nod.ChangeSet, error) {
	s, _, err := readSet(ctx, q, id, 0)
	return s, err
}

const (
	setColumns = `SELECT s.id, s.chat_id, s.thread, s.user_id, s.status, s.message_id, s.created_at, s.resolved_at, s.expires_at, s.warned, s.after_seq,
		COALESCE(i.id, ''), COALESCE(i.n, 0), COALESCE(i.tool, ''), COALESCE(i.task_id, ''), COALESCE(i.args, ''), COALESCE(i.summary, ''), COALESCE(i.field, ''),
		COALESCE(i.before, ''), COALESCE(i.after, ''), COALESCE(i.detail, ''), COALESCE(i.status, ''), COALESCE(i.note, ''), COALESCE(i.undo_id, '')`
	setJoin = `
		FROM change_sets s LEFT JOIN change_items i ON i.set_id = s.id`
	setFrom = setJoin + ` WHERE s.id = $1 ORDER BY i.n`
	setSQL  = setColumns + setFrom
	// setHeadSQL adds the hash of chat $2's latest audit row, "" if none.
	setHeadSQL = setColumns + `,
		COALESCE((SELECT hash FROM audit_log WHERE chat_id = $2 ORDER BY id DESC LIMIT 1), '')` + setFrom
)

// readSet is loadSet, and with a chat (not 0) the hash of that chat's
// latest audit row read in the same statement, "" if it has none. In a
// PostgreSQL write transaction it goes out with the writes that wait.
func readSet(ctx context.Context, q conn, id nod.SetID, chat nod.ChatID) (nod.ChangeSet, string, error) {
	query, args, tail := setSQL, []any{id}, []any(nil)
	var head string
	if chat != 0 {
		query, args, tail = setHeadSQL, []any{id, chat}, []any{&head}
	}
	var sets []nod.ChangeSet
	err := q.queryRows(ctx, query, args, func(rows scanner) error {
		var err error
		if sets, err = scanSets(rows, tail...); err != nil {
			return err
		}
		return rows.Err()
	})
	if err != nil {
		return nod.ChangeSet{}, "", fmt.Errorf("change set %s: %w", id, err)
	}
	if len(sets) == 0 {
		return nod.ChangeSet{}, "", fmt.Errorf("change set %s: %w", id, nod.ErrNotFound)
	}
	return sets[0], head, nil
}

// scanSets reads the rows of setColumns (then tail's columns, the same in
// every row), each set's together and in item order.
func scanSets(rows scanner, tail ...any) ([]nod.ChangeSet, error) {
	var sets []nod.ChangeSet
	for rows.Next() {
		var (
			s            nod.ChangeSet
			status       string
			created      int64
			resolved     sql.NullInt64
			expires      int64
			warned       int
			it           nod.ChangeItem
			args, detail string
			field, stat  string
			note         string
		)
		dest := append([]any{&s.ID, &s.ChatID, &s.Thread, &s.UserID, &status, &s.MessageID, &created, &resolved, &expires, &warned, &s.AfterSeq,
			&it.ID, &it.N, &it.Tool, &it.TaskID, &args, &it.Summary, &field, &it.Before, &it.After, &detail, &stat, &note, &it.UndoID}, tail...)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if n := len(sets); n == 0 || sets[n-1].ID != s.ID {
			s.Status, s.CreatedAt, s.ResolvedAt = nod.SetStatus(status), fromMicros(created), timePtr(resolved)
			s.ExpiresAt, s.Warned = fromMicros(expires), warned != 0
			sets = append(sets, s)
		}
		if it.ID == "" {
			continue // a set without items
		}
		it.Args, it.Field, it.Status = json.RawMessage(args), nod.Field(field), nod.ItemStatus(stat)
		var err error
		if it.Note, err = decodeNote(note); err != nil {
			return nil, fmt.Errorf("change set %s item %d: %w", s.ID, it.N, err)
		}
		if err := decodeDetail(&it, detail); err != nil {
			return nil, err
		}
		last := &sets[len(sets)-1]
		last.Items = append(last.Items, it)
	}
	return sets, nil
}

func (db *core) insertSet(ctx context.Context, tx conn, s *nod.ChangeSet, now time.Time) error {
	s.ID, s.Status, s.CreatedAt, s.ExpiresAt = nod.SetID(nod.NewID()), nod.SetPending, now, now.Add(db.opts.ChangeSetTTL)
	// Numbered after the topic's messages so far, the turn's own included:
	// an answer to the set must come later.
	err := tx.QueryRowContext(ctx, `INSERT INTO change_sets (id, chat_id, thread, user_id, status, created_at, expires_at, after_seq)
		VALUES ($1,$2,$3,$4,$5,$6,$7,(SELECT COALESCE(MAX(seq), 0) FROM messages WHERE chat_id = $2 AND thread = $3)) RETURNING after_seq`,
		s.ID, s.ChatID, s.Thread, s.UserID, string(s.Status), micros(now), micros(s.ExpiresAt)).Scan(&s.AfterSeq)
	if err != nil {
		return fmt.Errorf("insert change set: %w", err)
	}
	for i := range s.Items {
		it := &s.Items[i]
		it.ID, it.N, it.Status = nod.NewID(), i+1, nod.ItemPending
		detail, err := encodeDetail(*it)
		if err != nil {
			return err
		}
		if err := tx.later(ctx, `INSERT INTO change_items (id, set_id, n, tool, task_id, args, summary, field, before, after, detail, status) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)`,
			it.ID, s.ID, it.N, it.Tool, it.TaskID, string(it.Args), it.Summary, string(it.Field), it.Before, it.After, detail, string(it.Status)); err != nil {
			return fmt.Errorf("insert change item %d: %w", it.N, err)
		}
	}
	return nil
}

// ChangeSetByUndo returns the change set whose item was applied with undo
// entry undoID, or with the first entry of undoID's chain, or
// nod.ErrNotFound.
func (db *ChangeSets) ChangeSetByUndo(ctx context.Context, chatID nod.ChatID, undoID nod.UndoID) (nod.ChangeSet, error) {
	var setID nod.SetID
	// A redo, or the undo of one, belongs to the set its change's first
	// entry does.
	err := db.reader().QueryRowContext(ctx, `SELECT set_id FROM change_items WHERE undo_id = COALESCE((SELECT NULLIF(root, '') FROM undo_entries WHERE id = $1 AND chat_id = $2), $1)`,
		undoID, chatID).Scan(&setID)
	if noRows(err) {
		return nod.ChangeSet{}, fmt.Errorf("change set of undo %s: %w", undoID, nod.ErrNotFound)
	}
	if err != nil {
		return nod.ChangeSet{}, fmt.Errorf("change set of undo %s: %w", undoID, err)
	}
	return db.ChangeSet(ctx, chatID, setID)
}

// ChangeSetByMessage returns the set shown by message msgID of the chat.
func (db *ChangeSets) ChangeSetByMessage(ctx context.Context, chatID nod.ChatID, msgID int) (nod.ChangeSet, error) {
	var id nod.SetID
	err := db.reader().QueryRowContext(ctx, `SELECT id FROM change_sets WHERE chat_id = $1 AND message_id = $2`, chatID, msgID).Scan(&id)
	if noRows(err) {
		return nod.ChangeSet{}, fmt.Errorf("change set of message %d: %w", msgID, nod.ErrNotFound)
	}
	if err != nil {
		return nod.ChangeSet{}, fmt.Errorf("change set of message %d: %w", msgID, err)
	}
	return db.ChangeSet(ctx, chatID, id)
}

// ReopenItem makes a failed item pending again, for a retry; its set is
// open again too.
func (db *ChangeSets) ReopenItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int) (nod.ChangeSet, error) {
	var set nod.ChangeSet
	now := db.now()
	err := db.inTx(ctx, func(tx conn) error {
		s, err := db.lockSet(ctx, tx, chatID, setID, now)
		if err != nil {
			return err
		}
		if !now.Before(s.ExpiresAt) {
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
		it.Status, it.Note = nod.ItemPending, nod.Note{}
		s.ResolvedAt = nil
		if _, err := tx.ExecContext(ctx, `UPDATE change_sets SET resolved_at = NULL WHERE id = $1`, setID); err != nil {
			return err
		}
		s.Status = "" // force a write of the derived status
		set = s
		return updateSetStatus(ctx, tx, &set, now)
	})
	return set, err
}

// ReviseItem replaces pending item n of set setID with a revised version
// under the same number, auditing the old version as superseded, in one
// transaction; nod.ErrDecided if the item is no longer pending.
func (db *ChangeSets) ReviseItem(ctx context.Context, chatID nod.ChatID, setID nod.SetID, n int, userID nod.UserID, it nod.ChangeItem) (nod.ChangeSet, error) {
	var set nod.ChangeSet
	now := db.now()
	err := db.inTx(ctx, func(tx conn) error {
		// The chat's lock before the item's row: the audit row below takes
		// it anyway, and taken after the row it deadlocks with a decision,
		// which takes the chat's lock first.
		if err := db.lockChat(ctx, tx, chatID); err != nil {
			return err
		}
		old, err := chatSet(ctx, tx, chatID, setID)
		if err != nil {
			return err
		}
		prev, ok := old.Item(n)
		if !ok {
			return fmt.Errorf("change set %s item %d: %w", setID, n, nod.ErrNotFound)
		}
		detail, err := encodeDetail(it)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE change_items SET args = $1, summary = $2, field = $3, before = $4, after = $5, detail = $6, note = ''
			WHERE set_id = $7 AND n = $8 AND status = 'pending'`, string(it.Args), it.Summary, string(it.Field), it.Before, it.After, detail, setID, n)
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

// streakWindow is how many of a kind's latest decisions a streak is
// counted in.
const streakWindow = 20

// streakCount is what earns a rule, read by a confirmation (streakSQL)
// and by /rules (streaksSQL) alike: over latest, each kind's latest
// decisions, the change sets in which the kind was confirmed since it
// was last decided otherwise.
const streakCount = ` FROM latest d WHERE d.seq > COALESCE((SELECT MAX(x.seq) FROM latest x WHERE x.kind = d.kind AND x.verdict <> 'confirmed'), 0)`

// streakSQL counts the change sets in which person $2 confirmed kind $3
// since they last decided it otherwise, among its latest decisions.
var streakSQL = `WITH latest AS (SELECT kind, set_id, verdict, seq FROM decisions WHERE chat_id = $1 AND user_id = $2 AND kind = $3 ORDER BY seq DESC` + limitSQL(streakWindow) + `)
	SELECT COUNT(DISTINCT d.set_id)` + streakCount

// readStreaks reads d.Streaks, of the kinds of change d's confirmations
// made, as the transaction leaves them: on PostgreSQL with its COMMIT.
func readStreaks(ctx context.Context, tx conn, chatID nod.ChatID, userID nod.UserID, d *nod.Decided) error {
	d.Streaks = map[string]int{}
	ns := slices.Collect(maps.Keys(d.Applied))
	for _, c := range d.Calls {
		ns = append(ns, c.N)
	}
	for _, n := range ns {
		it, _ := d.Set.Item(n)
		kind := nod.KindOf(it.Tool, it.Field, it.After)
		if _, ok := d.Streaks[kind]; kind == "" || ok {
			continue
		}
		d.Streaks[kind] = 0
		err := tx.readLater(ctx, streakSQL, []any{chatID, userID, kind}, func(rows scanner) error {
			for rows.Next() {
				var n int
				if err := rows.Scan(&n); err != nil {
					return err
				}
				d.Streaks[kind] = n
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("streak of %s: %w", kind, err)
		}
	}
	return nil
}
