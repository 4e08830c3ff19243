//! A player's live games: those in progress, for their page and account, and those that wait for them, for
//! the lobby.

use super::registry::Games;
use super::view::Summary;

impl Games {
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
