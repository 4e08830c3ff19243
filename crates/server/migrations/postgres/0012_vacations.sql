-- Each user's vacations, in wall milliseconds: from start_ms until end_ms (moved earlier when one ends early).
-- While away, the user's correspondence clocks stand still.
CREATE TABLE vacations (
    id       BIGSERIAL PRIMARY KEY,
    user_id  BIGINT NOT NULL REFERENCES users (id),
    start_ms BIGINT NOT NULL,
    end_ms   BIGINT NOT NULL CHECK (end_ms >= start_ms)
);
CREATE INDEX vacations_user ON vacations (user_id, end_ms);
