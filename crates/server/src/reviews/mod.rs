//! Reviews of finished games by the search: asked for by any signed-in viewer, queued in the store, computed in
//! the background by one node at a time, one review at a time per node on one thread (so a node's CPU for
//! reviews is bounded whatever is asked), and kept with the game, so that nobody waits twice.
//!
//! A node takes the oldest review nobody computes (or one whose node has said nothing for a minute: it died),
//! writes its progress after each position, and its results once done: each position's win rate and lead from
//! Black's side, the engine's move and line, the ownership (hundredths), and the moves that lost the most.
//!
//! An uploaded SGF file is reviewed the same way: it is kept once, named by the SHA-256 digest of its bytes (so
//! the same file uploaded again finds its review, and nobody who lacks the file can guess the name).
//!
//! Both are bounded: a user uploads at most [`UPLOADS_A_DAY`] files and [`UPLOAD_BYTES_A_DAY`] bytes in any
//! 24 hours; a file nobody has opened (its review or its bytes read, or uploaded again) for [`UPLOAD_LIFE_MS`]
//! is forgotten with its review; at most [`REVIEWS_WAITING_PER_USER`] of a user's reviews and
//! [`REVIEWS_WAITING`] in all wait or run at once, and the queue takes each user's first review in turn before
//! anyone's second (`Store::take_review`). A refusal says which limit and when it frees.
//!
//! A feature of its own: [`Reviews`] is built with the store's reviews and games areas, the time, and a handle
//! to the core for what a live game says (whether it is over, its position now, its players).

pub mod fairplay;
pub mod routes;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tesuji_bot::mcts::{MctsBot, MctsConfig};
use tesuji_bot::review::{Position, last_in_play, mistakes, review, review_position};
use tesuji_rules::{Game, Phase, Size};

use crate::clocks::TimeSource;
use crate::error::Error;
use crate::game::{Absences, Actor, Games, LiveGame};
use crate::store::{GameStore, ReviewStore, Reviewed, StoredGame, StoredReview};

/// Playouts per position of a review, unless the server is told otherwise.
pub const REVIEW_PLAYOUTS: u64 = 1000;

/// The most playouts of a live estimate (fewer when reviews use fewer).
pub const ESTIMATE_PLAYOUTS: u64 = 1000;

/// Files one user may upload in any 24 hours.
pub const UPLOADS_A_DAY: i64 = 20;

/// Bytes one user may upload in any 24 hours (a file is at most 1 MiB).
pub const UPLOAD_BYTES_A_DAY: i64 = 8 << 20;

/// An uploaded file nobody has opened for this long (30 days) is forgotten, with its review.
pub const UPLOAD_LIFE_MS: i64 = 30 * DAY_MS;

/// Reviews one user may have waiting or running at once.
pub const REVIEWS_WAITING_PER_USER: i64 = 3;

/// Reviews waiting or running at once on the whole site.
pub const REVIEWS_WAITING: i64 = 100;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// A wait as a refusal says it: `3 h 12 min`, `5 min`, `40 s`.
fn wait_text(ms: i64) -> String {
    let s = (ms.max(0) + 999) / 1000;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", (s + 59) / 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// A review whose node has not written for this long is taken over by another.
const STALE_MS: i64 = 60_000;

/// How often an idle node looks for reviews asked for on other nodes.
const POLL: Duration = Duration::from_secs(2);

/// The mistakes kept: those that lost at least this much win rate, at most this many.
const MISTAKE_LOSS: f64 = 0.05;
const MISTAKES_KEPT: usize = 20;

/// A review as `GET /api/games/{id}/review` shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReviewView {
    /// `none` (never asked), `queued`, `running`, `done` or `failed`.
    pub status: String,
    pub playouts: i64,
    /// Positions reviewed, of `total` (0 until it starts).
    pub done: i64,
    pub total: i64,
    /// Once done: `{"positions": [...], "mistakes": [...]}` (see docs/API.md).
    pub results: Option<Value>,
}

impl ReviewView {
    fn of(stored: Option<StoredReview>) -> ReviewView {
        match stored {
            None => ReviewView {
                status: "none".into(),
                playouts: 0,
                done: 0,
                total: 0,
                results: None,
            },
            Some(r) => ReviewView {
                results: r
                    .results
                    .as_deref()
                    .and_then(|t| serde_json::from_str(t).ok()),
                status: r.state,
                playouts: r.playouts,
                done: r.done,
                total: r.total,
            },
        }
    }
}

/// An uploaded record's review: [`ReviewView`] with the record's name.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct UploadReviewView {
    /// The SHA-256 digest of the file's bytes, in lowercase hexadecimal.
    pub id: String,
    #[serde(flatten)]
    pub review: ReviewView,
}

/// The name an uploaded file is kept under.
fn upload_name(sgf: &[u8]) -> String {
    Sha256::digest(sgf)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a review reads to find its game: a stored game's rows or an uploaded file's bytes.
enum Source {
    Stored(Box<StoredGame>),
    Sgf(Vec<u8>),
}

impl Source {
    /// The game to review (CPU work: a replay), or none if it cannot be replayed.
    fn game(self) -> Option<Game> {
        match self {
            Source::Stored(stored) => LiveGame::replay(
                *stored,
                Default::default(),
                &TimeSource::real(),
                Absences {
                    grace_ms: 0,
                    untimed_ms: 0,
                },
            )
            .ok()
            .map(|live| live.game),
            Source::Sgf(bytes) => crate::replay::game_of_sgf(&bytes).ok(),
        }
    }
}

/// One reviewed position as stored and shown.
fn position_json(p: &Position, size: Size) -> Value {
    if p.playouts == 0 {
        return json!({ "turn": p.turn, "to_move": p.to_move.name(), "searched": false });
    }
    json!({
        "turn": p.turn,
        "to_move": p.to_move.name(),
        "searched": true,
        "winrate": (p.black_winrate * 1000.0).round() / 1000.0,
        "score": (p.black_score * 10.0).round() / 10.0,
        "best": p.best.map(|m| m.to_gtp(size)),
        "pv": p.pv.iter().take(12).map(|&m| m.to_gtp(size)).collect::<Vec<_>>(),
        "playouts": p.playouts,
        "ownership": p.ownership.iter().map(|&o| (o * 100.0).round() as i32).collect::<Vec<_>>(),
    })
}

/// The reviews and the live estimate.
pub struct Reviews {
    games: Arc<Games>,
    store: Arc<dyn ReviewStore>,
    game_store: Arc<dyn GameStore>,
    time: TimeSource,
    /// Playouts per position of a review.
    playouts: u64,
    /// Wakes this node's reviewer when a review is asked for here.
    waiting: Arc<tokio::sync::Notify>,
    /// One live estimate at a time on this node.
    estimating: tokio::sync::Semaphore,
}

impl Reviews {
    /// The reviews over `store`, reading stored games from `game_store` and live ones from `games`;
    /// `playouts` a position. Its reviewer is started apart ([`Reviews::start`]), on a node that computes them.
    pub fn new(
        games: Arc<Games>,
        store: Arc<dyn ReviewStore>,
        game_store: Arc<dyn GameStore>,
        time: TimeSource,
        playouts: u64,
    ) -> Reviews {
        Reviews {
            games,
            store,
            game_store,
            time,
            playouts: playouts.max(1),
            waiting: Arc::new(tokio::sync::Notify::new()),
            estimating: tokio::sync::Semaphore::new(1),
        }
    }

    /// Game `id`'s review as it stands.
    pub async fn review_of(self: &Arc<Self>, id: i64) -> Result<ReviewView, Error> {
        // The game must exist (a missing one is 404, not "never reviewed").
        self.games.look(id).await?;
        Ok(ReviewView::of(self.store.review(Reviewed::Game(id)).await?))
    }

    /// Asks `user`'s review of an uploaded SGF file (its first game's main line), kept once by its digest: the
    /// review as it stands. A file that cannot be replayed is refused as `/api/replay` refuses it, and one that
    /// holds a position of a game `user` is playing is refused until that game ends (see [`fairplay`]).
    pub async fn ask_upload_review(
        self: &Arc<Self>,
        user: i64,
        sgf: Vec<u8>,
    ) -> Result<UploadReviewView, Error> {
        let name = upload_name(&sgf);
        let at = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX);
        self.store.expire_uploads(at - UPLOAD_LIFE_MS).await?;
        let in_play = self.games_in_play_of(user).await?;
        let known = self.store.upload_named(&name).await?;
        if known.is_none() {
            self.check_upload_quota(user, sgf.len(), at).await?;
            self.check_review_backlog(user).await?;
        }
        // Read here, so that a review is only asked for a record that can be replayed and that holds no
        // position of the uploader's games in play (CPU work); a file kept already was read when first sent.
        let (sgf, held) = tokio::task::spawn_blocking(move || {
            if known.is_some() && in_play.is_empty() {
                return Ok((sgf, None));
            }
            let game = crate::replay::game_of_sgf(&sgf)?;
            let record = fairplay::positions_of(&game);
            let in_play: Vec<_> = in_play
                .iter()
                .map(|(id, game)| fairplay::InPlay::new(*id, game))
                .collect();
            let held = fairplay::game_in_record(&record, &in_play);
            Ok::<_, Error>((sgf, held))
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))??;
        if let Some(game) = held {
            return Err(Error::LiveGamePosition { game });
        }
        let upload = match known {
            Some(upload) => {
                self.store.open_upload(upload, at).await?;
                if self.review_would_queue(Reviewed::Upload(upload)).await? {
                    self.check_review_backlog(user).await?;
                }
                upload
            }
            None => self.store.keep_upload(&name, &sgf, at, user).await?,
        };
        let playouts = i64::try_from(self.playouts).unwrap_or(i64::MAX);
        let stored = self
            .store
            .request_review(Reviewed::Upload(upload), playouts, at, user)
            .await?;
        self.waiting.notify_one();
        Ok(UploadReviewView {
            id: name,
            review: ReviewView::of(Some(stored)),
        })
    }

    /// Refuses an upload of `bytes` by `user` beyond their daily quota, saying when it frees.
    async fn check_upload_quota(&self, user: i64, bytes: usize, at: i64) -> Result<(), Error> {
        let usage = self.store.upload_usage(user, at - DAY_MS + 1).await?;
        let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
        let limit = if usage.files >= UPLOADS_A_DAY {
            format!("{UPLOADS_A_DAY} files")
        } else if usage.bytes.saturating_add(bytes) > UPLOAD_BYTES_A_DAY {
            format!("{} MiB", UPLOAD_BYTES_A_DAY >> 20)
        } else {
            return Ok(());
        };
        // The oldest of the day's files leaves the count first.
        let frees_in = usage.oldest_ms.map_or(0, |oldest| oldest + DAY_MS - at);
        Err(Error::UploadQuota {
            limit,
            frees_in: wait_text(frees_in),
        })
    }

    /// Whether asking for `subject`'s review would queue one (none asked yet, or a failed one).
    async fn review_would_queue(&self, subject: Reviewed) -> Result<bool, Error> {
        Ok(self
            .store
            .review(subject)
            .await?
            .is_none_or(|r| r.state == "failed"))
    }

    /// Refuses one more review for `user` when theirs or the site's queue is full.
    async fn check_review_backlog(&self, user: i64) -> Result<(), Error> {
        let backlog = self.store.review_backlog(user).await?;
        if backlog.theirs >= REVIEWS_WAITING_PER_USER {
            return Err(Error::ReviewQueue {
                yours: true,
                limit: REVIEWS_WAITING_PER_USER,
            });
        }
        if backlog.all >= REVIEWS_WAITING {
            return Err(Error::ReviewQueue {
                yours: false,
                limit: REVIEWS_WAITING,
            });
        }
        Ok(())
    }

    /// The games `user` is seated at and that are in play or being counted, as uploads are checked against them;
    /// each brought up to the store first, so that a game that ended on another node is not taken for one in play.
    async fn games_in_play_of(&self, user: i64) -> Result<Vec<(i64, tesuji_rules::Game)>, Error> {
        let ids: Vec<i64> = self
            .games
            .summaries(|s| s.seat_of(user).is_some(), usize::MAX)
            .into_iter()
            .map(|s| s.id)
            .collect();
        let mut games = Vec::new();
        for id in ids {
            let Some(entry) = self.games.live_entry(id) else {
                continue;
            };
            let game = {
                let mut live = entry.lock().await;
                if live.game.phase() != Phase::Over {
                    self.games.catch_up_if_behind(&mut live).await?;
                }
                if live.cancelled || live.game.phase() == Phase::Over {
                    continue;
                }
                live.game.clone()
            };
            games.push((id, game));
        }
        Ok(games)
    }

    /// Notes that the uploaded file `upload` was opened now.
    async fn opened(&self, upload: i64) -> Result<(), Error> {
        let at = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX);
        Ok(self.store.open_upload(upload, at).await?)
    }

    /// The id of the file uploaded under `name`.
    async fn upload_named(&self, name: &str) -> Result<i64, Error> {
        // Only a digest can name one: anything else is not looked up.
        let digest =
            name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        let found = if digest {
            self.store.upload_named(name).await?
        } else {
            None
        };
        found.ok_or_else(|| Error::NoUpload(name.chars().take(64).collect()))
    }

    /// The review of the file uploaded under `name` (which opens it).
    pub async fn upload_review(self: &Arc<Self>, name: &str) -> Result<UploadReviewView, Error> {
        let upload = self.upload_named(name).await?;
        self.opened(upload).await?;
        Ok(UploadReviewView {
            id: name.to_owned(),
            review: ReviewView::of(self.store.review(Reviewed::Upload(upload)).await?),
        })
    }

    /// The bytes of the file uploaded under `name`, as they were sent (which opens it).
    pub async fn upload_sgf(self: &Arc<Self>, name: &str) -> Result<Vec<u8>, Error> {
        let upload = self.upload_named(name).await?;
        self.opened(upload).await?;
        self.store
            .upload_sgf(upload)
            .await?
            .ok_or_else(|| Error::NoUpload(name.to_owned()))
    }

    /// Asks, for `user`, game `id`'s review: only a finished game is reviewed (one in play would tell its
    /// players what to play). Asking again changes nothing; a failed review is asked again.
    pub async fn ask_review(self: &Arc<Self>, user: i64, id: i64) -> Result<ReviewView, Error> {
        let entry = self.games.look(id).await?;
        if entry.lock().await.game.phase() != Phase::Over {
            return Err(Error::NotOverYet);
        }
        if self.review_would_queue(Reviewed::Game(id)).await? {
            self.check_review_backlog(user).await?;
        }
        let at = i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX);
        let playouts = i64::try_from(self.playouts).unwrap_or(i64::MAX);
        let stored = self
            .store
            .request_review(Reviewed::Game(id), playouts, at, user)
            .await?;
        self.waiting.notify_one();
        Ok(ReviewView::of(Some(stored)))
    }

    /// An estimate of game `id`'s position now, for `viewer`: the search's figures of one position as a review
    /// gives them (at most [`ESTIMATE_PLAYOUTS`] playouts); of a finished game, its last position in play. A
    /// spectator may ask during the game, a player only once it is over (it would tell them what to play). One
    /// estimate at a time per node.
    pub async fn estimate(self: &Arc<Self>, id: i64, viewer: i64) -> Result<Value, Error> {
        let entry = self.games.look(id).await?;
        let game = {
            let live = entry.lock().await;
            let seated = live.seat_of(Actor::User(viewer)).is_some();
            if seated && live.game.phase() != Phase::Over {
                return Err(Error::PlayersGetNoEstimate);
            }
            live.game.clone()
        };
        let _one = self
            .estimating
            .acquire()
            .await
            .map_err(|e| Error::Internal(e.to_string()))?;
        let playouts = self.playouts.min(ESTIMATE_PLAYOUTS);
        tokio::task::spawn_blocking(move || {
            let size = game.rules().size;
            let bot = MctsBot::new(
                MctsConfig {
                    threads: 1,
                    ..MctsConfig::playouts(playouts)
                },
                0,
            );
            let rules = *game.rules();
            // Once play has ended, the position before its end: its ownership is the final board's.
            let (turn, game) = last_in_play(&game);
            position_json(&review_position(&bot, &game, &rules, turn), size)
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))
    }

    /// The node's reviewer: takes the reviews asked for, one at a time, until the games are dropped.
    pub fn start(self: &Arc<Self>) {
        let reviews = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                let Some(g) = reviews.upgrade() else {
                    return;
                };
                let now = i64::try_from(g.time.wall_ms()).unwrap_or(i64::MAX);
                let taken = match g.store.take_review(now, now - STALE_MS).await {
                    Ok(taken) => taken,
                    Err(e) => {
                        tracing::warn!(error = %e, "looking for reviews failed");
                        None
                    }
                };
                match taken {
                    Some(r) => {
                        if let Err(e) = g.compute_review(r.subject, r.playouts).await {
                            tracing::warn!(subject = ?r.subject, error = %e, "a review failed");
                        }
                    }
                    None => {
                        let waiting = Arc::clone(&g.waiting);
                        drop(g);
                        let _ = tokio::time::timeout(POLL, waiting.notified()).await;
                    }
                }
            }
        });
    }

    /// Reviews `subject` with `playouts` a position, writing its progress and results.
    async fn compute_review(
        self: &Arc<Self>,
        subject: Reviewed,
        playouts: i64,
    ) -> Result<(), Error> {
        let store = Arc::clone(&self.store);
        let time = self.time.clone();
        let at = move || i64::try_from(time.wall_ms()).unwrap_or(i64::MAX);
        let source = match subject {
            Reviewed::Game(id) => self
                .game_store
                .load_game(id)
                .await?
                .map(|g| Source::Stored(Box::new(g))),
            Reviewed::Upload(id) => store.upload_sgf(id).await?.map(Source::Sgf),
        };
        let Some(source) = source else {
            store
                .save_review(subject, "failed", 0, 0, None, at())
                .await?;
            return Ok(());
        };
        let handle = tokio::runtime::Handle::current();
        let playouts = u64::try_from(playouts).unwrap_or(1).max(1);
        let (store2, at2) = (Arc::clone(&store), at.clone());
        let results = tokio::task::spawn_blocking(move || {
            let game = source.game()?;
            let size = game.rules().size;
            let bot = MctsBot::new(
                MctsConfig {
                    threads: 1,
                    ..MctsConfig::playouts(playouts)
                },
                0,
            );
            let reviewed = review(&bot, &game, game.rules(), |done, total| {
                let (done, total) = (done as i64, total as i64);
                // Progress is news, not a duty: a failed write only delays what a poll sees.
                let _ = handle.block_on(store2.save_review(
                    subject,
                    "running",
                    done,
                    total,
                    None,
                    at2(),
                ));
            });
            let found = mistakes(&game, &reviewed, MISTAKE_LOSS);
            let results = json!({
                "positions": reviewed.iter().map(|p| position_json(p, size)).collect::<Vec<_>>(),
                "mistakes": found.iter().take(MISTAKES_KEPT).map(|m| json!({
                    "number": m.number,
                    "color": m.color.name(),
                    "move": m.played.to_gtp(size),
                    "loss": (m.loss * 1000.0).round() / 1000.0,
                    "better": m.better.map(|b| b.to_gtp(size)),
                })).collect::<Vec<_>>(),
            });
            Some((reviewed.len() as i64, results.to_string()))
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))?;
        match results {
            Some((total, text)) => {
                store
                    .save_review(subject, "done", total, total, Some(&text), at())
                    .await?
            }
            None => {
                store
                    .save_review(subject, "failed", 0, 0, None, at())
                    .await?
            }
        }
        Ok(())
    }
}
