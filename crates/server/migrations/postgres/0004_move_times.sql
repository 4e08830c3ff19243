-- When each action was accepted: milliseconds since the Unix epoch on the accepting node's clock. A node that
-- learns of an action later (from NATS, or by a catch-up after an outage) starts the next turn's clock there,
-- not when it heard. Actions stored before this migration have NULL.
ALTER TABLE moves ADD COLUMN at_ms BIGINT;
