-- When the site's clocks last started again: the wall time (milliseconds since the Unix epoch) at which a node
-- started while no node held the timers lease, that is after the whole site was down (no clock runs then). A
-- node that joins a running site starts each turn in progress no earlier than this.
ALTER TABLE site ADD COLUMN clocks_since BIGINT;
