-- Ratings (crates/rating): each account's Glicko-2 rating now (NULL until its first rated game: a new player's
-- 1500 ± 350), whether a game is ranked (its creator chooses), and each rated game's new ratings, one row per
-- player: the history a player's page plots, and the proof that a game was rated once.
ALTER TABLE users ADD COLUMN rating REAL;
ALTER TABLE users ADD COLUMN rating_deviation REAL;
ALTER TABLE users ADD COLUMN rating_volatility REAL;
ALTER TABLE games ADD COLUMN ranked INTEGER NOT NULL DEFAULT 0;

CREATE TABLE rating_changes (
    game_id    INTEGER NOT NULL REFERENCES games(id),
    user_id    INTEGER NOT NULL REFERENCES users(id),
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    at         INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
-- A player's history, oldest first.
CREATE INDEX rating_changes_user ON rating_changes(user_id, at, game_id);
