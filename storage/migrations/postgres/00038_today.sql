-- +goose Up
-- /today reads the chat's open tasks due by today in the order it shows
-- them, and its reminders of the day by time: each an index range that
-- stops at the page, however many tasks the chat holds. Status and
-- deleted_at make the count of the tasks due read the index alone.
CREATE INDEX tasks_open_due ON tasks (chat_id, due_date, priority, seq DESC, status, deleted_at) WHERE deleted_at IS NULL AND due_date IS NOT NULL AND status NOT IN ('DONE', 'REJECTED');
CREATE INDEX tasks_open_remind ON tasks (chat_id, remind_at, seq) WHERE deleted_at IS NULL AND remind_at IS NOT NULL AND status NOT IN ('DONE', 'REJECTED');

-- +goose Down
DROP INDEX tasks_open_remind;
DROP INDEX tasks_open_due;
