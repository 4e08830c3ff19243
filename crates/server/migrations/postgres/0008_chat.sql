-- A game's chat: each message with its channel (the players' or the spectators', which the players do not see
-- until the game is over) and the number of the game's stored actions when it was sent (its place in the record).
CREATE TABLE chat_messages (
    id          BIGSERIAL PRIMARY KEY,
    game_id     BIGINT NOT NULL REFERENCES games (id),
    user_id     BIGINT NOT NULL REFERENCES users (id),
    channel     TEXT   NOT NULL CHECK (channel IN ('players', 'spectators')),
    move_number BIGINT NOT NULL,
    body        TEXT   NOT NULL,
    at          BIGINT NOT NULL
);
CREATE INDEX chat_messages_game ON chat_messages (game_id, id);

-- Whom each user muted: their messages are kept from that user everywhere.
CREATE TABLE mutes (
    user_id  BIGINT NOT NULL REFERENCES users (id),
    muted_id BIGINT NOT NULL REFERENCES users (id),
    PRIMARY KEY (user_id, muted_id)
);
