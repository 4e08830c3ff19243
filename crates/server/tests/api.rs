//! The server over real sockets: a server bound to port 0 on a fresh data directory per test.

use std::path::Path;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tesuji_rules::{Color, Game, Move, Point, Rules};
use tesuji_server::{Running, ServerConfig, start};
use tokio_tungstenite::tungstenite::Message;

async fn server(dir: &Path) -> Running {
    start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.to_path_buf(),
    })
    .await
    .expect("server starts")
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    fn new(running: &Running) -> Client {
        Client {
            http: reqwest::Client::new(),
            base: format!("http://{}", running.address),
        }
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    async fn create(&self, rules: &str) -> i64 {
        let (status, body) = self.post("/api/games", json!({ "rules": rules })).await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_i64().unwrap()
    }

    async fn play(&self, id: i64, color: &str, mv: &str) -> (u16, Value) {
        self.post(
            &format!("/api/games/{id}/moves"),
            json!({ "color": color, "move": mv }),
        )
        .await
    }
}

/// A ko on 9×9: after these, Black E4 captures D4 and White may not retake at once.
const KO_SETUP: [(&str, &str); 8] = [
    ("black", "C4"),
    ("white", "D4"),
    ("black", "D5"),
    ("white", "E5"),
    ("black", "D3"),
    ("white", "E3"),
    ("black", "A1"),
    ("white", "F4"),
];

#[tokio::test]
async fn create_play_refuse_resign_and_download() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let c = Client::new(&running);

    let (status, body) = c
        .post("/api/games", json!({ "rules": "Japanese : size = 9" }))
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();
    let canonical = body["rules"].as_str().unwrap().to_owned();
    assert_eq!(canonical.parse::<Rules>().unwrap().to_string(), canonical);

    for (k, (color, mv)) in KO_SETUP.iter().enumerate() {
        let (status, state) = c.play(id, color, mv).await;
        assert_eq!(status, 200, "{state}");
        assert_eq!(state["version"], k as u64 + 1);
    }
    let (status, state) = c.play(id, "black", "E4").await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["captures"]["black"], 1);
    assert_eq!(state["to_move"], "white");

    // Refusals name their reason, and change nothing.
    for (color, mv, reason) in [
        ("white", "D4", "ko"),
        ("white", "C4", "occupied"),
        ("black", "G7", "not_your_turn"),
    ] {
        let (status, body) = c.play(id, color, mv).await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["reason"], reason, "{body}");
        assert!(body["error"].as_str().unwrap().len() > 3);
    }
    let (status, state) = c.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(state["version"], 9);
    assert_eq!(state["moves"].as_array().unwrap().len(), 9);

    // A stale version is refused.
    let (status, body) = c
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"color": "white", "move": "pass", "version": 3}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["reason"], "stale_version");

    let (status, state) = c
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"color": "white", "move": "pass", "version": 9}),
        )
        .await;
    assert_eq!(status, 200, "{state}");
    let (status, state) = c
        .post(
            &format!("/api/games/{id}/resign"),
            json!({"color": "black"}),
        )
        .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["phase"], "over");
    assert_eq!(state["result"], "W+R");
    let (status, body) = c.play(id, "black", "G7").await;
    assert_eq!(status, 422);
    assert_eq!(body["reason"], "game_over");

    // The SGF replays to the same position as the same moves played here.
    let r = c
        .http
        .get(format!("{}/api/games/{id}/sgf", c.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        r.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("application/x-go-sgf")
    );
    let bytes = r.bytes().await.unwrap();
    let read = tesuji_sgf::read(&bytes).unwrap();
    let tree = &read.collection.trees[0];
    let rules = tesuji_sgf::record::record_rules(tree, None, Rules::default()).unwrap();
    let replay = tesuji_sgf::record::replay(tree, rules).unwrap();

    let mut expected = Game::new(canonical.parse().unwrap()).unwrap();
    let size = expected.rules().size;
    for (color, mv) in KO_SETUP.iter().copied().chain([("black", "E4")]) {
        let color = if color == "black" {
            Color::Black
        } else {
            Color::White
        };
        let p = Point::from_gtp(mv, size).unwrap();
        expected.play(color, Move::Play(p)).unwrap();
    }
    expected.play(Color::White, Move::Pass).unwrap();
    assert_eq!(replay.game.grid(), expected.grid());
    assert_eq!(replay.turns, 10);
    assert_eq!(tree.root().value("RE"), Some("W+R"));

    running.stop().await.unwrap();
}

#[tokio::test]
async fn bad_requests_are_clear_json_errors() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let c = Client::new(&running);
    let id = c.create("tromp-taylor:size=9").await;

    let send = |path: String, body: Vec<u8>| {
        let http = c.http.clone();
        let url = format!("{}{path}", c.base);
        async move {
            let r = http
                .post(url)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap())
        }
    };
    let (status, body) = send(format!("/api/games/{id}/moves"), b"{\"color\": ".to_vec()).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("malformed JSON"));
    let (status, body) = send(format!("/api/games/{id}/moves"), vec![b' '; 100_000]).await;
    assert_eq!(status, 413, "{body}");
    let (status, body) = c.play(id, "purple", "D4").await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = c.play(id, "black", "Z99").await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = c
        .post("/api/games", json!({"rules": "no-such-rules"}))
        .await;
    assert_eq!((status, body["reason"].as_str()), (400, Some("bad_rules")));
    let (status, _) = c.get("/api/games/12345").await;
    assert_eq!(status, 404);
    let (status, _) = c.get("/api/games/x").await;
    assert_eq!(status, 400);

    let (_, state) = c.get(&format!("/api/games/{id}")).await;
    assert_eq!(state["version"], 0);
    let page = c.http.get(&c.base).send().await.unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.text().await.unwrap().contains("tesuji"));
    running.stop().await.unwrap();
}

async fn next_json<S>(ws: &mut S) -> Value
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let msg = tokio::time::timeout(std::time::Duration::from_secs(5), ws.next())
            .await
            .expect("a message in time")
            .expect("socket open")
            .expect("no socket error");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

#[tokio::test]
async fn websocket_sees_moves_with_increasing_versions() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let c = Client::new(&running);
    let id = c.create("chinese:size=9").await;
    c.play(id, "black", "E5").await;

    let url = format!("ws://{}/api/games/{id}/ws", running.address);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let first = next_json(&mut ws).await;
    assert_eq!(first["type"], "state");
    assert_eq!(first["version"], 1);

    let moves = [("white", "C3"), ("black", "G7"), ("white", "pass")];
    for (color, mv) in moves {
        let (status, _) = c.play(id, color, mv).await;
        assert_eq!(status, 200);
    }
    // A refused move broadcasts nothing.
    assert_eq!(c.play(id, "white", "E5").await.0, 422);
    for (k, (color, mv)) in moves.iter().enumerate() {
        let event = next_json(&mut ws).await;
        assert_eq!(event["type"], "move");
        assert_eq!(event["version"], k as u64 + 2);
        assert_eq!(event["move"]["color"], *color);
        assert_eq!(event["move"]["move"], *mv);
        assert_eq!(event["state"]["version"], k as u64 + 2);
    }

    ws.send(Message::Text("not json".into())).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "error");
    ws.send(Message::Text(r#"{"resync": true}"#.into()))
        .await
        .unwrap();
    let state = next_json(&mut ws).await;
    assert_eq!(state["type"], "state");
    assert_eq!(state["version"], 4);
    assert_eq!(state["moves"].as_array().unwrap().len(), 4);

    c.post(
        &format!("/api/games/{id}/resign"),
        json!({"color": "black"}),
    )
    .await;
    let event = next_json(&mut ws).await;
    assert_eq!(
        (event["type"].as_str(), event["version"].as_u64()),
        (Some("resign"), Some(5))
    );
    ws.close(None).await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test]
async fn restart_continues_every_game_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let c = Client::new(&running);
    let id = c.create("japanese:size=9").await;
    for (color, mv) in KO_SETUP.iter().copied().chain([("black", "E4")]) {
        assert_eq!(c.play(id, color, mv).await.0, 200);
    }
    let other = c.create("aga:size=13").await;
    assert_eq!(c.play(other, "black", "K10").await.0, 200);
    let (_, before) = c.get(&format!("/api/games/{id}")).await;
    let (_, before_other) = c.get(&format!("/api/games/{other}")).await;
    running.stop().await.unwrap();

    let running = server(dir.path()).await;
    let c = Client::new(&running);
    let (status, after) = c.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(after, before);
    assert_eq!(c.get(&format!("/api/games/{other}")).await.1, before_other);
    // The ko is still a ko: the rebuilt game has its history, not only its position.
    let (status, body) = c.play(id, "white", "D4").await;
    assert_eq!((status, body["reason"].as_str()), (422, Some("ko")));
    let (status, state) = c.play(id, "white", "G7").await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["version"], 10);
    // New games get fresh ids.
    let third = c.create("japanese:size=9").await;
    assert!(third > other);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_moves_at_one_version_accept_exactly_one() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let c = std::sync::Arc::new(Client::new(&running));
    let id = c.create("japanese:size=9").await;
    let mut tasks = Vec::new();
    for mv in ["A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8", "J9", "pass"] {
        let c = c.clone();
        tasks.push(tokio::spawn(async move {
            c.post(
                &format!("/api/games/{id}/moves"),
                json!({"color": "black", "move": mv, "version": 0}),
            )
            .await
            .0
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|&&s| s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|&s| s == 200 || s == 409),
        "{statuses:?}"
    );
    let (_, state) = c.get(&format!("/api/games/{id}")).await;
    assert_eq!(state["version"], 1);
    running.stop().await.unwrap();
}
