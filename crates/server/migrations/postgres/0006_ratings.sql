-- Ratings (crates/rating): each account's Glicko-2 rating now (NULL until its first rated game: a new player's
-- 1500 ± 350), whether a game is ranked (its creator chooses), and each rated game's new ratings, one row per
-- player: the history a player's page plots, and the proof that a game was rated once.
ALTER TABLE users ADD COLUMN rating DOUBLE PRECISION;
ALTER TABLE users ADD COLUMN rating_deviation DOUBLE PRECISION;
ALTER TABLE users ADD COLUMN rating_volatility DOUBLE PRECISION;
ALTER TABLE games ADD COLUMN ranked BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TABLE rating_changes (
    game_id    BIGINT           NOT NULL REFERENCES games (id),
    user_id    BIGINT           NOT NULL REFERENCES users (id),
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    at         BIGINT           NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
-- A player's history, oldest first.
CREATE INDEX rating_changes_user ON rating_changes (user_id, at, game_id);
