-- +goose Up
-- Whether taking an entry back puts its change back (a Redo) or takes it
-- back (an Undo) is the parity of its step along the chain, not whether
-- it reverts another entry: the Undo of a Redo reverts one and takes the
-- change back. Each entry keeps it (redoes), set when it is written: the
-- entry of an Undo redoes, that of a change or a Redo does not.
ALTER TABLE undo_entries ADD COLUMN redoes INTEGER NOT NULL DEFAULT 0;
-- Chains are few and short: each walks up to its first entry by id, and
-- an odd number of steps redoes.
WITH RECURSIVE up (id, at, depth) AS (
    SELECT id, reverts, 1 FROM undo_entries WHERE reverts <> ''
    UNION ALL
    SELECT up.id, u.reverts, up.depth + 1 FROM up JOIN undo_entries u ON u.id = up.at WHERE u.reverts <> ''
)
UPDATE undo_entries SET redoes = 1 WHERE id IN (SELECT id FROM up GROUP BY id HAVING MAX(depth) % 2 = 1);

-- +goose Down
ALTER TABLE undo_entries DROP COLUMN redoes;
