-- +goose Up
-- A redo is itself undone by an Undo, and that again by a Redo: each
-- entry of the chain takes the change back or puts it back. Each later
-- entry names the change's first one (root), and the first keeps whether
-- the change is undone now (undone_now), flipped by every step, so that
-- a set's mark and what the model is told read one row, not the chain.
ALTER TABLE undo_entries ADD COLUMN root TEXT NOT NULL DEFAULT '';
ALTER TABLE undo_entries ADD COLUMN undone_now INTEGER NOT NULL DEFAULT 0;
-- Redos are few: each walks up to its first entry by id.
WITH RECURSIVE up (id, at) AS (
    SELECT id, reverts FROM undo_entries WHERE reverts <> ''
    UNION ALL
    SELECT up.id, u.reverts FROM up JOIN undo_entries u ON u.id = up.at WHERE u.reverts <> ''
)
UPDATE undo_entries SET root = COALESCE((SELECT up.at FROM up JOIN undo_entries r ON r.id = up.at
    WHERE up.id = undo_entries.id AND r.reverts = ''), '')
WHERE reverts <> '';
UPDATE undo_entries SET undone_now = 1 WHERE reverts = '' AND id IN (
    SELECT r FROM (SELECT CASE WHEN root = '' THEN id ELSE root END AS r FROM undo_entries WHERE undone_at IS NOT NULL) AS used
    GROUP BY r HAVING COUNT(*) % 2 = 1);

-- +goose Down
ALTER TABLE undo_entries DROP COLUMN undone_now;
ALTER TABLE undo_entries DROP COLUMN root;
