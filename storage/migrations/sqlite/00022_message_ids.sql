-- +goose Up
-- msg_id is the Telegram message a person's line holds: an edit of that
-- message finds the words it replaces.
ALTER TABLE messages ADD COLUMN msg_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX messages_chat_msg ON messages (chat_id, msg_id) WHERE msg_id <> 0;

-- +goose Down
DROP INDEX messages_chat_msg;
ALTER TABLE messages DROP COLUMN msg_id;
