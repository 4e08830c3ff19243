//! A player's page: who they are, their rating and its history, their record by board size and colour, their
//! games in progress and a page of their finished games. A feature of its own: built with the accounts, the
//! store's ratings area and a handle to the core (for the games in progress and the finished games' listing).

pub mod routes;

use std::sync::Arc;

use serde::Serialize;
use tesuji_rules::{Color, Rules};

use crate::auth::Accounts;
use crate::error::Error;
use crate::game::Games;
use crate::store::{RatingPoint, RatingStore};
use tesuji_rating::Rating;

/// A player's finished games on one board size in one colour: won, lost, drawn (void games are left out).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RecordView {
    /// `9×9`, `19×19`, `13×9`.
    pub size: String,
    pub color: &'static str,
    pub wins: i64,
    pub losses: i64,
    pub draws: i64,
}

/// The players' pages.
pub struct Players {
    games: Arc<Games>,
    accounts: Arc<Accounts>,
    ratings: Arc<dyn RatingStore>,
}

impl Players {
    pub fn new(
        games: Arc<Games>,
        accounts: Arc<Accounts>,
        ratings: Arc<dyn RatingStore>,
    ) -> Players {
        Players {
            games,
            accounts,
            ratings,
        }
    }

    /// User `user`'s record: one entry per board size and colour they have finished games in, by size (smaller
    /// boards first) then colour (Black first).
    pub async fn record(&self, user: i64) -> Result<Vec<RecordView>, Error> {
        let rows = self.ratings.player_record(user).await?;
        // Keyed by (width, height, colour) so that sizes sort as numbers.
        let mut record: std::collections::BTreeMap<(u8, u8, u8), RecordView> = Default::default();
        for row in rows {
            // A stored spec always reads (it was written from parsed rules); one that does not is left out.
            let Ok(rules) = row.rules.parse::<Rules>() else {
                continue;
            };
            let color = if row.black {
                Color::Black
            } else {
                Color::White
            };
            let size = rules.size;
            let entry = record
                .entry((size.width(), size.height(), color.index() as u8))
                .or_insert_with(|| RecordView {
                    size: size.dimensions(),
                    color: color.name(),
                    wins: 0,
                    losses: 0,
                    draws: 0,
                });
            match row.result.as_str() {
                "0" => entry.draws += row.games,
                r if r.starts_with(color.letter()) => entry.wins += row.games,
                "B" | "W" => entry.losses += row.games,
                _ => {}
            }
        }
        Ok(record.into_values().collect())
    }

    /// User `user`'s rating, as stored now (`None`: never rated).
    pub async fn rating(&self, user: i64) -> Result<Option<Rating>, Error> {
        Ok(self.ratings.rating(user).await?)
    }

    /// User `user`'s rating after each of their last rated games, oldest first.
    pub async fn rating_history(&self, user: i64) -> Result<Vec<RatingPoint>, Error> {
        Ok(self
            .ratings
            .rating_history(user, crate::game::ranked::HISTORY)
            .await?)
    }
}
