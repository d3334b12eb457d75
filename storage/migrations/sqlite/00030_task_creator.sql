-- +goose Up
-- created_by: who created the task (the person whose request or tap made
-- it), so that in a group /export gives each member the tasks they
-- created. 0: not known. Tasks made before this are read from the
-- records written in the same transaction as the task: the create_task
-- audit row at the task's own creation time (kept only where every such
-- row of that moment names the same person), and, exact by task id, the
-- undo entry of the creation.
ALTER TABLE tasks ADD COLUMN created_by BIGINT NOT NULL DEFAULT 0;
UPDATE tasks SET created_by = who.user_id
    FROM (SELECT chat_id, created_at, MIN(user_id) AS user_id FROM audit_log
        WHERE tool = 'create_task' AND outcome IN ('executed', 'confirmed')
        GROUP BY chat_id, created_at HAVING MIN(user_id) = MAX(user_id)) AS who
    WHERE tasks.chat_id = who.chat_id AND tasks.created_at = who.created_at;
UPDATE tasks SET created_by = made.user_id
    FROM (SELECT task_id, MIN(user_id) AS user_id FROM undo_entries
        WHERE tool = 'create_task' AND reverts = ''
        GROUP BY task_id HAVING MIN(user_id) = MAX(user_id)) AS made
    WHERE tasks.id = made.task_id;

-- +goose Down
ALTER TABLE tasks DROP COLUMN created_by;
