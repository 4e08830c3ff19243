//! Rematches: after a game, either player offers one, a table with the same rules, clock and rankedness and
//! the colours swapped, by invitation, its invite shown to both players of the game; the other accepts by
//! offering too (or by joining it with the invite). One per game: the store keeps a game's rematch unique,
//! so two offers made at once, on one node or two, make one table.

use std::sync::Arc;

use serde::Serialize;
use tesuji_rules::{Color, Phase};

use crate::auth::User;
use crate::error::ApiError;
use crate::store::{Seats, StoredGame};

use super::action::Actor;
use super::live::LiveGame;
use super::registry::{Games, NewTable, Opponent};
use super::view::GameState;

/// The rematch offered after a game: its table, who offered it (their colour in the game), and its invite
/// token (absent against the computer, whose rematch starts at once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rematch {
    pub game: i64,
    pub by: Color,
    pub invite: Option<String>,
}

/// A rematch as a finished game's state shows it; the invite only to the game's players.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RematchView {
    pub game: i64,
    pub by: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

impl Rematch {
    /// The rematch of `old` that table `table` with `seats` (as stored) is: offered by the user seated at it
    /// (whoever joined since, the offerer is the one of the other colour than in `old`).
    pub(super) fn of(old: &LiveGame, table: i64, seats: &Seats) -> Option<Rematch> {
        let by = [Color::Black, Color::White].into_iter().find(|&c| {
            let at_table = match c.opponent() {
                Color::Black => seats.black,
                Color::White => seats.white,
            };
            at_table.is_some() && at_table == old.seat_user(c)
        })?;
        Some(Rematch {
            game: table,
            by,
            invite: seats.invite.clone(),
        })
    }

    /// As `viewer` sees it: the invite to the game's players only.
    pub(super) fn view(&self, seated: bool) -> RematchView {
        RematchView {
            game: self.game,
            by: self.by.name(),
            invite: self.invite.clone().filter(|_| seated),
        }
    }
}

impl LiveGame {
    /// Records the rematch offered after this finished game and tells its watchers.
    pub(super) fn offered(&mut self, rematch: Rematch) {
        let event = serde_json::json!({
            "type": "rematch",
            "version": self.version,
            "rematch": rematch.view(false),
        });
        self.rematch = Some(rematch);
        let _ = self.events.send(Arc::from(event.to_string()));
    }
}

impl Games {
    /// User `user`, a player of finished game `id`, offers a rematch, or accepts the one their opponent
    /// offered: answers the rematch's state.
    pub async fn rematch(self: &Arc<Self>, id: i64, user: &User) -> Result<GameState, ApiError> {
        let entry = self.get(id).await?;
        // Held throughout: two offers on this node are made one after the other.
        let mut live = entry.lock().await;
        if live.cancelled {
            return Err(ApiError::NotFound(id));
        }
        let color = live
            .seat_of(Actor::User(user.id))
            .ok_or(ApiError::NotSeated)?;
        // On a node of several the ending (a resignation, say) may have been another node's, not heard yet.
        if live.game.phase() != Phase::Over
            && self.catch_up_if_behind(&mut live).await?
            && live.cancelled
        {
            return Err(ApiError::NotFound(id));
        }
        if live.game.phase() != Phase::Over {
            return Err(ApiError::NotOver);
        }
        if let Some(offered) = self.stores.games.rematch_of(id).await? {
            return self.answer_offer(&mut live, offered, user).await;
        }
        let table = NewTable {
            rules: live.game.rules().to_string(),
            color: Some(color.opponent()),
            opponent: match &live.seats.bot {
                Some((kind, _)) => Opponent::Bot(kind.clone()),
                None => Opponent::Invite,
            },
            time: live.clock.as_ref().map(|c| c.control().to_string()),
            ranked: live.seats.ranked,
            undo: live.seats.undo,
            rematch_of: Some(id),
        };
        match self.create(user, table).await {
            Ok((state, invite)) => {
                live.offered(Rematch {
                    game: state.id,
                    by: color,
                    invite,
                });
                Ok(state)
            }
            // The opponent's offer, made on another node at the same moment, came first: it stands.
            Err(e) => match self.stores.games.rematch_of(id).await? {
                Some(offered) => self.answer_offer(&mut live, offered, user).await,
                None => Err(e),
            },
        }
    }

    /// A rematch of the locked finished game `live` was offered already (`offered`, its table's row): the
    /// offerer is answered it again; the other player accepts it.
    async fn answer_offer(
        self: &Arc<Self>,
        live: &mut LiveGame,
        offered: StoredGame,
        user: &User,
    ) -> Result<GameState, ApiError> {
        if let Some(rematch) = Rematch::of(live, offered.id, &offered.seats)
            && live.rematch.as_ref() != Some(&rematch)
        {
            live.offered(rematch);
        }
        let table = self.get(offered.id).await?;
        let seated = {
            let table = table.lock().await;
            table
                .seat_of(Actor::User(user.id))
                .is_some()
                .then(|| table.state_for(Some(user.id)))
        };
        match seated {
            Some(state) => Ok(state),
            None => {
                self.join(offered.id, user, offered.seats.invite.as_deref())
                    .await
            }
        }
    }

    /// A table another node made was read in: when it is the rematch of a finished game held here, that
    /// game's watchers hear of it. In a task of its own, as the reader may hold that game's lock (its player
    /// accepting the rematch reads the table in).
    pub(super) fn rematch_read_in(&self, table: i64, seats: &Seats) {
        let Some(old) = seats.rematch_of else {
            return;
        };
        let Some(entry) = self.registry().finished.peek(&old).cloned() else {
            return;
        };
        let seats = seats.clone();
        tokio::spawn(async move {
            let mut live = entry.lock().await;
            if let Some(rematch) = Rematch::of(&live, table, &seats)
                && live.rematch.as_ref() != Some(&rematch)
            {
                live.offered(rematch);
            }
        });
    }

    /// The rematch of a finished game just read from the store, if one was offered.
    pub(super) async fn rematch_stored(&self, live: &mut LiveGame) -> Result<(), ApiError> {
        if let Some(table) = self.stores.games.rematch_of(live.id).await? {
            live.rematch = Rematch::of(live, table.id, &table.seats);
        }
        Ok(())
    }
}
