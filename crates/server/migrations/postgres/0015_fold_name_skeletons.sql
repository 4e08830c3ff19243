-- Look-alike names are compared under a looser skeleton (case, digits written for letters and the `_-.` a name
-- may hold folded away: "B0b", "Bob_" and "B.ob" look like "Bob"). The server computes it: every account's is
-- dropped here, and the server fills them in again at start, as for accounts made before skeletons were kept.
UPDATE users SET name_skeleton = NULL WHERE name_skeleton IS NOT NULL;
