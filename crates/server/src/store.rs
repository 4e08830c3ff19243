//! Storage behind one interface, so that another database (PostgreSQL) can be added without touching the game
//! logic. Futures are boxed so that the server can hold an `Arc<dyn Store>` chosen at start.

use std::future::Future;
use std::pin::Pin;

pub mod sqlite;

/// Why storage failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
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
}

/// A boxed future of a storage result.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// One stored action of a game: a move (`D4`, `pass`) or `resign`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMove {
    /// 1 for the first action.
    pub number: i64,
    /// `black` or `white`.
    pub color: String,
    pub text: String,
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
    pub moves: Vec<StoredMove>,
}

/// The games and their moves.
pub trait Store: Send + Sync {
    /// Creates a game and returns its id.
    fn create_game<'a>(&'a self, rules: &'a str, state: &'a str) -> StoreFuture<'a, i64>;

    /// Appends one action to a game and records the game's new state, atomically; durable when it returns.
    fn append_move<'a>(
        &'a self,
        game: i64,
        mv: &'a StoredMove,
        state: &'a str,
    ) -> StoreFuture<'a, ()>;

    /// Every game with its moves, for rebuilding the games at start.
    fn load_games(&self) -> StoreFuture<'_, Vec<StoredGame>>;

    /// Closes the connections (waits for writes in flight).
    fn close(&self) -> StoreFuture<'_, ()>;
}
