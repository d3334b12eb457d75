-- +goose Up
-- A person can have nod forget them (/forget). An audit row's link
-- commits to a digest of its content (salt, user id, arguments, verdict,
-- error, reason) under a random salt of its own, not to the content
-- itself: forgetting removes the content and the salt, keeps the digest,
-- and marks the row redacted, so that the chain and the heads pinned
-- before still verify and the removed words cannot be guessed back from
-- the digest. Rows written before keep digest '' and their links over
-- the raw content; the row that forgets lists them.
ALTER TABLE audit_log ADD COLUMN salt TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN digest TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_log ADD COLUMN redacted INTEGER NOT NULL DEFAULT 0;

-- A /forget waiting for its person to type the phrase, in their private
-- chat; message_id is the prompt, edited once it is answered or expires.
CREATE TABLE forget_requests (
    user_id    BIGINT PRIMARY KEY,
    chat_id    BIGINT NOT NULL,
    message_id BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX forget_requests_expiry ON forget_requests (expires_at);

-- +goose Down
DROP INDEX forget_requests_expiry;
DROP TABLE forget_requests;
ALTER TABLE audit_log DROP COLUMN redacted;
ALTER TABLE audit_log DROP COLUMN digest;
ALTER TABLE audit_log DROP COLUMN salt;
