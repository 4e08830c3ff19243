-- The moves a finished game was played over (plays and passes, after take-backs): what a listing's Moves
-- column shows. move_count counts every stored action (marks, acceptances, take-back requests...) and stays the
-- game's progress. Set by the action that ends the game; games that ended before this migration get it when
-- the server next starts (replayed once), which finds them by the index below (it replaces the index of games
-- without an end time: such a game has no moves_played either).
ALTER TABLE games ADD COLUMN moves_played BIGINT;
CREATE INDEX games_without_moves_played ON games (id) WHERE state = 'over' AND moves_played IS NULL;
DROP INDEX games_unsummarized;
