//! Faults between the server and its database, put there by a store that wraps the real one: nothing
//! acknowledged is lost, nothing on disk is undone, and a bad cookie does not cost a read per request.

use crate::support::faulty::Faulty;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::json;
use tesuji_client::Client;
use tesuji_client::reqwest::Method;
use tesuji_server::{Database, Running, ServerConfig, start, start_with_stores};

fn config(dir: &Path) -> ServerConfig {
    ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Sqlite(dir.to_path_buf()),
        ..ServerConfig::default()
    }
}

async fn faulty_server(dir: &Path) -> (Running, Arc<Faulty>) {
    let store = Arc::new(Faulty::open(dir).await);
    let running = start_with_stores(config(dir), store.stores())
        .await
        .unwrap();
    (running, store)
}

async fn guest(running: &Running, name: &str) -> Client {
    let mut c = Client::new(&format!("http://{}", running.address)).unwrap();
    c.guest(name).await.unwrap();
    c
}

#[tokio::test]
async fn an_action_on_disk_stands_and_one_not_stored_is_undone() {
    let dir = tempfile::tempdir().unwrap();
    let (running, store) = faulty_server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (_, table) = black
        .create_game(json!({"rules": "tromp-taylor:size=9", "color": "black"}))
        .await
        .unwrap();
    let id = table["id"].as_i64().unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);

    // The writer commits E5 and dies before answering: the move is on disk, so it stands.
    store.fail_after_commit.store(true, Ordering::SeqCst);
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["last_move"], "E5");
    // The writer fails before committing C3: refused, and the game is as it was.
    store.fail_before_commit.store(true, Ordering::SeqCst);
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(
        (status, refused["reason"].as_str()),
        (503, Some("store_unavailable")),
        "{refused}"
    );
    let (_, now) = white.game(id).await.unwrap();
    assert_eq!(
        (&now["version"], &now["board"]),
        (&state["version"], &state["board"])
    );
    // Play goes on from there, numbered without a gap.
    assert_eq!(white.play(id, "D4").await.unwrap().0, 200);
    let (_, live) = black.game(id).await.unwrap();
    running.stop().await.unwrap();

    // What the store holds is what the live game showed.
    let running = start(config(dir.path())).await.unwrap();
    let (status, after) = Client::new(&format!("http://{}", running.address))
        .unwrap()
        .game(id)
        .await
        .unwrap();
    assert_eq!(status, 200);
    for field in ["version", "board", "moves"] {
        assert_eq!(after[field], live[field], "{field}");
    }
    let moves: Vec<&str> = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["E5", "D4"]);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn an_unknown_cookie_costs_one_store_read_a_while() {
    let dir = tempfile::tempdir().unwrap();
    let (running, store) = faulty_server(dir.path()).await;
    let c = Client::new(&format!("http://{}", running.address)).unwrap();
    let made_up = "tesuji_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let before = store.session_reads.load(Ordering::SeqCst);
    for _ in 0..50 {
        let request = c
            .request(Method::GET, "/api/session")
            .header("cookie", made_up);
        let (status, body) = c.send(request).await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(body["user"].is_null(), "{body}");
    }
    assert_eq!(store.session_reads.load(Ordering::SeqCst) - before, 1);
    // A real session is still found, and signing in is unaffected.
    let signed = guest(&running, "real").await;
    let (_, me) = signed.get("/api/session").await.unwrap();
    assert_eq!(me["user"]["name"], "real");
    running.stop().await.unwrap();
}
