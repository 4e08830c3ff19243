//! A store for tests of faults between the server and its database: the real SQLite store, with faults to
//! switch on (appends that fail before or after their commit, pings that fail or hang) and counts of what was
//! asked of it. It stands in front of the areas it faults only (see [`Faulty::stores`]).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tesuji_server::store::sqlite::SqliteStore;
use tesuji_server::store::{
    Ending, GameRow, GameStore, ImportedGame, Progress, Seats, SessionStore, SiteStore, StoreError,
    StoreFuture, StoredGame, StoredMove, StoredSession, Stores,
};

/// The real store, with faults to switch on: every call goes to it, but for the faults asked for.
pub struct Faulty {
    pub inner: Arc<SqliteStore>,
    /// The next append is committed, then answered with an error (a writer that died before answering).
    pub fail_after_commit: AtomicBool,
    /// The next append fails without being committed.
    pub fail_before_commit: AtomicBool,
    /// How many sessions were read.
    pub session_reads: AtomicU64,
    /// Pings fail at once.
    pub ping_fails: AtomicBool,
    /// Pings never answer.
    pub ping_hangs: AtomicBool,
    /// How many pings were asked for.
    pub pings: AtomicU64,
}

impl Faulty {
    /// The areas a server is started with: this store in front of those it faults (games, sessions, the
    /// site), the real one behind the others.
    pub fn stores(self: &Arc<Self>) -> Stores {
        Stores {
            games: Arc::clone(self) as _,
            sessions: Arc::clone(self) as _,
            site: Arc::clone(self) as _,
            ..Stores::of(Arc::clone(&self.inner) as _)
        }
    }

    /// The store in `dir`, no fault switched on.
    pub async fn open(dir: &Path) -> Faulty {
        Faulty {
            inner: Arc::new(SqliteStore::open(dir).await.unwrap()),
            fail_after_commit: AtomicBool::new(false),
            fail_before_commit: AtomicBool::new(false),
            session_reads: AtomicU64::new(0),
            ping_fails: AtomicBool::new(false),
            ping_hangs: AtomicBool::new(false),
            pings: AtomicU64::new(0),
        }
    }
}

fn died() -> StoreError {
    StoreError::Database(sqlx::Error::WorkerCrashed)
}

impl GameStore for Faulty {
    fn create_game<'a>(
        &'a self,
        rules: &'a str,
        state: &'a str,
        seats: &'a Seats,
        time_control: Option<&'a str>,
    ) -> StoreFuture<'a, i64> {
        self.inner.create_game(rules, state, seats, time_control)
    }
    fn join_game<'a>(&'a self, game: i64, color: &'a str, user: i64) -> StoreFuture<'a, ()> {
        self.inner.join_game(game, color, user)
    }
    fn cancel_table(&self, game: i64) -> StoreFuture<'_, ()> {
        self.inner.cancel_table(game)
    }
    fn abort_game(&self, game: i64) -> StoreFuture<'_, ()> {
        self.inner.abort_game(game)
    }
    fn append_move<'a>(
        &'a self,
        game: i64,
        mv: &'a StoredMove,
        state: &'a str,
        ending: Option<&'a Ending>,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if self.fail_before_commit.swap(false, Ordering::SeqCst) {
                return Err(died());
            }
            self.inner.append_move(game, mv, state, ending).await?;
            if self.fail_after_commit.swap(false, Ordering::SeqCst) {
                return Err(died());
            }
            Ok(())
        })
    }
    fn live_games(&self) -> StoreFuture<'_, Vec<(i64, Progress)>> {
        self.inner.live_games()
    }
    fn load_game_after(&self, id: i64, after: i64) -> StoreFuture<'_, Option<StoredGame>> {
        self.inner.load_game_after(id, after)
    }
    fn progress(&self, id: i64) -> StoreFuture<'_, Option<Progress>> {
        self.inner.progress(id)
    }
    fn player_games(
        &self,
        user: i64,
        before: Option<i64>,
        limit: usize,
    ) -> StoreFuture<'_, Vec<GameRow>> {
        self.inner.player_games(user, before, limit)
    }
    fn finished_games(&self, before: Option<i64>, limit: usize) -> StoreFuture<'_, Vec<GameRow>> {
        self.inner.finished_games(before, limit)
    }
    fn unsummarized_games(&self, limit: usize) -> StoreFuture<'_, Vec<i64>> {
        self.inner.unsummarized_games(limit)
    }
    fn set_ending<'a>(&'a self, game: i64, ending: &'a Ending) -> StoreFuture<'a, ()> {
        self.inner.set_ending(game, ending)
    }
    fn import_games<'a>(&'a self, games: &'a [ImportedGame]) -> StoreFuture<'a, Vec<i64>> {
        self.inner.import_games(games)
    }
    fn count_games(&self) -> StoreFuture<'_, i64> {
        self.inner.count_games()
    }
    fn rematch_of(&self, game: i64) -> StoreFuture<'_, Option<StoredGame>> {
        self.inner.rematch_of(game)
    }
}

impl SessionStore for Faulty {
    fn create_session<'a>(
        &'a self,
        token_hash: &'a [u8],
        session: &'a StoredSession,
    ) -> StoreFuture<'a, ()> {
        self.inner.create_session(token_hash, session)
    }
    fn find_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, Option<StoredSession>> {
        self.session_reads.fetch_add(1, Ordering::SeqCst);
        self.inner.find_session(token_hash)
    }
    fn delete_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, ()> {
        self.inner.delete_session(token_hash)
    }
    fn touch_session<'a>(&'a self, token_hash: &'a [u8], at: i64) -> StoreFuture<'a, ()> {
        self.inner.touch_session(token_hash, at)
    }
    fn user_sessions(&self, user: i64) -> StoreFuture<'_, Vec<(Vec<u8>, StoredSession)>> {
        self.inner.user_sessions(user)
    }
    fn end_sessions<'a>(&'a self, user: i64, keep: Option<&'a [u8]>) -> StoreFuture<'a, u64> {
        self.inner.end_sessions(user, keep)
    }
    fn end_session<'a>(&'a self, user: i64, token_hash: &'a [u8]) -> StoreFuture<'a, bool> {
        self.inner.end_session(user, token_hash)
    }
}

impl SiteStore for Faulty {
    fn ping(&self) -> StoreFuture<'_, ()> {
        self.pings.fetch_add(1, Ordering::SeqCst);
        if self.ping_hangs.load(Ordering::SeqCst) {
            return Box::pin(std::future::pending());
        }
        if self.ping_fails.load(Ordering::SeqCst) {
            return Box::pin(async { Err(StoreError::Database(sqlx::Error::PoolClosed)) });
        }
        self.inner.ping()
    }
    fn site(&self) -> StoreFuture<'_, String> {
        self.inner.site()
    }
    fn hold_lease<'a>(&'a self, name: &'a str, holder: u64, ttl_ms: u64) -> StoreFuture<'a, bool> {
        self.inner.hold_lease(name, holder, ttl_ms)
    }
    fn clocks_since<'a>(&'a self, name: &'a str, now_ms: u64) -> StoreFuture<'a, Option<u64>> {
        self.inner.clocks_since(name, now_ms)
    }
    fn release_lease<'a>(&'a self, name: &'a str, holder: u64) -> StoreFuture<'a, ()> {
        self.inner.release_lease(name, holder)
    }
    fn close(&self) -> StoreFuture<'_, ()> {
        self.inner.close()
    }
}
