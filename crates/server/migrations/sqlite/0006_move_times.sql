-- When each action was accepted: milliseconds since the Unix epoch on the accepting server's clock. A node that
-- learns of an action later (several nodes, or a catch-up after a NATS outage) starts the next turn's clock
-- there, not when it heard. Actions stored before this migration have NULL.
ALTER TABLE moves ADD COLUMN at_ms INTEGER;
