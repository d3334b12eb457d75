-- +goose Up
-- seq columns order rows by insertion (timestamps tie under one clock tick).
-- Timestamps are unix microseconds (BIGINT) in both dialects so that one SQL
-- text serves SQLite and PostgreSQL.
CREATE TABLE tasks (
    seq              BIGSERIAL PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    chat_id          BIGINT NOT NULL,
    title            TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,
    priority         TEXT NOT NULL,
    estimate_minutes INTEGER,
    due_date         TEXT,
    labels           TEXT NOT NULL DEFAULT '[]',
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    deleted_at       BIGINT
);
CREATE INDEX tasks_chat ON tasks (chat_id, seq);

CREATE TABLE checklist_items (
    id         TEXT PRIMARY KEY,
    task_id    TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    title      TEXT NOT NULL,
    checked    INTEGER NOT NULL DEFAULT 0,
    checked_by TEXT,
    checked_at BIGINT
);
CREATE INDEX checklist_items_task ON checklist_items (task_id, position);

CREATE TABLE messages (
    id         BIGSERIAL PRIMARY KEY,
    chat_id    BIGINT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX messages_chat ON messages (chat_id, id);

CREATE TABLE change_sets (
    seq BIGSERIAL PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    chat_id     BIGINT NOT NULL,
    user_id     BIGINT NOT NULL,
    status      TEXT NOT NULL,
    message_id  BIGINT NOT NULL DEFAULT 0,
    created_at  BIGINT NOT NULL,
    resolved_at BIGINT
);
CREATE INDEX change_sets_chat ON change_sets (chat_id, status, seq);

CREATE TABLE change_items (
    id      TEXT PRIMARY KEY,
    set_id  TEXT NOT NULL REFERENCES change_sets (id) ON DELETE CASCADE,
    n       INTEGER NOT NULL,
    tool    TEXT NOT NULL,
    task_id TEXT NOT NULL,
    args    TEXT NOT NULL,
    summary TEXT NOT NULL,
    field   TEXT NOT NULL,
    before  TEXT NOT NULL,
    after   TEXT NOT NULL,
    status  TEXT NOT NULL,
    note    TEXT NOT NULL DEFAULT '',
    undo_id TEXT NOT NULL DEFAULT '',
    UNIQUE (set_id, n)
);

CREATE TABLE decisions (
    seq BIGSERIAL PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    chat_id    BIGINT NOT NULL,
    set_id     TEXT NOT NULL,
    item_id    TEXT NOT NULL,
    n          INTEGER NOT NULL,
    user_id    BIGINT NOT NULL,
    verdict    TEXT NOT NULL,
    reason     TEXT NOT NULL DEFAULT '',
    tool       TEXT NOT NULL,
    summary    TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX decisions_chat ON decisions (chat_id, seq);

CREATE TABLE audit_log (
    id             BIGSERIAL PRIMARY KEY,
    chat_id        BIGINT NOT NULL,
    user_id        BIGINT NOT NULL,
    tool           TEXT NOT NULL,
    args           TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    user_confirmed INTEGER NOT NULL DEFAULT 0,
    verdict        TEXT NOT NULL DEFAULT '',
    error          TEXT NOT NULL DEFAULT '',
    reason         TEXT NOT NULL DEFAULT '',
    duration_us    BIGINT NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL
);
CREATE INDEX audit_log_chat ON audit_log (chat_id, id);

CREATE TABLE undo_entries (
    seq BIGSERIAL PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    chat_id    BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    task_id    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    summary    TEXT NOT NULL,
    before     TEXT,
    after      TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    undone_at  BIGINT
);
CREATE INDEX undo_entries_chat ON undo_entries (chat_id, seq);

CREATE TABLE processed_updates (
    update_id  BIGINT PRIMARY KEY,
    created_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE processed_updates;
DROP TABLE undo_entries;
DROP TABLE audit_log;
DROP TABLE decisions;
DROP TABLE change_items;
DROP TABLE change_sets;
DROP TABLE messages;
DROP TABLE checklist_items;
DROP TABLE tasks;
