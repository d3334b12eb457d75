package storage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/nodbot/nod"
)

// AuditHead pins the audit log as it was at one moment: the newest row,
// how many rows there were, and a digest of every chat's last link. Kept
// outside the database (nod logs one periodically; `nod audit head`
// prints one), it lets verify find rows removed or rewritten up to it,
// which a hash chain alone cannot: cutting a chain's tail leaves a valid
// chain. With an audit key the head is signed, so it cannot be forged.
type AuditHead struct {
	MaxID  int64
	Rows   int
	Digest string
	Sig    string // hex HMAC-SHA256 under the audit key; "" unsigned
}

const headPrefix = "nod-audit-head-v1"

// String is the head as one printable token.
func (h AuditHead) String() string {
	sig := h.Sig
	if sig == "" {
		sig = "unsigned"
	}
	return fmt.Sprintf("%s:%d:%d:%s:%s", headPrefix, h.MaxID, h.Rows, h.Digest, sig)
}

// ParseAuditHead reads a token that AuditHead.String wrote.
func ParseAuditHead(s string) (AuditHead, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	bad := fmt.Errorf("audit head %q is not one `nod audit head` printed: %w", s, nod.ErrInvalid)
	if len(parts) != 5 || parts[0] != headPrefix {
		return AuditHead{}, bad
	}
	var (
		h   AuditHead
		err error
	)
	if h.MaxID, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
		return AuditHead{}, bad
	}
	if h.Rows, err = strconv.Atoi(parts[2]); err != nil {
		return AuditHead{}, bad
	}
	h.Digest, h.Sig = parts[3], parts[4]
	if h.Sig == "unsigned" {
		h.Sig = ""
	}
	return h, nil
}

// AuditHead returns the head of the audit log as it is now.
func (db *Audit) AuditHead(ctx context.Context) (AuditHead, error) {
	var maxID int64
	if err := db.reader().QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM audit_log`).Scan(&maxID); err != nil {
		return AuditHead{}, fmt.Errorf("audit head: %w", err)
	}
	h, err := db.headAt(ctx, maxID)
	if err != nil {
		return AuditHead{}, err
	}
	if len(db.opts.AuditKey) > 0 {
		h.Sig = db.headSig(h)
	}
	return h, nil
}

// headAt computes the head of the rows up to id maxID.
func (db *Audit) headAt(ctx context.Context, maxID int64) (AuditHead, error) {
	h := AuditHead{MaxID: maxID}
	if err := db.reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE id <= $1`, maxID).Scan(&h.Rows); err != nil {
		return AuditHead{}, fmt.Errorf("audit head: %w", err)
	}
	rows, err := db.reader().QueryContext(ctx, `SELECT a.chat_id, a.id, a.hash FROM audit_log a
		JOIN (SELECT chat_id, MAX(id) AS id FROM audit_log WHERE id <= $1 GROUP BY chat_id) last ON last.id = a.id
		ORDER BY a.chat_id`, maxID)
	if err != nil {
		return AuditHead{}, fmt.Errorf("audit head: %w", err)
	}
	defer rows.Close()
	d := sha256.New()
	for rows.Next() {
		var (
			chat, id int64
			link     string
		)
		if err := rows.Scan(&chat, &id, &link); err != nil {
			return AuditHead{}, fmt.Errorf("audit head: %w", err)
		}
		fmt.Fprintf(d, "%d:%d:%s;", chat, id, link)
	}
	if err := rows.Err(); err != nil {
		return AuditHead{}, fmt.Errorf("audit head: %w", err)
	}
	h.Digest = hex.EncodeToString(d.Sum(nil))
	return h, nil
}

func (db *Audit) headSig(h AuditHead) string {
	m := hmac.New(sha256.New, db.opts.AuditKey)
	fmt.Fprintf(m, "%s:%d:%d:%s", headPrefix, h.MaxID, h.Rows, h.Digest)
	return hex.EncodeToString(m.Sum(nil))
}

// VerifyHead checks that the log still holds what head pinned: the same
// rows up to its newest, ending in the same links. It returns why not, or
// "" if it does. A signed head is checked against the audit key first; an
// unsigned one when a key is set is refused, as anyone could have made it.
func (db *Audit) VerifyHead(ctx context.Context, head AuditHead) (string, error) {
	switch {
	case head.Sig != "" && len(db.opts.AuditKey) == 0:
		return "", fmt.Errorf("the head is signed; verifying it needs NOD_AUDIT_KEY: %w", nod.ErrInvalid)
	case head.Sig == "" && len(db.opts.AuditKey) > 0:
		return "the head is unsigned, but the log is keyed: it was not written by nod", nil
	case head.Sig != "" && !hmac.Equal([]byte(head.Sig), []byte(db.headSig(head))):
		return "the head's signature does not match: it was not written with this key", nil
	}
	now, err := db.headAt(ctx, head.MaxID)
	if err != nil {
		return "", err
	}
	switch {
	case now.Rows != head.Rows:
		return fmt.Sprintf("%d of the %d rows up to row %d are left: rows were removed", now.Rows, head.Rows, head.MaxID), nil
	case now.Digest != head.Digest:
		return fmt.Sprintf("the chains up to row %d do not end as they did: rows were removed or rewritten", head.MaxID), nil
	}
	return "", nil
}
