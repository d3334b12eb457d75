-- +goose Up
-- Calls of the tools of an operator's MCP servers (docs/design.md §15).
-- A call is claimed here, in the transaction of the decision that lets it
-- run, before it is sent: its id is its one and only send. state is
-- 'claimed' (it may be under way), 'done' (outcome recorded) or
-- 'unknown' (nod stopped while it was under way; it is never sent again).
-- set_id and n name the change item a tap confirmed ('' and 0 for a call
-- the person's words ran at once). result holds the outcome as the
-- agent was told it, bounded; failure why it returned none, and
-- not_sent whether it never left nod (then it did not run).
CREATE TABLE external_calls (
    id         TEXT PRIMARY KEY,
    chat_id    BIGINT NOT NULL,
    thread     BIGINT NOT NULL DEFAULT 0,
    user_id    BIGINT NOT NULL,
    tool       TEXT NOT NULL,
    args       TEXT NOT NULL,
    set_id     TEXT NOT NULL DEFAULT '',
    n          INTEGER NOT NULL DEFAULT 0,
    state      TEXT NOT NULL,
    result     TEXT NOT NULL DEFAULT '',
    failure    TEXT NOT NULL DEFAULT '',
    not_sent   INTEGER NOT NULL DEFAULT 0,
    claimed_at BIGINT NOT NULL,
    done_at    BIGINT
);
CREATE INDEX external_calls_chat ON external_calls (chat_id, done_at);
CREATE UNIQUE INDEX external_calls_item ON external_calls (set_id, n) WHERE set_id <> '';

-- +goose Down
DROP INDEX external_calls_item;
DROP INDEX external_calls_chat;
DROP TABLE external_calls;
