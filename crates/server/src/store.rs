//! Storage behind one interface, SQLite (embedded, the default) or PostgreSQL (for several nodes), without the
//! game logic knowing which. Futures are boxed so that the server can hold an `Arc<dyn Store>` chosen at start.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

pub use tesuji_rating::Rating;

/// A game row's columns, as `stored_game` reads them. (Macros, so that queries stay static text.)
macro_rules! game_columns {
    () => {
        "id, rules, created, state, black_user, white_user, bot, bot_color, opponent, invite, joined, \
         time_control, ranked, rematch_of, undo"
    };
}

/// A user row's columns, as `user_row` reads them (the password hash apart).
macro_rules! user_columns {
    () => {
        "id, name, password_hash IS NULL AS guest, created, rating, rating_deviation AS deviation, \
         rating_volatility AS volatility"
    };
}

/// A seek row's columns and join (`s` the seek, `u` its seeker), as `seek_row` reads them.
macro_rules! seek_listing {
    () => {
        "SELECT s.id, s.user_id, u.name, u.rating, u.password_hash IS NULL AS guest, s.rules, s.size, s.speed, \
         s.ranked, s.min_rating, s.max_rating, s.handicap, s.at_ms, s.taken, s.game_id \
         FROM seeks s JOIN users u ON u.id = s.user_id"
    };
}

/// A listing row's columns and joins (`g` the game, `b` and `w` its seated users), as `game_row` reads
/// them.
macro_rules! listing {
    () => {
        "SELECT g.id, g.rules, g.created, g.state, g.black_user, g.white_user, g.bot, g.bot_color, \
         g.opponent, g.invite, g.joined, g.time_control, g.ranked, g.rematch_of, g.undo, g.move_count, g.result, g.ended, g.moves_played, \
         b.name AS b_name, b.password_hash IS NULL AS b_guest, b.created AS b_created, \
         b.rating AS b_rating, b.rating_deviation AS b_deviation, b.rating_volatility AS b_volatility, \
         w.name AS w_name, w.password_hash IS NULL AS w_guest, w.created AS w_created, \
         w.rating AS w_rating, w.rating_deviation AS w_deviation, w.rating_volatility AS w_volatility \
         FROM games g LEFT JOIN users b ON b.id = g.black_user LEFT JOIN users w ON w.id = g.white_user"
    };
}

mod appends;
pub mod postgres;
pub mod sqlite;

/// Where the data is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// An SQLite file in this folder (created when missing): one node.
    Sqlite(PathBuf),
    /// A PostgreSQL database at this URL (`postgres://USER@HOST:PORT/DB`), created when missing and the user
    /// may: any number of nodes.
    Postgres(String),
}

impl Database {
    /// The database a `--database` value names: a `postgres://` (or `postgresql://`) URL. Anything else is
    /// refused with a sentence saying what is taken.
    pub fn postgres(url: &str) -> Result<Database, String> {
        if postgres::is_postgres_url(url) {
            Ok(Database::Postgres(url.to_owned()))
        } else {
            Err(format!(
                "{url:?} is not a PostgreSQL URL: give postgres://USER@HOST:PORT/DATABASE, or leave it out to \
                 keep the data in SQLite in the data directory"
            ))
        }
    }
}

impl std::fmt::Display for Database {
    /// The database named for people: the folder, or the URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(dir) => write!(f, "SQLite in {}", dir.display()),
            Database::Postgres(url) => {
                write!(f, "PostgreSQL at {}", postgres::without_password(url))
            }
        }
    }
}

/// Opens the database (creating it when missing) and brings its schema up to date.
pub async fn open(database: &Database) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match database {
        Database::Sqlite(dir) => Arc::new(sqlite::SqliteStore::open(dir).await?),
        Database::Postgres(url) => Arc::new(postgres::PgStore::open(url).await?),
    })
}

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The `bot` and `bot_color` columns of a game's seats.
pub(crate) fn bot_columns(seats: &Seats) -> (Option<&str>, Option<&str>) {
    match &seats.bot {
        Some((kind, color)) => (Some(kind.as_str()), Some(color.as_str())),
        None => (None, None),
    }
}

/// What a transaction of a backend's `begin_serial` must be alone in. SQLite takes its write lock at the start
/// of any of them; PostgreSQL takes a lock of its own for `Users` and `Seeks`, and for `Rows` leaves it to the
/// rows the queries lock (`FOR UPDATE`).
#[derive(Clone, Copy, Debug)]
enum Serial {
    /// Creating a user after checking that the name is free and looks like no other.
    Users,
    /// Matching a seek or storing it to wait.
    Seeks,
    /// Reading rows and writing what follows from them.
    Rows,
}

/// Why storage failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// The database server could not be reached, or refused us.
    #[error("cannot connect to {database}: {reason}")]
    Connect {
        /// The database, without its password.
        database: String,
        /// What the database or the network said.
        reason: String,
    },
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("data directory {path}: {source}")]
    DataDir {
        path: String,
        source: std::io::Error,
    },
    /// A move number was already taken: two writers raced, or the caller's count was wrong.
    #[error("game {game} already has a move {number}")]
    Conflict { game: i64, number: i64 },
    /// An account name is taken (names are unique without regard to case).
    #[error("the name is taken")]
    NameTaken,
    /// A new name has the same confusable skeleton as this account's name: it looks like it.
    #[error("the name looks like the existing name {name}")]
    LooksLike { name: String },
    /// A seat was filled by someone else first.
    #[error("game {game}: the seat is taken")]
    SeatTaken { game: i64 },
    /// A table to cancel was joined meanwhile, or is gone.
    #[error("game {game} is no open table")]
    Started { game: i64 },
    /// A game to abort has had a move meanwhile, or is gone.
    #[error("game {game} has moves")]
    Moved { game: i64 },
}

impl StoreError {
    /// Whether the database could not be reached or refused to serve (connection lost or refused, no
    /// connection free in time, the server shutting down or full), rather than refusing this request: the same
    /// request may succeed in a moment.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Connect { .. } => true,
            StoreError::Database(e) => match e {
                sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::WorkerCrashed => true,
                // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect now),
                // 53300 (too many connections); SQLite's busy and locked are not this.
                sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                    code.starts_with("08")
                        || matches!(code.as_ref(), "57P01" | "57P02" | "57P03" | "53300")
                }),
                _ => false,
            },
            _ => false,
        }
    }
}

/// A boxed future of a storage result.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// One stored action of a game: a move (`D4`, `pass`) or `resign`. (Serialized in the notices the nodes send
/// each other, [`crate::cluster::Notice`].)
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::FromRow)]
pub struct StoredMove {
    /// 1 for the first action.
    pub number: i64,
    /// `black` or `white`.
    pub color: String,
    #[sqlx(rename = "move")]
    pub text: String,
    /// In a timed game, the time the turn took and the lag its client reported (milliseconds).
    pub spent_ms: Option<i64>,
    pub lag_ms: Option<i64>,
    /// When the action was accepted: milliseconds since the Unix epoch on the accepting node's clock (the
    /// manual time, in tests); `None` for actions stored before it was kept.
    pub at_ms: Option<i64>,
}

/// Who sits in a game's seats and how an empty seat is filled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seats {
    pub black: Option<i64>,
    pub white: Option<i64>,
    /// The computer's kind (`simple`) and seat (`black`/`white`), in a game against it.
    pub bot: Option<(String, String)>,
    /// `anyone`, `invite` or `bot`.
    pub opponent: String,
    /// The token an invited player must show.
    pub invite: Option<String>,
    /// The second seat was filled by a join after the table was created.
    pub joined: bool,
    /// The game changes its players' ratings when it ends with a result (its creator chose so).
    pub ranked: bool,
    /// The game this one is the rematch of.
    pub rematch_of: Option<i64>,
    /// Its players may take back a move, with the opponent's consent (its creator chose so).
    pub undo: bool,
}

/// A stored game with its actions in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    pub id: i64,
    /// The canonical rules spec.
    pub rules: String,
    /// Seconds since the Unix epoch.
    pub created: i64,
    /// `playing`, `marking` or `over`, for listings; the moves are the truth.
    pub state: String,
    pub seats: Seats,
    /// The time control's spec; `None` for an untimed game.
    pub time_control: Option<String>,
    pub moves: Vec<StoredMove>,
}

/// What the action that ends a game writes on the game's row, so that no listing replays the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// SGF's `RE` (`B+R`, `W+3.5`, `Void`), as the game's result reads.
    pub result: Option<String>,
    /// Seconds since the Unix epoch.
    pub ended: i64,
    /// The moves the game was played over: plays and passes, after take-backs (not the stored actions).
    pub moves: i64,
}

/// A game as a listing shows it, read from its row alone (no moves).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub id: i64,
    pub rules: String,
    pub created: i64,
    /// `open`, `playing`, `marking` or `over`.
    pub state: String,
    pub seats: Seats,
    /// The seated users (names, no password hashes).
    pub black: Option<StoredUser>,
    pub white: Option<StoredUser>,
    /// The number of actions stored.
    pub move_count: i64,
    /// Set when the game ended (see [`Ending`]); `None` while it goes on.
    pub result: Option<String>,
    pub ended: Option<i64>,
    /// The moves played, set when the game ended (see [`Ending::moves`]).
    pub moves_played: Option<i64>,
    /// The time control as stored (`None`: untimed).
    pub time_control: Option<String>,
}

/// A whole game written at once, its row and every action (the store benchmark fills a data directory so).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedGame {
    pub rules: String,
    /// Seconds since the Unix epoch.
    pub created: i64,
    /// `playing`, `marking` or `over`, as the moves leave the game.
    pub state: String,
    pub seats: Seats,
    pub time_control: Option<String>,
    /// Numbered from 1, in order.
    pub moves: Vec<StoredMove>,
    pub ending: Option<Ending>,
}

/// A stored user: an account (with a password hash) or a guest (without).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredUser {
    pub id: i64,
    pub name: String,
    pub password_hash: Option<String>,
    /// A guest has no password.
    pub guest: bool,
    pub created: i64,
    /// `None` until the user's first rated game.
    pub rating: Option<Rating>,
}

/// A user to create under a checked name ([`crate::names`]): an account when it has a password hash, else a
/// guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewUser<'a> {
    /// The name as shown (NFC).
    pub name: &'a str,
    /// The folded name under which accounts are unique; stored for an account, compared for a guest.
    pub name_key: &'a str,
    /// The confusable skeleton of the name (UTS #39): two names with the same one look alike.
    pub skeleton: &'a str,
    pub password_hash: Option<&'a str>,
}

/// A stored session, found by the hash of its token.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredSession {
    pub user_id: i64,
    pub csrf: String,
    /// Seconds since the Unix epoch on the system's clock (the cookie's age runs on it in the browser).
    pub expires: i64,
    /// The other times are seconds since the Unix epoch on the server's time source (`ServerConfig::time`).
    /// When it was made.
    pub created: i64,
    /// When it was last used, to within [`SESSION_TOUCH_SECONDS`]; unused for [`SESSION_IDLE_SECONDS`], it lapses.
    pub last_used: i64,
    /// The `User-Agent` of the client that made it (cut to 200 characters), if it sent one.
    pub user_agent: Option<String>,
    /// The address of the client that made it.
    pub address: Option<String>,
}

/// A session unused for this long (14 days) lapses: refused and deleted, whatever its cookie's age.
pub const SESSION_IDLE_SECONDS: i64 = 14 * 24 * 3600;
/// The password hash of a deleted account: no password matches it (it is no hash at all), and it is not null, so
/// that the account is not taken for a guest.
pub const DELETED_PASSWORD: &str = "deleted";
/// A session's last use is written at most this often (an hour), so that requests do not each write.
pub const SESSION_TOUCH_SECONDS: i64 = 3600;

/// How far a stored game has come (see [`GameStore::progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Progress {
    /// Its stored actions.
    #[sqlx(rename = "move_count")]
    pub moves: i64,
    /// Whether both seats are filled.
    pub joined: bool,
}

/// How a rated game changes its players' ratings: their new ratings (Black's, White's) from those they have
/// now (a player never rated has [`Rating::default`]).
pub type RatingUpdate = Box<dyn FnOnce(Rating, Rating) -> (Rating, Rating) + Send>;

/// What [`RatingStore::rate_game`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rated {
    /// The game is rated now: Black's and White's ratings before and after.
    Now {
        before: (Rating, Rating),
        after: (Rating, Rating),
    },
    /// It had been rated before (by this node or another): nothing changed.
    Already,
}

/// How many finished games a player played under one rules spec in one seat with one result.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct RecordRow {
    pub rules: String,
    /// The player sat at Black (else White).
    pub black: bool,
    /// The result's first letter: `B` or `W` for the winner, `0` for a draw, `V` for a void game.
    pub result: String,
    pub games: i64,
}

/// One point of a player's rating history: their rating after game `game`, which ended (was rated) at `at`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingPoint {
    pub game: i64,
    /// Seconds since the Unix epoch.
    pub at: i64,
    pub rating: Rating,
}

/// A chat message to store: its game, its author, its channel (`players` or `spectators`), the number of the
/// game's stored actions when it was sent, its text and when (wall milliseconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewChat<'a> {
    pub game: i64,
    pub user: i64,
    pub channel: &'a str,
    pub move_number: i64,
    pub text: &'a str,
    pub at_ms: i64,
}

/// A stored chat message, with its author's name. (Serialized in the signals the nodes send each other.)
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, sqlx::FromRow)]
pub struct StoredChat {
    pub id: i64,
    #[sqlx(rename = "game_id")]
    pub game: i64,
    #[sqlx(rename = "user_id")]
    pub user: i64,
    pub name: String,
    pub channel: String,
    pub move_number: i64,
    #[sqlx(rename = "body")]
    pub text: String,
    #[sqlx(rename = "at")]
    pub at_ms: i64,
}

/// An action another player (or the server) took in one of a user's games: a line of their news.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct NewsRow {
    #[sqlx(rename = "game_id")]
    pub game: i64,
    pub rules: String,
    /// `playing`, `marking` or `over`.
    pub state: String,
    pub result: Option<String>,
    #[sqlx(rename = "b_name")]
    pub black: Option<String>,
    #[sqlx(rename = "w_name")]
    pub white: Option<String>,
    /// The action: its number, its colour (or `server`), its text, when (milliseconds since 1970).
    pub number: i64,
    pub color: String,
    #[sqlx(rename = "move")]
    pub text: String,
    pub at_ms: i64,
}

/// A seek for a game (automatch) to store or to match.
#[derive(Clone, Debug, PartialEq)]
pub struct NewSeek {
    pub user: i64,
    /// The seeker's rating now (a new player's, 1500, when never rated), which the others' ranges must hold.
    pub rating: f64,
    /// A rules preset (`japanese`).
    pub rules: String,
    pub size: i64,
    /// `blitz`, `rapid`, `classical` or `correspondence`.
    pub speed: String,
    pub ranked: bool,
    /// The ratings of opponents the seeker accepts (either bound may be open).
    pub min_rating: Option<f64>,
    pub max_rating: Option<f64>,
    /// Whether handicap stones may be given for the rating difference.
    pub handicap: bool,
    pub at_ms: i64,
    /// The most seeks the seeker may have waiting at once, this one included.
    pub max_waiting: i64,
}

/// A stored seek, with its seeker's name and rating.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct StoredSeek {
    pub id: i64,
    #[sqlx(rename = "user_id")]
    pub user: i64,
    pub name: String,
    /// `None`: never rated.
    pub rating: Option<f64>,
    pub guest: bool,
    pub rules: String,
    pub size: i64,
    pub speed: String,
    pub ranked: bool,
    pub min_rating: Option<f64>,
    pub max_rating: Option<f64>,
    pub handicap: bool,
    pub at_ms: i64,
    /// Taken by a newer seeker, whose node is making (or made) the game.
    pub taken: bool,
    /// The game it made.
    #[sqlx(rename = "game_id")]
    pub game: Option<i64>,
}

/// What storing a seek did.
#[derive(Clone, Debug, PartialEq)]
pub enum Sought {
    /// No compatible seek was waiting: this one waits, under this id.
    Waiting(i64),
    /// This waiting seek was compatible: it is taken (the caller makes the game), and the new one not stored.
    Matched(StoredSeek),
    /// Nothing matched, and the seeker has `max_waiting` seeks waiting already: nothing was changed.
    TooMany,
}

/// A vacation: from `start_ms` until `end_ms`, wall milliseconds since 1970.
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Vacation {
    pub start_ms: i64,
    pub end_ms: i64,
}

/// What [`VacationStore::take_vacation`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VacationTaken {
    /// Stored.
    Taken(Vacation),
    /// Refused: this vacation of the user's is in progress.
    Already(Vacation),
    /// Refused: longer than what is left of the allowance (`left_ms`).
    TooLong { left_ms: i64 },
}

/// What a review searches: one of the server's games, or a record uploaded for a review (by its row's id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reviewed {
    Game(i64),
    Upload(i64),
}

impl Reviewed {
    /// The `reviews` column that names it, and the id in it.
    pub fn key(self) -> (&'static str, i64) {
        match self {
            Reviewed::Game(id) => ("game_id", id),
            Reviewed::Upload(id) => ("upload_id", id),
        }
    }
}

/// What a user uploaded since a moment: files and bytes, and when the oldest of them was uploaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UploadUsage {
    pub files: i64,
    pub bytes: i64,
    pub oldest_ms: Option<i64>,
}

/// Reviews waiting or running: on the whole site, and those one user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReviewBacklog {
    pub all: i64,
    pub theirs: i64,
}

/// The columns of `reviews` that [`StoredReview`] reads.
pub const REVIEW_COLUMNS: &str =
    "game_id, upload_id, state, playouts, done, total, results, requested_ms, updated_ms";

/// A review of a game or an uploaded record (see `crate::reviews`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredReview {
    pub subject: Reviewed,
    /// `queued`, `running`, `done` or `failed`.
    pub state: String,
    pub playouts: i64,
    /// Positions reviewed, of `total`.
    pub done: i64,
    pub total: i64,
    /// The positions and mistakes, JSON, once done.
    pub results: Option<String>,
    pub requested_ms: i64,
    pub updated_ms: i64,
}

/// Games: their seats, actions and summaries.
pub trait GameStore: Send + Sync {
    /// Creates a game with its first seats and returns its id.
    fn create_game<'a>(
        &'a self,
        rules: &'a str,
        state: &'a str,
        seats: &'a Seats,
        time_control: Option<&'a str>,
    ) -> StoreFuture<'a, i64>;

    /// Seats `user` in the empty seat of colour `color` (`black`/`white`); `SeatTaken` if it is not empty.
    fn join_game<'a>(&'a self, game: i64, color: &'a str, user: i64) -> StoreFuture<'a, ()>;

    /// Removes a table nobody has joined (it has no actions): [`StoreError::Started`] if it has been joined
    /// meanwhile or is gone.
    fn cancel_table(&self, game: i64) -> StoreFuture<'_, ()>;

    /// Removes a game both players sit at in which nobody has moved: [`StoreError::Moved`] if it has a
    /// stored action or is gone.
    fn abort_game(&self, game: i64) -> StoreFuture<'_, ()>;

    /// Appends one action to a game and records the game's new state and action count, and its ending when
    /// the action ended it, atomically; durable when it returns.
    fn append_move<'a>(
        &'a self,
        game: i64,
        mv: &'a StoredMove,
        state: &'a str,
        ending: Option<&'a Ending>,
    ) -> StoreFuture<'a, ()>;

    /// Every game that has not ended (state other than `over`) with how far it has come, in order of id: the
    /// live games, rebuilt at start one at a time (with [`GameStore::load_game`]), so that no more than one game's
    /// rows are held; a node of several compares them with its copies before it shows the lobby.
    fn live_games(&self) -> StoreFuture<'_, Vec<(i64, Progress)>>;

    /// One game with its moves, whatever its state.
    fn load_game(&self, id: i64) -> StoreFuture<'_, Option<StoredGame>> {
        self.load_game_after(id, 0)
    }

    /// One game with only its moves numbered above `after`: what a node of several reads to catch its copy up
    /// (the game's row and the moves are one snapshot).
    fn load_game_after(&self, id: i64, after: i64) -> StoreFuture<'_, Option<StoredGame>>;

    /// How far game `id` has come, without its moves: its stored action count, and whether its second seat was
    /// taken. A node of several compares it with its copy before showing it (one indexed row).
    fn progress(&self, id: i64) -> StoreFuture<'_, Option<Progress>>;

    /// A page of the games in which `user` sits, newest (highest id) first, with ids below `before` when
    /// given, at most `limit`.
    fn player_games(
        &self,
        user: i64,
        before: Option<i64>,
        limit: usize,
    ) -> StoreFuture<'_, Vec<GameRow>>;

    /// A page of the finished games, the most recently ended first (ties by id, highest first), after game
    /// `before` in that order when given, at most `limit`. An unknown `before` gives an empty page.
    fn finished_games(&self, before: Option<i64>, limit: usize) -> StoreFuture<'_, Vec<GameRow>>;

    /// At most `limit` finished games whose summary lacks the moves played (or all of it: they ended before
    /// summaries were kept).
    fn unsummarized_games(&self, limit: usize) -> StoreFuture<'_, Vec<i64>>;

    /// Writes the summary of a game that ended before summaries were kept, a result and an end time already
    /// there staying as they are.
    fn set_ending<'a>(&'a self, game: i64, ending: &'a Ending) -> StoreFuture<'a, ()>;

    /// Writes whole games in one transaction; answers their ids, in order. The caller vouches that each
    /// game's moves replay under its rules (nothing is checked here, as in `append_move`).
    fn import_games<'a>(&'a self, games: &'a [ImportedGame]) -> StoreFuture<'a, Vec<i64>>;

    /// How many games are stored, whatever their state.
    fn count_games(&self) -> StoreFuture<'_, i64>;

    /// The rematch offered after game `game` (its row, without moves), if one was.
    fn rematch_of(&self, game: i64) -> StoreFuture<'_, Option<StoredGame>>;
}

/// Users: accounts and guests, their names and passwords.
pub trait AccountStore: Send + Sync {
    /// Creates a user: an account when `name_key` and `password_hash` are given (`NameTaken` if the key is
    /// taken), else a guest. Returns the id. It stores no skeleton and compares none (for tools and tests that
    /// make users directly); an account's skeleton is filled in at the next start (see
    /// [`AccountStore::accounts_without_skeleton`]). The server makes its users with [`AccountStore::create_checked_user`].
    fn create_user<'a>(
        &'a self,
        name: &'a str,
        name_key: Option<&'a str>,
        password_hash: Option<&'a str>,
    ) -> StoreFuture<'a, i64>;

    /// Creates a user with its name's skeleton, unless the name collides with an account's: `NameTaken` when an
    /// account has the same `name_key`, `LooksLike` (naming that account) when an account's skeleton is the
    /// same. Guests are compared with accounts only (their names may repeat), and accounts are never compared
    /// with guests. The checks and the insert are one atomic step, so that two look-alikes made at the same
    /// time cannot both get in (SQLite has one writer; another database would take a lock for it). Returns the
    /// id.
    fn create_checked_user<'a>(&'a self, user: &'a NewUser<'a>) -> StoreFuture<'a, i64>;

    /// At most `limit` accounts whose name has no skeleton stored yet (made before skeletons were kept, or by
    /// [`AccountStore::create_user`]), with ids above `after`, in id order: their ids and names.
    fn accounts_without_skeleton(
        &self,
        after: i64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(i64, String)>>;

    /// Stores the skeletons of these users' names (user id, skeleton).
    fn set_skeletons<'a>(&'a self, skeletons: &'a [(i64, String)]) -> StoreFuture<'a, ()>;

    /// The account whose case-folded name is `name_key`.
    fn find_account<'a>(&'a self, name_key: &'a str) -> StoreFuture<'a, Option<StoredUser>>;

    /// The user with this id (its password hash left out).
    fn find_user(&self, id: i64) -> StoreFuture<'_, Option<StoredUser>>;

    /// An account's password hash (`None` for a guest or an unknown id).
    fn password_hash(&self, user: i64) -> StoreFuture<'_, Option<String>>;

    /// Sets an account's password hash and ends its sessions but `keep`, in one transaction: how many ended.
    fn set_password<'a>(
        &'a self,
        user: i64,
        hash: &'a str,
        keep: Option<&'a [u8]>,
    ) -> StoreFuture<'a, u64>;

    /// Stores a one-time password reset of `user` under its token's hash, valid until `expires`.
    fn create_reset<'a>(
        &'a self,
        token_hash: &'a [u8],
        user: i64,
        expires: i64,
    ) -> StoreFuture<'a, ()>;

    /// Deletes account `user` but what others keep of it: its row stays (its games, ratings and chat messages
    /// refer to it) under `neutral` as its name, without a name key or skeleton (its name is free again) and with
    /// a password hash nothing matches; its sessions and password resets go, in one transaction.
    fn delete_account<'a>(&'a self, user: i64, neutral: &'a str) -> StoreFuture<'a, ()>;

    /// Uses the reset whose token hash is `token_hash`, unexpired at `now`: deletes it, sets the account's
    /// password hash and ends all its sessions, in one transaction. Answers the user and how many sessions
    /// ended, or `None` (an unknown, used or expired token; expired resets are swept).
    fn reset_password<'a>(
        &'a self,
        token_hash: &'a [u8],
        now: i64,
        hash: &'a str,
    ) -> StoreFuture<'a, Option<(i64, u64)>>;
}

/// Signed-in sessions.
pub trait SessionStore: Send + Sync {
    fn create_session<'a>(
        &'a self,
        token_hash: &'a [u8],
        session: &'a StoredSession,
    ) -> StoreFuture<'a, ()>;

    fn find_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, Option<StoredSession>>;

    fn delete_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, ()>;

    /// Marks a session used at `at`.
    fn touch_session<'a>(&'a self, token_hash: &'a [u8], at: i64) -> StoreFuture<'a, ()>;

    /// A user's sessions with their token hashes, the most recently used first.
    fn user_sessions(&self, user: i64) -> StoreFuture<'_, Vec<(Vec<u8>, StoredSession)>>;

    /// Ends every session of `user` but the one whose token hash is `keep`: how many ended.
    fn end_sessions<'a>(&'a self, user: i64, keep: Option<&'a [u8]>) -> StoreFuture<'a, u64>;

    /// Ends the session of `user` whose token hash is `token_hash`: false when the user has no such session.
    fn end_session<'a>(&'a self, user: i64, token_hash: &'a [u8]) -> StoreFuture<'a, bool>;
}

/// Ratings and players' records.
pub trait RatingStore: Send + Sync {
    /// Rates game `game` between users `black` and `white`, once: in one transaction, unless it was rated
    /// before, both players' ratings are read (and held against other writers), `update` gives their new ones,
    /// which are written on the users and as the game's rows of their histories, at `at` (seconds since the
    /// Unix epoch). Two nodes rating one game at once rate it once.
    fn rate_game<'a>(
        &'a self,
        game: i64,
        black: i64,
        white: i64,
        at: i64,
        update: RatingUpdate,
    ) -> StoreFuture<'a, Rated>;

    /// At most `limit` ranked games that ended with a result (not void) between two users and have no rating
    /// rows: ended while no node could rate them (a crash between the ending's commit and the rating), in id
    /// order, from above `after`.
    fn unrated_games(&self, after: i64, limit: usize) -> StoreFuture<'_, Vec<i64>>;

    /// User `user`'s finished games with a result, counted by rules spec, seat and result letter (see
    /// [`RecordRow`]).
    fn player_record(&self, user: i64) -> StoreFuture<'_, Vec<RecordRow>>;

    /// User `user`'s rating now; `None` until their first rated game.
    fn rating(&self, user: i64) -> StoreFuture<'_, Option<Rating>>;

    /// User `user`'s rating after each rated game, oldest first, the last `limit` of them.
    fn rating_history(&self, user: i64, limit: usize) -> StoreFuture<'_, Vec<RatingPoint>>;
}

/// Games' chat and mutes.
pub trait ChatStore: Send + Sync {
    /// Stores a chat message; answers it as stored.
    fn add_chat<'a>(&'a self, chat: &'a NewChat<'a>) -> StoreFuture<'a, StoredChat>;

    /// The last `limit` chat messages of game `game`, oldest first.
    fn chat_of(&self, game: i64, limit: usize) -> StoreFuture<'_, Vec<StoredChat>>;

    /// User `user` mutes user `muted` (`on`) or no longer does.
    fn set_mute(&self, user: i64, muted: i64, on: bool) -> StoreFuture<'_, ()>;

    /// The users `user` muted, in id order.
    fn mutes_of(&self, user: i64) -> StoreFuture<'_, Vec<i64>>;
}

/// What happened in a user's games since they last looked.
pub trait NewsStore: Send + Sync {
    /// When user `user` last said they looked at their news (milliseconds since 1970): `Some(None)` if never,
    /// `None` for no such user.
    fn news_since(&self, user: i64) -> StoreFuture<'_, Option<Option<i64>>>;

    /// User `user` has looked at their news up to `at_ms` (never moving it back).
    fn set_news_seen(&self, user: i64, at_ms: i64) -> StoreFuture<'_, ()>;

    /// The newest `limit` actions after `since_ms` that others (the opponent, the server) took in user `user`'s
    /// games, live or ended since then, newest first.
    fn news(&self, user: i64, since_ms: i64, limit: usize) -> StoreFuture<'_, Vec<NewsRow>>;
}

/// Automatch seeks.
pub trait SeekStore: Send + Sync {
    /// Stores a seek, or takes the oldest compatible one waiting (another user's, same rules, size, speed and
    /// rankedness, each rating within the other's range), atomically: two seekers never take one seek, and two
    /// compatible seeks never both wait. Seeks made before `expired_ms` are dropped first, and so is the
    /// seeker's own seek for the same kind of game; a seek that would wait while `max_waiting` of the seeker's
    /// already do is refused ([`Sought::TooMany`]).
    fn seek<'a>(&'a self, seek: &'a NewSeek, expired_ms: i64) -> StoreFuture<'a, Sought>;

    /// The game made for taken seek `seek`.
    fn seek_made(&self, seek: i64, game: i64) -> StoreFuture<'_, ()>;

    /// Every seek made at or after `since_ms`, the oldest first: those waiting, taken, and matched.
    fn seeks(&self, since_ms: i64) -> StoreFuture<'_, Vec<StoredSeek>>;

    /// User `user` withdraws their seek `seek`, if it still waits: whether it did.
    fn cancel_seek(&self, user: i64, seek: i64) -> StoreFuture<'_, bool>;
}

/// Correspondence players' vacations.
pub trait VacationStore: Send + Sync {
    /// Stores `vacation` for `user`, atomically checked: refused while one of theirs is in progress at its
    /// start, or when the vacations they started from `counted_from_ms` on, with this one, last longer than
    /// `allowance_ms` in all.
    fn take_vacation(
        &self,
        user: i64,
        vacation: Vacation,
        counted_from_ms: i64,
        allowance_ms: i64,
    ) -> StoreFuture<'_, VacationTaken>;

    /// Ends `user`'s vacation in progress at `at_ms`: the vacation as it now stands, if one was.
    fn end_vacation(&self, user: i64, at_ms: i64) -> StoreFuture<'_, Option<Vacation>>;

    /// `user`'s vacations that end after `after_ms`, in order.
    fn vacations(&self, user: i64, after_ms: i64) -> StoreFuture<'_, Vec<Vacation>>;
}

/// Reviews of games and uploaded records.
pub trait ReviewStore: Send + Sync {
    /// Asks, for user `by`, `subject`'s review with `playouts` a position, unless one was asked before: the
    /// review as it stands (a failed one is asked again).
    fn request_review(
        &self,
        subject: Reviewed,
        playouts: i64,
        at_ms: i64,
        by: i64,
    ) -> StoreFuture<'_, StoredReview>;

    /// The reviews queued or running, on the site and asked for by `user`.
    fn review_backlog(&self, user: i64) -> StoreFuture<'_, ReviewBacklog>;

    /// `subject`'s review, if one was asked for.
    fn review(&self, subject: Reviewed) -> StoreFuture<'_, Option<StoredReview>>;

    /// Keeps a record `user` uploaded under `digest` (the digest of `sgf`), unless it is kept already: its id.
    fn keep_upload<'a>(
        &'a self,
        digest: &'a str,
        sgf: &'a [u8],
        at_ms: i64,
        user: i64,
    ) -> StoreFuture<'a, i64>;

    /// The records `user` uploaded at or after `since_ms`.
    fn upload_usage(&self, user: i64, since_ms: i64) -> StoreFuture<'_, UploadUsage>;

    /// Notes that the uploaded record `id` was opened (its review or its file read, or uploaded again).
    fn open_upload(&self, id: i64, at_ms: i64) -> StoreFuture<'_, ()>;

    /// Forgets the uploaded records last opened before `before_ms`, with their reviews: how many.
    fn expire_uploads(&self, before_ms: i64) -> StoreFuture<'_, u64>;

    /// The id of the record uploaded under `digest`, if any.
    fn upload_named<'a>(&'a self, digest: &'a str) -> StoreFuture<'a, Option<i64>>;

    /// The bytes of the uploaded record `id`, if any.
    fn upload_sgf(&self, id: i64) -> StoreFuture<'_, Option<Vec<u8>>>;

    /// Takes the review that nobody computes (queued, or running without news since `stale_before_ms`: its
    /// node died) that comes first in turn, atomically: two nodes never take one review. The turn is fair
    /// between users: each user's first waiting review, in the order they were asked, then their second...
    fn take_review(
        &self,
        now_ms: i64,
        stale_before_ms: i64,
    ) -> StoreFuture<'_, Option<StoredReview>>;

    /// Records a review's progress (its state, positions done of `total`, and its results once done).
    fn save_review<'a>(
        &'a self,
        subject: Reviewed,
        state: &'a str,
        done: i64,
        total: i64,
        results: Option<&'a str>,
        at_ms: i64,
    ) -> StoreFuture<'a, ()>;
}

/// The site: its name, its health, the leases of its nodes, and closing.
pub trait SiteStore: Send + Sync {
    /// Asks the database for nothing (`SELECT 1`) on the connections writes use: whether it answers, for the
    /// health check.
    fn ping(&self) -> StoreFuture<'_, ()>;

    /// The name of the site this database serves, drawn once when it was made (the nodes of one site share
    /// it). With SQLite, which serves one node, a constant.
    fn site(&self) -> StoreFuture<'_, String>;

    /// Takes or renews the lease `name` for node `holder` for `ttl_ms` from now, unless another node holds it
    /// unexpired: answers whether `holder` holds it now. With SQLite there is only one node, which always does.
    fn hold_lease<'a>(&'a self, name: &'a str, holder: u64, ttl_ms: u64) -> StoreFuture<'a, bool>;

    /// For a node starting at `now_ms` (wall milliseconds): `None` when no node holds the lease `name` (the
    /// site was down, so its clocks start again; `now_ms` is recorded as the time they did), or the time
    /// recorded so by the node that started the site, whose other nodes run. Always `None` with SQLite, where a
    /// starting node is the only one.
    fn clocks_since<'a>(&'a self, name: &'a str, now_ms: u64) -> StoreFuture<'a, Option<u64>>;

    /// Gives the lease `name` up if `holder` holds it, so that another node may take it at once.
    fn release_lease<'a>(&'a self, name: &'a str, holder: u64) -> StoreFuture<'a, ()>;

    /// Closes the connections (waits for writes in flight).
    fn close(&self) -> StoreFuture<'_, ()>;
}

/// Every area of storage: what a database gives the server.
pub trait Store:
    GameStore
    + AccountStore
    + SessionStore
    + RatingStore
    + ChatStore
    + NewsStore
    + SeekStore
    + VacationStore
    + ReviewStore
    + SiteStore
{
}

impl<
    T: GameStore
        + AccountStore
        + SessionStore
        + RatingStore
        + ChatStore
        + NewsStore
        + SeekStore
        + VacationStore
        + ReviewStore
        + SiteStore,
> Store for T
{
}

/// The areas of storage, each held by the part of the server that uses it. One database gives them all
/// ([`Stores::of`]); a test puts its own store in front of the areas it faults.
#[derive(Clone)]
pub struct Stores {
    pub games: Arc<dyn GameStore>,
    pub accounts: Arc<dyn AccountStore>,
    pub sessions: Arc<dyn SessionStore>,
    pub ratings: Arc<dyn RatingStore>,
    pub chat: Arc<dyn ChatStore>,
    pub news: Arc<dyn NewsStore>,
    pub seeks: Arc<dyn SeekStore>,
    pub vacations: Arc<dyn VacationStore>,
    pub reviews: Arc<dyn ReviewStore>,
    pub site: Arc<dyn SiteStore>,
}

impl Stores {
    /// Every area from one database.
    pub fn of(store: Arc<dyn Store>) -> Stores {
        Stores {
            games: store.clone(),
            accounts: store.clone(),
            sessions: store.clone(),
            ratings: store.clone(),
            chat: store.clone(),
            news: store.clone(),
            seeks: store.clone(),
            vacations: store.clone(),
            reviews: store.clone(),
            site: store,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_database_out_of_reach_is_unavailable() {
        let io = || std::io::Error::from(std::io::ErrorKind::ConnectionReset);
        for e in [
            StoreError::Database(sqlx::Error::Io(io())),
            StoreError::Database(sqlx::Error::PoolTimedOut),
            StoreError::Database(sqlx::Error::PoolClosed),
            StoreError::Connect {
                database: "postgres://tesuji@db/tesuji".into(),
                reason: "connection refused".into(),
            },
        ] {
            assert!(e.is_unavailable(), "{e}");
        }
        for e in [
            StoreError::Database(sqlx::Error::RowNotFound),
            StoreError::Database(sqlx::Error::Protocol("bad message".into())),
            StoreError::Conflict { game: 1, number: 2 },
            StoreError::NameTaken,
        ] {
            assert!(!e.is_unavailable(), "{e}");
        }
    }
}
