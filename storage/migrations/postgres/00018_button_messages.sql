-- +goose Up
-- The message each button's callback data was sent with (or edited into):
-- data pressed on any other message is refused.
CREATE TABLE button_messages (
    chat_id    BIGINT NOT NULL,
    data       TEXT NOT NULL,
    message_id BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (chat_id, data, message_id)
);

-- +goose Down
DROP TABLE button_messages;
