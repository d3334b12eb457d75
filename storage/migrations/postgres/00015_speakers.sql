-- +goose Up
-- A person's mode and circuit breaker are their own in a chat: in a group
-- one member's "/mode trusted" governs only that member's requests. A
-- private chat's id is its person's, so its chat-wide mode carries over;
-- a group's chat-wide mode was set by someone for everyone, and is dropped.
CREATE TABLE member_modes (
    chat_id       BIGINT NOT NULL,
    user_id       BIGINT NOT NULL,
    mode          TEXT NOT NULL DEFAULT 'smart',
    breaker_until BIGINT,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
INSERT INTO member_modes (chat_id, user_id, mode, breaker_until, updated_at)
    SELECT chat_id, chat_id, mode, breaker_until, updated_at FROM chat_settings WHERE chat_id > 0;
-- after_seq is the chat's last message number when the set was made: an
-- answer to the set counts only from a message numbered after it.
ALTER TABLE change_sets ADD COLUMN after_seq BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE change_sets DROP COLUMN after_seq;
DROP TABLE member_modes;
