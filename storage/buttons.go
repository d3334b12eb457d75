package storage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nodbot/nod"
)

// BindButtons records that message msgID of the chat carries buttons with
// these callback data, sent with it or edited into it, so that the data
// pressed on any other message can be refused. Recording a pair again
// stamps it anew: a pair is kept from the last time it was shown (see
// PruneButtons).
func (db *Messages) BindButtons(ctx context.Context, chatID nod.ChatID, msgID int, data []string) error {
	if len(data) == 0 {
		return nil
	}
	query, args := bindSQL(chatID, msgID, db.now(), data)
	if _, err := db.exec(ctx, query, args...); err != nil {
		return fmt.Errorf("bind buttons of message %d: %w", msgID, err)
	}
	return nil
}

// bindSQL is the statement that records data on message msgID; data is
// not empty.
func bindSQL(chatID nod.ChatID, msgID int, now time.Time, data []string) (string, []any) {
	var q strings.Builder
	q.WriteString(`INSERT INTO button_messages (chat_id, message_id, data, created_at) VALUES `)
	args := []any{chatID, msgID, micros(now)}
	seen := map[string]bool{}
	for _, d := range data {
		if seen[d] {
			continue // one statement may not insert a row twice
		}
		seen[d] = true
		if len(args) > 3 {
			q.WriteByte(',')
		}
		args = append(args, d)
		fmt.Fprintf(&q, "(CAST($1 AS BIGINT),CAST($2 AS BIGINT),CAST($%d AS TEXT),CAST($3 AS BIGINT))", len(args))
	}
	q.WriteString(` ON CONFLICT (chat_id, message_id, data) DO UPDATE SET created_at = excluded.created_at`)
	return q.String(), args
}

// ButtonSentWith reports whether callback data was sent with (or edited
// into) message msgID of the chat, and whether any button of that message
// was recorded at all: one that was not was sent before nod kept this
// record, or its record failed.
func (db *Messages) ButtonSentWith(ctx context.Context, chatID nod.ChatID, msgID int, data string) (sent, recorded bool, err error) {
	var on, all int64
	err = db.reader().QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN data = $3 THEN 1 ELSE 0 END), 0)
		FROM button_messages WHERE chat_id = $1 AND message_id = $2`, chatID, msgID, data).Scan(&all, &on)
	if err != nil {
		return false, false, fmt.Errorf("buttons of message %d: %w", msgID, err)
	}
	return on > 0, all > 0, nil
}

// PruneButtons deletes the callback data last sent with or edited into a
// message before cutoff, and returns how many it deleted. A press of such
// a button finds its message unrecorded (ButtonSentWith).
func (db *Messages) PruneButtons(ctx context.Context, cutoff time.Time) (int, error) {
	res, err := db.exec(ctx, `DELETE FROM button_messages WHERE created_at < $1`, micros(cutoff))
	if err != nil {
		return 0, fmt.Errorf("prune buttons: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ButtonMessages returns the chat's messages that were sent with (or
// edited to carry) a button with callback data, newest first.
func (db *Messages) ButtonMessages(ctx context.Context, chatID nod.ChatID, data string) ([]int, error) {
	rows, err := db.reader().QueryContext(ctx, `SELECT message_id FROM button_messages WHERE chat_id = $1 AND data = $2 ORDER BY message_id DESC`, chatID, data)
	if err != nil {
		return nil, fmt.Errorf("messages with button %q: %w", data, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("messages with button %q: %w", data, err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("messages with button %q: %w", data, err)
	}
	return out, nil
}

// NumberedButtons returns the chat's buttons whose callback data is
// data, or data numbered (data, ".", a number), newest message first.
func (db *Messages) NumberedButtons(ctx context.Context, chatID nod.ChatID, data string) ([]nod.SentButton, error) {
	var out []nod.SentButton
	err := db.reader().queryRows(ctx, `SELECT message_id, data FROM button_messages WHERE chat_id = $1
		AND (data = $2 OR (length(data) > $3 AND substr(data, 1, $3) = $4)) ORDER BY message_id DESC`,
		[]any{chatID, data, len(data) + 1, data + "."}, func(rows scanner) error {
			for rows.Next() {
				var b nod.SentButton
				if err := rows.Scan(&b.Message, &b.Data); err != nil {
					return err
				}
				out = append(out, b)
			}
			return rows.Err()
		})
	if err != nil {
		return nil, fmt.Errorf("messages with button %q: %w", data, err)
	}
	return out, nil
}

// MessageButtons returns the callback data message msgID of the chat was
// sent with or has carried since.
func (db *Messages) MessageButtons(ctx context.Context, chatID nod.ChatID, msgID int) ([]string, error) {
	out, err := queryIDs[string](ctx, db.reader(), `SELECT data FROM button_messages WHERE chat_id = $1 AND message_id = $2 ORDER BY data`, chatID, msgID)
	if err != nil {
		return nil, fmt.Errorf("buttons of message %d: %w", msgID, err)
	}
	return out, nil
}
