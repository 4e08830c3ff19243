-- Records uploaded for a review, kept once per file (the digest of its bytes is its public name), and reviews
-- of either a game or such a record: exactly one of the two.
CREATE TABLE uploads (
    id          BIGSERIAL PRIMARY KEY,
    digest      TEXT   NOT NULL UNIQUE,
    sgf         BYTEA  NOT NULL,
    uploaded_ms BIGINT NOT NULL
);

ALTER TABLE reviews DROP CONSTRAINT reviews_pkey;
ALTER TABLE reviews ALTER COLUMN game_id DROP NOT NULL;
ALTER TABLE reviews ADD COLUMN id BIGSERIAL PRIMARY KEY;
ALTER TABLE reviews ADD CONSTRAINT reviews_game_id_key UNIQUE (game_id);
ALTER TABLE reviews ADD COLUMN upload_id BIGINT UNIQUE REFERENCES uploads (id);
ALTER TABLE reviews ADD CONSTRAINT reviews_one_subject CHECK ((game_id IS NULL) <> (upload_id IS NULL));
