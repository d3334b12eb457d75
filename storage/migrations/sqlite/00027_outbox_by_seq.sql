-- +goose Up
-- An owed message is known by its number. The outbox kept a random id
-- with an index of its own, and AUTOINCREMENT's row in sqlite_sequence:
-- two more pages every owed message wrote (a turn owes its answer, a tap
-- its set's refresh), one of them anywhere in the index. Numbered by
-- rowid, a new entry touches the table's last page, the chat's refs and
-- the owed index; nothing is ever deleted, so numbers still only grow.
CREATE TABLE outbox_by_seq (
    seq          INTEGER PRIMARY KEY,
    chat_id      BIGINT NOT NULL,
    thread       BIGINT NOT NULL DEFAULT 0,
    kind         TEXT NOT NULL,
    ref          TEXT NOT NULL,
    payload      TEXT NOT NULL DEFAULT '',
    owner        TEXT NOT NULL,
    taken_at     BIGINT NOT NULL,
    delivered_at BIGINT
);
INSERT INTO outbox_by_seq (seq, chat_id, thread, kind, ref, payload, owner, taken_at, delivered_at)
    SELECT seq, chat_id, thread, kind, ref, payload, owner, taken_at, delivered_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_by_seq RENAME TO outbox;
CREATE INDEX outbox_ref ON outbox (chat_id, kind, ref);
CREATE INDEX outbox_owed ON outbox (seq) WHERE delivered_at IS NULL;

-- +goose Down
CREATE TABLE outbox_with_ids (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    chat_id      BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    ref          TEXT NOT NULL,
    payload      TEXT NOT NULL DEFAULT '',
    owner        TEXT NOT NULL,
    taken_at     BIGINT NOT NULL,
    delivered_at BIGINT,
    thread       BIGINT NOT NULL DEFAULT 0
);
INSERT INTO outbox_with_ids (seq, id, chat_id, kind, ref, payload, owner, taken_at, delivered_at, thread)
    SELECT seq, 'o' || seq, chat_id, kind, ref, payload, owner, taken_at, delivered_at, thread FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_with_ids RENAME TO outbox;
CREATE INDEX outbox_ref ON outbox (chat_id, kind, ref);
CREATE INDEX outbox_owed ON outbox (seq) WHERE delivered_at IS NULL;
