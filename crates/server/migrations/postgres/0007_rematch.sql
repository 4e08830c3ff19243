-- A rematch: the table offered after a game, with colours swapped, names the game it follows. One per game: a
-- second offer finds the first (and accepts it, when the other player makes it).
ALTER TABLE games ADD COLUMN rematch_of BIGINT REFERENCES games (id);
CREATE UNIQUE INDEX games_rematch_of ON games (rematch_of) WHERE rematch_of IS NOT NULL;
