//! The `tesuji` command: a thin layer that turns arguments into calls on the library crates.

use std::process::ExitCode;
use std::time::{Duration, Instant};

mod matches;
mod nnbench;
mod records;
mod review;
mod train;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use tesuji_bot::playout::{Mode, Playouts};
use tesuji_rules::{Color, Game, Grid, Rules, Size, perft::perft};

#[derive(Parser)]
#[command(
    name = "tesuji",
    version,
    about = "Go rules engine, tools and server (no command: serve)"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve games over HTTP and WebSocket (the default command).
    Serve {
        /// Address to listen on.
        #[arg(long, env = "TESUJI_ADDRESS", default_value = "127.0.0.1:8080")]
        address: std::net::SocketAddr,
        /// Folder of the SQLite database (created if missing); unused with --database.
        #[arg(long, env = "TESUJI_DATA_DIR", default_value = "tesuji-data")]
        data_dir: PathBuf,
        /// A PostgreSQL database instead of SQLite (`postgres://USER@HOST:PORT/DB`, created if missing and the
        /// user may): what several nodes serving one site share.
        #[arg(long, env = "TESUJI_DATABASE", value_parser = tesuji_server::Database::postgres)]
        database: Option<tesuji_server::Database>,
        /// NATS (`nats://HOST:4222`), for one of several nodes serving one site on one PostgreSQL --database:
        /// the nodes tell each other of their changes through it.
        #[arg(long, env = "TESUJI_NATS", requires = "database")]
        nats: Option<String>,
        /// No first dead-stone proposal from the estimate when play ends: the players mark every dead stone.
        #[arg(long)]
        no_first_proposal: bool,
        /// Seconds a player may be away from a timed game before the opponent may claim it (1 to 86400).
        #[arg(long, env = "TESUJI_GRACE", default_value_t = 60,
              value_parser = clap::value_parser!(u64).range(1..=86_400))]
        grace: u64,
        /// Days the player an untimed game waits for (to move, or to accept a count) may be away before the
        /// opponent may claim it (1 to 365): long enough for a move a day and a few days away.
        #[arg(long, env = "TESUJI_UNTIMED_CLAIM_DAYS", default_value_t = tesuji_server::DEFAULT_UNTIMED_CLAIM_DAYS,
              value_parser = clap::value_parser!(u64).range(1..=365))]
        untimed_claim_days: u64,
        /// Mark the session cookie `Secure`: set this when players reach the server over HTTPS (say, through a
        /// proxy that terminates TLS); browsers then never send the cookie over plain HTTP.
        #[arg(long, env = "TESUJI_SECURE_COOKIES")]
        secure_cookies: bool,
        /// The server is behind one reverse proxy: sign-in rate limits count per client address taken from the
        /// last entry of `X-Forwarded-For`, not per the proxy's address.
        #[arg(long, env = "TESUJI_BEHIND_PROXY")]
        behind_proxy: bool,
        /// Finished games kept in memory once nobody watches them (0 to 100000); the others are read from
        /// the database when asked for. A long 19×19 game takes a few hundred KB.
        #[arg(long, env = "TESUJI_CACHE_GAMES", default_value_t = tesuji_server::DEFAULT_FINISHED_CACHE as u64,
              value_parser = clap::value_parser!(u64).range(0..=100_000))]
        cache_games: u64,
        /// Playouts per position of a finished game's review (10 to 1000000); one review at a time per node,
        /// on one thread.
        #[arg(long, env = "TESUJI_REVIEW_PLAYOUTS", default_value_t = tesuji_server::reviews::REVIEW_PLAYOUTS,
              value_parser = clap::value_parser!(u64).range(10..=1_000_000))]
        review_playouts: u64,
        /// This node computes no reviews: it takes requests and shows reviews, and another node of the site
        /// (on the same database) computes them.
        #[arg(long, env = "TESUJI_NO_REVIEWS")]
        no_reviews: bool,
    },
    /// Count move sequences (perft) from a position, printing `DEPTH COUNT` for every depth up to N.
    Perft {
        /// Rules spec, e.g. `tromp-taylor` or `chinese:ko=situational,suicide=multi`.
        #[arg(long, default_value = "tromp-taylor")]
        rules: String,
        /// Start position: rows from the top separated by `/` (`.` `b` `w`), a space, the colour to move
        /// (`b` or `w`), e.g. ".w.bw/wbbbw/w.bww/bbbw./wwww. b". Its size overrides the spec's.
        #[arg(long)]
        position: Option<String>,
        /// Largest depth.
        #[arg(long)]
        depth: u32,
    },
    /// Review a game record with the search: the win rate and score after every move, the biggest mistakes,
    /// and optionally the record with a comment on each move and a graph.
    Analyze {
        /// The SGF file.
        file: PathBuf,
        /// Rules spec to use instead of the record's RU.
        #[arg(long)]
        rules: Option<String>,
        /// Playouts per position.
        #[arg(long, default_value_t = 2000)]
        playouts: u64,
        /// Search threads.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Write the record here, each move's node commented with the win rate, score and best line.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write the win-rate graph here, as SVG.
        #[arg(long)]
        graph: Option<PathBuf>,
    },
    /// Replay a game record's main line and count it: the result and its breakdown.
    Score {
        /// The SGF file.
        file: PathBuf,
        /// Rules spec to use instead of the record's RU.
        #[arg(long)]
        rules: Option<String>,
        /// Count the game under every ruleset (Tromp-Taylor, ideal, bga's counting x AGA options, AGA, Chinese,
        /// Japanese, Korean, New Zealand), one line each: the result and the totals, or the first move that
        /// ruleset refuses. The record's komi applies unless --komi is given.
        #[arg(long, conflicts_with = "rules")]
        all_rules: bool,
        /// Komi instead of the record's KM (e.g. 6.5, or -3 for a reverse komi).
        #[arg(long, allow_negative_numbers = true)]
        komi: Option<String>,
        /// Dead stones, as GTP vertices separated by commas (each marks its whole chain). Default: the stones
        /// the record marks dead (TB/TW on its last node).
        #[arg(long)]
        dead: Option<String>,
        /// Take the dead stones from the estimator (playouts and Benson's unconditional life) instead of the
        /// record. Stones it is unsure of count as alive and are listed on standard error, and the exit status
        /// is then 3 (the result is printed all the same).
        #[arg(long, conflicts_with = "dead")]
        auto_dead: bool,
        /// Print JSON: {"result": ..., "black": {...}, "white": {...}, "dead": [...], "unsure": [...]}.
        #[arg(long)]
        json: bool,
    },
    /// Run the GTP engine on standard input and output.
    Gtp {
        /// Rules spec (the board size and komi can still be set by GTP commands).
        #[arg(long, default_value = "chinese")]
        rules: String,
        /// The bot behind genmove: `simple`, `mcts` (tree search with playouts, one second per move on two
        /// threads) with optional settings, e.g. `mcts:playouts=5000,threads=1` or `mcts:time=2,resign=0`, or
        /// `nn` (the network's search; needs --model), e.g. `nn:visits=400` or `nn:time=2`. `nn` when a network
        /// is given, `mcts` otherwise.
        #[arg(long)]
        bot: Option<String>,
        /// Seed of the bot.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// A KataGo network file (`.bin.gz`, `.bin`, `.txt.gz`, `.txt`; model versions 8 to 17) for
        /// `kata-raw-nn`.
        #[arg(long, env = "TESUJI_MODEL")]
        model: Option<std::path::PathBuf>,
    },
    /// Referee games between two GTP engines.
    Match(matches::MatchArgs),
    /// Train the bot: `tesuji train patterns`.
    Train {
        #[command(subcommand)]
        what: TrainCommand,
    },
    /// SGF tools.
    Sgf {
        #[command(subcommand)]
        what: SgfCommand,
    },
    /// Print a one-time link that sets a new password for an account (valid for 24 hours, used once; it ends
    /// every session of the account). No mail is sent: give the link to the account's owner.
    ResetPassword {
        /// The account's name (any case).
        name: String,
        /// Folder of the SQLite database; unused with --database.
        #[arg(long, env = "TESUJI_DATA_DIR", default_value = "tesuji-data")]
        data_dir: PathBuf,
        /// The site's PostgreSQL database instead of SQLite.
        #[arg(long, env = "TESUJI_DATABASE", value_parser = tesuji_server::Database::postgres)]
        database: Option<tesuji_server::Database>,
        /// The address at which players reach the site, as the link starts.
        #[arg(long, default_value = "http://localhost:8080")]
        base_url: String,
    },
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: Bench,
    },
}

#[derive(Subcommand)]
enum TrainCommand {
    /// Learn the gammas of the bot's move features from game records (minorization-maximization) and write
    /// them as the bot's gammas file.
    Patterns {
        /// SGF files (each may hold several games) or folders searched for them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The gammas file to write.
        #[arg(long)]
        out: PathBuf,
        /// Rounds of updates (each updates every feature group once).
        #[arg(long, default_value_t = 20)]
        iterations: usize,
        /// Patterns played fewer times than this share one gamma.
        #[arg(long, default_value_t = 3)]
        min_played: u32,
        /// Hold every N-th game out of training and report how well the model predicts its moves (0: none).
        #[arg(long, default_value_t = 10)]
        hold_out: usize,
        /// Learn only from the turns of the players whose name (PB or PW) contains this, in any case; a game
        /// where neither does is skipped. Every turn when absent.
        #[arg(long)]
        player: Option<String>,
    },
}

#[derive(Subcommand)]
enum SgfCommand {
    /// Print the diagnostics of each file; exit 1 when any has an error.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print the canonical rewrite of a file (UTF-8).
    Fmt { file: PathBuf },
}

#[derive(Subcommand)]
enum Bench {
    /// Random playouts from the empty board: playouts/s, moves/s, moves per playout, Black's win rate.
    Playouts {
        /// Board size (1 to 25).
        #[arg(long, default_value_t = 9)]
        size: u8,
        #[arg(long, value_enum, default_value_t = PlayoutMode::Light)]
        mode: PlayoutMode,
        /// How long to run.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Run exactly this many playouts instead of for a time (for instruction counts and profiles).
        #[arg(long)]
        playouts: Option<u64>,
        /// Random seed, for reproducible runs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Komi for the win rate (White's, in points).
        #[arg(long, default_value_t = 7.5)]
        komi: f64,
    },
    /// A KataGo network's evaluations, one at a time on one thread, and with `--katago` KataGo's own beside
    /// them (alternating position by position): medians, the ratio, GFLOP/s and the share of the peak.
    Nn {
        /// The network file.
        #[arg(long, env = "TESUJI_MODEL")]
        model: PathBuf,
        /// Board size (2 to 19).
        #[arg(long, default_value_t = 19)]
        size: u8,
        /// Positions to evaluate (random games cut at different lengths).
        #[arg(long, default_value_t = 20)]
        positions: usize,
        /// KataGo's GTP command, e.g. "katago gtp -model M -config C -override-config numEigenThreadsPerModel=1".
        #[arg(long)]
        katago: Option<String>,
        /// Also evaluate on this many threads at once and report the scaling.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Also evaluate the positions this many to a call (one thread) and report the gain.
        #[arg(long, default_value_t = 1)]
        batch: usize,
        /// The core's peak single-precision GFLOP/s, for the share reached (an AVX2 core with two FMA units at
        /// 2.45 GHz: 78.4).
        #[arg(long, default_value_t = 78.4)]
        peak_gflops: f64,
        /// Seed of the random games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Parse SGF files and replay their games with full legality checking: MB/s parsed, moves/s replayed.
    Replay {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Times to repeat the work, for steadier figures.
        #[arg(long, default_value_t = 20)]
        rounds: u32,
    },
    /// Load the server over loopback WebSockets: N games at once, each with two players and a spectator;
    /// moves/s, acknowledgement times, and memory per idle socket. With several nodes, a game's players and
    /// spectator are on different nodes, and the broadcast times across nodes are reported too.
    Server {
        /// Games played at once.
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// How long to play.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Idle sockets to hold open besides (watching a table nobody joins).
        #[arg(long, default_value_t = 0)]
        idle: usize,
        /// A running server to load, e.g. http://127.0.0.1:8080 (its rate limits apply); once per node for
        /// several nodes of one site. By default a server is started in this process on a fresh temporary data
        /// directory, with rate limits raised.
        #[arg(long)]
        url: Vec<String>,
        /// How many nodes to start in this process; more than one needs --database and --nats.
        #[arg(long, default_value_t = 1, conflicts_with = "url",
              value_parser = clap::value_parser!(u64).range(1..))]
        nodes: u64,
        /// Run the servers started in this process on PostgreSQL: a URL whose database name is a prefix
        /// (`postgres://USER@HOST:PORT/tesuji`); a fresh database `tesuji_bench_...` is made there and dropped
        /// after. By default the server keeps its data in SQLite in a temporary folder.
        #[arg(long, conflicts_with = "url")]
        database: Option<String>,
        /// The NATS server through which the nodes started in this process tell each other their changes
        /// (`nats://HOST:PORT`).
        #[arg(long, conflicts_with = "url")]
        nats: Option<String>,
        /// Rules spec of the games.
        #[arg(long, default_value = "chinese:size=19")]
        rules: String,
        /// Moves per second in all, spread over the games (by default each move as soon as it may be played).
        #[arg(long)]
        rate: Option<f64>,
    },
    /// Fill a data directory with finished games (only the missing ones), start `tesuji serve` on it, and
    /// report the time until it answers, its memory at idle, and the times of reading old games and pages.
    Store {
        /// The data directory (created when missing, kept afterwards).
        #[arg(long)]
        data_dir: PathBuf,
        /// How many finished games the directory should hold.
        #[arg(long)]
        games: u64,
        /// How many live games (19×19, 200 moves, in play) it should hold.
        #[arg(long, default_value_t = 0)]
        live: u64,
        /// Requests timed of each kind (state, SGF, replay, archive page, player page).
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        samples: u64,
        /// Seed of the generated games and of the requests.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum PlayoutMode {
    Light,
    Uniform,
    Rules,
    Policy,
}

/// Issues a password reset for account `name` and prints its link.
fn reset_password(
    name: &str,
    data_dir: PathBuf,
    database: Option<tesuji_server::Database>,
    base_url: &str,
) -> Result<()> {
    let database = match database {
        Some(d) => d,
        None => {
            // Opening would make an empty database: a mistyped folder is an error instead.
            let file = data_dir.join(tesuji_server::store::sqlite::DATABASE_FILE);
            if !file.is_file() {
                bail!("no database in {}", data_dir.display());
            }
            tesuji_server::Database::Sqlite(data_dir)
        }
    };
    let token = tesuji_server::auth::issue_reset_now(&database, name)?;
    println!("{}/reset#{token}", base_url.trim_end_matches('/'));
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tesuji: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    // No command means `serve`, with clap's own defaults and environment variables (and their errors).
    let command = match cli.command {
        Some(c) => c,
        None => match Cli::try_parse_from(["tesuji", "serve"]) {
            Ok(Cli { command: Some(c) }) => c,
            Ok(_) => bail!("no command"),
            Err(e) => e.exit(),
        },
    };
    match command {
        Command::Serve {
            address,
            data_dir,
            database,
            nats,
            no_first_proposal,
            grace,
            untimed_claim_days,
            secure_cookies,
            behind_proxy,
            cache_games,
            review_playouts,
            no_reviews,
        } => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| "info".into()),
                )
                .with_writer(std::io::stderr)
                .init();
            tesuji_server::run(tesuji_server::ServerConfig {
                address,
                database: database.unwrap_or(tesuji_server::Database::Sqlite(data_dir)),
                nats,
                first_proposal: !no_first_proposal,
                grace_ms: grace * 1000,
                untimed_claim_ms: untimed_claim_days * 86_400_000,
                secure_cookies,
                finished_cache: usize::try_from(cache_games).unwrap_or(usize::MAX),
                review_playouts,
                computes_reviews: !no_reviews,
                limits: tesuji_server::Limits {
                    behind_proxy,
                    ..tesuji_server::Limits::default()
                },
                ..tesuji_server::ServerConfig::default()
            })
            .context("the server stopped")
        }
        Command::ResetPassword {
            name,
            data_dir,
            database,
            base_url,
        } => reset_password(&name, data_dir, database, &base_url),
        Command::Perft {
            rules,
            position,
            depth,
        } => run_perft(&rules, position.as_deref(), depth),
        Command::Bench {
            what:
                Bench::Playouts {
                    size,
                    mode,
                    seconds,
                    playouts,
                    seed,
                    komi,
                },
        } => bench_playouts(size, mode, seconds, playouts, seed, komi),
        Command::Bench {
            what:
                Bench::Nn {
                    model,
                    size,
                    positions,
                    katago,
                    threads,
                    batch,
                    peak_gflops,
                    seed,
                },
        } => {
            if !(2..=19).contains(&size) {
                bail!("bad --size {size}: KataGo's networks take boards of 2 to 19 lines");
            }
            if positions == 0 || threads == 0 || batch == 0 {
                bail!("--positions, --threads and --batch must be at least 1");
            }
            let model = tesuji_nn::model::Model::open(&model)
                .with_context(|| format!("bad --model {}", model.display()))?;
            let network = tesuji_nn::network::Network::new(model);
            nnbench::run(
                &network,
                &nnbench::Settings {
                    size,
                    positions,
                    katago,
                    threads,
                    batch,
                    peak_gflops,
                    seed,
                },
            )
        }
        Command::Bench {
            what: Bench::Replay { files, rounds },
        } => records::bench_replay(&files, rounds),
        Command::Bench {
            what:
                Bench::Server {
                    games,
                    seconds,
                    idle,
                    url,
                    nodes,
                    database,
                    nats,
                    rules,
                    rate,
                },
        } => {
            let config = tesuji_load::server::BenchConfig {
                games,
                seconds,
                idle,
                urls: url,
                nodes: usize::try_from(nodes).unwrap_or(usize::MAX),
                database,
                nats,
                rules,
                rate,
            };
            print!("{}", tesuji_load::server::run(&config)?);
            Ok(())
        }
        Command::Bench {
            what:
                Bench::Store {
                    data_dir,
                    games,
                    live,
                    samples,
                    seed,
                },
        } => {
            let config = tesuji_load::store::StoreBenchConfig {
                data_dir,
                games,
                live,
                samples: usize::try_from(samples).unwrap_or(usize::MAX),
                seed,
                server: std::env::current_exe().context("the tesuji binary's path")?,
            };
            print!("{}", tesuji_load::store::run(&config)?);
            Ok(())
        }
        Command::Analyze {
            file,
            rules,
            playouts,
            threads,
            out,
            graph,
        } => review::analyze(
            &file,
            rules.as_deref(),
            playouts,
            threads,
            out.as_deref(),
            graph.as_deref(),
        ),
        Command::Score {
            file,
            rules,
            komi,
            dead,
            auto_dead,
            json,
            all_rules,
        } => {
            let from = match (&dead, auto_dead) {
                (_, true) => records::DeadFrom::Estimate,
                (Some(list), false) => records::DeadFrom::List(list),
                (None, false) => records::DeadFrom::Record,
            };
            let unsure = records::score(
                &file,
                rules.as_deref(),
                komi.as_deref(),
                from,
                json,
                all_rules,
            )?;
            if !unsure.is_empty() {
                // The count took these stones as alive; a script must not take the result as final.
                eprintln!(
                    "tesuji: {}: unsure stones, counted alive: {}",
                    file.display(),
                    unsure.join(" ")
                );
                use std::io::Write;
                let _ = std::io::stdout().flush();
                std::process::exit(3);
            }
            Ok(())
        }
        Command::Train {
            what:
                TrainCommand::Patterns {
                    paths,
                    out,
                    iterations,
                    min_played,
                    hold_out,
                    player,
                },
        } => {
            let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            let only = player
                .as_ref()
                .map_or(String::new(), |p| format!(" --player {p}"));
            // The command as it could be typed again (the output aside, which the file itself is).
            let command = format!(
                "tesuji train patterns --iterations {iterations} --min-played {min_played} \
                 --hold-out {hold_out}{only} {}",
                shown.join(" ")
            );
            let settings = train::Settings {
                out,
                iterations,
                min_played,
                hold_out,
                player,
            };
            train::patterns(&paths, &settings, &command)
        }
        Command::Sgf {
            what: SgfCommand::Check { files },
        } => records::check(&files),
        Command::Gtp {
            rules,
            bot,
            seed,
            model,
        } => {
            let spec = rules;
            let rules: Rules = spec
                .parse()
                .with_context(|| format!("bad --rules {spec:?}"))?;
            // The engine starts every board with the spec's handicap: one that does not fit is refused here.
            tesuji_rules::Game::new(rules).with_context(|| format!("bad --rules {spec:?}"))?;
            let bot_name =
                bot.unwrap_or_else(|| if model.is_some() { "nn" } else { "mcts" }.into());
            let bot = bot_name
                .parse::<tesuji_gtp::BotKind>()
                .with_context(|| format!("bad --bot {bot_name:?}"))?;
            if matches!(bot, tesuji_gtp::BotKind::Nn(_)) && model.is_none() {
                bail!(
                    "--bot {bot_name} needs a network: give one with --model FILE (or TESUJI_MODEL)"
                );
            }
            let network = match model {
                Some(path) => {
                    let model = tesuji_nn::model::Model::open(&path)
                        .with_context(|| format!("bad --model {}", path.display()))?;
                    Some(std::sync::Arc::new(tesuji_nn::network::Network::new(model)))
                }
                None => None,
            };
            let config = tesuji_gtp::EngineConfig {
                rules,
                bot,
                seed,
                network,
            };
            // Read on the engine's own input thread (an analysis streams until the next line).
            let stdin = std::io::BufReader::new(std::io::stdin());
            tesuji_gtp::run(stdin, std::io::stdout().lock(), config)
                .context("GTP input or output failed")
        }
        Command::Match(args) => matches::run(args),
        Command::Sgf {
            what: SgfCommand::Fmt { file },
        } => records::fmt(&file),
    }
}

/// Reads `ROWS COLOUR`.
fn parse_position(text: &str) -> Result<(Grid, Color)> {
    let mut parts = text.split_whitespace();
    let (Some(rows), Some(colour), None) = (parts.next(), parts.next(), parts.next()) else {
        bail!("bad --position {text:?}: expected ROWS and a colour, e.g. \"..b/.w./... b\"");
    };
    let grid = Grid::from_diagram(rows).with_context(|| format!("bad --position rows {rows:?}"))?;
    let to_move: Color = colour
        .parse()
        .with_context(|| format!("bad --position colour {colour:?}: expected b or w"))?;
    Ok((grid, to_move))
}

fn run_perft(spec: &str, position: Option<&str>, depth: u32) -> Result<()> {
    let mut rules: Rules = spec
        .parse()
        .with_context(|| format!("bad --rules {spec:?}"))?;
    let (grid, to_move) = match position {
        Some(text) => parse_position(text)?,
        None => (Grid::new(rules.size), Color::Black),
    };
    rules.size = grid.size();
    let game = Game::from_position(rules, &grid, to_move).context("bad --position")?;
    for d in 0..=depth {
        println!("{d} {}", perft(&game, d));
    }
    Ok(())
}

fn bench_playouts(
    size: u8,
    mode: PlayoutMode,
    seconds: f64,
    count: Option<u64>,
    seed: u64,
    komi: f64,
) -> Result<()> {
    let Some(size) = Size::square(size) else {
        bail!("bad --size {size}: use 1 to 25");
    };
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0) {
        bail!("bad --seconds {seconds}: use a positive number of seconds up to a day");
    }
    let mode = match mode {
        PlayoutMode::Light => Mode::Light,
        PlayoutMode::Uniform => Mode::Uniform,
        PlayoutMode::Rules => Mode::Rules,
        PlayoutMode::Policy => Mode::Policy,
    };
    let mut playouts = Playouts::new(size, seed);
    let budget = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    let (mut n, mut moves, mut black_wins) = (0u64, 0u64, 0u64);
    let batch = count.map_or(64, |c| c.max(1));
    // Check the clock only every few playouts so timing stays out of the measurement.
    while n == 0 || (count.is_none() && start.elapsed() < budget) {
        for _ in 0..batch {
            let o = playouts.run(mode);
            n += 1;
            moves += o.moves as u64;
            black_wins += u64::from(o.margin as f64 > komi);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("size {size} mode {mode:?} playouts {n} seconds {secs:.2}");
    println!("playouts/s {:.0}", n as f64 / secs);
    println!("moves/s {:.0}", moves as f64 / secs);
    println!("moves/playout {:.2}", moves as f64 / n as f64);
    println!(
        "black win rate {:.4} (komi {komi})",
        black_wins as f64 / n as f64
    );
    Ok(())
}
