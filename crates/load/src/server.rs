//! `tesuji bench server`: a load tool over loopback. Each of N game slots plays games between two guests over
//! their game WebSockets (random empty points, a pass after a few refusals, both accept at the count), with a
//! spectator socket that counts the events and checks that versions rise by one; a slot starts a new game when
//! one ends. Idle sockets (watching a table nobody joins) can be held open throughout, to measure the memory a
//! connection costs. A benchmark, not a test: it measures and reports, it asserts nothing.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::watch;
use tokio::time::Instant;

use tesuji_client::{Action, Client, Error as ClientError, Options, Socket, SocketOptions};
use tesuji_server::{Database, Limits, ServerConfig};

/// A socket that has had no message for this long while one was due is counted an error.
const STALL: Duration = Duration::from_secs(10);
/// Refused moves in one turn before the player passes.
const REFUSALS_BEFORE_PASS: usize = 3;
/// Sockets opened at once while connecting the idle ones.
const CONNECT_AT_ONCE: usize = 64;
/// Read buffers of the players' and spectators' sockets (events are a few KiB), and of the idle ones.
const READ_BUFFER: usize = 16 * 1024;
const IDLE_READ_BUFFER: usize = 4 * 1024;
/// Error messages kept for the report.
const ERROR_SAMPLES: usize = 5;

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Games played at once.
    pub games: usize,
    /// How long the games run.
    pub seconds: f64,
    /// Idle sockets held open (besides the players' and spectators').
    pub idle: usize,
    /// Running servers (`http://127.0.0.1:8080`), several for the nodes of one site; none starts `nodes`
    /// servers in this process on a fresh database.
    pub urls: Vec<String>,
    /// How many nodes to start in this process (without `urls`); more than one needs `database` and `nats`.
    pub nodes: usize,
    /// For the servers started in this process: a PostgreSQL URL whose database name is a prefix; they run
    /// on a fresh database `PREFIX_bench_N` made there and dropped after. `None`: SQLite in a temporary
    /// folder.
    pub database: Option<String>,
    /// For the servers started in this process: the NATS server they tell each other their changes through.
    pub nats: Option<String>,
    /// The rules spec of every game.
    pub rules: String,
    /// Moves per second in all, spread evenly over the games; `None`: every move as soon as it is the player's
    /// turn. With a rate the acknowledgement times are those of a server under that load, not of one saturated.
    pub rate: Option<f64>,
}

impl Default for BenchConfig {
    fn default() -> BenchConfig {
        BenchConfig {
            games: 100,
            seconds: 10.0,
            idle: 0,
            urls: Vec::new(),
            nodes: 1,
            database: None,
            nats: None,
            rules: "chinese:size=19".to_owned(),
            rate: None,
        }
    }
}

pub use crate::BenchError;
use crate::fail;

/// A database name for this run under the PostgreSQL URL `url` (its database name the prefix).
fn fresh_database(url: &str) -> Result<String, BenchError> {
    if !tesuji_server::store::postgres::is_postgres_url(url) {
        return Err(fail(format!(
            "--database takes a PostgreSQL URL (postgres://USER@HOST:PORT/PREFIX), not {url:?}"
        )));
    }
    let (base, prefix) = url.rsplit_once('/').unwrap_or((url, "tesuji"));
    let (prefix, query) = prefix.split_once('?').map_or((prefix, ""), |(p, q)| (p, q));
    let prefix = if prefix.is_empty() { "tesuji" } else { prefix };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    Ok(format!(
        "{base}/{prefix}_bench_{}_{stamp}{query}",
        std::process::id()
    ))
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct Report {
    pub config: BenchConfig,
    /// The in-process nodes' addresses, or the URLs, separated by `, `.
    pub target: String,
    /// How many nodes were loaded.
    pub nodes: usize,
    pub cores: usize,
    /// From the first move to the last answer.
    pub elapsed: Duration,
    /// Accepted plays and passes.
    pub moves: u64,
    /// Accepted accepts and resignations.
    pub other_actions: u64,
    pub games_finished: u64,
    /// Acknowledgement times of moves (send to `ack`), in microseconds, sorted.
    pub acks: Vec<u32>,
    /// Broadcast times of moves (sent by the player to received by the spectator), in microseconds, sorted.
    pub broadcasts: Vec<u32>,
    /// The same to the opponent, who answers the move: sent to received by the other player.
    pub to_opponent: Vec<u32>,
    /// The broadcast times (to spectators and opponents) of moves sent on another node than the watcher's, in
    /// microseconds, sorted; empty with one node.
    pub cross_node: Vec<u32>,
    pub spectator_events: u64,
    /// Events whose version was not the previous one plus one.
    pub version_gaps: u64,
    /// Full states a spectator received after its first (the server's answer to a spectator falling behind).
    pub resyncs: u64,
    /// Moves refused by the rules (occupied, suicide, ko...).
    pub refusals: u64,
    /// Actions refused because the version moved on.
    pub stale: u64,
    pub errors: u64,
    pub error_samples: Vec<String>,
    pub idle_held: usize,
    /// This process's resident memory in KiB: at the start, before and after opening the idle sockets, at the end.
    pub rss_start: Option<u64>,
    pub rss_before_idle: Option<u64>,
    pub rss_after_idle: Option<u64>,
    pub rss_end: Option<u64>,
    /// Shares of the machine's CPU time during the play (Linux): this process, the other processes, idle.
    pub cpu: Option<CpuShares>,
}

/// Where the machine's CPU time went.
#[derive(Clone, Copy, Debug)]
pub struct CpuShares {
    pub this_process: f64,
    pub others: f64,
    pub idle: f64,
}

/// Clock ticks so far: the machine's busy and total (all CPUs, from `/proc/stat`), and this process's.
fn cpu_ticks() -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let total: u64 = fields.iter().take(8).sum();
    // idle and iowait
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    let own = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command's name in parentheses: utime and stime are fields 14 and 15.
    let rest = own.get(own.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let own = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some((total - idle, total, own))
}

fn cpu_shares(start: Option<(u64, u64, u64)>, end: Option<(u64, u64, u64)>) -> Option<CpuShares> {
    let ((b0, t0, o0), (b1, t1, o1)) = (start?, end?);
    let total = t1.checked_sub(t0).filter(|&t| t > 0)? as f64;
    let busy = b1.saturating_sub(b0) as f64;
    let own = (o1.saturating_sub(o0) as f64).min(busy);
    Some(CpuShares {
        this_process: own / total,
        others: (busy - own) / total,
        idle: 1.0 - busy / total,
    })
}

impl Report {
    /// Moves accepted per second.
    pub fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The `q` quantile of the acknowledgement times, in milliseconds.
    pub fn ack_ms(&self, q: f64) -> Option<f64> {
        quantile_ms(&self.acks, q)
    }

    /// The `q` quantile of the broadcast times, in milliseconds.
    pub fn broadcast_ms(&self, q: f64) -> Option<f64> {
        quantile_ms(&self.broadcasts, q)
    }

    /// The `q` quantile of the times from a move's sending to its event at the opponent, in milliseconds.
    pub fn to_opponent_ms(&self, q: f64) -> Option<f64> {
        quantile_ms(&self.to_opponent, q)
    }

    /// The `q` quantile of the cross-node broadcast times, in milliseconds.
    pub fn cross_node_ms(&self, q: f64) -> Option<f64> {
        quantile_ms(&self.cross_node, q)
    }
}

use crate::quantile_ms;

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let in_process = self.config.urls.is_empty();
        let what = match (in_process, &self.config.database) {
            (true, None) => "in this process, SQLite in a fresh data directory, rate limits raised",
            (true, Some(_)) if self.nodes > 1 => {
                "in this process, a fresh PostgreSQL database, NATS between them, rate limits raised"
            }
            (true, Some(_)) => "in this process, a fresh PostgreSQL database, rate limits raised",
            (false, _) => "already running",
        };
        if self.nodes > 1 {
            writeln!(
                f,
                "servers         {} nodes: {} ({what})",
                self.nodes, self.target
            )?;
        } else {
            writeln!(f, "server          {} ({what})", self.target)?;
        }
        writeln!(
            f,
            "note            the {} and these load clients share this machine's {} cores{}",
            if self.nodes > 1 { "nodes" } else { "server" },
            self.cores,
            if in_process {
                " (and this process)"
            } else {
                ""
            }
        )?;
        writeln!(
            f,
            "games           {} at once, rules {}, {:.2} s; {} games finished",
            self.config.games,
            self.config.rules,
            self.elapsed.as_secs_f64(),
            self.games_finished
        )?;
        if let Some(rate) = self.config.rate {
            writeln!(
                f,
                "rate            {rate} moves/s asked (each game a move every {:.1} ms)",
                1000.0 * self.config.games as f64 / rate
            )?;
        }
        writeln!(
            f,
            "moves/s         {:.0} ({} moves accepted; {} other actions)",
            self.moves_per_second(),
            self.moves,
            self.other_actions
        )?;
        let acks = format!("{} acks", self.acks.len());
        if !quantiles(f, "ack ms", &self.acks, &acks)? {
            writeln!(f, "ack ms          no moves acknowledged")?;
        }
        quantiles(
            f,
            "broadcast ms",
            &self.broadcasts,
            "move sent to the spectator's event",
        )?;
        quantiles(
            f,
            "to opponent ms",
            &self.to_opponent,
            "move sent to the opponent's event",
        )?;
        if self.nodes > 1 {
            let note = format!(
                "move sent on one node to the event of a watcher on another; {} events",
                self.cross_node.len()
            );
            if !quantiles(f, "cross-node ms", &self.cross_node, &note)? {
                writeln!(f, "cross-node ms   no move seen on another node")?;
            }
        }
        writeln!(
            f,
            "spectators      {} events; {} version gaps; {} resyncs",
            self.spectator_events, self.version_gaps, self.resyncs
        )?;
        writeln!(
            f,
            "refusals        {} by the rules; {} stale versions",
            self.refusals, self.stale
        )?;
        if let Some(c) = self.cpu {
            writeln!(
                f,
                "cpu             this process {:.0}%, other processes {:.0}%, idle {:.0}% (of all cores, while playing)",
                100.0 * c.this_process,
                100.0 * c.others,
                100.0 * c.idle
            )?;
        }
        writeln!(f, "errors          {}", self.errors)?;
        for e in &self.error_samples {
            writeln!(f, "  {e}")?;
        }
        writeln!(f, "idle sockets    {} held", self.idle_held)?;
        if let (Some(start), Some(end)) = (self.rss_start, self.rss_end) {
            write!(
                f,
                "memory (VmRSS)  start {:.1} MiB, end {:.1} MiB",
                mib(start),
                mib(end)
            )?;
            if let (Some(before), Some(after)) = (self.rss_before_idle, self.rss_after_idle)
                && self.idle_held > 0
            {
                let grown = after.saturating_sub(before);
                write!(
                    f,
                    "; idle sockets {:.1} -> {:.1} MiB (+{:.1} MiB, {:.1} KiB a socket{})",
                    mib(before),
                    mib(after),
                    mib(grown),
                    grown as f64 / self.idle_held as f64,
                    if in_process {
                        ", both ends in this process"
                    } else {
                        ", the clients' ends only"
                    }
                )?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Writes a line of `label`, the p50, p90, p99 and max of `sorted` microseconds in milliseconds, and `note`;
/// answers false, writing nothing, when there are none.
fn quantiles(
    f: &mut fmt::Formatter<'_>,
    label: &str,
    sorted: &[u32],
    note: &str,
) -> Result<bool, fmt::Error> {
    let [Some(p50), Some(p90), Some(p99), Some(max)] =
        [0.5, 0.9, 0.99, 1.0].map(|q| quantile_ms(sorted, q))
    else {
        return Ok(false);
    };
    writeln!(
        f,
        "{label:<16}p50 {p50:.2}  p90 {p90:.2}  p99 {p99:.2}  max {max:.2} ({note})"
    )?;
    Ok(true)
}

/// This process's resident memory in KiB (Linux).
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Raises the open-file limit to `needed` if it is lower (as far as allowed); answers the limit.
#[cfg(unix)]
fn raise_open_files(needed: u64) -> Option<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let now = getrlimit(Resource::Nofile);
    let current = now.current?;
    if current >= needed {
        return Some(current);
    }
    // Raising the hard limit needs privileges; failing that, the soft one goes as far as the hard one.
    let wanted = rustix::process::Rlimit {
        current: Some(needed),
        maximum: Some(now.maximum.map_or(needed, |m| m.max(needed))),
    };
    if setrlimit(Resource::Nofile, wanted).is_ok() {
        return Some(needed);
    }
    let capped = rustix::process::Rlimit {
        current: now.maximum.map(|m| m.min(needed)).or(Some(needed)),
        maximum: now.maximum,
    };
    let _ = setrlimit(Resource::Nofile, capped);
    getrlimit(Resource::Nofile).current
}

#[cfg(not(unix))]
fn raise_open_files(_needed: u64) -> Option<u64> {
    None
}

/// A data directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, BenchError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path =
            std::env::temp_dir().join(format!("tesuji-bench-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path)
            .map_err(|e| fail(format!("data directory {}: {e}", path.display())))?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the bench: starts the in-process nodes unless URLs are given, plays, and reports.
pub fn run(config: &BenchConfig) -> Result<Report, BenchError> {
    if config.games == 0 && config.idle == 0 {
        return Err(fail("nothing to do: --games and --idle are both 0"));
    }
    if !(config.seconds.is_finite() && config.seconds > 0.0 && config.seconds <= 86_400.0) {
        return Err(fail(format!(
            "bad --seconds {}: use a positive number of seconds up to a day",
            config.seconds
        )));
    }
    if let Some(rate) = config.rate
        && !(rate.is_finite() && rate > 0.0)
    {
        return Err(fail(format!(
            "bad --rate {rate}: use a positive number of moves per second"
        )));
    }
    if config.nodes == 0 {
        return Err(fail("bad --nodes 0: use at least one node"));
    }
    if !config.urls.is_empty() && config.nodes > 1 {
        return Err(fail(
            "--nodes starts servers in this process; for running ones, give --url once per node",
        ));
    }
    if config.urls.is_empty()
        && config.nodes > 1
        && (config.database.is_none() || config.nats.is_none())
    {
        return Err(fail(format!(
            "--nodes {} shares one PostgreSQL database over NATS: give --database postgres://USER@HOST:PORT/PREFIX \
             and --nats nats://HOST:PORT",
            config.nodes
        )));
    }
    let sockets = (config.idle + 3 * config.games) as u64;
    let ends = if config.urls.is_empty() { 2 } else { 1 };
    let needed = sockets * ends + 256;
    if let Some(limit) = raise_open_files(needed)
        && limit < needed
    {
        return Err(fail(format!(
            "{sockets} sockets need about {needed} open files here, but the limit is {limit} (ulimit -n); \
             use fewer, or bench a server in another process with --url"
        )));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let server = if config.urls.is_empty() {
        Some(InProcess::start(config)?)
    } else {
        None
    };
    let bases: Vec<String> = match &server {
        Some(s) => s
            .nodes
            .iter()
            .map(|(_, running)| format!("http://{}", running.address))
            .collect(),
        None => config
            .urls
            .iter()
            .map(|url| url.trim_end_matches('/').to_owned())
            .collect(),
    };
    let clients = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("bench")
        .build()
        .map_err(fail);
    let report = clients.and_then(|clients| clients.block_on(drive(config, &bases, cores)));
    let stopped = server.map_or(Ok(()), InProcess::stop);
    let report = report?;
    stopped?;
    Ok(report)
}

/// The nodes started in this process, each on a runtime of its own as it would be in its own process, and
/// their database.
struct InProcess {
    nodes: Vec<(tokio::runtime::Runtime, tesuji_server::Running)>,
    database: Database,
    /// SQLite's folder (unused on PostgreSQL), removed after.
    data: TempDir,
}

impl InProcess {
    /// Starts `config.nodes` nodes on a fresh database, one after another (the first creates the database).
    fn start(config: &BenchConfig) -> Result<InProcess, BenchError> {
        let data = TempDir::new()?;
        let database = match &config.database {
            Some(url) => Database::Postgres(fresh_database(url)?),
            None => Database::Sqlite(data.0.clone()),
        };
        let mut started = InProcess {
            nodes: Vec::with_capacity(config.nodes),
            database,
            data,
        };
        for _ in 0..config.nodes {
            if let Err(e) = started.start_node(config) {
                // What was started is stopped and the database dropped; the first error is the one told.
                let _ = started.stop();
                return Err(e);
            }
        }
        Ok(started)
    }

    fn start_node(&mut self, config: &BenchConfig) -> Result<(), BenchError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("server")
            .build()
            .map_err(fail)?;
        let running = runtime
            .block_on(tesuji_server::start(ServerConfig {
                address: ([127, 0, 0, 1], 0).into(),
                database: self.database.clone(),
                nats: config.nats.clone(),
                limits: Limits {
                    // Every simulated client is on loopback: no per-client limit applies.
                    auth_per_minute: 1_000_000,
                    actions_per_second: 1_000_000,
                    sockets_per_user: u32::MAX,
                    sockets_per_address: u32::MAX,
                    open_tables_per_user: usize::MAX,
                    ..Limits::default()
                },
                ..ServerConfig::default()
            }))
            .map_err(|e| fail(format!("starting the server: {e}")))?;
        self.nodes.push((runtime, running));
        Ok(())
    }

    /// Stops every node, then drops a PostgreSQL database (made even when no node started).
    fn stop(self) -> Result<(), BenchError> {
        let mut result = Ok(());
        let mut last = None;
        for (runtime, running) in self.nodes {
            if let Err(e) = runtime.block_on(running.stop()) {
                result = result.and(Err(fail(format!("stopping the server: {e}"))));
            }
            last = Some(runtime);
        }
        if let Database::Postgres(url) = &self.database {
            let runtime = match last {
                Some(r) => r,
                None => tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(fail)?,
            };
            if let Err(e) = runtime.block_on(tesuji_server::store::postgres::drop_database(url)) {
                result = result.and(Err(fail(format!("dropping the bench's database: {e}"))));
            }
        }
        drop(self.data);
        result
    }
}

/// Counters every client adds to.
#[derive(Default)]
struct Stats {
    moves: AtomicU64,
    other_actions: AtomicU64,
    games_finished: AtomicU64,
    spectator_events: AtomicU64,
    version_gaps: AtomicU64,
    resyncs: AtomicU64,
    refusals: AtomicU64,
    stale: AtomicU64,
    errors: AtomicU64,
    error_samples: Mutex<Vec<String>>,
    acks: Mutex<Vec<u32>>,
    broadcasts: Mutex<Vec<u32>>,
    to_opponent: Mutex<Vec<u32>>,
    cross_node: Mutex<Vec<u32>>,
}

impl Stats {
    /// Adds a task's times to one of the lists.
    fn add(list: &Mutex<Vec<u32>>, times: &[u32]) {
        list.lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(times);
    }

    /// A list's times, sorted, for the report.
    fn take_sorted(list: &Mutex<Vec<u32>>) -> Vec<u32> {
        let mut times = std::mem::take(&mut *list.lock().unwrap_or_else(|e| e.into_inner()));
        times.sort_unstable();
        times
    }

    fn error(&self, what: impl fmt::Display) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut samples = self.error_samples.lock().unwrap_or_else(|e| e.into_inner());
        if samples.len() < ERROR_SAMPLES {
            samples.push(what.to_string());
        }
    }
}

/// What every client shares.
struct Ctx {
    /// A user agent without a session for each node (the spectators' and idle sockets'); every guest is
    /// another on its node's connections.
    clients: Vec<Client>,
    rules: String,
    /// The least time between two moves of one player, with a rate.
    pace: Option<Duration>,
    stats: Stats,
}

/// A signed-in guest.
type Guest = Client;

impl Ctx {
    /// A guest signed in on node `node`, which it uses throughout.
    async fn guest(&self, name: &str, node: usize) -> Result<Guest, BenchError> {
        let mut guest = self.clients[node].another();
        guest.guest(name).await.map_err(fail)?;
        Ok(guest)
    }

    /// A table with `host` as Black; answers its id and invite token.
    async fn table(
        &self,
        host: &Guest,
        opponent: &str,
    ) -> Result<(i64, Option<String>), BenchError> {
        let body = json!({ "rules": self.rules, "color": "black", "opponent": opponent });
        let (status, body) = host.create_game(&body).await.map_err(fail)?;
        if status != 201 {
            return Err(fail(format!("POST /api/games: {status} {body}")));
        }
        let id = body["id"]
            .as_i64()
            .ok_or_else(|| fail("POST /api/games: no id"))?;
        Ok((id, body["invite"].as_str().map(str::to_owned)))
    }

    async fn join(&self, id: i64, guest: &Guest) -> Result<(), BenchError> {
        let (status, body) = guest.join(id, None).await.map_err(fail)?;
        if status != 200 {
            return Err(fail(format!("POST /api/games/{id}/join: {status} {body}")));
        }
        Ok(())
    }

    /// A game's socket, on a guest's node with its session cookie, or on a node's client without one. The read
    /// buffer is zeroed before every read (and grows for a larger message): 128 KiB by default, too much for
    /// sockets that read little.
    async fn socket(
        &self,
        id: i64,
        who: &Client,
        read_buffer: usize,
    ) -> Result<Socket, BenchError> {
        let options = SocketOptions {
            read_buffer: Some(read_buffer),
            write_buffer: Some(0),
            ..SocketOptions::default()
        };
        who.socket(&format!("/api/games/{id}/ws"), &options)
            .await
            .map_err(|e| fail(format!("connecting to game {id}'s socket: {e}")))
    }
}

/// Plays for the configured time and gathers the figures.
async fn drive(config: &BenchConfig, bases: &[String], cores: usize) -> Result<Report, BenchError> {
    let mut clients = Vec::with_capacity(bases.len());
    for base in bases {
        if !base.starts_with("http://") {
            return Err(fail(format!(
                "--url {base}: only http:// URLs are supported"
            )));
        }
        // Every wait of the players and spectators has its own deadline; a server started elsewhere keeps
        // its default rate limits, so sign-ins and tables wait them out.
        let options = Options {
            timeout: None,
            message_timeout: None,
            rate_limit_retries: 9,
        };
        clients.push(
            Client::with_options(base, options).map_err(|e| fail(format!("--url {base}: {e}")))?,
        );
    }
    let nodes = clients.len();
    let ctx = Arc::new(Ctx {
        clients,
        rules: config.rules.clone(),
        pace: config
            .rate
            .map(|r| Duration::from_secs_f64(2.0 * config.games as f64 / r)),
        stats: Stats::default(),
    });
    let rss_start = rss_kib();

    // The idle sockets watch a table nobody can join, so they receive the state and then nothing.
    let mut idle = Vec::with_capacity(config.idle);
    let (mut rss_before_idle, mut rss_after_idle) = (None, None);
    if config.idle > 0 {
        let host = ctx.guest("idle", 0).await?;
        let (id, _) = ctx.table(&host, "invite").await?;
        rss_before_idle = rss_kib();
        // Spread over the nodes.
        let mut opening = futures_util::stream::iter(0..config.idle)
            .map(|k| {
                let ctx = Arc::clone(&ctx);
                async move {
                    let node = &ctx.clients[k % ctx.clients.len()];
                    let mut socket = ctx.socket(id, node, IDLE_READ_BUFFER).await?;
                    match socket.next_text_until(Some(Instant::now() + STALL)).await {
                        Ok(_) => Ok(socket),
                        Err(_) => Err(fail("an idle socket got no state")),
                    }
                }
            })
            .buffer_unordered(CONNECT_AT_ONCE);
        while let Some(opened) = opening.next().await {
            match opened {
                Ok(s) => idle.push(s),
                Err(e) => ctx.stats.error(e),
            }
        }
        rss_after_idle = rss_kib();
    }

    // Every slot is seated and connected before the clock starts.
    let seated: Vec<Result<(Guest, Guest, Ready), BenchError>> =
        futures_util::stream::iter(0..config.games)
            .map(|k| {
                let ctx = Arc::clone(&ctx);
                async move {
                    let seats = Seats::of_slot(k, nodes);
                    let black = ctx.guest(&format!("b{k}"), seats.black).await?;
                    let white = ctx.guest(&format!("w{k}"), seats.white).await?;
                    let ready = new_game(&ctx, &black, &white, seats).await?;
                    Ok((black, white, ready))
                }
            })
            .buffer_unordered(CONNECT_AT_ONCE)
            .collect()
            .await;
    let seated = seated.into_iter().collect::<Result<Vec<_>, _>>()?;

    let start = Instant::now();
    let ticks = cpu_ticks();
    let deadline = start + Duration::from_secs_f64(config.seconds);
    let slots: Vec<_> = seated
        .into_iter()
        .enumerate()
        .map(|(k, (black, white, ready))| {
            let ctx = Arc::clone(&ctx);
            tokio::spawn(run_slot(ctx, k as u64, black, white, ready, deadline))
        })
        .collect();
    for slot in slots {
        if let Err(e) = slot.await {
            ctx.stats.error(format!("a slot failed: {e}"));
        }
    }
    let elapsed = start.elapsed();
    let cpu = cpu_shares(ticks, cpu_ticks());
    let rss_end = rss_kib();
    let idle_held = idle.len();
    drop(idle);

    let s = &ctx.stats;
    let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
    Ok(Report {
        config: config.clone(),
        target: bases.join(", "),
        nodes,
        cores,
        elapsed,
        moves: load(&s.moves),
        other_actions: load(&s.other_actions),
        games_finished: load(&s.games_finished),
        acks: Stats::take_sorted(&s.acks),
        broadcasts: Stats::take_sorted(&s.broadcasts),
        to_opponent: Stats::take_sorted(&s.to_opponent),
        cross_node: Stats::take_sorted(&s.cross_node),
        spectator_events: load(&s.spectator_events),
        version_gaps: load(&s.version_gaps),
        resyncs: load(&s.resyncs),
        refusals: load(&s.refusals),
        stale: load(&s.stale),
        errors: load(&s.errors),
        error_samples: s
            .error_samples
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone(),
        idle_held,
        rss_start,
        rss_before_idle,
        rss_after_idle,
        rss_end,
        cpu,
    })
}

/// The nodes of a slot's players and spectator: Black on the slot's node, White on the next, the spectator
/// on the one after (all one with a single node).
#[derive(Clone, Copy, Debug)]
struct Seats {
    black: usize,
    white: usize,
    spectator: usize,
}

impl Seats {
    fn of_slot(slot: usize, nodes: usize) -> Seats {
        Seats {
            black: slot % nodes,
            white: (slot + 1) % nodes,
            spectator: (slot + 2) % nodes,
        }
    }
}

/// A started game with its three sockets connected.
struct Ready {
    id: i64,
    seats: Seats,
    black: Socket,
    white: Socket,
    spectator: Socket,
    /// The version of the spectator's first state.
    watched_from: u64,
}

/// A table made by Black on its node, joined by White on its own, and the three sockets on their nodes.
async fn new_game(
    ctx: &Ctx,
    black: &Guest,
    white: &Guest,
    seats: Seats,
) -> Result<Ready, BenchError> {
    let (id, _) = ctx.table(black, "anyone").await?;
    ctx.join(id, white).await?;
    let (b, w, s) = tokio::join!(
        ctx.socket(id, black, READ_BUFFER),
        ctx.socket(id, white, READ_BUFFER),
        ctx.socket(id, &ctx.clients[seats.spectator], READ_BUFFER)
    );
    // The spectator has its state before anyone moves, so that it sees every move as an event.
    let mut spectator = s?;
    let first = match spectator
        .next_text_until(Some(Instant::now() + STALL))
        .await
    {
        Ok(text) => serde_json::from_str::<Seen<'_>>(text.as_str())
            .map(|m| m.version)
            .map_err(|e| fail(format!("game {id}: spectator: unreadable state: {e}")))?,
        Err(_) => return Err(fail(format!("game {id}: the spectator got no state"))),
    };
    Ok(Ready {
        id,
        seats,
        black: b?,
        white: w?,
        spectator,
        watched_from: first,
    })
}

/// One slot: games one after another until the time is up.
async fn run_slot(
    ctx: Arc<Ctx>,
    slot: u64,
    black: Guest,
    white: Guest,
    first: Ready,
    deadline: Instant,
) {
    let seats = first.seats;
    let mut next = Some(first);
    let mut seed = slot.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while Instant::now() < deadline {
        let ready = match next.take() {
            Some(r) => r,
            None => match new_game(&ctx, &black, &white, seats).await {
                Ok(r) => r,
                Err(e) => {
                    ctx.stats.error(e);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        seed = seed.wrapping_add(ready.id as u64).rotate_left(17) | 1;
        play_game(&ctx, ready, seed, deadline).await;
    }
}

/// Plays one game to its end or to the deadline; the spectator then reads up to the last version.
async fn play_game(ctx: &Arc<Ctx>, ready: Ready, seed: u64, deadline: Instant) {
    let (last_tx, last_rx) = watch::channel(None);
    let sent: Sent = Arc::default();
    let spectator = tokio::spawn(spectate(
        Arc::clone(ctx),
        ready.spectator,
        ready.watched_from,
        last_rx,
        Arc::clone(&sent),
        ready.seats.spectator,
    ));
    let b = tokio::spawn(play(
        Arc::clone(ctx),
        ready.black,
        ("black", ready.seats.black),
        seed,
        deadline,
        Arc::clone(&sent),
    ));
    let w = tokio::spawn(play(
        Arc::clone(ctx),
        ready.white,
        ("white", ready.seats.white),
        seed ^ 0x5555,
        deadline,
        sent,
    ));
    let mut last = 0;
    let mut over = false;
    for player in [b, w] {
        match player.await {
            Ok(Ok(end)) => {
                last = last.max(end.version);
                over |= end.over;
            }
            Ok(Err(e)) => ctx.stats.error(format!("game {}: {e}", ready.id)),
            Err(e) => ctx.stats.error(format!("game {}: {e}", ready.id)),
        }
    }
    if over {
        ctx.stats.games_finished.fetch_add(1, Ordering::Relaxed);
    }
    let _ = last_tx.send(Some(last));
    if let Err(e) = spectator.await {
        ctx.stats
            .error(format!("game {}: spectator: {e}", ready.id));
    }
}

/// The fields of a `GameState` a player needs.
#[derive(Deserialize)]
struct StateView<'a> {
    version: u64,
    #[serde(borrow)]
    board: Vec<Cow<'a, str>>,
    #[serde(borrow)]
    to_move: Cow<'a, str>,
    /// `open` while a seat is empty (on a node that has not yet heard of the join), then the phase.
    #[serde(borrow)]
    status: Cow<'a, str>,
    accepted: Accepted,
}

#[derive(Deserialize)]
struct Accepted {
    black: bool,
    white: bool,
}

/// Any server message, read only as far as needed: `state` (the state's fields at the top), an event (the state
/// under `state`), `ack` or `error`.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    version: Option<u64>,
    #[serde(default, rename = "ref")]
    reference: Option<u64>,
    #[serde(default, borrow)]
    reason: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    error: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    state: Option<StateView<'a>>,
}

/// What a player knows of its game.
struct Position {
    version: u64,
    width: usize,
    height: usize,
    /// `.`, `X`, `O` by rows from the top.
    cells: Vec<u8>,
    my_turn: bool,
    /// The state's status: `open`, then the phase.
    phase: String,
    accepted: bool,
}

impl Position {
    fn update(&mut self, s: &StateView<'_>, me: &str) {
        self.version = s.version;
        self.height = s.board.len();
        self.width = s.board.first().map_or(0, |r| r.len());
        self.cells.clear();
        for row in &s.board {
            self.cells.extend_from_slice(row.as_bytes());
        }
        self.my_turn = s.to_move == me;
        if self.phase != s.status {
            self.phase = s.status.clone().into_owned();
        }
        self.accepted = if me == "black" {
            s.accepted.black
        } else {
            s.accepted.white
        };
    }

    /// A random empty point that is not an eye of `stone`'s, and not refused this turn.
    fn choose(&self, stone: u8, refused: &HashSet<usize>, rng: &mut u64) -> Option<String> {
        let (w, h) = (self.width, self.height);
        let eye = |k: usize| {
            let (x, y) = (k % w, k / w);
            let around = [
                (x > 0).then(|| k - 1),
                (x + 1 < w).then(|| k + 1),
                (y > 0).then(|| k - w),
                (y + 1 < h).then(|| k + w),
            ];
            around.into_iter().flatten().all(|n| self.cells[n] == stone)
        };
        let candidates: Vec<usize> = (0..self.cells.len())
            .filter(|&k| self.cells[k] == b'.' && !refused.contains(&k) && !eye(k))
            .collect();
        if candidates.is_empty() {
            return None;
        }
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        let k = candidates[(*rng % candidates.len() as u64) as usize];
        const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
        let column = char::from(*COLUMNS.get(k % w)?);
        Some(format!("{column}{}", h - k / w))
    }
}

/// A game's last move sent, for the watchers' broadcast times.
#[derive(Clone, Copy)]
struct SentMove {
    /// The version it will make.
    version: u64,
    at: Instant,
    by: &'static str,
    /// The node it was sent to.
    node: usize,
}

type Sent = Arc<Mutex<Option<SentMove>>>;

/// How a player's part of a game ended.
struct PlayerEnd {
    version: u64,
    over: bool,
}

/// An action in flight.
struct Pending {
    reference: u64,
    sent: Instant,
    /// The version the action was sent at.
    version: u64,
    /// The point played, when it was one.
    point: Option<usize>,
    /// A play or a pass (counted as moves), not an accept or a resignation.
    is_move: bool,
    is_pass: bool,
}

/// What a player sends when it is to act.
enum Turn {
    /// A play at the point of this name.
    Play(String),
    Pass,
    Resign,
    Accept,
}

impl Turn {
    fn action(&self) -> Action<'_> {
        match self {
            Turn::Play(name) => Action::Play(name),
            Turn::Pass => Action::Play("pass"),
            Turn::Resign => Action::Resign,
            Turn::Accept => Action::Accept,
        }
    }

    /// A play or a pass (counted as moves), not an accept or a resignation.
    fn is_move(&self) -> bool {
        matches!(self, Turn::Play(_) | Turn::Pass)
    }
}

/// One seated player (its colour and node): moves on its turn, accepts at the count, until the game is over
/// or the time is up.
async fn play(
    ctx: Arc<Ctx>,
    mut ws: Socket,
    (me, node): (&'static str, usize),
    seed: u64,
    deadline: Instant,
    sent_at: Sent,
) -> Result<PlayerEnd, BenchError> {
    let stone = if me == "black" { b'X' } else { b'O' };
    let mut rng = seed | 1;
    let mut pos = Position {
        version: 0,
        width: 0,
        height: 0,
        cells: Vec::new(),
        my_turn: false,
        phase: String::new(),
        accepted: false,
    };
    let mut known = false;
    // After an ack, act again only once the event of that version has come.
    let mut wait_for = 0u64;
    let mut pending: Option<Pending> = None;
    let mut refused: HashSet<usize> = HashSet::new();
    let mut pass_refused = false;
    // The rules want a pass now (`forced_pass`).
    let mut must_pass = false;
    let mut reference = 0u64;
    let mut acks = Vec::new();
    // With a rate: when this player's next move is due (a late move does not push the later ones back).
    // The first at a random point of the first interval, so that the games do not all move at once.
    let mut next_move: Option<Instant> = ctx.pace.map(|pace| {
        let nanos = u64::try_from(pace.as_nanos()).unwrap_or(u64::MAX).max(1);
        Instant::now() + Duration::from_nanos(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) % nanos)
    });
    // Times from the opponent's moves to their events here, and those of them sent on another node.
    let mut replies = Vec::new();
    let mut cross_node = Vec::new();
    let result = loop {
        if known && pos.phase == "over" {
            break Ok(true);
        }
        let now = Instant::now();
        if pending.is_none() && known && pos.version >= wait_for && now < deadline {
            // What to send, and the point it plays.
            let turn = match pos.phase.as_str() {
                "playing" if pos.my_turn => {
                    let point = if must_pass || refused.len() >= REFUSALS_BEFORE_PASS {
                        None
                    } else {
                        pos.choose(stone, &refused, &mut rng)
                    };
                    match point {
                        Some(name) => {
                            let k = point_index(&name, pos.width, pos.height);
                            Some((Turn::Play(name), k))
                        }
                        None if !pass_refused => Some((Turn::Pass, None)),
                        None => Some((Turn::Resign, None)),
                    }
                }
                "marking" if !pos.accepted => Some((Turn::Accept, None)),
                _ => None,
            };
            if let Some((turn, point)) = turn {
                let (is_move, is_pass) = (turn.is_move(), matches!(turn, Turn::Pass));
                if let (Some(due), true) = (next_move, is_move) {
                    tokio::time::sleep_until(due).await;
                    if Instant::now() >= deadline {
                        break Ok(false);
                    }
                }
                reference += 1;
                let sent = Instant::now();
                if is_move {
                    if let Some(pace) = ctx.pace {
                        // On schedule, or at most one move's time behind it.
                        let behind = sent.checked_sub(pace).unwrap_or(sent);
                        let due = next_move.map_or(sent, |d| d.max(behind));
                        next_move = Some(due + pace);
                    }
                    *sent_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(SentMove {
                        version: pos.version + 1,
                        at: sent,
                        by: me,
                        node,
                    });
                }
                if let Err(e) = ws.act(turn.action(), Some(pos.version), reference).await {
                    break Err(fail(format!("{me}: sending: {e}")));
                }
                pending = Some(Pending {
                    reference,
                    sent,
                    version: pos.version,
                    point,
                    is_move,
                    is_pass,
                });
            }
        }
        if pending.is_none() && Instant::now() >= deadline {
            break Ok(false);
        }
        let now = Instant::now();
        let until = if pending.is_none() && now < deadline {
            deadline.min(now + STALL)
        } else {
            now + STALL
        };
        let message = match ws.next_text_until(Some(until)).await {
            Ok(text) => text,
            Err(ClientError::Timeout) if pending.is_none() && Instant::now() >= deadline => {
                break Ok(false);
            }
            Err(ClientError::Timeout) => {
                break Err(fail(format!("{me}: no message for {} s", STALL.as_secs())));
            }
            Err(ClientError::Closed) => {
                break Err(fail(format!("{me}: the server closed the socket")));
            }
            Err(e) => break Err(fail(format!("{me}: {e}"))),
        };
        let m: Incoming<'_> = match serde_json::from_str(message.as_str()) {
            Ok(m) => m,
            Err(e) => break Err(fail(format!("{me}: unreadable message: {e}"))),
        };
        match m.kind.as_ref() {
            "state" => match serde_json::from_str::<StateView<'_>>(message.as_str()) {
                Ok(s) => {
                    if s.version != pos.version {
                        refused.clear();
                        pass_refused = false;
                        must_pass = false;
                    }
                    pos.update(&s, me);
                    known = true;
                }
                Err(e) => break Err(fail(format!("{me}: unreadable state: {e}"))),
            },
            "ack" | "error" => {
                let Some(p) = pending.take_if(|p| m.reference == Some(p.reference)) else {
                    break Err(fail(format!(
                        "{me}: an answer to no request: {}",
                        message.as_str()
                    )));
                };
                if m.kind == "ack" {
                    if p.is_move {
                        let micros =
                            u32::try_from(p.sent.elapsed().as_micros()).unwrap_or(u32::MAX);
                        acks.push(micros);
                        ctx.stats.moves.fetch_add(1, Ordering::Relaxed);
                    } else {
                        ctx.stats.other_actions.fetch_add(1, Ordering::Relaxed);
                    }
                    wait_for = m.version.unwrap_or(pos.version + 1);
                } else {
                    match m.reason.as_deref() {
                        Some("stale_version") => {
                            ctx.stats.stale.fetch_add(1, Ordering::Relaxed);
                            // The event that moved the version on may have come already.
                            wait_for = p.version + 1;
                        }
                        Some(
                            "occupied" | "suicide" | "ko" | "forced_pass" | "handicap_placement"
                            | "not_your_turn" | "not_playing" | "not_marking",
                        ) => {
                            ctx.stats.refusals.fetch_add(1, Ordering::Relaxed);
                            match p.point {
                                Some(k) => {
                                    refused.insert(k);
                                }
                                None if p.is_pass => pass_refused = true,
                                None => {
                                    break Err(fail(format!(
                                        "{me}: refused: {}",
                                        message.as_str()
                                    )));
                                }
                            }
                            // A refused move leaves the version as it was.
                            must_pass |= m.reason.as_deref() == Some("forced_pass");
                        }
                        _ => {
                            break Err(fail(format!(
                                "{me}: {}",
                                m.error.as_deref().unwrap_or(message.as_str())
                            )));
                        }
                    }
                }
            }
            _ => {
                let Some(s) = &m.state else {
                    break Err(fail(format!("{me}: an event without a state")));
                };
                if s.version != pos.version {
                    refused.clear();
                    pass_refused = false;
                    must_pass = false;
                }
                let sent = *sent_at.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(m) = sent
                    && m.version == s.version
                    && m.by != me
                {
                    let micros = u32::try_from(m.at.elapsed().as_micros()).unwrap_or(u32::MAX);
                    replies.push(micros);
                    if m.node != node {
                        cross_node.push(micros);
                    }
                }
                pos.update(s, me);
                known = true;
            }
        }
    };
    Stats::add(&ctx.stats.to_opponent, &replies);
    Stats::add(&ctx.stats.cross_node, &cross_node);
    Stats::add(&ctx.stats.acks, &acks);
    let _ = ws.close().await;
    // An acknowledged action's event may not have come yet.
    result.map(|over| PlayerEnd {
        version: pos.version.max(wait_for),
        over,
    })
}

/// The cell index of a point name on a board of this size.
fn point_index(name: &str, width: usize, height: usize) -> Option<usize> {
    const COLUMNS: &str = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let mut chars = name.chars();
    let x = COLUMNS.find(chars.next()?)?;
    let row: usize = chars.as_str().parse().ok()?;
    let y = height.checked_sub(row)?;
    (x < width).then_some(y * width + x)
}

/// The versions a spectator sees.
#[derive(Deserialize)]
struct Seen<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    version: u64,
}

/// A spectator on node `node`: counts the events and checks that versions rise by one, until it has seen the
/// last version the players saw.
async fn spectate(
    ctx: Arc<Ctx>,
    mut ws: Socket,
    from: u64,
    mut last: watch::Receiver<Option<u64>>,
    sent_at: Sent,
    node: usize,
) {
    let mut seen = Some(from);
    let mut broadcasts = Vec::new();
    let mut cross_node = Vec::new();
    let mut target: Option<(u64, Instant)> = None;
    loop {
        if let (Some((t, _)), Some(v)) = (target, seen)
            && v >= t
        {
            break;
        }
        let next = match target {
            Some((_, until)) => ws.next_text_until(Some(until)).await,
            None => tokio::select! {
                m = ws.next_text_until(None) => m,
                changed = last.changed() => {
                    let t = if changed.is_ok() { *last.borrow() } else { seen };
                    target = Some((t.unwrap_or(0), Instant::now() + Duration::from_secs(5)));
                    continue;
                }
            },
        };
        let text = match next {
            Ok(text) => text,
            Err(ClientError::Timeout) => {
                let t = target.map_or(0, |(t, _)| t);
                ctx.stats.error(format!(
                    "spectator: stopped at version {seen:?}, the players reached {t}"
                ));
                break;
            }
            Err(ClientError::Closed) => {
                ctx.stats.error("spectator: the server closed the socket");
                break;
            }
            Err(e) => {
                ctx.stats.error(format!("spectator: {e}"));
                break;
            }
        };
        let Ok(m) = serde_json::from_str::<Seen<'_>>(text.as_str()) else {
            ctx.stats
                .error(format!("spectator: unreadable message {}", text.as_str()));
            break;
        };
        if m.kind == "state" {
            if seen.is_some() {
                ctx.stats.resyncs.fetch_add(1, Ordering::Relaxed);
            }
        } else if m.kind == "presence" {
            // Who is at the board changed (a player's socket, an absence): no action, the same version.
            if seen.is_some_and(|v| m.version != v) {
                ctx.stats.version_gaps.fetch_add(1, Ordering::Relaxed);
            }
        } else {
            ctx.stats.spectator_events.fetch_add(1, Ordering::Relaxed);
            let sent = *sent_at.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(sent) = sent
                && sent.version == m.version
            {
                let micros = u32::try_from(sent.at.elapsed().as_micros()).unwrap_or(u32::MAX);
                broadcasts.push(micros);
                if sent.node != node {
                    cross_node.push(micros);
                }
            }
            if seen.is_some_and(|v| m.version != v + 1) {
                ctx.stats.version_gaps.fetch_add(1, Ordering::Relaxed);
            }
        }
        seen = Some(m.version);
    }
    Stats::add(&ctx.stats.broadcasts, &broadcasts);
    Stats::add(&ctx.stats.cross_node, &cross_node);
    let _ = ws.close().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_named_and_own_eyes_left_alone() {
        // 3×3, Black on A2 and B1: the corner A1 is Black's eye, not White's.
        let pos = Position {
            version: 0,
            width: 3,
            height: 3,
            cells: b"...X...X.".to_vec(),
            my_turn: true,
            phase: "playing".into(),
            accepted: false,
        };
        assert_eq!(point_index("A1", 3, 3), Some(6));
        assert_eq!(point_index("C3", 3, 3), Some(2));
        assert_eq!(point_index("D1", 3, 3), None);
        let mut rng = 7;
        let refused = HashSet::new();
        for _ in 0..50 {
            let p = pos.choose(b'X', &refused, &mut rng).unwrap();
            assert_ne!(p, "A1");
            assert_eq!(pos.cells[point_index(&p, 3, 3).unwrap()], b'.');
        }
        let all_but_a1: HashSet<usize> = [0, 1, 2, 4, 5, 8].into();
        assert_eq!(pos.choose(b'X', &all_but_a1, &mut rng), None);
        assert_eq!(
            pos.choose(b'O', &all_but_a1, &mut rng).as_deref(),
            Some("A1")
        );
    }

    /// A short run against an in-process server: the tool works end to end (nothing about speed is checked).
    #[test]
    fn a_short_run_plays_and_the_spectators_see_every_event() {
        let report = run(&BenchConfig {
            games: 2,
            seconds: 1.0,
            idle: 3,
            ..BenchConfig::default()
        })
        .unwrap();
        assert_eq!(report.errors, 0, "{:?}", report.error_samples);
        assert!(report.moves > 0);
        assert_eq!(report.version_gaps, 0);
        // Every player's action reached the spectator; the server's own first proposals come on top (one per
        // end of play, each after two passes).
        let players = report.moves + report.other_actions;
        assert!(
            (players..=players + report.moves / 2).contains(&report.spectator_events),
            "{} events for {players} actions",
            report.spectator_events
        );
        assert_eq!(report.idle_held, 3);
        assert_eq!(report.acks.len() as u64, report.moves);
        assert!(report.cross_node.is_empty());
    }

    /// The URL of a variable the test environment sets (`cargo xtask test` does); without it the test fails:
    /// one that quietly did not run would prove nothing.
    fn test_service(variable: &str) -> String {
        std::env::var(variable).unwrap_or_else(|_| {
            panic!(
                "{variable} is not set: this test needs PostgreSQL and NATS, which `cargo xtask test` starts \
                 and names in TESUJI_TEST_POSTGRES and TESUJI_TEST_NATS"
            )
        })
    }

    /// Two nodes in this process on one fresh PostgreSQL database with NATS between them: the moves are played
    /// across the nodes, and the watchers on the other node see them.
    #[test]
    fn two_nodes_play_and_broadcast_across_nodes() {
        let report = run(&BenchConfig {
            games: 4,
            seconds: 1.5,
            nodes: 2,
            database: Some(test_service("TESUJI_TEST_POSTGRES")),
            nats: Some(test_service("TESUJI_TEST_NATS")),
            ..BenchConfig::default()
        })
        .unwrap();
        assert_eq!(report.errors, 0, "{:?}", report.error_samples);
        assert_eq!(report.nodes, 2);
        assert!(report.moves > 0);
        assert!(!report.cross_node.is_empty());
        let (p50, p99) = (report.cross_node_ms(0.5), report.cross_node_ms(0.99));
        assert!(p50.is_some_and(|ms| ms > 0.0), "{p50:?}");
        assert!(p99.is_some_and(|ms| ms >= p50.unwrap_or(0.0)), "{p99:?}");
        assert!(
            report.to_string().contains("cross-node ms   p50"),
            "{report}"
        );
    }

    #[test]
    fn several_nodes_in_this_process_need_postgres_and_nats() {
        let config = BenchConfig {
            nodes: 2,
            database: Some("postgres://tesuji@127.0.0.1:1/tesuji".into()),
            ..BenchConfig::default()
        };
        let err = run(&config).unwrap_err().to_string();
        assert!(
            err.contains("--database") && err.contains("--nats"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }

    #[test]
    fn seats_spread_over_the_nodes() {
        let s = Seats::of_slot(3, 2);
        assert_ne!(s.black, s.white);
        let s = Seats::of_slot(4, 3);
        assert_eq!((s.black, s.white, s.spectator), (1, 2, 0));
        let s = Seats::of_slot(5, 1);
        assert_eq!((s.black, s.white, s.spectator), (0, 0, 0));
    }
}
