//! Random playouts: the speed benchmark of the board, and later the bot's simulations.
//!
//! Four kinds (`tesuji bench playouts --mode`):
//! - [`Mode::Light`]: libEGO 0.1.127's light playout: from a random place in the empty-point list, the first
//!   point that is not the mover's eye and is pseudo-legal (simple ko; multi-stone suicide allowed); two passes
//!   or 2 × points moves end it; score = stones + one-point eyes.
//! - [`Mode::Uniform`]: exactly uniform over the legal non-eye plays; simple ko, no suicide.
//! - [`Mode::Rules`]: uniform over the legal non-eye plays of a [`Game`] under `tromp-taylor`: positional
//!   superko checked on every move.
//! - [`Mode::Policy`]: the tree search's playout policy ([`crate::policy`]: atari answers, shapes, ladders
//!   early, fill board on big boards), as each playout below the tree runs it; score as the light playout's.

use rand::{Rng, RngExt, SeedableRng};
use rand_pcg::Pcg32;
use tesuji_rules::{Board, Color, Game, Idx, Move, Rules, Size};

use crate::policy;

/// The kind of playout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Light,
    Uniform,
    Rules,
    Policy,
}

/// The end of one playout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Turns made, passes included.
    pub moves: u32,
    /// Black's points minus White's (stones + one-point eyes), before komi.
    pub margin: i32,
}

/// A seeded generator of playouts on an empty board.
pub struct Playouts {
    size: Size,
    rng: Pcg32,
    scratch: Vec<u16>,
    candidates: Vec<u16>,
    empty_board: Board,
    board: Board,
    rules: Rules,
    policy: policy::Scratch,
    turns: Vec<(Idx, Color)>,
}

impl Playouts {
    pub fn new(size: Size, seed: u64) -> Playouts {
        let mut board = Board::new(size);
        // Playouts never compare positions exactly.
        board.keep_snapshot(false);
        let rules = Rules {
            size,
            ..Rules::default()
        };
        Playouts {
            size,
            rng: Pcg32::seed_from_u64(seed),
            scratch: Vec::with_capacity(size.area()),
            candidates: Vec::with_capacity(size.area()),
            rules,
            policy: policy::Scratch::for_board(&board),
            turns: Vec::with_capacity(2 * size.area()),
            empty_board: board.clone(),
            board,
        }
    }

    /// Runs one playout from the empty board.
    pub fn run(&mut self, mode: Mode) -> Outcome {
        match mode {
            Mode::Light => self.light(),
            Mode::Uniform => self.uniform(),
            Mode::Rules => self.rules(),
            Mode::Policy => self.policy(),
        }
    }

    /// The board after the last light or uniform playout.
    pub fn board(&self) -> &Board {
        &self.board
    }

    fn max_moves(&self) -> u32 {
        2 * self.size.area() as u32
    }

    fn light(&mut self) -> Outcome {
        self.board_playout(|board, rng, _, to_move| {
            // A random start as libEGO takes it: multiply-shift, not exactly uniform, and cheap.
            let n = board.empty_points().len() as u64;
            let start = ((rng.next_u32() as u64 * n) >> 32) as usize;
            board.first_light_candidate(to_move, start)
        })
    }

    fn policy(&mut self) -> Outcome {
        self.board.clone_from(&self.empty_board);
        self.turns.clear();
        let max = self.max_moves() as usize;
        policy::run(
            &mut self.board,
            Color::Black,
            policy::PASS,
            &mut self.rng,
            &mut self.policy,
            &mut self.turns,
            max,
        );
        Outcome {
            moves: self.turns.len() as u32,
            margin: eye_score(&self.board),
        }
    }

    fn uniform(&mut self) -> Outcome {
        self.board_playout(|board, rng, scratch, to_move| {
            uniform_choice(rng, scratch, board.empty_points(), |i| {
                board.is_uniform_candidate(to_move, i)
            })
        })
    }

    /// A playout on the bare board from the empty position: `choose` picks each play (`None` passes); two
    /// passes or 2 × points turns end it.
    #[inline(always)]
    fn board_playout(
        &mut self,
        mut choose: impl FnMut(&Board, &mut Pcg32, &mut Vec<u16>, Color) -> Option<usize>,
    ) -> Outcome {
        self.board.clone_from(&self.empty_board);
        let max = self.max_moves();
        let (mut to_move, mut passes, mut moves) = (Color::Black, 0, 0);
        while passes < 2 && moves < max {
            match choose(&self.board, &mut self.rng, &mut self.scratch, to_move) {
                Some(i) => {
                    self.board.play(to_move, i);
                    passes = 0;
                }
                None => {
                    self.board.pass();
                    passes += 1;
                }
            }
            moves += 1;
            to_move = to_move.opponent();
        }
        Outcome {
            moves,
            margin: eye_score(&self.board),
        }
    }

    fn rules(&mut self) -> Outcome {
        let Ok(mut game) = Game::new(self.rules) else {
            return Outcome {
                moves: 0,
                margin: 0,
            };
        };
        let max = self.max_moves();
        let mut moves = 0;
        while game.phase() == tesuji_rules::Phase::Playing && moves < max {
            let to_move = game.to_move();
            // `play` checks legality itself: one check per candidate, and the first legal one is made.
            self.candidates.clear();
            self.candidates
                .extend_from_slice(game.board().empty_points());
            let played = uniform_choice(&mut self.rng, &mut self.scratch, &self.candidates, |i| {
                let p = game.board().point(i);
                !game.board().is_eyelike(to_move, i) && game.play(to_move, Move::Play(p)).is_ok()
            })
            .is_some();
            if !played {
                // Passing is always legal in play.
                let _ = game.play(to_move, Move::Pass);
            }
            moves += 1;
        }
        Outcome {
            moves,
            margin: eye_score(game.board()),
        }
    }
}

/// A point drawn uniformly from the `candidates` that pass `accept`, or `None` when none does. `accept` is
/// called on draws until it says yes, so it may act on the chosen point.
///
/// First a few draws with replacement (rejection sampling: uniform over the accepted ones when it succeeds);
/// then, if all were rejected, draws without replacement from a copy, which is uniform over the accepted ones
/// too and finds out when there is none. Either way every accepted point has the same chance.
fn uniform_choice(
    rng: &mut Pcg32,
    scratch: &mut Vec<u16>,
    candidates: &[u16],
    mut accept: impl FnMut(usize) -> bool,
) -> Option<usize> {
    const TRIES: usize = 2;
    if candidates.is_empty() {
        return None;
    }
    for _ in 0..TRIES {
        let i = candidates[rng.random_range(0..candidates.len())] as usize;
        if accept(i) {
            return Some(i);
        }
    }
    scratch.clear();
    scratch.extend_from_slice(candidates);
    while !scratch.is_empty() {
        let k = rng.random_range(0..scratch.len());
        let i = scratch[k] as usize;
        if accept(i) {
            return Some(i);
        }
        scratch.swap_remove(k);
    }
    None
}

/// Stones plus one-point eyes (empty points whose neighbours are all one colour), Black minus White.
pub fn eye_score(board: &Board) -> i32 {
    let [b, w] = board.stone_counts();
    let mut score = b as i32 - w as i32;
    for &i in board.empty_points() {
        let i = i as usize;
        let mut seen = [false; 2];
        for n in board.neighbors(i) {
            if let Some(c) = board.color_at(n) {
                seen[c.index()] = true;
            }
        }
        match seen {
            [true, false] => score += 1,
            [false, true] => score -= 1,
            _ => {}
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playouts_end_and_score_within_the_board() {
        for mode in [Mode::Light, Mode::Uniform, Mode::Rules, Mode::Policy] {
            let size = Size::square(9).unwrap();
            let mut p = Playouts::new(size, 7);
            for _ in 0..20 {
                let o = p.run(mode);
                assert!(o.moves <= 2 * 81, "{mode:?}: {o:?}");
                assert!(o.margin.unsigned_abs() <= 81, "{mode:?}: {o:?}");
            }
        }
    }

    #[test]
    fn same_seed_same_playouts() {
        let size = Size::square(9).unwrap();
        let (mut a, mut b) = (Playouts::new(size, 42), Playouts::new(size, 42));
        for mode in [Mode::Light, Mode::Uniform, Mode::Rules, Mode::Policy] {
            for _ in 0..5 {
                assert_eq!(a.run(mode), b.run(mode));
            }
        }
    }

    #[test]
    fn light_playouts_fill_the_board_to_eyes() {
        // At the end of a light playout that ended by passes, every empty point is an eye of one colour.
        let size = Size::square(9).unwrap();
        let mut p = Playouts::new(size, 3);
        let o = p.run(Mode::Light);
        assert!(o.moves < 2 * 81);
        let b = p.board();
        for &i in b.empty_points() {
            let i = i as usize;
            let colors: Vec<_> = b
                .neighbors(i)
                .iter()
                .filter_map(|&n| b.color_at(n))
                .collect();
            assert!(
                colors.windows(2).all(|w| w[0] == w[1]),
                "point {:?}",
                b.point(i)
            );
        }
    }
}
