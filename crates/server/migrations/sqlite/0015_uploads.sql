-- Records uploaded for a review, kept once per file (the digest of its bytes is its public name), and reviews
-- of either a game or such a record: exactly one of the two.
CREATE TABLE uploads (
    id          INTEGER PRIMARY KEY,
    digest      TEXT    NOT NULL UNIQUE,
    sgf         BLOB    NOT NULL,
    uploaded_ms INTEGER NOT NULL
);

CREATE TABLE reviews_by_subject (
    id           INTEGER PRIMARY KEY,
    game_id      INTEGER UNIQUE REFERENCES games(id),
    upload_id    INTEGER UNIQUE REFERENCES uploads(id),
    state        TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    playouts     INTEGER NOT NULL,
    done         INTEGER NOT NULL DEFAULT 0,
    total        INTEGER NOT NULL DEFAULT 0,
    results      TEXT,
    requested_ms INTEGER NOT NULL,
    updated_ms   INTEGER NOT NULL,
    CHECK ((game_id IS NULL) <> (upload_id IS NULL))
);
INSERT INTO reviews_by_subject (game_id, state, playouts, done, total, results, requested_ms, updated_ms)
    SELECT game_id, state, playouts, done, total, results, requested_ms, updated_ms FROM reviews;
DROP TABLE reviews;
ALTER TABLE reviews_by_subject RENAME TO reviews;
CREATE INDEX reviews_queue ON reviews(state, requested_ms);
