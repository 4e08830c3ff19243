//! Rating ranked games (see `tesuji-rating` for the system and the ranks): when a ranked game ends with a
//! result, its players' ratings change, once.
//!
//! Every node that sees a ranked game end rates it, the one that stored the ending and each that catches up
//! with it: the store rates a game once however many ask ([`crate::store::Store::rate_game`]), and a node that
//! asked shows the new ratings at once. A game that ended while no node could rate it (a crash between the
//! ending and its rating, a database out of reach) is rated when a node starts, or takes the timers over.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tesuji_rating::Outcome;
use tesuji_rules::result::{GameResult, Outcome as Ending};
use tesuji_rules::{Color, Phase};

use crate::clocks::TimeSource;
use crate::error::ApiError;
use crate::store::{Rated, Rating, RatingPoint};

use super::live::LiveGame;
use super::presence::Absences;
use super::registry::Games;
use super::view::Player;

/// The most points of a player's rating history shown (their last rated games).
pub const HISTORY: usize = 200;

/// How often rating a game is tried before it is left to the next start or take-over.
const ATTEMPTS: u32 = 3;

/// Games read per round when the unrated ones are looked for.
const UNRATED_ROUND: usize = 100;

/// How a result counts for ratings: a win (on the board, by resignation, on time, by forfeit) or a draw (a
/// jigo, both resigning at once). A void game (repetition) and one ended by two passes before any play change
/// no rating.
pub fn rated_outcome(result: &GameResult) -> Option<Outcome> {
    match (result.outcome, result.winner) {
        (Ending::Repetition | Ending::NoPlay, _) => None,
        (_, Some(Color::Black)) => Some(Outcome::BlackWins),
        (_, Some(Color::White)) => Some(Outcome::WhiteWins),
        (Ending::Score | Ending::BothResigned, None) => Some(Outcome::Draw),
        (_, None) => None,
    }
}

/// A ranked game that has ended with a result: what rating it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToRate {
    pub game: i64,
    pub black: i64,
    pub white: i64,
    pub outcome: Outcome,
    /// Black's handicap stones, each worth a rank.
    pub handicap: u8,
}

impl LiveGame {
    /// What this game needs rated, when it is a ranked game between two users that has ended with a result.
    pub fn to_rate(&self) -> Option<ToRate> {
        if !self.seats.ranked || self.game.phase() != Phase::Over {
            return None;
        }
        Some(ToRate {
            game: self.id,
            black: self.seats.black?,
            white: self.seats.white?,
            outcome: rated_outcome(self.game.result()?)?,
            handicap: self.game.rules().handicap,
        })
    }
}

/// A rating as a player's page shows it: rounded points, the deviation, the rank and whether it is
/// provisional.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RatingView {
    pub rating: i32,
    pub deviation: i32,
    pub rank: String,
    pub provisional: bool,
}

impl From<Rating> for RatingView {
    fn from(r: Rating) -> RatingView {
        RatingView {
            rating: r.rating.round() as i32,
            deviation: r.deviation.round() as i32,
            rank: r.label(),
            provisional: r.is_provisional(),
        }
    }
}

impl Games {
    /// Starts the task that rates the ranked games that end here (stored by this node or caught up with), in
    /// the order they ended, with a few tries each should the store fail; first the games left unrated when
    /// `unrated_first`. It ends with the games.
    pub(super) fn start_rating(
        self: &Arc<Self>,
        mut ended: tokio::sync::mpsc::UnboundedReceiver<ToRate>,
        unrated_first: bool,
    ) {
        let games = Arc::downgrade(self);
        tokio::spawn(async move {
            if unrated_first
                && let Some(games) = games.upgrade()
                && let Err(e) = games.rate_unrated().await
            {
                tracing::warn!(error = %e, "rating the games left unrated failed");
            }
            while let Some(to_rate) = ended.recv().await {
                let Some(games) = games.upgrade() else {
                    return;
                };
                for attempt in 1..=ATTEMPTS {
                    match games.rate(to_rate).await {
                        Ok(_) => break,
                        Err(e) => {
                            tracing::warn!(game = to_rate.game, attempt, error = %e, "rating a game failed");
                            tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
                        }
                    }
                }
            }
        });
    }

    /// Rates one ended ranked game (once, whoever asks), then shows both players' ratings as they are now.
    pub async fn rate(&self, to_rate: ToRate) -> Result<Rated, ApiError> {
        let ToRate {
            game,
            black,
            white,
            outcome,
            handicap,
        } = to_rate;
        let update =
            Box::new(move |b: Rating, w: Rating| tesuji_rating::rate(b, w, outcome, handicap));
        let rated = self
            .store
            .rate_game(game, black, white, crate::store::now(), update)
            .await?;
        let now = match rated {
            Rated::Now { after, .. } => after,
            // Rated by another node: its ratings are read back.
            Rated::Already => (
                self.store.rating(black).await?.unwrap_or_default(),
                self.store.rating(white).await?.unwrap_or_default(),
            ),
        };
        self.show_ratings(game, [(black, now.0), (white, now.1)])
            .await;
        Ok(rated)
    }

    /// Shows these users' new ratings: in the cached accounts, and beside their names in their live games,
    /// found from the listings (no other game is locked), and in the game `rated` itself, finished, when it is
    /// in memory (so its page agrees with the others at once).
    async fn show_ratings(&self, rated: i64, ratings: [(i64, Rating); 2]) {
        for (user, rating) in ratings {
            self.accounts.rated(user, rating);
        }
        let theirs = self.summaries(
            |s| ratings.iter().any(|&(user, _)| s.seat_of(user).is_some()),
            usize::MAX,
        );
        let mut entries: Vec<_> = theirs
            .into_iter()
            .filter_map(|summary| self.live_entry(summary.id).map(|e| (true, e)))
            .collect();
        let finished = self.registry().finished.peek(&rated).cloned();
        entries.extend(finished.map(|e| (false, e)));
        for (live_game, entry) in entries {
            let mut live = entry.lock().await;
            for color in [Color::Black, Color::White] {
                if let Some(Player::User(u)) = &mut live.players[color]
                    && let Some(&(_, rating)) = ratings.iter().find(|&&(user, _)| user == u.id)
                {
                    u.set_rating(rating);
                }
            }
            if live_game {
                self.set_summary(&live);
            }
        }
    }

    /// Rates the ranked games that ended with a result but were never rated (see the module's notes), oldest
    /// first; answers how many were rated now.
    pub async fn rate_unrated(&self) -> Result<usize, ApiError> {
        let mut after = 0;
        let mut rated = 0;
        loop {
            let ids = self.store.unrated_games(after, UNRATED_ROUND).await?;
            let Some(&last) = ids.last() else {
                break;
            };
            after = last;
            for id in ids {
                let Some(stored) = self.store.load_game(id).await? else {
                    continue;
                };
                let replayed = tokio::task::spawn_blocking(move || {
                    LiveGame::replay(
                        stored,
                        Default::default(),
                        &TimeSource::real(),
                        Absences {
                            grace_ms: 0,
                            untimed_ms: 0,
                        },
                    )
                })
                .await
                .map_err(|e| ApiError::Internal(e.to_string()))?;
                let to_rate = match replayed {
                    Ok(live) => live.to_rate(),
                    Err(e) => {
                        tracing::error!(error = %e, "an unrated game could not be rebuilt; it stays unrated");
                        None
                    }
                };
                if let Some(to_rate) = to_rate
                    && let Rated::Now { .. } = self.rate(to_rate).await?
                {
                    rated += 1;
                }
            }
        }
        if rated > 0 {
            tracing::info!(
                games = rated,
                "ranked games that had ended unrated are rated"
            );
        }
        Ok(rated)
    }

    /// User `user`'s rating now (`None`: never rated).
    pub async fn rating_of(&self, user: i64) -> Result<Option<Rating>, ApiError> {
        Ok(self.store.rating(user).await?)
    }

    /// User `user`'s rating after each of their last [`HISTORY`] rated games, oldest first.
    pub async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, ApiError> {
        Ok(self.store.rating_history(user, HISTORY).await?)
    }
}
