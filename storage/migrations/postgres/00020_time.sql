-- +goose Up
-- tz: the chat's IANA time zone ('' : NOD_TIMEZONE). daily_at: the local
-- HH:MM of the daily review ('' : off); daily_due: the next moment it is
-- due (NULL while off), claimed by the sweep like a reminder.
ALTER TABLE chat_settings ADD COLUMN tz TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_settings ADD COLUMN daily_at TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_settings ADD COLUMN daily_quiet INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chat_settings ADD COLUMN daily_due BIGINT;
CREATE INDEX chat_settings_daily_due ON chat_settings (daily_due) WHERE daily_due IS NOT NULL;
-- remind_at: the task's reminder; remind_due: the same moment while it has
-- not fired, so that the sweep reads only what is due, never every task.
ALTER TABLE tasks ADD COLUMN remind_at BIGINT;
ALTER TABLE tasks ADD COLUMN remind_due BIGINT;
CREATE INDEX tasks_remind_due ON tasks (remind_due) WHERE remind_due IS NOT NULL;
-- A chat's zone changes, each undoable once (the Undo of its receipt);
-- status 'proposed' waits for the person's tap, 'rejected' was declined.
CREATE TABLE zone_changes (
    id         TEXT PRIMARY KEY,
    chat_id    BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    before_tz  TEXT NOT NULL,
    after_tz   TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    undone_at  BIGINT,
    status     TEXT NOT NULL DEFAULT 'applied'
);

-- +goose Down
DROP TABLE zone_changes;
DROP INDEX tasks_remind_due;
ALTER TABLE tasks DROP COLUMN remind_due;
ALTER TABLE tasks DROP COLUMN remind_at;
DROP INDEX chat_settings_daily_due;
ALTER TABLE chat_settings DROP COLUMN daily_due;
ALTER TABLE chat_settings DROP COLUMN daily_quiet;
ALTER TABLE chat_settings DROP COLUMN daily_at;
ALTER TABLE chat_settings DROP COLUMN tz;
