-- Whether a game's players may take back a move (with the opponent's consent): its creator chooses.
ALTER TABLE games ADD COLUMN undo BOOLEAN NOT NULL DEFAULT TRUE;
