-- +goose Up
-- The chat's time zone set outside a turn (/tz, a shared location, a tap
-- on the agent's offer, its Undo) is told to the agent as what happened
-- since its last turn: those audit rows join the events index.
DROP INDEX audit_log_events;
CREATE INDEX audit_log_events ON audit_log (chat_id, created_at)
    WHERE (outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode', 'interrupted'))
    OR (outcome = 'executed' AND user_confirmed <> 0 AND tool IN ('set_task_status', 'set_task_reminder'))
    OR (outcome = 'rejected' AND tool = 'delete_task')
    OR (outcome IN ('confirmed', 'rejected', 'undone') AND tool = 'set_chat_timezone')
    OR (outcome = 'executed' AND tool IN ('tz', 'location'));

-- +goose Down
DROP INDEX audit_log_events;
CREATE INDEX audit_log_events ON audit_log (chat_id, created_at)
    WHERE (outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode', 'interrupted'))
    OR (outcome = 'executed' AND user_confirmed <> 0 AND tool IN ('set_task_status', 'set_task_reminder'))
    OR (outcome = 'rejected' AND tool = 'delete_task');
