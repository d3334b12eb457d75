-- +goose Up
-- When a pending set expires, and whether its message has warned of it; a
-- person can keep a set longer.
ALTER TABLE change_sets ADD COLUMN expires_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE change_sets ADD COLUMN warned INTEGER NOT NULL DEFAULT 0;
UPDATE change_sets SET expires_at = created_at + 604800000000;

-- +goose Down
ALTER TABLE change_sets DROP COLUMN warned;
ALTER TABLE change_sets DROP COLUMN expires_at;
