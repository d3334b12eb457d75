-- +goose Up
-- detail: what a change item's readers take as typed values (JSON written
-- by storage): the agent's reason, the checklist item an update or
-- removal touches before and as proposed, the task a create_task makes.
-- Items written before held them only inside the tool's arguments and
-- the agent's before/after values; they are converted here. The agent
-- wrote those values as JSON objects; the LIKE guards keep anything else
-- from failing the cast.
ALTER TABLE change_items ADD COLUMN detail TEXT NOT NULL DEFAULT '';
UPDATE change_items SET detail = jsonb_build_object('task', args::jsonb)::text
    WHERE tool = 'create_task' AND args LIKE '{%}';
UPDATE change_items SET detail = jsonb_build_object(
        'reason', coalesce(args::jsonb->>'reason', ''),
        'item_before', before::jsonb || jsonb_build_object('id', args::jsonb->>'id'),
        'item_after', CASE WHEN after = '' THEN NULL ELSE after::jsonb || jsonb_build_object('id', args::jsonb->>'id') END)::text
    WHERE tool IN ('update_checklist_item', 'remove_checklist_item')
        AND args LIKE '{%}' AND before LIKE '{%}' AND (after = '' OR after LIKE '{%}');
-- Receipts owed but not sent yet carry the same detail. nod wrote their
-- payloads with encoding/json: no spaces, so the LIKE patterns find them
-- without casting other rows.
UPDATE outbox SET payload = jsonb_set(payload::jsonb, '{detail}', jsonb_build_object('task', payload::jsonb->'args'))::text
    WHERE kind = 'receipt' AND payload LIKE '{%"tool":"create_task"%}';
UPDATE outbox SET payload = jsonb_set(payload::jsonb, '{detail}', jsonb_build_object(
        'reason', coalesce(payload::jsonb->'args'->>'reason', ''),
        'item_before', (payload::jsonb->>'before')::jsonb || jsonb_build_object('id', payload::jsonb->'args'->>'id'),
        'item_after', CASE WHEN payload::jsonb->>'after' = '' THEN NULL
            ELSE (payload::jsonb->>'after')::jsonb || jsonb_build_object('id', payload::jsonb->'args'->>'id') END))::text
    WHERE kind = 'receipt' AND (payload LIKE '{%"tool":"update_checklist_item"%}' OR payload LIKE '{%"tool":"remove_checklist_item"%}');

-- +goose Down
ALTER TABLE change_items DROP COLUMN detail;
