package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nodbot/nod/fixtures/telegramtest"
)

// The chat as the person's phone holds it is kept beside a database the
// player named (-db), so that a restart on it shows the same chat, its
// buttons still tappable, and the stand-in numbers new messages after the
// ones nod stored: Telegram never reuses a message id.

// chatFile is where the chat of database db is kept.
func chatFile(db string) string { return db + ".chat.json" }

// clockFile is where nod's clock as the chat was last kept is: a restart
// goes on from it, as nod's clock never runs back (what nod did at a
// later time would otherwise stay "since" every turn).
func clockFile(db string) string { return db + ".clock" }

// restoreChat puts the kept chat back into the stand-in; none kept is an
// empty chat.
func (p *playground) restoreChat() error {
	raw, err := os.ReadFile(chatFile(p.db))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var msgs []telegramtest.Message
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return fmt.Errorf("the kept chat %s: %w", chatFile(p.db), err)
	}
	p.tg.Wire().RestoreChat(p.chatID, msgs)
	if raw, err := os.ReadFile(clockFile(p.db)); err == nil {
		if kept, err := time.Parse(time.RFC3339Nano, string(raw)); err == nil && kept.After(time.Now()) {
			p.ahead.Store(int64(time.Until(kept)))
		}
	}
	return nil
}

// keepChat writes the chat as it is now beside the database.
func (p *playground) keepChat() {
	raw, err := json.Marshal(p.tg.ChatMessages(p.chatID))
	if err == nil {
		err = writeAtomic(chatFile(p.db), raw)
	}
	if err == nil {
		err = writeAtomic(clockFile(p.db), []byte(p.now().Format(time.RFC3339Nano)))
	}
	if err != nil {
		p.log.Warn("keeping the chat", "err", err)
	}
}
