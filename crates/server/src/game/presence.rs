//! Who is at the board: sockets and looks per seat, for the grace period and the claim (and, in an untimed game,
//! the long absence after which the claim opens).

use std::collections::HashMap;
use std::sync::Arc;

use tesuji_rules::{ByColor, Color, Illegal, Phase};

use crate::clocks::{TimeSource, has_grace};
use crate::error::ApiError;

use super::action::Actor;
use super::live::LiveGame;
use super::view::{AbsentView, GameState, Player, PresenceEvent};

/// How long a player may be away before the opponent may claim the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absences {
    /// In a game under a clock played at one sitting: the grace period.
    pub grace_ms: u64,
    /// In an untimed game, while the game waits for the absent player.
    pub untimed_ms: u64,
}

/// Who is at the board, for the grace period. Never stored: after a restart nobody is connected, and everyone's
/// grace period runs from the restart.
pub(super) struct Presence {
    pub(super) time: TimeSource,
    pub(super) absences: Absences,
    /// Open game sockets per signed-in user.
    pub(super) sockets: HashMap<i64, u32>,
    /// When each seat's player was last known at the board (an action, a look at the game, their last socket
    /// closing, the game's start, the server's start), on `time`'s scale.
    pub(super) seen_ms: ByColor<u64>,
    /// When the last action was taken (or the game started, or the server): in an untimed game a player's
    /// absence counts from when the game began waiting for them, which only an action changes.
    pub(super) acted_ms: u64,
    /// Per seat: the `seen_ms` whose grace period's end was announced (see [`Games::watch_grace`]).
    pub(super) announced: ByColor<Option<u64>>,
    /// Per seat: the `seen_ms` the watchers last heard of from a look (see [`LiveGame::polled`]).
    pub(super) told_ms: ByColor<u64>,
    /// Whether a [`Games::watch_grace`] task runs for this game.
    pub(super) watching: bool,
}

impl LiveGame {
    /// How long an absent player's opponent waits before a claim, when claims apply now: both seats filled, not
    /// over, and either a clock played at one sitting (see [`has_grace`]: the grace period) or no clock (the
    /// untimed absence). A correspondence-scale clock has none: its own time settles a player who stays away.
    pub(super) fn claim_after_ms(&self) -> Option<u64> {
        if !self.started() || self.game.phase() == Phase::Over {
            return None;
        }
        match &self.clock {
            Some(clock) => has_grace(clock.control()).then_some(self.presence.absences.grace_ms),
            None => Some(self.presence.absences.untimed_ms),
        }
    }

    /// Whether the grace period and the claim apply now (see [`LiveGame::claim_after_ms`]).
    pub(super) fn has_grace(&self) -> bool {
        self.claim_after_ms().is_some()
    }

    /// Whether an absence of `color`'s player can lead to a claim: under a clock always (the grace period is
    /// about leaving a sitting); in an untimed game only while the game waits for them, their turn in play or
    /// their acceptance in the marking phase (a player whose opponent is to move holds nobody up).
    pub(super) fn awaited(&self, color: Color) -> bool {
        if self.clock.is_some() {
            return true;
        }
        match self.game.phase() {
            Phase::Playing => self.game.to_move() == color,
            Phase::Marking => !self.game.acceptances()[color.index()],
            Phase::Over => false,
        }
    }

    /// Since when `color`'s player counts as away (when they are): their last sign of presence, and in an
    /// untimed game not before the game began waiting for them.
    fn away_since(&self, color: Color) -> u64 {
        let seen = self.presence.seen_ms[color];
        if self.clock.is_some() {
            seen
        } else {
            seen.max(self.presence.acted_ms)
        }
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
        let Some(after_ms) = self.claim_after_ms() else {
            return Vec::new();
        };
        let now = self.presence.time.now_ms();
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c) && self.awaited(c))
            .map(|c| {
                let since = self.away_since(c);
                AbsentView {
                    color: c.name(),
                    absent_ms: now.saturating_sub(since),
                    claim_in_ms: since.saturating_add(after_ms).saturating_sub(now),
                }
            })
            .collect()
    }

    /// The next end of a grace period not yet announced: its time, the absent seat, and when that player was
    /// last seen. `None` when no grace period runs.
    pub(super) fn next_grace_end(&self) -> Option<(u64, Color, u64)> {
        let after_ms = self.claim_after_ms()?;
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c) && self.awaited(c))
            .map(|c| (c, self.away_since(c)))
            .filter(|&(c, since)| self.presence.announced[c] != Some(since))
            .map(|(c, since)| (since.saturating_add(after_ms), c, since))
            .min_by_key(|&(end, _, _)| end)
    }

    /// `color`'s player is known to be at the board now.
    pub(super) fn seen(&mut self, color: Color) {
        self.presence.seen_ms[color] = self.presence.time.now_ms();
    }

    /// An action was taken now (by anyone: who the game waits for may have changed).
    pub(super) fn acted(&mut self) {
        self.presence.acted_ms = self.presence.time.now_ms();
    }

    /// Whether `color` may claim the game now; the refusal says why not.
    pub(super) fn check_claim(&self, color: Color) -> Result<(), ApiError> {
        if self.game.phase() == Phase::Over {
            return Err(Illegal::GameOver.into());
        }
        let Some(after_ms) = self.claim_after_ms() else {
            return Err(ApiError::NoClaim);
        };
        let opponent = color.opponent();
        if !self.away(opponent) {
            return Err(ApiError::OpponentPresent);
        }
        if self.game.log().is_empty() {
            return Err(ApiError::NoMoves);
        }
        if !self.awaited(opponent) {
            return Err(ApiError::NotAwaited);
        }
        let left = self
            .away_since(opponent)
            .saturating_add(after_ms)
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
        // Only a player whose absence is listed changes the state (see [`LiveGame::awaited`]).
        if (before == 0) != (after == 0) && self.has_grace() && self.awaited(color) {
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
        let Some(after_ms) = self.claim_after_ms() else {
            self.seen(color);
            return false;
        };
        let claim_was_open = self.check_claim(color.opponent()).is_ok();
        self.seen(color);
        let now = self.presence.seen_ms[color];
        let stale = now.saturating_sub(self.presence.told_ms[color]) >= after_ms / 4;
        if self.away(color) && self.awaited(color) && (claim_was_open || stale) {
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
