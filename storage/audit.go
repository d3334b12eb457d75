package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

func insertAudit(ctx context.Context, q querier, a nod.AuditEntry) error {
	if a.Outcome == "" || a.Tool == "" {
		return fmt.Errorf("audit row without tool or outcome: %w", nod.ErrInvalid)
	}
	args := a.Args
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	_, err := q.ExecContext(ctx, `INSERT INTO audit_log (chat_id, user_id, tool, args, outcome, user_confirmed, verdict, error, reason, duration_us, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
		a.ChatID, a.UserID, a.Tool, string(args), string(a.Outcome), boolInt(a.UserConfirmed), a.Verdict, a.Error, a.Reason, a.Duration.Microseconds(), micros(a.At))
	if err != nil {
		return fmt.Errorf("audit %s %s: %w", a.Tool, a.Outcome, err)
	}
	return nil
}

// AddAudit appends entries to the audit log in one transaction.
func (db *DB) AddAudit(ctx context.Context, entries ...nod.AuditEntry) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		for _, a := range entries {
			if a.At.IsZero() {
				a.At = db.now()
			}
			if err := insertAudit(ctx, tx, a); err != nil {
				return err
			}
		}
		return nil
	})
}

const auditColumns = `id, chat_id, user_id, tool, args, outcome, user_confirmed, verdict, error, reason, duration_us, created_at`

// Audit returns the chat's latest audit entries, newest first.
func (db *DB) Audit(ctx context.Context, chatID int64, limit int) ([]nod.AuditEntry, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE chat_id = $1 ORDER BY id DESC LIMIT $2`, chatID, limit)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return scanAudit(rows)
}

// AuditSince returns the entries written at or after since, oldest first;
// chatID 0 means every chat.
func (db *DB) AuditSince(ctx context.Context, chatID int64, since time.Time) ([]nod.AuditEntry, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log WHERE ($1 = 0 OR chat_id = $1) AND created_at >= $2 ORDER BY id`, chatID, micros(since))
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return scanAudit(rows)
}

func scanAudit(rows *sql.Rows) ([]nod.AuditEntry, error) {
	defer rows.Close()
	var out []nod.AuditEntry
	for rows.Next() {
		var (
			a       nod.AuditEntry
			args    string
			outcome string
			conf    int
			dur, at int64
		)
		if err := rows.Scan(&a.ID, &a.ChatID, &a.UserID, &a.Tool, &args, &outcome, &conf, &a.Verdict, &a.Error, &a.Reason, &dur, &at); err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		a.Args, a.Outcome, a.UserConfirmed = json.RawMessage(args), nod.Outcome(outcome), conf != 0
		a.Duration, a.At = time.Duration(dur)*time.Microsecond, fromMicros(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// RecentDecisions returns the chat's latest decisions, newest first.
func (db *DB) RecentDecisions(ctx context.Context, chatID int64, limit int) ([]nod.Decision, error) {
	ds, err := queryDecisions(ctx, db.db, `WHERE chat_id = $1 ORDER BY seq DESC LIMIT $2`, chatID, limit)
	if err != nil {
		return nil, fmt.Errorf("decisions: %w", err)
	}
	return ds, nil
}

// queryDecisions reads decisions; where is the query's tail.
func queryDecisions(ctx context.Context, q querier, where string, args ...any) ([]nod.Decision, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, chat_id, set_id, item_id, n, user_id, verdict, reason, tool, summary, created_at FROM decisions `+where, args...)
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
		if err := rows.Scan(&d.ID, &d.ChatID, &d.SetID, &d.ItemID, &d.N, &d.UserID, &verdict, &d.Reason, &d.Tool, &d.Summary, &at); err != nil {
			return nil, err
		}
		d.Verdict, d.At = nod.Verdict(verdict), fromMicros(at)
		out = append(out, d)
	}
	return out, rows.Err()
}
