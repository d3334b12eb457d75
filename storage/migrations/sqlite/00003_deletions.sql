-- +goose Up
-- A delete_task waiting for the person to type the task's title; one per
-- chat at a time.
CREATE TABLE pending_deletions (
    chat_id    BIGINT PRIMARY KEY,
    user_id    BIGINT NOT NULL,
    task_id    TEXT NOT NULL,
    title      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX change_items_undo ON change_items (undo_id);
CREATE INDEX change_sets_message ON change_sets (chat_id, message_id);

-- +goose Down
DROP INDEX change_sets_message;
DROP INDEX change_items_undo;
DROP TABLE pending_deletions;
