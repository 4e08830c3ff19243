-- Accounts, guests, sessions and seats.
-- name_key is the case-folded name of an account (unique); guests have none, so their names may repeat.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL,
    name_key      TEXT    UNIQUE,
    password_hash TEXT,
    created       INTEGER NOT NULL
);

-- Only a hash of the session token is stored: a copy of the database does not let anyone in.
CREATE TABLE sessions (
    token_hash BLOB    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    csrf       TEXT    NOT NULL,
    expires    INTEGER NOT NULL
) WITHOUT ROWID;

-- Seats: a user id, or the computer (bot names its kind and bot_color its seat). opponent is how the empty
-- seat is filled: anyone, invite (with the invite token) or bot.
ALTER TABLE games ADD COLUMN black_user INTEGER REFERENCES users(id);
ALTER TABLE games ADD COLUMN white_user INTEGER REFERENCES users(id);
ALTER TABLE games ADD COLUMN bot TEXT;
ALTER TABLE games ADD COLUMN bot_color TEXT;
ALTER TABLE games ADD COLUMN opponent TEXT NOT NULL DEFAULT 'anyone';
ALTER TABLE games ADD COLUMN invite TEXT;
-- 1 when the second seat was filled by a join after creation: that join is an event with a version of its own.
ALTER TABLE games ADD COLUMN joined INTEGER NOT NULL DEFAULT 0;

CREATE INDEX games_black_user ON games(black_user);
CREATE INDEX games_white_user ON games(white_user);
