-- +goose Up
-- Every read of the conversation names its topic, or a message by its
-- Telegram id: messages_topic_seq and messages_chat_msg serve them all,
-- and these two only cost every message its writes.
DROP INDEX messages_chat;
DROP INDEX messages_chat_seq;

-- +goose Down
CREATE INDEX messages_chat ON messages (chat_id, id);
CREATE INDEX messages_chat_seq ON messages (chat_id, seq);
