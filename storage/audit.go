package storage

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

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
	// The chain's head: known from the row the transaction inserted last,
	// or kept from this process's last commit of one (then the row is
	// written only if that is still the head: another process may have
	// written since), or else read (under the chat's lock on PostgreSQL).
	prev, known, kept := "", false, false
	if q.memo != nil {
		prev, known = q.memo.auditHead[a.ChatID]
	}
	if !known {
		if err := db.lockChat(ctx, q, a.ChatID); err != nil { // begins the chat's head (heads.begin)
			return fmt.Errorf("audit: %w", err)
		}
		if q.memo != nil {
			prev, kept = db.heads.kept(a.ChatID)
		}
		if !kept {
			err := q.scanOne(ctx, &prev, `SELECT hash FROM audit_log WHERE chat_id = $1 ORDER BY id DESC LIMIT 1`, a.ChatID)
			if err != nil && !noRows(err) {
				return fmt.Errorf("audit chain: %w", err)
			}
		}
	}
	salt, err := newSalt()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	digest := contentDigest(salt, a)
	hash := db.auditHash(prev, a, digest)
	args := []any{a.ChatID, a.UserID, a.Tool, string(a.Args), string(a.Outcome), boolInt(a.UserConfirmed), a.Verdict, a.Error, a.Reason, a.Duration.Microseconds(), micros(a.At),
		prev, hash, salt, digest}
	if kept {
		err = q.laterOne(ctx, headMoved{a.ChatID}, insertAuditAfterSQL, args...)
	} else {
		err = q.later(ctx, insertAuditSQL, args...)
	}
	if err != nil {
		return fmt.Errorf("audit %s %s: %w", a.Tool, a.Outcome, err)
	}
	if q.memo != nil {
		q.memo.auditHead[a.ChatID] = hash
	}
	return nil
}

// insertAuditSQL writes an audit row; insertAuditAfterSQL writes it only
// if its prev_hash ($12) is the chat's head (typed, for PostgreSQL: a
// SELECT list's parameters are text otherwise).
const (
	insertAuditInto     = `INSERT INTO audit_log (chat_id, user_id, tool, args, outcome, user_confirmed, verdict, error, reason, duration_us, created_at, prev_hash, hash, salt, digest)`
	insertAuditSQL      = insertAuditInto + ` VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)`
	insertAuditAfterSQL = insertAuditInto + `
		SELECT CAST($1 AS BIGINT), CAST($2 AS BIGINT), CAST($3 AS TEXT), CAST($4 AS TEXT), CAST($5 AS TEXT), CAST($6 AS INTEGER), CAST($7 AS TEXT), CAST($8 AS TEXT),
			CAST($9 AS TEXT), CAST($10 AS BIGINT), CAST($11 AS BIGINT), CAST($12 AS TEXT), CAST($13 AS TEXT), CAST($14 AS TEXT), CAST($15 AS TEXT)
		WHERE COALESCE((SELECT hash FROM audit_log WHERE chat_id = $1 ORDER BY id DESC LIMIT 1), '') = $12`
)

// heads are the audit chain heads of the chats this process wrote audit
// rows to last, up to keptHeads of them. A chat whose audit another
// process wrote since is marked shared, and its head is read from then
// on: two replicas writing one chat would otherwise each miss often, and
// each miss runs a transaction again.
//
// A kept head is good only for a transaction that is its chat's only one
// in this process, from before it takes the chat's lock: one that
// committed may not have reported its head yet, and one that started
// later may take the lock first. flying counts them, outside the LRU,
// which may evict.
type heads struct {
	mu     sync.Mutex
	c      *simplelru.LRU[nod.ChatID, head]
	flying map[nod.ChatID]*flight
}

type head struct {
	hash   string
	shared bool
}

// flight is a chat's transactions in this process that began and have
// not ended; overlapped once two were at one time, until none is.
type flight struct {
	n          int
	overlapped bool
}

const keptHeads = 1024

func newHeads() *heads {
	c, _ := simplelru.NewLRU[nod.ChatID, head](keptHeads, nil)
	return &heads{c: c, flying: map[nod.ChatID]*flight{}}
}

// begin notes that m's transaction may write the chat's audit. It must
// come before the transaction takes the chat's lock, and every begin
// must be ended (end).
func (h *heads) begin(m *txMemo, chat nod.ChatID) {
	if m == nil || m.flying[chat] {
		return
	}
	if m.flying == nil {
		m.flying = map[nod.ChatID]bool{}
	}
	m.flying[chat] = true
	h.mu.Lock()
	defer h.mu.Unlock()
	f := h.flying[chat]
	if f == nil {
		f = &flight{}
		h.flying[chat] = f
	} else {
		f.overlapped = true
	}
	f.n++
}

// kept returns the chat's head as this process last wrote it, to the
// transaction that began the chat and has been its only one since.
func (h *heads) kept(chat nod.ChatID) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f := h.flying[chat]; f == nil || f.n != 1 || f.overlapped {
		return "", false
	}
	v, ok := h.c.Get(chat)
	return v.hash, ok && !v.shared
}

// end settles the chats m's transaction began, once it committed (err is
// nil) or failed with err; a memo ends once, later calls do nothing.
func (h *heads) end(m *txMemo, err error) {
	if m == nil || len(m.flying) == 0 {
		return
	}
	var moved headMoved
	missed := errors.As(err, &moved)
	h.mu.Lock()
	defer h.mu.Unlock()
	for chat := range m.flying {
		overlapped := true
		if f := h.flying[chat]; f != nil {
			overlapped = f.overlapped
			if f.n--; f.n == 0 {
				delete(h.flying, chat)
			}
		}
		v, known := h.c.Peek(chat)
		switch {
		case known && v.shared:
		case overlapped:
			h.c.Remove(chat)
		case err == nil:
			if hash, ok := m.auditHead[chat]; ok {
				h.c.Add(chat, head{hash: hash})
			}
		case missed && moved.chat == chat:
			// Alone in this process, so another process wrote it.
			h.c.Add(chat, head{shared: true})
		default:
			h.c.Remove(chat)
		}
	}
	m.flying = nil
}

// headMoved is the miss of an audit row written after the chain head this
// process kept for the chat, when another process wrote the chat's audit
// since: the transaction runs again, and reads the head.
type headMoved struct{ chat nod.ChatID }

func (e headMoved) Error() string {
	return fmt.Sprintf("the audit chain of chat %d moved on: %v", e.chat, errRetry)
}

func (e headMoved) Is(target error) bool { return target == errRetry }

// keyedPrefix marks a link computed with the audit key.
const keyedPrefix = "k1:"

// auditHash is the chain link of a row: SHA-256 over the previous link,
// the row's own fields and the digest of its content (contentDigest),
// or, with an audit key, HMAC-SHA256 under it (marked keyedPrefix),
// which nobody without the key can forge.
func (db *core) auditHash(prev string, a nod.AuditEntry, digest string) string {
	if len(db.opts.AuditKey) > 0 {
		return keyedPrefix + saltedLink(hmac.New(sha256.New, db.opts.AuditKey), prev, a, digest)
	}
	return saltedLink(sha256.New(), prev, a, digest)
}

// saltedLink is a row's link as nod writes it since migration 00031: over
// the row's fields that say what happened (chat, tool, outcome, whether a
// person confirmed, duration, time) and over its content only through
// its digest, so that forgetting the content leaves the link checkable.
func saltedLink(h hash.Hash, prev string, a nod.AuditEntry, digest string) string {
	writeFields(h, prev, "v2", strconv.FormatInt(int64(a.ChatID), 10), string(a.Tool), string(a.Outcome), strconv.FormatBool(a.UserConfirmed),
		strconv.FormatInt(a.Duration.Microseconds(), 10), strconv.FormatInt(micros(a.At), 10), digest)
	return hex.EncodeToString(h.Sum(nil))
}

// contentDigest commits to what a row says of its person: who, the
// call's arguments, the verdict, the error and the reason, under the
// row's random salt. Without the salt, which forgetting removes, the
// digest of a short text such as {"task_id":"T1"} cannot be found by
// trying every likely one.
func contentDigest(salt string, a nod.AuditEntry) string {
	h := sha256.New()
	writeFields(h, "nod-audit-content-v2", salt, strconv.FormatInt(int64(a.UserID), 10), string(a.Args), a.Verdict, a.Error, a.Reason)
	return hex.EncodeToString(h.Sum(nil))
}

// newSalt is a row's salt: 16 random bytes, hex.
func newSalt() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("salt: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// writeFields writes each field with its length before it, so that no
// two lists of fields write the same bytes.
func writeFields(h hash.Hash, fields ...string) {
	for _, f := range fields {
		fmt.Fprintf(h, "%d:%s;", len(f), f)
	}
}

// linkHash is a row's link as nod wrote it before migration 00031: over
// every stored field, the content included.
func linkHash(h hash.Hash, prev string, a nod.AuditEntry) string {
	writeFields(h, prev, strconv.FormatInt(int64(a.ChatID), 10), strconv.FormatInt(int64(a.UserID), 10), string(a.Tool), string(a.Args),
		string(a.Outcome), strconv.FormatBool(a.UserConfirmed), a.Verdict, a.Error, a.Reason,
		strconv.FormatInt(a.Duration.Microseconds(), 10), strconv.FormatInt(micros(a.At), 10))
	return hex.EncodeToString(h.Sum(nil))
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

const auditColumns = `id, chat_id, user_id, tool, args, outcome, user_confirmed, verdict, error, reason, duration_us, created_at, redacted`

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
		red     int
		dur, at int64
	)
	if err := rows.Scan(&a.ID, &a.ChatID, &a.UserID, &a.Tool, &args, &outcome, &conf, &a.Verdict, &a.Error, &a.Reason, &dur, &at, &red); err != nil {
		return a, fmt.Errorf("audit: %w", err)
	}
	a.Args, a.Outcome, a.UserConfirmed, a.Redacted = json.RawMessage(args), nod.Outcome(outcome), conf != 0, red != 0
	a.Duration, a.At = time.Duration(dur)*time.Microsecond, fromMicros(at)
	return a, nil
}

// RecentDecisions returns the chat's latest decisions, newest first.
func (db *ChangeSets) RecentDecisions(ctx context.Context, chatID nod.ChatID, limit int) ([]nod.Decision, error) {
	var ds []nod.Decision
	if err := db.readOne(ctx, recentDecisionsRead(chatID, limit, &ds)); err != nil {
		return nil, fmt.Errorf("decisions: %w", err)
	}
	return ds, nil
}

// recentDecisionsRead reads the chat's latest decisions into ds, newest
// first.
func recentDecisionsRead(chatID nod.ChatID, limit int, ds *[]nod.Decision) read {
	return decisionsRead(`WHERE chat_id = $1 ORDER BY seq DESC`+limitSQL(limit), []any{chatID}, ds)
}

// queryDecisions reads decisions; where is the query's tail.
func queryDecisions(ctx context.Context, q conn, where string, args ...any) ([]nod.Decision, error) {
	rows, err := q.QueryContext(ctx, decisionsSQL+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ds, err := scanDecisions(rows)
	if err != nil {
		return nil, err
	}
	return ds, rows.Err()
}

// decisionsRead reads decisions into ds; where is the query's tail.
func decisionsRead(where string, args []any, ds *[]nod.Decision) read {
	return read{query: decisionsSQL + where, args: args, scan: func(rows scanner) error {
		var err error
		*ds, err = scanDecisions(rows)
		return err
	}}
}

// decisionsSQL reads decisions with the task each item was about,
// whether its change is undone now (taken back, and not redone since),
// and whether that task is in the trash now.
const decisionsSQL = `SELECT id, chat_id, set_id, item_id, n, user_id, verdict, reason, tool, summary, kind, created_at,
		COALESCE((SELECT i.task_id FROM change_items i WHERE i.id = decisions.item_id), ''),
		EXISTS (SELECT 1 FROM change_items i JOIN undo_entries u ON u.id = i.undo_id WHERE i.id = decisions.item_id AND u.undone_now = 1),
		EXISTS (SELECT 1 FROM change_items i JOIN tasks t ON t.id = i.task_id WHERE i.id = decisions.item_id AND t.deleted_at IS NOT NULL)
		FROM decisions `

// scanDecisions reads decisionsSQL's rows.
func scanDecisions(rows scanner) ([]nod.Decision, error) {
	var out []nod.Decision
	for rows.Next() {
		var (
			d       nod.Decision
			verdict string
			at      int64
		)
		if err := rows.Scan(&d.ID, &d.ChatID, &d.SetID, &d.ChangeItemID, &d.N, &d.UserID, &verdict, &d.Reason, &d.Tool, &d.Summary, &d.Kind, &at, &d.TaskID, &d.Undone, &d.Trashed); err != nil {
			return nil, err
		}
		d.Verdict, d.At = nod.Verdict(verdict), fromMicros(at)
		out = append(out, d)
	}
	return out, nil
}
