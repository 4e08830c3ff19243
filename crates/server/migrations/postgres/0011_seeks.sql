-- Automatch: a player's seek for a game (rules preset, board size, speed, ranked or not, the range of ratings
-- they accept, whether handicap may be given). Two compatible seeks make a game at once: the newer seeker's
-- node takes the older seek (`taken`), makes the game, and writes it here for the older seeker to find.
CREATE TABLE seeks (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT  NOT NULL REFERENCES users (id),
    rules      TEXT    NOT NULL,
    size       BIGINT  NOT NULL,
    speed      TEXT    NOT NULL,
    ranked     BOOLEAN NOT NULL,
    min_rating DOUBLE PRECISION,
    max_rating DOUBLE PRECISION,
    handicap   BOOLEAN NOT NULL,
    at_ms      BIGINT  NOT NULL,
    taken      BOOLEAN NOT NULL DEFAULT FALSE,
    game_id    BIGINT REFERENCES games (id)
);
CREATE INDEX seeks_open ON seeks (rules, size, speed, ranked) WHERE NOT taken;
