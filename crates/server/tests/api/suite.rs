//! The server over real sockets: a site (one server, or two nodes) bound to port 0 on a fresh database per
//! test, of the kind `TESUJI_TEST_BACKEND` names (`crate::backend()`, see tests/api.rs).

use std::path::Path;

use serde_json::{Value, json};
use tesuji_client::reqwest::Method;
use tesuji_client::{Client, SocketOptions};
use tesuji_rules::{Color, Game, Move, Point, Rules};
use tesuji_server::{Limits, ManualTime, ServerConfig, ServerError, TimeSource};

use crate::support::site::Site;

// Issue 42's tests in files of their own: accounts and sessions, abuse limits, the words players read.
mod accounts;
mod limits;
mod words;

/// A server on port 0 keeping its data in `dir`, otherwise as by default.
fn config(dir: &Path) -> ServerConfig {
    ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: crate::backend().database(dir),
        ..ServerConfig::default()
    }
}

async fn server(dir: &Path) -> Site {
    server_with(dir, Limits::default()).await
}

async fn server_with(dir: &Path, limits: Limits) -> Site {
    start(ServerConfig {
        limits,
        ..config(dir)
    })
    .await
    .expect("server starts")
}

/// A server whose clocks and timers run on `time` only (the default grace period of 60 s).
async fn server_at(dir: &Path, time: &ManualTime) -> Site {
    start(ServerConfig {
        time: TimeSource::manual(time),
        ..config(dir)
    })
    .await
    .expect("server starts")
}

/// The site of the including target's kind (one server, or two nodes) on `config`.
async fn start(config: ServerConfig) -> Result<Site, ServerError> {
    Site::start(crate::backend(), config).await
}

/// The base URL of the node the next client sits on (the nodes take turns).
fn base(running: &Site) -> String {
    running.base()
}

/// A new browser without a session: its own cookie jar.
fn anonymous(running: &Site) -> Client {
    Client::new(&base(running)).unwrap()
}

/// A new browser signed in as a guest; the session cookie is HttpOnly and SameSite=Lax.
async fn guest(running: &Site, name: &str) -> Client {
    let mut c = anonymous(running);
    let session = c.guest(name).await.unwrap();
    let set = session.set_cookie.unwrap();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax"),
        "{set}"
    );
    c
}

/// Creates a table with this client in `color`.
async fn table(c: &Client, rules: &str, color: &str, opponent: &str) -> Value {
    let (status, body) = c
        .create_game(json!({ "rules": rules, "color": color, "opponent": opponent }))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    body
}

/// Client `c` resigns game `id`: the answer's status.
async fn resign(c: &Client, id: i64) -> u16 {
    c.post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap()
        .0
}

/// A started game: Black created it, White joined.
async fn seated(running: &Site, rules: &str) -> (i64, Client, Client) {
    let black = guest(running, "black").await;
    let white = guest(running, "white").await;
    let id = table(&black, rules, "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, state) = white
        .post(&format!("/api/games/{id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["status"], "playing");
    (id, black, white)
}

/// A state without `absent`, whose times run on with the real clock (an untimed game lists the player it waits
/// for as away until they open a socket: see `an_untimed_game_is_claimed_after_days_of_absence`).
fn settled(state: &Value) -> Value {
    let mut state = state.clone();
    if let Some(o) = state.as_object_mut() {
        o.remove("absent");
    }
    state
}

/// The player of a colour.
fn by<'a>(color: &str, black: &'a Client, white: &'a Client) -> &'a Client {
    if color == "black" { black } else { white }
}

/// A ko on 9×9: after these, Black E4 captures D4 and White may not retake at once.
/// The boards after each move of a replay, rebuilt as the page does: each move's stone placed, the stones the
/// server says it removed lifted.
fn boards_of(view: &Value) -> Vec<Vec<String>> {
    let (w, h) = (
        view["width"].as_u64().unwrap() as u8,
        view["height"].as_u64().unwrap() as u8,
    );
    let size = tesuji_rules::Size::new(w, h).unwrap();
    let mut cells: Vec<Vec<char>> = view["start"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_str().unwrap().chars().collect())
        .collect();
    let mut boards = vec![
        cells
            .iter()
            .map(|r| r.iter().collect())
            .collect::<Vec<String>>(),
    ];
    for (k, mv) in view["moves"].as_array().unwrap().iter().enumerate() {
        if let Some(p) = Point::from_gtp(mv.as_str().unwrap(), size) {
            let stone = if view["colors"][k] == "black" {
                'X'
            } else {
                'O'
            };
            cells[p.y as usize][p.x as usize] = stone;
        }
        for name in view["removed"][k].as_array().unwrap() {
            let p = Point::from_gtp(name.as_str().unwrap(), size).unwrap();
            cells[p.y as usize][p.x as usize] = '.';
        }
        boards.push(cells.iter().map(|r| r.iter().collect()).collect());
    }
    boards
}

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
    let (id, black, white) = seated(&running, "Japanese : size = 9").await;
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let canonical = state["rules"].as_str().unwrap().to_owned();
    assert_eq!(canonical.parse::<Rules>().unwrap().to_string(), canonical);
    assert_eq!(state["players"]["black"]["name"], "black");
    assert_eq!(state["players"]["white"]["guest"], true);
    // The join was an event of its own.
    assert_eq!(state["version"], 1);

    for (k, (color, mv)) in KO_SETUP.iter().enumerate() {
        let (status, state) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{state}");
        assert_eq!(state["version"], k as u64 + 2);
    }
    let (status, state) = black.play(id, "E4").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["captures"]["black"], 1);
    assert_eq!(state["to_move"], "white");
    assert_eq!(state["last_move"], "E4");
    // Row 4 from the bottom of 9 is the sixth row from the top; E is the fifth column.
    assert_eq!(&state["board"][5].as_str().unwrap()[..6], "..X.XO");

    // Refusals name their reason, and change nothing.
    for (player, mv, reason) in [
        (&white, "D4", "ko"),
        (&white, "C4", "occupied"),
        (&black, "G7", "not_your_turn"),
    ] {
        let (status, body) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["reason"], reason, "{body}");
        assert!(body["error"].as_str().unwrap().len() > 3);
    }
    // A spectator, a stranger without a session, and a player claiming the other colour may not act.
    let spectator = guest(&running, "watcher").await;
    let (status, body) = spectator.play(id, "G7").await.unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    let stranger = anonymous(&running);
    let (status, body) = stranger.play(id, "G7").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (401, Some("not_signed_in"))
    );
    let (status, body) = black
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"color": "white", "move": "G7"}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    let (status, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(state["version"], 10);
    assert_eq!(state["moves"].as_array().unwrap().len(), 9);

    // A stale version is refused.
    let (status, body) = white
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"move": "pass", "version": 3}),
        )
        .await
        .unwrap();
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["reason"], "stale_version");

    let (status, state) = white
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"move": "pass", "version": 10}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["last_move"], Value::Null);
    let (status, state) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["phase"], "over");
    assert_eq!(state["status"], "over");
    assert_eq!(state["result"], "W+R");
    let (status, body) = white.play(id, "G7").await.unwrap();
    assert_eq!(status, 422);
    assert_eq!(body["reason"], "game_over");

    // The SGF replays to the same position as the same moves played here, and names the players.
    let r = black
        .request(Method::GET, &format!("/api/games/{id}/sgf"))
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
    // Named after the players and the day: black-white-YYYY-MM-DD.sgf.
    let disposition = r.headers()[reqwest::header::CONTENT_DISPOSITION]
        .to_str()
        .unwrap()
        .to_owned();
    let date = disposition
        .split("filename=\"black-white-")
        .nth(1)
        .and_then(|rest| rest.split(".sgf\"").next())
        .unwrap_or_else(|| panic!("{disposition}"))
        .to_owned();
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    let parts: Vec<&str> = date.split('-').collect();
    assert!(
        parts.len() == 3 && parts.iter().all(|p| digits(p)) && parts[0].len() == 4,
        "{disposition}"
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
    // Guests by their names, said to be guests in GC; the day the game was made in DT, as in the file name.
    assert_eq!(tree.root().value("PB"), Some("black"));
    assert_eq!(tree.root().value("PW"), Some("white"));
    assert_eq!(
        tree.root()
            .get("GC")
            .and_then(|p| p.text_value())
            .as_deref(),
        Some("Black and White played as guests.")
    );
    assert_eq!(tree.root().value("DT"), Some(date.as_str()));
    assert_eq!(tree.root().value("PC"), Some("tesuji"));

    // The replay shows the board after every turn.
    let (status, view) = spectator
        .get(&format!("/api/games/{id}/replay"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"].as_array().unwrap().len(), 10);
    let boards = boards_of(&view);
    assert_eq!(boards.len(), 11);
    assert_eq!(json!(boards[10]), state["board"]);
    assert_eq!(view["info"]["result"], "W+R");

    // The same file uploaded replays the same way.
    let (status, uploaded) = spectator
        .send(
            spectator
                .request(Method::POST, "/api/replay")
                .body(bytes.to_vec()),
        )
        .await
        .unwrap();
    assert_eq!(status, 200);
    for part in ["start", "moves", "colors", "removed"] {
        assert_eq!(uploaded[part], view[part], "{part}");
    }
    assert_eq!(uploaded["info"]["black"], "black");
    let (status, refused) = spectator
        .send(
            spectator
                .request(Method::POST, "/api/replay")
                .body("(;SZ[9];B[ee];W[ee])"),
        )
        .await
        .unwrap();
    assert_eq!(status, 422);
    assert_eq!(refused["reason"], "bad_sgf");

    // Records that real files hold: two moves of one colour in a row (the other's pass inserted), and play after
    // two passes under Tromp-Taylor (read as resumed play). Both replay, and say where.
    for (text, moves, notes) in [
        (
            "(;SZ[9];B[ee];B[cc];W[gg])",
            json!(["E5", "pass", "C7", "G3"]),
            json!([{"kind": "pass_inserted", "move": 2, "node": 2}]),
        ),
        (
            "(;SZ[5]RU[tromp-taylor];B[cc];W[];B[];W[bb])",
            json!(["C3", "pass", "pass", "B4"]),
            json!([{"kind": "play_after_end", "move": 4, "node": 4}]),
        ),
    ] {
        let (status, view) = spectator
            .send(spectator.request(Method::POST, "/api/replay").body(text))
            .await
            .unwrap();
        assert_eq!(status, 200, "{text}");
        assert_eq!(view["moves"], moves, "{text}");
        assert_eq!(view["notes"], notes, "{text}");
    }
    // Rules the record does not name, or that we do not know, are said to be so beside the ones counted under.
    for (text, note, ru) in [
        ("(;SZ[9]RU[Japanese];B[ee])", Value::Null, Value::Null),
        ("(;SZ[9];B[ee])", json!("absent"), Value::Null),
        (
            "(;SZ[9]RU[Klingon];B[ee])",
            json!("unknown"),
            json!("Klingon"),
        ),
    ] {
        let (status, view) = spectator
            .send(spectator.request(Method::POST, "/api/replay").body(text))
            .await
            .unwrap();
        assert_eq!(status, 200, "{text}");
        assert_eq!(view["info"]["rules_note"], note, "{text}: {view}");
        assert_eq!(view["info"]["record_rules"], ru, "{text}: {view}");
    }
    assert_eq!(
        view["info"]["rules_note"],
        Value::Null,
        "a stored game knows its rules"
    );

    running.stop().await.unwrap();
}

#[tokio::test]
async fn session_cookies_are_secure_when_asked() {
    for secure in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let running = start(ServerConfig {
            secure_cookies: secure,
            ..config(dir.path())
        })
        .await
        .expect("server starts");
        let mut c = anonymous(&running);
        let session = c.guest("ann").await.unwrap();
        let set = session.set_cookie.unwrap();
        assert_eq!(set.contains("; Secure"), secure, "{set}");
        let cookie = set.split(';').next().unwrap().to_owned();
        // Signing out clears the cookie with the same attributes, so the browser replaces it. (The cookie by
        // hand: whether a jar keeps a Secure cookie over plain HTTP is the jar's business.)
        let r = c
            .http()
            .post(c.url("/api/logout"))
            .header("cookie", &cookie)
            .header("x-csrf-token", &session.csrf)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let cleared = r.headers()["set-cookie"].to_str().unwrap();
        assert!(cleared.contains("Max-Age=0"), "{cleared}");
        assert_eq!(cleared.contains("; Secure"), secure, "{cleared}");
        running.stop().await.unwrap();
    }
}

#[tokio::test]
async fn bad_requests_are_clear_json_errors() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, c, _white) = seated(&running, "tromp-taylor:size=9").await;

    let send = |path: String, body: Vec<u8>| {
        c.send(
            c.request(Method::POST, &path)
                .header("content-type", "application/json")
                .body(body),
        )
    };
    let (status, body) = send(format!("/api/games/{id}/moves"), b"{\"move\": ".to_vec())
        .await
        .unwrap();
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("malformed JSON"));
    let (status, body) = send(format!("/api/games/{id}/moves"), vec![b' '; 100_000])
        .await
        .unwrap();
    assert_eq!(status, 413, "{body}");
    let (status, body) = c
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"color": "purple", "move": "D4"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = c.play(id, "Z99").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = c
        .post("/api/games", json!({"rules": "no-such-rules"}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (400, Some("bad_rules")));
    assert!(body["error"].as_str().unwrap().contains("no-such-rules"));
    let (status, body) = c
        .post(
            "/api/games",
            json!({"rules": "chinese", "opponent": "martian"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, _) = c.get("/api/games/12345").await.unwrap();
    assert_eq!(status, 404);
    let (status, _) = c.get("/api/games/x").await.unwrap();
    assert_eq!(status, 400);
    let (status, body) = c.get("/api/nothing-here").await.unwrap();
    assert_eq!((status, body["reason"].as_str()), (404, Some("not_found")));

    let (_, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["version"], 1);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn websocket_sees_moves_with_increasing_versions() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();

    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    let first = ws.next_json().await.unwrap();
    assert_eq!(first["type"], "state");
    assert_eq!(first["status"], "open");
    assert_eq!(first["version"], 0);
    // Before the second player sits down nobody may move.
    let (status, body) = black.play(id, "E5").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("not_started"))
    );

    assert_eq!(
        white
            .post(&format!("/api/games/{id}/join"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );
    let joined = ws.next_json().await.unwrap();
    assert_eq!(
        (joined["type"].as_str(), joined["version"].as_u64()),
        (Some("join"), Some(1))
    );
    assert_eq!(joined["state"]["players"]["white"]["name"], "white");
    assert_eq!(
        (&joined["state"]["move_count"], joined["state"].get("moves")),
        (&json!(0), None),
        "a join adds no action"
    );

    let moves = [
        ("black", "E5"),
        ("white", "C3"),
        ("black", "G7"),
        ("white", "pass"),
    ];
    for (color, mv) in moves {
        let (status, _) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200);
    }
    // A refused move broadcasts nothing.
    assert_eq!(black.play(id, "E5").await.unwrap().0, 422);
    for (k, (color, mv)) in moves.iter().enumerate() {
        let event = ws.next_json().await.unwrap();
        assert_eq!(event["type"], "move");
        assert_eq!(event["version"], k as u64 + 2);
        assert_eq!(event["action"]["color"], *color);
        assert_eq!(event["action"]["move"], *mv);
        assert_eq!(event["state"]["version"], k as u64 + 2);
        // The event's state leaves the move list out (its size must not grow with the game): the watcher adds
        // the action to the list it has, whose length is `move_count`.
        assert_eq!(event["action"]["number"], k as u64 + 1);
        assert_eq!(event["state"]["move_count"], k as u64 + 1);
        assert_eq!(event["state"].get("moves"), None, "{event}");
    }

    // A watcher without a session cannot act over the socket; bad messages get an error and change nothing.
    ws.send_text("not json").await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "error");
    ws.send_text(r#"{"type":"play","move":"A1","ref":7}"#)
        .await
        .unwrap();
    let refused = ws.next_json().await.unwrap();
    assert_eq!(
        (refused["type"].as_str(), refused["reason"].as_str()),
        (Some("error"), Some("not_signed_in"))
    );
    assert_eq!(refused["ref"], 7);
    ws.resync().await.unwrap();
    let state = ws.next_json().await.unwrap();
    assert_eq!(state["type"], "state");
    assert_eq!(state["version"], 5);
    assert_eq!(state["moves"].as_array().unwrap().len(), 4);

    // Black plays over its own socket: an ack with the new version, and the event reaches every watcher.
    let mut black_ws = black.game_socket(id).await.unwrap();
    assert_eq!(black_ws.next_json().await.unwrap()["version"], 5);
    black_ws
        .send_text(r#"{"type":"play","move":"D4","version":5,"ref":"a"}"#)
        .await
        .unwrap();
    let mut acked = false;
    let mut seen = false;
    while !(acked && seen) {
        let m = black_ws.next_json().await.unwrap();
        match m["type"].as_str() {
            Some("ack") => {
                assert_eq!(
                    (m["ref"].as_str(), m["version"].as_u64()),
                    (Some("a"), Some(6))
                );
                acked = true;
            }
            Some("move") => {
                assert_eq!(m["version"], 6);
                seen = true;
            }
            // Black, whom the untimed game waited for, came to the board.
            Some("presence") => assert_eq!(m["version"], 5),
            other => panic!("unexpected {other:?}: {m}"),
        }
    }
    // (after the presence event of Black's socket)
    let event = ws.next_matching(|m| m["type"] == "move").await.unwrap();
    assert_eq!(
        (event["action"]["move"].as_str(), event["version"].as_u64()),
        (Some("D4"), Some(6))
    );
    // Not Black's turn now: refused over the socket with the rules' reason.
    black_ws
        .send_text(r#"{"type":"play","move":"A1","ref":2}"#)
        .await
        .unwrap();
    let refused = black_ws.next_json().await.unwrap();
    assert_eq!(refused["reason"], "not_your_turn");
    // Messages that are no action are refused with their ref and a sentence naming what is wrong.
    for (message, names) in [
        (json!({"type": "nuke", "ref": 3}), "nuke"),
        (json!({"type": "play", "mov": "A1", "ref": 3}), "mov"),
        (json!({"resync": true, "ref": 3}), "type"),
    ] {
        black_ws.send_json(&message).await.unwrap();
        let refused = black_ws.next_json().await.unwrap();
        let error = refused["error"].as_str().unwrap_or_default();
        assert_eq!(
            (refused["reason"].as_str(), &refused["ref"]),
            (Some("bad_request"), &json!(3)),
            "{message}: {refused}"
        );
        assert!(
            error.contains(names) && !error.contains("Some("),
            "{message}: {error}"
        );
    }

    // Over HTTP the same message plays, at the version it was decided at.
    let (status, state) = white
        .post(
            &format!("/api/games/{id}/actions"),
            json!({"type": "play", "move": "J9", "version": 6}),
        )
        .await
        .unwrap();
    assert_eq!((status, state["version"].as_u64()), (200, Some(7)));
    let event = ws.next_json().await.unwrap();
    assert_eq!(
        (event["type"].as_str(), event["action"]["move"].as_str()),
        (Some("move"), Some("J9"))
    );
    let (status, body) = white
        .post(
            &format!("/api/games/{id}/actions"),
            json!({"type": "play", "move": "J8", "version": 6}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("stale_version"))
    );
    let (status, body) = black
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"type": "resign", "move": "J8"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    let (status, body) = black
        .post(&format!("/api/games/{id}/resign"), json!({"point": "J8"}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    assert!(body["error"].as_str().unwrap().contains("point"), "{body}");

    white
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    let event = ws.next_json().await.unwrap();
    assert_eq!(
        (event["type"].as_str(), event["version"].as_u64()),
        (Some("resign"), Some(8))
    );
    // A socket opened from another site is refused before the upgrade.
    let foreign = SocketOptions {
        origin: Some("http://elsewhere.example".to_owned()),
        ..SocketOptions::default()
    };
    let path = format!("/api/games/{id}/ws");
    assert!(anonymous(&running).socket(&path, &foreign).await.is_err());
    ws.close().await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test]
async fn restart_continues_every_game_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=9").await;
    for (color, mv) in KO_SETUP.iter().copied().chain([("black", "E4")]) {
        assert_eq!(by(color, &black, &white).play(id, mv).await.unwrap().0, 200);
    }
    let other = table(&black, "aga:size=13", "white", "invite").await;
    let other_id = other["id"].as_i64().unwrap();
    let invite = other["invite"].as_str().unwrap().to_owned();
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let (_, before_other) = black.get(&format!("/api/games/{other_id}")).await.unwrap();
    running.stop().await.unwrap();

    let running = server(dir.path()).await;
    let black2 = black.at(&base(&running)).unwrap();
    let white2 = white.at(&base(&running)).unwrap();
    let (status, after) = black2.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 200);
    // (`absent` starts again at a restart.)
    assert_eq!(settled(&after), settled(&before));
    assert_eq!(
        black2
            .get(&format!("/api/games/{other_id}"))
            .await
            .unwrap()
            .1,
        before_other
    );
    // Sessions survive too, and the ko is still a ko: the rebuilt game has its history, not only its position.
    let (status, body) = white2.play(id, "D4").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("ko")),
        "{body}"
    );
    let (status, state) = white2.play(id, "G7").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["version"], 11);
    // The invitation still holds: without the token no seat, with it the game starts.
    let (status, body) = white2
        .post(&format!("/api/games/{other_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("bad_invite")));
    let (status, body) = white2
        .post(
            &format!("/api/games/{other_id}/join"),
            json!({"invite": invite}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("playing")),
        "{body}"
    );
    assert_eq!(body["players"]["black"]["name"], "white");
    // New games get fresh ids.
    let third = table(&black2, "japanese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert!(third > other_id);
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_moves_at_one_version_accept_exactly_one() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, _white) = seated(&running, "japanese:size=9").await;
    let black = std::sync::Arc::new(black);
    let mut tasks = Vec::new();
    for mv in ["A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8", "J9", "pass"] {
        let c = black.clone();
        tasks.push(tokio::spawn(async move {
            c.post(
                &format!("/api/games/{id}/moves"),
                json!({"move": mv, "version": 1}),
            )
            .await
            .unwrap()
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
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["version"], 2);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn accounts_sessions_and_csrf() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let (status, body) = c.get("/api/session").await.unwrap();
    assert_eq!((status, &body["user"]), (200, &Value::Null));

    for (name, password, reason) in [
        ("", "long enough", "bad_name"),
        ("has space", "long enough", "bad_name"),
        ("x".repeat(33).as_str(), "long enough", "bad_name"),
        ("ann", "short", "bad_password"),
    ] {
        let (status, body) = c
            .post("/api/signup", json!({"name": name, "password": password}))
            .await
            .unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (400, Some(reason)),
            "{name}: {body}"
        );
    }
    let (status, body) = c
        .post(
            "/api/signup",
            json!({"name": "Ann", "password": "correct horse"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["user"]["name"], "Ann");
    assert_eq!(body["user"]["guest"], false);
    let csrf = body["csrf"].as_str().unwrap().to_owned();
    let (_, me) = c.get("/api/session").await.unwrap();
    assert_eq!(
        (me["user"]["name"].as_str(), me["csrf"].as_str()),
        (Some("Ann"), Some(csrf.as_str()))
    );

    // Names are unique without regard to case; a name in another script is a name.
    let other = anonymous(&running);
    let (status, body) = other
        .post(
            "/api/signup",
            json!({"name": "ANN", "password": "another one"}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (409, Some("name_taken")));
    let (status, body) = other
        .post(
            "/api/signup",
            json!({"name": "棋手", "password": "another one"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");

    // A state-changing request without the CSRF header is refused, with it accepted.
    // The same browser (its cookie jar), with no token.
    let mut no_csrf = c.clone();
    no_csrf.set_csrf(None);
    let (status, body) = no_csrf
        .post("/api/games", json!({"rules": "chinese:size=9"}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("csrf")));
    no_csrf.set_csrf(Some("0".repeat(csrf.len())));
    assert_eq!(
        no_csrf
            .post("/api/games", json!({"rules": "chinese"}))
            .await
            .unwrap()
            .0,
        403
    );
    let mut ann = no_csrf;
    ann.set_csrf(Some(csrf));
    assert_eq!(
        ann.post("/api/games", json!({"rules": "chinese:size=9"}))
            .await
            .unwrap()
            .0,
        201
    );

    // Log out, then log in again: a wrong password and an unknown name get the same answer.
    assert_eq!(ann.post("/api/logout", json!({})).await.unwrap().0, 200);
    assert_eq!(
        ann.get("/api/session").await.unwrap().1["user"],
        Value::Null
    );
    assert_eq!(
        ann.post("/api/games", json!({"rules": "chinese"}))
            .await
            .unwrap()
            .0,
        401
    );
    for (name, password) in [("ann", "wrong password"), ("nobody", "correct horse")] {
        let (status, body) = ann
            .post("/api/login", json!({"name": name, "password": password}))
            .await
            .unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (401, Some("wrong_login"))
        );
        assert_eq!(body["error"], "wrong name or password");
    }
    let (status, body) = ann
        .post(
            "/api/login",
            json!({"name": "aNN", "password": "correct horse"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["user"]["name"], "Ann");

    // Sign-in requests from another site are refused.
    let r = c
        .http()
        .post(c.url("/api/guest"))
        .header("origin", "http://elsewhere.example")
        .json(&json!({"name": "mallory"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn sign_in_attempts_are_rate_limited() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        auth_per_minute: 3,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let c = anonymous(&running);
    for k in 0..3 {
        let (status, body) = c
            .post("/api/guest", json!({"name": format!("g{k}")}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{body}");
    }
    let r = c
        .request(Method::POST, "/api/login")
        .json(&json!({"name": "g0", "password": "whatever it is"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["reason"], "rate_limited");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn behind_a_proxy_limits_count_per_forwarded_address() {
    for behind_proxy in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            auth_per_minute: 2,
            behind_proxy,
            ..Limits::default()
        };
        let running = server_with(dir.path(), limits).await;
        let c = anonymous(&running);
        let guest = |k: u32, forwarded: &'static str| {
            c.request(Method::POST, "/api/guest")
                .header("x-forwarded-for", forwarded)
                .json(&json!({"name": format!("g{k}")}))
                .send()
        };
        // Two attempts from one client (the proxy adds the last address; an earlier one is the client's word).
        for k in 0..2 {
            let r = guest(k, "10.9.9.9, 203.0.113.1").await.unwrap();
            assert_eq!(r.status().as_u16(), 201);
        }
        let r = guest(2, "203.0.113.1").await.unwrap();
        assert_eq!(r.status().as_u16(), 429);
        // Another client through the same proxy: its own budget behind a proxy, the proxy's spent one otherwise.
        let r = guest(3, "10.9.9.9, 203.0.113.2").await.unwrap();
        let expected = if behind_proxy { 201 } else { 429 };
        assert_eq!(r.status().as_u16(), expected, "behind_proxy {behind_proxy}");
        // The same client written with its port is still that client.
        let r = guest(4, "203.0.113.2:5678").await.unwrap();
        assert_eq!(r.status().as_u16(), expected, "behind_proxy {behind_proxy}");
        let r = guest(5, "[2001:db8::1]:443").await.unwrap();
        assert_eq!(r.status().as_u16(), expected, "behind_proxy {behind_proxy}");
        running.stop().await.unwrap();
    }
}

#[tokio::test]
async fn seats_lobby_and_history() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let cy = guest(&running, "cy").await;
    let open = table(
        &ann,
        "bga:size=9,counting=japanese,komi=normal,aga=on",
        "random",
        "anyone",
    )
    .await;
    let open_id = open["id"].as_i64().unwrap();
    assert_eq!(open["invite"], Value::Null);
    let seated_colour = if open["state"]["players"]["black"].is_null() {
        "white"
    } else {
        "black"
    };
    assert_eq!(open["state"]["players"][seated_colour]["name"], "ann");
    let private = table(&ann, "ideal:handicap=3", "white", "invite").await;
    let private_id = private["id"].as_i64().unwrap();
    assert_eq!(private["invite"].as_str().unwrap().len(), 32);

    let (_, lobby) = cy.get("/api/lobby").await.unwrap();
    let open_ids: Vec<i64> = lobby["open"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(open_ids, vec![open_id], "invite-only tables are not listed");
    assert_eq!(lobby["playing"].as_array().unwrap().len(), 0);

    // Joining: the creator may not take the other seat; the first joiner gets it; the next finds it taken.
    let (status, body) = ann
        .post(&format!("/api/games/{open_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("already_seated"))
    );
    let (status, _) = bob
        .post(&format!("/api/games/{open_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let (status, body) = cy
        .post(&format!("/api/games/{open_id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (409, Some("seat_taken")));
    let (status, body) = cy
        .post(
            &format!("/api/games/{private_id}/join"),
            json!({"invite": "guess"}),
        )
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (403, Some("bad_invite")));

    let (_, lobby) = cy.get("/api/lobby").await.unwrap();
    assert_eq!(lobby["open"].as_array().unwrap().len(), 0);
    assert_eq!(lobby["playing"][0]["id"], open_id);
    assert_eq!(lobby["playing"][0]["status"], "playing");

    let (status, history) = cy
        .get(&format!("/api/users/{}/games", ann.user_id().unwrap()))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(history["user"]["name"], "ann");
    let ids: Vec<i64> = history["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![private_id, open_id]);
    let (_, history) = cy
        .get(&format!("/api/users/{}/games", bob.user_id().unwrap()))
        .await
        .unwrap();
    assert_eq!(history["games"].as_array().unwrap().len(), 1);
    assert_eq!(cy.get("/api/users/999/games").await.unwrap().0, 404);
    running.stop().await.unwrap();
}

/// The creator of an invite-only table gets its token back in every state it asks for while the table waits
/// (so that the page can show the link again); nobody else ever sees it, no event carries it, and once the table
/// is full nobody sees it any more.
#[tokio::test]
async fn only_the_creator_of_an_open_table_sees_its_invite() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let cy = guest(&running, "cy").await;
    let nobody = anonymous(&running);
    let created = table(&ann, "chinese:size=9", "black", "invite").await;
    let id = created["id"].as_i64().unwrap();
    let invite = created["invite"].as_str().unwrap().to_owned();
    assert_eq!(created["state"]["invite"], invite.as_str(), "{created}");
    let url = format!("/api/games/{id}");
    let (_, state) = ann.get(&url).await.unwrap();
    assert_eq!(state["invite"], invite.as_str(), "{state}");
    for (who, c) in [("bob", &bob), ("cy", &cy), ("anonymous", &nobody)] {
        let (status, state) = c.get(&url).await.unwrap();
        assert_eq!(status, 200, "{who}");
        assert!(state.get("invite").is_none(), "{who}: {state}");
        assert!(!state.to_string().contains(&invite), "{who}: {state}");
    }
    // Over the socket: the creator's first state has it, a spectator's and an anonymous watcher's do not.
    let mut ann_ws = ann.game_socket(id).await.unwrap();
    let first = ann_ws.next_json().await.unwrap();
    assert_eq!(
        (first["type"].as_str(), first["invite"].as_str()),
        (Some("state"), Some(invite.as_str()))
    );
    let mut cy_ws = cy.game_socket(id).await.unwrap();
    let mut nobody_ws = nobody.game_socket(id).await.unwrap();
    for ws in [&mut cy_ws, &mut nobody_ws] {
        let first = ws.next_json().await.unwrap();
        assert_eq!(first["type"], "state");
        assert!(!first.to_string().contains(&invite), "{first}");
    }
    // A resync is the creator's own state again.
    ann_ws.resync().await.unwrap();
    let again = ann_ws
        .next_matching(|m| m["type"] == "state")
        .await
        .unwrap();
    assert_eq!(again["invite"], invite.as_str(), "{again}");
    // Bob joins with the link: the join event carries no token, and the table is no longer open.
    let (status, joined) = bob.join(id, Some(&invite)).await.unwrap();
    assert_eq!(status, 200, "{joined}");
    assert!(!joined.to_string().contains(&invite), "{joined}");
    for ws in [&mut ann_ws, &mut cy_ws, &mut nobody_ws] {
        let m = ws.next_matching(|m| m["type"] == "join").await.unwrap();
        assert!(!m.to_string().contains(&invite), "{m}");
    }
    for c in [&ann, &bob, &cy, &nobody] {
        let (_, state) = c.get(&url).await.unwrap();
        assert_eq!(state["status"], "playing");
        assert!(!state.to_string().contains(&invite), "{state}");
    }
    ann_ws.resync().await.unwrap();
    let after = ann_ws
        .next_matching(|m| m["type"] == "state")
        .await
        .unwrap();
    assert!(after.get("invite").is_none(), "{after}");
    // A table open to anyone has no token to show.
    let open = table(&ann, "chinese:size=9", "black", "anyone").await;
    let (_, state) = ann
        .get(&format!("/api/games/{}", open["id"]))
        .await
        .unwrap();
    assert!(state.get("invite").is_none(), "{state}");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn lobby_socket_sees_tables_appear_and_fill() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let mut ws = anonymous(&running).lobby_socket().await.unwrap();
    let first = ws.next_json().await.unwrap();
    assert_eq!(first["type"], "lobby");
    assert_eq!(first["open"].as_array().unwrap().len(), 0);
    let id = table(&ann, "chinese:size=13", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let listed = ws.next_json().await.unwrap();
    assert_eq!(listed["open"][0]["id"], id);
    bob.post(&format!("/api/games/{id}/join"), json!({}))
        .await
        .unwrap();
    let filled = ws.next_json().await.unwrap();
    assert_eq!(filled["open"].as_array().unwrap().len(), 0);
    assert_eq!(filled["playing"][0]["players"]["white"]["name"], "bob");
    running.stop().await.unwrap();
}

/// Plays a whole 5×5 game to the marking phase: Black walls off the left, White the right, a lone black
/// stone at E5 in White's area, then both pass.
async fn to_marking(black: &Client, white: &Client, id: i64) {
    let moves = [
        ("black", "B1"),
        ("white", "D1"),
        ("black", "B2"),
        ("white", "D2"),
        ("black", "B3"),
        ("white", "D3"),
        ("black", "B4"),
        ("white", "D4"),
        ("black", "B5"),
        ("white", "D5"),
        ("black", "E5"),
        ("white", "pass"),
        ("black", "pass"),
    ];
    for (color, mv) in moves {
        let (status, state) = by(color, black, white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{color} {mv}: {state}");
    }
}

/// The turn that ends play brings the server's first proposal with it: the estimate's dead stones, stored as the
/// server's `mark` for the player who ended play (`by: "server"`), and its unsure stones beside them. The lone stones at B5 and
/// H5 are dead: the estimate may call them dead or unsure, never alive.
#[tokio::test]
async fn the_estimate_makes_the_first_proposal() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9,komi=0.5").await;
    // Black walls off columns A-D, White F-J; White's lone stone at B5 and Black's at H5 are dead.
    let mut turns = Vec::new();
    for row in 1..=9 {
        turns.push(("black", format!("D{row}")));
        turns.push(("white", format!("F{row}")));
    }
    turns.extend([
        ("black", "H5".to_owned()),
        ("white", "B5".to_owned()),
        ("black", "pass".to_owned()),
    ]);
    for (color, mv) in &turns {
        let (status, state) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{color} {mv}: {state}");
    }
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    let (status, state) = white.play(id, "pass").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["phase"], "marking");
    let moves = state["moves"].as_array().unwrap();
    let last = moves.last().unwrap().clone();
    assert_eq!(
        (last["color"].as_str(), last["by"].as_str()),
        (Some("white"), Some("server")),
        "the proposal is made for the player who ended play, by the server"
    );
    // Only the server's proposal says so: the players' own actions have no `by`.
    assert!(
        moves[..moves.len() - 1]
            .iter()
            .all(|m| m.get("by").is_none()),
        "{state}"
    );
    // Watchers hear it as the server's too.
    let m = ws.next_matching(|m| m["type"] == "mark").await.unwrap();
    assert_eq!(m["action"], last, "{m}");
    let dead: Vec<String> = serde_json::from_value(state["dead"].clone()).unwrap();
    let unsure: Vec<String> = serde_json::from_value(state["unsure"].clone()).unwrap();
    let text: Vec<&str> = last["move"].as_str().unwrap().split(' ').collect();
    assert_eq!(text[0], "mark");
    assert_eq!(text[1..].to_vec(), dead, "{state}");
    for stone in ["B5", "H5"] {
        assert!(
            dead.iter().chain(&unsure).any(|p| p == stone),
            "{stone} is neither dead nor unsure: {state}"
        );
    }
    // Never a living stone proposed dead. (Unsure is allowed anywhere: the estimate may doubt what it cannot
    // settle, and the players decide.)
    for p in &dead {
        assert!(p == "B5" || p == "H5", "{p} is alive: {state}");
    }
    drop(ws);
    // A player's own mark is theirs, and a restart still tells the server's from it.
    let (status, marked) = black
        .post(&format!("/api/games/{id}/dead"), json!({"point": "D1"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{marked}");
    let mine = marked["moves"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(mine["color"], "black");
    assert!(mine.get("by").is_none(), "{mine}");
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let black = black.at(&base(&running)).unwrap();
    let white = white.at(&base(&running)).unwrap();
    let (_, replayed) = anonymous(&running)
        .get(&format!("/api/games/{id}"))
        .await
        .unwrap();
    let replayed = replayed["moves"].as_array().unwrap().clone();
    assert_eq!(replayed[replayed.len() - 2], last);
    assert_eq!(replayed[replayed.len() - 1], mine);
    black
        .post(&format!("/api/games/{id}/dead"), json!({"point": "D1"}))
        .await
        .unwrap();
    // Accepting it scores it.
    black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    let (_, state) = white
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(state["status"], "over");
    assert_eq!(state["unsure"], json!([]));
    // The proposal replays like any mark.
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    assert_eq!(
        anonymous(&running)
            .get(&format!("/api/games/{id}"))
            .await
            .unwrap()
            .1,
        before
    );
    running.stop().await.unwrap();
}

/// The estimate's unsure stones are part of the marking phase from its first state on, also without the first
/// proposal, and a restart shows the same ones at once (they were once made in the background, so a restart
/// could show none for a while, and a watcher never heard of them).
#[tokio::test]
async fn unsure_stones_come_with_the_end_of_play_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = || ServerConfig {
        first_proposal: false,
        ..config(dir.path())
    };
    let running = start(config()).await.expect("server starts");
    let (id, black, white) = seated(&running, "aga:size=9").await;
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    // Four scattered stones: nothing on this board is settled.
    for (color, mv) in [
        ("black", "E5"),
        ("white", "C3"),
        ("black", "E4"),
        ("white", "G7"),
        ("black", "pass"),
    ] {
        let (status, state) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{color} {mv}: {state}");
    }
    let (status, ended) = white.play(id, "pass").await.unwrap();
    assert_eq!(status, 200, "{ended}");
    assert_eq!(ended["phase"], "marking");
    assert_eq!(ended["dead"], json!([]), "no first proposal: {ended}");
    let unsure = ended["unsure"].clone();
    assert!(
        !unsure.as_array().unwrap().is_empty(),
        "the turn that ends play shows the unsure stones: {ended}"
    );
    let (_, now) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(now["unsure"], unsure, "{now}");
    // Watchers heard of them with the pass.
    let m = ws
        .next_matching(|m| m["state"]["phase"] == "marking")
        .await
        .unwrap();
    assert_eq!(m["type"], "move", "{m}");
    assert_eq!(m["state"]["unsure"], unsure, "{m}");
    drop(ws);
    running.stop().await.unwrap();
    let running = start(config()).await.expect("server restarts");
    let (_, after) = anonymous(&running)
        .get(&format!("/api/games/{id}"))
        .await
        .unwrap();
    assert_eq!(after["phase"], "marking");
    assert_eq!(
        after["unsure"], unsure,
        "the first look after a restart: {after}"
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn dead_stones_are_marked_accepted_or_disputed() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=5,komi=0.5").await;
    to_marking(&black, &white, id).await;
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        (state["phase"].as_str(), state["status"].as_str()),
        (Some("marking"), Some("marking"))
    );

    // Moves are over; marking is for the seated players only.
    let (status, body) = black.play(id, "A1").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("not_playing"))
    );
    let spectator = guest(&running, "watcher").await;
    let (status, _) = spectator
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 403);
    let (status, body) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "Z9"}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );

    // The end of play brought the estimate's proposal: E5 dead. White toggles it alive and dead again; Black
    // accepts; then White; the count follows RULES.md §7.
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["dead"], json!(["E5"]), "{state}");
    let (status, state) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["dead"], json!([]));
    let (status, state) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["dead"], json!(["E5"]));
    assert_eq!(
        state["moves"].as_array().unwrap().last().unwrap()["move"],
        "mark E5"
    );
    let (_, state) = black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(state["accepted"], json!({"black": true, "white": false}));
    // A new proposal clears the acceptances.
    white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    let (_, state) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(state["accepted"], json!({"black": false, "white": false}));
    black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    let (status, state) = white
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["status"], "over");
    // Black: A1..A5 = 5 points; White: E1..E4 + E5 = 5 points and one prisoner, komi 0.5: W+1.5.
    assert_eq!(state["result"], "W+1.5");
    let score = &state["score"];
    assert_eq!(score["scoring"], "territory");
    assert_eq!(score["black"]["territory"], 5);
    assert_eq!(score["white"]["territory"], 5);
    assert_eq!(score["white"]["dead"], 1);
    assert_eq!(score["white"]["komi"], 1);
    assert_eq!(score["margin"], -3);

    // A dispute resumes play with the right player to move (the opponent of the last passer).
    let (id2, black2, white2) = seated(&running, "japanese:size=5").await;
    to_marking(&black2, &white2, id2).await;
    let (status, state) = black2
        .post(&format!("/api/games/{id2}/dispute"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["phase"], "playing");
    assert_eq!(state["to_move"], "white");
    assert_eq!(
        white2.play(id2, "D4").await.unwrap().1["reason"],
        "occupied"
    );
    assert_eq!(white2.play(id2, "pass").await.unwrap().0, 200);

    // A restart replays marks, acceptances and disputes.
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let (_, before2) = black.get(&format!("/api/games/{id2}")).await.unwrap();
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    assert_eq!(
        settled(&c.get(&format!("/api/games/{id}")).await.unwrap().1),
        settled(&before)
    );
    assert_eq!(
        settled(&c.get(&format!("/api/games/{id2}")).await.unwrap().1),
        settled(&before2)
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn the_computer_answers_moves_and_accepts_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        actions_per_second: 10_000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let ann = guest(&running, "ann").await;
    // Tree search answers too: Black at E5, the computer (1,000 playouts a move) replies.
    let (status, table) = ann
        .post(
            "/api/games",
            json!({"rules": "japanese:size=9", "color": "black", "opponent": "bot", "bot": "mcts-1"}),
        )
        .await.unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["version"], 0);
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(ws.next_json().await.unwrap()["version"], 1);
    let reply = ws.next_json().await.unwrap();
    assert_eq!(
        (reply["version"].as_u64(), reply["action"]["color"].as_str()),
        (Some(2), Some("white"))
    );
    assert_eq!(reply["state"]["players"]["white"]["bot"], "mcts-1");
    let (status, body) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese", "opponent": "bot", "bot": "deep-blue"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    // The refusal names the strengths there are.
    let error = body["error"].as_str().unwrap();
    for bot in ["simple", "mcts-1", "mcts-2", "mcts-3", "mcts-4"] {
        assert!(error.contains(bot), "{error}");
    }
    // Every strength takes its seat, the strongest (three seconds a move on two threads) too; Black is to
    // move, so none of them thinks yet.
    for bot in ["mcts-2", "mcts-3", "mcts-4"] {
        let (status, table) = ann
            .create_game(
                json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": bot}),
            )
            .await
            .unwrap();
        assert_eq!(status, 201, "{table}");
        assert_eq!(table["state"]["status"], "playing");
        assert_eq!(table["state"]["players"]["white"]["bot"], bot);
    }

    // The beginner bot, played to the end.
    let (status, table) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": "simple"}),
        )
        .await.unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    assert_eq!(table["state"]["status"], "playing");
    assert_eq!(table["state"]["players"]["white"]["bot"], "simple");
    let mut ws = ann.game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["version"], 0);
    let (status, _) = ann.play(id, "E5").await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(ws.next_json().await.unwrap()["version"], 1);
    let reply = ws.next_json().await.unwrap();
    assert_eq!(
        (reply["version"].as_u64(), reply["action"]["color"].as_str()),
        (Some(2), Some("white"))
    );
    assert_eq!(reply["state"]["to_move"], "black");

    // When Black passes and the computer has nothing useful left it passes too; in the marking phase it
    // accepts what Black accepted. Play on by passing until the game is over (or 300 turns).
    let mut state = reply["state"].clone();
    for _ in 0..300 {
        if state["phase"] == "over" {
            break;
        }
        let (status, body) = if state["phase"] == "marking" {
            ann.post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap()
        } else {
            ann.play(id, "pass").await.unwrap()
        };
        assert_eq!(status, 200, "{body}");
        // Wait until it is Black's turn again, or the game is over: after this action (the events before it,
        // such as the server's first proposal that came with the end of play, are already answered).
        let acted = body["version"].as_u64().unwrap();
        loop {
            let m = ws.next_json().await.unwrap();
            let s = &m["state"];
            if s["version"].as_u64().unwrap() <= acted {
                continue;
            }
            let black_to_act = match s["phase"].as_str() {
                Some("playing") => s["to_move"] == "black",
                Some("marking") => s["accepted"]["black"] == false,
                _ => true,
            };
            if black_to_act {
                state = s.clone();
                break;
            }
        }
    }
    assert_eq!(state["phase"], "over", "{state}");
    assert!(
        state["result"].as_str().unwrap().starts_with("W+"),
        "{state}"
    );
    running.stop().await.unwrap();
}

/// The entry of game `id` in a listing's array `list` (`open`, `playing`, `games`).
fn entry_of(listing: &Value, list: &str, id: &Value) -> Value {
    listing[list]
        .as_array()
        .and_then(|games| games.iter().find(|g| &g["id"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("game {id} is not in {list}: {listing}"))
}

/// Listings and states say each game's komi (White's net, in half-points), handicap and clock, from memory and
/// from the store's rows alike.
#[tokio::test]
async fn listings_and_states_carry_komi_handicap_and_clock() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, state) = timed(&black, &white, "japanese:size=9", "fischer:10m+10s").await;
    // Japanese komi: 6.5.
    let expected = 13;
    assert_eq!(state["komi"], expected, "{state}");
    assert_eq!(state["handicap"], 0, "{state}");
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    let entry = entry_of(&lobby, "playing", &json!(id));
    assert_eq!(
        (&entry["komi"], &entry["handicap"], &entry["time"]),
        (&json!(expected), &json!(0), &json!("fischer:10m+10s")),
        "{entry}"
    );
    let open = table(
        &black,
        "chinese:size=9,komi=0,handicap=3",
        "black",
        "anyone",
    )
    .await;
    assert_eq!(open["state"]["komi"], 0, "{open}");
    assert_eq!(open["state"]["handicap"], 3, "{open}");
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    let entry = entry_of(&lobby, "open", &json!(open["id"]));
    assert_eq!(
        (&entry["komi"], &entry["handicap"], &entry["time"]),
        (&json!(0), &json!(3), &Value::Null),
        "{entry}"
    );
    // Ended and read back from the store's row after a restart: the same.
    let (status, _) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let (_, archive) = c.get("/api/archive").await.unwrap();
    let entry = entry_of(&archive, "games", &json!(id));
    assert_eq!(
        (&entry["komi"], &entry["handicap"], &entry["time"]),
        (&json!(expected), &json!(0), &json!("fischer:10m+10s")),
        "{entry}"
    );
    running.stop().await.unwrap();
}

/// In the marking phase every state carries the count the current proposal gives; once both accept, the game's
/// score is exactly the last one shown.
#[tokio::test]
async fn the_marking_phase_shows_the_count_of_the_proposal() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    for rules in ["japanese:size=5", "chinese:size=5"] {
        let (id, black, white) = seated(&running, rules).await;
        let (_, playing) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(playing["proposal_score"], Value::Null, "{playing}");
        to_marking(&black, &white, id).await;
        let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
        let shown = before["proposal_score"].clone();
        assert!(shown.is_object(), "{rules}: {before}");
        // Marking E5 (Black's lone stone in White's area) dead moves the count towards White.
        let (status, marked) = white
            .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{marked}");
        let after = marked["proposal_score"].clone();
        let dead_in = before["dead"].as_array().unwrap().iter().any(|p| p == "E5");
        let (m0, m1) = (
            shown["margin"].as_i64().unwrap(),
            after["margin"].as_i64().unwrap(),
        );
        if dead_in {
            assert!(m1 > m0, "{rules}: reviving E5 helps Black: {m0} -> {m1}");
        } else {
            assert!(m1 < m0, "{rules}: killing E5 helps White: {m0} -> {m1}");
        }
        // The shading: E5 is White's now that it is dead, and every shaded point is empty or a dead stone.
        let territory = &marked["territory"];
        let has = |c: &str, p: &str| territory[c].as_array().unwrap().iter().any(|q| q == p);
        assert_eq!(has("white", "E5"), !dead_in, "{rules}: {territory}");
        let dead_now: Vec<Value> = marked["dead"].as_array().unwrap().clone();
        let stones: Vec<String> =
            [stones_of(&marked, "black"), stones_of(&marked, "white")].concat();
        for c in ["black", "white"] {
            for p in territory[c].as_array().unwrap() {
                let p_str = p.as_str().unwrap().to_owned();
                assert!(
                    !stones.contains(&p_str) || dead_now.contains(p),
                    "{rules}: {p} shaded {c}"
                );
            }
        }
        assert_eq!(playing["territory"], Value::Null);
        // Spectators see the same count.
        let (_, seen) = anonymous(&running)
            .get(&format!("/api/games/{id}"))
            .await
            .unwrap();
        assert_eq!(seen["proposal_score"], after);
        for c in [&black, &white] {
            let (status, body) = c
                .post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap();
            assert_eq!(status, 200, "{body}");
        }
        let (_, over) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(over["status"], "over");
        assert_eq!(over["score"], after, "{rules}: the count is the one shown");
        assert_eq!(over["proposal_score"], Value::Null);
        assert_eq!(over["territory"], Value::Null);
    }
    running.stop().await.unwrap();
}

/// A second accept and a mark on an empty point change nothing: refused with `no_change`, not stored.
#[tokio::test]
async fn marking_actions_that_change_nothing_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=5").await;
    to_marking(&black, &white, id).await;
    let (status, accepted) = black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{accepted}");
    for (client, path, body) in [
        (&black, "accept", json!({})),
        (&black, "dead", json!({"point": "A1"})),
        (&white, "dead", json!({"point": "E1"})),
    ] {
        let (status, refusal) = client
            .post(&format!("/api/games/{id}/{path}"), body.clone())
            .await
            .unwrap();
        assert_eq!(
            (status, refusal["reason"].as_str()),
            (409, Some("no_change")),
            "{path} {body}: {refusal}"
        );
        let (_, now) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(
            settled(&now),
            settled(&accepted),
            "a refused {path} changed the game"
        );
    }
    // A mark that changes the proposal is taken, and clears the acceptance; accepting again is then a change.
    let (status, marked) = white
        .post(&format!("/api/games/{id}/dead"), json!({"point": "E5"}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{marked}");
    assert_eq!(marked["accepted"]["black"], false, "{marked}");
    let (status, _) = black
        .post(&format!("/api/games/{id}/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    running.stop().await.unwrap();
}

/// The points of `color`'s stones in a state's board (`X` black, `O` white; rows from the top).
fn stones_of(state: &serde_json::Value, color: &str) -> Vec<String> {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mark = if color == "black" { 'X' } else { 'O' };
    let rows: Vec<String> = serde_json::from_value(state["board"].clone()).unwrap();
    let height = rows.len();
    let mut points = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c == mark {
                points.push(format!("{}{}", LETTERS[x] as char, height - r));
            }
        }
    }
    points
}

/// Issue 16's game: Black E5, the computer replies, Black passes and the computer passes; Black marks the
/// computer's stones dead and accepts. The computer must not accept its living stones dead: it disputes, and
/// play resumes.
#[tokio::test]
async fn the_computer_disputes_a_proposal_that_kills_its_living_stones() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        actions_per_second: 10_000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let ann = guest(&running, "ann").await;
    for bot in ["mcts-1", "simple"] {
        let (status, table) = ann
            .post(
                "/api/games",
                json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": bot}),
            )
            .await
            .unwrap();
        assert_eq!(status, 201, "{table}");
        let id = table["id"].as_i64().unwrap();
        let mut ws = ann.game_socket(id).await.unwrap();
        assert_eq!(ws.next_json().await.unwrap()["type"], "state");
        let (status, body) = ann.play(id, "E5").await.unwrap();
        assert_eq!(status, 200, "{body}");
        let mut acted = body["version"].as_u64().unwrap();
        // Black passes whenever it is Black's turn until play ends (the computer passes when it is ahead).
        let mut state = body;
        for _ in 0..200 {
            if state["phase"] == "marking" {
                break;
            }
            let m = ws.next_json().await.unwrap();
            let s = m["state"].clone();
            if s["version"].as_u64().unwrap() <= acted {
                continue;
            }
            state = s;
            if state["phase"] == "playing" && state["to_move"] == "black" {
                let (status, body) = ann.play(id, "pass").await.unwrap();
                assert_eq!(status, 200, "{body}");
                acted = body["version"].as_u64().unwrap();
                state = body;
            }
        }
        assert_eq!(state["phase"], "marking", "{bot}: {state}");
        let white = stones_of(&state, "white");
        assert!(!white.is_empty(), "{bot}: the computer has stones: {state}");
        // Mark every white chain dead (toggling a stone already in the proposal would revive its chain).
        for point in &white {
            let (_, now) = ann.get(&format!("/api/games/{id}")).await.unwrap();
            let dead: Vec<String> = serde_json::from_value(now["dead"].clone()).unwrap();
            if !dead.contains(point) {
                let (status, body) = ann
                    .post(&format!("/api/games/{id}/dead"), json!({"point": point}))
                    .await
                    .unwrap();
                assert_eq!(status, 200, "{body}");
            }
        }
        let (_, now) = ann.get(&format!("/api/games/{id}")).await.unwrap();
        let mut dead: Vec<String> = serde_json::from_value(now["dead"].clone()).unwrap();
        dead.retain(|p| white.contains(p));
        assert_eq!(dead.len(), white.len(), "{now}");
        let (status, body) = ann
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
        let accepted = body["version"].as_u64().unwrap();
        // The computer's answer is the next action: a dispute, and play resumes.
        let answer = loop {
            let m = ws.next_json().await.unwrap();
            if m["state"]["version"].as_u64().unwrap() > accepted {
                break m;
            }
        };
        assert_eq!(answer["type"], "dispute", "{bot}: {answer}");
        assert_eq!(answer["action"]["color"], "white", "{answer}");
        assert_eq!(answer["state"]["phase"], "playing", "{answer}");
        assert_eq!(answer["state"]["status"], "playing", "{answer}");
        // The dispute says why: the computer's stones it holds alive, all among those marked dead.
        let reasons = &answer["state"]["computer_dispute"];
        let alive: Vec<String> = serde_json::from_value(reasons["alive"].clone()).unwrap();
        assert!(!alive.is_empty(), "{bot}: {answer}");
        assert!(
            alive.iter().all(|p| white.contains(p)),
            "{alive:?} {white:?}"
        );
        let (_, now) = ann.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(&now["computer_dispute"], reasons, "{now}");
        let (status, body) = ann
            .post(&format!("/api/games/{id}/resign"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200);
        // Shown while the dispute is the last action only.
        assert!(body.get("computer_dispute").is_none(), "{body}");
    }
    running.stop().await.unwrap();
}

/// Appends an action `(number, colour, text)` to game `id` in the store of a stopped server, behind the
/// server's back (no ending is written), leaving the game's row in `state`.
async fn append_behind(dir: &Path, id: i64, (number, color, text): (i64, &str, &str), state: &str) {
    let store = tesuji_server::store::open(&crate::backend().database(dir))
        .await
        .unwrap();
    let action = tesuji_server::store::StoredMove {
        number,
        color: color.into(),
        text: text.into(),
        spent_ms: None,
        lag_ms: None,
        at_ms: None,
    };
    store.append_move(id, &action, state, None).await.unwrap();
    store.close().await.unwrap();
}

#[tokio::test]
async fn a_game_that_no_longer_replays_does_not_keep_the_others_offline() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (broken, black, _white) = seated(&running, "chinese:size=9").await;
    assert_eq!(black.play(broken, "E5").await.unwrap().0, 200);
    let (fine, black2, _white2) = seated(&running, "chinese:size=9").await;
    assert_eq!(black2.play(fine, "E5").await.unwrap().0, 200);
    running.stop().await.unwrap();

    // A second play on an occupied point, as if a rules change had made a stored move illegal.
    append_behind(dir.path(), broken, (2, "white", "E5"), "playing").await;

    let running = server(dir.path()).await;
    let c = anonymous(&running);
    assert_eq!(c.get(&format!("/api/games/{broken}")).await.unwrap().0, 404);
    let (status, state) = c.get(&format!("/api/games/{fine}")).await.unwrap();
    assert_eq!((status, state["moves"].as_array().unwrap().len()), (200, 1));
    running.stop().await.unwrap();
}

// ---- clocks, on manual time: nothing here waits for the clocks to run in real time ----

/// A timed table of `black`'s, joined by `white`: the game and its clocks start at the join.
async fn timed(black: &Client, white: &Client, rules: &str, time: &str) -> (i64, Value) {
    let (status, table) = black
        .post(
            "/api/games",
            json!({"rules": rules, "color": "black", "time": time}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    // No clock runs before the second player sits down.
    assert_eq!(table["state"]["clock"]["running"], Value::Null);
    assert_eq!(table["state"]["clock"]["control"], time);
    let (status, state) = white
        .post(&format!("/api/games/{id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    // Nor before the first move (`no_clock_runs_before_the_first_move`).
    assert_eq!(state["clock"]["running"], Value::Null);
    (id, state)
}

/// Polls the game's state until `done` holds (the server's own tasks, such as a socket closing, take a moment).
async fn state_until(c: &Client, id: i64, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let (_, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
        if done(&state) {
            return state;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{what}: {state}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

async fn claim(c: &Client, id: i64) -> (u16, Value) {
    c.post(&format!("/api/games/{id}/claim"), json!({}))
        .await
        .unwrap()
}

fn main_ms(state: &Value, color: &str) -> u64 {
    state["clock"][color]["main_ms"].as_u64().unwrap()
}

#[tokio::test]
async fn clocks_are_exact_across_reconnects_and_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:1m+10s").await;
    // Black's first move takes no time (`no_clock_runs_before_the_first_move`); White's clock starts.
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["running"], "white");
    // White thinks 4 s and reports 50 ms of lag: 60 - 3.95 + 10 s of increment.
    time.advance(4_000);
    let (status, state) = white
        .post(
            &format!("/api/games/{id}/moves"),
            json!({"move": "D5", "lag_ms": 50}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["running"], "black");
    assert_eq!(main_ms(&state, "white"), 66_050);
    assert_eq!(main_ms(&state, "black"), 60_000);
    assert_eq!(state["clock"]["white"]["overtime"], "sudden-death");

    // Black's clock runs 7 s; a new socket and a fresh GET both see exactly that.
    time.advance(7_000);
    let mut ws = black.game_socket(id).await.unwrap();
    let first = ws.next_json().await.unwrap();
    assert_eq!(first["type"], "state");
    let (_, got) = black.get(&format!("/api/games/{id}")).await.unwrap();
    for s in [&first, &got] {
        assert_eq!(
            (main_ms(s, "white"), main_ms(s, "black")),
            (66_050, 53_000),
            "{s}"
        );
        assert_eq!(s["clock"]["running"], "black");
    }
    ws.close().await.unwrap();
    drop(ws);
    let mut again = black.game_socket(id).await.unwrap();
    time.advance(1_000);
    again.resync().await.unwrap();
    let first = again.next_json().await.unwrap();
    let resynced = again.next_matching(|m| m["type"] == "state").await.unwrap();
    assert_eq!(main_ms(&first, "black"), 53_000);
    assert_eq!(main_ms(&resynced, "black"), 52_000);
    drop(again);
    running.stop().await.unwrap();

    // After a restart the clocks are rebuilt from the stored turn times: White's exactly; Black's turn starts
    // again from where it began (no time runs while the server is down), and then runs on.
    time.advance(500_000);
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    let (_, after) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(after["clock"]["running"], "black");
    assert_eq!(
        (main_ms(&after, "white"), main_ms(&after, "black")),
        (66_050, 60_000)
    );
    time.advance(2_500);
    let (_, after) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(main_ms(&after, "black"), 57_500);
    running.stop().await.unwrap();
}

/// No clock runs before the game's first move: the player who moves first is not charged for the time between
/// the join and their first move (however long: an unplayed game is aborted, never lost on time), and it takes
/// no time of theirs; from it on the clocks run as usual.
#[tokio::test]
async fn no_clock_runs_before_the_first_move() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, state) = timed(&black, &white, "chinese:size=9", "fischer:1m+10s").await;
    assert_eq!(
        (main_ms(&state, "black"), main_ms(&state, "white")),
        (60_000, 60_000)
    );
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    // An hour after the join: Black's time is whole, nothing runs, no flag.
    time.advance(3_600_000);
    let (_, state) = white.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["clock"]["running"], Value::Null, "{state}");
    assert_eq!(main_ms(&state, "black"), 60_000, "{state}");
    assert_eq!(state["clock"]["black"]["flagged"], false, "{state}");
    assert_eq!(state["result"], Value::Null, "{state}");
    // Black's first move is a move, not a loss on time (had the clock run, it would come an hour late), and
    // costs nothing; White's clock runs from it.
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["result"], Value::Null, "{state}");
    assert_eq!(state["moves"][0]["move"], "E5", "{state}");
    assert_eq!(main_ms(&state, "black"), 60_000, "{state}");
    assert_eq!(state["clock"]["running"], "white");
    // The only action was the move: no timeout before it (presence events aside: both players are away).
    let m = ws.next_matching(|m| m["type"] != "presence").await.unwrap();
    assert_eq!(
        (m["type"].as_str(), m["version"].as_u64()),
        (Some("move"), Some(2)),
        "{m}"
    );
    time.advance(5_000);
    let (_, state) = white.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(main_ms(&state, "white"), 55_000, "{state}");
    let (_, state) = white.play(id, "D5").await.unwrap();
    assert_eq!(main_ms(&state, "white"), 65_000, "{state}");
    // Black's clock runs from White's answer on, and falls as usual: 60 s and the 1 s lag allowance.
    time.advance(3_000);
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        (state["clock"]["running"].as_str(), main_ms(&state, "black")),
        (Some("black"), 57_000),
        "{state}"
    );
    time.advance(58_001);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(
        (m["action"]["color"].as_str(), m["state"]["result"].as_str()),
        (Some("black"), Some("W+T"))
    );
    // A restart replays the free first move the same.
    running.stop().await.unwrap();
    let running = server_at(dir.path(), &time).await;
    let (_, state) = anonymous(&running)
        .get(&format!("/api/games/{id}"))
        .await
        .unwrap();
    assert_eq!(state["result"], "W+T");
    assert_eq!(
        (
            main_ms(&state, "white"),
            state["clock"]["black"]["flagged"].as_bool()
        ),
        (65_000, Some(true)),
        "{state}"
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_player_whose_flag_falls_loses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "slow").await;
    let white = guest(&running, "quick").await;

    // After the first moves (the first takes no time), Black does not move: 1 s, plus the 1 s lag allowance.
    let (b_lost, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    assert_eq!(black.play(b_lost, "E5").await.unwrap().0, 200);
    assert_eq!(white.play(b_lost, "D5").await.unwrap().0, 200);
    let mut ws = anonymous(&running).game_socket(b_lost).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    // Up to 1 s + 1 s, a move is on time (the lag allowance is the server's to credit): no flag yet.
    time.advance(2_000);
    let (_, state) = black.get(&format!("/api/games/{b_lost}")).await.unwrap();
    assert_eq!(state["result"], Value::Null, "{state}");
    assert_eq!(state["clock"]["black"]["main_ms"], 0);
    assert_eq!(state["clock"]["black"]["flagged"], false);
    time.advance(1);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(m["action"]["color"], "black");
    assert_eq!(m["state"]["result"], "W+T");
    assert_eq!(m["state"]["clock"]["black"]["flagged"], true, "{m}");
    assert_eq!(m["state"]["clock"]["running"], Value::Null);

    // White loses: White moves in time once, then runs out.
    let (w_lost, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    let mut ws = anonymous(&running).game_socket(w_lost).await.unwrap();
    assert_eq!(black.play(w_lost, "E5").await.unwrap().0, 200);
    time.advance(900);
    let (status, state) = white.play(w_lost, "D5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(main_ms(&state, "white"), 100);
    assert_eq!(black.play(w_lost, "E4").await.unwrap().0, 200);
    time.advance(1_101);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(
        (m["action"]["color"].as_str(), m["state"]["result"].as_str()),
        (Some("white"), Some("B+T"))
    );
    // A move after the flag fell is refused: the game is over.
    let (status, body) = white.play(w_lost, "D4").await.unwrap();
    assert_eq!((status, body["reason"].as_str()), (422, Some("game_over")));

    // A move that comes 1 s late with 1 s of reported lag is on time, at the last millisecond.
    let (just, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    let (status, _) = black.play(just, "E5").await.unwrap();
    assert_eq!(status, 200);
    // (Black's first move started White's clock.)
    time.advance(2_000);
    let (status, state) = white
        .post(
            &format!("/api/games/{just}/moves"),
            json!({"move": "D5", "lag_ms": 1_000}),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        (
            state["result"].as_null(),
            state["clock"]["white"]["main_ms"].as_u64()
        ),
        (Some(()), Some(0))
    );
    running.stop().await.unwrap();

    // Stored like any action: the results survive a restart.
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    for (id, result) in [(b_lost, "W+T"), (w_lost, "B+T")] {
        let (_, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(
            (state["result"].as_str(), state["phase"].as_str()),
            (Some(result), Some("over"))
        );
    }
    running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_move_and_the_flag_timer_lose_the_game_on_time_once() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "late").await;
    let white = guest(&running, "waits").await;
    // Black's first move takes no time; White's is the late one.
    let only_the_timeout = json!([
        {"number": 1, "color": "black", "move": "E5"},
        {"number": 2, "color": "white", "move": "timeout"},
    ]);
    // A move with no lag reported is late after 1 s; the flag timer fires after 1 s plus the 1 s lag
    // allowance. A late move that comes before the timer is the time-out; the timer, waking after it, finds
    // the game over and adds nothing.
    let (id, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    time.advance(2_000);
    let (status, state) = white.play(id, "D5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["result"], "B+T");
    // The flag timer still sleeps until its deadline, a millisecond on: it wakes, finds the game over and ends.
    let sleeping = time.sleepers();
    assert!(sleeping >= 1, "the flag timer sleeps");
    time.advance(1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while time.sleepers() >= sleeping {
        assert!(
            std::time::Instant::now() < deadline,
            "the flag timer never woke"
        );
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["moves"], only_the_timeout, "{state}");
    assert_eq!(state["board"][4], "....X....");
    // The timer first: the move that follows is refused, the game over.
    let (id, _) = timed(&black, &white, "japanese:size=9", "absolute:1s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    time.advance(2_001);
    state_until(&black, id, "the time-out", |s| s["result"] == "B+T").await;
    let (status, body) = white.play(id, "D5").await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("game_over")),
        "{body}"
    );
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["moves"], only_the_timeout, "{state}");
    running.stop().await.unwrap();
}

#[tokio::test]
async fn bad_controls_are_refused_and_ideal_games_get_self_fill() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let (status, body) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese", "time": "fischer:soon"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_request"))
    );
    assert!(
        body["error"].as_str().unwrap().contains("time control"),
        "{body}"
    );
    // Self-fill needs a clock.
    let (status, body) = ann
        .post("/api/games", json!({"rules": "ideal:self-fill=10"}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (400, Some("bad_rules")),
        "{body}"
    );
    // A timed game under the ideal rules has the self-fill rule, and its state shows each player's run.
    let (status, body) = ann
        .post(
            "/api/games",
            json!({"rules": "ideal:size=9", "time": "absolute:10m"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    assert!(
        body["state"]["rules"]
            .as_str()
            .unwrap()
            .contains("self-fill=10"),
        "{body}"
    );
    assert_eq!(
        body["state"]["self_fill"],
        json!({"limit": 10, "black": 0, "white": 0})
    );
    let (_, body) = ann
        .post(
            "/api/games",
            json!({"rules": "chinese:size=9", "time": "absolute:10m"}),
        )
        .await
        .unwrap();
    assert_eq!(body["state"]["self_fill"], Value::Null);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn an_absent_player_can_be_claimed_against_after_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "stays").await;
    let white = guest(&running, "leaves").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    // A game nobody has moved in is aborted, not claimed (`a_game_nobody_has_moved_in_is_aborted`).
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);

    // Both at the board: nobody is absent, and there is nothing to claim.
    let mut b_ws = black.game_socket(id).await.unwrap();
    let mut w_ws = white.game_socket(id).await.unwrap();
    assert_eq!(b_ws.next_json().await.unwrap()["type"], "state");
    assert_eq!(w_ws.next_json().await.unwrap()["type"], "state");
    let state = state_until(&black, id, "both present", |s| {
        s["absent"].as_array().is_some_and(Vec::is_empty)
    })
    .await;
    assert_eq!(state["absent"], json!([]));
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("opponent_present"))
    );

    // White closes the page: Black's socket hears of it, with the claim 60 s away.
    time.advance(5_000);
    w_ws.close().await.unwrap();
    drop(w_ws);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"] != json!([]))
        .await
        .unwrap();
    assert_eq!(
        m["state"]["absent"],
        json!([{"color": "white", "absent_ms": 0, "claim_in_ms": 60_000}])
    );
    assert_eq!(
        m["version"], 2,
        "presence changes no version (the join and E5 did)"
    );
    time.advance(30_000);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("grace_not_over"))
    );
    assert_eq!(body["claim_in_ms"], 30_000, "{body}");
    // Over the socket too.
    b_ws.send_json(&json!({"type": "claim", "ref": 7}))
        .await
        .unwrap();
    let m = b_ws.next_matching(|m| m["type"] == "error").await.unwrap();
    assert_eq!(
        (m["ref"].as_i64(), m["reason"].as_str()),
        (Some(7), Some("grace_not_over"))
    );
    assert_eq!(m["claim_in_ms"], 30_000);

    // White comes back (a presence event) and leaves again: the grace period starts over.
    let w_ws = white.game_socket(id).await.unwrap();
    let m = b_ws
        .next_matching(|m| m["type"] == "presence")
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"], json!([]));
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("opponent_present"))
    );
    drop(w_ws);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"] != json!([]))
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["claim_in_ms"], 60_000);
    time.advance(59_999);
    let (status, body) = claim(&black, id).await;
    assert_eq!((status, body["claim_in_ms"].as_u64()), (409, Some(1)));
    // Neither a spectator nor the absent player's own claim counts.
    let cat = guest(&running, "cat").await;
    let (status, body) = claim(&cat, id).await;
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    time.advance(1);
    // The end of the grace period is an event of its own: no client has to count down.
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"][0]["claim_in_ms"] == 0)
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["color"], "white");
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["absent"][0]["claim_in_ms"], 0, "{state}");
    let (status, state) = claim(&black, id).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["result"], "B+F");
    assert_eq!(state["absent"], json!([]));
    assert_eq!(
        state["moves"].as_array().unwrap().last().unwrap(),
        &json!({"number": 2, "color": "black", "move": "claim"})
    );
    let m = b_ws.next_matching(|m| m["type"] == "claim").await.unwrap();
    assert_eq!(m["state"]["result"], "B+F");
    let (status, body) = claim(&black, id).await;
    assert_eq!((status, body["reason"].as_str()), (422, Some("game_over")));
    drop(b_ws);

    // An untimed game has its own, far longer absence (`an_untimed_game_is_claimed_after_days_of_absence`);
    // games against the computer have nothing to claim.
    let (untimed, _, _) = {
        let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
            .as_i64()
            .unwrap();
        white
            .post(&format!("/api/games/{id}/join"), json!({}))
            .await
            .unwrap();
        (id, (), ())
    };
    let (status, body) = black
        .post(&format!("/api/games/{untimed}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (409, Some("no_moves")));
    let (status, table) = black
        .post(
            "/api/games",
            json!({"rules": "chinese:size=9", "color": "white", "opponent": "bot", "bot": "simple", "time": "fischer:10m+10s"}),
        )
        .await.unwrap();
    assert_eq!(status, 201, "{table}");
    let bot_game = table["id"].as_i64().unwrap();
    time.advance(100_000);
    let (status, body) = black
        .post(&format!("/api/games/{bot_game}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("opponent_present"))
    );
    // A correspondence-scale control has no grace period.
    let (corr, state) = timed(&black, &white, "chinese:size=9", "absolute:3d").await;
    assert_eq!(state["absent"], json!([]));
    time.advance(1_000_000);
    let (status, body) = white
        .post(&format!("/api/games/{corr}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, body["reason"].as_str()), (422, Some("no_claim")));
    running.stop().await.unwrap();

    // The claim is stored like the other actions.
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    let (_, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["result"], "B+F");
    running.stop().await.unwrap();
}

const DAY_MS: u64 = 86_400_000;

/// An untimed game has no grace period but a long absence (7 days by default): the opponent of the player it
/// waits for, away that long, may claim it, as in a timed game (`B+F`/`W+F`). The absence counts from when the
/// game began waiting for them; a player it does not wait for holds nobody up and cannot be claimed against.
#[tokio::test]
async fn an_untimed_game_is_claimed_after_days_of_absence() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let cat = guest(&running, "cat").await;
    let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);
    // Nobody has moved: nothing to claim, however long.
    time.advance(8 * DAY_MS);
    // White keeps her session (unused for 14 days it lapses) without looking at the game.
    assert!(white.get("/api/session").await.unwrap().1["user"].is_object());
    assert!(cat.get("/api/session").await.unwrap().1["user"].is_object());
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("no_moves")),
        "{body}"
    );
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    // The game waits for White, who has no socket open: only White is listed, a week from Black's move.
    assert_eq!(
        state["absent"],
        json!([{"color": "white", "absent_ms": 0, "claim_in_ms": 7 * DAY_MS}])
    );
    time.advance(6 * DAY_MS);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (
            status,
            body["reason"].as_str(),
            body["claim_in_ms"].as_u64()
        ),
        (409, Some("grace_not_over"), Some(DAY_MS)),
        "{body}"
    );
    time.advance(DAY_MS - 1);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["claim_in_ms"].as_u64()),
        (409, Some(1)),
        "{body}"
    );
    // Nor may White, the absent player: the game waits for her, not for Black (who is away too).
    let (status, body) = claim(&white, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_their_turn")),
        "{body}"
    );
    // Black's page hears when the claim opens.
    let mut b_ws = black.game_socket(id).await.unwrap();
    assert_eq!(b_ws.next_json().await.unwrap()["type"], "state");
    time.advance(1);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"][0]["claim_in_ms"] == 0)
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["color"], "white", "{m}");
    // Black's socket makes him present; a spectator may not claim.
    let (status, body) = claim(&cat, id).await;
    assert_eq!((status, body["reason"].as_str()), (403, Some("not_seated")));
    let (status, state) = claim(&black, id).await;
    assert_eq!(
        (status, state["result"].as_str()),
        (200, Some("B+F")),
        "{state}"
    );
    assert_eq!(
        state["moves"].as_array().unwrap().last().unwrap(),
        &json!({"number": 2, "color": "black", "move": "claim"})
    );
    drop(b_ws);

    // A player's absence counts from when the game began waiting for them: Black, away since his move, is
    // awaited only from White's answer six days later.
    let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    time.advance(6 * DAY_MS);
    // White may not claim while it is White's own turn, however long Black has been away.
    let (status, body) = claim(&white, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_their_turn")),
        "{body}"
    );
    assert_eq!(white.play(id, "C3").await.unwrap().0, 200);
    time.advance(7 * DAY_MS - 1);
    let (status, body) = claim(&white, id).await;
    assert_eq!(
        (
            status,
            body["reason"].as_str(),
            body["claim_in_ms"].as_u64()
        ),
        (409, Some("grace_not_over"), Some(1)),
        "{body}"
    );
    // Black, the absent player, may not claim against White either.
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_their_turn")),
        "{body}"
    );
    time.advance(1);
    let (status, state) = claim(&white, id).await;
    assert_eq!(
        (status, state["result"].as_str()),
        (200, Some("W+F")),
        "{state}"
    );
    running.stop().await.unwrap();
}

/// A game both players sit at and nobody has moved in: either player may abort it (it ends without a result
/// and is gone, its watchers told), nobody may claim it; once a move is played it can only be resigned.
#[tokio::test]
async fn a_game_nobody_has_moved_in_is_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let stranger = guest(&running, "stranger").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    // White is away long past the grace period, but with no move played there is nothing to claim.
    time.advance(61_000);
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("no_moves")),
        "{body}"
    );
    let (status, body) = stranger
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (403, Some("not_seated")),
        "{body}"
    );
    let mut watcher = anonymous(&running).game_socket(id).await.unwrap();
    let first = watcher.next_json().await.unwrap();
    assert_eq!(first["type"], "state");
    let (status, body) = white
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["aborted"].as_i64()),
        (200, Some(id)),
        "{body}"
    );
    let m = watcher
        .next_matching(|m| m["type"] == "aborted")
        .await
        .unwrap();
    assert_eq!(m["version"], first["version"], "aborting is no action: {m}");
    let (status, _) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 404);
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    for list in ["open", "playing"] {
        let ids: Vec<i64> = lobby[list]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|g| g["id"].as_i64())
            .collect();
        assert!(!ids.contains(&id), "{list}: {lobby}");
    }
    let aborted = id;

    // After a move: refused, and the game goes on; an open table is cancelled, not aborted.
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let (_, before) = black.get(&format!("/api/games/{id}")).await.unwrap();
    let (status, body) = black
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("moved")),
        "{body}"
    );
    assert_eq!(
        black.get(&format!("/api/games/{id}")).await.unwrap().1,
        before
    );
    let open = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, body) = black
        .post(&format!("/api/games/{open}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (422, Some("not_started")),
        "{body}"
    );
    // An aborted game stays gone after a restart.
    running.stop().await.unwrap();
    let running = server_at(dir.path(), &time).await;
    let c = anonymous(&running);
    assert_eq!(
        c.get(&format!("/api/games/{aborted}")).await.unwrap().0,
        404
    );
    assert_eq!(c.get(&format!("/api/games/{id}")).await.unwrap().0, 200);
    running.stop().await.unwrap();
}

/// A client without a socket (a bot over HTTP) is at the board when it asks for the game: each look starts its
/// grace period again, and a look after its opponent's claim opened closes the claim, with a presence event.
#[tokio::test]
async fn a_player_who_polls_over_http_is_present() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "socket").await;
    let white = guest(&running, "poller").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:10m+10s").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let mut b_ws = black.game_socket(id).await.unwrap();
    assert_eq!(b_ws.next_json().await.unwrap()["type"], "state");
    // Black is at the board on every node before the time moves (on a site of several, the socket's node tells
    // the others within milliseconds; the manual time would otherwise leap ahead of the news).
    state_until(&white, id, "Black present", |s| {
        s["absent"]
            .as_array()
            .is_some_and(|a| a.iter().all(|p| p["color"] != "black"))
    })
    .await;
    let url = format!("/api/games/{id}");
    // White has no socket; looking every 50 s keeps the claim away, and Black's page hears of each look (its
    // countdown would otherwise reach 0 with no claim to make).
    for _ in 0..3 {
        time.advance(50_000);
        let (_, state) = white.get(&url).await.unwrap();
        let absent = json!([{"color": "white", "absent_ms": 0, "claim_in_ms": 60_000}]);
        assert_eq!(state["absent"], absent, "{state}");
        let m = b_ws
            .next_matching(|m| m["type"] == "presence")
            .await
            .unwrap();
        assert_eq!(m["state"]["absent"], absent, "{m}");
        let (status, body) = claim(&black, id).await;
        assert_eq!(
            (
                status,
                body["reason"].as_str(),
                body["claim_in_ms"].as_u64()
            ),
            (409, Some("grace_not_over"), Some(60_000))
        );
    }
    // A spectator's look is not White's.
    let cat = guest(&running, "cat").await;
    time.advance(60_000);
    let (_, state) = cat.get(&url).await.unwrap();
    assert_eq!(state["absent"][0]["claim_in_ms"], 0, "{state}");
    let m = b_ws
        .next_matching(|m| m["type"] == "presence" && m["state"]["absent"][0]["claim_in_ms"] == 0)
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["color"], "white");
    // White looks again: the claim closes, Black hears it, and the grace period's end is announced again.
    white.get(&url).await.unwrap();
    let m = b_ws
        .next_matching(|m| m["type"] == "presence")
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["claim_in_ms"], 60_000, "{m}");
    let (status, body) = claim(&black, id).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("grace_not_over"))
    );
    time.advance(60_000);
    let m = b_ws
        .next_matching(|m| m["type"] == "presence")
        .await
        .unwrap();
    assert_eq!(m["state"]["absent"][0]["claim_in_ms"], 0, "{m}");
    let (status, state) = claim(&black, id).await;
    assert_eq!((status, state["result"].as_str()), (200, Some("B+F")));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn after_a_restart_the_grace_period_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, state) = timed(&black, &white, "chinese:size=9", "byoyomi:10m+5x30s").await;
    // Nobody has a socket open: both are absent from the start of the game.
    assert_eq!(state["absent"].as_array().unwrap().len(), 2, "{state}");
    let (status, _) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200);
    time.advance(70_000);
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        state["absent"][1],
        json!({"color": "white", "absent_ms": 70_000, "claim_in_ms": 0})
    );
    running.stop().await.unwrap();

    // White's claimable absence does not survive the server's: the grace period runs from the restart.
    time.advance(10_000);
    let running = server_at(dir.path(), &time).await;
    let black = black.at(&base(&running)).unwrap();
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(
        state["absent"],
        json!([
            {"color": "black", "absent_ms": 0, "claim_in_ms": 60_000},
            {"color": "white", "absent_ms": 0, "claim_in_ms": 60_000},
        ])
    );
    let (status, body) = black
        .post(&format!("/api/games/{id}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (
            status,
            body["reason"].as_str(),
            body["claim_in_ms"].as_u64()
        ),
        (409, Some("grace_not_over"), Some(60_000))
    );
    time.advance(60_000);
    let (status, state) = black
        .post(&format!("/api/games/{id}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, state["result"].as_str()),
        (200, Some("B+F")),
        "{state}"
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn the_sgf_of_a_timed_game_has_the_time_left_after_each_move() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "byoyomi:10s+3x5s").await;
    // Black's first move: no time (no clock runs before it). White: 4 s of 10 in main time. Black: all 10 s of
    // main time and 2 s of a period (the period stays whole). White: the last 6 s of main time and 11 s more:
    // two periods used up, the third whole again.
    for (player, wait, mv) in [
        (&black, 4_000, "E5"),
        (&white, 4_000, "D5"),
        (&black, 12_000, "E4"),
        (&white, 17_000, "D4"),
    ] {
        time.advance(wait);
        let (status, state) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{state}");
    }
    let sgf = black
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap()
        .1;
    for part in [
        "TM[10]",
        "OT[3x5 byo-yomi]",
        ";B[ee]BL[10]",
        ";W[de]WL[6]",
        ";B[ef]BL[5]OB[3]",
        ";W[df]WL[5]OW[1]",
    ] {
        assert!(sgf.contains(part), "{part} in {sgf}");
    }
    // An untimed game's record has none of these.
    let (untimed, _, _) = {
        let id = table(&black, "chinese:size=9", "black", "anyone").await["id"]
            .as_i64()
            .unwrap();
        white
            .post(&format!("/api/games/{id}/join"), json!({}))
            .await
            .unwrap();
        (id, (), ())
    };
    assert_eq!(black.play(untimed, "E5").await.unwrap().0, 200);
    let sgf = black
        .get_text(&format!("/api/games/{untimed}/sgf"))
        .await
        .unwrap()
        .1;
    assert!(!sgf.contains("BL[") && !sgf.contains("TM["), "{sgf}");
    running.stop().await.unwrap();
}

/// A handicap in the table's rules is played by its placement: White's forced passes (ideal), fixed stones.
#[tokio::test]
async fn a_table_handicap_is_honoured_by_its_placement() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "ideal:size=9,handicap=3").await;
    let (status, _) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200);
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["reason"], "forced_pass");
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "C7").await.unwrap().0, 200);
    assert_eq!(
        white.play(id, "C3").await.unwrap().1["reason"],
        "forced_pass"
    );
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "G3").await.unwrap().0, 200);
    // Both forced passes made: White plays.
    assert_eq!(white.play(id, "C3").await.unwrap().0, 200);

    let (id, _black, white) = seated(&running, "chinese:size=9,handicap=4,placement=fixed").await;
    let (_, state) = white.get(&format!("/api/games/{id}")).await.unwrap();
    let stones: usize = state["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_str().unwrap().matches('X').count())
        .sum();
    assert_eq!(stones, 4, "{state}");
    assert_eq!(
        white.play(id, "E5").await.unwrap().0,
        200,
        "White moves first"
    );
    running.stop().await.unwrap();
}

/// A superko refusal names the move after which the position it would repeat stood, with that position, over
/// HTTP and over the game's socket.
#[tokio::test]
async fn a_superko_refusal_names_the_position_it_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=5").await;
    let mut after_eight = Value::Null;
    for (k, (color, mv)) in [
        ("black", "C4"),
        ("white", "B4"),
        ("black", "D3"),
        ("white", "A3"),
        ("black", "C2"),
        ("white", "C3"),
        ("black", "pass"),
        ("white", "B2"),
        ("black", "B3"),
    ]
    .into_iter()
    .enumerate()
    {
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
        if k + 1 == 8 {
            after_eight = body["board"].clone();
        }
    }
    assert!(after_eight.is_array(), "the answer carries the board");
    // White's retake at C3 would make the position after move 8 (White's B2) again.
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["reason"], "ko");
    assert_eq!(refused["repeats"], 8, "{refused}");
    assert_eq!(refused["board"], after_eight);
    assert!(
        refused["error"].as_str().unwrap().contains("after move 8"),
        "{refused}"
    );
    // The same over White's socket.
    let mut ws = white.game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    ws.send_text(r#"{"type":"play","move":"C3","ref":1}"#)
        .await
        .unwrap();
    let refused = loop {
        let m = ws.next_json().await.unwrap();
        if m["type"] == "error" {
            break m;
        }
    };
    assert_eq!(
        (refused["ref"].clone(), refused["repeats"].clone()),
        (json!(1), json!(8))
    );
    assert_eq!(refused["board"], after_eight);
    // A simple ko refusal names nothing.
    let (id, black, white) = seated(&running, "japanese:size=5").await;
    for (color, mv) in [
        ("black", "C4"),
        ("white", "B4"),
        ("black", "D3"),
        ("white", "A3"),
        ("black", "C2"),
        ("white", "C3"),
        ("black", "pass"),
        ("white", "B2"),
        ("black", "B3"),
    ] {
        assert_eq!(by(color, &black, &white).play(id, mv).await.unwrap().0, 200);
    }
    let (_, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(refused["reason"], "ko");
    assert!(refused.get("repeats").is_none(), "{refused}");
    running.stop().await.unwrap();
}

/// The exploit that voided won games: the winner accepts the count, the loser disputes, both pass again, and the
/// position with the same player to move comes back a third time. Passes are no cycle of plays: the game stays in
/// the count however often that is done, and ends with its score once both accept.
#[tokio::test]
async fn a_dispute_and_passes_never_void_a_won_game() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    for spec in ["japanese:size=5", "korean:size=5"] {
        let (id, black, white) = seated(&running, spec).await;
        assert_eq!(black.play(id, "C3").await.unwrap().0, 200);
        assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
        assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
        for round in 0..4 {
            let (status, body) = black
                .post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap();
            assert_eq!(status, 200, "{spec} round {round}: {body}");
            let (status, body) = white
                .post(&format!("/api/games/{id}/dispute"), json!({}))
                .await
                .unwrap();
            assert_eq!(status, 200, "{spec} round {round}: {body}");
            // Black passed last, so White moves first in the resumed play.
            assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
            let (status, state) = black.play(id, "pass").await.unwrap();
            assert_eq!(status, 200, "{spec} round {round}: {state}");
            assert_ne!(state["result"], "Void", "{spec} round {round}: {state}");
            assert_eq!(state["status"], "marking", "{spec} round {round}: {state}");
        }
        for player in [&black, &white] {
            player
                .post(&format!("/api/games/{id}/accept"), json!({}))
                .await
                .unwrap();
        }
        let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
        assert_eq!(state["status"], "over", "{spec}: {state}");
        assert!(
            state["result"].as_str().unwrap().starts_with("B+"),
            "{spec}: {state}"
        );
    }
    running.stop().await.unwrap();
}

/// A cycle of plays (found by random play on 4×4) voids the game at the third occurrence of its state, and the
/// game names the moves after which that state stood before.
#[tokio::test]
async fn a_void_by_repetition_names_the_repeated_state() {
    const CYCLE: [&str; 27] = [
        "C4", "C3", "D3", "D1", "D4", "B1", "C1", "B3", "B4", "A1", "A3", "D2", "A4", "B2", "C2",
        "D2", "D1", "D2", "C2", "D1", "C1", "D2", "D1", "D2", "C2", "D1", "C1",
    ];
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=4").await;
    // The same plays in the rules crate: the earlier occurrences of the final state.
    let mut game = Game::new("japanese:size=4".parse().unwrap()).unwrap();
    let mut state = Value::Null;
    for (k, mv) in CYCLE.iter().enumerate() {
        let color = if k % 2 == 0 { "black" } else { "white" };
        assert_eq!(state["result"], Value::Null, "move {k}: {state}");
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "move {} {mv}: {body}", k + 1);
        state = body;
        let x = mv.as_bytes()[0] - b'A';
        let y = 4 - (mv.as_bytes()[1] - b'0');
        game.play_move(Move::Play(Point::new(x, y))).unwrap();
    }
    assert_eq!(state["result"], "Void", "{state}");
    let turns = game.repetition_turns();
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(state["repeated"], json!(turns), "{state}");
    // A game that ended otherwise has none.
    let (id, black, _white) = seated(&running, "japanese:size=5").await;
    let (_, body) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert!(body.get("repeated").is_none(), "{body}");
    running.stop().await.unwrap();
}

/// A finished game counted under its own rules and every other, its own first; refused while in play.
#[tokio::test]
async fn a_finished_game_is_counted_under_every_ruleset() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9,komi=7").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let (status, body) = black
        .get(&format!("/api/games/{id}/rulesets"))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_over")),
        "{body}"
    );
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
    for c in [&black, &white] {
        let (status, body) = c
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = black
        .get(&format!("/api/games/{id}/rulesets"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let counts = body["counts"].as_array().unwrap();
    assert_eq!(counts.len(), 1 + tesuji_rules::compare::COMPARED.len());
    // The game's own count first: Black's 81 points against komi 7.
    assert_eq!(counts[0]["result"], "B+74");
    assert_eq!(
        (counts[0]["black"].as_i64(), counts[0]["white"].as_i64()),
        (Some(162), Some(14))
    );
    // Area counting agrees; territory counting gives Black 80 points; the ideal rules both players' area.
    for c in counts {
        let spec = c["spec"].as_str().unwrap();
        let expected = match spec {
            "japanese" | "korean" | "bga:counting=japanese,aga=off" => "B+73",
            // With AGA rules on, territory counting takes pass stones (White's pass, and White's last pass
            // after Black's) against Black's: the same margin as area counting, as everywhere else.
            _ => "B+74",
        };
        assert_eq!(c["result"], expected, "{spec}: {c}");
        let rules: tesuji_rules::Rules = c["rules"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            rules.komi,
            tesuji_rules::Komi::white(14),
            "{spec}: the game's komi"
        );
    }
    running.stop().await.unwrap();
}

/// A player's games a page at a time: `?before=ID&limit=N`, newest first, `next` where the following page starts;
/// no game repeated or skipped, also while games are being added; bad values are a 400 with a reason.
#[tokio::test]
async fn a_players_games_come_in_pages() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "pager").await;
    let mut ids = Vec::new();
    for _ in 0..7 {
        ids.push(
            table(&black, "chinese:size=9", "black", "anyone").await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let me = black.get("/api/session").await.unwrap().1["user"]["id"]
        .as_i64()
        .unwrap();
    let mut seen = Vec::new();
    let mut path = format!("/api/users/{me}/games?limit=3");
    let mut pages = 0;
    loop {
        let (status, page) = black.get(&path).await.unwrap();
        assert_eq!(status, 200, "{page}");
        let games = page["games"].as_array().unwrap();
        assert!(games.len() <= 3, "{page}");
        seen.extend(games.iter().map(|g| g["id"].as_i64().unwrap()));
        pages += 1;
        if pages == 1 {
            // A game added meanwhile is newer than every page still to come: it repeats nothing and skips nothing.
            table(&black, "chinese:size=9", "black", "anyone").await;
        }
        match page["next"].as_i64() {
            Some(next) => {
                assert_eq!(Some(next), seen.last().copied());
                path = format!("/api/users/{me}/games?limit=3&before={next}");
            }
            None => break,
        }
    }
    ids.reverse();
    assert_eq!(seen, ids, "every game once, newest first");
    assert_eq!(pages, 3);
    // The default page holds them all here, with no next page.
    let (_, all) = black.get(&format!("/api/users/{me}/games")).await.unwrap();
    assert_eq!(all["games"].as_array().unwrap().len(), 8);
    assert!(all["next"].is_null());
    for bad in [
        "limit=0",
        "limit=101",
        "limit=x",
        "before=-1",
        "before=0",
        "before=99999999999999999999",
        "limit=1&limit=2",
    ] {
        let (status, body) = black
            .get(&format!("/api/users/{me}/games?{bad}"))
            .await
            .unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (400, Some("bad_request")),
            "{bad}: {body}"
        );
    }
    running.stop().await.unwrap();
}

/// A server that keeps no finished game in memory once nobody holds it.
async fn server_without_cache(dir: &Path) -> Site {
    start(ServerConfig {
        finished_cache: 0,
        ..config(dir)
    })
    .await
    .expect("server starts")
}

/// The state, SGF and replay of game `id`, as any client reads them.
async fn records(c: &Client, id: i64) -> (Value, String, Value) {
    let (status, state) = c.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(status, 200, "{state}");
    let sgf = c.get_text(&format!("/api/games/{id}/sgf")).await.unwrap().1;
    let (status, replay) = c.get(&format!("/api/games/{id}/replay")).await.unwrap();
    assert_eq!(status, 200, "{replay}");
    (state, sgf, replay)
}

/// Polls the server's count of games in memory until `want` holds (the server lets a game go when its last
/// holder is done, which a client cannot see), for at most 5 s.
async fn resident_until(running: &Site, want: impl Fn(tesuji_server::game::ResidentCount) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !want(running.resident()) {
        assert!(
            std::time::Instant::now() < deadline,
            "in memory: {:?}",
            running.resident()
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_finished_game_leaves_memory_and_is_served_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_without_cache(dir.path()).await;
    let (id, black, white) = seated(&running, "japanese:size=9").await;
    let (other, _, _) = seated(&running, "chinese:size=9").await;
    for (color, mv) in KO_SETUP {
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{body}");
    }
    assert_eq!(
        running.resident(),
        tesuji_server::game::ResidentCount {
            live: 2,
            finished: 0
        }
    );
    // A watcher is connected when the game ends: it hears the end, and the game stays while it watches.
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    let (status, ended) = white
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{ended}");
    let event = ws.next_json().await.unwrap();
    assert_eq!(
        (event["type"].as_str(), event["state"]["result"].as_str()),
        (Some("resign"), Some("B+R"))
    );
    let before = records(&black, id).await;
    assert_eq!(before.0, ended);
    assert_eq!(running.resident().live, 1, "the other game is still live");
    assert_eq!(running.resident().finished, 1, "held by its watcher");
    // The watcher still gets answers: a resync, and a refusal of a move.
    ws.resync().await.unwrap();
    let resync = ws.next_json().await.unwrap();
    assert_eq!(
        (resync["type"].as_str(), &resync["version"]),
        (Some("state"), &ended["version"])
    );
    drop(ws);
    resident_until(&running, |r| r.finished == 0).await;
    assert_eq!(running.resident().live, 1);

    // Read back from the store: the same state, record and replay.
    assert_eq!(records(&black, id).await, before);
    let (status, refused) = black.play(id, "A9").await.unwrap();
    assert_eq!(
        (status, refused["reason"].as_str()),
        (422, Some("game_over")),
        "{refused}"
    );
    running.stop().await.unwrap();

    // After a restart only the live game is replayed, and the finished one is served the same again.
    let running = server_without_cache(dir.path()).await;
    assert_eq!(
        running.resident(),
        tesuji_server::game::ResidentCount {
            live: 1,
            finished: 0
        }
    );
    let c = anonymous(&running);
    assert_eq!(records(&c, id).await, before);
    let (status, live) = c.get(&format!("/api/games/{other}")).await.unwrap();
    assert_eq!((status, live["status"].as_str()), (200, Some("playing")));
    // Read back into the cache of finished games, beside the live one.
    assert_eq!(
        running.resident(),
        tesuji_server::game::ResidentCount {
            live: 1,
            finished: 1
        }
    );
    running.stop().await.unwrap();
}

/// A game between `black` and `white` that ends at once (Black resigns); its id.
async fn finished_game(black: &Client, white: &Client) -> i64 {
    let id = table(black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, body) = white
        .post(&format!("/api/games/{id}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = black
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    id
}

#[tokio::test]
async fn the_archive_pages_through_finished_games_while_games_end() {
    let dir = tempfile::tempdir().unwrap();
    let running = server_without_cache(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let mut ended = Vec::new();
    for _ in 0..7 {
        ended.push(finished_game(&black, &white).await);
    }
    // A game still in play is not in the archive.
    let playing = table(&black, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    let (status, _) = white
        .post(&format!("/api/games/{playing}/join"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let c = anonymous(&running);
    let mut seen = Vec::new();
    let mut path = "/api/archive?limit=3".to_owned();
    loop {
        let (status, page) = c.get(&path).await.unwrap();
        assert_eq!(status, 200, "{page}");
        let games = page["games"].as_array().unwrap();
        assert!(games.len() <= 3, "{page}");
        for g in games {
            assert_eq!(g["status"], "over", "{g}");
            assert_eq!(g["result"], "W+R", "{g}");
            assert!(g["ended"].as_i64().is_some(), "{g}");
            assert_eq!(g["players"]["black"]["name"], "black", "{g}");
            // Resigned before any move: the resignation is an action, not a move.
            assert_eq!(g["moves"], 0, "{g}");
            seen.push(g["id"].as_i64().unwrap());
        }
        // Games that end meanwhile come before the first page: they repeat and skip nothing.
        finished_game(&black, &white).await;
        match page["next"].as_i64() {
            Some(next) => {
                assert_eq!(Some(next), seen.last().copied());
                path = format!("/api/archive?limit=3&before={next}");
            }
            None => break,
        }
    }
    ended.reverse();
    assert_eq!(seen, ended, "every game once, the latest first");
    assert!(!seen.contains(&playing));
    let (_, first) = c.get("/api/archive").await.unwrap();
    assert_eq!(first["games"].as_array().unwrap().len(), 7 + 3);
    // A player's page reads the same rows, the live game's entry from memory.
    let (_, mine) = c
        .get(&format!("/api/users/{}/games", black.user_id().unwrap()))
        .await
        .unwrap();
    assert_eq!(mine["games"].as_array().unwrap().len(), 7 + 3 + 1);
    for g in mine["games"].as_array().unwrap() {
        let want = if g["id"] == playing {
            "playing"
        } else {
            "over"
        };
        assert_eq!(g["status"], want, "{g}");
    }
    // Every node lets the ended games go (another node hears of an end through NATS).
    resident_until(&running, |r| r.live == 1).await;
    for bad in [
        "limit=0",
        "limit=101",
        "before=x",
        "before=0",
        "limit=1&limit=2",
    ] {
        let (status, body) = c.get(&format!("/api/archive?{bad}")).await.unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (400, Some("bad_request")),
            "{bad}: {body}"
        );
    }
    // An unknown or unfinished game to start after gives an empty page, not an error.
    for before in [playing, 999_999] {
        let (status, page) = c
            .get(&format!("/api/archive?before={before}"))
            .await
            .unwrap();
        assert_eq!(
            (status, page["games"].as_array().map(Vec::len)),
            (200, Some(0)),
            "{page}"
        );
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn games_that_ended_before_summaries_get_them_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, _white) = seated(&running, "chinese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    running.stop().await.unwrap();
    // As a server before summary rows would have written it: a resignation with no ending on the row.
    append_behind(dir.path(), id, (2, "white", "resign"), "over").await;

    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let (_, archive) = c.get("/api/archive").await.unwrap();
    let games = archive["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "{archive}");
    assert_eq!(
        (
            games[0]["id"].as_i64(),
            games[0]["result"].as_str(),
            games[0]["moves"].as_i64()
        ),
        // E5; the resignation is no move.
        (Some(id), Some("B+R"), Some(1))
    );
    assert_eq!(running.resident().live, 0);
    running.stop().await.unwrap();
}

/// The Moves column counts the moves played (plays and passes, after take-backs), not the stored actions (a
/// take-back's request and answer, the proposal, the acceptances): in the lobby while the game goes on, in the
/// archive and on the players' pages once it is over, and after a restart.
#[tokio::test]
async fn listings_count_moves_not_actions() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(white.play(id, "C3").await.unwrap().0, 200);
    // White takes C3 back with Black's leave and plays G7 instead.
    let (status, body) = white
        .post(&format!("/api/games/{id}/undo"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = black
        .post(&format!("/api/games/{id}/undo/accept"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(white.play(id, "G7").await.unwrap().0, 200);
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert_eq!(
        entry_of(&lobby, "playing", &json!(id))["moves"],
        2,
        "{lobby}"
    );
    assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    for c in [&black, &white] {
        let (status, body) = c
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
    }
    let (_, state) = black.game(id).await.unwrap();
    assert_eq!(state["status"], "over", "{state}");
    let actions = state["moves"].as_array().unwrap().len();
    assert!(actions > 4, "{actions} actions: {state}");
    let listed = |page: &Value| {
        page["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == id)
            .map(|g| g["moves"].clone())
    };
    let black_id = state["players"]["black"]["id"].as_i64().unwrap();
    let check = |running: Site, when: &'static str| async move {
        let c = anonymous(&running);
        let (_, archive) = c.get("/api/archive").await.unwrap();
        assert_eq!(listed(&archive), Some(json!(4)), "{when}: {archive}");
        let (_, page) = c
            .get(&format!("/api/users/{black_id}/games"))
            .await
            .unwrap();
        assert_eq!(listed(&page), Some(json!(4)), "{when}: {page}");
        running.stop().await.unwrap();
    };
    check(running, "as it ends").await;
    check(server(dir.path()).await, "after a restart").await;
}

#[tokio::test]
async fn a_game_with_days_on_its_clock_leaves_memory_when_it_ends() {
    // The flag watch of a correspondence clock sleeps for days: it must not keep a game that ended meanwhile.
    let dir = tempfile::tempdir().unwrap();
    let running = server_without_cache(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "fischer:3d+1d").await;
    let (status, body) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clock"]["running"], "white", "{body}");
    let (status, ended) = white
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, ended["result"].as_str()), (200, Some("B+R")));
    resident_until(&running, |r| r.live == 0 && r.finished == 0).await;
    running.stop().await.unwrap();
}

// ---- ratings ----

/// A new browser signed up as account `name`: its client and its user id.
async fn account(running: &Site, name: &str) -> (Client, i64) {
    let mut c = anonymous(running);
    let id = c.sign_up(name, "a long password").await.unwrap().user.id;
    (c, id)
}

/// A player's page until its rating history has `points` points (a game is rated just after its ending).
async fn rated_page(c: &Client, user: i64, points: usize) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (status, page) = c.get(&format!("/api/users/{user}/games")).await.unwrap();
        assert_eq!(status, 200, "{page}");
        let have = page["rating_history"].as_array().unwrap().len();
        if have == points {
            return page;
        }
        assert!(
            have < points && std::time::Instant::now() < deadline,
            "{have} of {points} points: {page}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Five plays each on 9×9 (the fewest a rated game needs), Black first.
const TEN_PLAYS: [&str; 10] = ["E5", "C3", "G7", "C7", "G3", "D5", "F5", "E3", "E7", "D7"];

/// Black (`black`) and White (`white`) play [`TEN_PLAYS`] in game `id`.
async fn play_ten(black: &Client, white: &Client, id: i64) {
    for (k, mv) in TEN_PLAYS.iter().enumerate() {
        let player = if k % 2 == 0 { black } else { white };
        let (status, body) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
    }
}

/// A 9×9 game under Chinese rules with its own komi 7.5, as the rating counts it.
fn chinese_9() -> tesuji_rating::Setup {
    tesuji_rating::Setup {
        komi_half_points: 15,
        ..tesuji_rating::Setup::even(9)
    }
}

/// `ann` (Black) and `bob` (White) play a ranked 9×9 game that `bob` resigns after five plays each: its id.
async fn ranked_resigned(ann: &Client, bob: &Client) -> i64 {
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["state"]["ranked"], true);
    let id = body["id"].as_i64().unwrap();
    let (status, state) = bob.join(id, None).await.unwrap();
    assert_eq!((status, &state["ranked"]), (200, &json!(true)), "{state}");
    play_ten(ann, bob, id).await;
    let (status, state) = bob
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, &state["result"]), (200, &json!("B+R")), "{state}");
    id
}

#[tokio::test]
async fn a_ranked_game_changes_both_ratings_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, ann_id) = account(&running, "ann").await;
    let (bob, bob_id) = account(&running, "bob").await;
    let gus = guest(&running, "gus").await;

    // Guests are not rated: they neither create nor join a ranked table; the computer is never ranked.
    let (status, body) = gus
        .create_game(json!({"rules": "chinese:size=9", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (403, &json!("ranked_needs_account"))
    );
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "opponent": "bot", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (400, &json!("bad_request")),
        "{body}"
    );
    let open = ann
        .create_game(json!({"rules": "chinese:size=9", "ranked": true}))
        .await
        .unwrap()
        .1["id"]
        .as_i64()
        .unwrap();
    let (status, body) = gus.join(open, None).await.unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (403, &json!("ranked_needs_account"))
    );
    assert_eq!(
        ann.post(&format!("/api/games/{open}/cancel"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );

    // Before any rated game: a new player's rating, provisional, no history; a guest has none.
    let page = rated_page(&ann, ann_id, 0).await;
    assert_eq!(page["rating"]["rating"], 1500);
    assert_eq!(page["rating"]["rank"], "6k?");
    assert_eq!(page["user"]["rank"], "6k?");
    let (_, me) = gus.get("/api/session").await.unwrap();
    let gus_id = me["user"]["id"].as_i64().unwrap();
    let (_, page) = gus
        .get(&format!("/api/users/{gus_id}/games"))
        .await
        .unwrap();
    assert_eq!(page["rating"], Value::Null);
    assert!(page["user"].get("rank").is_none(), "{page}");

    // An unranked game changes nothing.
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    let (status, _) = bob
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);

    // A table of Ann's that waits while she plays shows her new rating once she is rated.
    let waiting = table(&ann, "chinese:size=13", "black", "anyone").await["id"].clone();
    let game = ranked_resigned(&ann, &bob).await;
    let (black, white) = tesuji_rating::rate(
        tesuji_rating::Rating::default(),
        tesuji_rating::Rating::default(),
        tesuji_rating::Outcome::BlackWins,
        &chinese_9(),
    );
    let page = rated_page(&ann, ann_id, 1).await;
    assert_eq!(page["rating"]["rating"], black.rating.round() as i64);
    // The page's user and its rating card say the same.
    assert_eq!(page["user"]["rank"], page["rating"]["rank"], "{page}");
    assert_eq!(page["user"]["rating"], page["rating"]["rating"], "{page}");
    assert_eq!(page["rating_history"][0][0], game);
    assert_eq!(page["rating_history"][0][2], black.rating.round() as i64);
    let page = rated_page(&bob, bob_id, 1).await;
    assert_eq!(page["rating"]["rating"], white.rating.round() as i64);
    assert!(black.rating > 1500.0 && white.rating < 1500.0);
    // The rated game's own page names the new ratings too, as the others do (on the node that rated it, and
    // on the other once it has).
    for c in [&ann, &bob] {
        let state = state_until(c, game, "the game's players rated", |s| {
            s["players"]["white"]["rating"] == white.rating.round() as i64
        })
        .await;
        assert_eq!(
            state["players"]["black"]["rating"],
            black.rating.round() as i64
        );
        assert_eq!(state["players"]["black"]["rank"], black.label());
    }

    // The new rating shows beside the name: in the lobby and in a new game's state.
    let (_, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black"}))
        .await
        .unwrap();
    assert_eq!(
        body["state"]["players"]["black"]["rating"],
        black.rating.round() as i64,
        "{body}"
    );
    assert_eq!(body["state"]["players"]["black"]["rank"], black.label());
    let (_, lobby) = bob.get("/api/lobby").await.unwrap();
    let entry = entry_of(&lobby, "open", &body["id"]);
    assert_eq!(
        entry["players"]["black"]["rating"],
        black.rating.round() as i64
    );
    let entry = entry_of(&lobby, "open", &waiting);
    assert_eq!(entry["players"]["black"]["rank"], black.label(), "{entry}");

    // A restart rates nothing again.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let page = rated_page(&c, ann_id, 1).await;
    assert_eq!(page["rating"]["rating"], black.rating.round() as i64);
    running.stop().await.unwrap();
}

/// The farming loop of two accounts of one person: rematch and resign, over and over. A resignation before
/// five plays each is not rated at all; played games between the same two accounts within a day count as one
/// game, so the winner ends where one win takes a new player, however many they play.
#[tokio::test]
async fn farming_a_rating_with_a_second_account_gains_one_game() {
    let dir = tempfile::tempdir().unwrap();
    // As fast as a script plays: the action rate limit is not what is tested.
    let limits = Limits {
        actions_per_second: 1000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let (ann, ann_id) = account(&running, "ann").await;
    let (bob, bob_id) = account(&running, "bob").await;
    let one = tesuji_rating::rate(
        tesuji_rating::Rating::default(),
        tesuji_rating::Rating::default(),
        tesuji_rating::Outcome::BlackWins,
        &chinese_9(),
    );

    // Resigning at move 0, or after a move, ten times in a row with rematches: nothing is rated.
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let mut id = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    for round in 0..10 {
        // Ann is Black in even rounds (rematches swap colours); Bob, the loser, resigns.
        if round % 2 == 1 {
            assert_eq!(bob.play(id, "E5").await.unwrap().0, 200);
        }
        let (status, state) = bob
            .post(&format!("/api/games/{id}/resign"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200, "round {round}: {state}");
        let rematch = format!("/api/games/{id}/rematch");
        let (status, table) = ann.post(&rematch, json!({})).await.unwrap();
        assert_eq!(status, 200, "round {round}: {table}");
        let (status, started) = bob.post(&rematch, json!({})).await.unwrap();
        assert_eq!(status, 200, "round {round}: {started}");
        assert_eq!(started["ranked"], true);
        id = started["id"].as_i64().unwrap();
    }
    let (_, state) = ann.game(id).await.unwrap();
    let ann_black = state["players"]["black"]["name"] == "ann";
    assert!(ann_black, "{state}");
    // The games are not rated, not even late: a played game is rated next, and the history has it alone.
    let (black, white) = (&ann, &bob);
    play_ten(black, white, id).await;
    let (status, _) = bob
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let page = rated_page(&ann, ann_id, 1).await;
    assert_eq!(
        page["rating"]["rating"],
        one.0.rating.round() as i64,
        "{page}"
    );

    // Played games, rematch after rematch: the pair's games count as one game of their mean result and mean
    // advantage (Ann's komi of 7.5 is a quarter rank against her as Black and for her as White), so the
    // ratings move no further than one game moves them.
    let quarter = chinese_9().advantage_ranks();
    let mut advantages = vec![quarter];
    for round in 0..4 {
        let rematch = format!("/api/games/{id}/rematch");
        ann.post(&rematch, json!({})).await.unwrap();
        let (status, started) = bob.post(&rematch, json!({})).await.unwrap();
        assert_eq!(status, 200, "round {round}: {started}");
        id = started["id"].as_i64().unwrap();
        let (black, white) = if round % 2 == 0 {
            (&bob, &ann)
        } else {
            (&ann, &bob)
        };
        advantages.push(if round % 2 == 0 { -quarter } else { quarter });
        play_ten(black, white, id).await;
        let (status, _) = bob
            .post(&format!("/api/games/{id}/resign"), json!({}))
            .await
            .unwrap();
        assert_eq!(status, 200);
        let mean = advantages.iter().sum::<f64>() / advantages.len() as f64;
        let combined = tesuji_rating::rate_score(
            tesuji_rating::Rating::default(),
            tesuji_rating::Rating::default(),
            1.0,
            mean,
        );
        let page = rated_page(&ann, ann_id, round + 2).await;
        let gained = page["rating"]["rating"].as_i64().unwrap();
        assert!(
            (gained - combined.0.rating.round() as i64).abs() <= 1,
            "round {round}: {gained}, one game of the mean gives {}",
            combined.0.rating
        );
        assert!(
            gained <= one.0.rating.round() as i64,
            "round {round}: {gained} is more than one win gives"
        );
        let page = rated_page(&bob, bob_id, round + 2).await;
        let lost = page["rating"]["rating"].as_i64().unwrap();
        assert!(
            (lost - combined.1.rating.round() as i64).abs() <= 1,
            "round {round}: {lost}"
        );
    }
    running.stop().await.unwrap();
}

/// What happens is seen: when a rated game ends, its page hears the rating change live (an event), its state
/// carries it, also once read back from the store after a restart; a ranked game too short to be rated says so.
#[tokio::test]
async fn a_rated_games_end_shows_the_rating_change_live() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, _) = account(&running, "ann").await;
    let (bob, _) = account(&running, "bob").await;
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    let mut watching = ann.game_socket(id).await.unwrap();
    play_ten(&ann, &bob, id).await;
    assert_eq!(resign(&bob, id).await, 200);
    let (black, white) = tesuji_rating::rate(
        tesuji_rating::Rating::default(),
        tesuji_rating::Rating::default(),
        tesuji_rating::Outcome::BlackWins,
        &chinese_9(),
    );
    let change = |before: f64, after: f64| {
        let (b, a) = (before.round() as i64, after.round() as i64);
        json!({"before": b, "after": a, "change": a - b})
    };
    let expected =
        json!({"black": change(1500.0, black.rating), "white": change(1500.0, white.rating)});
    let event = watching
        .next_matching(|m| m["type"] == "rated")
        .await
        .unwrap();
    assert_eq!(event["rating_change"], expected, "{event}");
    assert!(expected["black"]["change"].as_i64().unwrap() > 0);
    let (_, state) = ann.game(id).await.unwrap();
    assert_eq!(state["rating_change"], expected, "{state}");
    assert!(state.get("unrated").is_none(), "{state}");

    // A ranked game resigned at once: no change, and the state says why.
    let (_, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "ranked": true}))
        .await
        .unwrap();
    let short = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(short, None).await.unwrap().0, 200);
    assert_eq!(resign(&bob, short).await, 200);
    let (_, state) = ann.game(short).await.unwrap();
    assert_eq!(state["unrated"], "short", "{state}");
    assert!(state.get("rating_change").is_none(), "{state}");

    // Read back from the store after a restart, the rated game still says how it changed the ratings.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, state) = anonymous(&running).game(id).await.unwrap();
    assert_eq!(state["rating_change"], expected, "{state}");
    running.stop().await.unwrap();
}

/// Ranked tables take standard settings only (a tester made ranked tables with komi −50, on 2×2 and with nine
/// stones on 9×9); the same tables unranked are fine.
#[tokio::test]
async fn a_ranked_table_takes_standard_settings_only() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, _) = account(&running, "ann").await;
    for rules in [
        "chinese:size=9,komi=-50",
        "chinese:size=2",
        "chinese:size=9,handicap=9,komi=0.5",
        "japanese:size=19,komi=0",
        "chinese:size=19,suicide=all",
    ] {
        let (status, body) = ann
            .create_game(json!({"rules": rules, "color": "black", "ranked": true}))
            .await
            .unwrap();
        assert_eq!(
            (status, &body["reason"]),
            (400, &json!("ranked_settings")),
            "{rules}: {body}"
        );
        assert!(body["error"].as_str().unwrap().contains("ranked"), "{body}");
        let (status, body) = ann
            .create_game(json!({"rules": rules, "color": "black"}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{rules} unranked: {body}");
        let id = body["id"].as_i64().unwrap();
        ann.post(&format!("/api/games/{id}/cancel"), json!({}))
            .await
            .unwrap();
    }
    for rules in [
        "chinese:size=19",
        "japanese:size=13,handicap=3,komi=0.5",
        "bga:size=9,counting=japanese,komi=normal,aga=on",
    ] {
        let (status, body) = ann
            .create_game(json!({"rules": rules, "color": "black", "ranked": true}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{rules}: {body}");
        let id = body["id"].as_i64().unwrap();
        ann.post(&format!("/api/games/{id}/cancel"), json!({}))
            .await
            .unwrap();
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_ranked_game_that_ended_unrated_is_rated_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (_, ann_id) = account(&running, "ann").await;
    let (_, bob_id) = account(&running, "bob").await;
    running.stop().await.unwrap();

    // Ended while no node could rate it: the ending stored, no rating (written behind the server's back).
    let store = tesuji_server::store::open(&crate::backend().database(dir.path()))
        .await
        .unwrap();
    let moves = TEN_PLAYS
        .iter()
        .chain(&["resign"])
        .zip(1..)
        .map(|(text, number)| tesuji_server::store::StoredMove {
            number,
            // Black plays the odd moves; White resigns.
            color: if number % 2 == 1 && *text != "resign" {
                "black"
            } else {
                "white"
            }
            .into(),
            text: (*text).into(),
            spent_ms: None,
            lag_ms: None,
            at_ms: None,
        });
    let ended = |ranked: bool, result: &str| tesuji_server::store::ImportedGame {
        rules: "chinese:size=9".into(),
        created: 1,
        state: "over".into(),
        seats: tesuji_server::store::Seats {
            black: Some(ann_id),
            white: Some(bob_id),
            opponent: "anyone".into(),
            joined: true,
            ranked,
            ..Default::default()
        },
        time_control: None,
        moves: moves.clone().collect(),
        ending: Some(tesuji_server::store::Ending {
            result: Some(result.into()),
            ended: 2,
            moves: 1,
        }),
    };
    let ids = store
        .import_games(&[ended(true, "B+R"), ended(false, "B+R")])
        .await
        .unwrap();
    store.close().await.unwrap();

    let running = server(dir.path()).await;
    let c = anonymous(&running);
    let page = rated_page(&c, ann_id, 1).await;
    assert_eq!(page["rating_history"][0][0], ids[0]);
    assert!(page["rating"]["rating"].as_i64().unwrap() > 1500, "{page}");
    let page = rated_page(&c, bob_id, 1).await;
    assert!(page["rating"]["rating"].as_i64().unwrap() < 1500, "{page}");
    running.stop().await.unwrap();
    // Once only: a second start finds nothing left to rate.
    let running = server(dir.path()).await;
    let c = anonymous(&running);
    rated_page(&c, ann_id, 1).await;
    running.stop().await.unwrap();
}

/// A game of `black` against `white` under `rules` that `loser` resigns after Black's first move: its id.
async fn resigned(black: &Client, white: &Client, rules: &str, loser: Color) -> i64 {
    let id = table(black, rules, "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);
    let center = if rules.contains("size=13") {
        "G7"
    } else {
        "E5"
    };
    assert_eq!(black.play(id, center).await.unwrap().0, 200);
    let loser = if loser == Color::Black { black } else { white };
    let (status, state) = loser
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    id
}

#[tokio::test]
async fn a_players_page_counts_results_by_size_and_colour_and_lists_current_games() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (ann, ann_id) = account(&running, "ann").await;
    let (bob, bob_id) = account(&running, "bob").await;
    resigned(&ann, &bob, "chinese:size=9", Color::White).await;
    resigned(&ann, &bob, "japanese:size=9", Color::White).await;
    resigned(&bob, &ann, "chinese:size=9", Color::Black).await;
    resigned(&ann, &bob, "chinese:size=13", Color::Black).await;
    let open = table(&ann, "chinese", "black", "anyone").await["id"].clone();
    let playing = table(&bob, "chinese:size=9", "white", "anyone").await["id"].clone();
    assert_eq!(
        ann.join(playing.as_i64().unwrap(), None).await.unwrap().0,
        200
    );

    let (status, page) = bob
        .get(&format!("/api/users/{ann_id}/games"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{page}");
    let entry = |size: &str, color: &str, w: i64, l: i64| json!({"size": size, "color": color, "wins": w, "losses": l, "draws": 0});
    // Two rulesets on one size count together; smaller boards first, Black before White.
    assert_eq!(
        page["record"],
        json!([
            entry("9×9", "black", 2, 0),
            entry("9×9", "white", 1, 0),
            entry("13×13", "black", 0, 1),
        ])
    );
    let current: Vec<&Value> = page["current"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["id"])
        .collect();
    assert_eq!(current, [&playing, &open]);
    let (_, page) = ann
        .get(&format!("/api/users/{bob_id}/games"))
        .await
        .unwrap();
    assert_eq!(
        page["record"],
        json!([
            entry("9×9", "black", 0, 1),
            entry("9×9", "white", 0, 2),
            entry("13×13", "white", 1, 0),
        ])
    );
    assert_eq!(page["current"].as_array().unwrap().len(), 1);
    running.stop().await.unwrap();
}

// ---- rematches ----

#[tokio::test]
async fn a_rematch_swaps_colours_keeps_the_table_and_is_made_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let (status, body) = ann
        .create_game(
            json!({"rules": "japanese:size=9", "color": "black", "time": "fischer:5m+10s"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let old = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(old, None).await.unwrap().0, 200);
    assert_eq!(ann.play(old, "E5").await.unwrap().0, 200);
    let rematch = format!("/api/games/{old}/rematch");
    let (status, body) = bob.post(&rematch, json!({})).await.unwrap();
    assert_eq!((status, &body["reason"]), (409, &json!("not_over")));
    assert_eq!(resign(&bob, old).await, 200);
    let (status, body) = carl.post(&rematch, json!({})).await.unwrap();
    assert_eq!((status, &body["reason"]), (403, &json!("not_seated")));
    let mut watching = bob.game_socket(old).await.unwrap();

    // Ann offers: a table by invitation, the same rules and clock, Ann now White.
    let (status, table) = ann.post(&rematch, json!({})).await.unwrap();
    assert_eq!(status, 200, "{table}");
    let new = table["id"].as_i64().unwrap();
    assert_ne!(new, old);
    assert_eq!(table["status"], "open");
    assert_eq!(table["rules"], body_rules(&ann, old).await);
    assert_eq!(table["clock"]["control"], "fischer:5m+10s", "{table}");
    assert_eq!(table["players"]["white"]["name"], "ann");
    assert_eq!(table["players"]["black"], Value::Null);
    assert!(table["invite_only"].as_bool().unwrap());
    let event = watching
        .next_matching(|m| m["type"] == "rematch")
        .await
        .unwrap();
    assert_eq!(event["rematch"], json!({"game": new, "by": "black"}));

    // The players' states carry the invite; a spectator's does not, and cannot join.
    let (_, state) = bob.game(old).await.unwrap();
    let invite = state["rematch"]["invite"].as_str().unwrap().to_owned();
    assert_eq!(state["rematch"]["game"], new);
    let (_, state) = carl.game(old).await.unwrap();
    assert_eq!(state["rematch"], json!({"game": new, "by": "black"}));
    let (status, _) = carl.join(new, None).await.unwrap();
    assert_eq!(status, 403);
    // The offerer, the creator of the table, has it as any creator does.
    assert_eq!(table["invite"], invite.as_str());

    // Offering again answers the same table; the opponent's offer accepts it.
    let (_, again) = ann.post(&rematch, json!({})).await.unwrap();
    assert_eq!(again["id"], new);
    let (status, started) = bob.post(&rematch, json!({})).await.unwrap();
    assert_eq!(status, 200, "{started}");
    assert_eq!(
        (started["id"].as_i64(), &started["status"]),
        (Some(new), &json!("playing"))
    );
    assert_eq!(started["players"]["black"]["name"], "bob");
    assert_eq!(bob.play(new, "E5").await.unwrap().0, 200);

    // Kept across a restart.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, state) = anonymous(&running).game(old).await.unwrap();
    assert_eq!(state["rematch"]["game"], new, "{state}");
    running.stop().await.unwrap();
}

/// The rules of game `id` as its state gives them.
async fn body_rules(c: &Client, id: i64) -> Value {
    c.game(id).await.unwrap().1["rules"].clone()
}

#[tokio::test]
async fn a_rematch_against_the_computer_starts_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let old = table(&ann, "chinese:size=9", "white", "bot").await["id"]
        .as_i64()
        .unwrap();
    // The computer (Black) moves first; Ann resigns once it has.
    state_until(&ann, old, "the computer's move", |s| s["move_count"] == 1).await;
    assert_eq!(resign(&ann, old).await, 200);
    let (status, state) = ann
        .post(&format!("/api/games/{old}/rematch"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["status"], "playing");
    assert_eq!(state["players"]["black"]["name"], "ann");
    assert!(state["players"]["white"]["bot"].is_string(), "{state}");
    running.stop().await.unwrap();
}

// ---- the lobby's own list ----

#[tokio::test]
async fn the_lobby_lists_first_the_games_that_wait_for_me() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    let open = table(&black, "chinese:size=9", "black", "anyone").await["id"].clone();
    let mine = |lobby: &Value| -> Vec<Value> {
        lobby["my_turn"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].clone())
            .collect()
    };
    // Black is to move; an open table waits for nobody's action yet; a spectator has no list.
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert_eq!(mine(&lobby), [json!(id)]);
    assert_eq!(lobby["my_turn"][0]["to_act"], json!(["black"]));
    assert!(!mine(&lobby).contains(&open));
    let (_, lobby) = white.get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");
    let (_, lobby) = anonymous(&running).get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");

    let mut ws = white.lobby_socket().await.unwrap();
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    let listed = ws
        .next_matching(|m| m["my_turn"].as_array().is_some_and(|l| !l.is_empty()))
        .await
        .unwrap();
    assert_eq!(mine(&listed), [json!(id)]);
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");

    // The marking phase waits for both until each accepts.
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    assert_eq!(black.play(id, "pass").await.unwrap().0, 200);
    let (_, lobby) = white.get("/api/lobby").await.unwrap();
    assert_eq!(lobby["my_turn"][0]["to_act"], json!(["black", "white"]));
    assert_eq!(
        white
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );
    let (_, lobby) = white.get("/api/lobby").await.unwrap();
    assert!(mine(&lobby).is_empty(), "{lobby}");
    let (_, lobby) = black.get("/api/lobby").await.unwrap();
    assert_eq!(mine(&lobby), [json!(id)]);
    running.stop().await.unwrap();
}

// ---- chat ----

/// The next chat message a socket gets.
async fn next_chat(socket: &mut tesuji_client::Socket) -> Value {
    socket.next_matching(|m| m["type"] == "chat").await.unwrap()["message"].clone()
}

/// The texts of game `id`'s chat as client `c` may see it.
async fn chat_texts(c: &Client, id: i64) -> Vec<String> {
    let (status, body) = c.get(&format!("/api/games/{id}/chat")).await.unwrap();
    assert_eq!(status, 200, "{body}");
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn the_spectators_talk_never_reaches_the_players_during_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // On two nodes each client sits on the next node: Ann and Carl on one, Bob and Dave on the other.
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let dave = guest(&running, "dave").await;
    let id = table(&ann, "japanese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    let (mut ann_ws, mut bob_ws) = (
        ann.game_socket(id).await.unwrap(),
        bob.game_socket(id).await.unwrap(),
    );
    let (mut carl_ws, mut dave_ws) = (
        carl.game_socket(id).await.unwrap(),
        dave.game_socket(id).await.unwrap(),
    );
    let chat = format!("/api/games/{id}/chat");

    // A player's word reaches everyone, with its place in the record.
    let (status, said) = bob.post(&chat, json!({"text": " hello "})).await.unwrap();
    assert_eq!(status, 201, "{said}");
    assert_eq!(
        (
            &said["channel"],
            &said["move"],
            &said["text"],
            &said["user"]["name"]
        ),
        (&json!("players"), &json!(1), &json!("hello"), &json!("bob"))
    );
    for socket in [&mut ann_ws, &mut bob_ws, &mut carl_ws, &mut dave_ws] {
        assert_eq!(next_chat(socket).await, said);
    }

    // A spectator's reaches the spectators only, here and on the other node...
    let (status, tip) = carl
        .post(&chat, json!({"text": "Bob should play C3"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{tip}");
    assert_eq!(tip["channel"], "spectators");
    assert_eq!(next_chat(&mut carl_ws).await, tip);
    assert_eq!(next_chat(&mut dave_ws).await, tip);
    // ...never the players: the next message each player's socket gets is the one said after it (Ann's, on
    // Carl's node; Bob's node had Carl's before it, as Dave's socket there showed).
    let (status, thanks) = ann.post(&chat, json!({"text": "thanks"})).await.unwrap();
    assert_eq!(status, 201, "{thanks}");
    assert_eq!(next_chat(&mut ann_ws).await, thanks);
    assert_eq!(next_chat(&mut bob_ws).await, thanks);
    assert_eq!(chat_texts(&ann, id).await, ["hello", "thanks"]);
    assert_eq!(chat_texts(&bob, id).await, ["hello", "thanks"]);
    assert_eq!(
        chat_texts(&dave, id).await,
        ["hello", "Bob should play C3", "thanks"]
    );
    // The record of a game in play carries the players' talk only.
    let (_, sgf) = dave
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap();
    assert!(
        sgf.contains("bob: hello") && sgf.contains("ann: thanks"),
        "{sgf}"
    );
    assert!(!sgf.contains("C3"), "{sgf}");

    // Once the game is over the players see it all, and the record has it at its move.
    assert_eq!(resign(&bob, id).await, 200);
    assert_eq!(
        chat_texts(&ann, id).await,
        ["hello", "Bob should play C3", "thanks"]
    );
    let (_, sgf) = ann.get_text(&format!("/api/games/{id}/sgf")).await.unwrap();
    let (e5, tip_at) = (
        sgf.find("B[ee]").unwrap(),
        sgf.find("carl (watching): Bob should play C3"),
    );
    assert!(tip_at.is_some_and(|at| at > e5), "{sgf}");
    // Said after the resignation, by a player: at the last move too.
    let (status, gg) = bob.post(&chat, json!({"text": "gg"})).await.unwrap();
    assert_eq!((status, &gg["move"]), (201, &json!(2)));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn chat_refuses_bad_messages_and_floods_and_keeps_muted_users_out() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let nobody = anonymous(&running);
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    let chat = format!("/api/games/{id}/chat");
    let (status, body) = nobody.post(&chat, json!({"text": "hi"})).await.unwrap();
    assert_eq!((status, &body["reason"]), (401, &json!("not_signed_in")));
    for (text, says) in [
        (json!({"text": "  "}), "needs some text"),
        (json!({"text": "x".repeat(501)}), "at most 500"),
        (json!({"text": "bell\u{7}"}), "control"),
        (json!({"text": 5}), "string"),
        (json!({"text": "hi", "to": "bob"}), "to"),
    ] {
        let (status, body) = ann.post(&chat, text.clone()).await.unwrap();
        assert_eq!(status, 400, "{text}: {body}");
        assert!(body["error"].as_str().unwrap().contains(says), "{body}");
    }
    let (status, body) = ann
        .post("/api/games/999999/chat", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(status, 404, "{body}");
    // The longest message, in characters; markup stays text.
    let long = "棋".repeat(500);
    assert_eq!(ann.post(&chat, json!({"text": long})).await.unwrap().0, 201);
    let (_, markup) = ann
        .post(&chat, json!({"text": "<b>bold</b>"}))
        .await
        .unwrap();
    assert_eq!(markup["text"], "<b>bold</b>");

    // A flood: five at once, then one every two seconds.
    for k in 0..5 {
        let (status, body) = carl
            .post(&chat, json!({"text": format!("{k}")}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{k}: {body}");
    }
    let (status, body) = carl.post(&chat, json!({"text": "more"})).await.unwrap();
    assert_eq!((status, &body["reason"]), (429, &json!("rate_limited")));

    // Once the game is over Ann sees the spectators' talk; she mutes Carl: his messages leave her chat (and no
    // one else's); unmuted, they are back.
    assert_eq!(resign(&bob, id).await, 200);
    assert!(chat_texts(&ann, id).await.iter().any(|t| t == "0"));
    let carl_id = carl.get("/api/session").await.unwrap().1["user"]["id"].clone();
    let (status, body) = ann
        .post("/api/mutes", json!({"user": carl_id, "muted": true}))
        .await
        .unwrap();
    assert_eq!((status, &body["muted"]), (200, &json!([carl_id])), "{body}");
    assert_eq!(
        ann.get("/api/mutes").await.unwrap().1["muted"],
        json!([carl_id])
    );
    let texts = chat_texts(&ann, id).await;
    assert!(!texts.iter().any(|t| t == "0"), "{texts:?}");
    assert!(chat_texts(&bob, id).await.iter().any(|t| t == "0"));
    let ann_id = ann.get("/api/session").await.unwrap().1["user"]["id"].clone();
    for (who, body) in [(ann_id.clone(), "yourself"), (json!(999_999), "no user")] {
        let (status, answer) = ann
            .post("/api/mutes", json!({"user": who, "muted": true}))
            .await
            .unwrap();
        assert!(status == 400 || status == 404, "{answer}");
        assert!(answer["error"].as_str().unwrap().contains(body), "{answer}");
    }
    let (status, _) = ann
        .post("/api/mutes", json!({"user": carl_id, "muted": false}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(ann.get("/api/mutes").await.unwrap().1["muted"], json!([]));
    assert!(chat_texts(&ann, id).await.iter().any(|t| t == "0"));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_muted_users_words_never_reach_the_socket_of_who_muted_them() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // On two nodes: Ann and Carl on one, Bob on the other.
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(resign(&bob, id).await, 200);
    let carl_id = carl.get("/api/session").await.unwrap().1["user"]["id"].clone();
    let (status, _) = ann
        .post("/api/mutes", json!({"user": carl_id, "muted": true}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let mut ann_ws = ann.game_socket(id).await.unwrap();
    let mut bob_ws = bob.game_socket(id).await.unwrap();
    let chat = format!("/api/games/{id}/chat");
    // The game is over: a spectator's word would reach the players, but Ann muted Carl.
    let (_, noise) = carl.post(&chat, json!({"text": "noise"})).await.unwrap();
    assert_eq!(next_chat(&mut bob_ws).await, noise);
    let (_, mine) = ann.post(&chat, json!({"text": "mine"})).await.unwrap();
    assert_eq!(next_chat(&mut ann_ws).await, mine);
    assert_eq!(next_chat(&mut bob_ws).await, mine);
    running.stop().await.unwrap();
}

// ---- taking back a move ----

/// Posts `{}` to `path` of game `id` (`undo`, `undo/accept`, `undo/decline`): the status and the answer.
async fn undo_step(c: &Client, id: i64, path: &str) -> (u16, Value) {
    c.post(&format!("/api/games/{id}/{path}"), json!({}))
        .await
        .unwrap()
}

#[tokio::test]
async fn an_undo_takes_a_move_back_and_the_ko_is_judged_as_if_it_was_never_played() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    // Positional superko: were the taken-back capture's position still in the history, taking the ko again
    // would repeat it.
    let (status, body) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "time": "fischer:5m+10s"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    assert_eq!(undo_step(&ann, id, "undo").await.1["reason"], "no_undo");
    // A ko at E5/F5: White's E5 in Black's mouth, Black takes it at F5.
    for (k, mv) in ["D5", "F4", "E4", "F6", "E6", "G5", "A9", "E5"]
        .into_iter()
        .enumerate()
    {
        let (status, body) = by(if k % 2 == 0 { "black" } else { "white" }, &ann, &bob)
            .play(id, mv)
            .await
            .unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
    }
    let (_, before) = ann.game(id).await.unwrap();
    assert_eq!(ann.play(id, "F5").await.unwrap().0, 200);
    let mut watching = bob.game_socket(id).await.unwrap();

    // Only one's own last move, one request at a time, answered by the opponent only.
    let (status, body) = undo_step(&bob, id, "undo").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    let (status, body) = undo_step(&bob, id, "undo/accept").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    let (status, asked) = undo_step(&ann, id, "undo").await;
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["undo_asked"], "black");
    let event = watching
        .next_matching(|m| m["type"] == "undo")
        .await
        .unwrap();
    assert_eq!(event["state"]["undo_asked"], "black");
    assert_eq!(undo_step(&ann, id, "undo").await.1["reason"], "no_undo");
    assert_eq!(
        undo_step(&ann, id, "undo/accept").await.1["reason"],
        "no_undo"
    );

    // Declined: the move stands, and may be asked about again after the pause (tests/api/limits.rs).
    let (status, declined) = undo_step(&bob, id, "undo/decline").await;
    assert_eq!(status, 200, "{declined}");
    assert_eq!(declined["undo_asked"], Value::Null);
    assert_eq!(declined["last_move"], "F5");
    time.advance(30_000);
    assert_eq!(undo_step(&ann, id, "undo").await.0, 200);

    // Accepted: the board, the player to move, the captures and the running clock are as before F5.
    let (status, after) = undo_step(&bob, id, "undo/accept").await;
    assert_eq!(status, 200, "{after}");
    for field in ["board", "to_move", "captures", "last_move"] {
        assert_eq!(after[field], before[field], "{field}");
    }
    assert_eq!(after["clock"]["running"], "black");
    let texts: Vec<&str> = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts[8..],
        ["F5", "undo", "undo-decline", "undo", "undo-accept"]
    );
    watching
        .next_matching(|m| m["type"] == "undo_accept")
        .await
        .unwrap();

    // Taking the ko again is legal (the taken-back capture left no position behind); White may not take it
    // straight back (the ko itself still holds).
    let (status, body) = ann.play(id, "F5").await.unwrap();
    assert_eq!(status, 200, "{body}");
    let (status, body) = bob.play(id, "E5").await.unwrap();
    assert_eq!((status, &body["reason"]), (422, &json!("ko")), "{body}");

    // The record leaves the taken-back move out; a restart replays the same game.
    let (_, sgf) = ann.get_text(&format!("/api/games/{id}/sgf")).await.unwrap();
    assert_eq!(sgf.matches("B[fe]").count(), 1, "{sgf}");
    assert_eq!(
        sgf.matches(";B[").count() + sgf.matches(";W[").count(),
        9,
        "{sgf}"
    );
    assert_eq!(undo_step(&ann, id, "undo").await.0, 200);
    let (_, asked) = ann.game(id).await.unwrap();
    running.stop().await.unwrap();
    let running = server_at(dir.path(), &time).await;
    let (_, again) = anonymous(&running).game(id).await.unwrap();
    for field in ["board", "to_move", "captures", "undo_asked", "move_count"] {
        assert_eq!(again[field], asked[field], "{field}");
    }
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_table_may_forbid_undo_and_a_move_leaves_a_request_unanswered() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let (_, created) = ann
        .create_game(json!({"rules": "japanese:size=9", "color": "black", "undo": false}))
        .await
        .unwrap();
    let strict = created["id"].as_i64().unwrap();
    assert_eq!(ann.game(strict).await.unwrap().1["undo"], false);
    assert_eq!(bob.join(strict, None).await.unwrap().0, 200);
    assert_eq!(ann.play(strict, "E5").await.unwrap().0, 200);
    let (status, body) = undo_step(&ann, strict, "undo").await;
    assert_eq!(
        (status, &body["reason"]),
        (409, &json!("no_undo")),
        "{body}"
    );
    assert!(
        body["error"].as_str().unwrap().contains("does not allow"),
        "{body}"
    );

    let (id, black, white) = seated(&running, "japanese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    // White plays on instead of answering: the request lapses.
    let (status, state) = white.play(id, "C3").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["undo_asked"], Value::Null);
    assert_eq!(
        undo_step(&white, id, "undo/accept").await.1["reason"],
        "no_undo"
    );
    // A game whose first move was taken back is no longer unplayed: it cannot be aborted.
    let (id, black, white) = seated(&running, "japanese:size=9").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    assert_eq!(undo_step(&white, id, "undo/accept").await.0, 200);
    let (status, body) = white
        .post(&format!("/api/games/{id}/abort"), json!({}))
        .await
        .unwrap();
    assert_eq!((status, &body["reason"]), (409, &json!("moved")), "{body}");
    // Against the computer there is no taking back.
    let bot = table(&ann, "chinese:size=9", "black", "bot").await["id"].clone();
    let (_, state) = ann.get(&format!("/api/games/{bot}")).await.unwrap();
    assert_eq!(
        (&state["undo"], &state["status"]),
        (&json!(false), &json!("playing"))
    );
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_superko_refusal_in_a_timed_game_after_an_undo_names_the_move_as_listed() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (id, _) = timed(&black, &white, "chinese:size=5", "fischer:5m+10s").await;
    // Black's first move is taken back and played again: three actions more in the list than in the log.
    assert_eq!(black.play(id, "C4").await.unwrap().0, 200);
    assert_eq!(undo_step(&black, id, "undo").await.0, 200);
    assert_eq!(undo_step(&white, id, "undo/accept").await.0, 200);
    let mut after_b2 = Value::Null;
    for (color, mv) in [
        ("black", "C4"),
        ("white", "B4"),
        ("black", "D3"),
        ("white", "A3"),
        ("black", "C2"),
        ("white", "C3"),
        ("black", "pass"),
        ("white", "B2"),
        ("black", "B3"),
    ] {
        let (status, body) = by(color, &black, &white).play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
        if mv == "B2" {
            after_b2 = body["board"].clone();
            assert_eq!(body["move_count"], 11);
        }
    }
    // White's retake at C3 would make the position after White's B2 again: action 11 of the list.
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(
        (status, &refused["reason"]),
        (422, &json!("ko")),
        "{refused}"
    );
    assert_eq!(refused["repeats"], 11, "{refused}");
    assert_eq!(refused["board"], after_b2);
    assert!(
        refused["error"].as_str().unwrap().contains("after move 11"),
        "{refused}"
    );
    running.stop().await.unwrap();
}

// ---- news ----

/// `(game, count, [moves])` of each game in client `c`'s news, and since when they run.
async fn news_of(c: &Client) -> (i64, Vec<(i64, i64, Vec<String>)>) {
    let (status, news) = c.get("/api/news").await.unwrap();
    assert_eq!(status, 200, "{news}");
    let games = news["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let moves = g["actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["move"].as_str().unwrap().to_owned())
                .collect();
            (
                g["game"].as_i64().unwrap(),
                g["count"].as_i64().unwrap(),
                moves,
            )
        })
        .collect();
    (news["since"].as_i64().unwrap(), games)
}

#[tokio::test]
async fn the_news_lists_what_the_others_did_in_my_games_since_i_looked() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let nobody = anonymous(&running);
    assert_eq!(nobody.get("/api/news").await.unwrap().0, 401);
    let id = table(&ann, "chinese:size=9", "black", "anyone").await["id"]
        .as_i64()
        .unwrap();
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    for (k, mv) in ["E5", "C3", "D4", "pass"].into_iter().enumerate() {
        time.advance(1_000);
        let player = if k % 2 == 0 { &ann } else { &bob };
        assert_eq!(player.play(id, mv).await.unwrap().0, 200, "{mv}");
    }
    // Ann's news: Bob's two actions, not her own.
    let (since, games) = news_of(&ann).await;
    assert_eq!(games, [(id, 2, vec!["C3".to_owned(), "pass".to_owned()])]);
    // Looked: nothing new until Bob acts again.
    time.advance(1_000);
    let (status, seen) = ann.post("/api/news/seen", json!({})).await.unwrap();
    assert_eq!(status, 200, "{seen}");
    assert!(seen["since"].as_i64().unwrap() > since);
    assert_eq!(news_of(&ann).await.1, []);
    // Never moved back, never past now.
    let (_, again) = ann.post("/api/news/seen", json!({"at": 0})).await.unwrap();
    assert_eq!(again["since"], seen["since"]);
    time.advance(1_000);
    assert_eq!(ann.play(id, "E6").await.unwrap().0, 200);
    time.advance(1_000);
    assert_eq!(resign(&bob, id).await, 200);
    let (_, news) = ann.get("/api/news").await.unwrap();
    let game = &news["games"][0];
    assert_eq!(
        (
            &game["game"],
            &game["count"],
            &game["status"],
            &game["result"]
        ),
        (&json!(id), &json!(1), &json!("over"), &json!("B+R")),
        "{news}"
    );
    assert_eq!(
        (&game["black"], &game["white"]),
        (&json!("ann"), &json!("bob"))
    );
    // Bob never looked: all of Ann's moves since he joined.
    assert_eq!(
        news_of(&bob).await.1,
        [(
            id,
            3,
            vec!["E5".to_owned(), "D4".to_owned(), "E6".to_owned()]
        )]
    );
    let (status, _) = ann
        .post("/api/news/seen", json!({"at": i64::MAX}))
        .await
        .unwrap();
    assert_eq!(status, 200);
    time.advance(1_000);
    assert_eq!(news_of(&ann).await.1, []);
    running.stop().await.unwrap();
}

// ---- automatch ----

async fn seek(c: &Client, body: Value) -> (u16, Value) {
    c.post("/api/seeks", body).await.unwrap()
}

/// The ids of the seeks the lobby shows, and the viewer's own (with their games).
async fn seek_lists(c: &Client) -> (Vec<i64>, Vec<(i64, Value)>) {
    let (status, body) = c.get("/api/seeks").await.unwrap();
    assert_eq!(status, 200, "{body}");
    let shown = body["seeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    let mine = body["mine"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_i64().unwrap(), s["game"].clone()))
        .collect();
    (shown, mine)
}

#[tokio::test]
async fn two_compatible_seekers_are_paired_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // On two nodes: Ann and Carl on one, Bob and Dave on the other.
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let carl = guest(&running, "carl").await;
    let dave = guest(&running, "dave").await;
    for (body, says) in [
        (json!({"size": 9, "speed": "bullet"}), "speed"),
        (json!({"size": 10, "speed": "rapid"}), "size"),
        (
            json!({"size": 9, "speed": "rapid", "rules": "tromp-taylor"}),
            "rules",
        ),
        (
            json!({"size": 9, "speed": "rapid", "min_rank": "1d", "max_rank": "10k"}),
            "stronger",
        ),
        (
            json!({"size": 9, "speed": "rapid", "min_rank": "99x"}),
            "rank",
        ),
    ] {
        let (status, answer) = seek(&ann, body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains(says), "{answer}");
    }
    let (status, answer) = seek(&ann, json!({"size": 9, "speed": "rapid", "ranked": true})).await;
    assert_eq!(
        (status, &answer["reason"]),
        (403, &json!("ranked_needs_account"))
    );

    // Ann waits; Carl (another size) and Bob (another speed) do not match her.
    let (status, waiting) = seek(&ann, json!({"size": 9, "speed": "rapid"})).await;
    assert_eq!(status, 201, "{waiting}");
    let ann_seek = waiting["seek"]["id"].as_i64().unwrap();
    assert_eq!(waiting["seek"]["user"]["name"], "ann");
    assert_eq!(
        seek(&carl, json!({"size": 13, "speed": "rapid"})).await.0,
        201
    );
    assert_eq!(
        seek(&bob, json!({"size": 9, "speed": "blitz"})).await.0,
        201
    );
    let (shown, _) = seek_lists(&dave).await;
    assert_eq!(shown.len(), 3);
    assert!(shown.contains(&ann_seek));
    let (_, lobby) = dave.get("/api/lobby").await.unwrap();
    assert_eq!(lobby["seeks"].as_array().unwrap().len(), 3, "{lobby}");

    // Dave's matches hers at once, on the other node: a game between them, both seated.
    let (status, matched) = seek(&dave, json!({"size": 9, "speed": "rapid"})).await;
    assert_eq!(status, 200, "{matched}");
    let game = &matched["game"];
    assert_eq!(game["status"], "playing");
    assert!(
        game["rules"].as_str().unwrap().starts_with("japanese"),
        "{game}"
    );
    assert_eq!(
        (game["width"].as_i64(), game["invite_only"].as_bool()),
        (Some(9), Some(true))
    );
    let mut names = [
        game["players"]["black"]["name"].clone(),
        game["players"]["white"]["name"].clone(),
    ];
    names.sort_by_key(|n| n.to_string());
    assert_eq!(names, [json!("ann"), json!("dave")]);
    // Ann finds it in her own list; the lobby shows her seek no longer.
    let (shown, mine) = seek_lists(&ann).await;
    assert_eq!(mine, [(ann_seek, game["id"].clone())]);
    assert!(!shown.contains(&ann_seek), "{shown:?}");
    let (status, _) = ann.game(game["id"].as_i64().unwrap()).await.unwrap();
    assert_eq!(status, 200);

    // A seeker never matches themself; a waiting seek can be withdrawn, once.
    let (status, again) = seek(&bob, json!({"size": 9, "speed": "blitz"})).await;
    assert_eq!(status, 201, "{again}");
    let bob_seek = again["seek"]["id"].as_i64().unwrap();
    let cancel = format!("/api/seeks/{bob_seek}/cancel");
    assert_eq!(carl.post(&cancel, json!({})).await.unwrap().0, 404);
    assert_eq!(bob.post(&cancel, json!({})).await.unwrap().0, 200);
    let (status, body) = bob.post(&cancel, json!({})).await.unwrap();
    assert_eq!((status, &body["reason"]), (404, &json!("no_seek")));
    assert!(!seek_lists(&ann).await.0.contains(&bob_seek));
    running.stop().await.unwrap();
}

#[tokio::test]
async fn a_seek_matches_only_ranks_within_both_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    // New accounts are rated 1500: 6 kyu.
    let (eve, _) = account(&running, "eve").await;
    let (fay, _) = account(&running, "fay").await;
    let (gus, _) = account(&running, "gus").await;
    let ranked = |range: Value| {
        let mut body = json!({"size": 19, "speed": "classical", "ranked": true});
        body.as_object_mut()
            .unwrap()
            .extend(range.as_object().unwrap().clone());
        body
    };
    // Eve wants 10 kyu or weaker: Fay (6k) does not fit, and waits beside her.
    let (status, eve_seek) = seek(&eve, ranked(json!({"max_rank": "10k"}))).await;
    assert_eq!(status, 201, "{eve_seek}");
    assert_eq!(eve_seek["seek"]["max_rank"], "10k");
    assert_eq!(seek(&fay, ranked(json!({}))).await.0, 201);
    // Gus fits Fay's open range but wants 1 dan or stronger: he waits too.
    assert_eq!(seek(&gus, ranked(json!({"min_rank": "1d"}))).await.0, 201);
    assert_eq!(seek_lists(&eve).await.0.len(), 3);
    // Gus changes his mind (the same kind of seek replaces his): 8k to 4k holds Fay, who was first.
    let (status, matched) = seek(&gus, ranked(json!({"min_rank": "8k", "max_rank": "4k"}))).await;
    assert_eq!(status, 200, "{matched}");
    let game = &matched["game"];
    assert_eq!(game["ranked"], true);
    let names = [
        &game["players"]["black"]["name"],
        &game["players"]["white"]["name"],
    ];
    assert!(
        names.contains(&&json!("fay")) && names.contains(&&json!("gus")),
        "{game}"
    );
    // Equal ratings: no handicap, the rules' own komi.
    assert_eq!(game["handicap"], 0);
    assert_eq!(seek_lists(&eve).await.0.len(), 1);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn two_seekers_at_the_same_moment_make_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let running = server(dir.path()).await;
    for round in 0..5 {
        // On two nodes the two seekers are on different nodes.
        let a = guest(&running, &format!("a{round}")).await;
        let b = guest(&running, &format!("b{round}")).await;
        let body = json!({"size": 9, "speed": "classical", "rules": "chinese"});
        let ((one, first), (two, second)) = tokio::join!(seek(&a, body.clone()), seek(&b, body));
        let mut statuses = [one, two];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 201], "round {round}: {first} {second}");
        let game = if one == 200 { &first } else { &second };
        assert_eq!(game["game"]["status"], "playing");
        assert!(seek_lists(&a).await.0.is_empty(), "round {round}");
    }
    running.stop().await.unwrap();
}

/// Client `c`'s vacation request (`days`, or `None` to come back): the answer's status and body.
async fn vacation(c: &Client, days: Option<u32>) -> (u16, Value) {
    match days {
        Some(days) => c.post("/api/vacation", json!({ "days": days })).await,
        None => c.post("/api/vacation/end", json!({})).await,
    }
    .unwrap()
}

/// White's time and vacation as `c` sees game `id`, once its node agrees with `away_ms` (another node hears of a
/// vacation over NATS).
async fn white_away(c: &Client, id: i64, away_ms: Option<u64>) -> Value {
    state_until(c, id, "white's vacation seen", |s| {
        s["clock"]["white"]["away_ms"].as_u64() == away_ms
    })
    .await
}

/// A vacation stops the player's correspondence clocks exactly while it lasts, only on their own turns (the
/// opponent's clock runs), not their clocks of games at one sitting; a vacation ended early gives the rest back;
/// the turn's time is stored without it (a restart agrees) and the flag falls exactly that much later.
#[tokio::test]
async fn a_vacation_stops_the_clock_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = server_at(dir.path(), &time).await;
    let black = guest(&running, "ann").await;
    let white = guest(&running, "bob").await;
    let (id, _) = timed(&black, &white, "chinese:size=9", "absolute:5d").await;
    assert_eq!(black.play(id, "E5").await.unwrap().0, 200);

    // Bob is away from day 1 to day 3, on his own turn: his clock stands still meanwhile, on every node.
    time.advance(DAY_MS);
    let (status, taken) = vacation(&white, Some(2)).await;
    assert_eq!(status, 200, "{taken}");
    assert_eq!(
        (&taken["current"]["start_ms"], &taken["current"]["end_ms"]),
        (&json!(DAY_MS), &json!(3 * DAY_MS))
    );
    assert_eq!(
        (
            taken["allowance_days"].as_u64(),
            taken["left_days"].as_u64()
        ),
        (Some(30), Some(28))
    );
    let (status, again) = vacation(&white, Some(1)).await;
    assert_eq!(
        (status, again["reason"].as_str()),
        (409, Some("on_vacation"))
    );
    for c in [&black, &white] {
        let state = white_away(c, id, Some(2 * DAY_MS)).await;
        assert_eq!(main_ms(&state, "white"), 4 * DAY_MS);
        assert_eq!(state["clock"]["running"], "white");
    }
    time.advance(DAY_MS);
    let state = white_away(&black, id, Some(DAY_MS)).await;
    assert_eq!(main_ms(&state, "white"), 4 * DAY_MS);
    // Back on day 3, Bob moves on day 4: two days charged.
    time.advance(2 * DAY_MS);
    let (status, state) = white.play(id, "D5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(main_ms(&state, "white"), 3 * DAY_MS);

    // Away again for Ann's turn (day 4 to 5): her clock runs all the same.
    let (status, _) = vacation(&white, Some(1)).await;
    assert_eq!(status, 200);
    white_away(&black, id, Some(DAY_MS)).await;
    time.advance(DAY_MS);
    let state = white_away(&black, id, None).await;
    assert_eq!(main_ms(&state, "black"), 4 * DAY_MS);
    assert_eq!(black.play(id, "E4").await.unwrap().0, 200);

    // On day 5 Bob leaves for ten days, with a blitz game too, whose clock does not stop; he comes back on
    // day 6. His correspondence clock runs again from then: 3 days, and the second of lag allowed, to the flag.
    let (blitz, _) = timed(&black, &white, "chinese:size=9", "absolute:10m").await;
    assert_eq!(black.play(blitz, "E5").await.unwrap().0, 200);
    let (status, _) = vacation(&white, Some(10)).await;
    assert_eq!(status, 200);
    white_away(&black, id, Some(10 * DAY_MS)).await;
    let state = white_away(&black, blitz, None).await;
    assert_eq!(state["clock"]["running"], "white");
    time.advance(DAY_MS);
    let state = state_until(&black, blitz, "the blitz game lost on time", |s| {
        s["result"] == "B+T"
    })
    .await;
    assert_eq!(state["clock"]["white"]["flagged"], true);
    let (status, back) = vacation(&white, None).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(back["current"], Value::Null);
    assert_eq!(back["used_ms"].as_u64(), Some(4 * DAY_MS));
    assert_eq!(back["left_days"].as_u64(), Some(26));
    let (status, body) = vacation(&white, None).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_on_vacation"))
    );
    let state = white_away(&black, id, None).await;
    assert_eq!(main_ms(&state, "white"), 3 * DAY_MS);
    let mut ws = anonymous(&running).game_socket(id).await.unwrap();
    assert_eq!(ws.next_json().await.unwrap()["type"], "state");
    time.advance(3 * DAY_MS + 1_000);
    let (_, state) = black.get(&format!("/api/games/{id}")).await.unwrap();
    assert_eq!(state["result"], Value::Null, "{state}");
    assert_eq!(main_ms(&state, "white"), 0);
    time.advance(1);
    let m = ws.next_matching(|m| m["type"] == "timeout").await.unwrap();
    assert_eq!(m["state"]["result"], "B+T");

    // The allowance: 26 whole days left this year; a vacation is 1 to 30 whole days.
    for (days, status, reason) in [(27, 422, "vacation_too_long"), (0, 400, "bad_request")] {
        let (got, body) = vacation(&white, Some(days)).await;
        assert_eq!(
            (got, body["reason"].as_str()),
            (status, Some(reason)),
            "{days}"
        );
    }
    let (status, view) = white.get("/api/vacation").await.unwrap();
    assert_eq!((status, view["left_days"].as_u64()), (200, Some(26)));
    assert_eq!(
        anonymous(&running).get("/api/vacation").await.unwrap().0,
        401
    );
    drop(ws);
    running.stop().await.unwrap();

    // Stored without the vacations: the record after a restart has White's three days left after D5.
    let running = server_at(dir.path(), &time).await;
    let (status, sgf) = anonymous(&running)
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert!(sgf.contains("W[de]WL[259200"), "{sgf}");
    running.stop().await.unwrap();
}

/// Polls game `id`'s review until `done` holds (the review runs in the background), for at most 60 s.
async fn review_until(c: &Client, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let (status, review) = c.get(&format!("/api/games/{id}/review")).await.unwrap();
        assert_eq!(status, 200, "{review}");
        if done(&review) {
            return review;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{review}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A site whose reviews and estimates take 40 playouts a position, with a 9×9 game between two guests where
/// Black played E5, White C3 and Black G3.
async fn searched_game(dir: &Path) -> (Site, i64, Client, Client) {
    let running = start(ServerConfig {
        review_playouts: 40,
        ..config(dir)
    })
    .await
    .unwrap();
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    for (c, mv) in [(&black, "E5"), (&white, "C3"), (&black, "G3")] {
        assert_eq!(c.play(id, mv).await.unwrap().0, 200);
    }
    (running, id, black, white)
}

/// A finished game is reviewed once, in the background: every position searched (win rate and lead from
/// Black's side, the engine's move and line, the ownership), the biggest mistakes; asking again changes
/// nothing, a restart keeps it, a game in play is not reviewed.
#[tokio::test]
async fn a_finished_game_is_reviewed_once_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let (running, id, black, white) = searched_game(dir.path()).await;
    assert_eq!(white.play(id, "pass").await.unwrap().0, 200);
    let path = format!("/api/games/{id}/review");
    // In play: nothing to review yet.
    let (status, body) = black.post(&path, json!({})).await.unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("not_over")),
        "{body}"
    );
    assert_eq!(resign(&white, id).await, 200);
    let watcher = anonymous(&running);
    let (_, none) = watcher.get(&path).await.unwrap();
    assert_eq!(none["status"], "none");
    let (status, _) = watcher.post(&path, json!({})).await.unwrap();
    assert_eq!(status, 401);
    let (status, asked) = white.post(&path, json!({})).await.unwrap();
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["playouts"], 40);
    let review = review_until(&watcher, id, |r| r["status"] == "done").await;
    // Four turns: five positions, the last after White's pass with Black to move.
    assert_eq!(
        (review["done"].as_i64(), review["total"].as_i64()),
        (Some(5), Some(5))
    );
    let positions = review["results"]["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 5);
    let size = tesuji_rules::Size::square(9).unwrap();
    for (k, p) in positions.iter().enumerate() {
        assert_eq!(p["turn"], k);
        assert_eq!(p["to_move"], if k % 2 == 0 { "black" } else { "white" });
        assert_eq!(
            (p["searched"].as_bool(), p["playouts"].as_u64()),
            (Some(true), Some(40)),
            "{p}"
        );
        let rate = p["winrate"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rate), "{p}");
        assert!(p["score"].as_f64().unwrap().abs() <= 81.0 + 7.5, "{p}");
        let own = p["ownership"].as_array().unwrap();
        assert_eq!(own.len(), 81);
        assert!(
            own.iter()
                .all(|o| (-100..=100).contains(&o.as_i64().unwrap()))
        );
        let best = p["best"].as_str().unwrap();
        assert!(
            best == "pass" || Point::from_gtp(best, size).is_some(),
            "{p}"
        );
        assert_eq!(p["pv"][0], p["best"], "{p}");
    }
    // E5 is on the board after the first move: the engine never suggests it later.
    assert!(positions[1..].iter().all(|p| p["best"] != "E5"));
    for m in review["results"]["mistakes"].as_array().unwrap() {
        assert!((1..=4).contains(&m["number"].as_i64().unwrap()), "{m}");
        assert!(m["loss"].as_f64().unwrap() >= 0.05, "{m}");
    }
    // Asked again (by anyone signed in), on either node: the same review, not a new one.
    let (status, again) = black.post(&path, json!({})).await.unwrap();
    assert_eq!((status, &again["status"]), (200, &json!("done")));
    assert_eq!(again["results"], review["results"]);
    let (status, _) = watcher.get("/api/games/999999/review").await.unwrap();
    assert_eq!(status, 404);
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, after) = anonymous(&running).get(&path).await.unwrap();
    assert_eq!(after, review);
    running.stop().await.unwrap();
}

/// Uploads `body` for a review.
async fn upload(c: &Client, body: &'static str) -> (u16, Value) {
    c.send(c.request(Method::POST, "/api/reviews").body(body))
        .await
        .unwrap()
}

/// Uploads `body` (owned) for a review.
async fn upload_text(c: &Client, body: String) -> (u16, Value) {
    c.send(c.request(Method::POST, "/api/reviews").body(body))
        .await
        .unwrap()
}

/// A 9×9 record of `moves` (GTP vertices, Black first) seen in one of the board's 8 symmetries (`t`: bit 0
/// transposes, bit 1 flips left and right, bit 2 top and bottom), the colours swapped when `swap`.
fn record_9x9(moves: &[&str], t: u8, swap: bool) -> String {
    let mut sgf = String::from("(;GM[1]FF[4]SZ[9]KM[7.5]");
    for (k, mv) in moves.iter().enumerate() {
        let x = u32::from(mv.as_bytes()[0] - b'A') - u32::from(mv.as_bytes()[0] > b'I');
        let y = 9 - mv[1..].parse::<u32>().unwrap();
        let (mut x, mut y) = if t & 1 == 1 { (y, x) } else { (x, y) };
        if t & 2 != 0 {
            x = 8 - x;
        }
        if t & 4 != 0 {
            y = 8 - y;
        }
        let black = (k % 2 == 0) != swap;
        let point = |v: u32| char::from(b'a' + v as u8);
        sgf.push_str(&format!(
            ";{}[{}{}]",
            if black { "B" } else { "W" },
            point(x),
            point(y)
        ));
    }
    sgf.push(')');
    sgf
}

/// No engine help in one's own game: the record of a game in play, uploaded by one of its players for a review
/// (as downloaded, in any of the board's 8 symmetries, the colours swapped, or played on a few moves), is refused
/// until the game ends; a record of another game is reviewed, and so is the same record once the game is over.
#[tokio::test]
async fn a_record_of_ones_game_in_play_is_not_reviewed_until_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    // Thirty-odd uploads at once: the rate limits are not what is tested.
    let limits = Limits {
        actions_per_second: 1000,
        records_per_minute: 6000,
        ..Limits::default()
    };
    let running = server_with(dir.path(), limits).await;
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    play_ten(&black, &white, id).await;
    let (status, downloaded) = black
        .get_text(&format!("/api/games/{id}/sgf"))
        .await
        .unwrap();
    assert_eq!(status, 200);
    for player in [&black, &white] {
        let (status, body) = upload_text(player, downloaded.clone()).await;
        assert_eq!(
            (status, &body["reason"]),
            (409, &json!("live_game_position")),
            "{body}"
        );
        assert!(
            body["error"].as_str().unwrap().contains(&id.to_string()),
            "the refusal names the game: {body}"
        );
    }
    let mut on = TEN_PLAYS.to_vec();
    on.extend(["B5", "H8", "A1"]);
    for t in 0..8 {
        for swap in [false, true] {
            for moves in [&TEN_PLAYS[..], &on[..]] {
                let record = record_9x9(moves, t, swap);
                let (status, body) = upload_text(&white, record.clone()).await;
                assert_eq!(status, 409, "{record}: {body}");
            }
        }
    }
    // Another game is reviewed.
    let other = record_9x9(&["C3", "G7", "C7", "G3", "E5", "E4"], 0, false);
    let (status, body) = upload_text(&black, other).await;
    assert_eq!(status, 200, "{body}");
    // Once the game is over, its record is.
    assert_eq!(resign(&white, id).await, 200);
    let (status, body) = upload_text(&black, downloaded).await;
    assert_eq!(status, 200, "{body}");
    running.stop().await.unwrap();
}

/// A record of one play at the `k`-th point of 9×9 (row by row from A1): a distinct file each.
fn one_play_record(k: usize) -> String {
    let column = ["A", "B", "C", "D", "E", "F", "G", "H", "J"][k % 9];
    record_9x9(&[format!("{column}{}", 1 + k / 9).as_str()], 0, false)
}

/// The name an uploaded file is kept under: the SHA-256 digest of its bytes.
fn digest_of(text: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The review queue is shared fairly (the tester's uploads queued without end): on a node that computes no
/// reviews, so that they wait, a user's fourth waiting review is refused, saying which limit, and its file is not
/// kept; another user's is taken.
#[tokio::test]
async fn a_users_reviews_wait_three_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let running = start(ServerConfig {
        computes_reviews: false,
        limits: Limits {
            actions_per_second: 1000,
            records_per_minute: 6000,
            ..Limits::default()
        },
        ..config(dir.path())
    })
    .await
    .unwrap();
    let (ann, bob) = (guest(&running, "ann").await, guest(&running, "bob").await);
    for k in 0..3 {
        let (status, body) = upload_text(&ann, one_play_record(k)).await;
        assert_eq!((status, &body["status"]), (200, &json!("queued")), "{body}");
    }
    let (status, body) = upload_text(&ann, one_play_record(3)).await;
    assert_eq!(
        (status, &body["reason"]),
        (429, &json!("review_queue")),
        "{body}"
    );
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("3 of your reviews"),
        "{body}"
    );
    let path = format!("/api/reviews/{}", digest_of(&one_play_record(3)));
    assert_eq!(ann.get(&path).await.unwrap().0, 404, "nothing kept");
    assert_eq!(upload_text(&bob, one_play_record(3)).await.0, 200);
    // A finished game's review counts the same.
    let (id, black, _) = seated(&running, "chinese:size=9").await;
    assert_eq!(resign(&black, id).await, 200);
    let (status, body) = ann
        .post(&format!("/api/games/{id}/review"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, &body["reason"]),
        (429, &json!("review_queue")),
        "{body}"
    );
    assert_eq!(
        bob.post(&format!("/api/games/{id}/review"), json!({}))
            .await
            .unwrap()
            .0,
        200
    );
    running.stop().await.unwrap();
}

/// Uploads are bounded (the tester sent 30 files of 1 MiB a minute, kept forever): 20 files a day are kept, the
/// 21st is refused, saying which limit and when it frees, and taken once it has; a file nobody opened for 30
/// days is forgotten with its review, one opened meanwhile is kept.
#[tokio::test]
async fn uploads_are_kept_twenty_a_day_and_expire_unopened() {
    const DAY: u64 = 24 * 60 * 60 * 1000;
    let dir = tempfile::tempdir().unwrap();
    let time = ManualTime::new();
    let running = start(ServerConfig {
        time: TimeSource::manual(&time),
        review_playouts: 10,
        limits: Limits {
            actions_per_second: 1000,
            records_per_minute: 6000,
            ..Limits::default()
        },
        ..config(dir.path())
    })
    .await
    .unwrap();
    let ann = guest(&running, "ann").await;
    // Each review done before the next upload: the queue's bound is not what is tested here.
    let done = |k: usize| {
        let ann = &ann;
        async move {
            let path = format!("/api/reviews/{}", digest_of(&one_play_record(k)));
            let started = std::time::Instant::now();
            loop {
                let (status, review) = ann.get(&path).await.unwrap();
                if (status, &review["status"]) == (200, &json!("done")) {
                    return;
                }
                assert!(started.elapsed().as_secs() < 60, "file {k}: {review}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    };
    for k in 0..20 {
        let (status, body) = upload_text(&ann, one_play_record(k)).await;
        assert_eq!(status, 200, "file {k}: {body}");
        done(k).await;
    }
    let (status, body) = upload_text(&ann, one_play_record(20)).await;
    assert_eq!(
        (status, &body["reason"]),
        (429, &json!("upload_quota")),
        "{body}"
    );
    let said = body["error"].as_str().unwrap();
    assert!(
        said.contains("20 files") && said.contains("in 24 h 0 min"),
        "{said}"
    );
    // The same file as one kept is not a new one.
    assert_eq!(upload_text(&ann, one_play_record(5)).await.0, 200);
    time.advance(DAY - 1000);
    assert_eq!(upload_text(&ann, one_play_record(20)).await.0, 429);
    time.advance(1000);
    assert_eq!(upload_text(&ann, one_play_record(20)).await.0, 200);
    done(20).await;

    // Day 20: file 1 is opened. Day 31: a file not opened since day 1 is gone with its review, file 1 is not.
    time.advance(10 * DAY);
    // Ann keeps her session (unused for 14 days it lapses) without opening a file.
    assert!(ann.get("/api/session").await.unwrap().1["user"].is_object());
    time.advance(9 * DAY);
    let path = |k: usize| format!("/api/reviews/{}", digest_of(&one_play_record(k)));
    assert_eq!(ann.get(&path(1)).await.unwrap().0, 200);
    assert!(ann.get("/api/session").await.unwrap().1["user"].is_object());
    time.advance(11 * DAY);
    assert_eq!(upload_text(&ann, one_play_record(40)).await.0, 200);
    assert_eq!(ann.get(&path(0)).await.unwrap().0, 404);
    assert_eq!(ann.get(&format!("{}/sgf", path(2))).await.unwrap().0, 404);
    assert_eq!(ann.get(&path(1)).await.unwrap().0, 200);
    running.stop().await.unwrap();
}

/// An uploaded SGF file is reviewed like a game: kept once under the digest of its bytes, queued, searched
/// position by position (the replay's positions), found again by anyone who uploads the same file, kept over a
/// restart; bad files and strangers are refused.
#[tokio::test]
async fn an_uploaded_record_is_reviewed_once_under_its_digest() {
    let dir = tempfile::tempdir().unwrap();
    let (running, _, black, _) = searched_game(dir.path()).await;
    // Under Japanese rules with a handicap stone set up: the review replays the file as /api/replay does.
    let text = "(;GM[1]SZ[9]RU[Japanese]KM[0.5]HA[1]AB[cc]PL[W];W[ee];B[gg];W[];B[])";
    let (status, _) = upload(&anonymous(&running), text).await;
    assert_eq!(status, 401);
    for (bad, reason) in [
        ("(;SZ[9];B[ee];W[ee])", "bad_sgf"),
        ("no record at all", "bad_sgf"),
    ] {
        let (status, body) = upload(&black, bad).await;
        assert_eq!(
            (status, body["reason"].as_str()),
            (422, Some(reason)),
            "{bad}: {body}"
        );
    }
    let (status, asked) = upload(&black, text).await;
    assert_eq!(status, 200, "{asked}");
    let id = asked["id"].as_str().unwrap().to_owned();
    // The name is the SHA-256 digest of the bytes, in lowercase hexadecimal.
    use sha2::Digest as _;
    let digest: String = sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(id, digest);
    assert_eq!(asked["playouts"], 40);
    let path = format!("/api/reviews/{id}");
    let watcher = anonymous(&running);
    let started = std::time::Instant::now();
    let review = loop {
        let (status, review) = watcher.get(&path).await.unwrap();
        assert_eq!(status, 200, "{review}");
        if review["status"] == "done" {
            break review;
        }
        assert!(
            ["queued", "running"].contains(&review["status"].as_str().unwrap()),
            "{review}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "{review}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(review["id"], id);
    // Four turns after the set-up stone: five positions, White first (the handicap), the two last passes end play.
    let positions = review["results"]["positions"].as_array().unwrap();
    let (_, replay) = watcher
        .send(watcher.request(Method::POST, "/api/replay").body(text))
        .await
        .unwrap();
    assert_eq!(
        positions.len(),
        replay["moves"].as_array().unwrap().len() + 1
    );
    assert_eq!(positions.len(), 5);
    assert_eq!(positions[0]["to_move"], "white");
    assert_eq!(positions[1]["to_move"], "black");
    assert!(
        positions[..4].iter().all(|p| p["searched"] == true),
        "{review}"
    );
    // C7 and E5 are taken: never the engine's move after them.
    assert!(
        positions[1..4]
            .iter()
            .all(|p| p["best"] != "C7" && p["best"] != "E5")
    );
    assert!(positions[0]["ownership"].as_array().unwrap().len() == 81);
    // Anyone who uploads the same file finds the review done; the file comes back byte for byte.
    let other = guest(&running, "cat").await;
    let (status, again) = upload(&other, text).await;
    assert_eq!((status, &again["status"]), (200, &json!("done")));
    assert_eq!(again["results"], review["results"]);
    // To a client that accepts gzip, the review (and a replay) comes compressed, the same JSON inside.
    for (url, plain) in [
        (path.clone(), &review),
        (format!("{path}/sgf"), &Value::Null),
    ] {
        let answer = watcher
            .request(Method::GET, &url)
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        let encoding = answer.headers().get("content-encoding").cloned();
        let body = answer.bytes().await.unwrap();
        if plain.is_null() {
            // The file itself is sent as it is.
            assert_eq!((encoding, &body[..]), (None, text.as_bytes()));
            continue;
        }
        assert_eq!(encoding.as_ref().map(|e| e.to_str().unwrap()), Some("gzip"));
        let mut json = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&body[..]), &mut json)
            .unwrap();
        assert_eq!(&serde_json::from_str::<Value>(&json).unwrap(), plain);
        assert!(
            body.len() * 2 < json.len(),
            "{} of {}",
            body.len(),
            json.len()
        );
    }
    let (status, back) = watcher.get_text(&format!("{path}/sgf")).await.unwrap();
    assert_eq!((status, back.as_str()), (200, text));
    // Unknown names, and anything that is not a digest, are not found.
    for unknown in ["0".repeat(64), "not-a-digest".to_owned(), id.to_uppercase()] {
        for suffix in ["", "/sgf"] {
            let (status, _) = watcher
                .get_text(&format!("/api/reviews/{unknown}{suffix}"))
                .await
                .unwrap();
            assert_eq!(status, 404, "{unknown}{suffix}");
        }
    }
    // A game's review and a file's are apart: game reviews still work beside it.
    running.stop().await.unwrap();
    let running = server(dir.path()).await;
    let (_, after) = anonymous(&running).get(&path).await.unwrap();
    assert_eq!(after, review);
    running.stop().await.unwrap();
}

/// A live estimate: a spectator may ask during the game, a player only once it is over; the figures are those of
/// one reviewed position (the position now, ownership and all).
#[tokio::test]
async fn spectators_get_an_estimate_during_the_game_and_players_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (running, id, black, white) = searched_game(dir.path()).await;
    let cat = guest(&running, "cat").await;
    let path = format!("/api/games/{id}/estimate");
    let (status, estimate) = cat.get(&path).await.unwrap();
    assert_eq!(status, 200, "{estimate}");
    assert_eq!(
        (estimate["turn"].as_i64(), estimate["to_move"].as_str()),
        (Some(3), Some("white"))
    );
    assert_eq!(estimate["playouts"], 40);
    assert_eq!(estimate["ownership"].as_array().unwrap().len(), 81);
    // E5 is Black's: the ownership there leans Black's way.
    let e5 = 4 * 9 + 4;
    assert!(
        estimate["ownership"][e5].as_i64().unwrap() > 0,
        "{estimate}"
    );
    for c in [&black, &white] {
        let (status, body) = c.get(&path).await.unwrap();
        assert_eq!(
            (status, body["reason"].as_str()),
            (403, Some("players_get_no_estimate"))
        );
    }
    assert_eq!(anonymous(&running).get(&path).await.unwrap().0, 401);
    assert_eq!(resign(&white, id).await, 200);
    let (status, after) = black.get(&path).await.unwrap();
    assert_eq!(status, 200, "{after}");
    // Over by resignation: the position the game ended in, searched.
    assert_eq!(
        (after["turn"].as_i64(), after["searched"].as_bool()),
        (Some(3), Some(true)),
        "{after}"
    );
    assert_eq!(after["ownership"].as_array().unwrap().len(), 81);
    // Over by two passes: the position before the second pass (the board the game ended with).
    let (id, black, white) = seated(&running, "chinese:size=9").await;
    for (c, mv) in [(&black, "E5"), (&white, "pass"), (&black, "pass")] {
        assert_eq!(c.play(id, mv).await.unwrap().0, 200);
    }
    let mut over = json!(null);
    for c in [&black, &white] {
        (_, over) = c
            .post(&format!("/api/games/{id}/accept"), json!({}))
            .await
            .unwrap();
    }
    assert_eq!(over["status"], "over", "{over}");
    let (status, ended) = black
        .get(&format!("/api/games/{id}/estimate"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{ended}");
    assert_eq!(
        (
            ended["turn"].as_i64(),
            ended["searched"].as_bool(),
            ended["to_move"].as_str()
        ),
        (Some(2), Some(true), Some("black")),
        "{ended}"
    );
    assert!(
        ended["ownership"][4 * 9 + 4].as_i64().unwrap() > 0,
        "{ended}"
    );
    running.stop().await.unwrap();
}
