-- +goose Up
-- The IANA zone of the place whose clock a reminder was given in
-- (remind_clock), when it was named ("9 Paris time": Europe/Paris), so
-- that nod says "09:00 in Paris" where it could only say UTC+01:00;
-- NULL: not named, or the chat's own clock.
ALTER TABLE tasks ADD COLUMN remind_zone TEXT;

-- +goose Down
ALTER TABLE tasks DROP COLUMN remind_zone;
