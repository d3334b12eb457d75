-- +goose Up
-- A chat's tasks are read a page at a time, in creation order and by
-- status, and the system prompt picks the few that matter now (overdue,
-- due soon, in progress, recently changed): each read is an index range
-- over the chat's live tasks, never a scan of them all.
CREATE INDEX tasks_live ON tasks (chat_id, seq) WHERE deleted_at IS NULL;
CREATE INDEX tasks_live_status ON tasks (chat_id, status, seq) WHERE deleted_at IS NULL;
CREATE INDEX tasks_live_due ON tasks (chat_id, due_date) WHERE deleted_at IS NULL AND due_date IS NOT NULL AND status NOT IN ('DONE', 'REJECTED');
CREATE INDEX tasks_live_updated ON tasks (chat_id, updated_at) WHERE deleted_at IS NULL;

-- task_counts counts each chat's live tasks by status, kept by triggers
-- whoever writes the tasks: a listing says how many there are without
-- counting thousands of rows.
CREATE TABLE task_counts (
    chat_id BIGINT NOT NULL,
    status  TEXT NOT NULL,
    n       BIGINT NOT NULL,
    PRIMARY KEY (chat_id, status)
);
INSERT INTO task_counts (chat_id, status, n)
    SELECT chat_id, status, COUNT(*) FROM tasks WHERE deleted_at IS NULL GROUP BY chat_id, status;

-- +goose StatementBegin
CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks WHEN NEW.deleted_at IS NULL BEGIN
    INSERT INTO task_counts (chat_id, status, n) VALUES (NEW.chat_id, NEW.status, 1)
        ON CONFLICT (chat_id, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER task_counts_delete AFTER DELETE ON tasks WHEN OLD.deleted_at IS NULL BEGIN
    UPDATE task_counts SET n = n - 1 WHERE chat_id = OLD.chat_id AND status = OLD.status;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER task_counts_update AFTER UPDATE OF chat_id, status, deleted_at ON tasks
WHEN OLD.chat_id IS NOT NEW.chat_id OR OLD.status IS NOT NEW.status OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) BEGIN
    UPDATE task_counts SET n = n - 1 WHERE OLD.deleted_at IS NULL AND chat_id = OLD.chat_id AND status = OLD.status;
    INSERT INTO task_counts (chat_id, status, n) SELECT NEW.chat_id, NEW.status, 1 WHERE NEW.deleted_at IS NULL
        ON CONFLICT (chat_id, status) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER task_counts_update;
DROP TRIGGER task_counts_delete;
DROP TRIGGER task_counts_insert;
DROP TABLE task_counts;
DROP INDEX tasks_live_updated;
DROP INDEX tasks_live_due;
DROP INDEX tasks_live_status;
DROP INDEX tasks_live;
