package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nodbot/nod"
)

// receiptRecord is the stored form of an owed receipt.
type receiptRecord struct {
	TaskTitle string          `json:"task_title"`
	Quote     string          `json:"quote,omitempty"`
	Trusted   bool            `json:"trusted,omitempty"`
	RuleID    nod.RuleID      `json:"rule_id,omitempty"`
	N         int             `json:"n"`
	Tool      nod.Tool        `json:"tool"`
	TaskID    nod.TaskID      `json:"task_id"`
	Args      json.RawMessage `json:"args"`
	Summary   string          `json:"summary"`
	Field     string          `json:"field"`
	Before    string          `json:"before"`
	After     string          `json:"after"`
	UndoID    nod.UndoID      `json:"undo_id"`
	Detail    *detailRecord   `json:"detail,omitempty"`
}

// Interrupted records that nod stopped before it answered said, in topic
// at, and is telling the person so: an audit row, which the agent's next
// turn in that topic reads as an event. It is recorded before the message
// goes out, so that a turn the person starts on reading it knows; ref,
// the owed answer's, keeps a retried message from recording it twice.
func (db *Outbox) Interrupted(ctx context.Context, at nod.Topic, said, ref string) error {
	rec := map[string]any{"text": said, "ref": ref}
	if at.Thread != 0 {
		rec["thread"] = at.Thread
	}
	args, _ := json.Marshal(rec) // strings and a number: cannot fail
	now := db.now()
	return db.inTx(ctx, func(tx conn) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE chat_id = $1 AND tool = $2 AND args = $3`, at.ChatID, nod.ToolInterrupted, string(args)).Scan(&n); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		if n > 0 {
			return nil
		}
		return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: at.ChatID, Tool: nod.ToolInterrupted, Args: args, Outcome: nod.OutcomeExecuted, At: now})
	})
}

// zoneBackRecord is the stored form of an owed zone return: the change
// that took the chat back, for its message.
type zoneBackRecord struct {
	User   nod.UserID          `json:"user"`
	Before string              `json:"before"`
	After  string              `json:"after"`
	Moved  []nod.MovedReminder `json:"moved"`
}

// dueRecord is the stored form of an owed reminder or daily review.
type dueRecord struct {
	Due        int64      `json:"due"`
	User       nod.UserID `json:"user"`
	Missed     int        `json:"missed,omitempty"`
	MissedFrom int64      `json:"missed_from,omitempty"`
	Zone       string     `json:"zone,omitempty"` // the stay's it fell due in (nod.Owed.DueZone)
}

// answerRecord is the stored form of an owed answer.
type answerRecord struct {
	Text string `json:"text"`
}

// owe records, inside the transaction of the change it reports, a message
// the person is owed, as written by this process.
func (db *core) owe(ctx context.Context, q conn, o nod.Owed, now time.Time) error {
	var payload string
	if r := o.Receipt; r != nil {
		var rule nod.RuleID
		if r.Rule != nil {
			rule = r.Rule.ID
		}
		b, err := json.Marshal(receiptRecord{TaskTitle: r.TaskTitle, Quote: r.Quote, Trusted: r.Trusted, RuleID: rule,
			N: r.Item.N, Tool: r.Item.Tool, TaskID: r.Item.TaskID, Args: r.Item.Args, Summary: r.Item.Summary,
			Field: string(r.Item.Field), Before: r.Item.Before, After: r.Item.After, UndoID: r.Item.UndoID,
			Detail: recordDetail(r.Item)})
		if err != nil {
			return fmt.Errorf("owe receipt: %w", err)
		}
		payload = string(b)
	}
	if o.Kind == nod.OwedAnswer {
		b, _ := json.Marshal(answerRecord{Text: o.Text}) // a string: cannot fail
		payload = string(b)
	}
	if o.Zone != nil {
		b, _ := json.Marshal(zoneBackRecord{User: o.Zone.UserID, Before: o.Zone.Before, After: o.Zone.After, Moved: o.Zone.Moved}) // strings and times: cannot fail
		payload = string(b)
	}
	if !o.Due.IsZero() {
		rec := dueRecord{Due: micros(o.Due), User: o.User, Missed: o.Missed, Zone: o.DueZone}
		if o.Missed > 0 {
			rec.MissedFrom = micros(o.MissedFrom)
		}
		b, _ := json.Marshal(rec) // numbers and a string: cannot fail
		payload = string(b)
	}
	err := q.later(ctx, `INSERT INTO outbox (chat_id, thread, kind, ref, payload, owner, taken_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
		o.ChatID, o.Thread, string(o.Kind), o.Ref, payload, db.instance, micros(now))
	if err != nil {
		return fmt.Errorf("owe %s message: %w", o.Kind, err)
	}
	if o.Kind == nod.OwedRefresh {
		r := owedRef{o.ChatID, o.Ref}
		if q.memo == nil { // no transaction: committed already
			db.committed(&txMemo{refreshes: []owedRef{r}})
		} else {
			q.memo.refreshes = append(q.memo.refreshes, r)
		}
	}
	return nil
}

// committed notes what a transaction's memo holds once it has committed.
func (db *core) committed(m *txMemo) {
	if m == nil {
		return
	}
	for _, r := range m.refreshes {
		db.refreshes.note(r)
	}
	db.heads.end(m, nil)
}

// owedRef is a set owed a refresh.
type owedRef struct {
	chat nod.ChatID
	ref  string
}

// owedMarks are the sets this process's commits owed a refresh, each
// with the number of the latest commit that owed it: a delivery or a read
// that found it settled takes the mark off only if no commit owed the set
// again since it looked.
type owedMarks struct {
	mu    sync.Mutex
	last  int64
	chats map[nod.ChatID]map[string]int64
}

func (m *owedMarks) note(r owedRef) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.chats == nil {
		m.chats = map[nod.ChatID]map[string]int64{}
	}
	if m.chats[r.chat] == nil {
		m.chats[r.chat] = map[string]int64{}
	}
	m.last++
	m.chats[r.chat][r.ref] = m.last
}

// of returns the chat's marks, refs limited to those given unless none are.
func (m *owedMarks) of(chat nod.ChatID, refs ...string) map[string]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int64{}
	for ref, mark := range m.chats[chat] {
		if len(refs) == 0 || slices.Contains(refs, ref) {
			out[ref] = mark
		}
	}
	return out
}

// settle takes off the marks seen, unless a commit owed their set again.
func (m *owedMarks) settle(chat nod.ChatID, seen map[string]int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	marks := m.chats[chat]
	for ref, mark := range seen {
		if marks[ref] == mark {
			delete(marks, ref)
		}
	}
	if len(marks) == 0 {
		delete(m.chats, chat)
	}
}

// Delivered marks the chat's owed messages of kind about refs as sent.
func (db *Outbox) Delivered(ctx context.Context, chatID nod.ChatID, kind nod.OwedKind, refs ...string) error {
	if len(refs) == 0 {
		return nil
	}
	var seen map[string]int64
	if kind == nod.OwedRefresh {
		seen = db.refreshes.of(chatID, refs...) // before: what commits after may owe is not delivered
	}
	query, args := deliveredSQL(chatID, kind, db.now(), refs)
	if _, err := db.exec(ctx, query, args...); err != nil {
		return fmt.Errorf("mark %s delivered: %w", kind, err)
	}
	db.refreshes.settle(chatID, seen)
	return nil
}

// delivered is Delivered inside a transaction.
func delivered(ctx context.Context, tx conn, chatID nod.ChatID, kind nod.OwedKind, now time.Time, refs ...string) error {
	query, args := deliveredSQL(chatID, kind, now, refs)
	if err := tx.later(ctx, query, args...); err != nil {
		return fmt.Errorf("mark %s delivered: %w", kind, err)
	}
	return nil
}

func deliveredSQL(chatID nod.ChatID, kind nod.OwedKind, now time.Time, refs []string) (string, []any) {
	args := []any{micros(now), chatID, string(kind)}
	marks := make([]string, len(refs))
	for i, r := range refs {
		args = append(args, r)
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	return `UPDATE outbox SET delivered_at = $1 WHERE chat_id = $2 AND kind = $3 AND ref IN (` + strings.Join(marks, ",") + `) AND delivered_at IS NULL`, args
}

// TakeOwed takes for this process the owed messages nobody delivered, so
// that it sends them, oldest first: those taken longer than grace ago (the
// writer stopped, or its send failed), and, on SQLite, whatever another
// process left before this one opened the database (one process uses a
// SQLite file at a time, so that one has stopped). Of replicas taking at
// once, each entry goes to one.
func (db *Outbox) TakeOwed(ctx context.Context, grace time.Duration) ([]nod.Owed, error) {
	now := db.now()
	rows, err := db.reader().QueryContext(ctx, `SELECT seq, chat_id, thread, kind, ref, payload, owner, taken_at FROM outbox
		WHERE delivered_at IS NULL AND (taken_at <= $1 OR ($2 AND owner <> $3 AND taken_at < $4)) ORDER BY seq LIMIT 100`,
		micros(now.Add(-grace)), !db.postgres, db.instance, micros(db.opened))
	if err != nil {
		return nil, fmt.Errorf("owed messages: %w", err)
	}
	type row struct {
		o       nod.Owed
		seq     int64
		payload string
		owner   string
		taken   int64
	}
	var found []row
	for rows.Next() {
		var r row
		var kind string
		if err := rows.Scan(&r.seq, &r.o.ChatID, &r.o.Thread, &kind, &r.o.Ref, &r.payload, &r.owner, &r.taken); err != nil {
			rows.Close()
			return nil, fmt.Errorf("owed messages: %w", err)
		}
		r.o.ID, r.o.Kind, r.o.At = strconv.FormatInt(r.seq, 10), nod.OwedKind(kind), fromMicros(r.taken)
		found = append(found, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("owed messages: %w", err)
	}
	var out []nod.Owed
	for _, r := range found {
		res, err := db.exec(ctx, `UPDATE outbox SET owner = $1, taken_at = $2 WHERE seq = $3 AND owner = $4 AND taken_at = $5 AND delivered_at IS NULL`,
			db.instance, micros(now), r.seq, r.owner, r.taken)
		if err != nil {
			return out, fmt.Errorf("take owed message: %w", err)
		}
		if k, _ := res.RowsAffected(); k != 1 {
			continue // another replica took it
		}
		if r.o.Kind == nod.OwedAnswer {
			var rec answerRecord
			if err := json.Unmarshal([]byte(r.payload), &rec); err != nil {
				db.log.Error("owed answer unreadable", "id", r.o.ID, "err", err)
			}
			r.o.Text = rec.Text
		}
		if r.o.Kind == nod.OwedReminder || r.o.Kind == nod.OwedDaily {
			var due dueRecord
			if err := json.Unmarshal([]byte(r.payload), &due); err == nil {
				r.o.Due, r.o.User, r.o.DueZone = fromMicros(due.Due), due.User, due.Zone
				if due.Missed > 0 {
					r.o.Missed, r.o.MissedFrom = due.Missed, fromMicros(due.MissedFrom)
				}
			}
		}
		if r.o.Kind == nod.OwedZoneBack {
			var rec zoneBackRecord
			if err := json.Unmarshal([]byte(r.payload), &rec); err != nil {
				db.log.Error("owed zone return unreadable", "id", r.o.ID, "err", err)
				continue
			}
			r.o.User = rec.User
			r.o.Zone = &nod.ZoneChange{ID: r.o.Ref, ChatID: r.o.ChatID, UserID: rec.User, Before: rec.Before, After: rec.After, Moved: rec.Moved}
		}
		if r.o.Kind == nod.OwedReceipt {
			rc, err := db.readReceipt(ctx, r.o.ChatID, r.payload)
			if err != nil {
				db.log.Error("owed receipt unreadable", "id", r.o.ID, "err", err)
				continue
			}
			r.o.Receipt = &rc
		}
		out = append(out, r.o)
	}
	return out, nil
}

// readReceipt reads a receipt the outbox keeps from its payload.
func (db *core) readReceipt(ctx context.Context, chatID nod.ChatID, payload string) (nod.Receipt, error) {
	var rec receiptRecord
	if err := json.Unmarshal([]byte(payload), &rec); err != nil {
		return nod.Receipt{}, fmt.Errorf("receipt: %w", err)
	}
	r := nod.Receipt{TaskTitle: rec.TaskTitle, Quote: rec.Quote, Trusted: rec.Trusted,
		Item: nod.ChangeItem{N: rec.N, Tool: rec.Tool, TaskID: rec.TaskID, Args: rec.Args, Summary: rec.Summary,
			Field: nod.Field(rec.Field), Before: rec.Before, After: rec.After, Status: nod.ItemConfirmed, UndoID: rec.UndoID}}
	rec.Detail.fill(&r.Item)
	if rec.RuleID != "" {
		// A rule that cannot be read leaves the receipt without it: it
		// still says what changed.
		if rule, err := getRule(ctx, db.reader(), chatID, rec.RuleID); err == nil {
			r.Rule = &rule
		}
	}
	return r, nil
}

// Receipts returns the receipts the outbox keeps, sent or owed, of the
// chat's changes whose undo entries ids name, in the order of ids; a
// change without one (a tapped change set's, or one forgotten since) is
// left out.
func (db *Outbox) Receipts(ctx context.Context, chatID nod.ChatID, ids []nod.UndoID) ([]nod.Receipt, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := []any{chatID, string(nod.OwedReceipt)}
	marks := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, string(id))
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	payloads := map[nod.UndoID]string{}
	err := db.reader().queryRows(ctx, `SELECT ref, payload FROM outbox WHERE chat_id = $1 AND kind = $2 AND ref IN (`+strings.Join(marks, ",")+`)`, args,
		func(rows scanner) error {
			for rows.Next() {
				var ref, payload string
				if err := rows.Scan(&ref, &payload); err != nil {
					return err
				}
				payloads[nod.UndoID(ref)] = payload
			}
			return rows.Err()
		})
	if err != nil {
		return nil, fmt.Errorf("receipts: %w", err)
	}
	var out []nod.Receipt
	for _, id := range ids {
		payload, ok := payloads[id]
		if !ok {
			continue
		}
		r, err := db.readReceipt(ctx, chatID, payload)
		if err != nil {
			return nil, fmt.Errorf("receipt of %s: %w", id, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// OwedRefreshes returns the change sets of the chat whose messages are
// owed an edit (their items were decided or superseded), whoever wrote
// that: an edit shows the set as it is now, so sending it twice is
// harmless.
//
// The bot asks after every update, and nearly always nothing is owed: it
// reads only for a chat where a transaction of this process owed a set's
// refresh that no delivery and no read has found settled since. The mark
// is set once that transaction committed, so a read that takes it sees
// the row. What another process owed (a PostgreSQL replica's, one that
// stopped) its own read or the owed sweep (TakeOwed) delivers.
func (db *Outbox) OwedRefreshes(ctx context.Context, chatID nod.ChatID) ([]nod.SetID, error) {
	seen := db.refreshes.of(chatID)
	if len(seen) == 0 {
		return nil, nil
	}
	ids, err := queryIDs[nod.SetID](ctx, db.reader(), `SELECT DISTINCT ref FROM outbox WHERE chat_id = $1 AND kind = 'refresh' AND delivered_at IS NULL`, chatID)
	if err != nil {
		return nil, fmt.Errorf("owed refreshes: %w", err)
	}
	for _, id := range ids {
		delete(seen, string(id)) // still owed
	}
	db.refreshes.settle(chatID, seen)
	return ids, nil
}

// RefreshShown marks the refreshes owed to set shown's message delivered,
// once an edit showed it, and reports whether it did: only if the set as
// stored still decides as shown does (every item's status, note and undo
// entry, the set's status and warning), compared in the statement that
// marks, so that a decision another tap made meanwhile is not marked
// shown. false is also what a refresh someone else marked already gets:
// the caller then reads the set to tell.
func (db *Outbox) RefreshShown(ctx context.Context, shown nod.ChangeSet) (bool, error) {
	seen := db.refreshes.of(shown.ChatID, string(shown.ID))
	agg := "group_concat(i.status || ':' || i.note || ':' || i.undo_id, ',' ORDER BY i.n)"
	if db.postgres {
		agg = "string_agg(i.status || ':' || i.note || ':' || i.undo_id, ',' ORDER BY i.n)"
	}
	res, err := db.exec(ctx, `UPDATE outbox SET delivered_at = $1 WHERE chat_id = $2 AND kind = 'refresh' AND ref = $3 AND delivered_at IS NULL
		AND (SELECT s.status || '/' || CAST(s.warned AS TEXT) || '/' || COALESCE(`+agg+`, '')
			FROM change_sets s LEFT JOIN change_items i ON i.set_id = s.id WHERE s.id = $3 GROUP BY s.status, s.warned) = $4`,
		micros(db.now()), shown.ChatID, string(shown.ID), decisionsDigest(shown))
	if err != nil {
		return false, fmt.Errorf("mark refresh of %s delivered: %w", shown.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	db.refreshes.settle(shown.ChatID, seen)
	return true, nil
}

// decisionsDigest is what RefreshShown compares, as its statement builds
// it from the stored set.
func decisionsDigest(s nod.ChangeSet) string {
	var b strings.Builder
	b.WriteString(string(s.Status))
	if s.Warned {
		b.WriteString("/1/")
	} else {
		b.WriteString("/0/")
	}
	for i, it := range s.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(it.Status))
		b.WriteByte(':')
		b.WriteString(encodeNote(it.Note))
		b.WriteByte(':')
		b.WriteString(string(it.UndoID))
	}
	return b.String()
}
