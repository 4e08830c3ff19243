//! `tesuji bench store`: fills a data directory with finished games and measures a server started on it. The
//! games are real and legal (random plays that leave a player's own eyes alone, on 9×9, 13×13 and 19×19 under
//! four rulesets, ended by a resignation at a random length or by two passes and the count), played by the
//! rules crate and written straight into the store, many games per transaction; only the games missing from
//! the directory are added, so a large directory is filled once. Then `tesuji serve` is started on it as its own
//! process, and the bench reports how long it took to answer, its resident memory at idle, and the time of
//! `GET`s of random old games (state, SGF, replay) and of listing pages deep in the history.

use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use tesuji_rules::{Action, Color, Game, Move, Phase, Rules};
use tesuji_server::store::sqlite::SqliteStore;
use tesuji_server::store::{
    AccountStore, Ending, GameStore, ImportedGame, Seats, SiteStore, StoredMove,
};

use crate::{BenchError, fail, quantile_ms};

/// What to run.
#[derive(Clone, Debug)]
pub struct StoreBenchConfig {
    /// The data directory to fill and serve (kept afterwards).
    pub data_dir: PathBuf,
    /// How many finished games the directory should hold; the missing ones are added.
    pub games: u64,
    /// How many live games (19×19, 200 moves, in play) it should hold; the server replays them at start.
    pub live: u64,
    /// Requests timed of each kind.
    pub samples: usize,
    pub seed: u64,
    /// The `tesuji` binary that serves the directory.
    pub server: PathBuf,
}

/// Players the generated games are shared among.
const PLAYERS: usize = 1_000;
/// Games written per transaction.
const BATCH: usize = 500;
/// The rulesets of the generated games.
const RULESETS: [&str; 4] = ["chinese", "japanese", "tromp-taylor", "aga"];
const SIZES: [u8; 3] = [9, 13, 19];
/// A listing page as the bench asks for it.
const PAGE: usize = 50;
/// The turns of each live game.
const LIVE_TURNS: usize = 200;

/// What a run measured.
#[derive(Clone, Debug, Default)]
pub struct StoreReport {
    pub games_before: i64,
    pub games_added: u64,
    /// Live games in the directory, and how many of them were added.
    pub live: u64,
    pub live_added: u64,
    pub actions_added: u64,
    pub fill_time: Duration,
    /// From starting the server to its first answer.
    pub start: Duration,
    /// The server's resident memory in KiB: idle after its start, and after the timed requests.
    pub rss_idle: Option<u64>,
    pub rss_after: Option<u64>,
    /// Per kind of request: its name and the times in microseconds, sorted.
    pub timings: Vec<(&'static str, Vec<u32>)>,
    /// Requests that did not answer 200.
    pub failures: u64,
    pub failure_samples: Vec<String>,
}

impl fmt::Display for StoreReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.games_before + i64::try_from(self.games_added).unwrap_or(i64::MAX);
        writeln!(
            f,
            "store: {total} games ({} there before, {} added with {} actions in {:.1} s)",
            self.games_before,
            self.games_added,
            self.actions_added,
            self.fill_time.as_secs_f64()
        )?;
        writeln!(
            f,
            "live: {} games in play (19x19, {LIVE_TURNS} moves each; {} added), replayed at start",
            self.live, self.live_added
        )?;
        writeln!(
            f,
            "start: answering after {:.0} ms",
            self.start.as_secs_f64() * 1000.0
        )?;
        let mib =
            |k: Option<u64>| k.map_or("?".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0));
        writeln!(
            f,
            "resident memory: {} MiB idle after the start, {} MiB after the requests",
            mib(self.rss_idle),
            mib(self.rss_after)
        )?;
        for (kind, times) in &self.timings {
            let q = |p| quantile_ms(times, p).map_or("?".to_owned(), |v| format!("{v:.2}"));
            writeln!(
                f,
                "{kind:<12} n={:<6} p50 {} ms  p90 {} ms  p99 {} ms  max {} ms",
                times.len(),
                q(0.5),
                q(0.9),
                q(0.99),
                q(1.0)
            )?;
        }
        if self.failures > 0 {
            writeln!(f, "failed requests: {}", self.failures)?;
            for s in &self.failure_samples {
                writeln!(f, "  {s}")?;
            }
        }
        Ok(())
    }
}

/// The rules of the generated games: every ruleset at every size.
fn rulesets() -> Result<Vec<Rules>, BenchError> {
    let mut all = Vec::new();
    for name in RULESETS {
        for size in SIZES {
            let spec = format!("{name}:size={size}");
            all.push(spec.parse().map_err(|e| fail(format!("{spec}: {e}")))?);
        }
    }
    Ok(all)
}

/// Two different players drawn from `players` (at least two), seated as after a join.
fn two_players(rng: &mut Pcg64Mcg, players: &[i64]) -> Seats {
    let k = rng.random_range(0..players.len());
    // Any other player: an offset of 1 to len - 1.
    let other = (k + rng.random_range(1..players.len().max(2))) % players.len();
    Seats {
        black: Some(players[k]),
        white: Some(players[other]),
        opponent: "anyone".to_owned(),
        joined: true,
        ..Seats::default()
    }
}

/// The stored form of a turn: `D4` or `pass`, numbered and coloured.
fn turn(number: usize, color: Color, mv: Move, size: tesuji_rules::Size) -> StoredMove {
    StoredMove {
        number: i64::try_from(number).unwrap_or(i64::MAX),
        color: color.name().to_owned(),
        text: Action::Turn(color, mv).text(size),
        spent_ms: None,
        lag_ms: None,
        at_ms: None,
    }
}

/// A legal random game under one of `rulesets`, played to its end by the rules crate.
fn random_game(
    rng: &mut Pcg64Mcg,
    rulesets: &[Rules],
    players: &[i64],
    created: i64,
) -> Result<ImportedGame, BenchError> {
    let rules = rulesets[rng.random_range(0..rulesets.len())];
    let mut game = Game::new(rules).map_err(|e| fail(format!("{rules}: {e}")))?;
    let size = rules.size;
    let area = size.area();
    // Turns before a resignation, when two passes have not ended play first.
    let length = rng.random_range(10..=area * 3 / 2);
    let mut moves = Vec::new();
    let mut push = |color: Color, text: String| {
        let number = i64::try_from(moves.len() + 1).unwrap_or(i64::MAX);
        moves.push(StoredMove {
            number,
            color: color.name().to_owned(),
            text,
            spent_ms: None,
            lag_ms: None,
            at_ms: None,
        });
    };
    let mut turns = 0;
    while game.phase() != Phase::Over && turns < area * 3 {
        let color = game.to_move();
        match game.phase() {
            Phase::Playing if turns >= length => {
                if game.resign(color).is_ok() {
                    push(color, "resign".to_owned());
                }
                break;
            }
            Phase::Playing => {
                let mv = random_move(&game, color, rng);
                if game.play(color, mv).is_err() {
                    continue;
                }
                push(color, Action::Turn(color, mv).text(size));
                turns += 1;
            }
            // Both accept the count with every stone alive.
            Phase::Marking => {
                for c in [Color::Black, Color::White] {
                    if game.accept(c).is_ok() {
                        push(c, "accept".to_owned());
                    }
                }
                if game.phase() == Phase::Marking {
                    break;
                }
            }
            Phase::Over => {}
        }
    }
    if game.phase() != Phase::Over {
        let color = game.to_move();
        if game.resign(color).is_ok() {
            push(color, "resign".to_owned());
        }
    }
    let count = i64::try_from(moves.len()).unwrap_or(0);
    Ok(ImportedGame {
        rules: game.rules().to_string(),
        created,
        state: "over".to_owned(),
        seats: two_players(rng, players),
        time_control: None,
        moves,
        ending: Some(Ending {
            result: game.result().map(|r| r.to_string()),
            ended: created + 5 * count,
            moves: i64::try_from(
                game.log()
                    .iter()
                    .filter(|a| matches!(a, tesuji_rules::Action::Turn(..)))
                    .count(),
            )
            .unwrap_or(0),
        }),
    })
}

/// A 19×19 game in play after `LIVE_TURNS` random plays (`None` when play ended before).
fn live_game(
    rng: &mut Pcg64Mcg,
    players: &[i64],
    created: i64,
) -> Result<Option<ImportedGame>, BenchError> {
    let rules: Rules = "chinese:size=19".parse().map_err(fail)?;
    let mut game = Game::new(rules).map_err(fail)?;
    let mut moves = Vec::with_capacity(LIVE_TURNS);
    for number in 1..=LIVE_TURNS {
        let color = game.to_move();
        let mv = random_move(&game, color, rng);
        if game.play(color, mv).is_err() || game.phase() != Phase::Playing {
            return Ok(None);
        }
        moves.push(turn(number, color, mv, rules.size));
    }
    Ok(Some(ImportedGame {
        rules: rules.to_string(),
        created,
        state: "playing".to_owned(),
        seats: two_players(rng, players),
        time_control: None,
        moves,
        ending: None,
    }))
}

/// Adds the missing live games, one batch at a time.
async fn fill_live(
    store: &SqliteStore,
    config: &StoreBenchConfig,
    players: &[i64],
    live: u64,
    report: &mut StoreReport,
) -> Result<(), BenchError> {
    let mut rng = Pcg64Mcg::seed_from_u64(config.seed ^ 0x11FE ^ live);
    let mut added = 0;
    while live + added < config.live {
        let mut batch = Vec::new();
        while batch.len() < BATCH && live + added + (batch.len() as u64) < config.live {
            if let Some(game) = live_game(&mut rng, players, now())? {
                batch.push(game);
            }
        }
        store.import_games(&batch).await.map_err(fail)?;
        added += batch.len() as u64;
    }
    report.live = live + added;
    report.live_added = added;
    Ok(())
}

/// A random legal play that does not fill the player's own eye (an empty point whose neighbours are all the
/// player's stones or the edge), or a pass when a few tries find none.
fn random_move(game: &Game, color: Color, rng: &mut Pcg64Mcg) -> Move {
    let board = game.board();
    let empty = board.empty_points();
    for _ in 0..24 {
        if empty.is_empty() {
            break;
        }
        let i = usize::from(empty[rng.random_range(0..empty.len())]);
        let own_eye = board.neighbors(i).iter().all(|&n| {
            board.color_at(n) == Some(color)
                || (!board.is_empty_at(n) && board.color_at(n).is_none())
        });
        if own_eye {
            continue;
        }
        let mv = Move::Play(board.point(i));
        if game.check(color, mv).is_ok() {
            return mv;
        }
    }
    Move::Pass
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0))
}

/// The bench's players, made on the first run: guests with a fixed name each, found again by it.
async fn players(store: &SqliteStore) -> Result<Vec<i64>, BenchError> {
    let mut ids = Vec::with_capacity(PLAYERS);
    for k in 0..PLAYERS {
        let name = format!("bench-player-{k}");
        let id = match store.find_account(&name).await.map_err(fail)? {
            Some(u) => u.id,
            None => store
                .create_user(&name, Some(&name), None)
                .await
                .map_err(fail)?,
        };
        ids.push(id);
    }
    Ok(ids)
}

/// Adds the missing games: generated on every core, written a batch per transaction.
async fn fill(
    store: &SqliteStore,
    config: &StoreBenchConfig,
    players: &Arc<Vec<i64>>,
    report: &mut StoreReport,
) -> Result<(), BenchError> {
    let live = store.live_games().await.map_err(fail)?.len() as u64;
    report.games_before = store.count_games().await.map_err(fail)? - live as i64;
    fill_live(store, config, players, live, report).await?;
    let before = u64::try_from(report.games_before).unwrap_or(0);
    let missing = config.games.saturating_sub(before);
    if missing == 0 {
        return Ok(());
    }
    let started = Instant::now();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let rulesets = Arc::new(rulesets()?);
    let (batches, mut received) =
        tokio::sync::mpsc::channel::<Result<Vec<ImportedGame>, BenchError>>(workers as usize * 2);
    // The games end in the order they are numbered, a minute apart, the last one now.
    let first_created = now() - i64::try_from(missing).unwrap_or(0) * 60;
    let mut tasks = Vec::new();
    for w in 0..workers {
        let (batches, players, rulesets) =
            (batches.clone(), Arc::clone(players), Arc::clone(&rulesets));
        let seed = config.seed ^ w.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ before;
        tasks.push(tokio::task::spawn_blocking(move || {
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut batch = Vec::with_capacity(BATCH);
            // Worker w makes games w, w + workers, ...
            let mut k = w;
            while k < missing {
                let created = first_created + i64::try_from(k).unwrap_or(0) * 60;
                match random_game(&mut rng, &rulesets, &players, created) {
                    Ok(game) => batch.push(game),
                    Err(e) => {
                        let _ = batches.blocking_send(Err(e));
                        return;
                    }
                }
                if batch.len() == BATCH
                    && batches
                        .blocking_send(Ok(std::mem::take(&mut batch)))
                        .is_err()
                {
                    return;
                }
                k += workers;
            }
            if !batch.is_empty() {
                let _ = batches.blocking_send(Ok(batch));
            }
        }));
    }
    drop(batches);
    let mut last_note = Instant::now();
    while let Some(batch) = received.recv().await {
        let batch = batch?;
        store.import_games(&batch).await.map_err(fail)?;
        report.games_added += batch.len() as u64;
        report.actions_added += batch.iter().map(|g| g.moves.len() as u64).sum::<u64>();
        if last_note.elapsed() > Duration::from_secs(10) {
            last_note = Instant::now();
            eprintln!(
                "added {} of {missing} games ({:.0} s)",
                report.games_added,
                started.elapsed().as_secs_f64()
            );
        }
    }
    for t in tasks {
        t.await.map_err(fail)?;
    }
    report.fill_time = started.elapsed();
    Ok(())
}

/// A `tesuji serve` on the data directory, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The resident memory of process `pid` in KiB (Linux).
fn rss_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Starts the server and waits for its first answer; the time that took.
async fn start_server(config: &StoreBenchConfig) -> Result<(Server, Duration), BenchError> {
    let started = Instant::now();
    let mut child = Command::new(&config.server)
        .arg("serve")
        .arg("--data-dir")
        .arg(&config.data_dir)
        .args(["--address", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| fail(format!("{}: {e}", config.server.display())))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| fail("no server output"))?;
    // The server prints its address once it listens.
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).map(|_| line)
    })
    .await
    .map_err(fail)?
    .map_err(fail)?;
    let base = line
        .trim()
        .strip_prefix("tesuji is serving ")
        .ok_or_else(|| fail(format!("the server said {line:?}, not its address")))?
        .to_owned();
    let server = Server { child, base };
    let http = reqwest::Client::new();
    loop {
        let answered = http
            .get(format!("{}/api/lobby", server.base))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        if answered {
            return Ok((server, started.elapsed()));
        }
        if started.elapsed() > Duration::from_secs(600) {
            return Err(fail("the server did not answer within 10 minutes"));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Times `samples` requests of each kind, in a random order, one at a time.
async fn time_requests(
    server: &Server,
    config: &StoreBenchConfig,
    games: i64,
    players: &[i64],
    report: &mut StoreReport,
) {
    const KINDS: [&str; 5] = ["state", "sgf", "replay", "archive page", "player page"];
    let mut rng = Pcg64Mcg::seed_from_u64(config.seed ^ 0x5EED);
    let mut order: Vec<usize> = (0..KINDS.len())
        .flat_map(|k| std::iter::repeat_n(k, config.samples))
        .collect();
    for k in (1..order.len()).rev() {
        order.swap(k, rng.random_range(0..=k));
    }
    let http = reqwest::Client::new();
    let mut times: Vec<Vec<u32>> = vec![Vec::new(); KINDS.len()];
    for kind in order {
        let id = rng.random_range(1..=games.max(1));
        let path = match kind {
            0 => format!("/api/games/{id}"),
            1 => format!("/api/games/{id}/sgf"),
            2 => format!("/api/games/{id}/replay"),
            3 => format!("/api/archive?before={id}&limit={PAGE}"),
            _ => format!(
                "/api/users/{}/games?before={id}&limit={PAGE}",
                players[rng.random_range(0..players.len())]
            ),
        };
        let started = Instant::now();
        let answer = http.get(format!("{}{path}", server.base)).send().await;
        let ok = match answer {
            Ok(r) if r.status().is_success() => r.bytes().await.is_ok(),
            Ok(r) => {
                if report.failure_samples.len() < 5 {
                    report
                        .failure_samples
                        .push(format!("{path}: {}", r.status()));
                }
                false
            }
            Err(e) => {
                if report.failure_samples.len() < 5 {
                    report.failure_samples.push(format!("{path}: {e}"));
                }
                false
            }
        };
        let micros = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
        if ok {
            times[kind].push(micros);
        } else {
            report.failures += 1;
        }
    }
    for (kind, mut t) in KINDS.into_iter().zip(times) {
        t.sort_unstable();
        report.timings.push((kind, t));
    }
}

/// Fills the directory, starts the server on it, and measures.
pub fn run(config: &StoreBenchConfig) -> Result<StoreReport, BenchError> {
    if config.samples == 0 {
        return Err(fail(
            "bad --samples 0: time at least one request of each kind",
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(fail)?;
    runtime.block_on(async {
        let mut report = StoreReport::default();
        let store = SqliteStore::open(&config.data_dir).await.map_err(fail)?;
        // The players first (made on the first run), shared by the fill and the timed requests.
        let filled = match players(&store).await {
            Ok(players) => {
                let players = Arc::new(players);
                fill(&store, config, &players, &mut report)
                    .await
                    .map(|()| players)
            }
            Err(e) => Err(e),
        };
        let games = store.count_games().await.map_err(fail);
        store.close().await.map_err(fail)?;
        let (players, games) = (filled?, games?);
        let (server, start) = start_server(config).await?;
        report.start = start;
        // Idle: whatever the start left behind is settled.
        tokio::time::sleep(Duration::from_secs(2)).await;
        report.rss_idle = rss_of(server.child.id());
        time_requests(&server, config, games, &players, &mut report).await;
        report.rss_after = rss_of(server.child.id());
        drop(server);
        Ok(report)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_games_replay_to_their_recorded_end() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let players = [1, 2, 3];
        let rulesets = rulesets().unwrap();
        let mut resigned = 0;
        let mut counted = 0;
        for _ in 0..60 {
            let g = random_game(&mut rng, &rulesets, &players, 1_000).unwrap();
            assert_ne!(g.seats.black, g.seats.white);
            // Replayed as the server replays stored actions, the game ends with the recorded result.
            let rules: Rules = g.rules.parse().unwrap();
            let mut game = Game::new(rules).unwrap();
            for m in &g.moves {
                let color: Color = m.color.parse().unwrap();
                match m.text.as_str() {
                    "resign" => game.resign(color).unwrap(),
                    "accept" => game.accept(color).unwrap(),
                    "pass" => game.play(color, Move::Pass).map(|_| ()).unwrap(),
                    t => {
                        let p = tesuji_rules::Point::from_gtp(t, rules.size).unwrap();
                        game.play(color, Move::Play(p)).map(|_| ()).unwrap();
                    }
                }
            }
            assert_eq!(game.phase(), Phase::Over, "{}", g.rules);
            let ending = g.ending.as_ref().unwrap();
            assert_eq!(ending.result, game.result().map(|r| r.to_string()));
            if g.moves.last().unwrap().text == "resign" {
                resigned += 1;
            } else {
                counted += 1;
            }
        }
        // Both ends occur.
        assert!(
            resigned > 0 && counted > 0,
            "{resigned} resigned, {counted} counted"
        );
    }
}
