//! The SQLite store: one file in the data directory, WAL mode, all writes through one connection (SQLite allows
//! one writer at a time; a single connection avoids `SQLITE_BUSY` between our own writers), reads from a pool.
//!
//! Moves are group-committed: one task takes every append queued while the previous commit was on disk, writes
//! them in one transaction, commits it (one fsync for all), and only then answers each caller. An acknowledged
//! move is as durable as before; many games share each fsync instead of queueing for one each.

use std::collections::HashSet;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteRow, SqliteSynchronous,
};
use sqlx::{QueryBuilder, Row, Sqlite, Transaction};

use super::appends::{Append, Appends, BatchFuture, Settled, WriteBatch, settled};
use super::{Serial, SiteStore, StoreError, StoreFuture, StoredMove};

/// The text of the shared queries that SQLite writes its own way. One writer connection makes every write
/// transaction the only one: no row needs a lock of its own.
macro_rules! for_update {
    () => {
        ""
    };
}

macro_rules! skip_locked {
    () => {
        ""
    };
}

/// The live games are read through the partial index of the games not over.
macro_rules! live_index {
    () => {
        " INDEXED BY games_live"
    };
}

type Backend = SqliteStore;
type DbRow = SqliteRow;
type DbConnection = SqliteConnection;

// The queries both databases share, compiled here over SQLite's types (and again in `postgres`).
#[allow(clippy::duplicate_mod)]
#[path = "shared.rs"]
mod shared;

use shared::{is_constraint, write_ending};

/// The database file's name inside the data directory.
pub const DATABASE_FILE: &str = "tesuji.db";

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// Moves per statement of an import (six values each, well under SQLite's 32,766 variables).
const IMPORT_ROWS: usize = 4_000;

/// SQLite storage.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    writer: SqlitePool,
    reader: SqlitePool,
    appends: Arc<Appends>,
}

/// The batch writer of the group commit, on the one writer connection.
struct SqliteBatch {
    writer: SqlitePool,
}

impl WriteBatch for SqliteBatch {
    fn write<'a>(&'a self, batch: &'a [Append]) -> BatchFuture<'a> {
        Box::pin(write_batch(&self.writer, batch))
    }
}

/// Writes a batch in one transaction and commits it: one statement inserts every move, one records the games'
/// states and action counts, and each ending is one more. A move number already taken fails that append alone;
/// so does another constraint (then the moves are inserted one by one: SQLite undoes only the failing
/// statement and the transaction goes on). Any other error fails the whole batch, and nothing is committed.
async fn write_batch(
    writer: &SqlitePool,
    batch: &[Append],
) -> Result<Vec<Result<(), StoreError>>, sqlx::Error> {
    let mut tx = writer.begin().await?;
    let outcomes = match insert_moves(&mut tx, batch).await {
        Ok(inserted) => batch
            .iter()
            .map(|a| {
                if inserted.contains(&(a.game, a.mv.number)) {
                    Ok(())
                } else {
                    Err(a.conflict())
                }
            })
            .collect(),
        Err(e) if is_constraint(&e) => {
            let mut outcomes = Vec::with_capacity(batch.len());
            for a in batch {
                outcomes.push(insert_move(&mut tx, a).await?);
            }
            outcomes
        }
        Err(e) => return Err(e),
    };
    let Settled { states, endings } = settled(batch, &outcomes);
    if !states.is_empty() {
        // One joined update: each game's row meets its values by id (a CASE per column would compare every
        // row with every game of the batch).
        let mut update = QueryBuilder::<Sqlite>::new(
            "UPDATE games SET state = v.column2, move_count = v.column3 FROM (VALUES ",
        );
        let mut rows = update.separated(", ");
        for (game, (state, count)) in &states {
            rows.push("(")
                .push_bind_unseparated(*game)
                .push_unseparated(", ")
                .push_bind_unseparated(*state)
                .push_unseparated(", ")
                .push_bind_unseparated(*count)
                .push_unseparated(")");
        }
        update.push(") AS v WHERE games.id = v.column1");
        // Not cached: the text differs with the batch.
        let update = update.build().persistent(false);
        update.execute(&mut *tx).await?;
    }
    // Games end rarely: one statement each.
    for (game, ending) in endings {
        write_ending(&mut tx, game, ending).await?;
    }
    tx.commit().await?;
    Ok(outcomes)
}

/// Inserts the moves `rows` of a batch in one statement; answers the keys inserted (a key already taken is
/// skipped).
async fn insert_moves(
    tx: &mut SqliteConnection,
    batch: &[Append],
) -> Result<HashSet<(i64, i64)>, sqlx::Error> {
    if batch.is_empty() {
        return Ok(HashSet::new());
    }
    let mut insert = QueryBuilder::<Sqlite>::new(
        "INSERT INTO moves (game_id, number, color, move, spent_ms, lag_ms, at_ms) ",
    );
    insert.push_values(batch, |mut row, a| {
        row.push_bind(a.game)
            .push_bind(a.mv.number)
            .push_bind(a.mv.color.as_str())
            .push_bind(a.mv.text.as_str())
            .push_bind(a.mv.spent_ms)
            .push_bind(a.mv.lag_ms)
            .push_bind(a.mv.at_ms);
    });
    insert.push(" ON CONFLICT DO NOTHING RETURNING game_id, number");
    // Not cached: the text differs with the batch's size.
    let insert = insert.build().persistent(false);
    insert
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect()
}

/// Inserts one move, when a batch's insert broke a constraint: that append's outcome, or an error for the batch.
async fn insert_move(
    tx: &mut SqliteConnection,
    a: &Append,
) -> Result<Result<(), StoreError>, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO moves (game_id, number, color, move, spent_ms, lag_ms, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?) \
         ON CONFLICT DO NOTHING",
    )
    .bind(a.game)
    .bind(a.mv.number)
    .bind(&a.mv.color)
    .bind(&a.mv.text)
    .bind(a.mv.spent_ms)
    .bind(a.mv.lag_ms)
    .bind(a.mv.at_ms)
    .execute(&mut *tx)
    .await;
    match inserted {
        Ok(done) if done.rows_affected() == 0 => Ok(Err(a.conflict())),
        Ok(_) => Ok(Ok(())),
        Err(e) if is_constraint(&e) => Ok(Err(e.into())),
        Err(e) => Err(e),
    }
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
        let appends = Arc::new(Appends::start(SqliteBatch {
            writer: writer.clone(),
        }));
        Ok(SqliteStore {
            writer,
            reader,
            appends,
        })
    }
}

impl SqliteStore {
    /// A transaction alone in `_serial` (see [`Serial`]). IMMEDIATE: the write lock from the start (waiting
    /// for it, as the busy timeout allows), never a read lock that another writer's could leave unable to
    /// become one.
    async fn begin_serial(&self, _serial: Serial) -> Result<Transaction<'_, Sqlite>, sqlx::Error> {
        self.writer.begin_with("BEGIN IMMEDIATE").await
    }

    /// A transaction whose reads see one snapshot.
    async fn snapshot(&self) -> Result<Transaction<'_, Sqlite>, sqlx::Error> {
        self.reader.begin().await
    }
}

/// Inserts an imported game's moves, a few thousand a statement.
async fn insert_game_moves(
    tx: &mut SqliteConnection,
    game: i64,
    moves: &[StoredMove],
) -> Result<(), sqlx::Error> {
    for chunk in moves.chunks(IMPORT_ROWS) {
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO moves (game_id, number, color, move, spent_ms, lag_ms, at_ms) ",
        );
        insert.push_values(chunk, |mut row, m| {
            row.push_bind(game)
                .push_bind(m.number)
                .push_bind(m.color.as_str())
                .push_bind(m.text.as_str())
                .push_bind(m.spent_ms)
                .push_bind(m.lag_ms)
                .push_bind(m.at_ms);
        });
        // Not cached: the text differs with the chunk's size.
        insert.build().persistent(false).execute(&mut *tx).await?;
    }
    Ok(())
}

/// One SQLite file serves one node: it always holds every lease, and its clocks start with it.
impl SiteStore for SqliteStore {
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query("SELECT 1").execute(&self.writer).await?;
            Ok(())
        })
    }

    fn site(&self) -> StoreFuture<'_, String> {
        Box::pin(async { Ok("local".to_owned()) })
    }

    fn hold_lease<'a>(&'a self, _: &'a str, _: u64, _: u64) -> StoreFuture<'a, bool> {
        Box::pin(async { Ok(true) })
    }

    fn clocks_since<'a>(&'a self, _: &'a str, _: u64) -> StoreFuture<'a, Option<u64>> {
        Box::pin(async { Ok(None) })
    }

    fn release_lease<'a>(&'a self, _: &'a str, _: u64) -> StoreFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }

    fn close(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            self.appends.close().await;
            self.reader.close().await;
            self.writer.close().await;
            Ok(())
        })
    }
}
