-- +goose Up
-- detail: what a change item's readers take as typed values (JSON written
-- by storage): the agent's reason, the checklist item an update or
-- removal touches before and as proposed, the task a create_task makes.
-- Items written before held them only inside the tool's arguments and
-- the agent's before/after values; they are converted here.
ALTER TABLE change_items ADD COLUMN detail TEXT NOT NULL DEFAULT '';
UPDATE change_items SET detail = json_object('task', json(args))
    WHERE tool = 'create_task' AND json_valid(args);
UPDATE change_items SET detail = json_object(
        'reason', coalesce(json_extract(args, '$.reason'), ''),
        'item_before', json(json_set(before, '$.id', json_extract(args, '$.id'))),
        'item_after', json(CASE WHEN after = '' THEN NULL ELSE json_set(after, '$.id', json_extract(args, '$.id')) END))
    WHERE tool IN ('update_checklist_item', 'remove_checklist_item')
        AND json_valid(args) AND json_valid(before) AND (after = '' OR json_valid(after));
-- Receipts owed but not sent yet carry the same detail.
UPDATE outbox SET payload = json_set(payload, '$.detail', json_object('task', json(json_extract(payload, '$.args'))))
    WHERE kind = 'receipt' AND json_valid(payload) AND json_extract(payload, '$.tool') = 'create_task';
UPDATE outbox SET payload = json_set(payload, '$.detail', json_object(
        'reason', coalesce(json_extract(payload, '$.args.reason'), ''),
        'item_before', json(json_set(json_extract(payload, '$.before'), '$.id', json_extract(payload, '$.args.id'))),
        'item_after', json(CASE WHEN json_extract(payload, '$.after') = '' THEN NULL
            ELSE json_set(json_extract(payload, '$.after'), '$.id', json_extract(payload, '$.args.id')) END)))
    WHERE kind = 'receipt' AND json_valid(payload) AND json_extract(payload, '$.tool') IN ('update_checklist_item', 'remove_checklist_item')
        AND json_valid(json_extract(payload, '$.before'))
        AND (json_extract(payload, '$.after') = '' OR json_valid(json_extract(payload, '$.after')));

-- +goose Down
ALTER TABLE change_items DROP COLUMN detail;
