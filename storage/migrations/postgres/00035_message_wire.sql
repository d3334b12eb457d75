-- +goose Up
-- wire is a message's encoding in the agent's model requests, as the
-- agent wrote it when the message was saved: a turn splices it into the
-- request instead of decoding the body and encoding it again. NULL (rows
-- saved before, or by nod itself outside a turn) is encoded from body.
-- A change to the agent's wire format must set it to NULL.
ALTER TABLE messages ADD COLUMN wire BYTEA;

-- +goose Down
ALTER TABLE messages DROP COLUMN wire;
