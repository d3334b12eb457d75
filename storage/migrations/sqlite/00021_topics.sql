-- +goose Up
-- thread: the forum topic (message_thread_id) a row belongs to; 0 is the
-- chat outside any topic, as every row written before topics is. A
-- topic's conversation is its own: messages are numbered per chat and
-- topic, and change sets, undo entries, owed messages and deletion
-- questions each keep the topic they were made in. Tasks stay the chat's;
-- a reminder goes to the topic that set it, and the daily review to the
-- one /daily was given in.
ALTER TABLE messages ADD COLUMN thread BIGINT NOT NULL DEFAULT 0;
CREATE INDEX messages_topic_seq ON messages (chat_id, thread, seq);
ALTER TABLE change_sets ADD COLUMN thread BIGINT NOT NULL DEFAULT 0;
ALTER TABLE undo_entries ADD COLUMN thread BIGINT NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN thread BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pending_deletions ADD COLUMN thread BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN remind_thread BIGINT NOT NULL DEFAULT 0;
ALTER TABLE chat_settings ADD COLUMN daily_thread BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE chat_settings DROP COLUMN daily_thread;
ALTER TABLE tasks DROP COLUMN remind_thread;
ALTER TABLE pending_deletions DROP COLUMN thread;
ALTER TABLE outbox DROP COLUMN thread;
ALTER TABLE undo_entries DROP COLUMN thread;
ALTER TABLE change_sets DROP COLUMN thread;
DROP INDEX messages_topic_seq;
ALTER TABLE messages DROP COLUMN thread;
-- The topics' messages join their chat's conversation, numbered in the
-- order they were stored.
UPDATE messages SET seq = numbered.n
    FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY chat_id ORDER BY id) AS n FROM messages) AS numbered
    WHERE messages.id = numbered.id;
