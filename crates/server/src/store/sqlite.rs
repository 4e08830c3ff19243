//! The SQLite store: one file in the data directory, WAL mode, all writes through one connection (SQLite allows
//! one writer at a time; a single connection avoids `SQLITE_BUSY` between our own writers), reads from a pool.

use std::path::Path;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::Row;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use super::{Store, StoreError, StoreFuture, StoredGame, StoredMove};

/// The database file's name inside the data directory.
pub const DATABASE_FILE: &str = "tesuji.db";

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// SQLite storage.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating when missing) the database in `data_dir` and brings its schema up to date.
    pub async fn open(data_dir: &Path) -> Result<SqliteStore, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|source| StoreError::DataDir {
            path: data_dir.display().to_string(),
            source,
        })?;
        let file = data_dir.join(DATABASE_FILE);
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(&file)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a commit survives power loss, not only a process crash; "acknowledged" must mean durable.
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(std::time::Duration::from_secs(5));
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .connect_with(options.clone())
            .await?;
        MIGRATOR.run(&writer).await?;
        let reader = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options.read_only(true))
            .await?;
        Ok(SqliteStore { writer, reader })
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

impl Store for SqliteStore {
    fn create_game<'a>(&'a self, rules: &'a str, state: &'a str) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            let row = sqlx::query(
                "INSERT INTO games (rules, created, state) VALUES (?, ?, ?) RETURNING id",
            )
            .bind(rules)
            .bind(now())
            .bind(state)
            .fetch_one(&self.writer)
            .await?;
            Ok(row.try_get::<i64, _>(0)?)
        })
    }

    fn append_move<'a>(
        &'a self,
        game: i64,
        mv: &'a StoredMove,
        state: &'a str,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.writer.begin().await?;
            let inserted =
                sqlx::query("INSERT INTO moves (game_id, number, color, move) VALUES (?, ?, ?, ?)")
                    .bind(game)
                    .bind(mv.number)
                    .bind(&mv.color)
                    .bind(&mv.text)
                    .execute(&mut *tx)
                    .await;
            if let Err(e) = inserted {
                let unique = e
                    .as_database_error()
                    .is_some_and(|d| d.is_unique_violation());
                return Err(if unique {
                    StoreError::Conflict {
                        game,
                        number: mv.number,
                    }
                } else {
                    e.into()
                });
            }
            sqlx::query("UPDATE games SET state = ? WHERE id = ?")
                .bind(state)
                .bind(game)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn load_games(&self) -> StoreFuture<'_, Vec<StoredGame>> {
        Box::pin(async move {
            let rows = sqlx::query("SELECT id, rules, created, state FROM games ORDER BY id")
                .fetch_all(&self.reader)
                .await?;
            let mut games = Vec::with_capacity(rows.len());
            for row in rows {
                games.push(StoredGame {
                    id: row.try_get("id")?,
                    rules: row.try_get("rules")?,
                    created: row.try_get("created")?,
                    state: row.try_get("state")?,
                    moves: Vec::new(),
                });
            }
            // One pass over all moves in order; games are sorted by id, so a binary search finds each owner.
            let rows = sqlx::query(
                "SELECT game_id, number, color, move FROM moves ORDER BY game_id, number",
            )
            .fetch_all(&self.reader)
            .await?;
            for row in rows {
                let id: i64 = row.try_get("game_id")?;
                if let Ok(k) = games.binary_search_by_key(&id, |g| g.id) {
                    games[k].moves.push(StoredMove {
                        number: row.try_get("number")?,
                        color: row.try_get("color")?,
                        text: row.try_get("move")?,
                    });
                }
            }
            Ok(games)
        })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.reader.close().await;
            self.writer.close().await;
            Ok(())
        })
    }
}
