//! A store for tests of faults between the server and its database: the real SQLite store, with faults to
//! switch on (appends that fail before or after their commit, pings that fail or hang) and counts of what was
//! asked of it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tesuji_server::store::sqlite::SqliteStore;
use tesuji_server::store::{
    AccountStore, ChatStore, Ending, GameRow, GameStore, ImportedGame, NewChat, NewSeek, NewUser,
    NewsRow, NewsStore, Progress, Rated, Rating, RatingPoint, RatingStore, RatingUpdate, RecordRow,
    ReviewBacklog, ReviewStore, Reviewed, Seats, SeekStore, SessionStore, SiteStore, Sought,
    StoreError, StoreFuture, StoredChat, StoredGame, StoredMove, StoredReview, StoredSeek,
    StoredSession, StoredUser, UploadUsage, Vacation, VacationStore, VacationTaken,
};

/// The real store, with faults to switch on: every call goes to it, but for the faults asked for.
pub struct Faulty {
    pub inner: SqliteStore,
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
    /// The store in `dir`, no fault switched on.
    pub async fn open(dir: &Path) -> Faulty {
        Faulty {
            inner: SqliteStore::open(dir).await.unwrap(),
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

impl AccountStore for Faulty {
    fn create_user<'a>(
        &'a self,
        name: &'a str,
        name_key: Option<&'a str>,
        password_hash: Option<&'a str>,
    ) -> StoreFuture<'a, i64> {
        self.inner.create_user(name, name_key, password_hash)
    }
    fn create_checked_user<'a>(&'a self, user: &'a NewUser<'a>) -> StoreFuture<'a, i64> {
        self.inner.create_checked_user(user)
    }
    fn accounts_without_skeleton(
        &self,
        after: i64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(i64, String)>> {
        self.inner.accounts_without_skeleton(after, limit)
    }
    fn set_skeletons<'a>(&'a self, skeletons: &'a [(i64, String)]) -> StoreFuture<'a, ()> {
        self.inner.set_skeletons(skeletons)
    }
    fn find_account<'a>(&'a self, name_key: &'a str) -> StoreFuture<'a, Option<StoredUser>> {
        self.inner.find_account(name_key)
    }
    fn find_user(&self, id: i64) -> StoreFuture<'_, Option<StoredUser>> {
        self.inner.find_user(id)
    }
    fn password_hash(&self, user: i64) -> StoreFuture<'_, Option<String>> {
        self.inner.password_hash(user)
    }
    fn set_password<'a>(
        &'a self,
        user: i64,
        hash: &'a str,
        keep: Option<&'a [u8]>,
    ) -> StoreFuture<'a, u64> {
        self.inner.set_password(user, hash, keep)
    }
    fn create_reset<'a>(
        &'a self,
        token_hash: &'a [u8],
        user: i64,
        expires: i64,
    ) -> StoreFuture<'a, ()> {
        self.inner.create_reset(token_hash, user, expires)
    }
    fn delete_account<'a>(&'a self, user: i64, neutral: &'a str) -> StoreFuture<'a, ()> {
        self.inner.delete_account(user, neutral)
    }
    fn reset_password<'a>(
        &'a self,
        token_hash: &'a [u8],
        now: i64,
        hash: &'a str,
    ) -> StoreFuture<'a, Option<(i64, u64)>> {
        self.inner.reset_password(token_hash, now, hash)
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

impl RatingStore for Faulty {
    fn rate_game<'a>(
        &'a self,
        game: i64,
        black: i64,
        white: i64,
        at: i64,
        update: RatingUpdate,
    ) -> StoreFuture<'a, Rated> {
        self.inner.rate_game(game, black, white, at, update)
    }
    fn unrated_games(&self, after: i64, limit: usize) -> StoreFuture<'_, Vec<i64>> {
        self.inner.unrated_games(after, limit)
    }
    fn player_record(&self, user: i64) -> StoreFuture<'_, Vec<RecordRow>> {
        self.inner.player_record(user)
    }
    fn rating(&self, user: i64) -> StoreFuture<'_, Option<Rating>> {
        self.inner.rating(user)
    }
    fn rating_history(&self, user: i64, limit: usize) -> StoreFuture<'_, Vec<RatingPoint>> {
        self.inner.rating_history(user, limit)
    }
}

impl ChatStore for Faulty {
    fn add_chat<'a>(&'a self, chat: &'a NewChat<'a>) -> StoreFuture<'a, StoredChat> {
        self.inner.add_chat(chat)
    }
    fn chat_of(&self, game: i64, limit: usize) -> StoreFuture<'_, Vec<StoredChat>> {
        self.inner.chat_of(game, limit)
    }
    fn set_mute(&self, user: i64, muted: i64, on: bool) -> StoreFuture<'_, ()> {
        self.inner.set_mute(user, muted, on)
    }
    fn mutes_of(&self, user: i64) -> StoreFuture<'_, Vec<i64>> {
        self.inner.mutes_of(user)
    }
}

impl NewsStore for Faulty {
    fn news_since(&self, user: i64) -> StoreFuture<'_, Option<Option<i64>>> {
        self.inner.news_since(user)
    }
    fn set_news_seen(&self, user: i64, at_ms: i64) -> StoreFuture<'_, ()> {
        self.inner.set_news_seen(user, at_ms)
    }
    fn news(&self, user: i64, since_ms: i64, limit: usize) -> StoreFuture<'_, Vec<NewsRow>> {
        self.inner.news(user, since_ms, limit)
    }
}

impl SeekStore for Faulty {
    fn seek<'a>(&'a self, seek: &'a NewSeek, expired_ms: i64) -> StoreFuture<'a, Sought> {
        self.inner.seek(seek, expired_ms)
    }
    fn seek_made(&self, seek: i64, game: i64) -> StoreFuture<'_, ()> {
        self.inner.seek_made(seek, game)
    }
    fn seeks(&self, since_ms: i64) -> StoreFuture<'_, Vec<StoredSeek>> {
        self.inner.seeks(since_ms)
    }
    fn cancel_seek(&self, user: i64, seek: i64) -> StoreFuture<'_, bool> {
        self.inner.cancel_seek(user, seek)
    }
}

impl VacationStore for Faulty {
    fn take_vacation(
        &self,
        user: i64,
        vacation: Vacation,
        counted_from_ms: i64,
        allowance_ms: i64,
    ) -> StoreFuture<'_, VacationTaken> {
        self.inner
            .take_vacation(user, vacation, counted_from_ms, allowance_ms)
    }
    fn end_vacation(&self, user: i64, at_ms: i64) -> StoreFuture<'_, Option<Vacation>> {
        self.inner.end_vacation(user, at_ms)
    }
    fn vacations(&self, user: i64, after_ms: i64) -> StoreFuture<'_, Vec<Vacation>> {
        self.inner.vacations(user, after_ms)
    }
}

impl ReviewStore for Faulty {
    fn request_review(
        &self,
        subject: Reviewed,
        playouts: i64,
        at_ms: i64,
        by: i64,
    ) -> StoreFuture<'_, StoredReview> {
        self.inner.request_review(subject, playouts, at_ms, by)
    }
    fn review_backlog(&self, user: i64) -> StoreFuture<'_, ReviewBacklog> {
        self.inner.review_backlog(user)
    }
    fn review(&self, subject: Reviewed) -> StoreFuture<'_, Option<StoredReview>> {
        self.inner.review(subject)
    }
    fn keep_upload<'a>(
        &'a self,
        digest: &'a str,
        sgf: &'a [u8],
        at_ms: i64,
        user: i64,
    ) -> StoreFuture<'a, i64> {
        self.inner.keep_upload(digest, sgf, at_ms, user)
    }
    fn upload_usage(&self, user: i64, since_ms: i64) -> StoreFuture<'_, UploadUsage> {
        self.inner.upload_usage(user, since_ms)
    }
    fn open_upload(&self, id: i64, at_ms: i64) -> StoreFuture<'_, ()> {
        self.inner.open_upload(id, at_ms)
    }
    fn expire_uploads(&self, before_ms: i64) -> StoreFuture<'_, u64> {
        self.inner.expire_uploads(before_ms)
    }
    fn upload_named<'a>(&'a self, digest: &'a str) -> StoreFuture<'a, Option<i64>> {
        self.inner.upload_named(digest)
    }
    fn upload_sgf(&self, id: i64) -> StoreFuture<'_, Option<Vec<u8>>> {
        self.inner.upload_sgf(id)
    }
    fn take_review(
        &self,
        now_ms: i64,
        stale_before_ms: i64,
    ) -> StoreFuture<'_, Option<StoredReview>> {
        self.inner.take_review(now_ms, stale_before_ms)
    }
    fn save_review<'a>(
        &'a self,
        subject: Reviewed,
        state: &'a str,
        done: i64,
        total: i64,
        results: Option<&'a str>,
        at_ms: i64,
    ) -> StoreFuture<'a, ()> {
        self.inner
            .save_review(subject, state, done, total, results, at_ms)
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
