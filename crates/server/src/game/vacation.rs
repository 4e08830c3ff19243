//! Vacations in the core: a player away (see `crate::vacations`) stops their own clock in correspondence games.
//! Vacations are stored as wall-time stretches. Each live game's clock holds its players' stretches (see
//! [`crate::clocks::GameClock::set_away`]) and charges a turn only the time outside them; the turn's time is
//! stored with the move, so replays agree without the vacations. A change is told to the other nodes, which
//! read the user's stretches again; the node that runs the timers reads them once more before it records a
//! loss on time, so that a notice lost on the way never loses a game.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::clocks::vacation_stops;
use crate::error::Error;
use crate::relay::Relayed;

use super::live::LiveGame;
use super::registry::Games;

/// User `user` went on vacation or came back, on the node that tells.
#[derive(Serialize, Deserialize)]
struct VacationChanged {
    user: i64,
}

impl Relayed for VacationChanged {
    const KIND: &'static str = "vacation";
}

impl Games {
    /// User `user`'s vacations changed here: the clocks of their live games take them, and the other nodes
    /// are told.
    pub async fn vacations_changed(self: &Arc<Self>, user: i64) {
        self.vacation_changed(user).await;
        self.relay.send(&VacationChanged { user });
    }

    /// Reads the vacations changed on the other nodes.
    pub(super) fn hear_vacations(self: &Arc<Self>) {
        self.relay
            .on(self, |games, _, m: VacationChanged| async move {
                games.vacation_changed(m.user).await
            });
    }

    /// User `user`'s vacations changed (here, or on another node): the clocks of their live correspondence
    /// games take them, the watchers see the new clocks, and the timers start again from them. Their games are
    /// found from the listings: no other game is locked.
    async fn vacation_changed(self: &Arc<Self>, user: i64) {
        let theirs = self.summaries(|s| s.seat_of(user).is_some(), usize::MAX);
        for entry in theirs.iter().filter_map(|s| self.live_entry(s.id)) {
            let mut live = entry.lock().await;
            if !live
                .clock
                .as_ref()
                .is_some_and(|c| vacation_stops(c.control()))
            {
                continue;
            }
            if let Err(e) = self.fit_vacations(&mut live).await {
                tracing::warn!(game = live.id, error = %e, "reading the vacations failed");
                continue;
            }
            let state = live.state();
            live.broadcast_presence(&state);
            let id = live.id;
            drop(live);
            self.wake(id);
        }
    }

    /// [`LiveGame::fit_vacations`] with this node's store.
    pub(super) async fn fit_vacations(&self, live: &mut LiveGame) -> Result<(), Error> {
        Ok(live.fit_vacations(&*self.stores.vacations).await?)
    }

    /// [`Games::fit_vacations`] where what went before is already stored: a failure leaves the clock without
    /// the vacations until their next change (the timer reads them again before a loss on time).
    pub(super) async fn fit_vacations_or_warn(&self, live: &mut LiveGame) {
        if let Err(e) = self.fit_vacations(live).await {
            tracing::warn!(game = live.id, error = %e, "reading the players' vacations failed");
        }
    }
}
