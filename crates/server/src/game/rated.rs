//! Ratings in the core's games: what an ended ranked game needs rated (told to whoever took
//! [`Games::ranked_endings`]), and the ratings shown in games (new ratings beside the players' names, a finished
//! game's change read back from the histories). Which games may be ranked and rated is `super::ranked`'s.

use tesuji_rules::{ByColor, Color, Phase};

use crate::error::Error;
use crate::store::{Rating, RatingPoint};

use super::live::LiveGame;
use super::ranked::{HISTORY, ToRate, rated_outcome, setup_of, too_short};
use super::registry::Games;
use super::view::{Player, RatingChangeView};

impl LiveGame {
    /// What this game needs rated, when it is a ranked game between two users that has ended with a result
    /// after each placed [`MIN_PLAYS`] stones.
    pub fn to_rate(&self) -> Option<ToRate> {
        if !self.seats.ranked || self.game.phase() != Phase::Over {
            return None;
        }
        if too_short(self.game.log()) {
            return None;
        }
        Some(ToRate {
            game: self.id,
            black: self.seats.black?,
            white: self.seats.white?,
            outcome: rated_outcome(self.game.result()?)?,
            setup: setup_of(self.game.rules()),
        })
    }
}

impl Games {
    /// Game `game`'s players' ratings before and after it, from their histories (`None` when a history no
    /// longer reaches back to it).
    pub async fn stored_change(
        &self,
        game: i64,
        black: i64,
        white: i64,
    ) -> Result<Option<((Rating, Rating), (Rating, Rating))>, Error> {
        let around = |history: Vec<RatingPoint>| {
            let i = history.iter().position(|p| p.game == game)?;
            let before = match i {
                0 if history.len() < HISTORY => Rating::default(),
                0 => return None,
                _ => history[i - 1].rating,
            };
            Some((before, history[i].rating))
        };
        let b = around(self.stores.ratings.rating_history(black, HISTORY).await?);
        let w = around(self.stores.ratings.rating_history(white, HISTORY).await?);
        Ok(b.zip(w).map(|(b, w)| ((b.0, w.0), (b.1, w.1))))
    }

    /// A finished ranked game just read from the store: how it changed its players' ratings, if it was rated.
    pub(super) async fn rating_change_stored(&self, live: &mut LiveGame) -> Result<(), Error> {
        let (true, Some(black), Some(white)) =
            (live.seats.ranked, live.seats.black, live.seats.white)
        else {
            return Ok(());
        };
        if live.game.phase() != Phase::Over {
            return Ok(());
        }
        live.rating_change =
            self.stored_change(live.id, black, white)
                .await?
                .map(|(before, after)| ByColor {
                    black: RatingChangeView::of(before.0.rating, after.0.rating),
                    white: RatingChangeView::of(before.1.rating, after.1.rating),
                });
        Ok(())
    }

    /// Shows these users' new ratings: in the cached accounts, and beside their names in their live games,
    /// found from the listings (no other game is locked), and in the game `rated` itself, finished, when it is
    /// in memory (so its page agrees with the others at once), with the change it made, told to its watchers.
    pub async fn show_ratings(
        &self,
        rated: i64,
        ratings: [(i64, Rating); 2],
        change: Option<ByColor<RatingChangeView>>,
    ) {
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
            if live.id == rated && change.is_some() && live.rating_change != change {
                live.rating_change = change;
                let event = serde_json::json!({
                    "type": "rated",
                    "version": live.version,
                    "rating_change": change,
                });
                let _ = live.events.send(std::sync::Arc::from(event.to_string()));
            }
        }
    }
}
