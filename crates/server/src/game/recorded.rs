//! An action as a game's record holds it: one the rules log, a claim, or a step of taking back a move. Its
//! text form is the store's: written by [`Recorded::text`] when an action is committed and read by
//! [`Recorded::read`] when a stored one is applied (a replay, a catch-up), nowhere else.
//!
//! The forms: the rules crate's text of an action (`D4`, `pass`, `resign`, `mark C3 C4`, `accept`, `dispute`,
//! `timeout`), `claim` (stored with the claimer's colour), and the undo steps (`undo`, `undo-accept`,
//! `undo-decline`). The server's first proposal is a `mark` stored with the colour `server`, applied for the
//! player of the action before it.

use tesuji_rules::{Action, Color, Size};

/// A player asks to take back their last turn.
pub const ASK: &str = "undo";
/// The opponent accepts: the turn is taken back.
pub const ACCEPT: &str = "undo-accept";
/// The opponent declines.
pub const DECLINE: &str = "undo-decline";

/// A step of taking back a move (see `super::undo`), as the record holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UndoStep {
    Ask,
    Accept,
    Decline,
}

impl UndoStep {
    /// The step a stored text is, if it is one.
    pub fn of(text: &str) -> Option<UndoStep> {
        match text {
            ASK => Some(UndoStep::Ask),
            ACCEPT => Some(UndoStep::Accept),
            DECLINE => Some(UndoStep::Decline),
            _ => None,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            UndoStep::Ask => ASK,
            UndoStep::Accept => ACCEPT,
            UndoStep::Decline => DECLINE,
        }
    }
}

/// An action of a game's record, typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// An action of the rules' log (a turn, a resignation, a loss on time, a mark...).
    Rules(Action),
    /// `Color` claimed the game against an absent opponent. The rules log the opponent's forfeit; the record
    /// keeps who asked.
    Claim(Color),
    /// A step of taking back a move, which the rules do not log.
    Undo(UndoStep),
}

impl Recorded {
    /// Reads a stored action of `color` on a board of `size` from its text.
    pub fn read(color: Color, text: &str, size: Size) -> Result<Recorded, String> {
        if let Some(step) = UndoStep::of(text) {
            return Ok(Recorded::Undo(step));
        }
        if text.trim().eq_ignore_ascii_case("claim") {
            return Ok(Recorded::Claim(color));
        }
        Action::parse(color, text, size)
            .map(Recorded::Rules)
            .map_err(|e| e.to_string())
    }

    /// Its text as stored on a board of `size`.
    pub fn text(&self, size: Size) -> String {
        match self {
            Recorded::Rules(action) => action.text(size),
            Recorded::Claim(_) => "claim".to_owned(),
            Recorded::Undo(step) => step.text().to_owned(),
        }
    }

    /// The action the rules log for it, if they log one.
    pub fn logged(&self) -> Option<Action> {
        match self {
            Recorded::Rules(action) => Some(action.clone()),
            Recorded::Claim(color) => Some(Action::Forfeit(color.opponent())),
            Recorded::Undo(_) => None,
        }
    }

    /// Whether it is a turn (a play or a pass): what ends its player's time on the clock.
    pub fn is_turn(&self) -> bool {
        matches!(self, Recorded::Rules(Action::Turn(..)))
    }

    /// The type of the event its watchers get (docs/API.md).
    pub fn kind(&self) -> &'static str {
        match self {
            Recorded::Rules(Action::Turn(..)) => "move",
            Recorded::Rules(Action::Resign(_) | Action::ResignBoth) => "resign",
            Recorded::Rules(Action::Mark(..)) => "mark",
            Recorded::Rules(Action::Accept(_)) => "accept",
            Recorded::Rules(Action::Dispute(_)) => "dispute",
            Recorded::Rules(Action::Timeout(_)) => "timeout",
            Recorded::Rules(Action::Forfeit(_)) | Recorded::Claim(_) => "claim",
            Recorded::Undo(UndoStep::Ask) => "undo",
            Recorded::Undo(UndoStep::Accept) => "undo_accept",
            Recorded::Undo(UndoStep::Decline) => "undo_decline",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Move, Point};

    fn every_kind(size: Size) -> Vec<Recorded> {
        let p = Point::from_gtp("C3", size).unwrap();
        let q = Point::from_gtp("D4", size).unwrap();
        vec![
            Recorded::Rules(Action::Turn(Color::Black, Move::Play(p))),
            Recorded::Rules(Action::Turn(Color::White, Move::Pass)),
            Recorded::Rules(Action::Resign(Color::White)),
            Recorded::Rules(Action::ResignBoth),
            Recorded::Rules(Action::Timeout(Color::Black)),
            Recorded::Rules(Action::Forfeit(Color::Black)),
            Recorded::Rules(Action::Mark(Color::White, vec![p, q])),
            Recorded::Rules(Action::Mark(Color::White, vec![])),
            Recorded::Rules(Action::Accept(Color::Black)),
            Recorded::Rules(Action::Dispute(Color::White)),
            Recorded::Claim(Color::White),
            Recorded::Undo(UndoStep::Ask),
            Recorded::Undo(UndoStep::Accept),
            Recorded::Undo(UndoStep::Decline),
        ]
    }

    /// Each action reads back from its text as the same action (with the colour that acted), on every size.
    #[test]
    fn an_action_reads_back_from_its_stored_text() {
        for size in [Size::square(9), Size::square(19), Size::new(7, 5)] {
            let size = size.unwrap();
            for action in every_kind(size) {
                let color = match &action {
                    Recorded::Rules(a) => a.color().unwrap_or(Color::Black),
                    Recorded::Claim(c) => *c,
                    Recorded::Undo(_) => Color::Black,
                };
                let text = action.text(size);
                assert_eq!(
                    Recorded::read(color, &text, size),
                    Ok(action.clone()),
                    "{text}"
                );
            }
        }
        assert!(Recorded::read(Color::Black, "jump", Size::square(9).unwrap()).is_err());
        assert!(Recorded::read(Color::Black, "Z99", Size::square(9).unwrap()).is_err());
    }

    /// A claim is logged as the opponent's forfeit and named like one; only turns end a turn.
    #[test]
    fn a_claim_is_the_opponents_forfeit_and_only_turns_are_turns() {
        let size = Size::square(9).unwrap();
        assert_eq!(
            Recorded::Claim(Color::White).logged(),
            Some(Action::Forfeit(Color::Black))
        );
        assert_eq!(
            Recorded::Claim(Color::White).kind(),
            Recorded::Rules(Action::Forfeit(Color::Black)).kind()
        );
        assert_eq!(Recorded::Undo(UndoStep::Ask).logged(), None);
        let turns: Vec<bool> = every_kind(size).iter().map(Recorded::is_turn).collect();
        assert_eq!(turns.iter().filter(|&&t| t).count(), 2);
        assert!(turns[0] && turns[1]);
    }
}
