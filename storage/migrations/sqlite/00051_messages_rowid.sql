-- +goose Up
-- The conversation goes back to a table of row ids, its topic's key an
-- index. Since 00035 a message carries its request encoding beside its
-- body, and rows that wide, kept in their key's order (00025), made
-- every new message a topic's page to split or spill: a turn's answer
-- wrote 6.0 pages. Now the rows are appended where the table ends, a
-- page that the turns committed together share, and the key's index
-- takes the topic's page: the answer writes 4.4, the person's words 7.1
-- where they wrote 6.0 (TestTurnWritesFewPages), and a read-only turn
-- costs less CPU (docs/performance.md).
CREATE TABLE messages_rowid (
    id         INTEGER PRIMARY KEY,
    chat_id    BIGINT NOT NULL,
    thread     BIGINT NOT NULL DEFAULT 0,
    seq        BIGINT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    msg_id     BIGINT NOT NULL DEFAULT 0,
    wire       BLOB,
    UNIQUE (chat_id, thread, seq)
);
INSERT INTO messages_rowid (chat_id, thread, seq, body, created_at, msg_id, wire)
    SELECT chat_id, thread, seq, body, created_at, msg_id, wire FROM messages ORDER BY created_at, chat_id, thread, seq;
DROP TABLE messages;
ALTER TABLE messages_rowid RENAME TO messages;
CREATE INDEX messages_chat_msg ON messages (chat_id, msg_id) WHERE msg_id <> 0;

-- +goose Down
CREATE TABLE messages_by_topic (
    chat_id    BIGINT NOT NULL,
    thread     BIGINT NOT NULL DEFAULT 0,
    seq        BIGINT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    msg_id     BIGINT NOT NULL DEFAULT 0,
    wire       BLOB,
    PRIMARY KEY (chat_id, thread, seq)
) WITHOUT ROWID;
INSERT INTO messages_by_topic SELECT chat_id, thread, seq, body, created_at, msg_id, wire FROM messages;
DROP TABLE messages;
ALTER TABLE messages_by_topic RENAME TO messages;
CREATE INDEX messages_chat_msg ON messages (chat_id, msg_id) WHERE msg_id <> 0;
