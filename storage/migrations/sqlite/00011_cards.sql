-- +goose Up
-- cards: the latest task card shown in a chat for each task, so that a
-- change made elsewhere (an undo) brings it up to date.
CREATE TABLE cards (
    chat_id    BIGINT NOT NULL,
    task_id    TEXT NOT NULL,
    message_id BIGINT NOT NULL,
    PRIMARY KEY (chat_id, task_id)
);

-- +goose Down
DROP TABLE cards;
