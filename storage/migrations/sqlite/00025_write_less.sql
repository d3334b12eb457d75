-- +goose Up
-- Every page a commit touches is written to the WAL and again at the
-- checkpoint, so the tables written on every turn carry no more pages than
-- their reads need. The conversation is kept in the order it is read, a
-- topic's messages side by side (WITHOUT ROWID, keyed by chat, topic and
-- number): a turn's history is a few neighbouring pages, and a new message
-- touches the topic's last page and no index of ids. Update ids are their
-- own key. The outbox indexes only what is still owed.
CREATE TABLE messages_by_topic (
    chat_id    BIGINT NOT NULL,
    thread     BIGINT NOT NULL DEFAULT 0,
    seq        BIGINT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    msg_id     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (chat_id, thread, seq)
) WITHOUT ROWID;
INSERT INTO messages_by_topic (chat_id, thread, seq, body, created_at, msg_id)
    SELECT chat_id, thread, seq, body, created_at, msg_id FROM messages;
DROP TABLE messages;
ALTER TABLE messages_by_topic RENAME TO messages;
CREATE INDEX messages_chat_msg ON messages (chat_id, msg_id) WHERE msg_id <> 0;

CREATE TABLE updates_by_id (
    update_id  BIGINT PRIMARY KEY,
    created_at BIGINT NOT NULL
) WITHOUT ROWID;
INSERT INTO updates_by_id SELECT update_id, created_at FROM processed_updates;
DROP TABLE processed_updates;
ALTER TABLE updates_by_id RENAME TO processed_updates;

DROP INDEX outbox_owed;
CREATE INDEX outbox_owed ON outbox (seq) WHERE delivered_at IS NULL;

-- +goose Down
DROP INDEX outbox_owed;
CREATE INDEX outbox_owed ON outbox (delivered_at, taken_at);

CREATE TABLE updates_with_rowid (
    update_id  BIGINT PRIMARY KEY,
    created_at BIGINT NOT NULL
);
INSERT INTO updates_with_rowid SELECT update_id, created_at FROM processed_updates;
DROP TABLE processed_updates;
ALTER TABLE updates_with_rowid RENAME TO processed_updates;

CREATE TABLE messages_with_ids (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id    BIGINT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    seq        BIGINT NOT NULL DEFAULT 0,
    thread     BIGINT NOT NULL DEFAULT 0,
    msg_id     BIGINT NOT NULL DEFAULT 0
);
INSERT INTO messages_with_ids (chat_id, body, created_at, seq, thread, msg_id)
    SELECT chat_id, body, created_at, seq, thread, msg_id FROM messages ORDER BY created_at, chat_id, thread, seq;
DROP TABLE messages;
ALTER TABLE messages_with_ids RENAME TO messages;
CREATE INDEX messages_chat ON messages (chat_id, id);
CREATE INDEX messages_chat_seq ON messages (chat_id, seq);
CREATE INDEX messages_topic_seq ON messages (chat_id, thread, seq);
CREATE INDEX messages_chat_msg ON messages (chat_id, msg_id) WHERE msg_id <> 0;
