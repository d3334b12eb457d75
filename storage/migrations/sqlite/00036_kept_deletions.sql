-- +goose Up
-- A deletion the person cancelled (a ✗ Keep tap, or an answer that was
-- not the title) is told to the agent as what happened since its last
-- turn: its audit row joins those the events index holds.
DROP INDEX audit_log_events;
CREATE INDEX audit_log_events ON audit_log (chat_id, created_at)
    WHERE (outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode', 'interrupted'))
    OR (outcome = 'executed' AND user_confirmed <> 0 AND tool IN ('set_task_status', 'set_task_reminder'))
    OR (outcome = 'rejected' AND tool = 'delete_task');

-- +goose Down
DROP INDEX audit_log_events;
CREATE INDEX audit_log_events ON audit_log (chat_id, created_at)
    WHERE (outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode', 'interrupted'))
    OR (outcome = 'executed' AND user_confirmed <> 0 AND tool IN ('set_task_status', 'set_task_reminder'));
