-- +goose Up
-- The zone a stay goes back to when it is not the one before it ("in
-- Berlin till Sunday; I live in Lisbon"); NULL: before_tz.
ALTER TABLE zone_changes ADD COLUMN back_tz TEXT;

-- +goose Down
ALTER TABLE zone_changes DROP COLUMN back_tz;
