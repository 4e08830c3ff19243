//! Several nodes serving one site: two servers on one PostgreSQL database, telling each other their changes
//! over NATS, with players and spectators on different nodes.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tesuji_client::{Action, Client, Socket};
use tesuji_server::{Running, ServerConfig, start};

use crate::support;
use crate::support::Backend;
use crate::support::nodes::{base, guest, node_at, node_config, two_seated};

/// A node of the cluster whose database belongs to `dir`.
async fn node(dir: &Path) -> Running {
    node_at(dir, &support::nats_server()).await
}

/// A node of the cluster whose database belongs to `dir`, with a grace period of `grace_ms`.
async fn node_with(dir: &Path, grace_ms: u64) -> Running {
    start(ServerConfig {
        grace_ms,
        ..node_config(dir, &support::nats_server())
    })
    .await
    .expect("node starts")
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
    support::nodes::until(c, path, Duration::from_secs(5), check).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_on_two_nodes_play_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let a = node(dir.path()).await;
    let b = node(dir.path()).await;
    let ann = guest(&a, "ann").await;
    let bob = guest(&b, "bob").await;
    // A node of several checks its NATS connection too.
    let (status, health) = ann.get("/healthz").await.unwrap();
    assert_eq!(status, 200, "{health}");
    assert_eq!(health["checks"], json!({"store": "ok", "nats": "ok"}));

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
    // Play ended on B (Bob's second pass after Ann's): both nodes show the marking phase with the estimate's
    // first proposal (a commit of its own after the pass: a node may show the phase a moment before it).
    let proposed = |s: &Value| {
        s["status"] == "marking"
            && s["moves"]
                .as_array()
                .and_then(|m| m.last())
                .is_some_and(|m| m["by"] == "server")
    };
    let on_a = until(&ann, &format!("/api/games/{id}"), proposed).await;
    let on_b = until(&bob, &format!("/api/games/{id}"), proposed).await;
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
        let table = json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"});
        let id = two_seated(&ann, &bob, table).await;
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

/// A node on a runtime of its own, which the test can drop at once, as if the process died: its tasks stop
/// mid-flight, its connections close, and nothing is given up (the timers' lease stays in the database until
/// it lapses).
struct Crashable {
    base: String,
    crash: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Crashable {
    fn start(dir: &Path) -> Crashable {
        let database = Backend::Postgres.database(dir);
        let (address, at) = std::sync::mpsc::channel();
        let (crash, crashed) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            let running = runtime
                .block_on(start(ServerConfig {
                    address: "127.0.0.1:0".parse().unwrap(),
                    database,
                    nats: Some(support::nats_server()),
                    ..ServerConfig::default()
                }))
                .expect("node starts");
            address.send(running.address).unwrap();
            let _ = crashed.recv();
            runtime.shutdown_background();
            drop(running);
        });
        let address = at.recv().expect("the node's address");
        Crashable {
            base: format!("http://{address}"),
            crash,
            thread,
        }
    }

    fn crash(self) {
        self.crash.send(()).unwrap();
        self.thread.join().unwrap();
    }
}

/// Whether the node at `base` says it runs the timers (its `tesuji_lease_held` gauge).
async fn runs_timers(base: &str) -> bool {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("tesuji_lease_held "))
        .unwrap_or_else(|| panic!("no tesuji_lease_held in\n{text}"));
    line.ends_with(" 1")
}

/// Waits until the node at `base` runs the timers; answers how long that took. Fails after `limit`.
async fn until_runs_timers(base: &str, limit: Duration) -> Duration {
    let started = std::time::Instant::now();
    while !runs_timers(base).await {
        assert!(
            started.elapsed() < limit,
            "{base} did not take the timers over within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    started.elapsed()
}

/// The timers run on one node. When it dies, another takes them over within five seconds; a flag that fell
/// while nobody ran them falls then, once, with the clock at zero; the computer plays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timers_move_to_another_node_when_theirs_dies() {
    let dir = tempfile::tempdir().unwrap();
    let a = Crashable::start(dir.path());
    until_runs_timers(&a.base, Duration::from_secs(5)).await;
    let b = node(dir.path()).await;
    let b_base = base(&b);
    // B asks for the lease every second: for a while, it never gets it while A holds it.
    for _ in 0..15 {
        assert!(runs_timers(&a.base).await && !runs_timers(&b_base).await);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Everyone plays on B; the timers of their games run on A.
    let ann = guest(&b, "ann").await;
    let bob = guest(&b, "bob").await;
    let (status, table) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "opponent": "bot", "bot": "simple"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let bot_game = table["id"].as_i64().unwrap();
    assert_eq!(ann.play(bot_game, "E5").await.unwrap().0, 200);
    // A made the computer's answer.
    until(&ann, &format!("/api/games/{bot_game}"), |s| {
        s["version"].as_u64() == Some(2)
    })
    .await;

    let table = json!({"rules": "chinese:size=9", "color": "black", "time": "absolute:1s"});
    let timed = two_seated(&ann, &bob, table).await;
    assert_eq!(ann.play(timed, "E5").await.unwrap().0, 200);
    assert_eq!(bob.play(timed, "D5").await.unwrap().0, 200);
    // Black's clock runs now: it falls 2 s from here (1 s and the 1 s lag allowance).
    let clock_started = std::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(300)).await;
    a.crash();
    let crashed = std::time::Instant::now();
    let fail_over = until_runs_timers(&b_base, Duration::from_secs(5)).await;
    // A renewed its lease at most a second before it died, for three: the flag fell before B took over.
    assert!(
        clock_started.elapsed() > Duration::from_secs(2),
        "B took the timers over {fail_over:?} after the crash, before the flag fell"
    );
    let over = until(&ann, &format!("/api/games/{timed}"), |s| {
        s["status"] == "over"
    })
    .await;
    assert_eq!(over["result"], "W+T", "{over}");
    assert_eq!(over["clock"]["black"]["main_ms"], 0, "{over}");
    assert_eq!(over["clock"]["black"]["flagged"], true, "{over}");
    let moves: Vec<&str> = over["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(moves.len(), 3, "one loss on time after two moves: {over}");
    assert!(
        crashed.elapsed() < Duration::from_secs(6),
        "the flag fell {:?} after the crash",
        crashed.elapsed()
    );
    eprintln!("fail-over of the timers: {fail_over:?} after the crash");

    // The computer plays on, now from B.
    assert_eq!(ann.play(bot_game, "C3").await.unwrap().0, 200);
    until(&ann, &format!("/api/games/{bot_game}"), |s| {
        s["version"].as_u64() == Some(4)
    })
    .await;
    b.stop().await.unwrap();
}

/// A player whose socket is open on one node is at the board on every node: the opponent on another node
/// cannot claim the game, and hears when the socket closes; then the grace period runs everywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_is_at_the_board_is_known_on_every_node() {
    let dir = tempfile::tempdir().unwrap();
    let grace = Duration::from_millis(1500);
    let a = node_with(dir.path(), 1500).await;
    let b = node_with(dir.path(), 1500).await;
    let ann = guest(&a, "ann").await;
    let bob = guest(&b, "bob").await;
    let (status, table) = ann
        .create_game(
            json!({"rules": "chinese:size=9", "color": "black", "time": "fischer:10m+10s"}),
        )
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    let mut ann_ws = socket(&ann, id).await;
    until(&bob, &format!("/api/games/{id}"), |_| true).await;
    assert_eq!(bob.join(id, None).await.unwrap().0, 200);
    let mut bob_ws = socket(&bob, id).await;
    until(&ann, &format!("/api/games/{id}"), |s| s["version"] == 1).await;
    assert_eq!(
        ann.act(id, Action::Play("E5"), Some(1)).await.unwrap().0,
        200
    );
    // Neither is away on either node (Bob's node learns of Ann's socket on A, and A of Bob's).
    for (c, node) in [(&ann, "A"), (&bob, "B")] {
        let state = until(c, &format!("/api/games/{id}"), |s| {
            s["version"] == 2 && s["absent"].as_array().is_some_and(Vec::is_empty)
        })
        .await;
        assert_eq!(state["absent"], json!([]), "on {node}: {state}");
    }
    // Long past the grace period, Bob on B still cannot claim: Ann is at the board on A.
    tokio::time::sleep(grace + Duration::from_millis(500)).await;
    let (status, body) = bob
        .post(&format!("/api/games/{id}/claim"), json!({}))
        .await
        .unwrap();
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("opponent_present")),
        "{body}"
    );

    // What Bob's socket heard so far (Ann's arrival, as B learned of it) is read first.
    bob_ws.set_timeout(Some(Duration::from_millis(300)));
    while bob_ws.next_json().await.is_ok() {}
    bob_ws.set_timeout(Some(Duration::from_secs(10)));

    // Ann's socket on A closes: Bob's socket on B hears that she is away.
    let left = std::time::Instant::now();
    ann_ws.close().await.unwrap();
    let away = bob_ws
        .next_matching(|m| m["type"] == "presence")
        .await
        .unwrap();
    assert_eq!(away["state"]["absent"][0]["color"], "black", "{away}");
    // The claim opens after the grace period, on B as on A, and not before.
    loop {
        let (status, body) = bob
            .post(&format!("/api/games/{id}/claim"), json!({}))
            .await
            .unwrap();
        if status == 200 {
            assert!(
                left.elapsed() >= grace,
                "claimed {:?} after Ann left",
                left.elapsed()
            );
            assert_eq!(body["result"], "W+F", "{body}");
            break;
        }
        assert_eq!(
            (status, body["reason"].as_str()),
            (409, Some("grace_not_over")),
            "{body}"
        );
        assert!(
            left.elapsed() < grace * 3,
            "no claim {:?} after Ann left",
            left.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(bob_ws);
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

/// A client may move between nodes at any time: what one node acknowledged, the next node shows and builds
/// on at once, without waiting for the notice (read-your-writes across nodes). B hears NATS 300 ms late here,
/// so no notice can come first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_changes_nodes_sees_their_last_move() {
    let dir = tempfile::tempdir().unwrap();
    let nats = support::nats_server();
    let target = nats.trim_start_matches("nats://").to_owned();
    let slow =
        support::proxy::Proxy::lagging(&target, support::proxy::Lag(Duration::from_millis(300)))
            .await;
    let a = node(dir.path()).await;
    let b = start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Backend::Postgres.database(dir.path()),
        nats: Some(format!("nats://{}", slow.address())),
        ..ServerConfig::default()
    })
    .await
    .expect("node starts");
    let (a_base, b_base) = (base(&a), base(&b));
    let ann = guest(&a, "ann").await;
    let bob = guest(&b, "bob").await;
    let table = json!({"rules": "chinese:size=19", "color": "black", "opponent": "anyone"});
    let id = two_seated(&ann, &bob, table).await;
    // Each player plays on one node, then looks on the other; every other move is played on B just after one on
    // A, with no version: it is judged against the database's position, not B's copy.
    let players = [(&ann, "black"), (&bob, "white")];
    for k in 0..12 {
        let (player, color) = players[k % 2];
        let (node, other) = if k % 2 == 0 {
            (&a_base, &b_base)
        } else {
            (&b_base, &a_base)
        };
        let here = player.at(node).unwrap();
        let mv = format!("{}{}", ["C", "D", "E", "F", "G"][k % 5], 3 + k / 5);
        let (status, body) = here.play(id, &mv).await.unwrap();
        assert_eq!(status, 200, "{color} {mv} on {node}: {body}");
        let (_, state) = player.at(other).unwrap().game(id).await.unwrap();
        assert_eq!(
            state["move_count"],
            k + 1,
            "{mv}, looked at on the other node: {state}"
        );
    }
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

/// A move caught up from another node is charged the time stored with it, not the time this node saw pass
/// before the notice came: after every move both nodes show the same clocks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clocks_agree_on_every_node_after_each_move() {
    let dir = tempfile::tempdir().unwrap();
    let time = tesuji_server::ManualTime::new();
    let nats = support::nats_server();
    // A hears NATS 300 ms late: it learns of B's moves only when a look makes it read the store.
    let slow = support::proxy::Proxy::lagging(
        nats.trim_start_matches("nats://"),
        support::proxy::Lag(Duration::from_millis(300)),
    )
    .await;
    let config = |nats: String| ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Backend::Postgres.database(dir.path()),
        nats: Some(nats),
        time: tesuji_server::TimeSource::manual(&time),
        ..ServerConfig::default()
    };
    let a = start(config(format!("nats://{}", slow.address())))
        .await
        .unwrap();
    let b = start(config(nats.clone())).await.unwrap();
    let ann = guest(&a, "ann").await;
    let bob = guest(&b, "bob").await;
    let table = json!({"rules": "chinese:size=9", "color": "black", "time": "absolute:10m"});
    let id = two_seated(&ann, &bob, table).await;
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    // B has Ann's move (its look reads the store) before any time passes: White's turn runs from here on both.
    until(&bob, &format!("/api/games/{id}"), |s| s["version"] == 2).await;
    time.advance(1_000);
    assert_eq!(bob.play(id, "D5").await.unwrap().0, 200);
    // Time passes before A hears of Bob's move.
    time.advance(700);
    let on_a = until(&ann, &format!("/api/games/{id}"), |s| s["version"] == 3).await;
    let on_b = until(&bob, &format!("/api/games/{id}"), |s| s["version"] == 3).await;
    let clock = |s: &Value, c: &str| s["clock"][c]["main_ms"].as_u64().unwrap();
    assert_eq!(clock(&on_b, "white"), 599_000, "{on_b}");
    assert_eq!(
        clock(&on_a, "white"),
        clock(&on_b, "white"),
        "White's time on A: {on_a}"
    );
    assert_eq!(
        clock(&on_a, "black"),
        clock(&on_b, "black"),
        "Black's time on A: {on_a}"
    );
    assert_eq!(clock(&on_a, "black"), 599_300, "{on_a}");
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

/// A node that starts while another runs the site (it holds the timers) takes each clock as it runs there: the
/// turn in progress has run since the last move, not since the node read the game. A site that was down as a
/// whole starts the turn again when its first node returns (no clock runs while nobody serves), on every node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_joins_a_running_site_shows_the_clocks_as_they_run() {
    let dir = tempfile::tempdir().unwrap();
    let time = tesuji_server::ManualTime::new();
    let config = ServerConfig {
        time: tesuji_server::TimeSource::manual(&time),
        ..node_config(dir.path(), &support::nats_server())
    };
    let a = start(config.clone()).await.unwrap();
    until_runs_timers(&base(&a), Duration::from_secs(5)).await;
    let ann = guest(&a, "ann").await;
    let bob = guest(&a, "bob").await;
    let table = json!({"rules": "chinese:size=9", "color": "black", "time": "absolute:10m"});
    let id = two_seated(&ann, &bob, table).await;
    assert_eq!(ann.play(id, "E5").await.unwrap().0, 200);
    time.advance(20_000);
    assert_eq!(bob.play(id, "D5").await.unwrap().0, 200);
    time.advance(7_000);
    // B starts now, 7 s into Black's turn.
    let b = start(config.clone()).await.unwrap();
    let path = format!("/api/games/{id}");
    let clock = |s: &Value, c: &str| s["clock"][c]["main_ms"].as_u64().unwrap();
    let both_show = async |nodes: [&Running; 2], black: u64| {
        for node in nodes {
            let (_, state) = Client::new(&base(node)).unwrap().game(id).await.unwrap();
            assert_eq!(
                (clock(&state, "black"), clock(&state, "white")),
                (black, 580_000),
                "{} {path}: {state}",
                base(node)
            );
        }
    };
    both_show([&a, &b], 593_000).await;
    // The whole site goes down for a minute: no clock runs meanwhile, and Black's turn starts again when the
    // first node comes back; the second, joining a running site, starts it there too, not at the move.
    a.stop().await.unwrap();
    b.stop().await.unwrap();
    time.advance(60_000);
    let b = start(config.clone()).await.unwrap();
    until_runs_timers(&base(&b), Duration::from_secs(5)).await;
    time.advance(2_000);
    let a = start(config).await.unwrap();
    time.advance(3_000);
    both_show([&a, &b], 595_000).await;
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}
