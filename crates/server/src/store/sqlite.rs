//! The SQLite store: one file in the data directory, WAL mode, all writes through one connection (SQLite allows
//! one writer at a time; a single connection avoids `SQLITE_BUSY` between our own writers), reads from a pool.

use std::path::Path;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::Row;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use super::{
    Seats, Store, StoreError, StoreFuture, StoredGame, StoredMove, StoredSession, StoredUser,
};

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

fn user_row(r: &sqlx::sqlite::SqliteRow, with_hash: bool) -> Result<StoredUser, StoreError> {
    Ok(StoredUser {
        id: r.try_get("id")?,
        name: r.try_get("name")?,
        password_hash: if with_hash {
            r.try_get("password_hash")?
        } else {
            None
        },
        guest: r.try_get("guest")?,
        created: r.try_get("created")?,
    })
}

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

impl Store for SqliteStore {
    fn create_game<'a>(
        &'a self,
        rules: &'a str,
        state: &'a str,
        seats: &'a Seats,
    ) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            let (bot, bot_color) = match &seats.bot {
                Some((kind, color)) => (Some(kind.as_str()), Some(color.as_str())),
                None => (None, None),
            };
            let row = sqlx::query(
                "INSERT INTO games (rules, created, state, black_user, white_user, bot, bot_color, opponent, \
                 invite, joined) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            )
            .bind(rules)
            .bind(now())
            .bind(state)
            .bind(seats.black)
            .bind(seats.white)
            .bind(bot)
            .bind(bot_color)
            .bind(&seats.opponent)
            .bind(&seats.invite)
            .bind(seats.joined)
            .fetch_one(&self.writer)
            .await?;
            Ok(row.try_get::<i64, _>(0)?)
        })
    }

    fn join_game<'a>(&'a self, game: i64, color: &'a str, user: i64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // The column name comes from a fixed pair, never from the request.
            let sql = match color {
                "black" => {
                    "UPDATE games SET black_user = ?, joined = 1 WHERE id = ? AND black_user IS NULL"
                }
                _ => {
                    "UPDATE games SET white_user = ?, joined = 1 WHERE id = ? AND white_user IS NULL"
                }
            };
            let done = sqlx::query(sql)
                .bind(user)
                .bind(game)
                .execute(&self.writer)
                .await?;
            if done.rows_affected() == 1 {
                Ok(())
            } else {
                Err(StoreError::SeatTaken { game })
            }
        })
    }

    fn create_user<'a>(
        &'a self,
        name: &'a str,
        name_key: Option<&'a str>,
        password_hash: Option<&'a str>,
    ) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            let row = sqlx::query(
                "INSERT INTO users (name, name_key, password_hash, created) VALUES (?, ?, ?, ?) RETURNING id",
            )
            .bind(name)
            .bind(name_key)
            .bind(password_hash)
            .bind(now())
            .fetch_one(&self.writer)
            .await;
            match row {
                Ok(row) => Ok(row.try_get::<i64, _>(0)?),
                Err(e)
                    if e.as_database_error()
                        .is_some_and(|d| d.is_unique_violation()) =>
                {
                    Err(StoreError::NameTaken)
                }
                Err(e) => Err(e.into()),
            }
        })
    }

    fn find_account<'a>(&'a self, name_key: &'a str) -> StoreFuture<'a, Option<StoredUser>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT id, name, password_hash, password_hash IS NULL AS guest, created FROM users \
                 WHERE name_key = ?",
            )
            .bind(name_key)
            .fetch_optional(&self.reader)
            .await?;
            row.map(|r| user_row(&r, true)).transpose()
        })
    }

    fn load_users(&self) -> StoreFuture<'_, Vec<StoredUser>> {
        Box::pin(async move {
            let rows =
                sqlx::query("SELECT id, name, password_hash IS NULL AS guest, created FROM users")
                    .fetch_all(&self.reader)
                    .await?;
            rows.iter().map(|r| user_row(r, false)).collect()
        })
    }

    fn create_session<'a>(
        &'a self,
        token_hash: &'a [u8],
        session: &'a StoredSession,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // Expired sessions are swept whenever a new one is made, so the table does not grow forever.
            sqlx::query("DELETE FROM sessions WHERE expires < ?")
                .bind(now())
                .execute(&self.writer)
                .await?;
            sqlx::query(
                "INSERT INTO sessions (token_hash, user_id, csrf, expires) VALUES (?, ?, ?, ?)",
            )
            .bind(token_hash)
            .bind(session.user_id)
            .bind(&session.csrf)
            .bind(session.expires)
            .execute(&self.writer)
            .await?;
            Ok(())
        })
    }

    fn find_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, Option<StoredSession>> {
        Box::pin(async move {
            let row =
                sqlx::query("SELECT user_id, csrf, expires FROM sessions WHERE token_hash = ?")
                    .bind(token_hash)
                    .fetch_optional(&self.reader)
                    .await?;
            match row {
                Some(r) => Ok(Some(StoredSession {
                    user_id: r.try_get("user_id")?,
                    csrf: r.try_get("csrf")?,
                    expires: r.try_get("expires")?,
                })),
                None => Ok(None),
            }
        })
    }

    fn delete_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query("DELETE FROM sessions WHERE token_hash = ?")
                .bind(token_hash)
                .execute(&self.writer)
                .await?;
            Ok(())
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
            let rows = sqlx::query(
                "SELECT id, rules, created, state, black_user, white_user, bot, bot_color, opponent, invite, \
                 joined FROM games ORDER BY id",
            )
            .fetch_all(&self.reader)
            .await?;
            let mut games = Vec::with_capacity(rows.len());
            for row in rows {
                let bot: Option<String> = row.try_get("bot")?;
                let bot_color: Option<String> = row.try_get("bot_color")?;
                games.push(StoredGame {
                    id: row.try_get("id")?,
                    rules: row.try_get("rules")?,
                    created: row.try_get("created")?,
                    state: row.try_get("state")?,
                    seats: Seats {
                        black: row.try_get("black_user")?,
                        white: row.try_get("white_user")?,
                        bot: bot.zip(bot_color),
                        opponent: row.try_get("opponent")?,
                        invite: row.try_get("invite")?,
                        joined: row.try_get("joined")?,
                    },
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
