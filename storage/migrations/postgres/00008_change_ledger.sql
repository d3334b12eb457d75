-- +goose Up
-- delta: the change an undo entry reverts, as the fields and checklist
-- items it touched with their values before and after (JSON). Entries
-- written before it keep whole-task snapshots in before/after, which are
-- diffed into a change when read. reverts: the entry an undo undid.
ALTER TABLE undo_entries ADD COLUMN delta TEXT;
ALTER TABLE undo_entries ADD COLUMN reverts TEXT NOT NULL DEFAULT '';
CREATE INDEX undo_entries_user ON undo_entries (chat_id, user_id, seq);

-- +goose Down
DROP INDEX undo_entries_user;
ALTER TABLE undo_entries DROP COLUMN reverts;
ALTER TABLE undo_entries DROP COLUMN delta;
