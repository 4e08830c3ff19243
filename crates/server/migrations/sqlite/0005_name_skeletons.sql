-- Name skeletons: the confusable skeleton (Unicode UTS #39) of a user's name. Two names with the same skeleton
-- look alike ("rn" and "m", a Cyrillic "асе" and a Latin "ace"), and no new account or guest may look like an
-- existing account. The server computes skeletons (they need Unicode's confusables data, which SQL has not):
-- accounts made before this migration get theirs at start, once; guests made before it keep NULL, since no
-- name is ever compared with a guest's.
ALTER TABLE users ADD COLUMN name_skeleton TEXT;

-- The look-alike check of every sign-up and guest: accounts only.
CREATE INDEX users_name_skeleton ON users(name_skeleton) WHERE name_key IS NOT NULL;
-- The accounts still without a skeleton, found at start without reading the others.
CREATE INDEX users_skeleton_missing ON users(id) WHERE name_key IS NOT NULL AND name_skeleton IS NULL;
