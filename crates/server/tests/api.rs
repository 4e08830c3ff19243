//! The API test suite (tests/api/: `suite.rs`, the helpers, and a file per area) on the backend
//! `TESUJI_TEST_BACKEND` names: SQLite (`sqlite`, also when it is unset), PostgreSQL, one node (`postgres`:
//! each test on a database of its own in the throw-away server `cargo xtask test` starts), or two nodes of one PostgreSQL database and one NATS (`nodes`: each client
//! made sits on the next node in turn, so a game's two players and its spectators are on different nodes).
//! One binary for the three, built once; `cargo xtask test` runs it on each.

mod support;

/// The backend this run of the suite is on.
fn backend() -> support::Backend {
    support::Backend::from_env()
}

#[path = "api/suite.rs"]
mod suite;
