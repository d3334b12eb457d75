-- +goose Up
-- An undo entry's summary names the change it belongs to; whether the
-- entry takes it back is its reverts column, not an English prefix.
UPDATE undo_entries SET summary = substr(summary, 7) WHERE summary LIKE 'Undo: %';

-- +goose Down
UPDATE undo_entries SET summary = 'Undo: ' || summary WHERE reverts <> '' AND summary NOT LIKE 'Undo: %';
