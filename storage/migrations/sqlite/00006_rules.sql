-- +goose Up
-- kind groups decisions as learned rules do (nod.KindOf): the tool, and
-- for status and priority the value set.
ALTER TABLE decisions ADD COLUMN kind TEXT NOT NULL DEFAULT '';
UPDATE decisions SET kind = tool;
UPDATE decisions SET kind = tool || '=' || (SELECT i.after FROM change_items i WHERE i.id = decisions.item_id)
    WHERE tool IN ('set_task_status', 'set_task_priority')
    AND EXISTS (SELECT 1 FROM change_items i WHERE i.id = decisions.item_id);
CREATE INDEX decisions_kind ON decisions (chat_id, user_id, kind, seq);

-- A learned rule, from its offer on: one open (offered or active) rule per
-- person, chat and kind.
CREATE TABLE rules (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    chat_id    BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    kind       TEXT NOT NULL,
    status     TEXT NOT NULL,
    message_id BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    decided_at BIGINT
);
CREATE UNIQUE INDEX rules_open ON rules (chat_id, user_id, kind) WHERE status IN ('offered', 'active');
CREATE INDEX rules_chat ON rules (chat_id, status, seq);

-- +goose Down
DROP TABLE rules;
DROP INDEX decisions_kind;
ALTER TABLE decisions DROP COLUMN kind;
