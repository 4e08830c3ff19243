//! The stopgap bot: a legal, sensible move so that games finish, until a real search exists.
//!
//! A move is *useless* when it fills one of the mover's eye-like points ([`Board::is_eyelike`]) without saving a
//! chain in atari (a false eye's last liberty is still worth filling), lies in an area
//! that Benson's algorithm already gives to either player (pass-alive stones and territory), is a suicide, or is
//! a self-atari that captures nothing. Among the other legal plays the bot picks the best by a small score:
//! captures, saving a chain from atari, and putting an opponent chain in atari count a little, and a seeded
//! random jitter breaks ties, so the bot is deterministic for a seed. With no useful play it passes, unless the
//! count with the [`crate::estimate`] hangs on its own unsure chains (a win with them alive, a loss with them
//! dead): then it connects such a chain through an eye-like point between two of its chains, if one keeps two
//! liberties.
//!
//! In *cleanup* mode (rules that score every stone on the board as alive, `end = score`, and KGS's
//! `kgs-genmove_cleanup`), before passing it fills the liberties of opponent stones that sit in its own
//! pass-alive territory until they are captured: those stones are dead, but under such rules they would count.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg32;
use tesuji_rules::score::benson;
use tesuji_rules::{Board, Color, Game, Idx, Move, Phase, Point};

use crate::estimate::{self, Estimate, Status};
use crate::mcts::pass_counts;

/// The stopgap bot, seeded.
pub struct SimpleBot {
    rng: Pcg32,
}

/// What a candidate play would do, from a trial on a copy of the board.
struct Trial {
    captured: u32,
    /// Liberties of the mover's chain after the play (0 for a suicide).
    liberties: usize,
    /// Stones of own chains in atari before the play that the play leaves with two or more liberties.
    rescued: u32,
    /// Opponent chains the play puts in atari.
    ataris: u32,
}

impl SimpleBot {
    pub fn new(seed: u64) -> SimpleBot {
        SimpleBot {
            rng: Pcg32::seed_from_u64(seed),
        }
    }

    /// A move for the player to move in `game` (a pass when the game is not in play). `cleanup`: capture dead
    /// opponent stones in own pass-alive territory before passing.
    pub fn choose(&mut self, game: &Game, cleanup: bool) -> Move {
        if game.phase() != Phase::Playing {
            return Move::Pass;
        }
        let me = game.to_move();
        let board = game.board();
        let size = board.size();
        let owner = benson(&board.to_grid(), game.rules().suicide).owner;
        let owner_at = |p: Point| owner[size.index(p)];
        let mut legal = game.legal_play_indices();
        // The legal list comes in no particular order: sort it so that the choice depends on the seed only.
        legal.sort_unstable();
        let mut best: Option<(f64, Idx)> = None;
        let mut cleanup_best: Option<(f64, Idx)> = None;
        for i in legal {
            let p = board.point(i);
            let trial = try_play(board, me, i);
            if trial.liberties == 0 || (trial.liberties == 1 && trial.captured == 0) {
                continue;
            }
            if board.is_eyelike(me, i) && trial.rescued == 0 {
                continue;
            }
            let jitter = self.rng.random::<f64>();
            let value = jitter
                + if trial.captured > 0 {
                    2.0 + trial.captured.min(10) as f64
                } else {
                    0.0
                }
                + if trial.rescued > 0 {
                    1.0 + trial.rescued.min(10) as f64
                } else {
                    0.0
                }
                + 0.3 * trial.ataris as f64;
            match owner_at(p) {
                None => {
                    if best.is_none_or(|(v, _)| value > v) {
                        best = Some((value, i));
                    }
                }
                Some(c) if c == me && cleanup && touches_dead(board, &owner, me, i) => {
                    if cleanup_best.is_none_or(|(v, _)| value > v) {
                        cleanup_best = Some((value, i));
                    }
                }
                Some(_) => {}
            }
        }
        if let Some((_, i)) = best.or(cleanup_best) {
            return Move::Play(board.point(i));
        }
        let seed = self.rng.random::<u64>();
        let est = estimate::estimate(game, estimate::default_playouts(size), seed);
        let counts = pass_counts(game, game.rules(), me, &est);
        if counts.safe <= 0
            && counts.hoped > 0
            && let Some(p) = settling_connection(game, &est)
        {
            return Move::Play(p);
        }
        Move::Pass
    }
}

/// A legal play at an eye-like point of the player to move that joins two or more of its chains, one of them
/// unsure in `est`, and leaves the joined chain two liberties or more: the one with the most liberties. Such a
/// point may be a false eye that the opponent can take; filling it settles the unsure chain's fate.
fn settling_connection(game: &Game, est: &Estimate) -> Option<Point> {
    let me = game.to_move();
    let board = game.board();
    let mut best: Option<(usize, Point)> = None;
    for p in board.size().points() {
        let i = board.idx(p);
        if !board.is_eyelike(me, i) {
            continue;
        }
        let mut roots: Vec<Point> = Vec::new();
        let mut unsure = false;
        for n in board.neighbors(i) {
            let Some(q) = board.checked_point(n) else {
                continue;
            };
            if board.color_at(n) != Some(me) {
                continue;
            }
            unsure |= est.status(q) == Some(Status::Unsure);
            if !roots
                .iter()
                .any(|&r| board.chain_stones(board.idx(r)).any(|s| s == n))
            {
                roots.push(q);
            }
        }
        if roots.len() < 2 || !unsure || !game.is_legal(me, Move::Play(p)) {
            continue;
        }
        let trial = try_play(board, me, i);
        if trial.liberties >= 2 && best.is_none_or(|(l, _)| trial.liberties > l) {
            best = Some((trial.liberties, p));
        }
    }
    best.map(|(_, p)| p)
}

/// Plays `me` at `i` on a copy of the board and reports what happened.
fn try_play(board: &Board, me: Color, i: Idx) -> Trial {
    let rescuable: Vec<(Idx, u32)> = board
        .neighbors(i)
        .into_iter()
        .filter(|&n| board.color_at(n) == Some(me) && board.in_atari(n))
        .map(|n| (n, board.chain_len(n)))
        .collect();
    let mut b = board.clone();
    let effect = b.play(me, i);
    let p = board.point(i);
    let liberties = if effect.suicided > 0 {
        0
    } else {
        b.liberties(p)
    };
    let rescued = if liberties >= 2 {
        // Chains merged through `i` may be listed twice: count each root once.
        let mut seen: Vec<Idx> = Vec::new();
        let mut total = 0;
        for (n, stones) in rescuable {
            if !b.chain_stones(n).any(|s| seen.contains(&s)) {
                seen.push(n);
                total += stones;
            }
        }
        total
    } else {
        0
    };
    let ataris = b
        .neighbors(i)
        .into_iter()
        .filter(|&n| b.color_at(n) == Some(me.opponent()) && b.in_atari(n))
        .count() as u32;
    Trial {
        captured: effect.captured,
        liberties,
        rescued,
        ataris,
    }
}

/// Whether the empty point `i` is a liberty of an opponent stone inside `me`'s pass-alive territory.
fn touches_dead(board: &Board, owner: &[Option<Color>], me: Color, i: Idx) -> bool {
    let size = board.size();
    board.neighbors(i).into_iter().any(|n| {
        board.color_at(n) == Some(me.opponent())
            && board
                .checked_point(n)
                .is_some_and(|q| owner[size.index(q)] == Some(me))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Grid, Rules, Size};

    fn game(diagram: &str, to_move: Color, spec: &str) -> Game {
        let grid = Grid::from_diagram(diagram).unwrap();
        let mut rules: Rules = spec.parse().unwrap();
        rules.size = grid.size();
        Game::from_position(rules, &grid, to_move).unwrap()
    }

    #[test]
    fn never_fills_its_own_eyes_and_passes_at_the_end() {
        // Black is alive with two eyes; White has nothing; every remaining point is Black's.
        let g = game("X.X.X\nXXXXX\n.....\n.....\n.....", Color::Black, "chinese");
        let mut bot = SimpleBot::new(1);
        let mut g2 = g.clone();
        for _ in 0..40 {
            let mv = bot.choose(&g2, false);
            if let Move::Play(p) = mv {
                assert!(!g2.board().is_eyelike(Color::Black, g2.board().idx(p)));
            }
            g2.play(Color::Black, mv).unwrap();
            let _ = g2.play(Color::White, Move::Pass);
            if g2.phase() != Phase::Playing {
                break;
            }
        }
        assert_ne!(g2.phase(), Phase::Playing, "the bot should end up passing");
    }

    #[test]
    fn captures_when_it_can() {
        let g = game(".....\n.XO..\nXO...\n.X...\n.....", Color::Black, "chinese");
        // White B3 has one liberty at C3.
        let mut bot = SimpleBot::new(7);
        assert_eq!(bot.choose(&g, false), Move::Play(Point::new(2, 2)));
    }

    #[test]
    fn deterministic_for_a_seed() {
        let g = Game::new(Rules {
            size: Size::square(9).unwrap(),
            ..Rules::default()
        })
        .unwrap();
        let a: Vec<Move> = (0..5)
            .scan(SimpleBot::new(3), |b, _| Some(b.choose(&g, false)))
            .collect();
        let b: Vec<Move> = (0..5)
            .scan(SimpleBot::new(3), |b, _| Some(b.choose(&g, false)))
            .collect();
        assert_eq!(a, b);
    }

    #[test]
    fn saves_a_chain_whose_last_liberty_is_an_eye_like_point() {
        // Black C4 is in atari; its last liberty B4 has only Black neighbours. Every other Black play is an
        // eye or in White's pass-alive area. White has just passed: a pass would let White take C4 (a ko at
        // best) in a count that ends with it dead, so Black fills B4, joining C4 to its living chain.
        let diagram = "\
            .XOO.O\n\
            XXO.OO\n\
            X.XOOO\n\
            XXO.O.\n\
            .XOOOO\n\
            XXO.O.";
        let mut g = game(diagram, Color::White, "chinese");
        g.play(Color::White, Move::Pass).unwrap();
        for seed in 0..4 {
            assert_eq!(
                SimpleBot::new(seed).choose(&g, false),
                Move::Play(Point::new(1, 2)),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn cleanup_captures_dead_stones_in_its_territory() {
        // Black owns the whole board unconditionally; a white stone sits in Black's territory.
        let diagram = "..X..\n.OX..\nXXXXX\nX.X.X\nXXXXX";
        let g = game(diagram, Color::Black, "tromp-taylor");
        let mut bot = SimpleBot::new(5);
        assert_eq!(bot.choose(&g, false), Move::Pass);
        match bot.choose(&g, true) {
            Move::Play(p) => assert!(
                [Point::new(0, 1), Point::new(1, 0)].contains(&p),
                "{p:?} is not a liberty of the dead stone"
            ),
            Move::Pass => panic!("cleanup should capture the dead stone"),
        }
    }
}
