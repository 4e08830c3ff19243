//! The crash test: the real `tesuji` binary is killed with SIGKILL while games are being played, restarted on the
//! same data directory, and nothing it acknowledged may be lost. Every action a player saw acknowledged (HTTP 200,
//! a WebSocket `ack`) or broadcast (a WebSocket event) must be there after the restart at its number, the position
//! must be exactly what replaying the stored actions through the rules gives, sessions must still work, and play
//! must continue (a ko retake is still refused).
//!
//! Eight 9×9 games (Japanese, Chinese, Tromp-Taylor and AGA rules) are played from scripts checked in advance
//! with the rules crate: six random games that keep playing until the kill, one game that waits on a fresh ko
//! capture, and one that waits in its dead-stone phase (a proposal, a dispute, an acceptance), at the first and
//! the last of three kills; the second kill comes soon after a restart, with every game in flight. In every game
//! one player acts over HTTP and the other over the game's WebSocket.

#![cfg(unix)]

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tesuji_client::{Action, Client, Options, Socket};
use tesuji_rules::{Color, Game, Illegal, Move, Phase, Point, Rules};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::Notify;

/// The longest any single request, answer or socket message may take.
const STEP: Duration = Duration::from_secs(5);
/// The longest the server may take to print its address.
const START: Duration = Duration::from_secs(20);
/// The longest one phase of play may take.
const PHASE: Duration = Duration::from_secs(30);
/// When to kill in each phase: after this many acknowledged actions, and whether the scripted games must first
/// wait at their stops (a ko just taken, a dead-stone proposal). The second kill comes soon after a restart, with
/// whatever the scripted games are doing in flight too.
const KILL_AFTER: [(usize, bool); 3] = [(30, true), (6, false), (45, true)];
/// Actions every random game plays after the last restart.
const FINAL_STEPS: usize = 4;
/// The most actions a random game plays before a kill (it waits there if the kill is late), so that a slow
/// scripted game cannot make the random games run out of their script.
const RANDOM_PER_PHASE: usize = 80;

// ---- the server process ----

/// The `tesuji` server as a child process; killed when dropped, so that a failing test leaves nothing behind.
struct Server {
    child: Child,
    net: Net,
}

/// How to reach one started server.
#[derive(Clone)]
struct Net {
    /// A user agent without a session, on connections of this server's own.
    client: Client,
    /// Set just before the kill: from then on a request that fails was simply not acknowledged.
    killed: Arc<AtomicBool>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

fn read_log(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

impl Server {
    /// Starts `tesuji serve` on a port of its choosing, reads the address it prints, and waits until it answers.
    async fn start(data: &Path, log: &Path) -> Server {
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open the server log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_tesuji"))
            .arg("serve")
            // The script plays every marking step itself; the estimate's proposal would be a step it cannot know.
            .arg("--no-first-proposal")
            .arg("--address")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(data)
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
            .unwrap_or_else(|_| {
                panic!(
                    "tesuji printed no address within {START:?}; its log:\n{}",
                    read_log(log)
                )
            })
            .expect("read the server's output")
            .unwrap_or_else(|| panic!("tesuji exited before serving; its log:\n{}", read_log(log)));
        let host = line
            .strip_prefix("tesuji is serving http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .trim()
            .to_owned();
        // Keep reading, so that the server never writes into a closed pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let options = Options {
            timeout: Some(STEP),
            message_timeout: Some(STEP),
            ..Options::default()
        };
        let server = Server {
            child,
            net: Net {
                // A new client per server: no pooled connection to a killed one is ever reused.
                client: Client::with_options(&format!("http://{host}"), options).unwrap(),
                killed: Arc::new(AtomicBool::new(false)),
            },
        };
        server.wait_ready(log).await;
        server
    }

    /// Polls `GET /api/lobby` until it answers 200.
    async fn wait_ready(&self, log: &Path) {
        let deadline = Instant::now() + START;
        loop {
            let answer =
                tokio::time::timeout(Duration::from_secs(1), self.net.client.get("/api/lobby"))
                    .await;
            if let Ok(Ok((200, _))) = answer {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the server never answered /api/lobby; its log:\n{}",
                read_log(log)
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// SIGKILL: no shutdown, no checkpoint, no flush. Checks that it was the signal that ended the process.
    async fn kill(mut self) {
        self.net.killed.store(true, Ordering::SeqCst);
        self.child.start_kill().expect("send SIGKILL");
        let status = tokio::time::timeout(STEP, self.child.wait())
            .await
            .expect("the server dies at once")
            .expect("wait for the server");
        assert_eq!(
            status.signal(),
            Some(9),
            "the server ended by itself before the kill: {status:?}"
        );
    }
}

impl Net {
    fn killed(&self) -> bool {
        self.killed.load(Ordering::SeqCst)
    }

    /// A player (a guest signed in on some earlier server: its cookie jar and CSRF token) on this server.
    fn at(&self, player: &Client) -> Client {
        player.at(self.client.base()).expect("the server's URL")
    }

    /// `GET /api/games/{id}` on a server that must be up.
    async fn state(&self, id: i64) -> Value {
        let (status, state) = self
            .client
            .game(id)
            .await
            .unwrap_or_else(|e| panic!("GET game {id}: {e}"));
        assert_eq!(status, 200, "GET game {id}: {state}");
        // Who is away from the board is not stored: it starts again at every restart (docs/API.md), and an
        // untimed game lists the player it waits for.
        let mut state = state;
        if let Some(o) = state.as_object_mut() {
            o.remove("absent");
        }
        state
    }

    /// A new guest: its own cookie jar, and the session cookie and CSRF token kept across restarts.
    async fn guest(&self, name: &str) -> Client {
        let mut player = self.client.another();
        let session = player.guest(name).await.expect("guest");
        let cookie = session.set_cookie.as_deref().unwrap_or_default();
        assert!(cookie.starts_with("tesuji_session="), "{cookie}");
        player
    }
}

// ---- scripts: the actions of each game, checked in advance with the rules crate ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Play(Move),
    /// Marking: toggle the chain at the point.
    Dead(Point),
    Accept,
    Dispute,
}

#[derive(Clone, Debug)]
struct Step {
    color: Color,
    act: Act,
    /// The point or move as sent (`D4`, `pass`); empty for accept and dispute.
    wire: String,
    /// The action as the server stores and shows it (`D4`, `pass`, `mark C3 C4`, `accept`, `dispute`).
    text: String,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn apply(game: &mut Game, step: &Step) -> Result<(), Illegal> {
    match step.act {
        Act::Play(mv) => game.play(step.color, mv).map(|_| ()),
        Act::Dead(p) => game.toggle_dead(step.color, p),
        Act::Accept => game.accept(step.color),
        Act::Dispute => game.dispute(step.color),
    }
}

/// Writes a script while playing it on a rules-crate game, so that every step is known to be legal.
struct Builder {
    rules: Rules,
    game: Game,
    steps: Vec<Step>,
    stops: Vec<usize>,
    /// xorshift64 state, for the random games.
    rng: u64,
    /// (actions played, colour, point): a retake refused as ko right after that many actions.
    ko_checks: Vec<(usize, Color, &'static str)>,
}

impl Builder {
    fn new(spec: &str, seed: u64) -> Builder {
        let rules: Rules = spec.parse().expect("a rules spec");
        Builder {
            rules,
            game: Game::new(rules).expect("a game"),
            steps: Vec::new(),
            stops: Vec::new(),
            rng: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            ko_checks: Vec::new(),
        }
    }

    fn point(&self, text: &str) -> Point {
        Point::from_gtp(text, self.rules.size).unwrap_or_else(|| panic!("bad point {text}"))
    }

    fn step(&mut self, color: Color, act: Act) -> &mut Builder {
        let size = self.rules.size;
        let wire = match act {
            Act::Play(Move::Pass) => "pass".to_owned(),
            Act::Play(Move::Play(p)) | Act::Dead(p) => p.to_gtp(size),
            Act::Accept | Act::Dispute => String::new(),
        };
        let mut step = Step {
            color,
            act,
            wire: wire.clone(),
            text: String::new(),
        };
        apply(&mut self.game, &step)
            .unwrap_or_else(|e| panic!("script step {}: {step:?}: {e}", self.steps.len() + 1));
        step.text = match act {
            Act::Play(_) => wire,
            Act::Dead(_) => {
                let mut t = "mark".to_owned();
                for p in self.game.dead_stones() {
                    t.push(' ');
                    t.push_str(&p.to_gtp(size));
                }
                t
            }
            Act::Accept => "accept".to_owned(),
            Act::Dispute => "dispute".to_owned(),
        };
        self.steps.push(step);
        self
    }

    /// Plays `moves` (`"B:D4 W:pass ..."`).
    fn plays(&mut self, moves: &str) -> &mut Builder {
        for m in moves.split_whitespace() {
            let (c, text) = m.split_once(':').expect("COLOUR:MOVE");
            let color = if c == "B" { Color::Black } else { Color::White };
            let mv = if text == "pass" {
                Move::Pass
            } else {
                Move::Play(self.point(text))
            };
            self.step(color, Act::Play(mv));
        }
        self
    }

    fn dead(&mut self, color: Color, point: &str) -> &mut Builder {
        let p = self.point(point);
        self.step(color, Act::Dead(p))
    }

    fn phase(&mut self, phase: Phase) -> &mut Builder {
        assert_eq!(self.game.phase(), phase, "script phase");
        self
    }

    /// The driver stops here in the next phase of the test.
    fn stop(&mut self) -> &mut Builder {
        self.stops.push(self.steps.len());
        self
    }

    /// After the moves so far, `color` may not retake at `point` (ko).
    fn ko(&mut self, color: Color, point: &'static str) -> &mut Builder {
        let p = self.point(point);
        assert!(
            matches!(self.game.check(color, Move::Play(p)), Err(Illegal::Ko(_))),
            "the script's ko at {point}"
        );
        self.ko_checks.push((self.steps.len(), color, point));
        self
    }

    /// `n` random plays, or a pass where no play is left (never an action that ends the game), so a random game
    /// can run as long as the driver wants.
    fn random(&mut self, n: usize) -> &mut Builder {
        for _ in 0..n {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            let color = self.game.to_move();
            let plays: Vec<Point> = self.game.legal_plays();
            let start = (self.rng % plays.len().max(1) as u64) as usize;
            let goes_on = |m: Move| {
                let mut g = self.game.clone();
                g.play(color, m).is_ok() && g.phase() == Phase::Playing
            };
            let chosen = (0..plays.len())
                .map(|j| Move::Play(plays[(start + j) % plays.len()]))
                .chain([Move::Pass])
                .find(|&m| goes_on(m))
                .unwrap_or_else(|| {
                    panic!(
                        "{}: no play keeps the game going after {} steps:\n{}",
                        self.rules,
                        self.steps.len(),
                        self.game.grid()
                    )
                });
            self.step(color, Act::Play(chosen));
        }
        self
    }
}

/// The ko of the server's own tests: after these, Black E4 captures D4 and White may not retake at once.
const KO_SETUP: &str = "B:C4 W:D4 B:D5 W:E5 B:D3 W:E3 B:A1 W:F4";

/// A Japanese game that stops on a ko capture before every kill.
fn ko_script() -> Builder {
    let mut b = Builder::new("japanese:size=9", 1);
    b.plays(KO_SETUP)
        .plays("B:E4")
        .ko(Color::White, "D4")
        .stop();
    // A threat, an answer, and White retakes: now Black may not retake.
    b.plays("W:G7 B:C7 W:D4").ko(Color::Black, "E4").stop();
    b.plays("B:G3 W:C6 B:E4").ko(Color::White, "D4").stop();
    b.random(FINAL_STEPS).stop();
    b
}

/// An AGA game that waits in its dead-stone phase at each of its stops: a proposal; a dispute, play, a new
/// proposal and one acceptance; a changed proposal and one acceptance; after the last restart the other
/// acceptance ends it.
fn marking_script() -> Builder {
    let mut b = Builder::new("aga:size=9", 2);
    b.plays("B:E5 W:C3 B:E4 W:G7 B:pass W:pass")
        .phase(Phase::Marking)
        .dead(Color::Black, "G7")
        .stop();
    b.step(Color::White, Act::Dispute)
        .phase(Phase::Playing)
        .plays("B:D6 W:G6 B:pass W:pass")
        .phase(Phase::Marking)
        .dead(Color::White, "E5")
        .step(Color::Black, Act::Accept)
        .stop();
    b.dead(Color::White, "G6")
        .step(Color::Black, Act::Accept)
        .phase(Phase::Marking)
        .stop();
    b.step(Color::White, Act::Accept).phase(Phase::Over).stop();
    b
}

// ---- the games and the players' tasks ----

struct Table {
    id: i64,
    rules: Rules,
    steps: Vec<Step>,
    /// Where the driver stops in each phase; empty for a random game (it plays on until the kill, or [`RANDOM_PER_PHASE`] actions).
    stops: Vec<usize>,
    ko_checks: Vec<(usize, Color, &'static str)>,
    /// The players as signed in on the first server; [`Net::at`] the current one.
    black: Client,
    white: Client,
    /// This player acts over the WebSocket, the other over HTTP.
    ws_color: Color,
}

impl Table {
    fn player(&self, c: Color) -> &Client {
        match c {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    /// Where the driver stops in phase `phase`, starting from `from` actions.
    fn stop(&self, phase: usize, from: usize) -> usize {
        match self.stops.get(phase) {
            Some(&s) => s,
            None if phase == KILL_AFTER.len() => (from + FINAL_STEPS).min(self.steps.len()),
            None => (from + RANDOM_PER_PHASE).min(self.steps.len()),
        }
    }

    /// The move list entry of step `k` as the server shows it.
    fn move_json(&self, k: usize) -> Value {
        let s = &self.steps[k];
        json!({"number": k + 1, "color": color_name(s.color), "move": s.text})
    }
}

/// What the monitor of a phase watches.
#[derive(Default)]
struct Progress {
    acked: AtomicUsize,
    /// Per table: its driver reached its stop.
    idle: Vec<AtomicBool>,
    failed: AtomicBool,
    notify: Notify,
}

/// Raises `failed` when a driver panics, so that the monitor stops waiting at once.
struct FailFlag(Arc<Progress>);

impl Drop for FailFlag {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.failed.store(true, Ordering::SeqCst);
            self.0.notify.notify_one();
        }
    }
}

/// What one game's driver saw in one phase.
#[derive(Debug, Default)]
struct Outcome {
    /// (action number, version) of every acknowledged action, in order.
    acked: Vec<(usize, u64)>,
    /// The script index of the action sent but never answered (the server died with it in flight).
    unanswered: Option<usize>,
    /// Every event the WebSocket player received: (version, action number, colour, text).
    events: Vec<(u64, i64, String, String)>,
}

enum Answer {
    Acked(u64),
    RateLimited,
    /// No answer: the server is gone (or did not answer in time).
    Gone(String),
}

impl Step {
    /// The action as the client sends it.
    fn action(&self) -> Action<'_> {
        match self.act {
            Act::Play(_) => Action::Play(&self.wire),
            Act::Dead(_) => Action::Dead(&self.wire),
            Act::Accept => Action::Accept,
            Act::Dispute => Action::Dispute,
        }
    }
}

/// Step `k` over HTTP, by `player` (on the current server), at the version it was decided at.
async fn http_act(player: &Client, table: &Table, k: usize) -> Answer {
    let step = &table.steps[k];
    let answer = player
        .act(table.id, step.action(), Some(1 + k as u64))
        .await;
    match answer {
        Err(e) => Answer::Gone(e.to_string()),
        Ok((200, state)) => {
            assert_eq!(
                state["moves"][k],
                table.move_json(k),
                "game {}: the answer to step {k}",
                table.id
            );
            Answer::Acked(state["version"].as_u64().expect("a version"))
        }
        Ok((429, _)) => Answer::RateLimited,
        Ok((status, body)) => panic!(
            "game {}: step {k} {step:?} refused with {status}: {body}",
            table.id
        ),
    }
}

/// Step `k` over the game's socket, at the version it was decided at, with `ref` `k`.
async fn ws_act(
    ws: &mut Socket,
    table: &Table,
    k: usize,
    events: &mut Vec<(u64, i64, String, String)>,
) -> Answer {
    let step = &table.steps[k];
    if let Err(e) = ws.act(step.action(), Some(1 + k as u64), k).await {
        return Answer::Gone(e.to_string());
    }
    loop {
        let m = match ws.next_json().await {
            Ok(m) => m,
            Err(e) => return Answer::Gone(e.to_string()),
        };
        match m["type"].as_str() {
            Some("ack") => {
                assert_eq!(m["ref"], k, "game {}: {m}", table.id);
                return Answer::Acked(m["version"].as_u64().expect("a version"));
            }
            Some("error") => {
                assert_eq!(m["ref"], k, "game {}: {m}", table.id);
                if m["reason"] == "rate_limited" {
                    return Answer::RateLimited;
                }
                panic!("game {}: step {k} {step:?} refused: {m}", table.id);
            }
            Some("move" | "mark" | "accept" | "dispute" | "resign") => events.push((
                m["version"].as_u64().expect("a version"),
                m["action"]["number"].as_i64().expect("a number"),
                m["action"]["color"].as_str().expect("a colour").to_owned(),
                m["action"]["move"].as_str().expect("a move").to_owned(),
            )),
            // Someone came to the board or left it: no action.
            Some("presence") => {}
            _ => panic!("game {}: unexpected message {m}", table.id),
        }
    }
}

/// Plays a table's script from action `from` up to `stop`, one action at a time at the version it was decided
/// at, until it reaches `stop` or the server is killed.
async fn drive(
    net: Net,
    table: Arc<Table>,
    index: usize,
    from: usize,
    stop: usize,
    progress: Arc<Progress>,
) -> Outcome {
    let _flag = FailFlag(progress.clone());
    let mut out = Outcome::default();
    let gone = |why: &str, k: Option<usize>| {
        assert!(
            net.killed(),
            "game {}: step {k:?}: the server went away before the kill: {why}",
            table.id
        );
    };
    // Both players on this server, over connections of their own.
    let (black, white) = (net.at(&table.black), net.at(&table.white));
    let player = |c: Color| if c == Color::Black { &black } else { &white };
    let mut ws = match player(table.ws_color).game_socket(table.id).await {
        Ok(ws) => ws,
        Err(e) => {
            gone(&e.to_string(), None);
            return out;
        }
    };
    match ws.next_json().await {
        Ok(first) => {
            assert_eq!(first["type"], "state", "game {}", table.id);
            assert_eq!(first["version"], 1 + from, "game {}", table.id);
        }
        Err(e) => {
            gone(&e.to_string(), None);
            return out;
        }
    }
    for k in from..stop {
        out.unanswered = Some(k);
        let mut tries = 0;
        let answer = loop {
            let answer = if table.steps[k].color == table.ws_color {
                ws_act(&mut ws, &table, k, &mut out.events).await
            } else {
                http_act(player(table.steps[k].color), &table, k).await
            };
            if !matches!(answer, Answer::RateLimited) {
                break answer;
            }
            tries += 1;
            assert!(tries < 200, "game {}: rate limited for good", table.id);
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        match answer {
            Answer::Acked(version) => {
                assert_eq!(version, 2 + k as u64, "game {}: step {k}", table.id);
                out.acked.push((k + 1, version));
                progress.acked.fetch_add(1, Ordering::SeqCst);
                progress.notify.notify_one();
            }
            Answer::Gone(e) => {
                gone(&e, Some(k));
                return out;
            }
            Answer::RateLimited => unreachable!(),
        }
    }
    out.unanswered = None;
    progress.idle[index].store(true, Ordering::SeqCst);
    progress.notify.notify_one();
    out
}

// ---- checks ----

/// The fields of a game's state that replaying `steps` determines, as the server should show them.
fn expected_view(rules: Rules, steps: &[Step]) -> Value {
    let mut game = Game::new(rules).unwrap();
    for (k, s) in steps.iter().enumerate() {
        apply(&mut game, s).unwrap_or_else(|e| panic!("replay step {k}: {e}"));
    }
    let size = rules.size;
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let grid = game.grid();
    // Rows from the top (row 9) down, read through GTP names so that the layout is the documented one.
    let board: Vec<String> = (0..size.height())
        .map(|r| {
            (0..size.width())
                .map(|x| {
                    let name = format!("{}{}", LETTERS[usize::from(x)] as char, size.height() - r);
                    match grid.get(Point::from_gtp(&name, size).unwrap()) {
                        None => '.',
                        Some(Color::Black) => 'X',
                        Some(Color::White) => 'O',
                    }
                })
                .collect()
        })
        .collect();
    let pair =
        |v: [u32; 2]| json!({"black": v[Color::Black.index()], "white": v[Color::White.index()]});
    let phase = match game.phase() {
        Phase::Playing => "playing",
        Phase::Marking => "marking",
        Phase::Over => "over",
    };
    let last_move = match steps.last() {
        Some(Step {
            act: Act::Play(Move::Play(_)),
            text,
            ..
        }) => json!(text),
        _ => Value::Null,
    };
    let result = game.result();
    let score = match result.and_then(|r| r.score.as_ref()) {
        Some(s) => json!({"margin": s.margin(), "black": s.black.total, "white": s.white.total}),
        None => Value::Null,
    };
    let moves: Vec<Value> = steps
        .iter()
        .enumerate()
        .map(|(k, s)| json!({"number": k + 1, "color": color_name(s.color), "move": s.text}))
        .collect();
    json!({
        "status": phase,
        "phase": phase,
        "board": board,
        "moves": moves,
        "last_move": last_move,
        "to_move": color_name(game.to_move()),
        "captures": pair(game.captures()),
        "pass_stones": pair(game.pass_stones()),
        "dead": game.dead_stones().iter().map(|p| p.to_gtp(size)).collect::<Vec<_>>(),
        "accepted": {
            "black": game.acceptances()[Color::Black.index()],
            "white": game.acceptances()[Color::White.index()],
        },
        "result": result.map(|r| r.to_string()),
        "score": score,
        "version": 1 + steps.len(),
    })
}

/// The same fields of the server's state.
fn shown_view(state: &Value) -> Value {
    let mut view = json!({});
    for key in [
        "status",
        "phase",
        "board",
        "moves",
        "last_move",
        "to_move",
        "captures",
        "pass_stones",
        "dead",
        "accepted",
        "result",
        "version",
    ] {
        view[key] = state[key].clone();
    }
    view["score"] = if state["score"].is_null() {
        Value::Null
    } else {
        json!({
            "margin": state["score"]["margin"],
            "black": state["score"]["black"]["total"],
            "white": state["score"]["white"]["total"],
        })
    };
    view
}

/// Checks a game's state right after a restart against what its players saw before the kill; answers how many
/// actions the game now has.
fn check_after_restart(
    table: &Table,
    state: &Value,
    from: usize,
    outcome: &Outcome,
    acked_all: &[(usize, u64)],
    events_all: &[(u64, i64, String, String)],
) -> usize {
    let id = table.id;
    let moves = state["moves"].as_array().expect("moves").len();
    // Every action acknowledged in this phase is there; the one in flight at the kill may or may not be.
    let acked = from + outcome.acked.len();
    assert!(
        moves >= acked,
        "game {id}: {acked} actions acknowledged, only {moves} after the restart: acknowledged actions are lost"
    );
    match outcome.unanswered {
        Some(k) => {
            assert_eq!(
                k, acked,
                "game {id}: the unanswered action follows the acknowledged ones"
            );
            assert!(
                moves == acked || moves == acked + 1,
                "game {id}: {moves} actions after the restart, {acked} acknowledged, one in flight"
            );
        }
        None => assert_eq!(moves, acked, "game {id}: nothing was in flight"),
    }
    for (k, &(number, version)) in outcome.acked.iter().enumerate() {
        assert_eq!(number, from + k + 1, "game {id}: acknowledged in order");
        assert_eq!(version, number as u64 + 1, "game {id}");
    }
    // Everything acknowledged or broadcast since the start is still there, at its number.
    for &(number, version) in acked_all {
        assert!(
            number <= moves,
            "game {id}: acknowledged action {number} is lost"
        );
        assert_eq!(
            state["moves"][number - 1],
            table.move_json(number - 1),
            "game {id}"
        );
        assert!(state["version"].as_u64().unwrap() >= version, "game {id}");
    }
    for (version, number, color, text) in events_all {
        let n = usize::try_from(*number).expect("a positive number");
        assert!(
            (1..=moves).contains(&n),
            "game {id}: broadcast action {number} ({color} {text}) is lost"
        );
        assert_eq!(*version, n as u64 + 1, "game {id}: event version");
        assert_eq!(
            json!({"number": number, "color": color, "move": text}),
            table.move_json(n - 1),
            "game {id}: broadcast action {number}"
        );
    }
    // The whole state is what replaying the stored actions gives: board, prisoners, turn, phase, proposal...
    assert_eq!(
        shown_view(state),
        expected_view(table.rules, &table.steps[..moves]),
        "game {id} after the restart"
    );
    assert_eq!(state["rules"], table.rules.to_string(), "game {id}");
    for (color, player) in [("black", &table.black), ("white", &table.white)] {
        assert_eq!(
            state["players"][color]["id"],
            player.user_id().expect("signed in"),
            "game {id}"
        );
    }
    moves
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_mid_game_loses_nothing_acknowledged() {
    let started = Instant::now();
    let data = tempfile::tempdir().unwrap();
    let log: PathBuf = data.path().join("server.log");
    let db = data.path().join("db");
    let mut server = Server::start(&db, &log).await;

    // Eight games: a ko game, a marking game and six random games, on four presets.
    let mut scripts = vec![
        ko_script(),
        marking_script(),
        Builder::new("chinese:size=9", 3),
        Builder::new("tromp-taylor:size=9", 4),
        Builder::new("japanese:size=9", 5),
        Builder::new("aga:size=9", 6),
        Builder::new("chinese:size=9", 7),
        Builder::new("tromp-taylor:size=9", 8),
    ];
    for b in &mut scripts[2..] {
        b.random(400);
    }
    let mut tables = Vec::new();
    for (k, b) in scripts.into_iter().enumerate() {
        let net = &server.net;
        let black = net.guest(&format!("b{k}")).await;
        let white = net.guest(&format!("w{k}")).await;
        let (status, created) = black
            .create_game(
                json!({"rules": b.rules.to_string(), "color": "black", "opponent": "anyone"}),
            )
            .await
            .unwrap();
        assert_eq!(status, 201, "{created}");
        let id = created["id"].as_i64().unwrap();
        let (status, joined) = white.join(id, None).await.unwrap();
        assert_eq!(status, 200, "{joined}");
        assert_eq!(joined["status"], "playing");
        assert_eq!(joined["version"], 1);
        assert_eq!(joined["rules"], b.rules.to_string());
        tables.push(Arc::new(Table {
            id,
            rules: b.rules,
            steps: b.steps,
            stops: b.stops,
            ko_checks: b.ko_checks,
            black,
            white,
            ws_color: if k % 2 == 0 {
                Color::White
            } else {
                Color::Black
            },
        }));
    }
    let mut counts = vec![0usize; tables.len()];
    let mut ko_checked = 0;
    let mut acked_all: Vec<Vec<(usize, u64)>> = vec![Vec::new(); tables.len()];
    let mut events_all: Vec<Vec<(u64, i64, String, String)>> = vec![Vec::new(); tables.len()];

    for phase in 0..=KILL_AFTER.len() {
        let kill = KILL_AFTER.get(phase).copied();
        let progress = Arc::new(Progress {
            idle: tables.iter().map(|_| AtomicBool::new(false)).collect(),
            ..Progress::default()
        });
        let mut handles = Vec::new();
        for (k, t) in tables.iter().enumerate() {
            let stop = t.stop(phase, counts[k]);
            assert!(stop >= counts[k], "game {}: the script ran out", t.id);
            handles.push(tokio::spawn(drive(
                server.net.clone(),
                t.clone(),
                k,
                counts[k],
                stop,
                progress.clone(),
            )));
        }
        let phase_start = Instant::now();
        let mut before_kill = vec![None; tables.len()];
        if let Some((enough, wait_for_scripts)) = kill {
            // Kill once enough actions were acknowledged (and the scripted games wait at their stops).
            let deadline = Instant::now() + PHASE;
            let ready = || {
                progress.acked.load(Ordering::SeqCst) >= enough
                    && (!wait_for_scripts
                        || tables.iter().enumerate().all(|(k, t)| {
                            t.stops.is_empty() || progress.idle[k].load(Ordering::SeqCst)
                        }))
            };
            while !ready() && !progress.failed.load(Ordering::SeqCst) && Instant::now() < deadline {
                let _ =
                    tokio::time::timeout(Duration::from_millis(100), progress.notify.notified())
                        .await;
            }
            let on_time = ready();
            // Idle games cannot change: their state just before the kill must come back exactly.
            if on_time {
                for (k, t) in tables.iter().enumerate() {
                    if progress.idle[k].load(Ordering::SeqCst) {
                        before_kill[k] = Some(server.net.state(t.id).await);
                    }
                }
            }
            server.kill().await;
            let outcomes = join_all(handles).await;
            assert!(
                on_time,
                "phase {phase}: only {} acknowledged actions in {PHASE:?}",
                progress.acked.load(Ordering::SeqCst)
            );

            server = Server::start(&db, &log).await;
            let net = server.net.clone();
            let (mut in_flight, mut committed) = (0, 0);
            for (k, t) in tables.iter().enumerate() {
                let outcome = &outcomes[k];
                acked_all[k].extend(outcome.acked.iter().copied());
                events_all[k].extend(outcome.events.iter().cloned());
                let state = net.state(t.id).await;
                let moves = check_after_restart(
                    t,
                    &state,
                    counts[k],
                    outcome,
                    &acked_all[k],
                    &events_all[k],
                );
                if outcome.unanswered.is_some() {
                    in_flight += 1;
                    committed += usize::from(moves > counts[k] + outcome.acked.len());
                }
                if let Some(before) = &before_kill[k] {
                    assert_eq!(&state, before, "game {}: idle across the kill", t.id);
                }
                // The ko is still a ko: the rebuilt game has its history, not only its position.
                for &(at, color, point) in &t.ko_checks {
                    if at == moves {
                        let (status, body) =
                            net.at(t.player(color)).play(t.id, point).await.unwrap();
                        assert_eq!(
                            (status, body["reason"].as_str()),
                            (422, Some("ko")),
                            "game {}: {body}",
                            t.id
                        );
                        assert_eq!(
                            net.state(t.id).await,
                            state,
                            "game {}: a refusal changes nothing",
                            t.id
                        );
                        ko_checked += 1;
                    }
                }
                counts[k] = moves;
            }
            // Sessions survive: the same cookie names the same user with the same CSRF token.
            for t in &tables {
                for p in [&t.black, &t.white] {
                    let (status, session) = net.at(p).get("/api/session").await.unwrap();
                    assert_eq!(status, 200);
                    assert_eq!(session["user"]["id"], p.user_id().unwrap(), "{session}");
                    assert_eq!(session["csrf"], p.csrf().unwrap(), "{session}");
                }
            }
            eprintln!(
                "kill {}: {} actions acknowledged in {:?}; {in_flight} in flight at the kill, {committed} of them \
                 committed",
                phase + 1,
                progress.acked.load(Ordering::SeqCst),
                phase_start.elapsed()
            );
            assert!(
                tables
                    .iter()
                    .enumerate()
                    .any(|(k, _)| !outcomes[k].acked.is_empty()),
                "phase {phase}: games were being played"
            );
        } else {
            // After the last restart every game plays on to its stop with the same sessions.
            let outcomes = join_all(handles).await;
            for (k, t) in tables.iter().enumerate() {
                let stop = t.stop(phase, counts[k]);
                assert!(stop > counts[k], "game {}: something to play", t.id);
                assert_eq!(outcomes[k].unanswered, None, "game {}", t.id);
                assert_eq!(outcomes[k].acked.len(), stop - counts[k], "game {}", t.id);
                let state = server.net.state(t.id).await;
                assert_eq!(
                    shown_view(&state),
                    expected_view(t.rules, &t.steps[..stop]),
                    "game {} at the end",
                    t.id
                );
            }
            // The marking game was counted; the ko was tested after (at least) the first and last kills.
            assert_eq!(server.net.state(tables[1].id).await["status"], "over");
            assert!(ko_checked >= 2, "{ko_checked} ko retakes tried");
        }
    }
    // Killed right after the last games ended: every game comes back the same, the finished ones read from
    // their rows and moves, and the archive lists the counted game with its result.
    let mut before = Vec::new();
    for t in &tables {
        before.push(server.net.state(t.id).await);
    }
    server.kill().await;
    let server = Server::start(&db, &log).await;
    for (t, before) in tables.iter().zip(&before) {
        assert_eq!(
            &server.net.state(t.id).await,
            before,
            "game {} after the last kill",
            t.id
        );
    }
    let (status, archive) = server.net.client.get("/api/archive").await.unwrap();
    assert_eq!(status, 200, "{archive}");
    let listed: Vec<(i64, Value)> = archive["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["id"].as_i64().unwrap(), g["result"].clone()))
        .collect();
    for (t, before) in tables.iter().zip(&before) {
        let finished = before["status"] == "over";
        let entry = listed.iter().find(|(id, _)| *id == t.id);
        assert_eq!(
            entry.is_some(),
            finished,
            "game {} in the archive: {archive}",
            t.id
        );
        if let Some((_, result)) = entry {
            assert_eq!(result, &before["result"], "game {}", t.id);
        }
    }
    eprintln!("the crash test took {:?}", started.elapsed());
}

/// Waits for every driver, passing on a driver's panic as it was.
async fn join_all(handles: Vec<tokio::task::JoinHandle<Outcome>>) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for h in handles {
        match tokio::time::timeout(PHASE, h).await {
            Ok(Ok(o)) => outcomes.push(o),
            Ok(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Ok(Err(e)) => panic!("a driver failed: {e}"),
            Err(_) => panic!("a driver did not finish in {PHASE:?}"),
        }
    }
    outcomes
}
