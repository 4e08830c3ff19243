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
use sqlx::{Acquire, Connection, Postgres, Row, Transaction};

use super::appends::{Append, Appends, BatchFuture, Settled, WriteBatch, settled};
use super::{Serial, SiteStore, StoreError, StoreFuture, StoredMove};

/// The text of the shared queries that PostgreSQL writes its own way: rows read to be written after are
/// locked until the commit, and a review is taken from those no other node holds.
macro_rules! for_update {
    () => {
        " FOR UPDATE"
    };
}

macro_rules! skip_locked {
    () => {
        " FOR UPDATE SKIP LOCKED"
    };
}

macro_rules! live_index {
    () => {
        ""
    };
}

type Backend = PgStore;
type DbRow = PgRow;
type DbConnection = PgConnection;

// The queries both databases share, compiled here over PostgreSQL's types (and again in `sqlite`).
#[allow(clippy::duplicate_mod)]
#[path = "shared.rs"]
mod shared;

use shared::{is_constraint, write_ending};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// The advisory lock under which users are created, so that two look-alike names made at the same moment on
/// two nodes cannot both get in (an arbitrary number of our own: "tesuji users").
const USERS_LOCK: i64 = 0x7465_7375_6A69_7573;

/// The advisory lock under which seeks are matched or stored (see [`super::SeekStore::seek`]).
const SEEKS_LOCK: i64 = 0x7465_7375_6A69_736B;

/// Connections per node: the group commit holds one, reads and the other writes share the rest.
const POOL_SIZE: u32 = 10;

/// PostgreSQL storage.
#[derive(Clone, Debug)]
pub struct PgStore {
    /// One pool serves reads and writes alike (the shared queries name the SQLite store's two).
    writer: PgPool,
    reader: PgPool,
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
        Ok(PgStore {
            writer: pool.clone(),
            reader: pool,
            appends,
        })
    }

    /// The connection pool, for tests and tools that look at the database directly.
    pub fn pool(&self) -> &PgPool {
        &self.writer
    }

    /// A transaction alone in `serial` (see [`Serial`]): every node's users and seeks wait for one advisory
    /// lock each; rows are locked by the queries.
    async fn begin_serial(&self, serial: Serial) -> Result<Transaction<'_, Postgres>, sqlx::Error> {
        let mut tx = self.writer.begin().await?;
        let lock = match serial {
            Serial::Users => Some(USERS_LOCK),
            Serial::Seeks => Some(SEEKS_LOCK),
            Serial::Rows => None,
        };
        if let Some(lock) = lock {
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(lock)
                .execute(&mut *tx)
                .await?;
        }
        Ok(tx)
    }

    /// A transaction whose reads see one snapshot.
    async fn snapshot(&self) -> Result<Transaction<'_, Postgres>, sqlx::Error> {
        let mut tx = self.reader.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        Ok(tx)
    }
}

/// Inserts an imported game's moves in one statement.
async fn insert_game_moves(
    tx: &mut PgConnection,
    game: i64,
    moves: &[StoredMove],
) -> Result<(), sqlx::Error> {
    let moves: Vec<&StoredMove> = moves.iter().collect();
    MoveArrays::of(|_| game, &moves).insert(tx).await?;
    Ok(())
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

impl SiteStore for PgStore {
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query("SELECT 1").execute(&self.writer).await?;
            Ok(())
        })
    }

    fn site(&self) -> StoreFuture<'_, String> {
        Box::pin(async move {
            let id: String = sqlx::query_scalar("SELECT id FROM site")
                .fetch_one(&self.writer)
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
            .fetch_optional(&self.writer)
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
            .fetch_one(&self.writer)
            .await?;
            Ok(since.map(|s| u64::try_from(s).unwrap_or(0)))
        })
    }

    fn release_lease<'a>(&'a self, name: &'a str, holder: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query("DELETE FROM leases WHERE name = $1 AND holder = $2")
                .bind(name)
                .bind(holder as i64)
                .execute(&self.writer)
                .await?;
            Ok(())
        })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.appends.close().await;
            self.writer.close().await;
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
