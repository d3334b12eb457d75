-- +goose Up
-- readings: nod's reading of a decision a person stated in words, waiting
-- for their tap; used_at once applied (or refused).
CREATE TABLE readings (
    id         TEXT PRIMARY KEY,
    chat_id    BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    set_id     TEXT NOT NULL,
    confirm    TEXT NOT NULL,
    reject     TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    used_at    BIGINT
);

-- +goose Down
DROP TABLE readings;
