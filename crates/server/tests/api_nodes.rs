//! The API test suite (tests/api/suite.rs) on two nodes of one PostgreSQL database and one NATS: each client
//! made sits on the next node in turn, so a game's two players (and its spectators) are on different nodes.

mod support;

const BACKEND: support::Backend = support::Backend::TwoNodes;

#[path = "api/suite.rs"]
mod suite;
