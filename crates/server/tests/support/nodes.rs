//! What the tests of several nodes share: a node on a test's database, a guest on a node, polling a game.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;
use tesuji_client::Client;
use tesuji_server::{Running, ServerConfig, start};

use super::Backend;

/// A node of the PostgreSQL database of `dir` whose NATS is at `nats`, on a free port.
pub fn node_config(dir: &Path, nats: &str) -> ServerConfig {
    ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Backend::Postgres.database(dir),
        nats: Some(nats.to_owned()),
        ..ServerConfig::default()
    }
}

/// Starts [`node_config`].
pub async fn node_at(dir: &Path, nats: &str) -> Running {
    start(node_config(dir, nats)).await.expect("node starts")
}

pub fn base(running: &Running) -> String {
    format!("http://{}", running.address)
}

/// A new guest signed in on the node.
pub async fn guest(running: &Running, name: &str) -> Client {
    let mut c = Client::new(&base(running)).unwrap();
    c.guest(name).await.unwrap();
    c
}

/// Waits until `check` holds of the answer of `GET path` on `c`, for at most `within`.
pub async fn until(
    c: &Client,
    path: &str,
    within: Duration,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let (status, body) = c.get(path).await.unwrap();
        if status == 200 && check(&body) {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{} {path} did not satisfy the check within {within:?}: {status} {body}",
            c.base()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A game for two: the table `table` (as `POST /api/games` takes it) made by `creator`, joined by `joiner` (on
/// the same node or another); its id.
pub async fn two_seated(creator: &Client, joiner: &Client, table: Value) -> i64 {
    let (status, made) = creator.create_game(table).await.unwrap();
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_i64().unwrap();
    let (status, joined) = joiner.join(id, None).await.unwrap();
    assert_eq!(status, 200, "{joined}");
    id
}
