-- +goose Up
-- seq numbers a chat's messages 1, 2, 3, … so that the history sent to
-- the model can start at a fixed message for many turns: a provider's
-- prompt cache reuses a prefix only while it stays the same.
ALTER TABLE messages ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
UPDATE messages SET seq = numbered.n
    FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY chat_id ORDER BY id) AS n FROM messages) AS numbered
    WHERE messages.id = numbered.id;
-- A turn reads the chat's last number, and its history, by it.
CREATE INDEX messages_chat_seq ON messages (chat_id, seq);

-- +goose Down
DROP INDEX messages_chat_seq;
ALTER TABLE messages DROP COLUMN seq;
