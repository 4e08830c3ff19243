//! Every query that SQLite and PostgreSQL write alike, written once. This file is compiled twice, as
//! `sqlite::shared` and `postgres::shared`, each time over its backend's types (`super::Backend`, `DbRow`,
//! `DbConnection`), so that each query runs on the database's own driver with its own types.
//! Parameters are numbered (`$1`), which both read. Where the SQL differs a little, the backend gives its text
//! through a macro defined before it includes this file (`for_update!`, `skip_locked!`, `live_index!`); where
//! the steps differ, through a method or function of its own (`begin_serial`, `snapshot`,
//! `insert_game_moves`); what differs throughout (the site's leases, the group commit) stays in the backend.

use sqlx::{AssertSqlSafe, Row};

use super::{Backend, DbConnection, DbRow};
use crate::store::{
    AccountStore, ChatStore, DELETED_PASSWORD, Ending, GameRow, GameStore, ImportedGame, NewChat,
    NewSeek, NewUser, NewsRow, NewsStore, Progress, REVIEW_COLUMNS, Rated, Rating, RatingPoint,
    RatingStore, RatingUpdate, RecordRow, ReviewBacklog, ReviewStore, Reviewed,
    SESSION_IDLE_SECONDS, Seats, SeekStore, Serial, SessionStore, Sought, StoreError, StoreFuture,
    StoredChat, StoredGame, StoredMove, StoredReview, StoredSeek, StoredSession, StoredUser,
    UploadUsage, Vacation, VacationStore, VacationTaken, bot_columns, now,
};

/// A row limit as the databases take it.
fn limit_of(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// Whether an error is a broken constraint (a key taken, a row referred to that is gone...), which fails one
/// write rather than the database.
pub(super) fn is_constraint(e: &sqlx::Error) -> bool {
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

/// Writes the summary of a game that a batch of the group commit ended.
pub(super) async fn write_ending(
    tx: &mut DbConnection,
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

impl Backend {
    /// Deletes game `game` if nobody has moved in it and its `joined` flag is `joined`; `refused` otherwise.
    /// What refers to it goes with it, in one transaction: its chat, and the taken seek that made it
    /// (automatch), whose seeker then sees no game for it.
    fn delete_unplayed(&self, game: i64, joined: bool, refused: StoreError) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let mut tx = self.begin_serial(Serial::Rows).await?;
            // The game's row is held until the end: a chat message or a seek's game written meanwhile waits,
            // then finds the game gone.
            sqlx::query(concat!("SELECT id FROM games WHERE id = $1", for_update!()))
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

/// A row read as `T`, whose fields name its columns (see the `sqlx(rename)`s of `store`).
fn read<T: for<'r> sqlx::FromRow<'r, DbRow>>(r: &DbRow) -> Result<T, StoreError> {
    Ok(T::from_row(r)?)
}

fn user_row(r: &DbRow, with_hash: bool) -> Result<StoredUser, StoreError> {
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
        rating: rating_row(r)?,
    })
}

fn seats(r: &DbRow) -> Result<Seats, StoreError> {
    let bot: Option<String> = r.try_get("bot")?;
    let bot_color: Option<String> = r.try_get("bot_color")?;
    Ok(Seats {
        black: r.try_get("black_user")?,
        white: r.try_get("white_user")?,
        bot: bot.zip(bot_color),
        opponent: r.try_get("opponent")?,
        invite: r.try_get("invite")?,
        joined: r.try_get("joined")?,
        ranked: r.try_get("ranked")?,
        rematch_of: r.try_get("rematch_of")?,
        undo: r.try_get("undo")?,
    })
}

fn stored_game(r: &DbRow) -> Result<StoredGame, StoreError> {
    Ok(StoredGame {
        id: r.try_get("id")?,
        rules: r.try_get("rules")?,
        created: r.try_get("created")?,
        state: r.try_get("state")?,
        seats: seats(r)?,
        time_control: r.try_get("time_control")?,
        moves: Vec::new(),
    })
}

/// A rating from the `rating`, `deviation` and `volatility` columns (`None` when `rating` is NULL).
fn rating_row(r: &DbRow) -> Result<Option<Rating>, StoreError> {
    prefixed_rating(r, "")
}

/// A rating from the columns `{prefix}rating`, `{prefix}deviation` and `{prefix}volatility`.
fn prefixed_rating(r: &DbRow, prefix: &str) -> Result<Option<Rating>, StoreError> {
    let rating: Option<f64> = r.try_get(format!("{prefix}rating").as_str())?;
    let deviation: Option<f64> = r.try_get(format!("{prefix}deviation").as_str())?;
    let volatility: Option<f64> = r.try_get(format!("{prefix}volatility").as_str())?;
    Ok(match (rating, deviation, volatility) {
        (Some(rating), Some(deviation), Some(volatility)) => Some(Rating {
            rating,
            deviation,
            volatility,
        }),
        _ => None,
    })
}

/// Black's and White's ratings from their users' rows (`id` and a rating); a player never rated, or
/// without a row, has the default.
fn ratings_of(rows: &[DbRow], black: i64, white: i64) -> Result<(Rating, Rating), StoreError> {
    let mut now = (Rating::default(), Rating::default());
    for r in rows {
        let id: i64 = r.try_get("id")?;
        let rating = rating_row(r)?.unwrap_or_default();
        if id == black {
            now.0 = rating;
        }
        if id == white {
            now.1 = rating;
        }
    }
    Ok(now)
}

/// A point of a rating history from a `rating_changes` row.
fn rating_point(r: &DbRow) -> Result<RatingPoint, StoreError> {
    Ok(RatingPoint {
        game: r.try_get("game_id")?,
        at: r.try_get("at")?,
        rating: rating_row(r)?.unwrap_or_default(),
    })
}

fn review_row(r: &DbRow) -> Result<StoredReview, StoreError> {
    let game: Option<i64> = r.try_get("game_id")?;
    let upload: Option<i64> = r.try_get("upload_id")?;
    Ok(StoredReview {
        subject: match (game, upload) {
            (Some(g), _) => Reviewed::Game(g),
            (None, Some(u)) => Reviewed::Upload(u),
            (None, None) => return Err(StoreError::Database(sqlx::Error::RowNotFound)),
        },
        state: r.try_get("state")?,
        playouts: r.try_get("playouts")?,
        done: r.try_get("done")?,
        total: r.try_get("total")?,
        results: r.try_get("results")?,
        requested_ms: r.try_get("requested_ms")?,
        updated_ms: r.try_get("updated_ms")?,
    })
}

fn game_row(r: &DbRow) -> Result<GameRow, StoreError> {
    let seats = seats(r)?;
    let user = |id: Option<i64>, prefix: &str| -> Result<Option<StoredUser>, StoreError> {
        let Some(id) = id else {
            return Ok(None);
        };
        let name: Option<String> = r.try_get(format!("{prefix}_name").as_str())?;
        Ok(match name {
            Some(name) => Some(StoredUser {
                id,
                name,
                password_hash: None,
                guest: r.try_get(format!("{prefix}_guest").as_str())?,
                created: r.try_get(format!("{prefix}_created").as_str())?,
                rating: prefixed_rating(r, &format!("{prefix}_"))?,
            }),
            None => None,
        })
    };
    Ok(GameRow {
        id: r.try_get("id")?,
        rules: r.try_get("rules")?,
        created: r.try_get("created")?,
        state: r.try_get("state")?,
        black: user(seats.black, "b")?,
        white: user(seats.white, "w")?,
        seats,
        move_count: r.try_get("move_count")?,
        result: r.try_get("result")?,
        ended: r.try_get("ended")?,
        moves_played: r.try_get("moves_played")?,
        time_control: r.try_get("time_control")?,
    })
}

impl GameStore for Backend {
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
                    "UPDATE games SET black_user = $1, joined = true WHERE id = $2 AND black_user IS NULL"
                }
                _ => {
                    "UPDATE games SET white_user = $1, joined = true WHERE id = $2 AND white_user IS NULL"
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

    fn cancel_table(&self, game: i64) -> StoreFuture<'_, ()> {
        // An open table has no actions; the condition keeps a joined game from going.
        self.delete_unplayed(game, false, StoreError::Started { game })
    }

    fn abort_game(&self, game: i64) -> StoreFuture<'_, ()> {
        self.delete_unplayed(game, true, StoreError::Moved { game })
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
            let rows = sqlx::query(concat!(
                "SELECT id, move_count, joined FROM games",
                live_index!(),
                " WHERE state <> 'over' ORDER BY id"
            ))
            .fetch_all(&self.reader)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("id")?, read(r)?)))
                .collect()
        })
    }

    fn load_game_after(&self, id: i64, after: i64) -> StoreFuture<'_, Option<StoredGame>> {
        Box::pin(async move {
            // Both reads see one snapshot: a move appended between them cannot be half seen.
            let mut tx = self.snapshot().await?;
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
            game.moves = sqlx::query_as(
                "SELECT number, color, move, spent_ms, lag_ms, at_ms FROM moves WHERE game_id = $1 AND number > $2 \
                 ORDER BY number",
            )
            .bind(id)
            .bind(after)
            .fetch_all(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(Some(game))
        })
    }

    fn progress(&self, id: i64) -> StoreFuture<'_, Option<Progress>> {
        Box::pin(async move {
            Ok(
                sqlx::query_as("SELECT move_count, joined FROM games WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.reader)
                    .await?,
            )
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
                 SELECT id FROM (SELECT id FROM games WHERE black_user = $1 AND id < $2 ORDER BY id DESC LIMIT $3) AS b \
                 UNION ALL \
                 SELECT id FROM (SELECT id FROM games WHERE white_user = $1 AND id < $2 ORDER BY id DESC LIMIT $3) AS w) \
                 ORDER BY g.id DESC LIMIT $3"
            );
            let rows = sqlx::query(sql)
                .bind(user)
                .bind(before.unwrap_or(i64::MAX))
                .bind(limit_of(limit))
                .fetch_all(&self.reader)
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
                    sqlx::query(sql).bind(limit).fetch_all(&self.reader).await?
                }
                Some(before) => {
                    // The page goes on after `before` in (ended, id) order, read from its row. A row-value
                    // comparison, so that the index is searched from there (an OR of the two cases made SQLite
                    // walk the index from its end); no such finished game: NULL, and an empty page.
                    let sql = concat!(
                        listing!(),
                        " WHERE g.state = 'over' AND g.ended IS NOT NULL \
                         AND (g.ended, g.id) < (SELECT ended, id FROM games WHERE id = $1 AND state = 'over') \
                         ORDER BY g.ended DESC, g.id DESC LIMIT $2"
                    );
                    sqlx::query(sql)
                        .bind(before)
                        .bind(limit)
                        .fetch_all(&self.reader)
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
            .fetch_all(&self.reader)
            .await?;
            rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
        })
    }

    fn set_ending<'a>(&'a self, game: i64, ending: &'a Ending) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.writer.begin().await?;
            write_ending(&mut tx, game, ending).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn import_games<'a>(&'a self, games: &'a [ImportedGame]) -> StoreFuture<'a, Vec<i64>> {
        Box::pin(async move {
            let mut tx = self.writer.begin().await?;
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
                super::insert_game_moves(&mut tx, id, &g.moves).await?;
                ids.push(id);
            }
            tx.commit().await?;
            Ok(ids)
        })
    }

    fn count_games(&self) -> StoreFuture<'_, i64> {
        Box::pin(async move {
            let row = sqlx::query("SELECT COUNT(*) FROM games")
                .fetch_one(&self.reader)
                .await?;
            Ok(row.try_get(0)?)
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
            .fetch_optional(&self.writer)
            .await?;
            row.as_ref().map(stored_game).transpose()
        })
    }
}

impl AccountStore for Backend {
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
            .fetch_one(&self.writer)
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
            // Alone: no other user is made between the checks and the insert.
            let mut tx = self.begin_serial(Serial::Users).await?;
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
            .fetch_all(&self.reader)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect()
        })
    }

    fn set_skeletons<'a>(&'a self, skeletons: &'a [(i64, String)]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.writer.begin().await?;
            for (id, skeleton) in skeletons {
                sqlx::query("UPDATE users SET name_skeleton = $1 WHERE id = $2")
                    .bind(skeleton)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
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
            .fetch_optional(&self.reader)
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
            .fetch_optional(&self.reader)
            .await?;
            row.map(|r| user_row(&r, false)).transpose()
        })
    }

    fn password_hash(&self, user: i64) -> StoreFuture<'_, Option<String>> {
        Box::pin(async move {
            let hash: Option<Option<String>> =
                sqlx::query_scalar("SELECT password_hash FROM users WHERE id = $1")
                    .bind(user)
                    .fetch_optional(&self.reader)
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
            let mut tx = self.writer.begin().await?;
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
            .execute(&self.writer)
            .await?;
            Ok(())
        })
    }

    fn delete_account<'a>(&'a self, user: i64, neutral: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut tx = self.writer.begin().await?;
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
            let mut tx = self.writer.begin().await?;
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
}

impl SessionStore for Backend {
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
                .execute(&self.writer)
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
            .execute(&self.writer)
            .await?;
            Ok(())
        })
    }

    fn find_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, Option<StoredSession>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT user_id, csrf, expires, created, last_used, user_agent, address FROM sessions \
                 WHERE token_hash = $1",
            )
            .bind(token_hash)
            .fetch_optional(&self.reader)
            .await?)
        })
    }

    fn delete_session<'a>(&'a self, token_hash: &'a [u8]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                .bind(token_hash)
                .execute(&self.writer)
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
            .execute(&self.writer)
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
            .fetch_all(&self.reader)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("token_hash")?, read(r)?)))
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
            .execute(&self.writer)
            .await?;
            Ok(done.rows_affected())
        })
    }

    fn end_session<'a>(&'a self, user: i64, token_hash: &'a [u8]) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let done = sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND token_hash = $2")
                .bind(user)
                .bind(token_hash)
                .execute(&self.writer)
                .await?;
            Ok(done.rows_affected() > 0)
        })
    }
}

impl RatingStore for Backend {
    fn rate_game<'a>(
        &'a self,
        game: i64,
        black: i64,
        white: i64,
        at: i64,
        update: RatingUpdate,
    ) -> StoreFuture<'a, Rated> {
        Box::pin(async move {
            let mut tx = self.begin_serial(Serial::Rows).await?;
            let done = sqlx::query("SELECT 1 FROM rating_changes WHERE game_id = $1 LIMIT 1")
                .bind(game)
                .fetch_optional(&mut *tx)
                .await?;
            if done.is_some() {
                return Ok(Rated::Already);
            }
            // The users' rows are locked in id order, so that two games rated at once wait, never deadlock.
            let rows = sqlx::query(concat!(
                "SELECT id, rating, rating_deviation AS deviation, rating_volatility AS volatility \
                 FROM users WHERE id IN ($1, $2) ORDER BY id",
                for_update!()
            ))
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

    fn unrated_games(&self, after: i64, limit: usize) -> StoreFuture<'_, Vec<i64>> {
        Box::pin(async move {
            let rows = sqlx::query(
                "SELECT id FROM games g WHERE ranked AND state = 'over' AND id > $1 \
                 AND result IS NOT NULL AND result <> 'Void' AND black_user IS NOT NULL AND white_user IS NOT NULL \
                 AND NOT EXISTS (SELECT 1 FROM rating_changes r WHERE r.game_id = g.id) ORDER BY id LIMIT $2",
            )
            .bind(after)
            .bind(limit_of(limit))
            .fetch_all(&self.reader)
            .await?;
            rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
        })
    }

    fn player_record(&self, user: i64) -> StoreFuture<'_, Vec<RecordRow>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT rules, black_user = $1 AS black, substr(result, 1, 1) AS result, COUNT(*) AS games \
                 FROM games WHERE state = 'over' AND result IS NOT NULL AND (black_user = $1 OR white_user = $1) \
                 GROUP BY rules, black_user = $1, substr(result, 1, 1) ORDER BY rules",
            )
            .bind(user)
            .fetch_all(&self.reader)
            .await?)
        })
    }

    fn rating(&self, user: i64) -> StoreFuture<'_, Option<Rating>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT rating, rating_deviation AS deviation, rating_volatility AS volatility \
                 FROM users WHERE id = $1",
            )
            .bind(user)
            .fetch_optional(&self.reader)
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
            .fetch_all(&self.reader)
            .await?;
            let mut points = rows
                .iter()
                .map(rating_point)
                .collect::<Result<Vec<_>, StoreError>>()?;
            points.reverse();
            Ok(points)
        })
    }
}

impl ChatStore for Backend {
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
            .fetch_one(&self.writer)
            .await?;
            let name: String = sqlx::query_scalar("SELECT name FROM users WHERE id = $1")
                .bind(chat.user)
                .fetch_one(&self.writer)
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
            let mut chat: Vec<StoredChat> = sqlx::query_as(
                "SELECT c.id, c.game_id, c.user_id, u.name, c.channel, c.move_number, c.body, c.at \
                 FROM chat_messages c JOIN users u ON u.id = c.user_id WHERE c.game_id = $1 \
                 ORDER BY c.id DESC LIMIT $2",
            )
            .bind(game)
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(&self.reader)
            .await?;
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
                .execute(&self.writer)
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
            .fetch_all(&self.writer)
            .await?)
        })
    }
}

impl NewsStore for Backend {
    fn news_since(&self, user: i64) -> StoreFuture<'_, Option<Option<i64>>> {
        Box::pin(async move {
            Ok(
                sqlx::query_scalar("SELECT news_seen_ms FROM users WHERE id = $1")
                    .bind(user)
                    .fetch_optional(&self.writer)
                    .await?,
            )
        })
    }

    fn set_news_seen(&self, user: i64, at_ms: i64) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::query(
                "UPDATE users SET news_seen_ms = CASE WHEN news_seen_ms > $1 THEN news_seen_ms ELSE $1 END \
                 WHERE id = $2",
            )
                .bind(at_ms)
                .bind(user)
                .execute(&self.writer)
                .await?;
            Ok(())
        })
    }

    fn news(&self, user: i64, since_ms: i64, limit: usize) -> StoreFuture<'_, Vec<NewsRow>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
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
            .fetch_all(&self.reader)
            .await?)
        })
    }
}

impl SeekStore for Backend {
    fn seek<'a>(&'a self, seek: &'a NewSeek, expired_ms: i64) -> StoreFuture<'a, Sought> {
        Box::pin(async move {
            // Alone: finding a match and waiting are one step.
            let mut tx = self.begin_serial(Serial::Seeks).await?;
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
                    let mut other: StoredSeek = read(&row)?;
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
                .execute(&self.writer)
                .await?;
            Ok(())
        })
    }

    fn seeks(&self, since_ms: i64) -> StoreFuture<'_, Vec<StoredSeek>> {
        Box::pin(async move {
            Ok(sqlx::query_as(concat!(
                seek_listing!(),
                " WHERE s.at_ms >= $1 ORDER BY s.id"
            ))
            .bind(since_ms)
            .fetch_all(&self.writer)
            .await?)
        })
    }

    fn cancel_seek(&self, user: i64, seek: i64) -> StoreFuture<'_, bool> {
        Box::pin(async move {
            let done =
                sqlx::query("DELETE FROM seeks WHERE id = $1 AND user_id = $2 AND NOT taken")
                    .bind(seek)
                    .bind(user)
                    .execute(&self.writer)
                    .await?;
            Ok(done.rows_affected() == 1)
        })
    }
}

impl VacationStore for Backend {
    fn take_vacation(
        &self,
        user: i64,
        vacation: Vacation,
        counted_from_ms: i64,
        allowance_ms: i64,
    ) -> StoreFuture<'_, VacationTaken> {
        Box::pin(async move {
            let mut tx = self.begin_serial(Serial::Rows).await?;
            // The user's row, held until the commit: two vacations taken at once are checked one after the other.
            sqlx::query(concat!("SELECT id FROM users WHERE id = $1", for_update!()))
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
                return Ok(VacationTaken::Already(read(&row)?));
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
            Ok(sqlx::query_as(
                "UPDATE vacations SET end_ms = $2 WHERE user_id = $1 AND start_ms <= $2 \
                 AND end_ms > $2 RETURNING start_ms, end_ms",
            )
            .bind(user)
            .bind(at_ms)
            .fetch_optional(&self.writer)
            .await?)
        })
    }

    fn vacations(&self, user: i64, after_ms: i64) -> StoreFuture<'_, Vec<Vacation>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT start_ms, end_ms FROM vacations WHERE user_id = $1 AND end_ms > $2 \
                 ORDER BY start_ms",
            )
            .bind(user)
            .bind(after_ms)
            .fetch_all(&self.writer)
            .await?)
        })
    }
}

impl ReviewStore for Backend {
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
            .fetch_optional(&self.writer)
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
                 CAST(COALESCE(SUM(CASE WHEN requested_by = $1 THEN 1 ELSE 0 END), 0) AS BIGINT) AS theirs \
                 FROM reviews WHERE state IN ('queued', 'running')",
            )
            .bind(user)
            .fetch_one(&self.writer)
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
            .fetch_optional(&self.writer)
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
            .execute(&self.writer)
            .await?;
            self.upload_named(digest)
                .await?
                .ok_or(StoreError::Database(sqlx::Error::RowNotFound))
        })
    }

    fn upload_usage(&self, user: i64, since_ms: i64) -> StoreFuture<'_, UploadUsage> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT COUNT(*) AS files, CAST(COALESCE(SUM(bytes), 0) AS BIGINT) AS bytes, MIN(uploaded_ms) AS oldest \
                 FROM uploads WHERE user_id = $1 AND uploaded_ms >= $2",
            )
            .bind(user)
            .bind(since_ms)
            .fetch_one(&self.writer)
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
                .execute(&self.writer)
                .await?;
            Ok(())
        })
    }

    fn expire_uploads(&self, before_ms: i64) -> StoreFuture<'_, u64> {
        Box::pin(async move {
            let mut tx = self.writer.begin().await?;
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
                .fetch_optional(&self.writer)
                .await?;
            Ok(row.map(|r| r.try_get("id")).transpose()?)
        })
    }

    fn upload_sgf(&self, id: i64) -> StoreFuture<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT sgf FROM uploads WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.writer)
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
                concat!(
                    "UPDATE reviews SET state = 'running', updated_ms = $1 WHERE id = (\
                 SELECT r.id FROM reviews r WHERE r.state = 'queued' \
                 OR (r.state = 'running' AND r.updated_ms < $2) \
                 ORDER BY (SELECT COUNT(*) FROM reviews r2 WHERE r2.state IN ('queued', 'running') \
                 AND r2.requested_by IS NOT DISTINCT FROM r.requested_by \
                 AND (r2.requested_ms < r.requested_ms OR (r2.requested_ms = r.requested_ms AND r2.id < r.id))), \
                 r.requested_ms, r.id LIMIT 1",
                    skip_locked!(),
                    ") RETURNING {}"
                ),
                REVIEW_COLUMNS
            )))
            .bind(now_ms)
            .bind(stale_before_ms)
            .fetch_optional(&self.writer)
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
            .execute(&self.writer)
            .await?;
            Ok(())
        })
    }
}
