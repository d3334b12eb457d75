package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// Calls keeps the calls of external tools (docs/design.md §15): each is
// claimed before it is sent, so that it is sent at most once, and its
// outcome recorded with its audit row.
type Calls struct{ *core }

// Calls returns the external calls repository.
func (db *DB) Calls() *Calls { return &db.calls }

// Claim records call c as claimed, with the report of its outcome owed,
// in one transaction: the call the person's words run at once. Its ID is
// set here.
func (db *Calls) Claim(ctx context.Context, c *nod.ExternalCall) error {
	now := db.now()
	return db.inTx(ctx, func(tx conn) error { return db.claim(ctx, tx, c, now) })
}

// claim inserts call c as claimed, with the report of its outcome owed,
// inside tx.
func (db *core) claim(ctx context.Context, tx conn, c *nod.ExternalCall, now time.Time) error {
	c.ID, c.State, c.ClaimedAt = nod.NewID(), nod.CallClaimed, now
	if len(c.Args) == 0 {
		c.Args = json.RawMessage("{}")
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO external_calls (id, chat_id, thread, user_id, tool, args, set_id, n, state, claimed_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		c.ID, c.ChatID, c.Thread, c.UserID, string(c.Tool), string(c.Args), string(c.SetID), c.N, string(c.State), micros(now))
	if err != nil {
		return fmt.Errorf("claim call of %s: %w", c.Tool, err)
	}
	return db.owe(ctx, tx, nod.Owed{Topic: c.Topic, Kind: nod.OwedCall, Ref: c.ID}, now)
}

// Finish records the outcome of claimed call c (c.Result, or c.Err when
// it returned none) with its audit row, in one transaction: audit is the
// row's verdict, reason and whether the person confirmed it. A call
// already marked unknown keeps that state, its outcome recorded all the
// same: the person was told it is unknown.
func (db *Calls) Finish(ctx context.Context, c *nod.ExternalCall, audit nod.AuditEntry) error {
	now := db.now()
	return db.inTx(ctx, func(tx conn) error {
		res, err := tx.ExecContext(ctx, `UPDATE external_calls SET state = CASE WHEN state = 'claimed' THEN 'done' ELSE state END, result = $1, failure = $2, done_at = COALESCE(done_at, $3), not_sent = $6 WHERE id = $4 AND chat_id = $5`,
			encodeResult(c.Result), c.Err, micros(now), c.ID, c.ChatID, boolInt(c.NotSent))
		if err != nil {
			return fmt.Errorf("finish call %s: %w", c.ID, err)
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return fmt.Errorf("call %s: %w", c.ID, nod.ErrNotFound)
		}
		if c.State == nod.CallClaimed {
			c.State = nod.CallDone
		}
		audit.ChatID, audit.UserID, audit.Tool, audit.At = c.ChatID, c.UserID, c.Tool, now
		audit.Args = CallAuditArgs(*c)
		audit.Outcome = nod.OutcomeExecuted
		if c.Err != "" || c.Result.IsError {
			audit.Outcome = nod.OutcomeFailed
			audit.Error = firstLines(c.Err + c.Result.Text)
		}
		return db.insertAudit(ctx, tx, audit)
	})
}

// Settle reads call id of the chat for the report of its outcome. A call
// still claimed is under way nowhere any more, since its report is owed
// to a process that stopped: it is marked unknown, with its audit row,
// and never sent again.
func (db *Calls) Settle(ctx context.Context, chatID nod.ChatID, id string) (nod.ExternalCall, error) {
	var c nod.ExternalCall
	now := db.now()
	err := db.inTx(ctx, func(tx conn) error {
		var err error
		if c, err = getCall(ctx, tx, chatID, id); err != nil {
			return err
		}
		if c.State != nod.CallClaimed {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE external_calls SET state = 'unknown', done_at = $1 WHERE id = $2 AND state = 'claimed'`, micros(now), id); err != nil {
			return fmt.Errorf("settle call %s: %w", id, err)
		}
		c.State = nod.CallUnknown
		return db.insertAudit(ctx, tx, nod.AuditEntry{ChatID: c.ChatID, UserID: c.UserID, Tool: c.Tool, Args: CallAuditArgs(c), Outcome: nod.OutcomeFailed,
			Error: "outcome unknown: nod stopped while the call was under way; it is not sent again", At: now})
	})
	return c, err
}

// Call returns call id of the chat; nod.ErrNotFound if it has none.
func (db *Calls) Call(ctx context.Context, chatID nod.ChatID, id string) (nod.ExternalCall, error) {
	return getCall(ctx, db.reader(), chatID, id)
}

func getCall(ctx context.Context, q conn, chatID nod.ChatID, id string) (nod.ExternalCall, error) {
	var (
		c                   nod.ExternalCall
		args, state, result string
		claimed             int64
		notSent             int
	)
	err := q.QueryRowContext(ctx, `SELECT id, chat_id, thread, user_id, tool, args, set_id, n, state, result, failure, claimed_at, not_sent FROM external_calls WHERE id = $1 AND chat_id = $2`, id, chatID).
		Scan(&c.ID, &c.ChatID, &c.Thread, &c.UserID, &c.Tool, &args, &c.SetID, &c.N, &state, &result, &c.Err, &claimed, &notSent)
	if noRows(err) {
		return c, fmt.Errorf("call %s: %w", id, nod.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("call %s: %w", id, err)
	}
	c.Args, c.State, c.ClaimedAt = json.RawMessage(args), nod.CallState(state), fromMicros(claimed)
	c.Result, c.NotSent = decodeResult(result), notSent != 0
	return c, nil
}

// resultRecord is the stored form of a call's result.
type resultRecord struct {
	Text       string          `json:"text,omitempty"`
	Structured json.RawMessage `json:"structured,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Truncated  bool            `json:"truncated,omitempty"`
}

func encodeResult(r nod.ExternalResult) string {
	b, _ := json.Marshal(resultRecord(r)) // strings and raw JSON from a decoder: cannot fail
	return string(b)
}

func decodeResult(s string) nod.ExternalResult {
	var r resultRecord
	if s != "" {
		json.Unmarshal([]byte(s), &r) // a record nod wrote; unreadable: no result
	}
	return nod.ExternalResult(r)
}

// auditLines is how many lines of a result an audit row keeps.
const auditLines = 5

// firstLines is the start of a call's result for its audit row: the
// first lines, each and all bounded.
func firstLines(s string) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", auditLines+1)
	if len(lines) > auditLines {
		lines = append(lines[:auditLines], "…")
	}
	out := strings.Join(lines, "\n")
	if r := []rune(out); len(r) > 500 {
		out = string(r[:500]) + "…"
	}
	return out
}

// CallAuditArgs is what an external call's audit row records: its
// server, tool and arguments, and the first lines of its result once it
// has one.
func CallAuditArgs(c nod.ExternalCall) json.RawMessage {
	server, tool := c.Tool.Server()
	rec := map[string]any{"server": server, "tool": tool, "arguments": json.RawMessage(c.Args)}
	if !json.Valid(c.Args) {
		rec["arguments"] = string(c.Args)
	}
	if c.State != nod.CallClaimed || c.Result.Text != "" || c.Err != "" {
		rec["result"] = firstLines(c.Result.Text)
		if c.Result.Text == "" && len(c.Result.Structured) > 0 {
			rec["result"] = firstLines(string(c.Result.Structured))
		}
		if c.Result.IsError || c.Err != "" {
			rec["is_error"] = true
		}
	}
	b, _ := json.Marshal(rec)
	return b
}
