-- +goose Up
-- The callback data of the buttons each message was sent with (or had
-- edited into it): data pressed on a message that did not carry it is
-- refused.
CREATE TABLE button_messages (
    chat_id    BIGINT NOT NULL,
    message_id BIGINT NOT NULL,
    data       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (chat_id, message_id, data)
);

-- +goose Down
DROP TABLE button_messages;
