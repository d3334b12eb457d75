-- +goose Up
CREATE TABLE chat_settings (
    chat_id       BIGINT PRIMARY KEY,
    mode          TEXT NOT NULL DEFAULT 'smart',
    breaker_until BIGINT,
    updated_at    BIGINT NOT NULL
);
-- auto: applied without the person's tap (an explicit request or trusted
-- mode); undoing such changes trips the circuit breaker.
ALTER TABLE undo_entries ADD COLUMN auto INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE undo_entries DROP COLUMN auto;
DROP TABLE chat_settings;
