-- +goose Up
-- The reminders a zone change moved to keep their clock times, by task,
-- with the moments before and after: its undo puts back exactly those.
-- Empty for a change recorded before this column.
ALTER TABLE zone_changes ADD COLUMN moved TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE zone_changes DROP COLUMN moved;
