//! Faults between the server and its database, put there by a store that wraps the real one: nothing
//! acknowledged is lost, nothing on disk is undone, and a bad cookie does not cost a read per request.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::json;
use tesuji_client::Client;
use tesuji_client::reqwest::Method;
use tesuji_server::store::sqlite::SqliteStore;
use tesuji_server::store::{
    Ending, GameRow, ImportedGame, NewUser, Seats, Store, StoreError, StoreFuture, StoredGame,
    StoredMove, StoredSession, StoredUser,
};
use tesuji_server::{Database, Running, ServerConfig, start, start_with_store};

/// The real store, with faults to switch on.
struct Faulty {
    inner: SqliteStore,
    /// The next append is committed, then answered with an error (a writer that died before answering).
    fail_after_commit: AtomicBool,
    /// The next append fails without being committed.
    fail_before_commit: AtomicBool,
    session_reads: AtomicU64,
}

fn died() -> StoreError {
    StoreError::Database(sqlx::Error::WorkerCrashed)
}

impl Store for Faulty {
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
    fn live_game_ids(&self) -> StoreFuture<'_, Vec<i64>> {
        self.inner.live_game_ids()
    }
    fn load_game(&self, id: i64) -> StoreFuture<'_, Option<StoredGame>> {
        self.inner.load_game(id)
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
    fn ping(&self) -> StoreFuture<'_, ()> {
        self.inner.ping()
    }
    fn close(&self) -> StoreFuture<'_, ()> {
        self.inner.close()
    }
}

fn config(dir: &Path) -> ServerConfig {
    ServerConfig {
        address: "127.0.0.1:0".parse().unwrap(),
        database: Database::Sqlite(dir.to_path_buf()),
        ..ServerConfig::default()
    }
}

async fn faulty_server(dir: &Path) -> (Running, Arc<Faulty>) {
    let store = Arc::new(Faulty {
        inner: SqliteStore::open(dir).await.unwrap(),
        fail_after_commit: AtomicBool::new(false),
        fail_before_commit: AtomicBool::new(false),
        session_reads: AtomicU64::new(0),
    });
    let running = start_with_store(config(dir), Arc::clone(&store) as Arc<dyn Store>)
        .await
        .unwrap();
    (running, store)
}

async fn guest(running: &Running, name: &str) -> Client {
    let mut c = Client::new(&format!("http://{}", running.address)).unwrap();
    c.guest(name).await.unwrap();
    c
}

#[tokio::test]
async fn an_action_on_disk_stands_and_one_not_stored_is_undone() {
    let dir = tempfile::tempdir().unwrap();
    let (running, store) = faulty_server(dir.path()).await;
    let black = guest(&running, "black").await;
    let white = guest(&running, "white").await;
    let (_, table) = black
        .create_game(json!({"rules": "tromp-taylor:size=9", "color": "black"}))
        .await
        .unwrap();
    let id = table["id"].as_i64().unwrap();
    assert_eq!(white.join(id, None).await.unwrap().0, 200);

    // The writer commits E5 and dies before answering: the move is on disk, so it stands.
    store.fail_after_commit.store(true, Ordering::SeqCst);
    let (status, state) = black.play(id, "E5").await.unwrap();
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["last_move"], "E5");
    // The writer fails before committing C3: refused, and the game is as it was.
    store.fail_before_commit.store(true, Ordering::SeqCst);
    let (status, refused) = white.play(id, "C3").await.unwrap();
    assert_eq!(status, 500, "{refused}");
    let (_, now) = white.game(id).await.unwrap();
    assert_eq!(
        (&now["version"], &now["board"]),
        (&state["version"], &state["board"])
    );
    // Play goes on from there, numbered without a gap.
    assert_eq!(white.play(id, "D4").await.unwrap().0, 200);
    let (_, live) = black.game(id).await.unwrap();
    running.stop().await.unwrap();

    // What the store holds is what the live game showed.
    let running = start(config(dir.path())).await.unwrap();
    let (status, after) = Client::new(&format!("http://{}", running.address))
        .unwrap()
        .game(id)
        .await
        .unwrap();
    assert_eq!(status, 200);
    for field in ["version", "board", "moves"] {
        assert_eq!(after[field], live[field], "{field}");
    }
    let moves: Vec<&str> = after["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["E5", "D4"]);
    running.stop().await.unwrap();
}

#[tokio::test]
async fn an_unknown_cookie_costs_one_store_read_a_while() {
    let dir = tempfile::tempdir().unwrap();
    let (running, store) = faulty_server(dir.path()).await;
    let c = Client::new(&format!("http://{}", running.address)).unwrap();
    let made_up = "tesuji_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let before = store.session_reads.load(Ordering::SeqCst);
    for _ in 0..50 {
        let request = c
            .request(Method::GET, "/api/session")
            .header("cookie", made_up);
        let (status, body) = c.send(request).await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(body["user"].is_null(), "{body}");
    }
    assert_eq!(store.session_reads.load(Ordering::SeqCst) - before, 1);
    // A real session is still found, and signing in is unaffected.
    let signed = guest(&running, "real").await;
    let (_, me) = signed.get("/api/session").await.unwrap();
    assert_eq!(me["user"]["name"], "real");
    running.stop().await.unwrap();
}
