-- +goose Up
-- Every delete_task gets its own typed question: a person's deletions wait
-- in line (seq), and one at a time is asked. expires_at is 0 while a
-- deletion waits in line and is set when its question is asked; wait_us is
-- how long the question then waits for the title.
CREATE TABLE deletion_line (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    chat_id    BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    task_id    TEXT NOT NULL,
    title      TEXT NOT NULL,
    checklist  INTEGER NOT NULL DEFAULT 0,
    wait_us    BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL DEFAULT 0,
    message_id BIGINT NOT NULL DEFAULT 0
);
INSERT INTO deletion_line (id, chat_id, user_id, task_id, title, wait_us, created_at, expires_at, message_id)
    SELECT 'd' || CAST(chat_id AS TEXT), chat_id, user_id, task_id, title, expires_at - created_at, created_at, expires_at, message_id
    FROM pending_deletions;
DROP TABLE pending_deletions;
ALTER TABLE deletion_line RENAME TO pending_deletions;
CREATE INDEX pending_deletions_person ON pending_deletions (chat_id, user_id, seq);

-- +goose Down
CREATE TABLE deletion_slot (
    chat_id    BIGINT PRIMARY KEY,
    user_id    BIGINT NOT NULL,
    task_id    TEXT NOT NULL,
    title      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    message_id BIGINT NOT NULL DEFAULT 0
);
INSERT INTO deletion_slot (chat_id, user_id, task_id, title, created_at, expires_at, message_id)
    SELECT chat_id, user_id, task_id, title, created_at, expires_at, message_id FROM pending_deletions p
    WHERE expires_at > 0 AND seq = (SELECT MIN(seq) FROM pending_deletions q WHERE q.chat_id = p.chat_id AND q.expires_at > 0);
DROP INDEX pending_deletions_person;
DROP TABLE pending_deletions;
ALTER TABLE deletion_slot RENAME TO pending_deletions;
