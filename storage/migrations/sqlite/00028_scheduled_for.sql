-- +goose Up
-- Who set a task's reminder and who turned a chat's daily review on:
-- scheduled work goes out only while that person is still allowed, and a
-- reminder belongs to them. 0: set before this was kept.
ALTER TABLE tasks ADD COLUMN remind_by BIGINT NOT NULL DEFAULT 0;
ALTER TABLE chat_settings ADD COLUMN daily_by BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE chat_settings DROP COLUMN daily_by;
ALTER TABLE tasks DROP COLUMN remind_by;
