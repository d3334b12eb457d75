-- +goose Up
-- zone_asked: when the agent was first told to ask where the person is,
-- as a date or time came up in a chat with no zone (NULL: never); it asks
-- once, not on every date.
ALTER TABLE chat_settings ADD COLUMN zone_asked BIGINT;

-- +goose Down
ALTER TABLE chat_settings DROP COLUMN zone_asked;
