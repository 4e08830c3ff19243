//! The cluster crash test: three `tesuji serve` processes on one PostgreSQL database and one NATS, games whose
//! players and spectators are spread over them, random moves from every side at once. The node that runs the
//! timers is killed with SIGKILL mid-play; its clients move to the other nodes and play on. Then every action a
//! player saw acknowledged is in the record at its number, once, in order; the spectators on the surviving
//! nodes saw every version in order; a flag that fell during the fail-over fell once, with the clock at zero;
//! the computer plays on; and the node, restarted, serves again.
//!
//! It needs the engines `cargo xtask test` starts (`TESUJI_TEST_POSTGRES`, `TESUJI_TEST_NATS`); without them it
//! fails, saying so.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tesuji_client::{Action, Client, Options, Socket};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The longest any request or socket message may take.
const STEP: Duration = Duration::from_secs(5);
/// The longest a node may take to print its address.
const START: Duration = Duration::from_secs(20);
/// Games between people, each with its players and its spectator on three different nodes.
const GAMES: usize = 6;
/// Moves each game plays before the kill, and after it.
const BEFORE: usize = 20;
const AFTER: usize = 8;

fn engine(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: the cluster test runs under `cargo xtask test`, which starts a throw-away \
             PostgreSQL and a nats-server and sets TESUJI_TEST_POSTGRES and TESUJI_TEST_NATS"
        )
    })
}

/// A `tesuji serve` node; killed when dropped.
struct Node {
    child: Child,
    base: String,
}

impl Node {
    async fn start(database: &str, nats: &str, log: &Path) -> Node {
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open the node's log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tesuji"))
            .args(["serve", "--address", "127.0.0.1:0", "--database", database])
            .args(["--nats", nats])
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .kill_on_drop(true)
            .spawn()
            .expect("start tesuji");
        let mut lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let line = tokio::time::timeout(START, lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("no address within {START:?}; log:\n{}", read(log)))
            .expect("read the node's output")
            .unwrap_or_else(|| panic!("the node exited; log:\n{}", read(log)));
        let host = line
            .strip_prefix("tesuji is serving http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .trim()
            .to_owned();
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Node {
            child,
            base: format!("http://{host}"),
        }
    }

    /// SIGKILL: no chance to give anything up.
    async fn kill(mut self) {
        self.child.start_kill().expect("kill the node");
        let status = self.child.wait().await.expect("wait for the node");
        assert!(!status.success(), "{status:?}");
    }
}

fn read(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

fn options() -> Options {
    Options {
        timeout: Some(STEP),
        message_timeout: Some(STEP),
        ..Options::default()
    }
}

async fn guest(base: &str, name: &str) -> Client {
    let mut c = Client::with_options(base, options()).unwrap();
    c.guest(name).await.unwrap();
    c
}

/// Whether the node at `base` runs the timers (`tesuji_lease_held 1`); `None` when it does not answer.
async fn runs_timers(base: &str) -> Option<bool> {
    let client = Client::with_options(base, options()).ok()?;
    let (status, text) = client.get_text("/metrics").await.ok()?;
    (status == 200).then(|| text.lines().any(|l| l == "tesuji_lease_held 1"))
}

/// The one node of `bases` that runs the timers, waiting up to `limit` for exactly one to.
async fn timer_node(bases: &[String], limit: Duration) -> usize {
    let started = Instant::now();
    loop {
        let mut holders = Vec::new();
        for (k, base) in bases.iter().enumerate() {
            if runs_timers(base).await == Some(true) {
                holders.push(k);
            }
        }
        assert!(holders.len() <= 1, "two nodes run the timers: {holders:?}");
        if let [k] = holders[..] {
            return k;
        }
        assert!(
            started.elapsed() < limit,
            "no node took the timers within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Game `id`'s state on `c` once `check` holds, waiting up to 10 s.
async fn until(c: &Client, id: i64, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        if let Ok((200, state)) = c.game(id).await
            && check(&state)
        {
            return state;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "game {id}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The empty points of a state's board, as vertices (`E5`).
fn empty_points(state: &Value) -> Vec<String> {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRST";
    let rows = state["board"].as_array().cloned().unwrap_or_default();
    let height = rows.len();
    let mut points = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.as_str().unwrap_or("").chars().enumerate() {
            if cell == '.' {
                points.push(format!("{}{}", LETTERS[c] as char, height - r));
            }
        }
    }
    points
}

/// One player of a game: a client on some node, moved to another when its node dies.
struct Seat {
    client: Client,
    node: usize,
}

/// The actions acknowledged in one game: number → move.
type Acks = Arc<Mutex<BTreeMap<u64, String>>>;

/// Which nodes are alive, as the test knows (it kills them).
type Alive = Arc<[AtomicBool; 3]>;

/// Plays `count` moves of game `id` from its two seats, each move by the player to move at the version their
/// node shows, a random empty point (another one when refused as illegal). A request that fails on a dead
/// node moves its player to the next live node. Every 200 is an acknowledged action.
async fn play(
    id: i64,
    seats: &mut [Seat; 2],
    bases: &[String],
    alive: &Alive,
    count: usize,
    acks: &Acks,
    seed: u64,
) {
    let mut rng = seed;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n.max(1) as u64) as usize
    };
    let mut played = 0;
    let started = Instant::now();
    while played < count {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "game {id} stalls"
        );
        // Whoever is to move, as the first seat's node shows (both nodes agree soon enough).
        let Ok((200, state)) = seats[0].client.game(id).await else {
            move_on(&mut seats[0], bases, alive);
            continue;
        };
        let to_move = usize::from(state["to_move"] == "white");
        let seat = &mut seats[to_move];
        let Ok((200, mine)) = seat.client.game(id).await else {
            move_on(seat, bases, alive);
            continue;
        };
        let version = mine["version"].as_u64().unwrap();
        if mine["to_move"] != state["to_move"] {
            // One node has not caught up yet.
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        }
        let points = empty_points(&mine);
        if mine["phase"] != "playing" {
            return;
        }
        let mv = if points.len() < 20 {
            "pass".to_owned()
        } else {
            points[next(points.len())].clone()
        };
        match seat.client.act(id, Action::Play(&mv), Some(version)).await {
            Ok((200, after)) => {
                let number = after["moves"]
                    .as_array()
                    .map_or(version + 1, |m| m.len() as u64);
                acks.lock().unwrap().insert(number, mv);
                played += 1;
                // Two passes end play: the game is done with.
                if after["phase"] != "playing" {
                    return;
                }
            }
            // Illegal (a random point may be suicide or a ko), or stale (another node's copy was ahead): look
            // again.
            Ok((400 | 409 | 422, _)) => {}
            Ok((status, body)) => panic!("game {id}: {mv} answered {status} {body}"),
            Err(_) => move_on(seat, bases, alive),
        }
    }
}

/// The seat's node does not answer: its player goes to the next live node, keeping their session.
fn move_on(seat: &mut Seat, bases: &[String], alive: &Alive) {
    if alive[seat.node].load(Ordering::SeqCst) {
        return;
    }
    let next = (1..bases.len())
        .map(|k| (seat.node + k) % bases.len())
        .find(|&k| alive[k].load(Ordering::SeqCst))
        .expect("a live node");
    seat.client = seat.client.at(&bases[next]).unwrap();
    seat.node = next;
}

/// What a spectator saw: the version it is at, and every step that was not the next version (should be none).
#[derive(Default)]
struct Seen {
    version: u64,
    gaps: Vec<String>,
}

/// Reads a spectator's socket until it closes: a full state sets the version (the first message, or a resync
/// after falling behind), every other event must be the next one.
fn spectate(mut ws: Socket) -> (Arc<Mutex<Seen>>, tokio::task::JoinHandle<()>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let log = Arc::clone(&seen);
    let task = tokio::spawn(async move {
        ws.set_timeout(None);
        while let Ok(m) = ws.next_json().await {
            let Some(v) = m["version"].as_u64() else {
                continue;
            };
            let mut seen = log.lock().unwrap();
            match m["type"].as_str() {
                Some("state") => seen.version = v,
                Some("presence") => {}
                _ => {
                    if v != seen.version + 1 {
                        let gap = format!("{} after {}", v, seen.version);
                        seen.gaps.push(gap);
                    }
                    seen.version = v;
                }
            }
        }
    });
    (seen, task)
}

/// One game between people.
struct Played {
    id: i64,
    /// The node of its spectator.
    spectator_node: usize,
    seen: Arc<Mutex<Seen>>,
    spectator: tokio::task::JoinHandle<()>,
    acks: Acks,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_mid_play_loses_nothing() {
    let server = engine("TESUJI_TEST_POSTGRES");
    let nats = engine("TESUJI_TEST_NATS");
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let base = server.rsplit_once('/').map_or(server.as_str(), |(b, _)| b);
    let database = format!("{base}/t_cluster_{}_{stamp}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let log = |k: usize| -> PathBuf { dir.path().join(format!("node{k}.log")) };

    let mut nodes = Vec::new();
    for k in 0..3 {
        nodes.push(Some(Node::start(&database, &nats, &log(k)).await));
    }
    let bases: Vec<String> = nodes
        .iter()
        .map(|n| n.as_ref().unwrap().base.clone())
        .collect();
    let holder = timer_node(&bases, Duration::from_secs(10)).await;
    let (n1, n2) = ((holder + 1) % 3, (holder + 2) % 3);

    // The games: players and spectator on three different nodes.
    let mut games = Vec::new();
    let mut all_seats = Vec::new();
    for g in 0..GAMES {
        let (b, w, s) = (g % 3, (g + 1) % 3, (g + 2) % 3);
        let black = guest(&bases[b], &format!("b{g}")).await;
        let white = guest(&bases[w], &format!("w{g}")).await;
        let (status, table) = black
            .create_game(json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"}))
            .await
            .unwrap();
        assert_eq!(status, 201, "{table}");
        let id = table["id"].as_i64().unwrap();
        let (status, joined) = white.join(id, None).await.unwrap();
        assert_eq!(status, 200, "{joined}");
        let watcher = Client::with_options(&bases[s], options()).unwrap();
        let (seen, spectator) = spectate(watcher.game_socket(id).await.unwrap());
        games.push(Played {
            id,
            spectator_node: s,
            seen,
            spectator,
            acks: Acks::default(),
        });
        all_seats.push([
            Seat {
                client: black,
                node: b,
            },
            Seat {
                client: white,
                node: w,
            },
        ]);
    }
    // The computer's game, its player on a node that survives.
    let human = guest(&bases[n1], "human").await;
    let (status, table) = human
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": "simple"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let bot_game = table["id"].as_i64().unwrap();
    assert_eq!(human.play(bot_game, "E5").await.unwrap().0, 200);
    until(&human, bot_game, "the computer answers", |s| {
        s["version"] == 2
    })
    .await;

    // Play on every game at once, and kill the timers' node in the middle of it.
    let alive: Alive = Arc::new([
        AtomicBool::new(true),
        AtomicBool::new(true),
        AtomicBool::new(true),
    ]);
    let killed = Arc::new(AtomicBool::new(false));
    let mut players = Vec::new();
    for (g, (game, mut seats)) in games.iter().zip(all_seats).enumerate() {
        let (id, acks, bases, alive, killed) = (
            game.id,
            Arc::clone(&game.acks),
            bases.clone(),
            Arc::clone(&alive),
            Arc::clone(&killed),
        );
        players.push(tokio::spawn(async move {
            play(id, &mut seats, &bases, &alive, BEFORE, &acks, 7 + g as u64).await;
            // A game that got through its first moves before the kill waits for it, then plays on.
            while !killed.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            play(id, &mut seats, &bases, &alive, AFTER, &acks, 99 + g as u64).await;
        }));
    }
    // The kill comes when a quarter of the first moves are played: every game is in the middle of play.
    let started = Instant::now();
    while games
        .iter()
        .map(|g| g.acks.lock().unwrap().len())
        .sum::<usize>()
        < GAMES * BEFORE / 4
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "play does not get going"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // A timed game on a surviving node whose flag falls during the fail-over: Black's clock starts with
    // White's first move and runs out 2 s later (1 s and the 1 s lag allowance).
    let ann = guest(&bases[n1], "ann").await;
    let bob = guest(&bases[n2], "bob").await;
    let (status, table) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "time": "absolute:1s"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let timed = table["id"].as_i64().unwrap();
    assert_eq!(bob.join(timed, None).await.unwrap().0, 200);
    assert_eq!(ann.play(timed, "E5").await.unwrap().0, 200);
    until(&bob, timed, "Black's move reaches B", |s| s["version"] == 2).await;
    assert_eq!(
        bob.act(timed, Action::Play("D5"), Some(2)).await.unwrap().0,
        200
    );

    let at_kill: usize = games.iter().map(|g| g.acks.lock().unwrap().len()).sum();
    alive[holder].store(false, Ordering::SeqCst);
    nodes[holder].take().unwrap().kill().await;
    killed.store(true, Ordering::SeqCst);
    let killed = Instant::now();
    let survivors = vec![bases[n1].clone(), bases[n2].clone()];
    let taker = timer_node(&survivors, Duration::from_secs(5)).await;
    let fail_over = killed.elapsed();
    eprintln!(
        "fail-over of the timers: {fail_over:?} after SIGKILL (to node {}); {at_kill} of {} moves acknowledged at the kill",
        [n1, n2][taker],
        GAMES * (BEFORE + AFTER)
    );
    // Everyone plays on, through the nodes left.
    for player in players {
        player.await.unwrap();
    }

    // Every acknowledged action is in the record at its number, once; both survivors agree.
    let reader = Client::with_options(&bases[n1], options()).unwrap();
    let other = Client::with_options(&bases[n2], options()).unwrap();
    for game in &games {
        let id = game.id;
        let acks = game.acks.lock().unwrap().clone();
        let last = *acks.keys().last().unwrap();
        let state = until(&reader, id, "the last acknowledged move", |s| {
            s["moves"]
                .as_array()
                .is_some_and(|m| m.len() as u64 >= last)
        })
        .await;
        let moves = state["moves"].as_array().unwrap();
        for (k, m) in moves.iter().enumerate() {
            assert_eq!(
                m["number"],
                k + 1,
                "game {id}: numbers in order, none twice: {moves:?}"
            );
        }
        for (number, mv) in &acks {
            assert_eq!(
                moves[*number as usize - 1]["move"],
                *mv,
                "game {id}: acknowledged move {number} {mv}: {moves:?}"
            );
        }
        let there = until(&other, id, "the other survivor agrees", |s| {
            s["version"] == state["version"]
        })
        .await;
        assert_eq!(there["moves"], state["moves"], "game {id}");
        // Its spectator, if its node survived, saw every version once, in order, up to the last.
        if game.spectator_node != holder {
            let version = state["version"].as_u64().unwrap();
            let started = Instant::now();
            while game.seen.lock().unwrap().version < version {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "game {id}: the spectator is behind"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let seen = game.seen.lock().unwrap();
            assert_eq!(seen.version, version, "game {id}");
            assert!(
                seen.gaps.is_empty(),
                "game {id}: the spectator's gaps: {:?}",
                seen.gaps
            );
        }
        game.spectator.abort();
    }

    // The flag that fell during the fail-over fell once, at zero.
    let over = until(&reader, timed, "the loss on time", |s| {
        s["status"] == "over"
    })
    .await;
    assert_eq!(over["result"], "W+T", "{over}");
    assert_eq!(over["clock"]["black"]["main_ms"], 0, "{over}");
    assert_eq!(over["clock"]["black"]["flagged"], true, "{over}");
    assert_eq!(
        over["moves"].as_array().unwrap().len(),
        3,
        "one timeout after two moves: {over}"
    );

    // The computer plays on.
    assert_eq!(
        human
            .act(bot_game, Action::Play("C3"), Some(2))
            .await
            .unwrap()
            .0,
        200
    );
    until(
        &human,
        bot_game,
        "the computer answers after the fail-over",
        |s| s["version"] == 4,
    )
    .await;

    // The killed node comes back and serves: a move made there reaches a spectator elsewhere.
    let back = Node::start(&database, &nats, &log(holder)).await;
    let health = Client::with_options(&back.base, options()).unwrap();
    let (status, body) = health.get("/healthz").await.unwrap();
    assert_eq!(
        (status, &body["checks"]["nats"]),
        (200, &json!("ok")),
        "{body}"
    );
    let mut watch = human.another().game_socket(bot_game).await.unwrap();
    watch.set_timeout(Some(STEP));
    assert_eq!(watch.next_json().await.unwrap()["type"], "state");
    let returned = human.at(&back.base).unwrap();
    let state = until(
        &returned,
        bot_game,
        "the restarted node has the game",
        |s| s["version"] == 4,
    )
    .await;
    assert_eq!(state["moves"].as_array().unwrap().len(), 4);
    assert_eq!(
        returned
            .act(bot_game, Action::Play("G7"), Some(4))
            .await
            .unwrap()
            .0,
        200
    );
    let event = watch.next_matching(|m| m["type"] == "move").await.unwrap();
    assert_eq!(event["version"], 5, "{event}");

    drop(back);
    drop(nodes);
    tesuji_server::store::postgres::drop_database(&database)
        .await
        .unwrap();
}
