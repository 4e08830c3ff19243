-- Uploads and reviews bounded (game::review): who uploaded a record and how big it is, for a quota per user;
-- when it was last opened, so that records nobody opens for a while expire; who asked for a review, so that
-- the queue is shared fairly between users. Records kept before these columns count as opened when uploaded.
ALTER TABLE uploads ADD COLUMN user_id BIGINT;
ALTER TABLE uploads ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE uploads ADD COLUMN opened_ms BIGINT NOT NULL DEFAULT 0;
UPDATE uploads SET bytes = octet_length(sgf), opened_ms = uploaded_ms;
CREATE INDEX uploads_by_user ON uploads (user_id, uploaded_ms);
CREATE INDEX uploads_by_opened ON uploads (opened_ms);
ALTER TABLE reviews ADD COLUMN requested_by BIGINT;
CREATE INDEX reviews_by_requester ON reviews (requested_by, state);
