//! Who is at the board: sockets and looks per seat, for the grace period and the claim.

use std::collections::HashMap;
use std::sync::Arc;

use tesuji_rules::{ByColor, Color, Illegal, Phase};

use crate::clocks::{TimeSource, has_grace};
use crate::error::ApiError;

use super::action::Actor;
use super::live::LiveGame;
use super::view::{AbsentView, GameState, Player, PresenceEvent};

/// Who is at the board, for the grace period. Never stored: after a restart nobody is connected, and everyone's
/// grace period runs from the restart.
pub(super) struct Presence {
    pub(super) time: TimeSource,
    pub(super) grace_ms: u64,
    /// Open game sockets per signed-in user.
    pub(super) sockets: HashMap<i64, u32>,
    /// When each seat's player was last known at the board (an action, a look at the game, their last socket
    /// closing, the game's start, the server's start), on `time`'s scale.
    pub(super) seen_ms: ByColor<u64>,
    /// Per seat: the `seen_ms` whose grace period's end was announced (see [`Games::watch_grace`]).
    pub(super) announced: ByColor<Option<u64>>,
    /// Per seat: the `seen_ms` the watchers last heard of from a look (see [`LiveGame::polled`]).
    pub(super) told_ms: ByColor<u64>,
    /// Whether a [`Games::watch_grace`] task runs for this game.
    pub(super) watching: bool,
}

impl LiveGame {
    /// Whether the grace period and the claim apply now: both seats filled, not over, under a clock played at
    /// one sitting (see [`has_grace`]).
    pub(super) fn has_grace(&self) -> bool {
        self.started()
            && self.game.phase() != Phase::Over
            && self.clock.as_ref().is_some_and(|c| has_grace(c.control()))
    }

    /// `color`'s player is away: a user with no socket open to the game. The computer is always present.
    pub(super) fn away(&self, color: Color) -> bool {
        match &self.players[color] {
            Some(Player::User(u)) => self.presence.sockets.get(&u.id).is_none_or(|&n| n == 0),
            _ => false,
        }
    }

    /// The players away from the board, with the time until their opponent may claim.
    pub(super) fn absent(&self) -> Vec<AbsentView> {
        if !self.has_grace() {
            return Vec::new();
        }
        let now = self.presence.time.now_ms();
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c))
            .map(|c| {
                let seen = self.presence.seen_ms[c];
                AbsentView {
                    color: c.name(),
                    absent_ms: now.saturating_sub(seen),
                    claim_in_ms: seen
                        .saturating_add(self.presence.grace_ms)
                        .saturating_sub(now),
                }
            })
            .collect()
    }

    /// The next end of a grace period not yet announced: its time, the absent seat, and when that player was
    /// last seen. `None` when no grace period runs.
    pub(super) fn next_grace_end(&self) -> Option<(u64, Color, u64)> {
        if !self.has_grace() {
            return None;
        }
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c))
            .map(|c| (c, self.presence.seen_ms[c]))
            .filter(|&(c, seen)| self.presence.announced[c] != Some(seen))
            .map(|(c, seen)| (seen.saturating_add(self.presence.grace_ms), c, seen))
            .min_by_key(|&(end, _, _)| end)
    }

    /// `color`'s player is known to be at the board now.
    pub(super) fn seen(&mut self, color: Color) {
        self.presence.seen_ms[color] = self.presence.time.now_ms();
    }

    /// Whether `color` may claim the game now; the refusal says why not.
    pub(super) fn check_claim(&self, color: Color) -> Result<(), ApiError> {
        if self.game.phase() == Phase::Over {
            return Err(Illegal::GameOver.into());
        }
        if !self.has_grace() {
            return Err(ApiError::NoClaim);
        }
        let opponent = color.opponent();
        if !self.away(opponent) {
            return Err(ApiError::OpponentPresent);
        }
        if self.game.log().is_empty() {
            return Err(ApiError::NoMoves);
        }
        let left = self.presence.seen_ms[opponent]
            .saturating_add(self.presence.grace_ms)
            .saturating_sub(self.presence.time.now_ms());
        if left > 0 {
            return Err(ApiError::GraceNotOver { claim_in_ms: left });
        }
        Ok(())
    }

    /// A game socket of `user` opened (`open`) or closed; the opponent hears of a seated player coming or going.
    pub fn socket(&mut self, user: i64, open: bool) {
        let count = self.presence.sockets.entry(user).or_insert(0);
        let before = *count;
        if open {
            *count += 1;
        } else {
            *count = count.saturating_sub(1);
        }
        let after = *count;
        if after == 0 {
            self.presence.sockets.remove(&user);
        }
        let Some(color) = self.seat_of(Actor::User(user)) else {
            return;
        };
        if !open {
            self.seen(color);
        }
        if (before == 0) != (after == 0) && self.has_grace() {
            let state = self.state();
            self.broadcast_presence(&state);
        }
    }

    /// User `user` asked for the game's state over HTTP. A seated player who does is at the board as much as one
    /// who acts: a client without a socket stays present by asking at least once per grace period. Watchers
    /// count an absent player's grace period down by themselves, so they hear of a look when it closes an open
    /// claim, and otherwise once a quarter of the grace period (a client that looks often is not an event
    /// each time). Returns whether a grace period applies (then [`Games::watch_grace`] must watch it again).
    pub fn polled(&mut self, user: i64) -> bool {
        let Some(color) = self.seat_of(Actor::User(user)) else {
            return false;
        };
        if !self.has_grace() {
            self.seen(color);
            return false;
        }
        let claim_was_open = self.check_claim(color.opponent()).is_ok();
        self.seen(color);
        let now = self.presence.seen_ms[color];
        let stale = now.saturating_sub(self.presence.told_ms[color]) >= self.presence.grace_ms / 4;
        if self.away(color) && (claim_was_open || stale) {
            self.presence.told_ms[color] = now;
            let state = self.state();
            self.broadcast_presence(&state);
        }
        true
    }

    /// Tells the watchers that who is present changed; the version stays (no action was taken).
    pub(super) fn broadcast_presence(&self, state: &GameState) {
        let event = PresenceEvent {
            kind: "presence",
            version: self.version,
            state: state.without_moves(),
        };
        if let Ok(text) = serde_json::to_string(&event) {
            let _ = self.events.send(Arc::from(text));
        }
    }
}
