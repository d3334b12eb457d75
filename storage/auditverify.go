package storage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

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
//
// A redacted row (nod forgot its person) verifies only as its chain's
// forget row, after it, recorded it: a row emptied by anyone else is a
// break, and so is one whose fields changed since it was redacted.
func (db *Audit) VerifyAudit(ctx context.Context) (*AuditBreak, int, error) {
	keyedFrom, err := db.keyedFrom(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, err := db.reader().QueryContext(ctx, `SELECT `+chainColumns+` FROM audit_log ORDER BY chat_id, id`)
	if err != nil {
		return nil, 0, fmt.Errorf("verify audit: %w", err)
	}
	defer rows.Close()
	c := chainCheck{db: db, keyedFrom: keyedFrom}
	for rows.Next() {
		r, err := scanAuditRow(rows)
		if err != nil {
			return nil, c.checked, err
		}
		brk, err := c.next(r)
		if brk != nil || err != nil {
			return brk, c.checked, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, c.checked, err
	}
	return c.endChat(), c.checked, nil
}

// chainCheck walks the chains, a chat's rows in order, one chat after
// another.
type chainCheck struct {
	db        *Audit
	keyedFrom int64
	started   bool
	chat      nod.ChatID
	prev      string
	checked   int
	// unvouched are the chat's redacted rows no forget row has recorded
	// yet, each with its seal (legacySeal; "" for a salted row).
	unvouched map[int64]string
}

func (c *chainCheck) next(r chainedRow) (*AuditBreak, error) {
	if !c.started || r.entry.ChatID != c.chat {
		if brk := c.endChat(); brk != nil {
			return brk, nil
		}
		c.started, c.chat, c.prev, c.unvouched = true, r.entry.ChatID, "", map[int64]string{}
	}
	c.checked++
	at := func(why string) *AuditBreak { return &AuditBreak{ChatID: c.chat, ID: r.entry.ID, Why: why} }
	switch {
	case r.prev != c.prev:
		return at("does not follow the row before it (a row was removed or changed)"), nil
	case strings.HasPrefix(r.hash, keyedPrefix) && len(c.db.opts.AuditKey) == 0:
		return nil, fmt.Errorf("verify audit: row %d is keyed with NOD_AUDIT_KEY; verifying it needs the key: %w", r.entry.ID, nod.ErrInvalid)
	case c.keyedFrom != 0 && r.entry.ID > c.keyedFrom && !strings.HasPrefix(r.hash, keyedPrefix):
		return at(fmt.Sprintf("has no keyed hash though the log is keyed since row %d (written without NOD_AUDIT_KEY)", c.keyedFrom)), nil
	}
	if why := c.db.checkRow(r); why != "" {
		return at(why), nil
	}
	if r.redacted {
		c.unvouched[r.entry.ID] = legacySeal(r)
	}
	if r.entry.Tool == nod.ToolForget && !r.redacted {
		if brk := c.vouch(r); brk != nil {
			return brk, nil
		}
	}
	c.prev = r.hash
	return nil, nil
}

// endChat is the break of the chat walked so far: its first redacted row
// that no forget row recorded.
func (c *chainCheck) endChat() *AuditBreak {
	if len(c.unvouched) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(c.unvouched))
	for id := range c.unvouched {
		ids = append(ids, id)
	}
	return &AuditBreak{ChatID: c.chat, ID: slices.Min(ids), Why: "is redacted, but no forget row of its chat redacted it"}
}

// vouch settles the redacted rows that forget row f recorded. A row it
// recorded as changed before it was redacted stays a break: forgetting
// its content must not hide that.
func (c *chainCheck) vouch(f chainedRow) *AuditBreak {
	var rec forgetRecord
	if err := json.Unmarshal(f.entry.Args, &rec); err != nil {
		return &AuditBreak{ChatID: c.chat, ID: f.entry.ID, Why: "is a forget row nod cannot read"}
	}
	for _, it := range rec.Redacted {
		seal, ok := c.unvouched[it.ID]
		switch {
		case !ok:
			continue // not redacted, or not this chat's: nothing to vouch for
		case it.Changed:
			return &AuditBreak{ChatID: c.chat, ID: it.ID, Why: fmt.Sprintf("was changed before nod redacted it (forget row %d)", f.entry.ID)}
		case it.Seal != seal:
			return &AuditBreak{ChatID: c.chat, ID: it.ID, Why: fmt.Sprintf("does not match what forget row %d recorded of it (a redacted row was changed)", f.entry.ID)}
		}
		delete(c.unvouched, it.ID)
	}
	return nil
}

// checkRow reports why row r's link or digest does not hold, "" if they
// do. A redacted row is checked as far as what is left of it allows:
// a salted one's link over its digest; a legacy one by its forget row.
func (db *Audit) checkRow(r chainedRow) string {
	const changed = "its content does not match its hash (the row was changed)"
	switch {
	case r.redacted && (r.salt != "" || !emptyContent(r.entry)):
		return "is marked redacted but still holds content"
	case r.digest != "":
		if r.hash != db.rowLink(r) || !r.redacted && contentDigest(r.salt, r.entry) != r.digest {
			return changed
		}
	case !r.redacted && r.hash != db.legacyLink(r):
		return changed
	}
	return ""
}

// intact reports whether row r, before it is redacted, is as it was
// written: its link (and digest) over its content as stored.
func (db *Audit) intact(r chainedRow) bool {
	if r.digest != "" {
		return r.hash == db.rowLink(r) && contentDigest(r.salt, r.entry) == r.digest
	}
	return r.hash == db.legacyLink(r)
}

// emptyContent reports whether a row holds nothing of its person, as
// redacting leaves it.
func emptyContent(a nod.AuditEntry) bool {
	return a.UserID == 0 && (string(a.Args) == "{}" || len(a.Args) == 0) && a.Verdict == "" && a.Error == "" && a.Reason == ""
}

// rowLink is the link a salted row should have, keyed or plain as it
// was written.
func (db *Audit) rowLink(r chainedRow) string {
	if strings.HasPrefix(r.hash, keyedPrefix) {
		return keyedPrefix + saltedLink(hmac.New(sha256.New, db.opts.AuditKey), r.prev, r.entry, r.digest)
	}
	return saltedLink(sha256.New(), r.prev, r.entry, r.digest)
}

// legacyLink is the link a row written before salted digests should
// have, keyed or plain as it was written.
func (db *Audit) legacyLink(r chainedRow) string {
	if strings.HasPrefix(r.hash, keyedPrefix) {
		return keyedPrefix + linkHash(hmac.New(sha256.New, db.opts.AuditKey), r.prev, r.entry)
	}
	return linkHash(sha256.New(), r.prev, r.entry)
}

// legacySeal is what the forget row records of a redacted row written
// before salted digests, whose link covers the content it no longer
// has: the link itself and every field the row keeps. A salted row's
// link covers those fields itself: its seal is "".
func legacySeal(r chainedRow) string {
	if r.digest != "" {
		return ""
	}
	h := sha256.New()
	a := r.entry
	writeFields(h, "nod-audit-redacted-v1", strconv.FormatInt(a.ID, 10), r.prev, r.hash, strconv.FormatInt(int64(a.ChatID), 10), string(a.Tool),
		string(a.Outcome), strconv.FormatBool(a.UserConfirmed), strconv.FormatInt(a.Duration.Microseconds(), 10), strconv.FormatInt(micros(a.At), 10))
	return hex.EncodeToString(h.Sum(nil))
}

// forgetRecord is the arguments of a forget row: how many rows of its
// chat it redacted, and each of them.
type forgetRecord struct {
	Rows     int            `json:"rows"`
	Redacted []redactedItem `json:"redacted"`
}

// redactedItem is one row a forget redacted: a legacy row's seal, and
// whether the row had been changed before (its link or digest did not
// hold when nod redacted it).
type redactedItem struct {
	ID      int64  `json:"id"`
	Seal    string `json:"seal,omitempty"`
	Changed bool   `json:"changed,omitempty"`
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

// chainColumns are what a chain's check reads of a row.
const chainColumns = auditColumns + `, prev_hash, hash, salt, digest`

// chainedRow is an audit row with what chains it.
type chainedRow struct {
	entry      nod.AuditEntry
	prev, hash string
	// salt and digest are a salted row's (digest "" for a legacy row);
	// redacted marks a row whose content nod removed.
	salt, digest string
	redacted     bool
}

func scanAuditRow(rows interface{ Scan(...any) error }) (chainedRow, error) {
	var (
		r         chainedRow
		args, out string
		conf, red int
		dur, at   int64
	)
	a := &r.entry
	if err := rows.Scan(&a.ID, &a.ChatID, &a.UserID, &a.Tool, &args, &out, &conf, &a.Verdict, &a.Error, &a.Reason, &dur, &at, &red, &r.prev, &r.hash, &r.salt, &r.digest); err != nil {
		return r, fmt.Errorf("audit row: %w", err)
	}
	a.Args, a.Outcome, a.UserConfirmed, a.Redacted = json.RawMessage(args), nod.Outcome(out), conf != 0, red != 0
	a.Duration, a.At = time.Duration(dur)*time.Microsecond, fromMicros(at)
	r.redacted = a.Redacted
	return r, nil
}
