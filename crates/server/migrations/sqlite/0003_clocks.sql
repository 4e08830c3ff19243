-- Clocks. A game's time control (a crates/clock spec; NULL: untimed), and for each timed turn the time it took
-- and the lag its client reported: the clock is rebuilt by replaying them, like the position.
ALTER TABLE games ADD COLUMN time_control TEXT;
ALTER TABLE moves ADD COLUMN spent_ms INTEGER;
ALTER TABLE moves ADD COLUMN lag_ms INTEGER;
