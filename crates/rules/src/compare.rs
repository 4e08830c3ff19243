//! One game counted under every ruleset: the same turns and dead stones replayed under each preset of RULES.md
//! §3 (and Board Game Arena's counting × AGA options), so that a player sees what the rules change.

use crate::game::{Game, Illegal, Phase};
use crate::grid::Grid;
use crate::result::{GameResult, Score};
use crate::rules::{Komi, Rules};
use crate::types::{Color, Move, Point, Size};

/// The specs a game is compared under, in this order.
pub const COMPARED: [&str; 11] = [
    "tromp-taylor",
    "ideal",
    "bga:counting=japanese,aga=on",
    "bga:counting=japanese,aga=off",
    "bga:counting=chinese,aga=on",
    "bga:counting=chinese,aga=off",
    "aga",
    "chinese",
    "japanese",
    "korean",
    "new-zealand",
];

/// A game under one ruleset: its count, or the first turn the ruleset refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counted {
    /// The ruleset (size and komi applied); `None` when the preset does not take this board (bga: 9, 13, 19).
    pub rules: Option<Rules>,
    /// The spec of [`COMPARED`] it comes from.
    pub spec: &'static str,
    pub outcome: Result<Count, Refused>,
}

/// A counted game: the breakdown (none when the rules ended it without a count: a draw of no play, a void) and
/// the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Count {
    pub score: Option<Score>,
    pub result: GameResult,
}

/// Why a ruleset cannot count the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Turn `turn` (1-based, plays and passes) is illegal under the ruleset.
    Illegal { turn: usize, reason: Illegal },
    /// The preset does not take this board.
    Size,
}

/// A game counted under each spec of [`COMPARED`]: its start (handicap stones, and free stones or forced passes
/// still to come), its turns, its handicap, `komi` when given (else each preset's own, as the handicap leaves
/// it) and `dead` removed. A move after the end of play resumes it (a dispute); a move out of turn gets the
/// other colour's pass first.
pub fn count_under_all(game: &Game, komi: Option<Komi>, dead: &[Point]) -> Vec<Counted> {
    let size = game.rules().size;
    let handicap = game.rules().handicap;
    let (free, forced) = game.start_placements();
    let start = Start {
        grid: game.start_grid(),
        to_move: game.start_to_move(),
        free,
        forced,
    };
    let turns = game.turn_list();
    COMPARED
        .iter()
        .map(|&spec| {
            let rules = sized(spec, size, handicap).map(|mut r| {
                if let Some(k) = komi {
                    r.komi = k;
                }
                r
            });
            let outcome = match rules {
                Some(r) => count_under(r, &start, &turns, dead),
                None => Err(Refused::Size),
            };
            Counted {
                rules,
                spec,
                outcome,
            }
        })
        .collect()
}

/// Where a game starts.
pub struct Start {
    pub grid: Grid,
    pub to_move: Color,
    /// Black's free handicap stones still to place.
    pub free: u8,
    /// White's forced passes to come.
    pub forced: u8,
}

/// A spec of [`COMPARED`] at a board size with a handicap (which may change the preset's komi), if the preset
/// takes the board.
fn sized(spec: &str, size: Size, handicap: u8) -> Option<Rules> {
    let text = crate::spec::with_size(spec, size);
    let with_handicap: Option<Rules> = (handicap > 0)
        .then(|| format!("{text},handicap={handicap}").parse().ok())
        .flatten();
    with_handicap.or_else(|| {
        text.parse().ok().map(|mut r: Rules| {
            r.handicap = handicap;
            r
        })
    })
}

/// The game under one ruleset.
pub fn count_under(
    rules: Rules,
    start: &Start,
    turns: &[(Color, Move)],
    dead: &[Point],
) -> Result<Count, Refused> {
    let illegal = |turn: usize, reason: Illegal| Refused::Illegal { turn, reason };
    let mut game =
        Game::from_position_placing(rules, &start.grid, start.to_move, start.free, start.forced)
            .map_err(|_| Refused::Size)?;
    for (k, &(color, mv)) in turns.iter().enumerate() {
        if game.phase() == Phase::Marking {
            game.dispute(color).map_err(|e| illegal(k + 1, e))?;
        }
        if game.phase() == Phase::Playing && game.to_move() != color {
            game.play(game.to_move(), Move::Pass)
                .map_err(|e| illegal(k + 1, e))?;
            if game.phase() == Phase::Marking {
                game.dispute(color).map_err(|e| illegal(k + 1, e))?;
            }
        }
        game.play(color, mv).map_err(|e| illegal(k + 1, e))?;
    }
    if let Some(result) = game.result() {
        // The rules ended the game themselves: every stone alive.
        return Ok(Count {
            score: result.score,
            result: *result,
        });
    }
    if game.phase() == Phase::Marking {
        // Both players agree on the dead stones: the count as the rules make it (AGA's last pass included).
        let agreed = game.propose(Color::Black, dead).is_ok()
            && game.accept(Color::Black).is_ok()
            && game.accept(Color::White).is_ok();
        if let (true, Some(result)) = (agreed, game.result()) {
            return Ok(Count {
                score: result.score,
                result: *result,
            });
        }
    }
    // A record that stops in play: counted as it stands.
    let score = game.score_with(dead);
    Ok(Count {
        score: Some(score),
        result: GameResult::from_score(score, &rules, game.first_pass()),
    })
}
