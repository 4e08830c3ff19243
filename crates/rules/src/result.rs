//! Scores and results (RULES.md §7): the full breakdown per player, exact in half-points, and the result as
//! SGF's `RE` writes it.

use std::fmt;

use crate::grid::Grid;
use crate::rules::{Rules, ScoringRule, TieRule};
use crate::score;
use crate::types::{Color, Point};

/// One player's side of a count. Points are whole; komi, bonus and total are half-points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PlayerScore {
    /// Stones on the board after dead stones are removed (counted under area scoring).
    pub stones: u32,
    /// Empty points (and, under `area-reach`, removed dead stones) counted for this player, shared points included.
    pub territory: u32,
    /// Points counted for both players (`area-reach` only); already included in `territory`.
    pub shared: u32,
    /// Opponent stones captured during play.
    pub captures: u32,
    /// Opponent stones removed as dead at the end.
    pub dead: u32,
    /// Pass stones received.
    pub pass_stones: u32,
    /// Komi in half-points.
    pub komi: i32,
    /// Handicap bonus in half-points (White only).
    pub handicap_bonus: i32,
    /// Stone scoring only: the player's groups (see [`ScoringRule::Stones`]), each taxed two points.
    pub groups: u32,
    /// The total in half-points.
    pub total: i32,
}

impl PlayerScore {
    /// Prisoners: captures, dead stones and pass stones.
    pub fn prisoners(&self) -> u32 {
        self.captures + self.dead + self.pass_stones
    }
}

/// A full count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    pub scoring: ScoringRule,
    pub black: PlayerScore,
    pub white: PlayerScore,
    /// Empty points counted for nobody.
    pub dame: u32,
}

impl Score {
    /// Black's total minus White's, in half-points.
    pub fn margin(&self) -> i32 {
        self.black.total - self.white.total
    }

    pub fn player(&self, c: Color) -> &PlayerScore {
        match c {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }
}

/// Counts a position: `dead` are the stones removed at the end (whole chains expected), `captures` the stones
/// each colour captured in play, `pass_stones` the pass stones each colour received.
pub fn score_position(
    rules: &Rules,
    grid: &Grid,
    dead: &[Point],
    captures: [u32; 2],
    pass_stones: [u32; 2],
) -> Score {
    let counts = match rules.scoring {
        ScoringRule::Area => score::area(grid, dead),
        ScoringRule::Territory => score::territory(grid, dead, rules.seki_eyes),
        ScoringRule::AreaReach => score::area_reach(grid, dead),
        ScoringRule::Stones => score::stones(grid, dead),
    };
    let bonus = rules.handicap_bonus_half_points();
    let side = |c: Color| {
        let i = c.index();
        let o = c.opponent().index();
        let mut s = PlayerScore {
            stones: counts.stones[i],
            territory: counts.territory[i],
            shared: counts.shared,
            captures: captures[i],
            dead: counts.dead_removed[o],
            pass_stones: pass_stones[i],
            komi: match c {
                Color::Black => rules.komi.black,
                Color::White => rules.komi.white,
            },
            handicap_bonus: if c == Color::White { bonus } else { 0 },
            groups: counts.groups[i],
            total: 0,
        };
        if rules.scoring != ScoringRule::AreaReach {
            s.shared = 0;
        }
        let points = match rules.scoring {
            ScoringRule::Area | ScoringRule::AreaReach => (s.stones + s.territory) as i32,
            ScoringRule::Territory => (s.territory + s.prisoners()) as i32,
            ScoringRule::Stones => (s.stones + s.territory) as i32 - 2 * s.groups as i32,
        };
        s.total = 2 * points + s.komi + s.handicap_bonus;
        s
    };
    Score {
        scoring: rules.scoring,
        black: side(Color::Black),
        white: side(Color::White),
        dame: counts.dame,
    }
}

/// Half-points written as a number: `7.5`, `7`, `-0.5`.
pub fn format_half_points(h: i32) -> String {
    let sign = if h < 0 { "-" } else { "" };
    let a = h.unsigned_abs();
    if a.is_multiple_of(2) {
        format!("{sign}{}", a / 2)
    } else {
        format!("{sign}{}.5", a / 2)
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Counted.
    Score,
    Resignation,
    Time,
    Forfeit,
    /// Ten self-fills in a row (001 rule 7), written as a forfeit.
    SelfFill,
    /// Both players resigned at once: a draw.
    BothResigned,
    /// Two passes before any play (001 rule 7.5): a draw.
    NoPlay,
    /// A state occurred for the third time under `repetition=void`: no result.
    Repetition,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// `None` for a draw or no result.
    pub winner: Option<Color>,
    pub outcome: Outcome,
    /// Black's total minus White's in half-points, for counted games.
    pub margin: i32,
    pub score: Option<Score>,
}

impl GameResult {
    pub(crate) fn new(winner: Option<Color>, outcome: Outcome) -> GameResult {
        GameResult {
            winner,
            outcome,
            margin: 0,
            score: None,
        }
    }

    /// The result of a count: the higher total wins; equal totals go by the tie rule.
    pub fn from_score(score: Score, rules: &Rules, first_pass: Option<Color>) -> GameResult {
        let margin = score.margin();
        let winner = match margin.signum() {
            1 => Some(Color::Black),
            -1 => Some(Color::White),
            _ => match rules.tie {
                TieRule::Draw => None,
                TieRule::White => Some(Color::White),
                TieRule::FirstPass => first_pass,
            },
        };
        GameResult {
            winner,
            outcome: Outcome::Score,
            margin,
            score: Some(score),
        }
    }

    /// Whether the game is drawn (a count with equal totals and no tie-break, or both resigning).
    pub fn is_draw(&self) -> bool {
        self.winner.is_none() && self.outcome != Outcome::Repetition
    }
}

/// SGF's `RE`: `B+3.5`, `W+R`, `B+T`, `W+F`, `0`, `Void`, and `B+0` for a tie won by the tie rule.
impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.outcome == Outcome::Repetition {
            return f.write_str("Void");
        }
        let Some(w) = self.winner else {
            return f.write_str("0");
        };
        write!(f, "{}+", w.letter())?;
        match self.outcome {
            Outcome::Score => f.write_str(&format_half_points(self.margin.abs())),
            Outcome::Resignation => f.write_str("R"),
            Outcome::Time => f.write_str("T"),
            Outcome::Forfeit | Outcome::SelfFill => f.write_str("F"),
            Outcome::BothResigned | Outcome::NoPlay | Outcome::Repetition => f.write_str("0"),
        }
    }
}
