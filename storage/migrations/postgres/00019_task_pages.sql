-- +goose Up
-- A chat's tasks are read a page at a time, in creation order and by
-- status, and the system prompt picks the few that matter now (overdue,
-- due soon, in progress, recently changed): each read is an index range
-- over the chat's live tasks, never a scan of them all.
CREATE INDEX tasks_live ON tasks (chat_id, seq) WHERE deleted_at IS NULL;
CREATE INDEX tasks_live_status ON tasks (chat_id, status, seq) WHERE deleted_at IS NULL;
CREATE INDEX tasks_live_due ON tasks (chat_id, due_date) WHERE deleted_at IS NULL AND due_date IS NOT NULL AND status NOT IN ('DONE', 'REJECTED');
CREATE INDEX tasks_live_updated ON tasks (chat_id, updated_at) WHERE deleted_at IS NULL;

-- task_counts counts each chat's live tasks by status, kept by a trigger
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
CREATE FUNCTION task_counts_track() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.chat_id = NEW.chat_id AND OLD.status = NEW.status
        AND (OLD.deleted_at IS NULL) = (NEW.deleted_at IS NULL) THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        UPDATE task_counts SET n = n - 1 WHERE chat_id = OLD.chat_id AND status = OLD.status;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.deleted_at IS NULL THEN
        INSERT INTO task_counts (chat_id, status, n) VALUES (NEW.chat_id, NEW.status, 1)
            ON CONFLICT (chat_id, status) DO UPDATE SET n = task_counts.n + 1;
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd
CREATE TRIGGER task_counts_track AFTER INSERT OR DELETE OR UPDATE OF chat_id, status, deleted_at ON tasks
    FOR EACH ROW EXECUTE FUNCTION task_counts_track();

-- +goose Down
DROP TRIGGER task_counts_track ON tasks;
DROP FUNCTION task_counts_track();
DROP TABLE task_counts;
DROP INDEX tasks_live_updated;
DROP INDEX tasks_live_due;
DROP INDEX tasks_live_status;
DROP INDEX tasks_live;
