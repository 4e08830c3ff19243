//! Attacks on the server, as a hostile client would make them: each must be refused with its reason, cost the
//! server little, and leave the game as it was.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tesuji_client::Client;
use tesuji_client::reqwest::Method;
use tesuji_server::{Database, Limits, Running, ServerConfig, start};

async fn server_with(dir: &Path, limits: Limits) -> Running {
    start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Sqlite(dir.to_path_buf()),
        limits,
        ..ServerConfig::default()
    })
    .await
    .expect("server starts")
}

fn anonymous(running: &Running) -> Client {
    Client::new(&format!("http://{}", running.address)).unwrap()
}

async fn guest(running: &Running, name: &str) -> Client {
    let mut c = anonymous(running);
    c.guest(name).await.unwrap();
    c
}

/// A table of `black`'s on 9×9, open to anyone: its id.
async fn table(black: &Client) -> i64 {
    let (status, body) = black
        .create_game(json!({"rules": "tromp-taylor:size=9", "color": "black"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    body["id"].as_i64().unwrap()
}

/// What a refusal must not change: the version, the board, the moves.
fn shown(state: &Value) -> Value {
    json!([
        state["version"],
        state["board"],
        state["moves"],
        state["status"]
    ])
}

/// Sends `raw` bytes on a new connection and reads what comes back until the server answers or closes, or
/// `patience` runs out: the answer's first line (empty when closed without one) and the time it took.
fn raw_exchange(address: SocketAddr, raw: &[u8], patience: Duration) -> (String, Duration) {
    let start = Instant::now();
    let mut tcp = TcpStream::connect(address).unwrap();
    tcp.set_read_timeout(Some(patience)).unwrap();
    tcp.write_all(raw).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match tcp.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                if got.windows(2).any(|w| w == b"\r\n") {
                    break;
                }
            }
        }
    }
    let text = String::from_utf8_lossy(&got);
    (
        text.lines().next().unwrap_or("").to_owned(),
        start.elapsed(),
    )
}

/// Sends the headers of a `POST` to `path` announcing a body of `length` bytes, and no body: it must be refused
/// as too large at once, not after waiting for the body.
async fn refused_unread(running: &Running, path: &str, content_type: &str, length: u64) {
    let address = running.address;
    let raw = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\r\n"
    );
    let (line, took) = tokio::task::spawn_blocking(move || {
        raw_exchange(address, raw.as_bytes(), Duration::from_secs(5))
    })
    .await
    .unwrap();
    assert!(line.contains("413"), "{path}: {line:?}");
    assert!(took < Duration::from_secs(2), "{path}: {took:?}");
}

#[tokio::test]
async fn refused_actions_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_with(dir.path(), Limits::default()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let stranger = guest(&running, "stranger").await;
    let id = table(&black).await;
    assert_eq!(white.join(id, None).await.unwrap().0, 200);
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let (_, before) = white.game(id).await.unwrap();
    let path = format!("/api/games/{id}/moves");

    let mut refusals: Vec<(&str, (u16, Value), u16, &str)> = vec![
        (
            "a stranger",
            stranger.play(id, "D4").await.unwrap(),
            403,
            "not_seated",
        ),
        (
            "out of turn",
            black.play(id, "D4").await.unwrap(),
            422,
            "not_your_turn",
        ),
        (
            "the other colour",
            black
                .post(&path, json!({"color": "white", "move": "D4"}))
                .await
                .unwrap(),
            403,
            "not_seated",
        ),
        (
            "a stale version",
            white
                .post(&path, json!({"move": "D4", "version": 1}))
                .await
                .unwrap(),
            409,
            "stale_version",
        ),
        (
            "an unknown field",
            white
                .post(&path, json!({"move": "D4", "force": true}))
                .await
                .unwrap(),
            400,
            "bad_request",
        ),
        (
            "an off-board point",
            white.play(id, "Z99").await.unwrap(),
            400,
            "bad_request",
        ),
    ];
    let mut no_csrf = white.clone();
    no_csrf.set_csrf(None);
    refusals.push((
        "no CSRF token",
        no_csrf.post(&path, json!({"move": "D4"})).await.unwrap(),
        403,
        "csrf",
    ));
    let foreign = white
        .request(Method::POST, &path)
        .header("content-type", "application/json")
        .body(r#"{"move": "D4"}"#);
    let mut foreign = foreign.build().unwrap();
    foreign
        .headers_mut()
        .insert("origin", "http://elsewhere.example".parse().unwrap());
    let answer = white.http().execute(foreign).await.unwrap();
    let status = answer.status().as_u16();
    refusals.push((
        "a foreign Origin",
        (status, answer.json().await.unwrap()),
        403,
        "foreign_origin",
    ));
    for (body, want, reason) in [
        (b"{\"move\": ".to_vec(), 400, "bad_request"),
        (vec![b' '; 100_000], 413, "too_large"),
    ] {
        let request = white
            .request(Method::POST, &path)
            .header("content-type", "application/json")
            .body(body);
        refusals.push((
            "a bad body",
            white.send(request).await.unwrap(),
            want,
            reason,
        ));
    }
    for (what, (status, body), want, reason) in &refusals {
        assert_eq!(status, want, "{what}: {body}");
        assert!(
            body["reason"].as_str().unwrap_or_default().contains(reason),
            "{what}: {body}"
        );
    }
    // A body announced far over the limit is refused before anything waits for it.
    refused_unread(&running, &path, "application/json", 1_000_000_000).await;

    let (_, after) = white.game(id).await.unwrap();
    assert_eq!(shown(&after), shown(&before));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn slow_clients_are_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_with(dir.path(), Limits::default()).await;
    let address = running.address;
    // Headers never finished: the connection is closed, without an answer, after the header deadline.
    let (line, took) = tokio::task::spawn_blocking(move || {
        raw_exchange(
            address,
            b"GET /api/lobby HTTP/1.1\r\nHost: x\r\n",
            Duration::from_secs(30),
        )
    })
    .await
    .unwrap();
    assert!(
        took < Duration::from_secs(20),
        "a half-sent request held its connection for {took:?}"
    );
    assert!(!line.contains("200"), "{line:?}");
    // A body that never arrives: answered (a refusal) once the body deadline passes, not held.
    let raw = format!(
        "POST /api/guest HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{{"
    );
    let (line, took) = tokio::task::spawn_blocking(move || {
        raw_exchange(address, raw.as_bytes(), Duration::from_secs(30))
    })
    .await
    .unwrap();
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(line.starts_with("HTTP/1.1 4"), "{line:?}");
    // The server still answers everyone else.
    assert_eq!(anonymous(&running).get("/api/lobby").await.unwrap().0, 200);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn uploaded_records_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_with(
        dir.path(),
        Limits {
            records_per_minute: 12,
            ..Limits::default()
        },
    )
    .await;
    let c = anonymous(&running);
    let upload = |sgf: String| {
        let request = c
            .request(Method::POST, "/api/replay")
            .header("content-type", "application/x-go-sgf")
            .body(sgf);
        c.send(request)
    };
    // A legal short game: the answer is the start and each move's removals, not a board per move.
    let (status, view) = upload("(;GM[1]SZ[9];B[ee];W[de];B[dd];W[];B[cd])".into())
        .await
        .unwrap();
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"].as_array().unwrap().len(), 5);
    assert_eq!(view["removed"].as_array().unwrap().len(), 5);
    assert!(view.get("boards").is_none());
    // Past the cap on moves: refused before the replay, with a small answer.
    let long: String = (0..10_001)
        .map(|k| if k % 2 == 0 { ";B[]" } else { ";W[]" })
        .collect();
    let (status, body) = upload(format!("(;GM[1]SZ[9]{long})")).await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("too_many_moves")),
        "{body}"
    );
    assert!(body.to_string().len() < 200);
    // A nesting bomb (50,000 variations inside each other) is read, or refused, at a small cost: no crash,
    // and an answer no larger than an empty board's.
    let bomb = format!("{}{}", "(;".repeat(50_000), ")".repeat(50_000));
    let (status, body) = upload(bomb).await.unwrap();
    assert!(matches!(status, 200 | 400), "{status} {body}");
    assert!(body.to_string().len() < 2_000, "{body}");
    // The address's budget (a burst of 4) is spent after one more: the next upload waits its turn.
    assert_eq!(upload("(;GM[1]SZ[9];B[ee])".into()).await.unwrap().0, 200);
    let (status, body) = upload("(;GM[1]SZ[9];B[ee])".into()).await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (429, Some("rate_limited")),
        "{body}"
    );
    // A record announced over the records' limit (a megabyte) is refused before anything waits for it, on
    // each route that takes one; one under it but over other bodies' limit was read above (the bomb).
    for path in ["/api/replay", "/api/reviews"] {
        refused_unread(&running, path, "application/x-go-sgf", 1024 * 1024 + 1).await;
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn sockets_are_capped_per_user_and_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_with(
        dir.path(),
        Limits {
            sockets_per_user: 2,
            sockets_per_address: 3,
            ..Limits::default()
        },
    )
    .await;
    let black = guest(&running, "black").await;
    let id = table(&black).await;
    let refused = |e: tesuji_client::Error| {
        let text = format!("{e}");
        assert!(text.contains("429"), "{text}");
    };
    let mut first = black.game_socket(id).await.unwrap();
    let _second = black.lobby_socket().await.unwrap();
    refused(black.game_socket(id).await.unwrap_err());
    // The address has one place left: a watcher without a session takes it.
    let watcher = anonymous(&running);
    let _third = watcher.game_socket(id).await.unwrap();
    refused(watcher.lobby_socket().await.unwrap_err());
    // A socket that closes gives its place back.
    first.close().await.unwrap();
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match black.game_socket(id).await {
            Ok(_) => break,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("the closed socket's place never came back: {e}"),
        }
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn open_tables_are_capped_and_their_creator_may_cancel_them() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_with(
        dir.path(),
        Limits {
            open_tables_per_user: 2,
            ..Limits::default()
        },
    )
    .await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let first = table(&black).await;
    let second = table(&black).await;
    let (status, body) = black
        .create_game(json!({"rules": "tromp-taylor:size=9"}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (429, Some("too_many_tables")),
        "{body}"
    );
    // A game against the computer starts at once: it is no open table.
    let (status, body) = black
        .create_game(json!({"rules": "tromp-taylor:size=9", "opponent": "bot", "bot": "simple"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");

    let mut watcher = anonymous(&running).game_socket(first).await.unwrap();
    assert_eq!(watcher.next_json().await.unwrap()["type"], "state");
    let cancel = |c: &Client, id: i64| {
        let c = c.clone();
        async move {
            c.post(&format!("/api/games/{id}/cancel"), json!({}))
                .await
                .unwrap()
        }
    };
    let (status, body) = cancel(&white, first).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (403, Some("not_seated")),
        "{body}"
    );
    let (status, body) = cancel(&black, first).await;
    assert_eq!(status, 200, "{body}");
    // Its watcher hears it, then the socket ends; the table is gone everywhere.
    assert_eq!(watcher.next_json().await.unwrap()["type"], "cancelled");
    assert!(watcher.next_json().await.is_err(), "the socket stays open");
    assert_eq!(white.game(first).await.unwrap().0, 404);
    assert_eq!(white.join(first, None).await.unwrap().0, 404);
    let (_, lobby) = white.get("/api/lobby").await.unwrap();
    let listed: Vec<i64> = lobby["open"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert!(
        !listed.contains(&first) && listed.contains(&second),
        "{lobby}"
    );
    // The place it held is free again; a table someone joined is no longer the creator's to cancel.
    table(&black).await;
    assert_eq!(white.join(second, None).await.unwrap().0, 200);
    let (status, body) = cancel(&black, second).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_open")),
        "{body}"
    );
    assert_eq!(white.game(second).await.unwrap().1["status"], "playing");
    // After a restart the cancelled table stays gone.
    running.stop().await.unwrap();
    let running = server_with(dir.path(), Limits::default()).await;
    assert_eq!(anonymous(&running).game(first).await.unwrap().0, 404);
    running.stop().await.unwrap();
}
