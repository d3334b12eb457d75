-- +goose Up
-- Messages owed because of a change, written in the change's transaction
-- and marked delivered once sent: what a stopped process never sent is
-- delivered by the next one. owner is the process that wrote or took the
-- entry; taken_at when it did.
CREATE TABLE outbox (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    chat_id      BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    ref          TEXT NOT NULL,
    payload      TEXT NOT NULL DEFAULT '',
    owner        TEXT NOT NULL,
    taken_at     BIGINT NOT NULL,
    delivered_at BIGINT
);
CREATE INDEX outbox_owed ON outbox (delivered_at, taken_at);
CREATE INDEX outbox_ref ON outbox (chat_id, kind, ref);

-- +goose Down
DROP TABLE outbox;
