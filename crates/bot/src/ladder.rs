//! A small ladder reader (shicho): whether a chain in atari can run away, or a chain with two liberties can be
//! chased into capture by successive ataris.
//!
//! The defender, in atari, either extends at its liberty or captures an attacker chain next to it that is
//! itself in atari; three liberties or more is an escape. With two, the attacker tries an atari at each of them
//! in turn. The reading plays on copies of the board (one per ply, kept for reuse) and stops at a budget of
//! plays: what it cannot settle in the budget counts as an escape, so a "captured" answer is always a proof
//! within the simple-ko rules of the board (superko is ignored: ladders hardly ever meet it).

use tesuji_rules::{Board, Color, Idx};

/// The liberties of the chain through the stone at `i`, up to `out.len()` of them; returns how many it found.
/// Stops early once `out` is full, so for big chains with many liberties it is cheap.
#[inline]
pub(crate) fn chain_liberties(board: &Board, i: Idx, out: &mut [Idx]) -> usize {
    let mut n = 0;
    for s in board.chain_stones(i) {
        for l in board.neighbors(s) {
            if board.is_empty_at(l) && !out[..n].contains(&l) {
                if n == out.len() {
                    return n;
                }
                out[n] = l;
                n += 1;
            }
        }
    }
    n
}

/// Distinct liberties of the chain at `i`, counted up to three.
#[inline]
fn libs3(board: &Board, i: Idx) -> usize {
    let mut buf = [0; 3];
    chain_liberties(board, i, &mut buf)
}

/// Empty neighbours of `p` other than `not`: a lower bound on the liberties a chain gains by extending to `p`
/// when its other liberty `not` has just been taken.
#[inline]
fn open_around(board: &Board, p: Idx, not: Idx, played: Idx) -> usize {
    board
        .neighbors(p)
        .into_iter()
        .filter(|&n| n != not && n != played && board.is_empty_at(n))
        .count()
}

/// Whether a chain with the two liberties `a` and `b` gets three or more by extending at one after an atari
/// at the other, whichever the attacker takes: then it is no ladder, and nothing needs reading. `played`: a
/// point that counts as occupied (the chain's stone not yet on the board).
#[inline]
fn runs_free(board: &Board, a: Idx, b: Idx, played: Idx) -> bool {
    open_around(board, a, b, played) >= 3 && open_around(board, b, a, played) >= 3
}

/// The reader, with its boards kept between calls so that reading allocates only the first time it goes deep.
#[derive(Clone, Debug)]
pub struct Ladder {
    boards: Vec<Board>,
    /// Plays left in the current reading.
    budget: u32,
}

impl Default for Ladder {
    fn default() -> Ladder {
        Ladder::new()
    }
}

impl Ladder {
    /// Plays per reading: enough for a ladder across a 19×19 board with its wrong turns (three plays a step).
    pub const BUDGET: u32 = 300;

    pub fn new() -> Ladder {
        Ladder {
            boards: Vec::new(),
            budget: 0,
        }
    }

    /// Whether the chain through the stone at `target`, in atari with its owner to move, is captured whatever
    /// it does (extending or capturing). False when the chain is not in atari or the reading ran out of plays.
    pub fn captured_in_atari(&mut self, board: &Board, target: Idx, budget: u32) -> bool {
        if !board.in_atari(target) {
            return false;
        }
        self.budget = budget;
        self.load(0, board);
        self.defend(0, target)
    }

    /// Whether the opponent of the chain through `target`, a chain of exactly two liberties, to move, captures it
    /// by ladder. False when it does not have two liberties or the reading ran out of plays.
    pub fn captured_with_two(&mut self, board: &Board, target: Idx, budget: u32) -> bool {
        if board.color_at(target).is_none() || libs3(board, target) != 2 {
            return false;
        }
        self.budget = budget;
        self.load(0, board);
        self.attack(0, target)
    }

    /// Whether `c`'s play at the empty point `m` puts an opponent chain in atari that then cannot escape:
    /// the size of the biggest such chain, 0 when there is none. The play itself must be legal for `c`.
    pub fn ladder_capture(&mut self, board: &Board, c: Color, m: Idx, budget: u32) -> u32 {
        let opp = Some(c.opponent());
        let mut best = 0;
        let mut seen = [0; 4];
        let mut nseen = 0;
        for n in board.neighbors(m) {
            if board.color_at(n) != opp {
                continue;
            }
            if libs3(board, n) != 2 {
                continue;
            }
            // Skip a chain met again through another neighbour.
            let id = board.chain_id(n);
            if seen[..nseen].contains(&id) {
                continue;
            }
            seen[nseen] = id;
            nseen += 1;
            let stones = board.chain_len(n);
            if stones <= best {
                continue;
            }
            self.budget = budget;
            self.load(0, board);
            self.boards[0].play(c, m);
            if self.boards[0].in_atari(n) && self.defend(0, n) {
                best = stones;
            }
        }
        best
    }

    /// Whether `c`'s play at the empty point `m`, joining a chain of `c`'s in atari, leaves a chain of two
    /// liberties that the opponent then captures by ladder. The play must be legal for `c`.
    pub fn escape_fails(&mut self, board: &Board, c: Color, m: Idx, budget: u32) -> bool {
        // The liberties after the play when it captures nothing: the point's empty neighbours and those of the
        // chains it joins. Two of them that let the chain run free need no reading.
        let mut libs = [0; 3];
        let mut n = 0;
        let mut captures = false;
        for x in board.neighbors(m) {
            if board.is_empty_at(x) {
                if n < 3 && !libs[..n].contains(&x) {
                    libs[n] = x;
                    n += 1;
                }
            } else if board.color_at(x) == Some(c) {
                let mut more = [0; 4];
                let k = chain_liberties(board, x, &mut more);
                for &l in &more[..k] {
                    if l != m && n < 3 && !libs[..n].contains(&l) {
                        libs[n] = l;
                        n += 1;
                    }
                }
            } else if board.color_at(x).is_some() && board.in_atari(x) {
                captures = true;
            }
        }
        if !captures && n == 2 && runs_free(board, libs[0], libs[1], m) {
            return false;
        }
        self.budget = budget;
        self.load(0, board);
        self.boards[0].play(c, m);
        let b = &self.boards[0];
        if b.color_at(m) != Some(c) || libs3(b, m) != 2 {
            return false;
        }
        self.attack(0, m)
    }

    /// Copies `board` into the board of ply `d`.
    fn load(&mut self, d: usize, board: &Board) {
        if d < self.boards.len() {
            self.boards[d].clone_from(board);
        } else {
            self.boards.push(board.clone());
        }
    }

    /// The position of ply `d` with `c` playing at `m` into ply `d + 1`, when that is a legal play (simple ko, no
    /// suicide) and the budget allows; false otherwise.
    fn try_play(&mut self, d: usize, c: Color, m: Idx) -> bool {
        if self.budget == 0 || self.boards[d].check(c, m, true, false, false).is_err() {
            return false;
        }
        self.budget -= 1;
        if self.boards.len() == d + 1 {
            let copy = self.boards[d].clone();
            self.boards.push(copy);
        } else {
            let (lo, hi) = self.boards.split_at_mut(d + 1);
            hi[0].clone_from(&lo[d]);
        }
        self.boards[d + 1].play(c, m);
        true
    }

    /// The chain at `target` is in atari on the board of ply `d`, its owner to move: true when every defence
    /// fails.
    fn defend(&mut self, d: usize, target: Idx) -> bool {
        let b = &self.boards[d];
        let Some(def) = b.color_at(target) else {
            return true;
        };
        let att = Some(def.opponent());
        // The extension first, then captures of attacker chains in atari next to the target.
        let mut moves = [0; 8];
        let mut n = 1;
        moves[0] = b.atari_liberty(target);
        for s in b.chain_stones(target) {
            for x in b.neighbors(s) {
                if b.color_at(x) == att && b.in_atari(x) {
                    let l = b.atari_liberty(x);
                    if n < moves.len() && !moves[..n].contains(&l) {
                        moves[n] = l;
                        n += 1;
                    }
                }
            }
        }
        for &m in &moves[..n] {
            if !self.try_play(d, def, m) {
                continue;
            }
            let after = &self.boards[d + 1];
            match libs3(after, target) {
                0 | 1 => {}
                2 => {
                    if !self.attack(d + 1, target) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        // No defence worked, or the budget ran out: a budget-limited "captured" must not stand.
        self.budget > 0
    }

    /// The chain at `target` has two liberties on the board of ply `d`, the attacker to move: true when an atari
    /// at one of them leads to its capture.
    fn attack(&mut self, d: usize, target: Idx) -> bool {
        let b = &self.boards[d];
        let Some(def) = b.color_at(target) else {
            return true;
        };
        let att = def.opponent();
        let mut libs = [0; 2];
        if chain_liberties(b, target, &mut libs) != 2 {
            return false;
        }
        for (m, other) in [(libs[0], libs[1]), (libs[1], libs[0])] {
            // The defender extends at the other liberty to three: this atari is no ladder.
            if open_around(&self.boards[d], other, m, m) >= 3 || !self.try_play(d, att, m) {
                continue;
            }
            let after = &self.boards[d + 1];
            // An atari whose own stones are captured at once just helps the defender; `defend` sees that.
            if after.in_atari(target) && self.defend(d + 1, target) {
                return true;
            }
            if self.budget == 0 {
                return false;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Grid, Point};

    fn board(diagram: &str) -> Board {
        Board::from_grid(&Grid::from_diagram(diagram).unwrap()).unwrap()
    }

    fn at(b: &Board, x: u8, y: u8) -> Idx {
        b.idx(Point::new(x, y))
    }

    /// White's stone at C3 (x 2, y 6) is in atari, its liberty D3; Black's stones at C4, B3, C2 and D2 make the
    /// extension a ladder that runs towards the upper right over an empty board.
    const LADDER: &str = "
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .
        . X O . . . . . .
        . . X X . . . . .
        . . . . . . . . .";

    /// The same with a white stone on the ladder's path (G6).
    const BROKEN: &str = "
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . O . .
        . . . . . . . . .
        . . X . . . . . .
        . X O . . . . . .
        . . X X . . . . .
        . . . . . . . . .";

    #[test]
    fn a_working_ladder_captures() {
        let b = board(LADDER);
        let w = at(&b, 2, 6);
        assert!(b.in_atari(w));
        let mut l = Ladder::new();
        assert!(l.captured_in_atari(&b, w, Ladder::BUDGET));
        // Running out at D3 leaves two liberties, and the chase catches the chain.
        assert!(l.escape_fails(&b, Color::White, at(&b, 3, 6), Ladder::BUDGET));
    }

    #[test]
    fn a_ladder_breaker_lets_the_chain_escape() {
        let b = board(BROKEN);
        let w = at(&b, 2, 6);
        let mut l = Ladder::new();
        assert!(!l.captured_in_atari(&b, w, Ladder::BUDGET));
        assert!(!l.escape_fails(&b, Color::White, at(&b, 3, 6), Ladder::BUDGET));
        // A black stone at the same point only helps Black.
        let b = board(&BROKEN.replace("O . .\n", "X . .\n"));
        assert_eq!(b.color_at(at(&b, 6, 3)), Some(Color::Black));
        assert!(l.captured_in_atari(&b, w, Ladder::BUDGET));
    }

    #[test]
    fn a_ladder_along_the_edge_is_captured_at_the_corner() {
        // The ladder's shape two lines from the corner of a 5×5 board: after D3, D4, E4 White's chain has no room.
        let b = board(
            "
            . . . . .
            . . X . .
            . X O . .
            . . X X .
            . . . . .",
        );
        let w = at(&b, 2, 2);
        assert!(b.in_atari(w));
        let mut l = Ladder::new();
        assert!(l.captured_in_atari(&b, w, Ladder::BUDGET));
        assert!(l.escape_fails(&b, Color::White, at(&b, 3, 2), Ladder::BUDGET));
    }

    #[test]
    fn the_right_atari_starts_the_ladder() {
        // Without Black's C4 the white stone has two liberties, C4 and D3.
        let b = board(&LADDER.replace(
            ". . X . . . . . .\n        . X O",
            ". . . . . . . . .\n        . X O",
        ));
        let w = at(&b, 2, 6);
        let mut l = Ladder::new();
        assert!(l.captured_with_two(&b, w, Ladder::BUDGET));
        // The atari at C4 drives White into the ladder; the one at D3 lets it out upwards.
        assert_eq!(
            l.ladder_capture(&b, Color::Black, at(&b, 2, 5), Ladder::BUDGET),
            1
        );
        assert_eq!(
            l.ladder_capture(&b, Color::Black, at(&b, 3, 6), Ladder::BUDGET),
            0
        );
        // A lone stone in the middle with four liberties: nothing to read.
        let b = board(".....\n.....\n..O..\n.....\n.....");
        assert!(!l.captured_with_two(&b, at(&b, 2, 2), Ladder::BUDGET));
    }

    #[test]
    fn a_counter_capture_breaks_the_ladder() {
        // The ladder of LADDER, but Black's C4 is itself in atari (White at C5 and B4): White takes it at D4.
        let b = board(&LADDER.replace(
            ". . . . . . . . .\n        . . X . . . . . .",
            ". . O . . . . . .\n        . O X . . . . . .",
        ));
        let w = at(&b, 2, 6);
        assert!(b.in_atari(at(&b, 2, 5)));
        let mut l = Ladder::new();
        assert!(!l.captured_in_atari(&b, w, Ladder::BUDGET));
    }

    #[test]
    fn the_budget_makes_an_unsettled_reading_an_escape() {
        let b = board(LADDER);
        let w = at(&b, 2, 6);
        let mut l = Ladder::new();
        assert!(!l.captured_in_atari(&b, w, 3));
        assert!(l.captured_in_atari(&b, w, Ladder::BUDGET));
    }
}
