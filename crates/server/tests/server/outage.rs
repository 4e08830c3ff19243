//! Outages of what the nodes depend on, with the real components: a TCP proxy the test controls
//! (`support::proxy`) stands between the nodes and NATS, or between a node and PostgreSQL, and cuts every
//! connection for a while. The database is the truth: nothing acknowledged is lost, nothing is stored twice,
//! and once the outage is over every node and every watcher shows the same moves at the same version.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tesuji_client::reqwest::Url;
use tesuji_client::{Action, Client, Socket};
use tesuji_server::{Database, Running, ServerConfig, start};

use crate::support;
use crate::support::Backend;
use crate::support::nodes::{base, guest, node_at, two_seated, until};
use crate::support::proxy::Proxy;

/// How long a node has to show what it should (a catch-up, a health check turning).
const WITHIN: Duration = Duration::from_secs(5);

/// How long the watchers have to catch up once NATS is back: its client retries at most every 4 s.
const RECONNECTED_WITHIN: Duration = Duration::from_secs(10);

/// `HOST:PORT` of a server's URL (`nats://127.0.0.1:4222`, `postgres://user@host:5432/db`).
fn host_port(url: &str, default_port: u16) -> String {
    let parsed = Url::parse(url).unwrap_or_else(|e| panic!("{url:?}: {e}"));
    let host = parsed.host_str().expect("a host in the URL");
    format!("{host}:{}", parsed.port().unwrap_or(default_port))
}

/// A node on the database of `dir` whose NATS is at `nats`.
async fn node(dir: &Path, nats: &str) -> Running {
    node_at(dir, nats).await
}

/// Two nodes on the database of `dir` whose NATS connections go through a proxy the test controls.
async fn nodes_behind_a_proxy(dir: &Path) -> (Proxy, Running, Running) {
    let proxy = Proxy::start(&host_port(&support::nats_server(), 4222)).await;
    let nats = format!("nats://{}", proxy.address());
    let a = node(dir, &nats).await;
    let b = node(dir, &nats).await;
    (proxy, a, b)
}

/// A game's moves as a state lists them: `(number, colour, move)`.
fn moves_of(state: &Value) -> Vec<(i64, String, String)> {
    state["moves"]
        .as_array()
        .unwrap_or_else(|| panic!("no moves in {state}"))
        .iter()
        .map(|m| {
            (
                m["number"].as_i64().unwrap(),
                m["color"].as_str().unwrap().to_owned(),
                m["move"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The acknowledged moves, numbered: black plays first.
fn numbered(acknowledged: &[&str]) -> Vec<(i64, String, String)> {
    acknowledged
        .iter()
        .enumerate()
        .map(|(k, mv)| {
            let color = if k % 2 == 0 { "black" } else { "white" };
            (k as i64 + 1, color.to_owned(), (*mv).to_owned())
        })
        .collect()
}

/// The rows of game `id` in the database at `url` (read there, not through any node or proxy), and the
/// action count its game row keeps.
async fn stored(url: &str, id: i64) -> (Vec<(i64, String, String)>, i64) {
    let pool = sqlx::PgPool::connect(url)
        .await
        .expect("the test reads the database");
    let rows: Vec<(i64, String, String)> =
        sqlx::query_as("SELECT number, color, move FROM moves WHERE game_id = $1 ORDER BY number")
            .bind(id)
            .fetch_all(&pool)
            .await
            .unwrap();
    let (count,): (i64,) = sqlx::query_as("SELECT move_count FROM games WHERE id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    (rows, count)
}

/// Asserts that the database at `url` holds exactly the acknowledged moves of game `id`: each once, in order.
async fn assert_stored(url: &str, id: i64, acknowledged: &[&str]) {
    let (rows, count) = stored(url, id).await;
    assert_eq!(
        rows,
        numbered(acknowledged),
        "the database's moves are the acknowledged ones, each once"
    );
    assert_eq!(
        count,
        acknowledged.len() as i64,
        "the game row's move_count"
    );
}

/// A game's socket as a page uses it: the moves of its first state, each event's action added to them. An
/// event must come at the version after the last one (a page that sees a gap resyncs: here it is a failure);
/// a whole state replaces what it had.
struct Watcher {
    who: &'static str,
    ws: Socket,
    version: u64,
    moves: Vec<String>,
    /// Every message read, for the failure messages.
    log: Vec<String>,
}

impl Watcher {
    async fn open(c: &Client, id: i64, who: &'static str) -> Watcher {
        let ws = c.game_socket(id).await.unwrap();
        let mut w = Watcher {
            who,
            ws,
            version: 0,
            moves: Vec::new(),
            log: Vec::new(),
        };
        let first = w.next(Instant::now() + WITHIN).await;
        assert_eq!(first["type"], "state", "{who}'s first message: {first}");
        w
    }

    /// Reads and applies the next message.
    async fn next(&mut self, deadline: Instant) -> Value {
        let text = match self
            .ws
            .next_text_until(Some(tokio::time::Instant::from_std(deadline)))
            .await
        {
            Ok(text) => text,
            Err(e) => panic!(
                "{}'s socket at version {} ({:?}): {e}; it read:\n{}",
                self.who,
                self.version,
                self.moves,
                self.log.join("\n")
            ),
        };
        let m: Value = serde_json::from_str(text.as_str()).unwrap();
        self.log.push(text.as_str().chars().take(200).collect());
        match m["type"].as_str() {
            Some("state") => {
                self.version = m["version"].as_u64().unwrap();
                self.moves = moves_of(&m).into_iter().map(|(_, _, mv)| mv).collect();
            }
            Some("presence") => {}
            Some(_) if m.get("version").is_some() => {
                let version = m["version"].as_u64().unwrap();
                assert_eq!(
                    version,
                    self.version + 1,
                    "{}'s socket: an event out of order after version {}: {m}",
                    self.who,
                    self.version
                );
                self.version = version;
                self.moves
                    .push(m["action"]["move"].as_str().unwrap().to_owned());
            }
            _ => {}
        }
        m
    }

    /// Reads until the socket has shown version `version`, for at most `within`.
    async fn until_version(&mut self, version: u64, within: Duration) {
        let deadline = Instant::now() + within;
        while self.version < version {
            self.next(deadline).await;
        }
    }

    /// Asks for the whole state again and reads until it comes.
    async fn resync(&mut self) -> Value {
        self.ws.resync().await.unwrap();
        let deadline = Instant::now() + WITHIN;
        loop {
            let m = self.next(deadline).await;
            if m["type"] == "state" {
                return m;
            }
        }
    }
}

/// NATS goes away between two nodes: both go on taking actions (the database decides), a player whose node
/// had not heard of the opponent's move is refused as stale and then sees it and plays; when NATS returns,
/// every node and every watcher shows the same moves, each once and in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_goes_on_while_nats_is_away_and_every_node_catches_up() {
    let began = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let Database::Postgres(database) = Backend::Postgres.database(dir.path()) else {
        unreachable!()
    };
    let (proxy, a, b) = nodes_behind_a_proxy(dir.path()).await;
    let ann = guest(&a, "ann").await;
    let bob = guest(&b, "bob").await;
    let (status, table) = ann
        .create_game(json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"}))
        .await
        .unwrap();
    assert_eq!(status, 201, "{table}");
    let id = table["id"].as_i64().unwrap();
    let path = format!("/api/games/{id}");
    until(&bob, &path, WITHIN, |_| true).await;
    let (status, joined) = bob.join(id, None).await.unwrap();
    assert_eq!(status, 200, "{joined}");
    until(&ann, &path, WITHIN, |s| s["version"] == 1).await;
    let mut ann_ws = Watcher::open(&ann, id, "Ann on A").await;
    let mut bob_ws = Watcher::open(&bob, id, "Bob on B").await;
    let mut spectator =
        Watcher::open(&Client::new(&base(&b)).unwrap(), id, "the spectator on B").await;

    // Two moves with NATS up: each node hears of the other's.
    let mut acknowledged: Vec<&str> = Vec::new();
    for (player, mv) in [(&ann, "E5"), (&bob, "C3")] {
        let version = 1 + acknowledged.len() as u64;
        until(player, &path, WITHIN, |s| s["version"] == version).await;
        let (status, body) = player
            .act(id, Action::Play(mv), Some(version))
            .await
            .unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
        acknowledged.push(mv);
    }
    for w in [&mut ann_ws, &mut bob_ws, &mut spectator] {
        w.until_version(3, WITHIN).await;
    }

    assert_eq!(
        proxy.open(),
        2,
        "each node's NATS connection goes through the proxy"
    );
    proxy.cut().await;
    let cut_at = Instant::now();
    // Ann plays on A, whose copy is current: the database takes it.
    let (status, body) = ann.act(id, Action::Play("G7"), Some(3)).await.unwrap();
    assert_eq!(status, 200, "Ann's G7 on A with NATS away: {body}");
    acknowledged.push("G7");
    // Bob plays on B at the version B shows. B has not heard of G7: its move is refused as stale (the database
    // has G7 as move 3), and then B shows G7 and takes Bob's move.
    let mut refusals = Vec::new();
    refusals.push(play_as_shown(&bob, &mut bob_ws, id, "C7", &acknowledged, "Bob on B").await);
    acknowledged.push("C7");
    // And Ann on A, which has not heard of C7.
    refusals.push(play_as_shown(&ann, &mut ann_ws, id, "G3", &acknowledged, "Ann on A").await);
    acknowledged.push("G3");
    // The database has every acknowledged move, each once.
    assert_stored(&database, id, &acknowledged).await;
    // Meanwhile the nodes' health says NATS is away.
    let (body, _) = until_health(&format!("http://{}", a.address), 503, WITHIN).await;
    assert_eq!(body["checks"]["nats"], "not connected to NATS", "{body}");
    let outage = cut_at.elapsed();

    proxy.restore();
    let restored_at = Instant::now();
    let (body, _) = until_health(&format!("http://{}", b.address), 200, RECONNECTED_WITHIN).await;
    assert_eq!(body["checks"]["nats"], "ok", "{body}");
    let last = 1 + acknowledged.len() as u64;
    for w in [&mut spectator, &mut bob_ws, &mut ann_ws] {
        w.until_version(last, RECONNECTED_WITHIN).await;
        assert_eq!(w.moves, acknowledged, "{}'s socket", w.who);
    }
    let caught_up = restored_at.elapsed();
    let on_a = until(&ann, &path, WITHIN, |s| s["version"] == last).await;
    let on_b = until(&bob, &path, WITHIN, |s| s["version"] == last).await;
    assert_eq!(moves_of(&on_a), numbered(&acknowledged), "on A: {on_a}");
    assert_eq!(moves_of(&on_b), numbered(&acknowledged), "on B: {on_b}");

    // NATS carries the notices again: Bob's move on B reaches A's socket without any resync.
    let (status, body) = bob.act(id, Action::Play("D4"), Some(last)).await.unwrap();
    assert_eq!(status, 200, "Bob's D4 on B after NATS came back: {body}");
    acknowledged.push("D4");
    ann_ws.until_version(last + 1, WITHIN).await;
    spectator.until_version(last + 1, WITHIN).await;
    assert_eq!(ann_ws.moves, acknowledged, "Ann's socket on A");
    assert_eq!(spectator.moves, acknowledged, "the spectator's socket on B");
    assert_stored(&database, id, &acknowledged).await;
    assert!(
        proxy.refused() > 0,
        "the nodes' NATS clients tried the proxy while it was cut"
    );

    eprintln!(
        "NATS away {outage:?} (refusals on the way: {refusals:?}); every watcher caught up {caught_up:?} \
         after it came back; the whole test took {:?}",
        began.elapsed()
    );
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

/// A rematch offered on one node while NATS is away, so that the relay's message to the other node is lost,
/// shows there all the same once the finished game is looked at: a look reads the features' fields of a
/// finished game held there again.
#[tokio::test]
async fn a_rematch_offered_while_nats_is_away_shows_on_the_other_node() {
    let dir = tempfile::tempdir().unwrap();
    let (proxy, a, b) = nodes_behind_a_proxy(dir.path()).await;
    let ann = guest(&a, "ann").await;
    let bob = guest(&b, "bob").await;
    let id = two_seated(
        &ann,
        &bob,
        json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"}),
    )
    .await;
    let path = format!("/api/games/{id}");
    until(&ann, &path, WITHIN, |s| s["version"] == 1).await;
    let (status, body) = ann.act(id, Action::Play("E5"), Some(1)).await.unwrap();
    assert_eq!(status, 200, "{body}");
    until(&bob, &path, WITHIN, |s| s["version"] == 2).await;
    let (status, body) = bob.act(id, Action::Resign, Some(2)).await.unwrap();
    assert_eq!(status, 200, "{body}");
    // Both nodes hold the finished game.
    until(&ann, &path, WITHIN, |s| s["status"] == "over").await;
    let (_, before) = bob.game(id).await.unwrap();
    assert_eq!(
        (&before["status"], before.get("rematch")),
        (&json!("over"), None)
    );

    proxy.cut().await;
    let (status, table) = ann
        .post(&format!("/api/games/{id}/rematch"), json!({}))
        .await
        .unwrap();
    assert_eq!(status, 200, "{table}");
    let new = table["id"].as_i64().unwrap();
    let (_, after) = bob.game(id).await.unwrap();
    assert_eq!(after["rematch"]["game"], new, "B's copy: {after}");
    assert_eq!(after["rematch"]["by"], "black", "{after}");
    assert!(after["rematch"]["invite"].is_string(), "{after}");
    proxy.restore();
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}

/// A player's move as a page makes it while its node may be behind: at the version the node shows. When it is
/// refused as stale, the player's socket resyncs until it shows every acknowledged move (the node must have
/// caught up with the database), and the move is made again at that version. `acknowledged`: the moves the
/// database holds before this one. Answers the refusal's status and reason, if there was one.
async fn play_as_shown(
    player: &Client,
    ws: &mut Watcher,
    id: i64,
    mv: &str,
    acknowledged: &[&str],
    who: &str,
) -> Option<String> {
    let truth = 1 + acknowledged.len() as u64;
    let (status, shown) = player.game(id).await.unwrap();
    assert_eq!(status, 200, "{shown}");
    let version = shown["version"].as_u64().unwrap();
    let answer = player
        .act(id, Action::Play(mv), Some(version))
        .await
        .unwrap();
    if answer.0 == 200 {
        assert_eq!(
            version, truth,
            "{who}: {mv} was accepted at version {version}, but the database is at {truth}"
        );
        return None;
    }
    assert_eq!(
        (answer.0, answer.1["reason"].as_str()),
        (409, Some("stale_version")),
        "{who}: {mv} at version {version}, the one its node showed (the database is at {truth}, \
         {acknowledged:?}), must be accepted or refused as stale; it was answered {answer:?}"
    );
    let deadline = Instant::now() + WITHIN;
    loop {
        let state = ws.resync().await;
        if state["version"] == truth {
            let shown: Vec<String> = moves_of(&state).into_iter().map(|(_, _, m)| m).collect();
            assert_eq!(shown, acknowledged, "{who}'s resync");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{who}: after {mv} was refused as stale, its resync still shows version {} of {:?}, not {truth} \
             of {acknowledged:?}",
            state["version"],
            ws.moves
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, body) = player.act(id, Action::Play(mv), Some(truth)).await.unwrap();
    assert_eq!(
        status, 200,
        "{who}: {mv} at version {truth} after its resync: {body}"
    );
    Some(format!("{} {}", answer.0, answer.1["reason"]))
}

/// `GET /healthz` of the node at `base`.
async fn health(base: &str) -> (u16, Value) {
    let response = tesuji_client::reqwest::get(format!("{base}/healthz"))
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Waits until `GET /healthz` answers `status`, for at most `within`; answers its body and how long it took.
async fn until_health(base: &str, status: u16, within: Duration) -> (Value, Duration) {
    let asked = Instant::now();
    loop {
        let (now, body) = health(base).await;
        if now == status {
            return (body, asked.elapsed());
        }
        assert!(
            asked.elapsed() < within,
            "/healthz did not turn {status} within {within:?}: {now} {body}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// PostgreSQL goes away under a node: actions are refused with 503 `store_unavailable`, the health check
/// turns 503, nothing acknowledged is lost; when it returns the game goes on from exactly the acknowledged
/// moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_are_refused_while_the_database_is_away_and_play_resumes_after() {
    let began = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let Database::Postgres(database) = Backend::Postgres.database(dir.path()) else {
        unreachable!()
    };
    let proxy = Proxy::start(&host_port(&database, 5432)).await;
    let mut proxied = Url::parse(&database).unwrap();
    proxied.set_ip_host("127.0.0.1".parse().unwrap()).unwrap();
    proxied.set_port(Some(proxy.address().port())).unwrap();
    // The node creates the database through the proxy.
    let running = start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Postgres(proxied.to_string()),
        ..ServerConfig::default()
    })
    .await
    .expect("node starts");
    let node = base(&running);
    let ann = guest(&running, "ann").await;
    let bob = guest(&running, "bob").await;
    let table = json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"});
    let id = two_seated(&ann, &bob, table).await;
    let path = format!("/api/games/{id}");
    let mut acknowledged: Vec<&str> = Vec::new();
    for (player, mv) in [(&ann, "E5"), (&bob, "C3"), (&ann, "G7")] {
        let (status, body) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv}: {body}");
        acknowledged.push(mv);
    }
    assert_eq!(health(&node).await.0, 200);
    let mut watcher = Watcher::open(&ann, id, "Ann's socket").await;
    watcher.until_version(4, WITHIN).await;
    assert!(
        proxy.open() > 0,
        "the node's database connections go through the proxy"
    );

    proxy.cut().await;
    let cut_at = Instant::now();
    // An action is refused as the database being out of reach (503, to be tried again), and changes nothing.
    let asked = Instant::now();
    let (refused_status, refused) = bob.act(id, Action::Play("C7"), Some(4)).await.unwrap();
    let refused_in = asked.elapsed();
    assert_eq!(
        (refused_status, refused["reason"].as_str()),
        (503, Some("store_unavailable")),
        "Bob's C7 with the database away: {refused}"
    );
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("database")),
        "{refused}"
    );
    let (status, state) = bob.game(id).await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["version"], 4, "{state}");
    assert_eq!(moves_of(&state), numbered(&acknowledged), "{state}");
    let (unhealthy, turned_in) = until_health(&node, 503, WITHIN).await;
    assert_eq!(unhealthy["ok"], false, "{unhealthy}");
    let why = unhealthy["checks"]["store"].as_str().unwrap_or_default();
    assert!(!why.is_empty() && why != "ok", "{unhealthy}");
    // A second try is refused alike.
    let (status, again) = bob.act(id, Action::Play("C7"), Some(4)).await.unwrap();
    assert_eq!(
        (status, &again["reason"]),
        (refused_status, &refused["reason"]),
        "{again}"
    );
    let outage = cut_at.elapsed();

    proxy.restore();
    let (healthy, healed_in) = until_health(&node, 200, WITHIN).await;
    assert_eq!(healthy, json!({"ok": true, "checks": {"store": "ok"}}));
    // The game goes on from exactly the acknowledged moves.
    for (player, mv) in [(&bob, "C7"), (&ann, "G3")] {
        let version = 1 + acknowledged.len() as u64;
        let (status, body) = player
            .act(id, Action::Play(mv), Some(version))
            .await
            .unwrap();
        assert_eq!(status, 200, "{mv} after the database came back: {body}");
        acknowledged.push(mv);
    }
    let last = 1 + acknowledged.len() as u64;
    let state = until(&ann, &path, WITHIN, |_| true).await;
    assert_eq!(state["version"], last, "{state}");
    // The socket heard of each accepted move once, in order, and of nothing refused.
    watcher.until_version(last, WITHIN).await;
    assert_eq!(watcher.moves, acknowledged, "Ann's socket");
    assert_eq!(moves_of(&state), numbered(&acknowledged), "{state}");
    assert_stored(&database, id, &acknowledged).await;
    running.stop().await.unwrap();
    // A node started afresh on the database, without the proxy, replays the same game.
    let fresh = start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Postgres(database.clone()),
        ..ServerConfig::default()
    })
    .await
    .expect("node starts");
    let replayed = until(&Client::new(&base(&fresh)).unwrap(), &path, WITHIN, |_| {
        true
    })
    .await;
    assert_eq!(moves_of(&replayed), numbered(&acknowledged), "{replayed}");
    fresh.stop().await.unwrap();

    eprintln!(
        "database away {outage:?}: an action refused in {refused_in:?} with {} {refused}; /healthz 503 in \
         {turned_in:?} ({why}); 200 again {healed_in:?} after it came back; the whole test took {:?}",
        refused_status,
        began.elapsed()
    );
}

/// A node's notice carries the action it committed: another node whose copy lacks only that action applies it
/// without reading the database, so its watchers see the moves even while its own database connection is cut
/// (and, with it whole, one round trip sooner).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notice_brings_its_move_to_a_node_cut_from_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let Database::Postgres(database) = Backend::Postgres.database(dir.path()) else {
        unreachable!()
    };
    let nats = support::nats_server();
    // Node A is on the database directly and creates it; node B reaches it through the proxy only.
    let a = node(dir.path(), &nats).await;
    let proxy = Proxy::start(&host_port(&database, 5432)).await;
    let mut proxied = Url::parse(&database).unwrap();
    proxied.set_ip_host("127.0.0.1".parse().unwrap()).unwrap();
    proxied.set_port(Some(proxy.address().port())).unwrap();
    let b = start(ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Postgres(proxied.to_string()),
        nats: Some(nats.clone()),
        ..ServerConfig::default()
    })
    .await
    .expect("node B starts");
    let ann = guest(&a, "ann").await;
    let bob = guest(&a, "bob").await;
    let table = json!({"rules": "chinese:size=9", "color": "black", "opponent": "anyone"});
    let id = two_seated(&ann, &bob, table).await;
    let cat = guest(&b, "cat").await;
    let mut watcher = Watcher::open(&cat, id, "Cat's socket on B").await;
    watcher.until_version(1, WITHIN).await;

    proxy.cut().await;
    let mut acknowledged: Vec<&str> = Vec::new();
    for (player, mv) in [(&ann, "E5"), (&bob, "C3"), (&ann, "G7"), (&bob, "pass")] {
        let (status, body) = player.play(id, mv).await.unwrap();
        assert_eq!(status, 200, "{mv} on A: {body}");
        acknowledged.push(mv);
        watcher
            .until_version(1 + acknowledged.len() as u64, WITHIN)
            .await;
    }
    assert_eq!(watcher.moves, acknowledged, "Cat's socket on B");
    proxy.restore();
    a.stop().await.unwrap();
    b.stop().await.unwrap();
}
