//! Passing: the count if play ended now, whether a pass would lose, and the move that cleans up the board
//! first.

use tesuji_rules::game::expand_chains;
use tesuji_rules::result::score_position;
use tesuji_rules::{Color, Game, Move, Point, Rules};

use super::analysis::{Analysis, MoveStat};
use crate::estimate::Estimate;
use crate::policy::{self};

/// The count of the position now, with these dead stones, from `me`'s side (half-points).
pub(super) fn count_margin(game: &Game, rules: &Rules, me: Color, dead: &[Point]) -> i32 {
    let grid = game.grid();
    let dead = expand_chains(&grid, dead);
    let score = score_position(rules, &grid, &dead, game.captures(), game.pass_stones());
    match me {
        Color::Black => score.margin(),
        Color::White => -score.margin(),
    }
}

/// The count if play ended now, from `me`'s side (half-points): `hoped` with the estimate's dead stones,
/// `safe` with our own unsure chains dead too (the opponent may claim them).
pub(crate) struct PassCounts {
    pub(crate) hoped: i32,
    pub(crate) safe: i32,
}

pub(crate) fn pass_counts(game: &Game, rules: &Rules, me: Color, est: &Estimate) -> PassCounts {
    let dead = est.dead();
    let hoped = count_margin(game, rules, me, &dead);
    let grid = game.grid();
    let own_unsure: Vec<Point> = est
        .unsure()
        .into_iter()
        .filter(|&p| grid.get(p) == Some(me))
        .collect();
    let safe = if own_unsure.is_empty() {
        hoped
    } else {
        count_margin(game, rules, me, &[dead, own_unsure].concat())
    };
    PassCounts { hoped, safe }
}

/// Whether a pass the search chose would lose a game that playing `other` need not: the count with the
/// estimate (our unsure chains dead) is a loss while the search expects a win, or while it is a win with our
/// unsure chains alive, so that playing on can settle them. In cleanup mode every stone counts as it stands.
/// The tree's own two-pass ends settle dead stones by playouts, which can disagree with the estimate that the
/// marking phase starts from; the count is what the opponent can hold us to.
pub(super) fn pass_loses(
    game: &Game,
    rules: &Rules,
    me: Color,
    cleanup: bool,
    est: &Estimate,
    analysis: &Analysis,
    other: &MoveStat,
) -> bool {
    let counts = if cleanup {
        let m = count_margin(game, rules, me, &[]);
        PassCounts { hoped: m, safe: m }
    } else {
        pass_counts(game, rules, me, est)
    };
    if counts.safe > 0 {
        return false;
    }
    let pass_value = analysis.stat(Move::Pass).map_or(0.0, |s| s.value);
    counts.hoped > 0 || pass_value >= 0.5 || other.value >= 0.5
}

/// A legal play that fills a liberty of an opponent chain the estimate finds dead, without putting the
/// player's own stones in atari: a capture first, then the chain with the fewest liberties.
pub(super) fn cleanup_move(game: &Game, est: &Estimate) -> Option<Move> {
    let me = game.to_move();
    let board = game.board();
    let size = board.size();
    let mut best: Option<(usize, Point)> = None;
    for p in size.points() {
        let i = board.idx(p);
        if !board.is_empty_at(i) || board.is_eyelike(me, i) {
            continue;
        }
        let liberties = board
            .neighbors(i)
            .into_iter()
            .filter(|&n| board.color_at(n) == Some(me.opponent()))
            .filter(|&n| est.is_dead(board.point(n)))
            .map(|n| board.liberties(board.point(n)))
            .min();
        let Some(liberties) = liberties else { continue };
        let t = policy::tactics(board, me, i);
        if t.captured == 0 && t.liberties < 2 {
            continue;
        }
        if !game.is_legal(me, Move::Play(p)) {
            continue;
        }
        if best.is_none_or(|(l, _)| liberties < l) {
            best = Some((liberties, p));
        }
    }
    best.map(|(_, p)| Move::Play(p))
}
