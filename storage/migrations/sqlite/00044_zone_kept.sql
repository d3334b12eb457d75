-- +goose Up
-- The reminders a proposed zone's turn read in that zone, by task, with
-- the moment each was set to: accepting the zone keeps their clock times
-- for every other reminder, and leaves these where they are.
ALTER TABLE zone_changes ADD COLUMN kept TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE zone_changes DROP COLUMN kept;
