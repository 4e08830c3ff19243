//! Rating ranked games (see `tesuji-rating` for the system and the ranks): when a ranked game ends with a
//! result, its players' ratings change, once. A feature of its own: [`Ratings`] is built with the store's
//! ratings and games areas and a handle to the core, which tells it of each ranked game that ends
//! ([`Games::ranked_endings`]) and of each take-over of the timers.
//!
//! The same two accounts' rated games within [`PAIR_WINDOW`] count together as one game of their mean result
//! (`tesuji_rating::rate_repeated`): a pair that plays and resigns over and over moves the ratings no further
//! than one game does.
//!
//! Every node that sees a ranked game end rates it, the one that stored the ending and each that catches up
//! with it: the store rates a game once however many ask ([`crate::store::RatingStore::rate_game`]), and a node
//! that asked shows the new ratings at once. A game that ended while no node could rate it (a crash between the
//! ending and its rating, a database out of reach) is rated when a node starts, or takes the timers over.

use std::sync::Arc;
use std::time::Duration;

use tesuji_rating::Scored;
use tesuji_rules::{ByColor, Rules};

use crate::clocks::TimeSource;
use crate::error::Error;
use crate::game::ranked::{HISTORY, ToRate, setup_of};
use crate::game::view::RatingChangeView;
use crate::game::{Absences, Games, LiveGame};
use crate::store::{GameStore, Rated, Rating, RatingPoint, RatingStore};

/// How often rating a game is tried before it is left to the next start or take-over.
const ATTEMPTS: u32 = 3;

/// Games read per round when the unrated ones are looked for.
const UNRATED_ROUND: usize = 100;

/// How long, in seconds, the same two accounts' rated games count as one game (a day).
pub const PAIR_WINDOW: i64 = 24 * 60 * 60;

/// A player's games looked through for the results of the pair's games in the window (their newest first).
const PAIR_ROWS: usize = 100;

/// Black's result from a stored result text (`B+R`, `W+3.5`, `0`); `None` for no result (`Void`).
fn black_score(result: &str) -> Option<f64> {
    match result.as_bytes().first() {
        Some(b'B') if result.starts_with("B+") => Some(1.0),
        Some(b'W') if result.starts_with("W+") => Some(0.0),
        _ if result == "0" => Some(0.5),
        _ => None,
    }
}

/// Where a game stands among the same two accounts' rated games of the last [`PAIR_WINDOW`].
enum PairWindow {
    /// Their first: rated as any game.
    First,
    /// Their earlier games in the window (from Black's side now) and their ratings before the first of them.
    Repeated {
        start: (Rating, Rating),
        earlier: Vec<Scored>,
    },
    /// Too many rated games since then for the histories read to hold their ratings before the window.
    Unknown,
}

/// The rating of ranked games.
pub struct Ratings {
    games: Arc<Games>,
    store: Arc<dyn RatingStore>,
    game_store: Arc<dyn GameStore>,
}

impl Ratings {
    pub fn new(
        games: Arc<Games>,
        store: Arc<dyn RatingStore>,
        game_store: Arc<dyn GameStore>,
    ) -> Ratings {
        Ratings {
            games,
            store,
            game_store,
        }
    }

    /// Starts the task that rates the ranked games that end here (stored by this node or caught up with, as
    /// the core tells: `ended`), in the order they ended, with a few tries each should the store fail; and the
    /// games left unrated, first when `unrated_first` (a node alone) and at each take-over of the timers (one
    /// of several). It ends with the ratings.
    pub fn start(
        self: &Arc<Self>,
        mut ended: tokio::sync::mpsc::UnboundedReceiver<ToRate>,
        unrated_first: bool,
    ) {
        let ratings = Arc::downgrade(self);
        let mut take_overs = self.games.lease().take_overs();
        // A take-over before this task subscribed is acted on once too.
        if *take_overs.borrow() > 0 {
            take_overs.mark_changed();
        }
        tokio::spawn(async move {
            if unrated_first && let Some(ratings) = ratings.upgrade() {
                ratings.rate_left_unrated().await;
            }
            loop {
                tokio::select! {
                    to_rate = ended.recv() => {
                        let (Some(to_rate), Some(ratings)) = (to_rate, ratings.upgrade()) else {
                            return;
                        };
                        for attempt in 1..=ATTEMPTS {
                            match ratings.rate(to_rate).await {
                                Ok(_) => break,
                                Err(e) => {
                                    tracing::warn!(game = to_rate.game, attempt, error = %e, "rating a game failed");
                                    tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
                                }
                            }
                        }
                    }
                    taken = take_overs.changed() => {
                        let (Ok(()), Some(ratings)) = (taken, ratings.upgrade()) else {
                            return;
                        };
                        // The node that stored a ranked game's ending may have died before rating it.
                        ratings.rate_left_unrated().await;
                    }
                }
            }
        });
    }

    /// [`Ratings::rate_unrated`], a failure logged.
    async fn rate_left_unrated(&self) {
        if let Err(e) = self.rate_unrated().await {
            tracing::warn!(error = %e, "rating the games left unrated failed");
        }
    }

    /// Rates one ended ranked game (once, whoever asks), then shows both players' ratings as they are now.
    pub async fn rate(&self, to_rate: ToRate) -> Result<Rated, Error> {
        let ToRate {
            game,
            black,
            white,
            outcome,
            setup,
        } = to_rate;
        let this = Scored {
            score: outcome.black_score(),
            advantage: setup.advantage_ranks(),
        };
        let pair = self
            .pair_window(game, black, white, crate::store::now())
            .await?;
        let update = Box::new(move |b: Rating, w: Rating| match pair {
            PairWindow::First => tesuji_rating::rate_repeated((b, w), (b, w), &[], this),
            PairWindow::Repeated { start, earlier } => {
                tesuji_rating::rate_repeated((b, w), start, &earlier, this)
            }
            // Their ratings before the window are out of the history read: the game changes nothing.
            PairWindow::Unknown => (b, w),
        });
        let rated = self
            .store
            .rate_game(game, black, white, crate::store::now(), update)
            .await?;
        let (now, change) = match rated {
            Rated::Now { before, after } => (after, Some((before, after))),
            // Rated by another node: its ratings are read back, and the game's change from the histories.
            Rated::Already => (
                (
                    self.store.rating(black).await?.unwrap_or_default(),
                    self.store.rating(white).await?.unwrap_or_default(),
                ),
                self.games.stored_change(game, black, white).await?,
            ),
        };
        let change = change.map(|(before, after)| ByColor {
            black: RatingChangeView::of(before.0.rating, after.0.rating),
            white: RatingChangeView::of(before.1.rating, after.1.rating),
        });
        self.games
            .show_ratings(game, [(black, now.0), (white, now.1)], change)
            .await;
        Ok(rated)
    }

    /// The same two accounts' earlier rated games within [`PAIR_WINDOW`] of `now`, from `black`'s side, and
    /// their ratings before the first of them, read from their rating histories and game listings.
    async fn pair_window(
        &self,
        game: i64,
        black: i64,
        white: i64,
        now: i64,
    ) -> Result<PairWindow, Error> {
        let since = now - PAIR_WINDOW;
        let of_black = self.store.rating_history(black, HISTORY).await?;
        let of_white = self.store.rating_history(white, HISTORY).await?;
        let theirs: Vec<i64> = of_black
            .iter()
            .filter(|p| {
                p.at >= since && p.game != game && of_white.iter().any(|q| q.game == p.game)
            })
            .map(|p| p.game)
            .collect();
        let Some(&first) = theirs.first() else {
            return Ok(PairWindow::First);
        };
        let before = |history: &[RatingPoint]| match history.iter().position(|p| p.game == first) {
            Some(0) if history.len() < HISTORY => Some(Rating::default()),
            Some(i) if i > 0 => Some(history[i - 1].rating),
            _ => None,
        };
        let (Some(black_start), Some(white_start)) = (before(&of_black), before(&of_white)) else {
            return Ok(PairWindow::Unknown);
        };
        let rows = self.game_store.player_games(black, None, PAIR_ROWS).await?;
        let mut earlier = Vec::new();
        for row in rows.iter().filter(|r| theirs.contains(&r.id)) {
            let (Some(result), Ok(rules)) = (row.result.as_deref(), row.rules.parse::<Rules>())
            else {
                continue;
            };
            let Some(score) = black_score(result) else {
                continue;
            };
            let advantage = setup_of(&rules).advantage_ranks();
            // From the side of the player who is Black now.
            earlier.push(if row.seats.black == Some(black) {
                Scored { score, advantage }
            } else {
                Scored {
                    score: 1.0 - score,
                    advantage: -advantage,
                }
            });
        }
        if earlier.is_empty() {
            return Ok(PairWindow::First);
        }
        Ok(PairWindow::Repeated {
            start: (black_start, white_start),
            earlier,
        })
    }

    /// Rates the ranked games that ended with a result but were never rated (see the module's notes), oldest
    /// first; answers how many were rated now.
    pub async fn rate_unrated(&self) -> Result<usize, Error> {
        let mut after = 0;
        let mut rated = 0;
        loop {
            let ids = self.store.unrated_games(after, UNRATED_ROUND).await?;
            let Some(&last) = ids.last() else {
                break;
            };
            after = last;
            for id in ids {
                let Some(stored) = self.game_store.load_game(id).await? else {
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
                .map_err(|e| Error::Internal(e.to_string()))?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_result_scores_from_blacks_side() {
        assert_eq!(black_score("B+R"), Some(1.0));
        assert_eq!(black_score("W+3.5"), Some(0.0));
        assert_eq!(black_score("0"), Some(0.5));
        assert_eq!(black_score("Void"), None);
        assert_eq!(black_score(""), None);
    }
}
