-- +goose Up
-- A turn reads what happened in its chat since its conversation's last
-- line (Events): decisions, undos and the audit rows that tell of
-- something. Read through the chat's own indexes, that was every row the
-- chat ever had, a turn's cost growing with the chat's age. These indexes
-- hold those rows by time; the audit log's and the undo entries' only the
-- rows Events can return, so that the writes of an ordinary turn (its
-- audit row, its undo entries) touch no page of them.
CREATE INDEX decisions_chat_time ON decisions (chat_id, created_at);
CREATE INDEX undo_entries_undone ON undo_entries (chat_id, undone_at) WHERE undone_at IS NOT NULL;
CREATE INDEX audit_log_events ON audit_log (chat_id, created_at)
    WHERE (outcome IN ('executed', 'confirmed') AND tool IN ('delete_task', 'restore_task', 'toggle_checklist_item', 'mode', 'interrupted'))
    OR (outcome = 'executed' AND user_confirmed <> 0 AND tool IN ('set_task_status', 'set_task_reminder'));

-- +goose Down
DROP INDEX audit_log_events;
DROP INDEX undo_entries_undone;
DROP INDEX decisions_chat_time;
