-- +goose Up
-- /tasks lists open tasks not due soon by priority, the newest first:
-- an index range, however many tasks the chat holds.
CREATE INDEX tasks_open_priority ON tasks (chat_id, priority, seq DESC) WHERE deleted_at IS NULL AND status NOT IN ('DONE', 'REJECTED');

-- +goose Down
DROP INDEX tasks_open_priority;
