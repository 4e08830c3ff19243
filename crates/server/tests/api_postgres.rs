//! The API test suite (tests/api/suite.rs) on PostgreSQL, one node: each test on a database of its own in the
//! throw-away server `cargo xtask test` starts.

mod support;

const BACKEND: support::Backend = support::Backend::Postgres;

#[path = "api/suite.rs"]
mod suite;
