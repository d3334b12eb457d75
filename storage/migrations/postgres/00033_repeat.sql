-- +goose Up
-- A task's repeating reminder: its RRULE, with the local time it was
-- read from ("DTSTART:20261130T080000\nRRULE:FREQ=DAILY"), floating in
-- the chat's zone. Empty: the reminder does not repeat.
ALTER TABLE tasks ADD COLUMN repeat TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tasks DROP COLUMN repeat;
