//! Rematches: after a game, either player offers one, a table with the same rules, clock and rankedness and
//! the colours swapped, by invitation, its invite shown to both players of the game; the other accepts by
//! offering too (or by joining it with the invite). One per game: the store keeps a game's rematch unique,
//! so two offers made at once, on one node or two, make one table.
//!
//! A feature of its own: [`Rematches`] is built with the store's games area and a handle to the core (a
//! finished game's seats and lock, the tables it creates and joins). The offer is the `rematch` field of the
//! game's state (`crate::game::fields`): set when offered, filled in when a finished game is read back, and
//! told to the other nodes through the core's relay, whose watchers of the game hear of it too.

pub mod routes;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};

use serde::{Deserialize, Serialize};
use tesuji_rules::{Color, Phase};

use crate::auth::User;
use crate::error::Error;
use crate::game::fields::NamedFields;
use crate::game::{Actor, GameState, Games, LiveGame, NewTable, Opponent, ReadBack, StateField};
use crate::relay::Relayed;
use crate::store::{GameStore, Seats, StoredGame};

/// The name of the offer's field in a game's state, and of the event that tells of it.
const FIELD: &str = "rematch";

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
    /// The rematch of the game seated as `old` that table `table` with `seats` (as stored) is: offered by the
    /// user seated at it (whoever joined since, the offerer is the one of the other colour than in `old`).
    fn of(old: &Seats, table: i64, seats: &Seats) -> Option<Rematch> {
        let seat = |seats: &Seats, color| match color {
            Color::Black => seats.black,
            Color::White => seats.white,
        };
        let by = [Color::Black, Color::White].into_iter().find(|&c| {
            let at_table = seat(seats, c.opponent());
            at_table.is_some() && at_table == seat(old, c)
        })?;
        Some(Rematch {
            game: table,
            by,
            invite: seats.invite.clone(),
        })
    }

    /// As a viewer sees it: the invite to the game's players only.
    fn view(&self, seated: bool) -> RematchView {
        RematchView {
            game: self.game,
            by: self.by.name(),
            invite: self.invite.clone().filter(|_| seated),
        }
    }

    /// The offer as the game's state shows it.
    fn field(&self) -> StateField {
        let value = |seated| serde_json::to_value(self.view(seated)).unwrap_or_default();
        StateField {
            players: value(true),
            others: value(false),
        }
    }
}

/// A rematch offered on another node: game `game`'s field as that node set it.
#[derive(Serialize, Deserialize)]
struct RematchOffered {
    game: i64,
    players: serde_json::Value,
    others: serde_json::Value,
}

impl Relayed for RematchOffered {
    const KIND: &'static str = "rematch";
}

/// Rematches, offered and accepted.
pub struct Rematches {
    games: Arc<Games>,
    store: Arc<dyn GameStore>,
}

impl Rematches {
    /// The rematches, filling in finished games read back and reading what the other nodes tell.
    pub fn new(games: Arc<Games>, store: Arc<dyn GameStore>) -> Arc<Rematches> {
        let rematches = Arc::new(Rematches { games, store });
        let weak: Weak<dyn ReadBack> = Arc::downgrade(&rematches) as Weak<Rematches>;
        rematches.games.on_read_back(weak);
        rematches
            .games
            .relay()
            .on(&rematches, |r, _, m: RematchOffered| async move {
                r.offered_elsewhere(m)
            });
        rematches
    }

    /// User `user`, a player of finished game `id`, offers a rematch, or accepts the one their opponent
    /// offered: answers the rematch's state.
    pub async fn offer(&self, id: i64, user: &User) -> Result<GameState, Error> {
        let entry = self.games.get(id).await?;
        // Held throughout: two offers on this node are made one after the other.
        let mut live = entry.lock().await;
        if live.cancelled {
            return Err(Error::NotFound(id));
        }
        let color = live.seat_of(Actor::User(user.id)).ok_or(Error::NotSeated)?;
        // On a node of several the ending (a resignation, say) may have been another node's, not heard yet.
        if live.game.phase() != Phase::Over
            && self.games.catch_up_if_behind(&mut live).await?
            && live.cancelled
        {
            return Err(Error::NotFound(id));
        }
        if live.game.phase() != Phase::Over {
            return Err(Error::NotOver);
        }
        if let Some(offered) = self.store.rematch_of(id).await? {
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
        match self.games.create(user, table).await {
            Ok((state, invite)) => {
                self.show(
                    &mut live,
                    &Rematch {
                        game: state.id,
                        by: color,
                        invite,
                    },
                );
                Ok(state)
            }
            // The opponent's offer, made on another node at the same moment, came first: it stands.
            Err(e) => match self.store.rematch_of(id).await? {
                Some(offered) => self.answer_offer(&mut live, offered, user).await,
                None => Err(e),
            },
        }
    }

    /// Shows `rematch` in the state of finished game `live`, here and on the other nodes.
    fn show(&self, live: &mut LiveGame, rematch: &Rematch) {
        let field = rematch.field();
        if live.field(FIELD) == Some(&field) {
            return;
        }
        self.games.relay().send(&RematchOffered {
            game: live.id,
            players: field.players.clone(),
            others: field.others.clone(),
        });
        live.set_field(FIELD, field);
    }

    /// A rematch of the locked finished game `live` was offered already (`offered`, its table's row): the
    /// offerer is answered it again; the other player accepts it.
    async fn answer_offer(
        &self,
        live: &mut LiveGame,
        offered: StoredGame,
        user: &User,
    ) -> Result<GameState, Error> {
        if let Some(rematch) = Rematch::of(&live.seats, offered.id, &offered.seats) {
            self.show(live, &rematch);
        }
        let table = self.games.get(offered.id).await?;
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
                self.games
                    .join(offered.id, user, offered.seats.invite.as_deref())
                    .await
            }
        }
    }

    /// Another node showed a rematch: the watchers of its game here hear of it. In a task of its own, as
    /// the game's lock may be held by a request waiting on the relay.
    fn offered_elsewhere(&self, m: RematchOffered) {
        let Some(entry) = self.games.held(m.game) else {
            return;
        };
        tokio::spawn(async move {
            entry.lock().await.set_field(
                FIELD,
                StateField {
                    players: m.players,
                    others: m.others,
                },
            );
        });
    }
}

impl ReadBack for Rematches {
    /// The rematch of a finished game just read from the store, if one was offered.
    fn read_back<'a>(
        &'a self,
        game: i64,
        seats: &'a Seats,
    ) -> Pin<Box<dyn Future<Output = Result<NamedFields, Error>> + Send + 'a>> {
        Box::pin(async move {
            let offered = self.store.rematch_of(game).await?;
            Ok(offered
                .and_then(|table| Rematch::of(seats, table.id, &table.seats))
                .map(|rematch| (FIELD, rematch.field()))
                .into_iter()
                .collect())
        })
    }
}
