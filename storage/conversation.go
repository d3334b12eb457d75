package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nodbot/nod"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SaveTurn stores the turn's messages, audit rows and change set; the set
// gets its id and item numbers.
func (db *Conversation) SaveTurn(ctx context.Context, t nod.TurnRecord) error {
	now := db.now()
	var first int64
	err := db.inTx(ctx, func(tx conn) error {
		first = 0
		return db.saveTurn(ctx, tx, t, now, &first)
	})
	if err == nil {
		db.kept.saved(t.Topic, first, t.Messages, now)
	}
	return handledBefore(err, t.Update)
}

// saveTurn is SaveTurn in tx. When first is not nil, it is set to the
// number of the first message saved, once the transaction has ended.
func (db *Conversation) saveTurn(ctx context.Context, tx conn, t nod.TurnRecord, now time.Time, first *int64) error {
	if t.Update != 0 {
		// First, before the chat's lock: a redelivery taken by another
		// replica waits here for that one's outcome, holding nothing.
		if err := markUpdate(ctx, tx, t.Update, now); err != nil {
			return err
		}
	}
	if len(t.Messages) > 0 { // the messages are numbered on from the chat's last
		if err := db.lockChat(ctx, tx, t.ChatID); err != nil {
			return err
		}
	}
	at := t.Topic
	if err := insertMessages(ctx, tx, at, t.Messages, now, first); err != nil {
		return err
	}
	if t.Opens {
		if err := db.owe(ctx, tx, nod.Owed{Topic: t.Topic, Kind: nod.OwedAnswer, Ref: t.Turn, Text: t.Said}, now); err != nil {
			return err
		}
	}
	if t.Closes {
		if err := delivered(ctx, tx, t.ChatID, nod.OwedAnswer, now, t.Turn); err != nil {
			return err
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
		if err := supersede(ctx, tx, t.ChatID, ref, nod.NoteSuperseded, now); err != nil {
			return err
		}
	}
	for _, ref := range t.Withdraw {
		if err := supersede(ctx, tx, t.ChatID, ref, nod.NoteWithdrawn, now); err != nil {
			return err
		}
	}
	for _, d := range t.Deletions {
		if err := queueDeletion(ctx, tx, d, now); err != nil {
			return err
		}
	}
	for _, r := range t.Readings {
		if err := insertReading(ctx, tx, r, now); err != nil {
			return err
		}
	}
	if t.Set != nil && len(t.Set.Items) > 0 {
		t.Set.ChatID, t.Set.Thread, t.Set.UserID = t.ChatID, t.Thread, t.UserID
		if err := db.insertSet(ctx, tx, t.Set, now); err != nil {
			return err
		}
		return db.owe(ctx, tx, nod.Owed{Topic: t.Topic, Kind: nod.OwedSet, Ref: string(t.Set.ID)}, now)
	}
	return nil
}

// insertMessages stores a turn's messages in one statement, in order;
// first, if not nil, is set to the number of the first once the
// transaction has ended.
func insertMessages(ctx context.Context, tx conn, at nod.Topic, msgs []nod.ChatMessage, now time.Time, first *int64) error {
	if len(msgs) == 0 {
		return nil
	}
	// Numbered on from the topic's last message, in one statement, under
	// the chat's lock: the numbers are the topic's own. The last number is
	// a scalar subquery, read once: joined in as a table, with the rows
	// sorted by their number, SQLite built three temporary tables for
	// every insert.
	var q strings.Builder
	q.WriteString(`INSERT INTO messages (chat_id, thread, seq, body, created_at, msg_id, wire) SELECT $1, $2, (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE chat_id = $1 AND thread = $2) + v.column1, v.column2, v.column3, v.column4, v.column5 FROM (VALUES `)
	args := make([]any, 2, 2+4*len(msgs))
	args[0], args[1] = at.ChatID, at.Thread
	for i, m := range msgs {
		if m.At.IsZero() {
			m.At = now
		}
		m.At = nod.Stamp(m.At) // as created_at keeps it: quotes are compared with checked_at
		body, err := json.Marshal(recordMessage(m))
		if err != nil {
			return fmt.Errorf("save message: %w", err)
		}
		if i > 0 {
			q.WriteByte(',')
		}
		// Typed, for PostgreSQL: a VALUES list's parameters are text otherwise.
		fmt.Fprintf(&q, "(%d,CAST($%d AS TEXT),CAST($%d AS BIGINT),CAST($%d AS BIGINT),CAST($%d AS %s))", i+1, 4*i+3, 4*i+4, 4*i+5, 4*i+6, blobType(tx.db.postgres))
		args = append(args, string(body), micros(m.At), m.MsgID, m.Wire)
	}
	q.WriteString(`) AS v`)
	var err error
	if first == nil {
		err = tx.later(ctx, q.String(), args...)
	} else {
		q.WriteString(` RETURNING seq`)
		err = tx.readLater(ctx, q.String(), args, func(rows scanner) error {
			for rows.Next() {
				var seq int64
				if err := rows.Scan(&seq); err != nil {
					return err
				}
				if *first == 0 || seq < *first {
					*first = seq
				}
			}
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("save messages: %w", err)
	}
	return nil
}

// History returns the topic's latest messages in window w, oldest first:
// a topic's conversation is its own.
func (db *Conversation) History(ctx context.Context, at nod.Topic, w nod.Window) ([]nod.ChatMessage, error) {
	var out []nod.ChatMessage
	if err := db.readOne(ctx, historyRead(at, w, &out)); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// historyRead reads the topic's latest messages in window w into out,
// oldest first.
func historyRead(at nod.Topic, w nod.Window, out *[]nod.ChatMessage) read {
	return read{
		query: `SELECT seq, body, wire FROM messages WHERE chat_id = $1 AND thread = $2 ORDER BY seq DESC` + limitSQL(w.Max()),
		args:  []any{at.ChatID, at.Thread},
		scan: func(rows scanner) error {
			var (
				msgs  []nod.ChatMessage
				start int64 = -1
				seq   int64
				body  sql.RawBytes // decoded before the next row: its buffer is reused
				wire  []byte
			)
			for rows.Next() {
				if err := rows.Scan(&seq, &body, &wire); err != nil {
					return err
				}
				if start < 0 { // the newest message: its number is the topic's count
					start = int64(w.Start(int(seq)))
					msgs = make([]nod.ChatMessage, 0, min(seq-start, int64(w.Max()))) // what the window holds, allocated once
				}
				if seq <= start {
					break
				}
				msg, err := storedMessage(seq, body, wire)
				if err != nil {
					return err
				}
				msgs = append(msgs, msg)
			}
			slices.Reverse(msgs)
			*out = msgs
			return nil
		},
	}
}

// MarkUpdate records that update id is being handled. It returns false when
// the update was seen before (a redelivery), in which case it must be
// ignored.
func (db *Outbox) MarkUpdate(ctx context.Context, id int64) (bool, error) {
	res, err := db.exec(ctx, markUpdateSQL, id, micros(db.now()))
	if err != nil {
		return false, fmt.Errorf("mark update %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// markUpdateSQL records an update as handled; it affects no row if it
// was handled before.
const markUpdateSQL = `INSERT INTO processed_updates (update_id, created_at) VALUES ($1, $2) ON CONFLICT (update_id) DO NOTHING`

// markUpdate marks update id handled inside the transaction that handles
// it. The mark needs no answer of its own, and on PostgreSQL goes out
// with the transaction's next statement: a redelivery's mark fails the
// transaction on the table's key instead (at once on SQLite, at a later
// statement or the COMMIT on PostgreSQL), which handledBefore tells.
func markUpdate(ctx context.Context, tx conn, id int64, now time.Time) error {
	if err := tx.later(ctx, `INSERT INTO processed_updates (update_id, created_at) VALUES ($1, $2)`, id, micros(now)); err != nil {
		return fmt.Errorf("mark update %d: %w", id, err)
	}
	return nil
}

// handledBefore is err, the outcome of a transaction that marked update
// id (markUpdate), as nod.ErrHandled when its mark failed on the key of
// processed_updates: the update was handled before. Nothing else inserts
// there in a transaction, and any other failure is left as it is.
func handledBefore(err error, id int64) error {
	if err == nil || !markConflict(err) {
		return err
	}
	return fmt.Errorf("update %d: %w", id, nod.ErrHandled)
}

// markConflict reports whether err is a violation of the key of
// processed_updates, on either database.
func markConflict(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505" && pg.ConstraintName == "processed_updates_pkey"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		code := lite.Code()
		return (code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || code == sqlite3.SQLITE_CONSTRAINT_UNIQUE) &&
			strings.Contains(lite.Error(), "processed_updates.update_id")
	}
	return false
}

// PruneUpdates deletes the records of updates handled before cutoff, and
// returns how many it deleted. The update with the highest id stays
// whatever its age: LastUpdateID reads it to resume polling.
func (db *Outbox) PruneUpdates(ctx context.Context, cutoff time.Time) (int, error) {
	res, err := db.exec(ctx, `DELETE FROM processed_updates WHERE created_at < $1
		AND update_id < (SELECT MAX(update_id) FROM processed_updates)`, micros(cutoff))
	if err != nil {
		return 0, fmt.Errorf("prune updates: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// PersonMessage returns the latest line of chat's conversation that holds
// the person's Telegram message msgID (an edit's line holds it too), and
// whether there is one.
func (db *Conversation) PersonMessage(ctx context.Context, chatID nod.ChatID, msgID int) (nod.ChatMessage, bool, error) {
	var (
		seq  int64
		body string
	)
	err := db.reader().QueryRowContext(ctx, `SELECT seq, body FROM messages WHERE chat_id = $1 AND msg_id = $2 ORDER BY seq DESC LIMIT 1`, chatID, msgID).Scan(&seq, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return nod.ChatMessage{}, false, nil
	}
	if err != nil {
		return nod.ChatMessage{}, false, fmt.Errorf("person's message: %w", err)
	}
	var m messageRecord
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return nod.ChatMessage{}, false, fmt.Errorf("person's message: %w", err)
	}
	return m.message(seq), true, nil
}

// LastUpdateID returns the highest update id handled, or 0.
func (db *Outbox) LastUpdateID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := db.reader().QueryRowContext(ctx, `SELECT MAX(update_id) FROM processed_updates`).Scan(&id); err != nil {
		return 0, fmt.Errorf("last update: %w", err)
	}
	return id.Int64, nil
}

// supersede closes a pending item that no longer stands, saying why in
// note (a newer proposal replaced it, or its words were edited); an item
// decided meanwhile is left as it is.
func supersede(ctx context.Context, tx conn, chatID nod.ChatID, ref nod.ItemRef, note string, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE change_items SET status = 'stale', note = $4
		WHERE set_id = $1 AND n = $2 AND status = 'pending' AND set_id IN (SELECT id FROM change_sets WHERE chat_id = $3)`, ref.SetID, ref.N, chatID, encodeNote(nod.Note{Key: note}))
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

// The stored form of a conversation message: storage's own, with explicit
// names (those nod.ChatMessage's tags had when messages were first
// stored), so that a change to the domain type never breaks history
// already written.
type (
	messageRecord struct {
		Role       string       `json:"role"`
		Content    string       `json:"content,omitempty"`
		ToolCalls  []callRecord `json:"tool_calls,omitempty"`
		ToolCallID string       `json:"tool_call_id,omitempty"`
		Review     bool         `json:"review,omitempty"`
		At         time.Time    `json:"at"`
		UserID     nod.UserID   `json:"user_id,omitempty"`
		Speaker    string       `json:"speaker,omitempty"`
		ReplyTo    string       `json:"reply_to,omitempty"`
		MsgID      int          `json:"msg_id,omitempty"`
		Forwarded  string       `json:"forwarded,omitempty"`
		EditOf     int          `json:"edit_of,omitempty"`
		Edits      string       `json:"edits,omitempty"`
	}
	callRecord struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
)

func recordMessage(m nod.ChatMessage) messageRecord {
	r := messageRecord{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Review: m.Review, At: m.At,
		UserID: m.UserID, Speaker: m.Speaker, ReplyTo: m.ReplyTo, MsgID: m.MsgID, Forwarded: m.Forwarded, EditOf: m.EditOf, Edits: m.Edits}
	for _, c := range m.ToolCalls {
		r.ToolCalls = append(r.ToolCalls, callRecord{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return r
}

// valid reports whether r's text is valid UTF-8, which its JSON keeps
// as it is.
func (r messageRecord) valid() bool {
	for _, s := range []string{r.Role, r.Content, r.ToolCallID, r.Speaker, r.ReplyTo, r.Forwarded, r.Edits} {
		if !utf8.ValidString(s) {
			return false
		}
	}
	for _, c := range r.ToolCalls {
		if !utf8.ValidString(c.ID) || !utf8.ValidString(c.Name) || !utf8.ValidString(c.Arguments) {
			return false
		}
	}
	return true
}

func (r messageRecord) message(seq int64) nod.ChatMessage {
	m := nod.ChatMessage{Role: nod.Role(r.Role), Content: r.Content, ToolCallID: r.ToolCallID, Review: r.Review, At: r.At,
		UserID: r.UserID, Speaker: r.Speaker, ReplyTo: r.ReplyTo, Seq: seq, MsgID: r.MsgID, Forwarded: r.Forwarded, EditOf: r.EditOf, Edits: r.Edits}
	for _, c := range r.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, nod.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return m
}

// blobType names the bytes type a VALUES list casts to.
func blobType(postgres bool) string {
	if postgres {
		return "BYTEA"
	}
	return "BLOB"
}

// storedMessage decodes a row of messages: its number, its record (read
// before the row's buffer is reused) and its request encoding, the row's
// own copy.
func storedMessage(seq int64, body, wire []byte) (nod.ChatMessage, error) {
	var m messageRecord
	if err := jsonv2.Unmarshal(body, &m); err != nil {
		return nod.ChatMessage{}, err
	}
	msg := m.message(seq)
	msg.Wire = wire
	return msg, nil
}
