-- +goose Up
-- A process keeps the part of a turn's opening that the chat's tasks,
-- proposals and decisions make (storage/opening.go), and reads it again
-- only once one of them changed: v counts the chat's writes to what it
-- reads, whoever writes (another process, a sweep, a hand at the
-- console), so the triggers, not nod's code, keep the count.
CREATE TABLE chat_versions (
    chat_id BIGINT PRIMARY KEY,
    v       BIGINT NOT NULL
) WITHOUT ROWID;

-- +goose StatementBegin
CREATE TRIGGER chat_versions_tasks_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_tasks_update AFTER UPDATE ON tasks BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_tasks_delete AFTER DELETE ON tasks BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (OLD.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_checklist_insert AFTER INSERT ON checklist_items BEGIN
    INSERT INTO chat_versions (chat_id, v) SELECT chat_id, 1 FROM tasks WHERE id = NEW.task_id ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_checklist_update AFTER UPDATE ON checklist_items BEGIN
    INSERT INTO chat_versions (chat_id, v) SELECT chat_id, 1 FROM tasks WHERE id = NEW.task_id ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_checklist_delete AFTER DELETE ON checklist_items BEGIN
    INSERT INTO chat_versions (chat_id, v) SELECT chat_id, 1 FROM tasks WHERE id = OLD.task_id ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_sets_insert AFTER INSERT ON change_sets BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_sets_update AFTER UPDATE ON change_sets BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_sets_delete AFTER DELETE ON change_sets BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (OLD.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_items_insert AFTER INSERT ON change_items BEGIN
    INSERT INTO chat_versions (chat_id, v) SELECT chat_id, 1 FROM change_sets WHERE id = NEW.set_id ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_items_update AFTER UPDATE ON change_items BEGIN
    INSERT INTO chat_versions (chat_id, v) SELECT chat_id, 1 FROM change_sets WHERE id = NEW.set_id ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_items_delete AFTER DELETE ON change_items BEGIN
    INSERT INTO chat_versions (chat_id, v) SELECT chat_id, 1 FROM change_sets WHERE id = OLD.set_id ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_decisions_insert AFTER INSERT ON decisions BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_decisions_update AFTER UPDATE ON decisions BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_decisions_delete AFTER DELETE ON decisions BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (OLD.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_undo_insert AFTER INSERT ON undo_entries BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_undo_update AFTER UPDATE ON undo_entries BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (NEW.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_versions_undo_delete AFTER DELETE ON undo_entries BEGIN
    INSERT INTO chat_versions (chat_id, v) VALUES (OLD.chat_id, 1) ON CONFLICT (chat_id) DO UPDATE SET v = v + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER chat_versions_undo_delete;
DROP TRIGGER chat_versions_undo_update;
DROP TRIGGER chat_versions_undo_insert;
DROP TRIGGER chat_versions_decisions_delete;
DROP TRIGGER chat_versions_decisions_update;
DROP TRIGGER chat_versions_decisions_insert;
DROP TRIGGER chat_versions_items_delete;
DROP TRIGGER chat_versions_items_update;
DROP TRIGGER chat_versions_items_insert;
DROP TRIGGER chat_versions_sets_delete;
DROP TRIGGER chat_versions_sets_update;
DROP TRIGGER chat_versions_sets_insert;
DROP TRIGGER chat_versions_checklist_delete;
DROP TRIGGER chat_versions_checklist_update;
DROP TRIGGER chat_versions_checklist_insert;
DROP TRIGGER chat_versions_tasks_delete;
DROP TRIGGER chat_versions_tasks_update;
DROP TRIGGER chat_versions_tasks_insert;
DROP TABLE chat_versions;
