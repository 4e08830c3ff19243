-- Summary rows: what a listing shows of a game without replaying it. move_count is the number of actions
-- stored, set with every append; result (SGF's RE) and ended (seconds since the Unix epoch) are set by the
-- action that ends the game, in the same transaction. A game that ended before this migration has ended NULL
-- until the server fills its summary in at start (once).
ALTER TABLE games ADD COLUMN move_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN result TEXT;
ALTER TABLE games ADD COLUMN ended INTEGER;
UPDATE games SET move_count = (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id);

-- Start-up reads the live games only: open tables, games in play, games in their marking phase.
CREATE INDEX games_live ON games(state) WHERE state <> 'over';
-- The archive: finished games, the most recently ended first.
CREATE INDEX games_finished ON games(ended, id) WHERE state = 'over';
