-- +goose Up
-- message_id: the prompt that asks for the task's title, edited when the
-- deletion is answered.
ALTER TABLE pending_deletions ADD COLUMN message_id BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE pending_deletions DROP COLUMN message_id;
