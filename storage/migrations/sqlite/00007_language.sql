-- +goose Up
-- lang: the language a person chose with /lang (empty: follow Telegram);
-- lang_seen: the language_code Telegram last reported in the chat, for
-- messages sent without an update (expiry, sweeps).
ALTER TABLE chat_settings ADD COLUMN lang TEXT NOT NULL DEFAULT '';
ALTER TABLE chat_settings ADD COLUMN lang_seen TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE chat_settings DROP COLUMN lang_seen;
ALTER TABLE chat_settings DROP COLUMN lang;
