//! What the server's tests share: the databases they run on. Every store and API test runs on SQLite and on
//! PostgreSQL (the throw-away one `cargo xtask test` starts).
#![allow(dead_code)] // each test file uses its part

pub mod faulty;
pub mod nodes;
pub mod proxy;
pub mod site;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use tesuji_server::Database;

/// The variable `cargo xtask test` sets to the URL of its PostgreSQL server.
pub const POSTGRES_VAR: &str = "TESUJI_TEST_POSTGRES";

/// The URL of the PostgreSQL server the tests use. Without one they fail: a test that quietly did not run
/// would prove nothing.
pub fn postgres_server() -> String {
    std::env::var(POSTGRES_VAR).unwrap_or_else(|_| {
        panic!(
            "{POSTGRES_VAR} is not set: the PostgreSQL tests run under `cargo xtask test`, which starts a \
             throw-away PostgreSQL 15 and sets it (or set it to postgres://USER@HOST:PORT/DB of a server \
             where USER may create databases)"
        )
    })
}

/// The variable that chooses the API suite's backend (`sqlite`, `postgres` or `nodes`; SQLite when unset).
pub const BACKEND_VAR: &str = "TESUJI_TEST_BACKEND";

/// The database kinds a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
    /// Two nodes on one PostgreSQL database and the tests' NATS (see [`site::Site`]).
    TwoNodes,
}

impl Backend {
    /// The backend [`BACKEND_VAR`] names; a value it does not know stops the tests, naming the ones it does.
    pub fn from_env() -> Backend {
        match std::env::var(BACKEND_VAR).as_deref() {
            Err(_) | Ok("sqlite") => Backend::Sqlite,
            Ok("postgres") => Backend::Postgres,
            Ok("nodes") => Backend::TwoNodes,
            Ok(other) => panic!("{BACKEND_VAR}={other:?}: it takes sqlite, postgres or nodes"),
        }
    }

    /// The database of the test whose temporary folder is `dir`: the same one whenever asked for the same
    /// folder during this run (so that a restarted server finds its data), a new one for another folder or
    /// another run. The server creates it when it is missing.
    pub fn database(self, dir: &Path) -> Database {
        match self {
            Backend::Sqlite => Database::Sqlite(dir.to_path_buf()),
            Backend::Postgres | Backend::TwoNodes => {
                let server = postgres_server();
                let base = server.rsplit_once('/').map_or(server.as_str(), |(b, _)| b);
                Database::Postgres(format!("{base}/t_{:016x}", run_key(dir)))
            }
        }
    }
}

/// A number for `dir` in this run of the tests.
fn run_key(dir: &Path) -> u64 {
    static STARTED: OnceLock<u128> = OnceLock::new();
    let started = STARTED.get_or_init(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    });
    let mut hasher = DefaultHasher::new();
    (dir, std::process::id(), started).hash(&mut hasher);
    hasher.finish()
}

/// Makes `mod CASE { sqlite, postgres }` for each async function `CASE(&Database)`: the same test on both.
#[macro_export]
macro_rules! on_both {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            use super::support::Backend;

            #[tokio::test]
            async fn sqlite() {
                let dir = tempfile::tempdir().unwrap();
                super::$case(&Backend::Sqlite.database(dir.path())).await;
            }

            #[tokio::test]
            async fn postgres() {
                let dir = tempfile::tempdir().unwrap();
                super::$case(&Backend::Postgres.database(dir.path())).await;
            }
        }
    )*};
}

/// The variable `cargo xtask test` sets to the URL of its nats-server.
pub const NATS_VAR: &str = "TESUJI_TEST_NATS";

/// The URL of the NATS server the tests use (see [`postgres_server`]).
pub fn nats_server() -> String {
    std::env::var(NATS_VAR).unwrap_or_else(|_| {
        panic!(
            "{NATS_VAR} is not set: the tests of several nodes run under `cargo xtask test`, which starts a \
             throw-away nats-server and sets it (or set it to nats://HOST:PORT of a server)"
        )
    })
}
