//! The PostgreSQL store, for a site served by several nodes: every node holds a pool of connections to one
//! database, which decides between them (a move's `(game, number)` key, a seat taken with a condition, user
//! names checked under a lock).
//!
//! Moves are group-committed as with SQLite ([`super::appends`]): one transaction and one flush for every append
//! queued meanwhile. A batch's rows are sent as arrays (`UNNEST`), so that its statements are always the same
//! text, prepared once per connection, whatever the batch's size. Row locks are taken in key order (moves by
//! `(game, number)`, games by id), so that two nodes' batches touching the same games wait for each other
//! instead of deadlocking.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions, PgRow};
use sqlx::{Acquire, AssertSqlSafe, Connection, Row};

use super::appends::{Append, Appends, BatchFuture, Settled, WriteBatch, settled};
use super::{DELETED_PASSWORD, SESSION_IDLE_SECONDS};
use super::{
    Ending, GameRow, ImportedGame, NewChat, NewSeek, NewUser, NewsRow, Progress, REVIEW_COLUMNS,
    Rated, Rating, RatingPoint, RatingUpdate, RecordRow, ReviewBacklog, Reviewed, Seats, Sought,
    Store, StoreError, StoreFuture, StoredChat, StoredGame, StoredMove, StoredReview, StoredSeek,
    StoredSession, StoredUser, UploadUsage, Vacation, VacationTaken, bot_columns, now,
};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// The advisory lock under which users are created, so that two look-alike names made at the same moment on
/// two nodes cannot both get in (an arbitrary number of our own: "tesuji users").
const USERS_LOCK: i64 = 0x7465_7375_6A69_7573;

/// The advisory lock under which seeks are matched or stored (see [`Store::seek`]).
const SEEKS_LOCK: i64 = 0x7465_7375_6A69_736B;

/// Connections per node: the group commit holds one, reads and the other writes share the rest.
const POOL_SIZE: u32 = 10;

/// PostgreSQL storage.
#[derive(Clone, Debug)]
pub struct PgStore {
    pool: PgPool,
    appends: Arc<Appends>,
}

/// Whether `database` names a PostgreSQL database (a `postgres://` or `postgresql://` URL).
pub fn is_postgres_url(database: &str) -> bool {
    database.starts_with("postgres://") || database.starts_with("postgresql://")
}

/// `url` without its password, to be shown in messages.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((credentials, host)) => {
            let user = credentials
                .split_once(':')
                .map_or(credentials, |(user, _)| user);
            format!("{scheme}://{user}@{host}")
        }
        None => url.to_owned(),
    }
}

/// PostgreSQL's codes for a database that does not exist, and for one that does.
const NO_SUCH_DATABASE: &str = "3D000";
const DATABASE_EXISTS: &str = "42P04";

fn has_code(e: &sqlx::Error, code: &str) -> bool {
    e.as_database_error()
        .and_then(|d| d.code())
        .is_some_and(|c| c == code)
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://USER@HOST:PORT/DB`), creating it when it does not exist
    /// (if the user may), and brings its schema up to date (several nodes starting at once migrate it once:
    /// the migrator holds a lock meanwhile).
    pub async fn open(url: &str) -> Result<PgStore, StoreError> {
        let options = PgConnectOptions::from_str(url)?.application_name("tesuji");
        let unreachable = |e: sqlx::Error| StoreError::Connect {
            database: format!("PostgreSQL at {}", without_password(url)),
            // The server's own sentence, without the position in its source that sqlx adds.
            reason: e
                .as_database_error()
                .map_or_else(|| e.to_string(), |d| d.message().to_owned()),
        };
        // One connection first: its error says why (a pool's says only that it timed out).
        let first = match PgConnection::connect_with(&options).await {
            Err(e) if has_code(&e, NO_SUCH_DATABASE) => {
                use sqlx::migrate::MigrateDatabase;
                match sqlx::Postgres::create_database(url).await {
                    // Another node made it meanwhile.
                    Err(e) if has_code(&e, DATABASE_EXISTS) => {}
                    other => other.map_err(unreachable)?,
                }
                PgConnection::connect_with(&options).await
            }
            connected => connected,
        };
        first.map_err(unreachable)?.close().await?;
        let pool = PgPoolOptions::new()
            .max_connections(POOL_SIZE)
            .min_connections(1)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options)
            .await
            .map_err(unreachable)?;
        MIGRATOR.run(&pool).await?;
        let appends = Arc::new(Appends::start(PgBatch { pool: pool.clone() }));
        Ok(PgStore { pool, appends })
    }

    /// The connection pool, for tests and tools that look at the database directly.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Deletes game `game` if nobody has moved in it and its `joined` flag is `joined`; `refused` otherwise.
    /// What refers to it goes with it, in one transaction: its chat, and the taken seek that made it
    /// (automatch), whose seeker then sees no game for it.
    fn delete_unplayed(&self, game: i64, joined: bool, refused: StoreError) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            // The game's row is held until the end: a chat message or a seek's game written meanwhile waits,
            // then finds the game gone.
            sqlx::query("SELECT id FROM games WHERE id = $1 FOR UPDATE")
                .bind(game)
                .fetch_optional(&mut *tx)
                .await?;
            for sql in [
                "DELETE FROM chat_messages WHERE game_id = $1",
                "DELETE FROM seeks WHERE game_id = $1",
            ] {
                sqlx::query(sql).bind(game).execute(&mut *tx).await?;
            }
            let done =
                sqlx::query("DELETE FROM games WHERE id = $1 AND joined = $2 AND move_count = 0")
                    .bind(game)
                    .bind(joined)
                    .execute(&mut *tx)
                    .await?;
            if done.rows_affected() != 1 {
                // Dropped unfinished, the transaction keeps the chat and the seek.
                return Err(refused);
            }
            tx.commit().await?;
            Ok(())
        })
    }
}

/// The batch writer of the group commit.
struct PgBatch {
    pool: PgPool,
}

impl WriteBatch for PgBatch {
    fn write<'a>(&'a self, batch: &'a [Append]) -> BatchFuture<'a> {
        Box::pin(write_batch(&self.pool, batch))
    }
}

/// The moves' columns as arrays, one element per append of `rows`.
struct MoveArrays<'a> {
    game: Vec<i64>,
    number: Vec<i64>,
    color: Vec<&'a str>,
    text: Vec<&'a str>,
    spent_ms: Vec<Option<i64>>,
    lag_ms: Vec<Option<i64>>,
    at_ms: Vec<Option<i64>>,
}

impl<'a> MoveArrays<'a> {
    fn of(game: impl Fn(usize) -> i64, moves: &[&'a StoredMove]) -> MoveArrays<'a> {
        MoveArrays {
            game: (0..moves.len()).map(game).collect(),
            number: moves.iter().map(|m| m.number).collect(),
            color: moves.iter().map(|m| m.color.as_str()).collect(),
            text: moves.iter().map(|m| m.text.as_str()).collect(),
            spent_ms: moves.iter().map(|m| m.spent_ms).collect(),
            lag_ms: moves.iter().map(|m| m.lag_ms).collect(),
            at_ms: moves.iter().map(|m| m.at_ms).collect(),
        }
    }

    /// Inserts the rows, skipping keys already taken; answers the keys inserted.
    async fn insert(&self, tx: &mut PgConnection) -> Result<Vec<(i64, i64)>, sqlx::Error> {
        let rows = sqlx::query(
            "INSERT INTO moves (game_id, number, color, move, spent_ms, lag_ms, at_ms) \
             SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::BIGINT[], $6::BIGINT[], \
             $7::BIGINT[]) \
             ON CONFLICT DO NOTHING RETURNING game_id, number",
        )
        .bind(&self.game)
        .bind(&self.number)
        .bind(&self.color)
        .bind(&self.text)
        .bind(&self.spent_ms)
        .bind(&self.lag_ms)
        .bind(&self.at_ms)
        .fetch_all(&mut *tx)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect()
    }
}

/// Writes a batch in one transaction and commits it: one statement inserts every move (a key already taken is
/// skipped, and fails its append), one records the games' states and action counts, and each ending is one
/// more. An insert that breaks another constraint (a game that is gone) aborts the transaction; then the batch
/// is written again with each move in a savepoint of its own, so that it fails alone.
async fn write_batch(
    pool: &PgPool,
    batch: &[Append],
) -> Result<Vec<Result<(), StoreError>>, sqlx::Error> {
    // Rows in key order: two batches inserting the same keys lock them in the same order.
    let mut order: Vec<usize> = (0..batch.len()).collect();
    order.sort_by_key(|&k| (batch[k].game, batch[k].mv.number));
    let moves: Vec<&StoredMove> = order.iter().map(|&k| &batch[k].mv).collect();
    let arrays = MoveArrays::of(|i| batch[order[i]].game, &moves);
    let mut tx = pool.begin().await?;
    let outcomes: Vec<Result<(), StoreError>> = match arrays.insert(&mut tx).await {
        Ok(inserted) => {
            let inserted: std::collections::HashSet<(i64, i64)> = inserted.into_iter().collect();
            batch
                .iter()
                .map(|a| {
                    if inserted.contains(&(a.game, a.mv.number)) {
                        Ok(())
                    } else {
                        Err(a.conflict())
                    }
                })
                .collect()
        }
        Err(e) if is_constraint(&e) => {
            tx.rollback().await?;
            tx = pool.begin().await?;
            let mut outcomes: Vec<Option<Result<(), StoreError>>> =
                (0..batch.len()).map(|_| None).collect();
            for &k in &order {
                outcomes[k] = Some(insert_alone(&mut tx, &batch[k]).await?);
            }
            outcomes
                .into_iter()
                .map(|o| o.unwrap_or_else(|| Err(sqlx::Error::WorkerCrashed.into())))
                .collect()
        }
        Err(e) => return Err(e),
    };
    let Settled { states, endings } = settled(batch, &outcomes);
    if !states.is_empty() {
        let mut states: Vec<(i64, &str, i64)> = states
            .into_iter()
            .map(|(game, (state, count))| (game, state, count))
            .collect();
        states.sort_unstable_by_key(|&(game, _, _)| game);
        let ids: Vec<i64> = states.iter().map(|s| s.0).collect();
        let texts: Vec<&str> = states.iter().map(|s| s.1).collect();
        let counts: Vec<i64> = states.iter().map(|s| s.2).collect();
        // The rows locked in id order first, then updated; a count never goes back (another node's batch may
        // have stored a later move of the game meanwhile).
        sqlx::query("SELECT id FROM games WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE")
            .bind(&ids)
            .fetch_all(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE games SET state = v.state, move_count = v.count \
             FROM UNNEST($1::BIGINT[], $2::TEXT[], $3::BIGINT[]) AS v(id, state, count) \
             WHERE games.id = v.id AND games.move_count < v.count",
        )
        .bind(&ids)
        .bind(&texts)
        .bind(&counts)
        .execute(&mut *tx)
        .await?;
    }
    // Games end rarely: one statement each.
    for (game, ending) in endings {
        write_ending(&mut tx, game, ending).await?;
    }
    tx.commit().await?;
    Ok(outcomes)
}

/// Inserts one move in a savepoint: its outcome, or an error of the whole batch.
async fn insert_alone(
    tx: &mut PgConnection,
    a: &Append,
) -> Result<Result<(), StoreError>, sqlx::Error> {
    let mut savepoint = Acquire::begin(&mut *tx).await?;
    let inserted = MoveArrays::of(|_| a.game, &[&a.mv])
        .insert(&mut savepoint)
        .await;
    match inserted {
        Ok(keys) if keys.is_empty() => {
            savepoint.rollback().await?;
            Ok(Err(a.conflict()))
        }
        Ok(_) => {
            savepoint.commit().await?;
            Ok(Ok(()))
        }
        Err(e) if is_constraint(&e) => {
            savepoint.rollback().await?;
            Ok(Err(e.into()))
        }
        Err(e) => Err(e),
    }
}

async fn write_ending(
    tx: &mut PgConnection,
    game: i64,
    ending: &Ending,
) -> Result<(), sqlx::Error> {
    // What is there stays: a summary filled in at start keeps the result and end time stored before.
    sqlx::query(
        "UPDATE games SET result = COALESCE(result, $1), ended = COALESCE(ended, $2), moves_played = $3 \
         WHERE id = $4",
    )
    .bind(&ending.result)
    .bind(ending.ended)
    .bind(ending.moves)
    .bind(game)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

fn is_constraint(e: &sqlx::Error) -> bool {
    use sqlx::error::ErrorKind;
    e.as_database_error().is_some_and(|d| {
        matches!(
            d.kind(),
            ErrorKind::UniqueViolation
                | ErrorKind::ForeignKeyViolation
                | ErrorKind::NotNullViolation
                | ErrorKind::CheckViolation
        )
    })
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
}

fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

row_decoders!(PgRow);

impl Store for PgStore {
    fn create_game<'a>(
        &'a self,
        rules: &'a str,
        state: &'a str,
        seats: &'a Seats,
        time_control: Option<&'a str>,
    ) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            let (bot, bot_color) = bot_columns(seats);
            let row = sqlx::query(
                "INSERT INTO games (rules, created, state, black_user, white_user, bot, bot_color, opponent, \
                 invite, joined, time_control, ranked, rematch_of, undo) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, \
                 $9, $10, $11, $12, $13, $14) RETURNING id",
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
            .bind(time_control)
            .bind(seats.ranked)
            .bind(seats.rematch_of)
            .bind(seats.undo)
            .fetch_one(&self.pool)
            .await?;
            Ok(row.try_get::<i64, _>(0)?)
        })
    }

    fn join_game<'a>(&'a self, game: i64, color: &'a str, user: i64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // The column name comes from a fixed pair, never from the request.
            let sql = match color {
                "black" => {
                    "UPDATE games SET black_user = $1, joined = true WHERE id = $2 AND black_user IS NULL"
                }
                _ => {
                    "UPDATE games SET white_user = $1, joined = true WHERE id = $2 AND white_user IS NULL"
                }
            };
            let done = sqlx::query(sql)
                .bind(user)
                .bind(game)
                .execute(&self.pool)
                .await?;
            if done.rows_affected() == 1 {
                Ok(())
            } else {
                Err(StoreError::SeatTaken { game })
            }
        })
    }

    fn cancel_table(&self, game: i64) -> StoreFuture<'_, ()> {
        // An open table has no actions; the condition keeps a joined game from going.
        self.delete_unplayed(game, false, StoreError::Started { game })
    }

    fn abort_game(&self, game: i64) -> StoreFuture<'_, ()> {
        self.delete_unplayed(game, true, StoreError::Moved { game })
    }

    fn create_user<'a>(
        &'a self,
        name: &'a str,
        name_key: Option<&'a str>,
        password_hash: Option<&'a str>,
    ) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            let row = sqlx::query(
                "INSERT INTO users (name, name_key, password_hash, created) VALUES ($1, $2, $3, $4) RETURNING id",
            )
            .bind(name)
            .bind(name_key)
            .bind(password_hash)
            .bind(now())
            .fetch_one(&self.pool)
            .await;
            match row {
                Ok(row) => Ok(row.try_get::<i64, _>(0)?),
                Err(e) if is_unique_violation(&e) => Err(StoreError::NameTaken),
                Err(e) => Err(e.into()),
            }
        })
    }

    fn create_checked_user<'a>(&'a self, user: &'a NewUser<'a>) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            // Every node's user creation waits here, so that the checks and the insert are one step.
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(USERS_LOCK)
                .execute(&mut *tx)
                .await?;
            let taken = sqlx::query("SELECT 1 FROM users WHERE name_key = $1")
                .bind(user.name_key)
                .fetch_optional(&mut *tx)
                .await?;
            if taken.is_some() {
                return Err(StoreError::NameTaken);
            }
            let alike = sqlx::query(
                "SELECT name FROM users WHERE name_skeleton = $1 AND name_key IS NOT NULL ORDER BY id LIMIT 1",
            )
            .bind(user.skeleton)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(row) = alike {
                return Err(StoreError::LooksLike {
                    name: row.try_get(0)?,
                });
            }
            let account = user.password_hash.is_some();
            let row = sqlx::query(
                "INSERT INTO users (name, name_key, name_skeleton, password_hash, created) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
            )
            .bind(user.name)
            .bind(account.then_some(user.name_key))
            .bind(user.skeleton)
            .bind(user.password_hash)
            .bind(now())
            .fetch_one(&mut *tx)
            .await;
            let id: i64 = match row {
                Ok(row) => row.try_get(0)?,
                Err(e) if is_unique_violation(&e) => return Err(StoreError::NameTaken),
                Err(e) => return Err(e.into()),
            };
            tx.commit().await?;
            Ok(id)
        })
    }

    fn accounts_without_skeleton(
        &self,
        after: i64,
        limit: usize,
    ) -> StoreFuture<'_, Vec<(i64, String)>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT id, name FROM users WHERE name_key IS NOT NULL AND name_skeleton IS NULL AND id > $1 \
                 ORDER BY id LIMIT $2",
            )
            .bind(after)
            .bind(limit_of(limit))
            .fetch_all(&self.pool)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect()
        })
    }

    fn set_skeletons<'a>(&'a self, skeletons: &'a [(i64, String)]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let ids: Vec<i64> = skeletons.iter().map(|s| s.0).collect();
            let names: Vec<&str> = skeletons.iter().map(|s| s.1.as_str()).collect();
            sqlx::query(
                "UPDATE users SET name_skeleton = v.skeleton \
                 FROM UNNEST($1::BIGINT[], $2::TEXT[]) AS v(id, skeleton) WHERE users.id = v.id",
            )
            .bind(&ids)
            .bind(&names)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
    }

    fn find_account<'a>(&'a self, name_key: &'a str) -> StoreFuture<'a, Option<StoredUser>> {
        Box::pin(async move {
            let row = sqlx::query(concat!(
                "SELECT password_hash, ",
                user_columns!(),
                " FROM users WHERE name_key = $1"
            ))
            .bind(name_key)
            .fetch_optional(&self.pool)
            .await?;
            row.map(|r| user_row(&r, true)).transpose()
        })
    }

    fn find_user(&self, id: i64) -> StoreFuture<'_, Option<StoredUser>> {
        Box::pin(async move {
            let row = sqlx::query(concat!(
                "SELECT ",
                user_columns!(),
                " FROM users WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
            row.map(|r| user_row(&r, false)).transpose()
        })
    }

    fn create_session<'a>(
        &'a self,
        token_hash: &'a [u8],
        session: &'a StoredSession,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            // Expired sessions are swept whenever a new one is made, so the table does not grow forever.
            // So are the lapsed ones, unused for too long.
            sqlx::query("DELETE FROM sessions WHERE expires < $1 OR last_used < $2")
                .bind(now())
                .bind(session.created - SESSION_IDLE_SECONDS)
                .execute(&self.pool)
                .await?;
            sqlx::query(
                "INSERT INTO sessions (token_hash, user_id, csrf, expires, created, last_used, user_agent, \
                 address) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(token_hash)
            .bind(session.user_id)
            .bind(&session.csrf)
            .bind(session.expires)
            .bind(session.created)
            .bind(session.last_used)
            .bind(&session.user_agent)
            .bind(&session.address)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
    }

    fn find_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, Option<StoredSession>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT user_id, csrf, expires, created, last_used, user_agent, address FROM sessions \
                 WHERE token_hash = $1",
            )
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
            row.map(|r| session_row(&r)).transpose()
        })
    }

    fn delete_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                .bind(token_hash)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn touch_session<'a>(&'a self, token_hash: &'a [u8], at: i64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query(
                "UPDATE sessions SET last_used = $1 WHERE token_hash = $2 AND last_used < $3",
            )
            .bind(at)
            .bind(token_hash)
            .bind(at)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
    }

    fn user_sessions(&self, user: i64) -> StoreFuture<'_, Vec<(Vec<u8>, StoredSession)>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT token_hash, user_id, csrf, expires, created, last_used, user_agent, address \
                 FROM sessions WHERE user_id = $1 ORDER BY last_used DESC, created DESC",
            )
            .bind(user)
            .fetch_all(&self.pool)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("token_hash")?, session_row(r)?)))
                .collect()
        })
    }

    fn end_sessions<'a>(&'a self, user: i64, keep: Option<&'a [u8]>) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let done = sqlx::query(
                "DELETE FROM sessions WHERE user_id = $1 AND ($2 IS NULL OR token_hash <> $3)",
            )
            .bind(user)
            .bind(keep)
            .bind(keep)
            .execute(&self.pool)
            .await?;
            Ok(done.rows_affected())
        })
    }

    fn end_session<'a>(&'a self, user: i64, token_hash: &'a [u8]) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND token_hash = $2")
                .bind(user)
                .bind(token_hash)
                .execute(&self.pool)
                .await?;
            Ok(done.rows_affected() > 0)
        })
    }

    fn password_hash(&self, user: i64) -> StoreFuture<'_, Option<String>> {
        Box::pin(async move {
            let hash: Option<Option<String>> =
                sqlx::query_scalar("SELECT password_hash FROM users WHERE id = $1")
                    .bind(user)
                    .fetch_optional(&self.pool)
                    .await?;
            Ok(hash.flatten())
        })
    }

    fn set_password<'a>(
        &'a self,
        user: i64,
        hash: &'a str,
        keep: Option<&'a [u8]>,
    ) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            sqlx::query(
                "UPDATE users SET password_hash = $1 WHERE id = $2 AND password_hash IS NOT NULL",
            )
            .bind(hash)
            .bind(user)
            .execute(&mut *tx)
            .await?;
            let ended = sqlx::query(
                "DELETE FROM sessions WHERE user_id = $1 AND ($2 IS NULL OR token_hash <> $3)",
            )
            .bind(user)
            .bind(keep)
            .bind(keep)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            Ok(ended)
        })
    }

    fn create_reset<'a>(
        &'a self,
        token_hash: &'a [u8],
        user: i64,
        expires: i64,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query(
                "INSERT INTO password_resets (token_hash, user_id, expires) VALUES ($1, $2, $3)",
            )
            .bind(token_hash)
            .bind(user)
            .bind(expires)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
    }

    fn delete_account<'a>(&'a self, user: i64, neutral: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            sqlx::query(
                "UPDATE users SET name = $1, name_key = NULL, name_skeleton = NULL, password_hash = $2 WHERE id = $3",
            )
            .bind(neutral)
            .bind(DELETED_PASSWORD)
            .bind(user)
            .execute(&mut *tx)
            .await?;
            for delete in [
                "DELETE FROM sessions WHERE user_id = $1",
                "DELETE FROM password_resets WHERE user_id = $1",
            ] {
                sqlx::query(delete).bind(user).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    fn reset_password<'a>(
        &'a self,
        token_hash: &'a [u8],
        now: i64,
        hash: &'a str,
    ) -> StoreFuture<'a, Option<(i64, u64)>> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            let user: Option<i64> = sqlx::query_scalar(
                "DELETE FROM password_resets WHERE token_hash = $1 AND expires >= $2 RETURNING user_id",
            )
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&mut *tx)
            .await?;
            sqlx::query("DELETE FROM password_resets WHERE expires < $1")
                .bind(now)
                .execute(&mut *tx)
                .await?;
            let Some(user) = user else {
                tx.commit().await?;
                return Ok(None);
            };
            sqlx::query(
                "UPDATE users SET password_hash = $1 WHERE id = $2 AND password_hash IS NOT NULL",
            )
            .bind(hash)
            .bind(user)
            .execute(&mut *tx)
            .await?;
            let ended = sqlx::query("DELETE FROM sessions WHERE user_id = $1")
                .bind(user)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            tx.commit().await?;
            Ok(Some((user, ended)))
        })
    }

    fn append_move<'a>(
        &'a self,
        game: i64,
        mv: &'a StoredMove,
        state: &'a str,
        ending: Option<&'a Ending>,
    ) -> StoreFuture<'a, ()> {
        Box::pin(self.appends.append(game, mv, state, ending))
    }

    fn live_games(&self) -> StoreFuture<'_, Vec<(i64, Progress)>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT id, move_count, joined FROM games WHERE state <> 'over' ORDER BY id",
            )
            .fetch_all(&self.pool)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("id")?, progress_row(r)?)))
                .collect()
        })
    }

    fn load_game_after(&self, id: i64, after: i64) -> StoreFuture<'_, Option<StoredGame>> {
        Box::pin(async move {
            // Both reads see one snapshot: a move appended between them cannot be half seen.
            let mut tx = self.pool.begin().await?;
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(&mut *tx)
                .await?;
            let row = sqlx::query(concat!(
                "SELECT ",
                game_columns!(),
                " FROM games WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let mut game = stored_game(&row)?;
            let rows = sqlx::query(
                "SELECT number, color, move, spent_ms, lag_ms, at_ms FROM moves WHERE game_id = $1 AND number > $2 \
                 ORDER BY number",
            )
            .bind(id)
            .bind(after)
            .fetch_all(&mut *tx)
            .await?;
            game.moves = rows.iter().map(stored_move).collect::<Result<_, _>>()?;
            tx.commit().await?;
            Ok(Some(game))
        })
    }

    fn player_games(
        &self,
        user: i64,
        before: Option<i64>,
        limit: usize,
    ) -> StoreFuture<'_, Vec<GameRow>> {
        Box::pin(async move {
            // Each seat's index gives its newest games; the page is the newest of both.
            let sql = concat!(
                listing!(),
                " WHERE g.id IN ( \
                 (SELECT id FROM games WHERE black_user = $1 AND id < $2 ORDER BY id DESC LIMIT $3) \
                 UNION ALL \
                 (SELECT id FROM games WHERE white_user = $1 AND id < $2 ORDER BY id DESC LIMIT $3)) \
                 ORDER BY g.id DESC LIMIT $3"
            );
            let rows = sqlx::query(sql)
                .bind(user)
                .bind(before.unwrap_or(i64::MAX))
                .bind(limit_of(limit))
                .fetch_all(&self.pool)
                .await?;
            rows.iter().map(game_row).collect()
        })
    }

    fn finished_games(&self, before: Option<i64>, limit: usize) -> StoreFuture<'_, Vec<GameRow>> {
        Box::pin(async move {
            let limit = limit_of(limit);
            let rows = match before {
                None => {
                    let sql = concat!(
                        listing!(),
                        " WHERE g.state = 'over' AND g.ended IS NOT NULL \
                         ORDER BY g.ended DESC, g.id DESC LIMIT $1"
                    );
                    sqlx::query(sql).bind(limit).fetch_all(&self.pool).await?
                }
                Some(before) => {
                    // The page goes on after `before` in (ended, id) order, read from its row; no such
                    // finished game: NULL, and an empty page.
                    let sql = concat!(
                        listing!(),
                        " WHERE g.state = 'over' AND g.ended IS NOT NULL \
                         AND (g.ended, g.id) < (SELECT ended, id FROM games WHERE id = $1 AND state = 'over') \
                         ORDER BY g.ended DESC, g.id DESC LIMIT $2"
                    );
                    sqlx::query(sql)
                        .bind(before)
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await?
                }
            };
            rows.iter().map(game_row).collect()
        })
    }

    fn unsummarized_games(&self, limit: usize) -> StoreFuture<'_, Vec<i64>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT id FROM games WHERE state = 'over' AND moves_played IS NULL ORDER BY id LIMIT $1",
            )
            .bind(limit_of(limit))
            .fetch_all(&self.pool)
            .await?;
            rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
        })
    }

    fn set_ending<'a>(&'a self, game: i64, ending: &'a Ending) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            write_ending(&mut tx, game, ending).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn import_games<'a>(&'a self, games: &'a [ImportedGame]) -> StoreFuture<'a, Vec<i64>> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            let mut ids = Vec::with_capacity(games.len());
            for g in games {
                let (bot, bot_color) = bot_columns(&g.seats);
                let row = sqlx::query(
                    "INSERT INTO games (rules, created, state, black_user, white_user, bot, bot_color, opponent, \
                     invite, joined, time_control, move_count, result, ended, moves_played, ranked) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id",
                )
                .bind(&g.rules)
                .bind(g.created)
                .bind(&g.state)
                .bind(g.seats.black)
                .bind(g.seats.white)
                .bind(bot)
                .bind(bot_color)
                .bind(&g.seats.opponent)
                .bind(&g.seats.invite)
                .bind(g.seats.joined)
                .bind(&g.time_control)
                .bind(i64::try_from(g.moves.len()).unwrap_or(i64::MAX))
                .bind(g.ending.as_ref().and_then(|e| e.result.as_deref()))
                .bind(g.ending.as_ref().map(|e| e.ended))
                .bind(g.ending.as_ref().map(|e| e.moves))
                .bind(g.seats.ranked)
                .fetch_one(&mut *tx)
                .await?;
                let id: i64 = row.try_get(0)?;
                let moves: Vec<&StoredMove> = g.moves.iter().collect();
                MoveArrays::of(|_| id, &moves).insert(&mut tx).await?;
                ids.push(id);
            }
            tx.commit().await?;
            Ok(ids)
        })
    }

    fn count_games(&self) -> StoreFuture<'_, i64> {
        Box::pin(async move {
            let row = sqlx::query("SELECT COUNT(*) FROM games")
                .fetch_one(&self.pool)
                .await?;
            Ok(row.try_get(0)?)
        })
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query("SELECT 1").execute(&self.pool).await?;
            Ok(())
        })
    }

    fn progress(&self, id: i64) -> StoreFuture<'_, Option<Progress>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT move_count, joined FROM games WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
            row.as_ref().map(progress_row).transpose()
        })
    }

    fn site(&self) -> StoreFuture<'_, String> {
        Box::pin(async move {
            let id: String = sqlx::query_scalar("SELECT id FROM site")
                .fetch_one(&self.pool)
                .await?;
            Ok(id)
        })
    }

    fn hold_lease<'a>(&'a self, name: &'a str, holder: u64, ttl_ms: u64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            // The node's number is stored with its bits as they are.
            let holder = holder as i64;
            let ttl_ms = i64::try_from(ttl_ms).unwrap_or(i64::MAX);
            let held = sqlx::query(
                "INSERT INTO leases (name, holder, expires)
                 VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
                 ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires = EXCLUDED.expires
                 WHERE leases.holder = EXCLUDED.holder OR leases.expires < clock_timestamp()
                 RETURNING holder",
            )
            .bind(name)
            .bind(holder)
            .bind(ttl_ms)
            .fetch_optional(&self.pool)
            .await?;
            Ok(held.is_some())
        })
    }

    fn clocks_since<'a>(&'a self, name: &'a str, now_ms: u64) -> StoreFuture<'a, Option<u64>> {
        Box::pin(async move {
            let now_ms = i64::try_from(now_ms).unwrap_or(i64::MAX);
            // One statement: the time is recorded only when nobody holds the lease, and read otherwise.
            let since: Option<i64> = sqlx::query_scalar(
                "WITH held AS (SELECT 1 FROM leases WHERE name = $1 AND expires > clock_timestamp()),
                 cold AS (UPDATE site SET clocks_since = $2 WHERE NOT EXISTS (SELECT 1 FROM held) RETURNING 1)
                 SELECT CASE WHEN EXISTS (SELECT 1 FROM held) THEN COALESCE(clocks_since, 0) END FROM site",
            )
            .bind(name)
            .bind(now_ms)
            .fetch_one(&self.pool)
            .await?;
            Ok(since.map(|s| u64::try_from(s).unwrap_or(0)))
        })
    }

    fn release_lease<'a>(&'a self, name: &'a str, holder: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query("DELETE FROM leases WHERE name = $1 AND holder = $2")
                .bind(name)
                .bind(holder as i64)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn rate_game<'a>(
        &'a self,
        game: i64,
        black: i64,
        white: i64,
        at: i64,
        update: RatingUpdate,
    ) -> StoreFuture<'a, Rated> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            let done = sqlx::query("SELECT 1 FROM rating_changes WHERE game_id = $1 LIMIT 1")
                .bind(game)
                .fetch_optional(&mut *tx)
                .await?;
            if done.is_some() {
                return Ok(Rated::Already);
            }
            // The users' rows are locked in id order, so that two games rated at once wait, never deadlock.
            let rows = sqlx::query(
                "SELECT id, rating, rating_deviation AS deviation, rating_volatility AS volatility \
                 FROM users WHERE id IN ($1, $2) ORDER BY id FOR UPDATE",
            )
            .bind(black)
            .bind(white)
            .fetch_all(&mut *tx)
            .await?;
            let now = ratings_of(&rows, black, white)?;
            let after = update(now.0, now.1);
            for (user, r) in [(black, after.0), (white, after.1)] {
                sqlx::query(
                    "UPDATE users SET rating = $1, rating_deviation = $2, rating_volatility = $3 WHERE id = $4",
                )
                .bind(r.rating)
                .bind(r.deviation)
                .bind(r.volatility)
                .bind(user)
                .execute(&mut *tx)
                .await?;
                let inserted = sqlx::query(
                    "INSERT INTO rating_changes (game_id, user_id, rating, deviation, volatility, at) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                )
                .bind(game)
                .bind(user)
                .bind(r.rating)
                .bind(r.deviation)
                .bind(r.volatility)
                .bind(at)
                .execute(&mut *tx)
                .await?;
                if inserted.rows_affected() == 0 {
                    // Rated meanwhile by another node, which held the users first: this one changes nothing.
                    return Ok(Rated::Already);
                }
            }
            tx.commit().await?;
            Ok(Rated::Now { before: now, after })
        })
    }

    fn rematch_of(&self, game: i64) -> StoreFuture<'_, Option<StoredGame>> {
        Box::pin(async move {
            // Read where writes go: the offer just made on this node is found at once.
            let row = sqlx::query(concat!(
                "SELECT ",
                game_columns!(),
                " FROM games WHERE rematch_of = $1"
            ))
            .bind(game)
            .fetch_optional(&self.pool)
            .await?;
            row.as_ref().map(stored_game).transpose()
        })
    }

    fn unrated_games(&self, after: i64, limit: usize) -> StoreFuture<'_, Vec<i64>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT id FROM games g WHERE ranked AND state = 'over' AND id > $1 \
                 AND result IS NOT NULL AND result <> 'Void' AND black_user IS NOT NULL AND white_user IS NOT NULL \
                 AND NOT EXISTS (SELECT 1 FROM rating_changes r WHERE r.game_id = g.id) ORDER BY id LIMIT $2",
            )
            .bind(after)
            .bind(limit_of(limit))
            .fetch_all(&self.pool)
            .await?;
            rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
        })
    }

    fn player_record(&self, user: i64) -> StoreFuture<'_, Vec<RecordRow>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT rules, black_user = $1 AS black, substr(result, 1, 1) AS result, COUNT(*) AS games \
                 FROM games WHERE state = 'over' AND result IS NOT NULL AND (black_user = $1 OR white_user = $1) \
                 GROUP BY rules, black_user = $1, substr(result, 1, 1) ORDER BY rules",
            )
            .bind(user)
            .fetch_all(&self.pool)
            .await?;
            rows.iter().map(record_row).collect()
        })
    }

    fn rating(&self, user: i64) -> StoreFuture<'_, Option<Rating>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT rating, rating_deviation AS deviation, rating_volatility AS volatility \
                 FROM users WHERE id = $1",
            )
            .bind(user)
            .fetch_optional(&self.pool)
            .await?;
            match row {
                Some(r) => rating_row(&r),
                None => Ok(None),
            }
        })
    }

    fn rating_history(&self, user: i64, limit: usize) -> StoreFuture<'_, Vec<RatingPoint>> {
        Box::pin(async move {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = sqlx::query(
                "SELECT game_id, at, rating, deviation, volatility FROM rating_changes \
                 WHERE user_id = $1 ORDER BY at DESC, game_id DESC LIMIT $2",
            )
            .bind(user)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
            let mut points = rows
                .iter()
                .map(rating_point)
                .collect::<Result<Vec<_>, StoreError>>()?;
            points.reverse();
            Ok(points)
        })
    }

    fn add_chat<'a>(&'a self, chat: &'a NewChat<'a>) -> StoreFuture<'a, StoredChat> {
        Box::pin(async move {
            let row = sqlx::query(
                "INSERT INTO chat_messages (game_id, user_id, channel, move_number, body, at) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            )
            .bind(chat.game)
            .bind(chat.user)
            .bind(chat.channel)
            .bind(chat.move_number)
            .bind(chat.text)
            .bind(chat.at_ms)
            .fetch_one(&self.pool)
            .await?;
            let name: String = sqlx::query_scalar("SELECT name FROM users WHERE id = $1")
                .bind(chat.user)
                .fetch_one(&self.pool)
                .await?;
            Ok(StoredChat {
                id: row.try_get("id")?,
                game: chat.game,
                user: chat.user,
                name,
                channel: chat.channel.to_owned(),
                move_number: chat.move_number,
                text: chat.text.to_owned(),
                at_ms: chat.at_ms,
            })
        })
    }

    fn chat_of(&self, game: i64, limit: usize) -> StoreFuture<'_, Vec<StoredChat>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT c.id, c.game_id, c.user_id, u.name, c.channel, c.move_number, c.body, c.at \
                 FROM chat_messages c JOIN users u ON u.id = c.user_id WHERE c.game_id = $1 \
                 ORDER BY c.id DESC LIMIT $2",
            )
            .bind(game)
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(&self.pool)
            .await?;
            let mut chat = rows
                .iter()
                .map(chat_row)
                .collect::<Result<Vec<_>, StoreError>>()?;
            chat.reverse();
            Ok(chat)
        })
    }

    fn set_mute(&self, user: i64, muted: i64, on: bool) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let query = if on {
                "INSERT INTO mutes (user_id, muted_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
            } else {
                "DELETE FROM mutes WHERE user_id = $1 AND muted_id = $2"
            };
            sqlx::query(query)
                .bind(user)
                .bind(muted)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn mutes_of(&self, user: i64) -> StoreFuture<'_, Vec<i64>> {
        Box::pin(async move {
            Ok(sqlx::query_scalar(
                "SELECT muted_id FROM mutes WHERE user_id = $1 ORDER BY muted_id",
            )
            .bind(user)
            .fetch_all(&self.pool)
            .await?)
        })
    }

    fn news_since(&self, user: i64) -> StoreFuture<'_, Option<Option<i64>>> {
        Box::pin(async move {
            Ok(
                sqlx::query_scalar("SELECT news_seen_ms FROM users WHERE id = $1")
                    .bind(user)
                    .fetch_optional(&self.pool)
                    .await?,
            )
        })
    }

    fn set_news_seen(&self, user: i64, at_ms: i64) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query("UPDATE users SET news_seen_ms = GREATEST(COALESCE(news_seen_ms, 0), $1) WHERE id = $2")
                .bind(at_ms)
                .bind(user)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn news(&self, user: i64, since_ms: i64, limit: usize) -> StoreFuture<'_, Vec<NewsRow>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT m.game_id, g.rules, g.state, g.result, b.name AS b_name, w.name AS w_name, \
                 m.number, m.color, m.move, m.at_ms FROM games g JOIN moves m ON m.game_id = g.id \
                 LEFT JOIN users b ON b.id = g.black_user LEFT JOIN users w ON w.id = g.white_user \
                 WHERE (g.black_user = $1 OR g.white_user = $1) AND (g.ended IS NULL OR g.ended * 1000 > $2) \
                 AND m.at_ms > $2 AND m.color <> CASE WHEN g.black_user = $1 THEN 'black' ELSE 'white' END \
                 ORDER BY m.at_ms DESC, m.game_id, m.number DESC LIMIT $3",
            )
            .bind(user)
            .bind(since_ms)
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(&self.pool)
            .await?;
            rows.iter().map(news_row).collect()
        })
    }

    fn seek<'a>(&'a self, seek: &'a NewSeek, expired_ms: i64) -> StoreFuture<'a, Sought> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            // Every node's seeks wait here, so that finding a match and waiting are one step.
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(SEEKS_LOCK)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "DELETE FROM seeks WHERE at_ms < $1 OR (user_id = $2 AND NOT taken AND rules = $3 \
                 AND size = $4 AND speed = $5 AND ranked = $6)",
            )
            .bind(expired_ms)
            .bind(seek.user)
            .bind(&seek.rules)
            .bind(seek.size)
            .bind(&seek.speed)
            .bind(seek.ranked)
            .execute(&mut *tx)
            .await?;
            let found = sqlx::query(concat!(
                seek_listing!(),
                " WHERE NOT s.taken AND s.user_id <> $1 AND s.rules = $2 AND s.size = $3 \
                 AND s.speed = $4 AND s.ranked = $5 \
                 AND (s.min_rating IS NULL OR s.min_rating <= $6) AND (s.max_rating IS NULL OR s.max_rating >= $6) \
                 AND ($7 IS NULL OR COALESCE(u.rating, 1500) >= $7) \
                 AND ($8 IS NULL OR COALESCE(u.rating, 1500) <= $8) \
                 ORDER BY s.id LIMIT 1"
            ))
            .bind(seek.user)
            .bind(&seek.rules)
            .bind(seek.size)
            .bind(&seek.speed)
            .bind(seek.ranked)
            .bind(seek.rating)
            .bind(seek.min_rating)
            .bind(seek.max_rating)
            .fetch_optional(&mut *tx)
            .await?;
            let sought = match found {
                Some(row) => {
                    let mut other = seek_row(&row)?;
                    sqlx::query("UPDATE seeks SET taken = TRUE WHERE id = $1")
                        .bind(other.id)
                        .execute(&mut *tx)
                        .await?;
                    other.taken = true;
                    Sought::Matched(other)
                }
                None => {
                    let waiting: i64 = sqlx::query_scalar(
                        "SELECT COUNT(*) FROM seeks WHERE user_id = $1 AND NOT taken",
                    )
                    .bind(seek.user)
                    .fetch_one(&mut *tx)
                    .await?;
                    if waiting >= seek.max_waiting {
                        // Dropped unfinished, the transaction changes nothing.
                        return Ok(Sought::TooMany);
                    }
                    let id: i64 = sqlx::query_scalar(
                        "INSERT INTO seeks (user_id, rules, size, speed, ranked, min_rating, max_rating, handicap, \
                         at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
                    )
                    .bind(seek.user)
                    .bind(&seek.rules)
                    .bind(seek.size)
                    .bind(&seek.speed)
                    .bind(seek.ranked)
                    .bind(seek.min_rating)
                    .bind(seek.max_rating)
                    .bind(seek.handicap)
                    .bind(seek.at_ms)
                    .fetch_one(&mut *tx)
                    .await?;
                    Sought::Waiting(id)
                }
            };
            tx.commit().await?;
            Ok(sought)
        })
    }

    fn seek_made(&self, seek: i64, game: i64) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query("UPDATE seeks SET game_id = $1 WHERE id = $2")
                .bind(game)
                .bind(seek)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn seeks(&self, since_ms: i64) -> StoreFuture<'_, Vec<StoredSeek>> {
        Box::pin(async move {
            let rows = sqlx::query(concat!(
                seek_listing!(),
                " WHERE s.at_ms >= $1 ORDER BY s.id"
            ))
            .bind(since_ms)
            .fetch_all(&self.pool)
            .await?;
            rows.iter().map(seek_row).collect()
        })
    }

    fn cancel_seek(&self, user: i64, seek: i64) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            let done =
                sqlx::query("DELETE FROM seeks WHERE id = $1 AND user_id = $2 AND NOT taken")
                    .bind(seek)
                    .bind(user)
                    .execute(&self.pool)
                    .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    fn take_vacation(
        &self,
        user: i64,
        vacation: Vacation,
        counted_from_ms: i64,
        allowance_ms: i64,
    ) -> StoreFuture<'_, VacationTaken> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            // The user's row, held until the commit: two vacations taken at once are checked one after the other.
            sqlx::query("SELECT id FROM users WHERE id = $1 FOR UPDATE")
                .bind(user)
                .execute(&mut *tx)
                .await?;
            let current = sqlx::query(
                "SELECT start_ms, end_ms FROM vacations WHERE user_id = $1 AND end_ms > $2 \
                 AND start_ms <= $2 ORDER BY start_ms LIMIT 1",
            )
            .bind(user)
            .bind(vacation.start_ms)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(row) = current {
                return Ok(VacationTaken::Already(vacation_row(&row)?));
            }
            let used: i64 = sqlx::query_scalar(
                "SELECT CAST(COALESCE(SUM(end_ms - start_ms), 0) AS BIGINT) FROM vacations \
                 WHERE user_id = $1 AND start_ms >= $2",
            )
            .bind(user)
            .bind(counted_from_ms)
            .fetch_one(&mut *tx)
            .await?;
            let left_ms = allowance_ms.saturating_sub(used).max(0);
            if vacation.end_ms - vacation.start_ms > left_ms {
                return Ok(VacationTaken::TooLong { left_ms });
            }
            sqlx::query("INSERT INTO vacations (user_id, start_ms, end_ms) VALUES ($1, $2, $3)")
                .bind(user)
                .bind(vacation.start_ms)
                .bind(vacation.end_ms)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(VacationTaken::Taken(vacation))
        })
    }

    fn end_vacation(&self, user: i64, at_ms: i64) -> StoreFuture<'_, Option<Vacation>> {
        Box::pin(async move {
            let row = sqlx::query(
                "UPDATE vacations SET end_ms = $2 WHERE user_id = $1 AND start_ms <= $2 \
                 AND end_ms > $2 RETURNING start_ms, end_ms",
            )
            .bind(user)
            .bind(at_ms)
            .fetch_optional(&self.pool)
            .await?;
            row.as_ref().map(vacation_row).transpose()
        })
    }

    fn vacations(&self, user: i64, after_ms: i64) -> StoreFuture<'_, Vec<Vacation>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT start_ms, end_ms FROM vacations WHERE user_id = $1 AND end_ms > $2 \
                 ORDER BY start_ms",
            )
            .bind(user)
            .bind(after_ms)
            .fetch_all(&self.pool)
            .await?;
            rows.iter().map(vacation_row).collect()
        })
    }

    fn request_review(
        &self,
        subject: Reviewed,
        playouts: i64,
        at_ms: i64,
        by: i64,
    ) -> StoreFuture<'_, StoredReview> {
        Box::pin(async move {
            let (column, id) = subject.key();
            let row = sqlx::query(AssertSqlSafe(format!(
                "INSERT INTO reviews ({column}, state, playouts, requested_ms, updated_ms, requested_by) \
                 VALUES ($1, 'queued', $2, $3, $3, $4) \
                 ON CONFLICT ({column}) DO UPDATE SET state = 'queued', playouts = $2, done = 0, \
                 requested_ms = $3, updated_ms = $3, requested_by = $4 WHERE reviews.state = 'failed' \
                 RETURNING {REVIEW_COLUMNS}",
            )))
            .bind(id)
            .bind(playouts)
            .bind(at_ms)
            .bind(by)
            .fetch_optional(&self.pool)
            .await?;
            match row {
                Some(row) => review_row(&row),
                None => self
                    .review(subject)
                    .await?
                    .ok_or(StoreError::Database(sqlx::Error::RowNotFound)),
            }
        })
    }

    fn review_backlog(&self, user: i64) -> StoreFuture<'_, ReviewBacklog> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT COUNT(*) AS all_waiting, \
                 COALESCE(SUM(CASE WHEN requested_by = $1 THEN 1 ELSE 0 END), 0)::BIGINT AS theirs \
                 FROM reviews WHERE state IN ('queued', 'running')",
            )
            .bind(user)
            .fetch_one(&self.pool)
            .await?;
            Ok(ReviewBacklog {
                all: row.try_get("all_waiting")?,
                theirs: row.try_get("theirs")?,
            })
        })
    }

    fn review(&self, subject: Reviewed) -> StoreFuture<'_, Option<StoredReview>> {
        Box::pin(async move {
            let (column, id) = subject.key();
            let row = sqlx::query(AssertSqlSafe(format!(
                "SELECT {REVIEW_COLUMNS} FROM reviews WHERE {column} = $1"
            )))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
            row.as_ref().map(review_row).transpose()
        })
    }

    fn keep_upload<'a>(
        &'a self,
        digest: &'a str,
        sgf: &'a [u8],
        at_ms: i64,
        user: i64,
    ) -> StoreFuture<'a, i64> {
        Box::pin(async move {
            // Kept once: a second upload of the same file names the first.
            sqlx::query(
                "INSERT INTO uploads (digest, sgf, uploaded_ms, user_id, bytes, opened_ms) \
                 VALUES ($1, $2, $3, $4, $5, $3) ON CONFLICT (digest) DO NOTHING",
            )
            .bind(digest)
            .bind(sgf)
            .bind(at_ms)
            .bind(user)
            .bind(i64::try_from(sgf.len()).unwrap_or(i64::MAX))
            .execute(&self.pool)
            .await?;
            self.upload_named(digest)
                .await?
                .ok_or(StoreError::Database(sqlx::Error::RowNotFound))
        })
    }

    fn upload_usage(&self, user: i64, since_ms: i64) -> StoreFuture<'_, UploadUsage> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT COUNT(*) AS files, COALESCE(SUM(bytes), 0)::BIGINT AS bytes, MIN(uploaded_ms) AS oldest \
                 FROM uploads WHERE user_id = $1 AND uploaded_ms >= $2",
            )
            .bind(user)
            .bind(since_ms)
            .fetch_one(&self.pool)
            .await?;
            Ok(UploadUsage {
                files: row.try_get("files")?,
                bytes: row.try_get("bytes")?,
                oldest_ms: row.try_get("oldest")?,
            })
        })
    }

    fn open_upload(&self, id: i64, at_ms: i64) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query("UPDATE uploads SET opened_ms = $2 WHERE id = $1 AND opened_ms < $2")
                .bind(id)
                .bind(at_ms)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn expire_uploads(&self, before_ms: i64) -> StoreFuture<'_, u64> {
        Box::pin(async move {
            let mut tx = self.pool.begin().await?;
            sqlx::query(
                "DELETE FROM reviews WHERE upload_id IN (SELECT id FROM uploads WHERE opened_ms < $1)",
            )
            .bind(before_ms)
            .execute(&mut *tx)
            .await?;
            let gone = sqlx::query("DELETE FROM uploads WHERE opened_ms < $1")
                .bind(before_ms)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            tx.commit().await?;
            Ok(gone)
        })
    }

    fn upload_named<'a>(&'a self, digest: &'a str) -> StoreFuture<'a, Option<i64>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT id FROM uploads WHERE digest = $1")
                .bind(digest)
                .fetch_optional(&self.pool)
                .await?;
            Ok(row.map(|r| r.try_get("id")).transpose()?)
        })
    }

    fn upload_sgf(&self, id: i64) -> StoreFuture<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT sgf FROM uploads WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
            Ok(row.map(|r| r.try_get("sgf")).transpose()?)
        })
    }

    fn take_review(
        &self,
        now_ms: i64,
        stale_before_ms: i64,
    ) -> StoreFuture<'_, Option<StoredReview>> {
        Box::pin(async move {
            let row = sqlx::query(AssertSqlSafe(format!(
                "UPDATE reviews SET state = 'running', updated_ms = $1 WHERE id = (\
                 SELECT r.id FROM reviews r WHERE r.state = 'queued' \
                 OR (r.state = 'running' AND r.updated_ms < $2) \
                 ORDER BY (SELECT COUNT(*) FROM reviews r2 WHERE r2.state IN ('queued', 'running') \
                 AND r2.requested_by IS NOT DISTINCT FROM r.requested_by \
                 AND (r2.requested_ms < r.requested_ms OR (r2.requested_ms = r.requested_ms AND r2.id < r.id))), \
                 r.requested_ms, r.id LIMIT 1 FOR UPDATE SKIP LOCKED) \
                 RETURNING {REVIEW_COLUMNS}",
            )))
            .bind(now_ms)
            .bind(stale_before_ms)
            .fetch_optional(&self.pool)
            .await?;
            row.as_ref().map(review_row).transpose()
        })
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
        Box::pin(async move {
            let (column, id) = subject.key();
            sqlx::query(AssertSqlSafe(format!(
                "UPDATE reviews SET state = $2, done = $3, total = $4, results = $5, \
                 updated_ms = $6 WHERE {column} = $1",
            )))
            .bind(id)
            .bind(state)
            .bind(done)
            .bind(total)
            .bind(results)
            .bind(at_ms)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.appends.close().await;
            self.pool.close().await;
            Ok(())
        })
    }
}

/// Drops the database at `url` (a tool's or a benchmark's own, after it is done); one that does not exist is
/// no error.
pub async fn drop_database(url: &str) -> Result<(), StoreError> {
    use sqlx::migrate::MigrateDatabase;
    match sqlx::Postgres::drop_database(url).await {
        Err(e) if has_code(&e, NO_SUCH_DATABASE) => Ok(()),
        other => Ok(other?),
    }
}
