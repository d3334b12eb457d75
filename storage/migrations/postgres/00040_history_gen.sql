-- +goose Up
-- A turn keeps the conversation it read, decoded, and next time reads
-- only the messages after it; forgetting a person rewrites or deletes
-- lines already kept, and counts on here, so that every process drops
-- what it kept. One row: the count is the database's, and says nobody's
-- name.
CREATE TABLE history_gen (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen BIGINT NOT NULL
);
INSERT INTO history_gen (id, gen) VALUES (1, 0);

-- +goose Down
DROP TABLE history_gen;
