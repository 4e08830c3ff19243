//! Several nodes serving one site: two servers on one PostgreSQL database, telling each other their changes
//! over NATS, with players and spectators on different nodes.

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tesuji_client::{Action, Client, Socket};
use tesuji_server::{Limits, Running, ServerConfig, start};

use support::Backend;

/// A node of the cluster whose database belongs to `dir`.
async fn node(dir: &Path) -> Running {
    start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Backend::Postgres.database(dir),
        nats: Some(support::nats_server()),
        limits: Limits::default(),
        ..ServerConfig::default()
    })
    .await
    .expect("node starts")
}

fn base(running: &Running) -> String {
    format!("http://{}", running.address)
}

async fn guest(running: &Running, name: &str) -> Client {
    let mut c = Client::new(&base(running)).unwrap();
    c.guest(name).await.unwrap();
    c
}

/// A socket that gives up after a few seconds, so that a missing event fails the test instead of hanging it.
async fn socket(c: &Client, id: i64) -> Socket {
    let mut ws = c.game_socket(id).await.unwrap();
    ws.set_timeout(Some(Duration::from_secs(10)));
    let first = ws.next_json().await.unwrap();
    assert_eq!(first["type"], "state", "{first}");
    ws
}

/// The next event that is not about presence.
async fn next_event(ws: &mut Socket) -> Value {
    ws.next_matching(|m| m["type"] != "presence").await.unwrap()
}

/// Waits until `check` holds of the answer of `GET path` on `c`, for at most five seconds.
async fn until(c: &Client, path: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (status, body) = c.get(path).await.unwrap();
        if status == 200 && check(&body) {
            return body;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{path} never satisfied the check: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_on_two_nodes_play_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let a = node(dir.path()).await;
    let b = node(dir.path()).await;
    let ann = guest(&a, "ann").await;
    let bob = guest(&b, "bob").await;

    // A table made on A is in B's lobby; Bob joins it on B, and Ann's socket on A hears the join.
    let (status, table) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    let mut ann_ws = socket(&ann, id).await;
    until(&bob, "/api/lobby", |lobby| {
        lobby.to_string().contains(&format!("\"id\":{id}"))
    })
    .await;
    let (status, joined) = bob.join(id, None).await.unwrap();
    assert_eq!(
        (status, joined["status"].as_str()),
        (200, Some("playing")),
        "{joined}"
    );
    let join = next_event(&mut ann_ws).await;
    assert_eq!(
        (join["type"].as_str(), join["version"].as_u64()),
        (Some("join"), Some(1)),
        "{join}"
    );
    assert_eq!(join["state"]["players"]["white"]["name"], "bob");

    // A spectator on B sees every move, in order, whichever node took it.
    let watcher = Client::new(&base(&b)).unwrap();
    let mut spectator = socket(&watcher, id).await;
    let moves = ["E5", "C3", "G7", "C7", "G3", "pass", "D4", "pass", "pass"];
    for (k, mv) in moves.iter().enumerate() {
        let (player, ws_version) = if k % 2 == 0 {
            (&ann, 1 + k as u64)
        } else {
            (&bob, 1 + k as u64)
        };
        // Each player acts on its own node at the version its node shows; the other node must have caught up
        // with the previous move by then, or the action would be stale.
        let state = until(player, &format!("/api/games/{id}"), |s| {
            s["version"].as_u64() == Some(ws_version)
        })
        .await;
        assert_eq!(state["version"], ws_version);
        let (status, body) = player
            .act(id, Action::Play(mv), Some(ws_version))
            .await
            .unwrap();
        assert_eq!(status, 200, "move {k} ({mv}): {body}");
        let event = next_event(&mut spectator).await;
        assert_eq!(event["version"], ws_version + 1, "{event}");
        assert_eq!(event["action"]["move"], *mv, "{event}");
        let event = next_event(&mut ann_ws).await;
        assert_eq!(event["version"], ws_version + 1, "{event}");
    }
    // Play ended on B (Bob's second pass after Ann's): both nodes show the marking phase, with the same moves.
    let on_a = until(&ann, &format!("/api/games/{id}"), |s| {
        s["status"] == "marking"
    })
    .await;
    let on_b = until(&bob, &format!("/api/games/{id}"), |s| {
        s["status"] == "marking"
    })
    .await;
    assert_eq!(on_a["moves"], on_b["moves"]);
    assert_eq!(on_a["version"], on_b["version"]);

    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

/// Two players act at the same version on two nodes at once: the database takes one action, the other is
/// refused as stale on its node, which then shows the action that won.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_of_two_simultaneous_actions_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    let a = node(dir.path()).await;
    let b = node(dir.path()).await;
    for round in 0..5 {
        let ann = guest(&a, "ann").await;
        let bob = guest(&b, "bob").await;
        let (_, table) = ann
            .create_game(json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"}))
            .await
            .unwrap();
        let id = table["id"].as_i64().unwrap();
        let (status, _) = bob.join(id, None).await.unwrap();
        assert_eq!(status, 200);
        until(&ann, &format!("/api/games/{id}"), |s| {
            s["status"] == "playing"
        })
        .await;
        // Both resign at version 1: exactly one resignation is stored.
        let (first, second) = tokio::join!(
            ann.act(id, Action::Resign, Some(1)),
            bob.act(id, Action::Resign, Some(1)),
        );
        let (first, second) = (first.unwrap(), second.unwrap());
        let accepted = [&first, &second].iter().filter(|(s, _)| *s == 200).count();
        assert_eq!(accepted, 1, "round {round}: {first:?} {second:?}");
        let refused = if first.0 == 200 { &second } else { &first };
        assert_eq!(refused.0, 409, "round {round}: {refused:?}");
        assert_eq!(refused.1["reason"], "stale_version", "{refused:?}");
        let winner = if first.0 == 200 { "W+R" } else { "B+R" };
        for c in [&ann, &bob] {
            let state = until(c, &format!("/api/games/{id}"), |s| s["status"] == "over").await;
            assert_eq!(state["result"], winner, "round {round}: {state}");
            assert_eq!(state["moves"].as_array().unwrap().len(), 1, "{state}");
        }
    }
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}
