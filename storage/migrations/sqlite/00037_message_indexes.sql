-- +goose Up
-- PostgreSQL's messages lose two indexes no read uses; SQLite's have
-- carried none but their topic's key since 00025.
SELECT 1;

-- +goose Down
SELECT 1;
