//! tesuji-server: games over HTTP and WebSocket, with the rules crate as the judge of every move and a database
//! (SQLite, or PostgreSQL for several nodes) as the record. Every accepted action is committed before it is answered or broadcast; at start every live game
//! is rebuilt by replaying its stored actions, and a finished game is read back only when asked for.

pub mod auth;
pub mod chat;
pub mod clocks;
pub mod cluster;
pub mod error;
pub mod game;
pub mod http;
pub mod limit;
pub mod listen;
pub mod memory;
pub mod metrics;
pub mod names;
pub mod news;
pub mod players;
pub mod ratings;
pub mod relay;
pub mod rematch;
pub mod replay;
pub mod reviews;
pub mod seeks;
pub mod store;
pub mod vacations;
pub mod web;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use clocks::{ManualTime, TimeSource};
pub use error::{Error, ServerError};
use game::{Games, GamesConfig};
pub use limit::Limits;
pub use store::Database;
use store::Stores;

/// The default grace period of a player who left a timed game before the opponent may claim it.
pub const DEFAULT_GRACE_MS: u64 = 60_000;

/// The default absence after which the opponent of a player an untimed game waits for may claim it: a week, so
/// that a player who plays a move a day, or is away for a weekend or a few days' trip, never loses a game by it,
/// while a game nobody will finish does not stay open for ever.
pub const DEFAULT_UNTIMED_CLAIM_DAYS: u64 = 7;

/// Where to listen and where to keep the data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// Default `127.0.0.1:8080`; port 0 picks a free port.
    pub address: SocketAddr,
    /// Where the data is kept: by default SQLite in `tesuji-data` (created when missing).
    pub database: Database,
    pub limits: Limits,
    /// The time of the game clocks and their timers: real by default, manual in tests.
    pub time: TimeSource,
    /// How long a player may be away from a timed game before the opponent may claim it (docs/API.md).
    pub grace_ms: u64,
    /// How long the player an untimed game waits for (their turn, their acceptance of a count) may be away
    /// before the opponent may claim it (docs/API.md).
    pub untimed_claim_ms: u64,
    /// Whether the turn that ends play brings the estimate's first dead-stone proposal (docs/API.md); without
    /// it, the players mark every dead stone themselves.
    pub first_proposal: bool,
    /// Whether the session cookie is marked `Secure`: for a server reached over HTTPS, usually through a proxy
    /// that terminates TLS. Off by default, since a plain-HTTP server could not keep anyone signed in with it.
    pub secure_cookies: bool,
    /// The most finished games kept in memory once nobody watches them (each a few hundred KB for a long
    /// 19×19 game); others are read from the store when asked for.
    pub finished_cache: usize,
    /// NATS, for a node that is one of several on one PostgreSQL database (`nats://HOST:4222`): the nodes
    /// tell each other of their changes through it. `None`: this node is alone.
    pub nats: Option<String>,
    /// Playouts per position of a finished game's review (docs/API.md).
    pub review_playouts: u64,
    /// Whether this node computes the reviews asked for (on by default); a node without takes requests and
    /// shows reviews, and another node of the site computes them.
    pub computes_reviews: bool,
}

/// The default number of finished games kept in memory.
pub const DEFAULT_FINISHED_CACHE: usize = 128;

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            address: SocketAddr::from(([127, 0, 0, 1], 8080)),
            database: Database::Sqlite(PathBuf::from("tesuji-data")),
            limits: Limits::default(),
            time: TimeSource::real(),
            grace_ms: DEFAULT_GRACE_MS,
            untimed_claim_ms: DEFAULT_UNTIMED_CLAIM_DAYS * 86_400_000,
            first_proposal: true,
            secure_cookies: false,
            finished_cache: DEFAULT_FINISHED_CACHE,
            nats: None,
            review_playouts: reviews::REVIEW_PLAYOUTS,
            computes_reviews: true,
        }
    }
}

/// What the routes read: the core's state and each feature's service. A feature is wired here by a field (and
/// its routes by a line in [`start_with_stores`]).
#[derive(Clone, axum::extract::FromRef)]
struct Site {
    core: http::AppState,
    chat: Arc<chat::Chat>,
    seeks: Arc<seeks::Seeks>,
    news: Arc<news::News>,
    players: Arc<players::Players>,
    /// No routes: held here so that its task lives as long as the site.
    ratings: Arc<ratings::Ratings>,
    rematches: Arc<rematch::Rematches>,
    reviews: Arc<reviews::Reviews>,
    vacations: Arc<vacations::Vacations>,
}

/// A started server: its address, and a handle to stop it.
pub struct Running {
    pub address: SocketAddr,
    games: Arc<Games>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServerError>>,
}

impl Running {
    /// Stops accepting requests, lets requests in flight finish, closes the database.
    pub async fn stop(mut self) -> Result<(), ServerError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.wait().await
    }

    /// How many games are in memory now: live, and finished in the cache.
    pub fn resident(&self) -> game::ResidentCount {
        self.games.resident()
    }

    /// Waits until the server ends (it ends on `stop` only, or on an error).
    pub async fn wait(&mut self) -> Result<(), ServerError> {
        match (&mut self.task).await {
            Ok(r) => r,
            Err(e) => Err(ServerError::Io(std::io::Error::other(e))),
        }
    }
}

/// Opens the database (creating or migrating it), rebuilds the games, binds the address and starts serving in
/// the background.
pub async fn start(config: ServerConfig) -> Result<Running, ServerError> {
    let store = store::open(&config.database).await?;
    start_with_stores(config, Stores::of(store)).await
}

/// [`start`] on stores of the caller's (its `database` unused): for tests that put faults between the server
/// and its database.
pub async fn start_with_stores(
    config: ServerConfig,
    stores: Stores,
) -> Result<Running, ServerError> {
    let site = Arc::clone(&stores.site);
    let accounts = Arc::new(auth::Accounts::new(
        Arc::clone(&stores.accounts),
        Arc::clone(&stores.sessions),
        config.secure_cookies,
        config.time.clone(),
    ));
    let games = Games::load(
        stores.clone(),
        Arc::clone(&accounts),
        Arc::new(relay::Relay::default()),
        GamesConfig {
            time: config.time.clone(),
            grace_ms: config.grace_ms,
            untimed_claim_ms: config.untimed_claim_ms,
            finished_cache: config.finished_cache,
            first_proposal: config.first_proposal,
            open_tables: config.limits.open_tables_per_user,
            shared_timers: config.nats.is_some(),
        },
    )
    .await?;
    // This node's number among several: drawn at each start.
    let node: u64 = rand::random();
    let cluster = match &config.nats {
        Some(url) => {
            if !matches!(config.database, Database::Postgres(_)) {
                return Err(ServerError::Nats(
                    "--nats joins the nodes of one PostgreSQL database: give --database postgres://... too"
                        .into(),
                ));
            }
            let site_name = site.site().await?;
            Some(cluster::Cluster::join(url, &site_name, Arc::clone(&games), node).await?)
        }
        None => None,
    };
    let lease = cluster
        .is_some()
        .then(|| game::timer::keep_lease(Arc::clone(&games), Arc::clone(&site), node));
    let listener = TcpListener::bind(config.address)
        .await
        .map_err(|source| ServerError::Bind {
            address: config.address,
            source,
        })?;
    let address = listener.local_addr()?;
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let record_workers = std::thread::available_parallelism().map_or(1, usize::from);
    let seeks = seeks::Seeks::start(
        Arc::clone(&games),
        Arc::clone(&accounts),
        Arc::clone(&stores.seeks),
        Arc::clone(&stores.ratings),
        config.time.clone(),
        config.limits.seeks_per_user,
    )
    .await?;
    let chat = chat::Chat::new(
        Arc::clone(&games),
        Arc::clone(&stores.chat),
        Arc::clone(&stores.accounts),
        config.time.clone(),
    );
    let app = Arc::new(http::App {
        games: Arc::clone(&games),
        accounts,
        limits: limit::Limiters::new(config.limits, config.time.clone()),
        record_work: Arc::new(tokio::sync::Semaphore::new(record_workers)),
        record_workers,
        site: Arc::clone(&site),
        health: http::health::Probe::default(),
        metrics: metrics::global(),
        nats: cluster.as_ref().map(cluster::Cluster::client),
        hooks: http::hooks::Hooks {
            feeds: vec![chat.clone()],
            comments: vec![chat.clone()],
            lobby: vec![seeks.clone()],
            leaving: vec![seeks.clone()],
        },
    });
    let sweeper = {
        let app = Arc::clone(&app);
        tokio::spawn(async move {
            // The first sweep a period after the start, not at once (an interval's first tick is immediate):
            // nothing is stale yet, and a trim racing the first requests would drop what they just read.
            let period = std::time::Duration::from_secs(60);
            let mut every = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            loop {
                every.tick().await;
                app.limits.sweep();
                app.accounts.sweep();
                app.games.trim();
                // What other bursts took (sockets, games read and let go) goes back to the system too.
                let _ = tokio::task::spawn_blocking(memory::give_back).await;
            }
        })
    };
    let state = Site {
        chat,
        seeks,
        news: Arc::new(news::News::new(
            Arc::clone(&stores.news),
            Arc::clone(&app.accounts),
            config.time.clone(),
        )),
        players: Arc::new(players::Players::new(
            Arc::clone(&games),
            Arc::clone(&app.accounts),
            Arc::clone(&stores.ratings),
        )),
        reviews: Arc::new(reviews::Reviews::new(
            Arc::clone(&games),
            Arc::clone(&stores.reviews),
            Arc::clone(&stores.games),
            config.time.clone(),
            config.review_playouts,
        )),
        ratings: Arc::new(ratings::Ratings::new(
            Arc::clone(&games),
            Arc::clone(&stores.ratings),
            Arc::clone(&stores.games),
        )),
        rematches: rematch::Rematches::new(Arc::clone(&games), Arc::clone(&stores.games)),
        vacations: Arc::new(vacations::Vacations::new(
            Arc::clone(&games),
            Arc::clone(&stores.vacations),
            config.time.clone(),
        )),
        core: Arc::clone(&app),
    };
    // Alone, this node rates what was left unrated now; one of several does when it takes the timers.
    if let Some(ended) = games.ranked_endings() {
        state.ratings.start(ended, config.nats.is_none());
    }
    if config.computes_reviews {
        state.reviews.start();
    }
    let features = Router::new()
        .merge(chat::routes::routes())
        .merge(news::routes::routes())
        .merge(players::routes::routes())
        .merge(rematch::routes::routes())
        .merge(reviews::routes::routes())
        .merge(seeks::routes::routes())
        .merge(vacations::routes::routes())
        .with_state(state.clone());
    let uploads = Router::new()
        .merge(reviews::routes::uploads())
        .with_state(state);
    let router = http::router(app, features, uploads);
    let games_of_task = Arc::clone(&games);
    let task = tokio::spawn(async move {
        let served = listen::serve(listener, router, async {
            let _ = stop_rx.await;
        })
        .await;
        sweeper.abort();
        if let Some(lease) = lease {
            lease.abort();
            game::timer::give_up_lease(&games_of_task, site.as_ref(), node).await;
        }
        if let Some(cluster) = cluster {
            cluster.leave().await;
        }
        // Close the database even when serving failed, so that the WAL is checkpointed.
        site.close().await?;
        served.map_err(ServerError::Io)
    });
    tracing::info!(%address, "serving");
    Ok(Running {
        address,
        games,
        stop: Some(stop_tx),
        task,
    })
}

/// `tesuji serve`: serves until Ctrl-C, printing the address once listening.
pub async fn serve(config: ServerConfig) -> Result<(), ServerError> {
    let running = start(config).await?;
    println!("tesuji is serving http://{}", running.address);
    // If the signal handler cannot be installed, serve until killed rather than stop at once.
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
    running.stop().await
}

/// The blocking form of [`serve`]: builds a multi-threaded tokio runtime and runs the server on it.
pub fn run(config: ServerConfig) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(config))
}
