package storage

import (
	"context"
	"fmt"

	"github.com/nodbot/nod"
)

// SaveMember records the name userID goes by in chatID, as Telegram last
// gave it.
func (db *Settings) SaveMember(ctx context.Context, chatID nod.ChatID, userID nod.UserID, name string) error {
	_, err := db.exec(ctx, `INSERT INTO chat_members (chat_id, user_id, name, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (chat_id, user_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at`,
		chatID, userID, name, micros(db.now()))
	if err != nil {
		return fmt.Errorf("save member %d of chat %d: %w", userID, chatID, err)
	}
	return nil
}

// MemberName returns the name userID goes by in chatID, or "" if nod
// never saw them there.
func (db *Settings) MemberName(ctx context.Context, chatID nod.ChatID, userID nod.UserID) (string, error) {
	var name string
	err := db.reader().QueryRowContext(ctx, `SELECT name FROM chat_members WHERE chat_id = $1 AND user_id = $2`, chatID, userID).Scan(&name)
	if err != nil && !noRows(err) {
		return "", fmt.Errorf("member %d of chat %d: %w", userID, chatID, err)
	}
	return name, nil
}
