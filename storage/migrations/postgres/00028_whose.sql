-- +goose Up
-- Who set a task's reminder and who turned a chat's daily review on:
-- scheduled work goes out only while that person is still allowed, and in
-- a group a reminder is its person's to act on. 0: set before this was
-- kept. A group's members' names, as Telegram last gave them, so that
-- what nod says about a person names them.
ALTER TABLE tasks ADD COLUMN remind_by BIGINT NOT NULL DEFAULT 0;
ALTER TABLE chat_settings ADD COLUMN daily_by BIGINT NOT NULL DEFAULT 0;
CREATE TABLE chat_members (
    chat_id BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    name TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);

-- +goose Down
DROP TABLE chat_members;
ALTER TABLE chat_settings DROP COLUMN daily_by;
ALTER TABLE tasks DROP COLUMN remind_by;
