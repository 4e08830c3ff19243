//! The server's tests beside the API suite, in one binary: its faults, attacks, names, nodes, outages and
//! stores (each was a binary of its own, about 40 s of CPU to build and link). `health` and `memory` stay
//! apart: they read the process's own counters and resident memory, which other tests would move.

mod support;

#[path = "server/faults.rs"]
mod faults;
#[path = "server/hostile.rs"]
mod hostile;
#[path = "server/names.rs"]
mod names;
#[path = "server/nodes.rs"]
mod nodes;
#[path = "server/outage.rs"]
mod outage;
#[path = "server/store.rs"]
mod store;
