-- +goose Up
-- An owed message is known by its number (seq): the random id and its
-- unique index go, as on SQLite, where they cost every owed message two
-- pages of the WAL.
ALTER TABLE outbox DROP COLUMN id;

-- +goose Down
ALTER TABLE outbox ADD COLUMN id TEXT;
UPDATE outbox SET id = 'o' || seq;
ALTER TABLE outbox ALTER COLUMN id SET NOT NULL;
ALTER TABLE outbox ADD CONSTRAINT outbox_id_key UNIQUE (id);
