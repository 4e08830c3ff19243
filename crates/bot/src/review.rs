//! A game reviewed: the search run on every position of its main line, the win rate and score at each from
//! Black's side, the engine's move and line there, and the moves that lost the most.

use tesuji_rules::game::Action;
use tesuji_rules::{Color, Game, Move, Phase, Rules};

use crate::mcts::{Analysis, MctsBot};

/// The search's view of one position of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    /// The turns played before it (0: the start).
    pub turn: usize,
    pub to_move: Color,
    /// Black's chance to win, 0 to 1: the best move's value, seen from Black.
    pub black_winrate: f64,
    /// Black's expected final margin in points (komi included): the mean over the playouts.
    pub black_score: f64,
    /// The engine's move and its principal variation (empty where the position has no move to search).
    pub best: Option<Move>,
    pub pv: Vec<Move>,
    pub playouts: u64,
    /// Black's ownership of each point, −1 to 1, row by row from the top left.
    pub ownership: Vec<f32>,
}

/// A move that lost its player win rate: how much, and what the engine preferred.
#[derive(Clone, Debug, PartialEq)]
pub struct Mistake {
    /// The move's number (1: the first turn).
    pub number: usize,
    pub color: Color,
    pub played: Move,
    /// What the move cost its player, in win rate (0 to 1), as the positions before and after it are seen.
    pub loss: f64,
    pub better: Option<Move>,
}

/// Black's expected lead as a result is written, to a tenth of a point: `B+3.5`, `W+12.0`.
pub fn lead_text(black_score: f64) -> String {
    if black_score >= 0.0 {
        format!("B+{black_score:.1}")
    } else {
        format!("W+{:.1}", -black_score)
    }
}

/// The positions of `game`'s turns, from the start to the last turn played (actions after it, such as marks,
/// left out): each game is the position before the turn of the same index, the last one after the last turn.
pub fn positions(game: &Game) -> Vec<Game> {
    let mut g = game.clone();
    while g
        .log()
        .last()
        .is_some_and(|a| !matches!(a, Action::Turn(..)))
    {
        g.undo();
    }
    let mut out = vec![g.clone()];
    while matches!(g.log().last(), Some(Action::Turn(..))) {
        g.undo();
        out.push(g.clone());
    }
    out.reverse();
    out
}

/// The last position of `game` still in play and its number of turns: the game itself while it is played, else
/// the position before the action that ended play (the second pass, a resignation, a loss on time), whose board
/// is the final one.
pub fn last_in_play(game: &Game) -> (usize, Game) {
    let mut g = game.clone();
    while g.phase() != Phase::Playing && g.undo().is_some() {}
    (g.turns() as usize, g)
}

/// The turns of `game` in order (colour and move).
pub fn turns(game: &Game) -> Vec<(Color, Move)> {
    game.log()
        .iter()
        .filter_map(|a| match a {
            Action::Turn(c, m) => Some((*c, *m)),
            _ => None,
        })
        .collect()
}

fn from_black(a: &Analysis, x: f64) -> f64 {
    match a.to_move {
        Color::Black => x,
        Color::White => -x,
    }
}

/// Searches one position with `bot` (a position out of play gets no search).
pub fn review_position(bot: &MctsBot, game: &Game, rules: &Rules, turn: usize) -> Position {
    if game.phase() != Phase::Playing {
        return Position {
            turn,
            to_move: game.to_move(),
            black_winrate: 0.5,
            black_score: 0.0,
            best: None,
            pv: Vec::new(),
            playouts: 0,
            ownership: Vec::new(),
        };
    }
    let a = bot.analyze(game, rules, false);
    let value = a.best().map_or(0.5, |b| b.value);
    Position {
        turn,
        to_move: a.to_move,
        black_winrate: if a.to_move == Color::Black {
            value
        } else {
            1.0 - value
        },
        black_score: from_black(&a, a.score_mean),
        best: a.best().map(|b| b.mv),
        pv: a.best().map(|b| b.pv.clone()).unwrap_or_default(),
        playouts: a.playouts,
        ownership: a.ownership,
    }
}

/// Reviews every position of `game` under `rules` (the count's, as for [`MctsBot::choose`]), calling
/// `progress(done, total)` after each.
pub fn review(
    bot: &MctsBot,
    game: &Game,
    rules: &Rules,
    mut progress: impl FnMut(usize, usize),
) -> Vec<Position> {
    let games = positions(game);
    let total = games.len();
    games
        .iter()
        .enumerate()
        .map(|(turn, g)| {
            let p = review_position(bot, g, rules, turn);
            progress(turn + 1, total);
            p
        })
        .collect()
}

/// The moves that lost their player at least `threshold` of win rate, the biggest loss first: a move's loss is
/// its player's win rate before it less their win rate after it.
pub fn mistakes(game: &Game, reviewed: &[Position], threshold: f64) -> Vec<Mistake> {
    let mut out: Vec<Mistake> = turns(game)
        .into_iter()
        .enumerate()
        .filter_map(|(k, (color, played))| {
            let (before, after) = (reviewed.get(k)?, reviewed.get(k + 1)?);
            if after.playouts == 0 || before.playouts == 0 {
                return None;
            }
            let mine = |p: &Position| match color {
                Color::Black => p.black_winrate,
                Color::White => 1.0 - p.black_winrate,
            };
            let loss = mine(before) - mine(after);
            (loss >= threshold).then_some(Mistake {
                number: k + 1,
                color,
                played,
                loss,
                better: before.best.filter(|&b| b != played),
            })
        })
        .collect();
    out.sort_by(|a, b| b.loss.total_cmp(&a.loss).then(a.number.cmp(&b.number)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcts::MctsConfig;
    use tesuji_rules::Point;

    fn play(g: &mut Game, moves: &[&str]) {
        for m in moves {
            let c = g.to_move();
            let mv = if *m == "pass" {
                Move::Pass
            } else {
                Move::Play(Point::from_gtp(m, g.rules().size).unwrap())
            };
            g.play(c, mv).unwrap();
        }
    }

    #[test]
    fn every_position_of_the_main_line_is_reviewed_in_order() {
        let rules: Rules = "chinese:size=7".parse().unwrap();
        let mut g = Game::new(rules).unwrap();
        play(&mut g, &["D4", "C3", "E5", "pass"]);
        let ps = positions(&g);
        assert_eq!(ps.len(), 5);
        for (k, p) in ps.iter().enumerate() {
            assert_eq!(turns(p), turns(&g)[..k].to_vec());
        }
        let bot = MctsBot::new(MctsConfig::playouts(60), 1);
        let mut calls = Vec::new();
        let reviewed = review(&bot, &g, &rules, |done, total| calls.push((done, total)));
        assert_eq!(calls, (1..=5).map(|k| (k, 5)).collect::<Vec<_>>());
        assert_eq!(
            reviewed
                .iter()
                .map(|p| (p.turn, p.to_move))
                .collect::<Vec<_>>(),
            [
                (0, Color::Black),
                (1, Color::White),
                (2, Color::Black),
                (3, Color::White),
                (4, Color::Black)
            ]
        );
        assert!(
            reviewed
                .iter()
                .all(|p| p.playouts == 60 && p.ownership.len() == 49)
        );
        assert!(
            reviewed
                .iter()
                .all(|p| (0.0..=1.0).contains(&p.black_winrate))
        );
    }

    #[test]
    fn the_last_position_in_play_is_before_the_end() {
        let rules: Rules = "chinese:size=7".parse().unwrap();
        let mut g = Game::new(rules).unwrap();
        g.play(Color::Black, Move::Play(Point::new(3, 3))).unwrap();
        let (turn, same) = last_in_play(&g);
        assert_eq!((turn, same.log().len()), (1, 1));
        g.play(Color::White, Move::Pass).unwrap();
        g.play(Color::Black, Move::Pass).unwrap();
        assert_ne!(g.phase(), Phase::Playing);
        // Before the second pass: White's pass played, Black to move, the same board.
        let (turn, before) = last_in_play(&g);
        assert_eq!(
            (turn, before.phase(), before.to_move()),
            (2, Phase::Playing, Color::Black)
        );
        assert_eq!(before.grid(), g.grid());
    }

    #[test]
    fn a_lead_reads_as_a_result() {
        assert_eq!(lead_text(3.54), "B+3.5");
        assert_eq!(lead_text(0.0), "B+0.0");
        assert_eq!(lead_text(-12.0), "W+12.0");
    }

    #[test]
    fn a_mistake_is_the_win_rate_its_player_lost() {
        let rules: Rules = "chinese:size=7".parse().unwrap();
        let mut g = Game::new(rules).unwrap();
        play(&mut g, &["D4", "A1", "C3"]);
        let at = |turn, black_winrate| Position {
            turn,
            to_move: if turn % 2 == 0 {
                Color::Black
            } else {
                Color::White
            },
            black_winrate,
            black_score: 0.0,
            best: Some(Move::Pass),
            pv: Vec::new(),
            playouts: 10,
            ownership: Vec::new(),
        };
        // White's A1 takes White from 45% to 20%: a loss of 25%; Black's moves lose little.
        let reviewed = [at(0, 0.52), at(1, 0.55), at(2, 0.80), at(3, 0.78)];
        let found = mistakes(&g, &reviewed, 0.1);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].number, found[0].color), (2, Color::White));
        assert!((found[0].loss - 0.25).abs() < 1e-9);
        assert_eq!(found[0].better, Some(Move::Pass));
        assert_eq!(mistakes(&g, &reviewed, 0.0).len(), 2);
    }
}
