-- The site this database serves, as a name drawn once: the nodes of one site name their NATS subjects after
-- it, so that several sites (or test runs) on one NATS server never hear each other.
CREATE TABLE site (
    id TEXT NOT NULL
);
INSERT INTO site (id) VALUES (md5(random()::text || clock_timestamp()::text));
