//! The computer at the table: its turns, its answer to a proposal, and the estimate at the end of play (what
//! it decides is `super::bots`'s).

use std::sync::Arc;

use tesuji_rules::{Color, Phase};

use crate::error::Error;

use super::bots::{BotDispute, agrees, bot_choice, disagreement, estimate_position};
use super::live::LiveGame;
use super::registry::Games;
use super::request::{Actor, Request, Sent};

impl LiveGame {
    /// The computer's reasons for the dispute that is the game's last action, if it is one.
    pub(super) fn bot_dispute_view(&self) -> Option<super::view::DisputeView> {
        let reasons = self.bot_dispute.as_ref()?;
        let color = self.seat_of(Actor::Bot)?;
        let log = self.game.log();
        let last_is_it = log.len() == reasons.log_len
            && matches!(log.last(), Some(tesuji_rules::Action::Dispute(c)) if *c == color);
        last_is_it.then(|| {
            let size = self.game.rules().size;
            super::view::DisputeView {
                alive: super::view::point_names(&reasons.alive, size),
                dead: super::view::point_names(&reasons.dead, size),
            }
        })
    }

    /// Whether the computer should act now, and how.
    pub(super) fn bot_turn(&self) -> Option<Color> {
        let color = self.seat_of(Actor::Bot)?;
        match self.game.phase() {
            Phase::Playing if self.game.to_move() == color => Some(color),
            // The computer answers a proposal its opponent has accepted: it accepts or disputes (`agrees`).
            Phase::Marking
                if self.game.acceptances()[color.opponent().index()]
                    && !self.game.acceptances()[color.index()] =>
            {
                Some(color)
            }
            _ => None,
        }
    }
}

impl Games {
    /// Lets the computer act in game `id` if it is its turn; runs in the background.
    pub fn wake_bot(self: &Arc<Self>, id: i64) {
        let games = Arc::clone(self);
        tokio::spawn(async move {
            // Several actions in a row (a move, then an accept) are each a turn of their own.
            for _ in 0..4 {
                // Another node runs the timers (and the computer) now.
                if !games.lease.held() {
                    return;
                }
                let Some(entry) = games.live_entry(id) else {
                    return;
                };
                let (color, game, version, kind, budget, estimated_dead) = {
                    let live = entry.lock().await;
                    if !live.started() {
                        return;
                    }
                    let kind = live
                        .seats
                        .bot
                        .as_ref()
                        .map_or_else(String::new, |(k, _)| k.clone());
                    match live.bot_turn() {
                        Some(c) => {
                            let budget = live.clock.as_ref().and_then(|clock| {
                                let empty = live.game.board().empty_points().len();
                                tesuji_bot::time::budget(clock.control(), &clock.left(c), empty)
                            });
                            let dead = live.marking.as_ref().map(|m| m.dead.clone());
                            (c, live.game.clone(), live.version, kind, budget, dead)
                        }
                        None => return,
                    }
                };
                let request = if game.phase() == Phase::Marking {
                    let dead = match estimated_dead {
                        Some(dead) => dead,
                        // The estimate of the phase failed when play ended: make it again.
                        None => {
                            let game = game.clone();
                            match tokio::task::spawn_blocking(move || {
                                estimate_position(id, &game).dead()
                            })
                            .await
                            {
                                Ok(dead) => dead,
                                Err(_) => return,
                            }
                        }
                    };
                    if agrees(&game, color, &dead) {
                        Request::Accept
                    } else {
                        let (alive, dead) = disagreement(&game, color, &dead);
                        // Its reasons go with the dispute, shown until the next action (see `DisputeView`).
                        let mut live = entry.lock().await;
                        live.bot_dispute = Some(BotDispute {
                            log_len: live.game.log().len() + 1,
                            alive,
                            dead,
                        });
                        Request::Dispute
                    }
                } else {
                    let seed = u64::try_from(id).unwrap_or(0) ^ version.rotate_left(32);
                    match tokio::task::spawn_blocking(move || {
                        bot_choice(&kind, &game, seed, budget)
                    })
                    .await
                    {
                        Ok(request) => request,
                        Err(_) => return,
                    }
                };
                // The version pins the position the move was chosen for; a stale one means someone else acted.
                match games
                    .act_now(id, Actor::Bot, Sent::by_server(request, Some(version)))
                    .await
                {
                    Ok(_) => {}
                    // Someone else acted (here, or on another node: this copy has caught up): the timers
                    // start again from the new position.
                    Err(Error::StaleVersion { .. }) => {
                        games.wake(id);
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(game = id, error = %e, ?color, "the computer could not act");
                        return;
                    }
                }
            }
        });
    }
}
