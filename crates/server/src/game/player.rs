//! What a player's page shows besides their games: their record by board size and colour, and their games
//! in progress.

use serde::Serialize;
use tesuji_rules::{Color, Rules};

use crate::error::ApiError;

use super::registry::Games;
use super::view::Summary;

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

impl Games {
    /// User `user`'s record: one entry per board size and colour they have finished games in, by size (smaller
    /// boards first) then colour (Black first).
    pub async fn player_record(&self, user: i64) -> Result<Vec<RecordView>, ApiError> {
        let rows = self.stores.ratings.player_record(user).await?;
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

    /// User `user`'s games that are not over (open tables, games in play or being counted), newest first, at
    /// most `limit`.
    pub fn current_of(&self, user: i64, limit: usize) -> Vec<Summary> {
        self.summaries(|s| s.seat_of(user).is_some(), limit)
    }

    /// User `user`'s live games that wait for them to act (see [`Summary::to_act`]), newest first, at most
    /// `limit`: what the lobby shows them first.
    pub fn my_turn(&self, user: i64, limit: usize) -> Vec<Summary> {
        self.summaries(
            |s| {
                s.seat_of(user)
                    .is_some_and(|c| s.to_act.contains(&c.name()))
            },
            limit,
        )
    }
}
