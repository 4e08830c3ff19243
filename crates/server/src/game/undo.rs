//! Taking back a move: a player asks to take back their last turn, the opponent accepts or declines. Each of the
//! three is a stored action of its own (`undo`, `undo-accept`, `undo-decline`), so that every node, a restart
//! and a replay see the same request; an accepted one takes the turn back through the rules crate
//! (`Game::undo`, which rebuilds the position and the superko history by replaying the rest), so a ko retaken
//! afterwards is judged as if the turn had never been played. The record (SGF, replay) leaves the turn out;
//! the action list keeps all three, so the list's actions are no longer one per action of the rules' log: the
//! game keeps the stored number of each action of the log (`LiveGame::log_numbers`). One request waits at a
//! time, and a declined one is not asked again for [`PAUSE_MS`] (a newer move of the requester's may be asked
//! about at once), so that asking and declining in a loop cannot fill a game's record. The pause is judged
//! when a player asks, never when stored actions are replayed, so older records still replay.

use tesuji_rules::{Action, Color, Phase};

use crate::error::Error;

use super::live::LiveGame;
use super::recorded::{Recorded, UndoStep};

/// How long after a decline its requester may not ask again to take back the same move.
pub const PAUSE_MS: u64 = 30_000;

impl LiveGame {
    /// Whether `color` may take `step` now; why not otherwise.
    pub(super) fn check_undo(&self, color: Color, step: UndoStep) -> Result<(), Error> {
        match step {
            UndoStep::Ask => {
                if !self.seats.undo {
                    return Err(Error::NoUndo("this table does not allow taking back moves"));
                }
                if self.game.phase() != Phase::Playing {
                    return Err(Error::NoUndo(
                        "only a move of the game in play can be taken back",
                    ));
                }
                if self.undo_asked.is_some() {
                    return Err(Error::NoUndo(
                        "a request to take back a move is waiting for its answer",
                    ));
                }
                if !matches!(self.game.log().last(), Some(Action::Turn(c, _)) if *c == color) {
                    return Err(Error::NoUndo(
                        "only your own last move can be taken back, before your opponent's next one",
                    ));
                }
                Ok(())
            }
            UndoStep::Accept | UndoStep::Decline => {
                if self.undo_asked == Some(color.opponent()) {
                    Ok(())
                } else {
                    Err(Error::NoUndo(
                        "your opponent has not asked to take back a move",
                    ))
                }
            }
        }
    }

    /// How long until the player whose request was just declined may ask again (the pause after a refusal):
    /// `Some` only while the decline is the game's last action and the pause runs (wall time, the time stored
    /// with the decline: the same on every node).
    pub fn undo_again_in_ms(&self) -> Option<u64> {
        let declined = self.undo_declined_at?;
        let left = declined
            .saturating_add(PAUSE_MS)
            .saturating_sub(self.presence.time.wall_ms());
        (left > 0).then_some(left)
    }

    /// A player's new request to take back a move: refused during the pause after their last one was declined.
    pub(super) fn check_undo_pause(&self, color: Color) -> Result<(), Error> {
        match self.undo_again_in_ms() {
            Some(left) if self.undo_asked.is_none() && self.undo_declined == Some(color) => {
                Err(Error::UndoPaused { again_in_ms: left })
            }
            _ => Ok(()),
        }
    }

    /// The stored number of the action at `position` of the rules' log (1 for its first, 0 for the start).
    pub fn stored_number(&self, position: i64) -> i64 {
        usize::try_from(position)
            .ok()
            .and_then(|p| p.checked_sub(1))
            .and_then(|p| self.log_numbers.get(p).copied())
            .unwrap_or(position)
    }

    /// Keeps the request, the pause after a refusal and the log's numbering up with stored action `number` of
    /// `color`, just applied, stored at wall time `at_ms` (the turn an `undo-accept` takes back is already gone
    /// from the game).
    pub(super) fn note_undo(
        &mut self,
        color: Color,
        number: i64,
        action: &Recorded,
        at_ms: Option<i64>,
    ) {
        let step = match action {
            Recorded::Undo(step) => Some(*step),
            _ => None,
        };
        // A decline starts the pause of the player it refused; any other action ends it.
        (self.undo_declined, self.undo_declined_at) = match step {
            Some(UndoStep::Decline) => (
                Some(color.opponent()),
                Some(at_ms.map_or_else(
                    || self.presence.time.wall_ms(),
                    |at| u64::try_from(at).unwrap_or(0),
                )),
            ),
            _ => (None, None),
        };
        match step {
            Some(UndoStep::Ask) => self.undo_asked = Some(color),
            Some(UndoStep::Decline) => self.undo_asked = None,
            Some(UndoStep::Accept) => {
                self.undo_asked = None;
                self.log_numbers.pop();
                // The turn taken back had its time left recorded (a timed game).
                if self.clock.is_some() {
                    self.times.pop();
                }
            }
            // Any other action (the opponent's move, a resignation) leaves a request unanswered for good.
            None => {
                self.undo_asked = None;
                self.log_numbers.push(number);
            }
        }
    }
}
