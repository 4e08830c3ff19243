-- A game's chat: each message with its channel (the players' or the spectators', which the players do not see
-- until the game is over) and the number of the game's stored actions when it was sent (its place in the record).
CREATE TABLE chat_messages (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    user_id     INTEGER NOT NULL REFERENCES users(id),
    channel     TEXT    NOT NULL CHECK (channel IN ('players', 'spectators')),
    move_number INTEGER NOT NULL,
    body        TEXT    NOT NULL,
    at          INTEGER NOT NULL
);
CREATE INDEX chat_messages_game ON chat_messages(game_id, id);

-- Whom each user muted: their messages are kept from that user everywhere.
CREATE TABLE mutes (
    user_id  INTEGER NOT NULL REFERENCES users(id),
    muted_id INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (user_id, muted_id)
);
