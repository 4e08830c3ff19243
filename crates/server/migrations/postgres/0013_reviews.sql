-- A finished game's review by the search: asked once, computed by one node at a time (the one that took it,
-- whose heartbeat is updated_ms), its positions kept as JSON so that nobody waits twice.
CREATE TABLE reviews (
    game_id      BIGINT PRIMARY KEY REFERENCES games (id),
    state        TEXT   NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    playouts     BIGINT NOT NULL,
    done         BIGINT NOT NULL DEFAULT 0,
    total        BIGINT NOT NULL DEFAULT 0,
    results      TEXT,
    requested_ms BIGINT NOT NULL,
    updated_ms   BIGINT NOT NULL
);
CREATE INDEX reviews_queue ON reviews (state, requested_ms);
