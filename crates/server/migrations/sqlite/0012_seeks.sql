-- Automatch: a player's seek for a game (rules preset, board size, speed, ranked or not, the range of ratings
-- they accept, whether handicap may be given). Two compatible seeks make a game at once: the newer seeker's
-- node takes the older seek (`taken`), makes the game, and writes it here for the older seeker to find.
CREATE TABLE seeks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users(id),
    rules      TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    speed      TEXT    NOT NULL,
    ranked     BOOLEAN NOT NULL,
    min_rating REAL,
    max_rating REAL,
    handicap   BOOLEAN NOT NULL,
    at_ms      INTEGER NOT NULL,
    taken      BOOLEAN NOT NULL DEFAULT FALSE,
    game_id    INTEGER REFERENCES games(id)
);
CREATE INDEX seeks_open ON seeks(rules, size, speed, ranked) WHERE NOT taken;
