-- +goose Up
-- The person's answer in words that decided an item, when nod read it
-- itself ("ja zu 1 und 3, 2 nicht"): the agent is told it beside the
-- decision, so that it can see what was read. '': a tap, or decided
-- before this was kept.
ALTER TABLE decisions ADD COLUMN words TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE decisions DROP COLUMN words;
