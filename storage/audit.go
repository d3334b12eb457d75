package storage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// reminderWas is the args of a reminder's change with the reminder it
// replaced as "was" (RFC 3339, null for none): only the transaction knows
// it, and it tells setting a reminder from moving one. args that are not
// an object stay as they are.
func reminderWas(args json.RawMessage, ch nod.Change) json.RawMessage {
	for _, f := range ch.Fields {
		if f.Field != nod.FieldReminder {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(args, &m) != nil || m == nil {
			return args
		}
		m["was"] = json.RawMessage("null")
		if f.Before != "" {
			m["was"], _ = json.Marshal(f.Before) // a string: cannot fail
		}
		out, err := json.Marshal(m)
		if err != nil {
			return args
		}
		return out
	}
	return args
}

// insertAudit appends a row to its chat's hash chain. It must run in a
// transaction: on PostgreSQL a per-chat lock keeps concurrent writers from
// forking the chain (SQLite writers are serialised anyway).
func (db *core) insertAudit(ctx context.Context, q conn, a nod.AuditEntry) error {
	if a.Outcome == "" || a.Tool == "" {
		return fmt.Errorf("audit row without tool or outcome: %w", nod.ErrInvalid)
	}
	if len(a.Args) == 0 {
		a.Args = json.RawMessage("{}")
	}
	// The chain's head: read (under the chat's lock on PostgreSQL) once
	// per transaction, then known from the row inserted last.
	prev, known := "", false
	if q.memo != nil {
		prev, known = q.memo.auditHead[a.ChatID]
	}
	if !known {
		if err := db.lockChat(ctx, q, a.ChatID); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		err := q.QueryRowContext(ctx, `SELECT hash FROM audit_log WHERE chat_id = $1 ORDER BY id DESC LIMIT 1`, a.ChatID).Scan(&prev)
		if err != nil && !noRows(err) {
			return fmt.Errorf("audit chain: %w", err)
		}
	}
	hash := db.auditHash(prev, a)
	_, err := q.ExecContext(ctx, `INSERT INTO audit_log (chat_id, user_id, tool, args, outcome, user_confirmed, verdict, error, reason, duration_us, created_at, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
		a.ChatID, a.UserID, a.Tool, string(a.Args), string(a.Outcome), boolInt(a.UserConfirmed), a.Verdict, a.Error, a.Reason, a.Duration.Microseconds(), micros(a.At),
		prev, hash)
	if err != nil {
		return fmt.Errorf("audit %s %s: %w", a.Tool, a.Outcome, err)
	}
	if q.memo != nil {
		q.memo.auditHead[a.ChatID] = hash
	}
	return nil
}

// keyedPrefix marks a link computed with the audit key.
const keyedPrefix = "k1:"

// auditHash is the chain link of a row: SHA-256 over the previous link
// and every stored field of the row, or, with an audit key, HMAC-SHA256
// under it (marked keyedPrefix), which nobody without the key can forge.
func (db *core) auditHash(prev string, a nod.AuditEntry) string {
	if len(db.opts.AuditKey) > 0 {
		return keyedPrefix + linkHash(hmac.New(sha256.New, db.opts.AuditKey), prev, a)
	}
	return linkHash(sha256.New(), prev, a)
}

func linkHash(h hash.Hash, prev string, a nod.AuditEntry) string {
	for _, f := range []string{prev, strconv.FormatInt(int64(a.ChatID), 10), strconv.FormatInt(int64(a.UserID), 10), string(a.Tool), string(a.Args),
		string(a.Outcome), strconv.FormatBool(a.UserConfirmed), a.Verdict, a.Error, a.Reason,
		strconv.FormatInt(a.Duration.Microseconds(), 10), strconv.FormatInt(micros(a.At), 10)} {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// AuditBreak is the first row where a chat's audit chain does not hold.
type AuditBreak struct {
	ChatID nod.ChatID
	ID     int64
	Why    string
}

// VerifyAudit walks every chat's hash chain and returns the first broken
// link, or nil, and how many rows it checked.
//
// Once the log is keyed it stays keyed: a plain row after the first keyed
// one (by id, in any chat) is a break, since anyone with the database can
// compute a plain hash and relink a chain after a rewritten row. Rows
// before the key was first used verify as they were written.
func (db *Audit) VerifyAudit(ctx context.Context) (*AuditBreak, int, error) {
	keyedFrom, err := db.keyedFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, err := db.reader().QueryContext(ctx, `SELECT `+auditColumns+`, prev_hash, hash FROM audit_log ORDER BY chat_id, id`)
	if err != nil {
		return nil, 0, fmt.Errorf("verify audit: %w", err)
	}
	defer rows.Close()
	var (
		chat    nod.ChatID = -1
		prev    string
		checked int
	)
	for rows.Next() {
		a, err := scanAuditRow(rows)
		if err != nil {
			return nil, checked, err
		}
		if a.entry.ChatID != chat {
			chat, prev = a.entry.ChatID, ""
		}
		checked++
		switch {
		case a.prev != prev:
			return &AuditBreak{ChatID: chat, ID: a.entry.ID, Why: "does not follow the row before it (a row was removed or changed)"}, checked, nil
		case strings.HasPrefix(a.hash, keyedPrefix) && len(db.opts.AuditKey) == 0:
			return nil, checked, fmt.Errorf("verify audit: row %d is keyed with NOD_AUDIT_KEY; verifying it needs the key: %w", a.entry.ID, nod.ErrInvalid)
		case keyedFrom != 0 && a.entry.ID > keyedFrom && !strings.HasPrefix(a.hash, keyedPrefix):
			return &AuditBreak{ChatID: chat, ID: a.entry.ID, Why: fmt.Sprintf("has no keyed hash though the log is keyed since row %d (written without NOD_AUDIT_KEY)", keyedFrom)}, checked, nil
		case a.hash != db.rowHash(prev, a):
			return &AuditBreak{ChatID: chat, ID: a.entry.ID, Why: "its content does not match its hash (the row was changed)"}, checked, nil
		}
		prev = a.hash
	}
	return nil, checked, rows.Err()
}

// keyedFrom returns the id of the audit log's first keyed row, 0 if the
// log is not keyed: from there on every row must be.
func (db *Audit) keyedFrom(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	if err := db.reader().QueryRowContext(ctx, `SELECT MIN(id) FROM audit_log WHERE hash LIKE $1`, keyedPrefix+"%").Scan(&id); err != nil {
		return 0, fmt.Errorf("audit keyed from: %w", err)
	}
	return id.Int64, nil
}

// AuditKeyed reports whether the newest audit row is keyed: a nod without
// the key would then write rows that break the chain's rule.
func (db *Audit) AuditKeyed(ctx context.Context) (bool, error) {
	var hash string
	err := db.reader().QueryRowContext(ctx, `SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1`).Scan(&hash)
	if err != nil && !noRows(err) {
		return false, fmt.Errorf("audit keyed: %w", err)
	}
	return strings.HasPrefix(hash, keyedPrefix), nil
}

// rowHash is the link a row should have, computed as it was written:
// keyed or plain.
func (db *Audit) rowHash(prev string, r chainedRow) string {
	if strings.HasPrefix(r.hash, keyedPrefix) {
		return keyedPrefix + linkHash(hmac.New(sha256.New, db.opts.AuditKey), prev, r.entry)
	}
	return linkHash(sha256.New(), prev, r.entry)
}

type chainedRow struct {
	entry      nod.AuditEntry
	prev, hash string
}

func scanAuditRow(rows *sql.Rows) (chainedRow, error) {
	var (
		r         chainedRow
		args, out string
		conf      int
		dur, at   int64
	)
	a := &r.entry
	if err := rows.Scan(&a.ID, &a.ChatID, &a.UserID, &a.Tool, &args, &out, &conf, &a.Verdict, &a.Error, &a.Reason, &dur, &at, &r.prev, &r.hash); err != nil {
		return r, fmt.Errorf("verify audit: %w", err)
	}
	a.Args, a.Outcome, a.UserConfirmed = json.RawMessage(args), nod.Outcome(out), conf != 0
	a.Duration, a.At = time.Duration(dur)*time.Microsecond, fromMicros(at)
	return r, nil
}

// AddAudit appends entries to the audit log in one transaction.
func (db *Audit) AddAudit(ctx context.Context, entries ...nod.AuditEntry) error {
	return db.inTx(ctx, func(tx conn) error {
		for _, a := range entries {
			if a.At.IsZero() {
				a.At = db.now()
			}
			if err := db.insertAudit(ctx, tx, a); err != nil {
				return err
			}
		}
		return nil
	})
}

const auditColumns = `id, chat_id, user_id, tool, args, outcome, user_confirmed, verdict, error, reason, duration_us, created_at`

// Audit returns the chat's latest audit entries, newest first.
func (db *Audit) Audit(ctx context.Context, chatID nod.ChatID, limit int) ([]nod.AuditEntry, error) {
	rows, err := db.reader().QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE chat_id = $1 ORDER BY id DESC`+limitSQL(limit), chatID)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return scanAudit(rows)
}

// AuditSince returns the entries written at or after since, oldest first;
// chatID 0 means every chat.
func (db *Audit) AuditSince(ctx context.Context, chatID nod.ChatID, since time.Time) ([]nod.AuditEntry, error) {
	rows, err := db.reader().QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE ($1 = 0 OR chat_id = $1) AND created_at >= $2 ORDER BY id`, chatID, micros(since))
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return scanAudit(rows)
}

func scanAudit(rows *sql.Rows) ([]nod.AuditEntry, error) {
	defer rows.Close()
	var out []nod.AuditEntry
	for rows.Next() {
		a, err := scanAuditEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// scanAuditEntry scans a row of auditColumns.
func scanAuditEntry(rows *sql.Rows) (nod.AuditEntry, error) {
	var (
		a       nod.AuditEntry
		args    string
		outcome string
		conf    int
		dur, at int64
	)
	if err := rows.Scan(&a.ID, &a.ChatID, &a.UserID, &a.Tool, &args, &outcome, &conf, &a.Verdict, &a.Error, &a.Reason, &dur, &at); err != nil {
		return a, fmt.Errorf("audit: %w", err)
	}
	a.Args, a.Outcome, a.UserConfirmed = json.RawMessage(args), nod.Outcome(outcome), conf != 0
	a.Duration, a.At = time.Duration(dur)*time.Microsecond, fromMicros(at)
	return a, nil
}

// RecentDecisions returns the chat's latest decisions, newest first.
func (db *ChangeSets) RecentDecisions(ctx context.Context, chatID nod.ChatID, limit int) ([]nod.Decision, error) {
	ds, err := queryDecisions(ctx, db.reader(), `WHERE chat_id = $1 ORDER BY seq DESC`+limitSQL(limit), chatID)
	if err != nil {
		return nil, fmt.Errorf("decisions: %w", err)
	}
	return ds, nil
}

// queryDecisions reads decisions; where is the query's tail.
func queryDecisions(ctx context.Context, q conn, where string, args ...any) ([]nod.Decision, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, chat_id, set_id, item_id, n, user_id, verdict, reason, tool, summary, kind, created_at,
		COALESCE((SELECT i.task_id FROM change_items i WHERE i.id = decisions.item_id), '') FROM decisions `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []nod.Decision
	for rows.Next() {
		var (
			d       nod.Decision
			verdict string
			at      int64
		)
		if err := rows.Scan(&d.ID, &d.ChatID, &d.SetID, &d.ChangeItemID, &d.N, &d.UserID, &verdict, &d.Reason, &d.Tool, &d.Summary, &d.Kind, &at, &d.TaskID); err != nil {
			return nil, err
		}
		d.Verdict, d.At = nod.Verdict(verdict), fromMicros(at)
		out = append(out, d)
	}
	return out, rows.Err()
}
