-- +goose Up
-- The zone a stay goes back to when it is not the one before it ("in
-- Berlin till Sunday; I live in Lisbon"); NULL: before_tz. ended_stay is
-- the change whose stay this one ended, which its Undo sets again. A
-- chat's pending stay is read by chat (its settings, every zone change,
-- every claim of its reminders), not across all chats' stays.
ALTER TABLE zone_changes ADD COLUMN back_tz TEXT;
ALTER TABLE zone_changes ADD COLUMN ended_stay TEXT;
CREATE INDEX zone_changes_chat_back ON zone_changes (chat_id, back_due) WHERE back_due IS NOT NULL;

-- +goose Down
DROP INDEX zone_changes_chat_back;
ALTER TABLE zone_changes DROP COLUMN ended_stay;
ALTER TABLE zone_changes DROP COLUMN back_tz;
