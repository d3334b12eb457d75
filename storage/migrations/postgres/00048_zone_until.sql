-- +goose Up
-- A zone set for a while ("in Berlin till Sunday") goes back to the zone
-- before it at back_at; back_due is the same moment while that return is
-- pending, cleared when the sweep claims it or another zone change comes
-- first, so that the sweep reads only what is due.
ALTER TABLE zone_changes ADD COLUMN back_at BIGINT;
ALTER TABLE zone_changes ADD COLUMN back_due BIGINT;
CREATE INDEX zone_changes_back_due ON zone_changes (back_due) WHERE back_due IS NOT NULL;

-- +goose Down
DROP INDEX zone_changes_back_due;
ALTER TABLE zone_changes DROP COLUMN back_due;
ALTER TABLE zone_changes DROP COLUMN back_at;
