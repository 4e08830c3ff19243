//! The text form of an action, as a game's record stores it beside the acting colour: `D4`, `pass`, `resign`,
//! `timeout`, `forfeit`, `mark C3 C4` (the whole proposal; `mark` alone proposes no dead stone), `accept`,
//! `dispute`, `resign both`. A point is a GTP vertex, which needs the board's size to be read (its row counts
//! from the bottom), so the forms are [`Action::text`] and [`Action::parse`] with a size rather than `Display`
//! and `FromStr`.

use crate::game::Action;
use crate::types::{Color, Move, Point, Size};

/// Why a text is no action.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionTextError {
    #[error(
        "{0:?} is no action: expected a point such as D4, pass, resign, timeout, forfeit, claim, mark, accept or dispute"
    )]
    Unknown(String),
    #[error("{point:?} in {text:?} is no point of the {} board", size.dimensions())]
    BadPoint {
        text: String,
        point: String,
        size: Size,
    },
}

impl Action {
    /// The colour that acts (`None` for both players resigning at once).
    pub fn color(&self) -> Option<Color> {
        match self {
            Action::Turn(c, _)
            | Action::Resign(c)
            | Action::Timeout(c)
            | Action::Forfeit(c)
            | Action::Mark(c, _)
            | Action::Accept(c)
            | Action::Dispute(c) => Some(*c),
            Action::ResignBoth => None,
        }
    }

    /// The action's text on a board of `size`, without its colour (see the module's forms).
    pub fn text(&self, size: Size) -> String {
        match self {
            Action::Turn(_, mv) => mv.to_gtp(size),
            Action::Resign(_) => "resign".to_owned(),
            Action::ResignBoth => "resign both".to_owned(),
            Action::Timeout(_) => "timeout".to_owned(),
            Action::Forfeit(_) => "forfeit".to_owned(),
            Action::Mark(_, points) => {
                let mut text = "mark".to_owned();
                for p in points {
                    text.push(' ');
                    text.push_str(&p.to_gtp(size));
                }
                text
            }
            Action::Accept(_) => "accept".to_owned(),
            Action::Dispute(_) => "dispute".to_owned(),
        }
    }

    /// Reads an action of `color` from its text on a board of `size` (words in any case, spaces around
    /// ignored). `claim` is `color` claiming the game against an absent opponent: the opponent forfeits.
    pub fn parse(color: Color, text: &str, size: Size) -> Result<Action, ActionTextError> {
        let t = text.trim();
        let word = |w: &str| t.eq_ignore_ascii_case(w);
        if word("pass") {
            return Ok(Action::Turn(color, Move::Pass));
        }
        if word("resign") {
            return Ok(Action::Resign(color));
        }
        if word("timeout") {
            return Ok(Action::Timeout(color));
        }
        if word("forfeit") {
            return Ok(Action::Forfeit(color));
        }
        if word("claim") {
            return Ok(Action::Forfeit(color.opponent()));
        }
        if word("accept") {
            return Ok(Action::Accept(color));
        }
        if word("dispute") {
            return Ok(Action::Dispute(color));
        }
        let mut words = t.split_whitespace();
        let first = words.next().unwrap_or_default();
        if first.eq_ignore_ascii_case("resign")
            && words.next().is_some_and(|w| w.eq_ignore_ascii_case("both"))
            && words.next().is_none()
        {
            return Ok(Action::ResignBoth);
        }
        if first.eq_ignore_ascii_case("mark") {
            let points = t
                .split_whitespace()
                .skip(1)
                .map(|w| {
                    Point::from_gtp(w, size).ok_or_else(|| ActionTextError::BadPoint {
                        text: t.to_owned(),
                        point: w.to_owned(),
                        size,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Action::Mark(color, points));
        }
        match Point::from_gtp(t, size) {
            Some(p) if !t.contains(char::is_whitespace) => Ok(Action::Turn(color, Move::Play(p))),
            _ => Err(ActionTextError::Unknown(t.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every action's text reads back as the same action, on boards of every shape.
    #[test]
    fn every_action_reads_back_from_its_text() {
        let sizes = [(1, 1), (9, 9), (19, 19), (25, 25), (3, 7), (25, 2)];
        for (w, h) in sizes {
            let size = Size::new(w, h).unwrap();
            let points: Vec<Point> = size.points().collect();
            let pick = |k: usize| points[(k * 7919) % points.len()];
            for color in [Color::Black, Color::White] {
                let mut actions = vec![
                    Action::Turn(color, Move::Pass),
                    Action::Resign(color),
                    Action::Timeout(color),
                    Action::Forfeit(color),
                    Action::Mark(color, Vec::new()),
                    Action::Accept(color),
                    Action::Dispute(color),
                    Action::Mark(color, vec![pick(1), pick(2), pick(3)]),
                ];
                actions.extend(points.iter().map(|&p| Action::Turn(color, Move::Play(p))));
                for action in actions {
                    let text = action.text(size);
                    assert_eq!(
                        Action::parse(color, &text, size),
                        Ok(action.clone()),
                        "{text}"
                    );
                    assert_eq!(
                        Action::parse(color, &format!("  {}  ", text.to_lowercase()), size),
                        Ok(action),
                        "{text} in lower case with spaces"
                    );
                }
            }
            assert_eq!(
                Action::parse(Color::Black, "resign both", size),
                Ok(Action::ResignBoth)
            );
        }
    }

    #[test]
    fn a_claim_is_the_opponents_forfeit_and_bad_texts_are_refused() {
        let size = Size::square(9).unwrap();
        assert_eq!(
            Action::parse(Color::Black, "claim", size),
            Ok(Action::Forfeit(Color::White))
        );
        for bad in [
            "",
            "D",
            "D0",
            "D10",
            "I5",
            "Z1",
            "D4 E5",
            "mark Z9",
            "mark D4 D10",
            "resign now",
            "passes",
        ] {
            assert!(Action::parse(Color::Black, bad, size).is_err(), "{bad:?}");
        }
        assert_eq!(
            Action::parse(Color::White, "mark D4 D10", size),
            Err(ActionTextError::BadPoint {
                text: "mark D4 D10".into(),
                point: "D10".into(),
                size
            })
        );
    }
}
