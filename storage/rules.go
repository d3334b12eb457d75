package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// OfferRule records the offer of a rule for kind, unless the person was
// offered one before: it returns false if an offer or a rule of that kind
// is open, or was ever declined or revoked. An expired rule may be
// offered again.
func (db *Rules) OfferRule(ctx context.Context, chatID nod.ChatID, userID nod.UserID, kind string) (nod.Rule, bool, error) {
	now := db.now()
	r := nod.Rule{ID: nod.RuleID(nod.NewID()), ChatID: chatID, UserID: userID, Kind: kind, Status: nod.RuleOffered, CreatedAt: now}
	created := false
	err := db.inTx(ctx, func(tx conn) error {
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET status = 'expired' WHERE chat_id = $1 AND user_id = $2 AND kind = $3 AND status = 'active' AND expires_at <= $4`,
			chatID, userID, kind, micros(now)); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM rules WHERE chat_id = $1 AND user_id = $2 AND kind = $3 AND status <> 'expired'`,
			chatID, userID, kind).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		// The open-rule index settles a race between two confirmations.
		res, err := tx.ExecContext(ctx, `INSERT INTO rules (id, chat_id, user_id, kind, status, created_at) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING`,
			r.ID, chatID, userID, kind, string(r.Status), micros(now))
		if err != nil {
			return err
		}
		n64, err := res.RowsAffected()
		created = n64 == 1
		return err
	})
	if err != nil {
		return r, false, fmt.Errorf("offer rule: %w", err)
	}
	return r, created, nil
}

// SetRuleMessage remembers the message that offers a rule.
func (db *Messages) SetRuleMessage(ctx context.Context, id nod.RuleID, messageID int) error {
	if _, err := db.exec(ctx, `UPDATE rules SET message_id = $1 WHERE id = $2`, messageID, id); err != nil {
		return fmt.Errorf("rule message: %w", err)
	}
	return nil
}

// Rule returns one rule of a chat.
func (db *Rules) Rule(ctx context.Context, chatID nod.ChatID, id nod.RuleID) (nod.Rule, error) {
	return getRule(ctx, db.reader(), chatID, id)
}

// Rules returns the chat's rules in force at now, oldest first.
func (db *Rules) Rules(ctx context.Context, chatID nod.ChatID, now time.Time) ([]nod.Rule, error) {
	rs, err := queryRules(ctx, db.reader(), `WHERE chat_id = $1 AND status = 'active' AND expires_at > $2 ORDER BY seq`, chatID, micros(now))
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	return rs, nil
}

// Streaks returns how far the person has come toward a rule of each kind
// nod may still offer them one of (none open, declined or revoked), as
// the confirmations that earn one count them (streakSQL), the longest
// first, after the rules offered to them that wait for their answer. A
// kind at nod.RuleStreak whose offer failed shows there too.
func (db *Rules) Streaks(ctx context.Context, chatID nod.ChatID, userID nod.UserID, now time.Time) ([]nod.Streak, error) {
	var offered, out []nod.Streak
	scan := func(into *[]nod.Streak, s nod.Streak) func(rows scanner) error {
		return func(rows scanner) error {
			for rows.Next() {
				if err := rows.Scan(&s.Kind, &s.N); err != nil {
					return err
				}
				*into = append(*into, s)
			}
			return nil
		}
	}
	err := db.readAll(ctx,
		read{query: `SELECT kind, ` + fmt.Sprint(nod.RuleStreak) + ` FROM rules WHERE chat_id = $1 AND user_id = $2 AND status = 'offered' ORDER BY seq`,
			args: []any{chatID, userID}, scan: scan(&offered, nod.Streak{Offered: true})},
		read{query: streaksSQL, args: []any{chatID, userID, micros(now)}, scan: scan(&out, nod.Streak{})})
	if err != nil {
		return nil, fmt.Errorf("streaks: %w", err)
	}
	return append(offered, out...), nil
}

// streaksSQL is streakSQL for every kind of person $2's at once, each
// kind's latest decisions numbered per kind, but the kinds with a rule
// that is not over.
var streaksSQL = `WITH ranked AS (SELECT kind, set_id, verdict, seq, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY seq DESC) AS k
		FROM decisions WHERE chat_id = $1 AND user_id = $2 AND kind <> ''),
	latest AS (SELECT kind, set_id, verdict, seq FROM ranked WHERE k <= ` + fmt.Sprint(streakWindow) + `)
	SELECT d.kind, COUNT(DISTINCT d.set_id) AS n` + streakCount + `
		AND NOT EXISTS (SELECT 1 FROM rules r WHERE r.chat_id = $1 AND r.user_id = $2 AND r.kind = d.kind
			AND r.status <> 'expired' AND NOT (r.status = 'active' AND r.expires_at <= $3))
	GROUP BY d.kind ORDER BY n DESC, d.kind`

// DecideRule accepts or declines an offered rule with its audit row, in
// one transaction; nod.ErrDecided if it was decided before. An accepted
// rule lasts nod.RuleLifetime.
func (db *Rules) DecideRule(ctx context.Context, chatID nod.ChatID, id nod.RuleID, userID nod.UserID, accept bool) (nod.Rule, error) {
	now := db.now()
	status, outcome, expires := nod.RuleDeclined, nod.OutcomeDeclined, sql.NullInt64{}
	if accept {
		status, outcome, expires = nod.RuleActive, nod.OutcomeCreated, sql.NullInt64{Int64: micros(now.Add(nod.RuleLifetime)), Valid: true}
	}
	return db.moveRule(ctx, chatID, id, userID, nod.RuleOffered, status, expires, outcome)
}

// RevokeRule ends an active rule with its audit row, in one transaction;
// nod.ErrDecided if it is not active.
func (db *Rules) RevokeRule(ctx context.Context, chatID nod.ChatID, id nod.RuleID, userID nod.UserID) (nod.Rule, error) {
	return db.moveRule(ctx, chatID, id, userID, nod.RuleActive, nod.RuleRevoked, sql.NullInt64{}, nod.OutcomeRevoked)
}

// moveRule claims a rule in status from and moves it to status to.
func (db *Rules) moveRule(ctx context.Context, chatID nod.ChatID, id nod.RuleID, userID nod.UserID, from, to nod.RuleStatus, expires sql.NullInt64, o nod.Outcome) (nod.Rule, error) {
	now := db.now()
	var r nod.Rule
	err := db.inTx(ctx, func(tx conn) error {
		expiry := `expires_at`
		args := []any{string(to), micros(now), chatID, id, string(from)}
		if expires.Valid {
			expiry = `$6`
			args = append(args, expires.Int64)
		}
		res, err := tx.ExecContext(ctx, `UPDATE rules SET status = $1, decided_at = $2, expires_at = `+expiry+` WHERE chat_id = $3 AND id = $4 AND status = $5`, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			if _, err := getRule(ctx, tx, chatID, id); err != nil {
				return err
			}
			return fmt.Errorf("rule %s is no longer %s: %w", id, from, nod.ErrDecided)
		}
		if r, err = getRule(ctx, tx, chatID, id); err != nil {
			return err
		}
		what, _ := json.Marshal(map[string]string{"rule_id": string(r.ID), "kind": r.Kind})
		return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: chatID, UserID: userID, Tool: nod.ToolRule, Args: what, Outcome: o, UserConfirmed: true, At: now})
	})
	if err != nil {
		return r, fmt.Errorf("rule %s: %w", to, err)
	}
	return r, nil
}

func getRule(ctx context.Context, q conn, chatID nod.ChatID, id nod.RuleID) (nod.Rule, error) {
	rs, err := queryRules(ctx, q, `WHERE chat_id = $1 AND id = $2`, chatID, id)
	if err != nil {
		return nod.Rule{}, err
	}
	if len(rs) == 0 {
		return nod.Rule{}, fmt.Errorf("rule %s: %w", id, nod.ErrNotFound)
	}
	return rs[0], nil
}

func queryRules(ctx context.Context, q conn, where string, args ...any) ([]nod.Rule, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, chat_id, user_id, kind, status, message_id, created_at, expires_at FROM rules `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []nod.Rule
	for rows.Next() {
		var (
			r       nod.Rule
			status  string
			created int64
			expires sql.NullInt64
		)
		if err := rows.Scan(&r.ID, &r.ChatID, &r.UserID, &r.Kind, &status, &r.MessageID, &created, &expires); err != nil {
			return nil, err
		}
		r.Status, r.CreatedAt, r.ExpiresAt = nod.RuleStatus(status), fromMicros(created), timePtr(expires)
		out = append(out, r)
	}
	return out, rows.Err()
}
