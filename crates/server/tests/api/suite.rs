//! The server over real sockets: a site (one server, or two nodes) bound to port 0 on a fresh database per
//! test, of the kind `TESUJI_TEST_BACKEND` names (`crate::backend()`, see tests/api.rs).

use std::path::Path;

use serde_json::{Value, json};
use tesuji_client::reqwest::Method;
use tesuji_client::{Client, SocketOptions};
use tesuji_rules::{Color, Game, Move, Point, Rules};
use tesuji_server::{Limits, ManualTime, ServerConfig, ServerError, TimeSource};

use crate::support::site::Site;

// The tests, one file per area.
mod accounts;
mod chat;
mod clocks;
mod finished;
mod games;
mod limits;
mod lobby;
mod marking;
mod news;
mod players;
mod ratings;
mod rematch;
mod reviews;
mod rules;
mod seeks;
mod sessions;
mod undo;
mod vacations;
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

/// The entry of game `id` in a listing's array `list` (`open`, `playing`, `games`).
fn entry_of(listing: &Value, list: &str, id: &Value) -> Value {
    listing[list]
        .as_array()
        .and_then(|games| games.iter().find(|g| &g["id"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("game {id} is not in {list}: {listing}"))
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

const DAY_MS: u64 = 86_400_000;

/// A new browser signed up as account `name`: its client and its user id.
async fn account(running: &Site, name: &str) -> (Client, i64) {
    let mut c = anonymous(running);
    let id = c.sign_up(name, "a long password").await.unwrap().user.id;
    (c, id)
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

/// Posts `{}` to `path` of game `id` (`undo`, `undo/accept`, `undo/decline`): the status and the answer.
async fn undo_step(c: &Client, id: i64, path: &str) -> (u16, Value) {
    c.post(&format!("/api/games/{id}/{path}"), json!({}))
        .await
        .unwrap()
}

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
