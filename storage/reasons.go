package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nodbot/nod"
)

// LatestRejection returns the newest rejection on the set, or
// nod.ErrNotFound. A confirmation decided after it (two taps in quick
// succession land in either order) leaves it the one a reason is for.
func (db *ChangeSets) LatestRejection(ctx context.Context, setID nod.SetID) (nod.Decision, error) {
	ds, err := queryDecisions(ctx, db.reader(), `WHERE set_id = $1 AND verdict = 'rejected' ORDER BY seq DESC LIMIT 1`, setID)
	if err != nil {
		return nod.Decision{}, fmt.Errorf("latest rejection: %w", err)
	}
	if len(ds) == 0 {
		return nod.Decision{}, fmt.Errorf("rejection in set %s: %w", setID, nod.ErrNotFound)
	}
	return ds[0], nil
}

// SetReason stores the reason of a rejection that has none yet; it returns
// nod.ErrDecided if it already has one.
func (db *ChangeSets) SetReason(ctx context.Context, decisionID, reason string) error {
	res, err := db.exec(ctx, `UPDATE decisions SET reason = $1 WHERE id = $2 AND reason = '' AND verdict = 'rejected'`, reason, decisionID)
	if err != nil {
		return fmt.Errorf("set reason: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("decision %s has a reason: %w", decisionID, nod.ErrDecided)
	}
	return nil
}

// RecentRejections returns the chat's rejections made at or after since.
func (db *ChangeSets) RecentRejections(ctx context.Context, chatID nod.ChatID, since time.Time) ([]nod.Rejection, error) {
	rows, err := db.reader().QueryContext(ctx, `SELECT d.tool, i.task_id, d.user_id, i.args, d.summary, d.reason, d.created_at
		FROM decisions d JOIN change_items i ON i.id = d.item_id
		WHERE d.chat_id = $1 AND d.verdict = 'rejected' AND d.created_at >= $2 ORDER BY d.seq DESC`, chatID, micros(since))
	if err != nil {
		return nil, fmt.Errorf("recent rejections: %w", err)
	}
	defer rows.Close()
	var out []nod.Rejection
	for rows.Next() {
		var (
			r    nod.Rejection
			args string
			at   int64
		)
		if err := rows.Scan(&r.Tool, &r.TaskID, &r.UserID, &args, &r.Summary, &r.Reason, &at); err != nil {
			return nil, fmt.Errorf("recent rejections: %w", err)
		}
		r.Args, r.At = json.RawMessage(args), fromMicros(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
