-- When each session was made and last used (to the hour), and the client that made it: the account page lists
-- them, and a session unused for 14 days lapses. A session from before counts as made and last used when its
-- 30 days began.
ALTER TABLE sessions ADD COLUMN created BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN last_used BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
ALTER TABLE sessions ADD COLUMN address TEXT;
UPDATE sessions SET created = expires - 2592000, last_used = expires - 2592000;
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_last_used ON sessions (last_used);

-- One-time password resets that an operator issues (`tesuji reset-password`): only the token's SHA-256 is kept.
CREATE TABLE password_resets (
    token_hash BYTEA  PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id),
    expires    BIGINT NOT NULL
);
