-- Leases: work that one node of several does at a time (the game timers). A node holds a lease until its
-- expiry and renews it well before; once it lapses (the node died or lost the database), another node takes
-- it. Times are the database's own clock, so that the nodes' clocks need not agree.
CREATE TABLE leases (
    name    TEXT        PRIMARY KEY,
    holder  BIGINT      NOT NULL,
    expires TIMESTAMPTZ NOT NULL
);
