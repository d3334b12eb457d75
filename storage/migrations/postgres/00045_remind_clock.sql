-- +goose Up
-- The UTC offset, in seconds, of another place's clock a reminder was
-- given in ("9 Berlin time" from London); NULL: the chat's own clock. A
-- zone change moves only reminders of the chat's clock, to the same time
-- of day in the new zone.
ALTER TABLE tasks ADD COLUMN remind_clock INTEGER;

-- +goose Down
ALTER TABLE tasks DROP COLUMN remind_clock;
