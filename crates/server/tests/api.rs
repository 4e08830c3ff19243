//! The API test suite (tests/api/suite.rs) on SQLite, the default database.

mod support;

const BACKEND: support::Backend = support::Backend::Sqlite;

#[path = "api/suite.rs"]
mod suite;
