-- +goose Up
-- What nod eval found for a classifier model, so that nod serve can say
-- at start whether the model it trusts in smart mode was measured.
CREATE TABLE evals (
    model          TEXT NOT NULL,
    at             BIGINT NOT NULL,
    cases          INTEGER NOT NULL,
    calls          INTEGER NOT NULL,
    false_explicit INTEGER NOT NULL,
    false_confirm  INTEGER NOT NULL
);
CREATE INDEX evals_model ON evals (model, at);

-- +goose Down
DROP TABLE evals;
