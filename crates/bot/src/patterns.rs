//! 3×3 shape patterns around a candidate point: the "good shape" moves of the playout policy and of the tree's
//! priors.
//!
//! The set follows the shapes that Gelly, Wang, Munos and Teytaud describe for MoGo ("Modification of UCT with
//! Patterns in Monte-Carlo Go", INRIA RR-6062, 2006): hane, cuts and a few edge shapes, written here in our own
//! notation. A pattern is three rows of three cells, the candidate point in the middle (`*`):
//!
//! - `X` a stone of one colour, `O` a stone of the other (either assignment matches: the shapes are good for
//!   both players), `.` an empty point, `#` off the board;
//! - `x` anything but an `X` stone (empty, `O` or off the board), `o` anything but an `O` stone, `?` anything.
//!
//! Every pattern is matched in its eight rotations and reflections. A neighbourhood is a 16-bit key, two bits per
//! cell (0 empty, 1 black, 2 white, 3 off the board), the cells in reading order NW, N, NE, W, E, SW, S, SE; the
//! table is a 65 536-bit set built once.

use std::sync::OnceLock;

use tesuji_rules::{Board, Idx};

/// The patterns, each three rows of three cells.
const PATTERNS: &[[&str; 3]] = &[
    // Hane that encloses: the opponent's stone between two of ours.
    ["XOX", ".*.", "???"],
    // Hane at the head of a stone, no cut behind it.
    ["XO.", ".*.", "?.?"],
    // Hane after a turn (magari).
    ["XO?", "X*.", "x.?"],
    // Attachment on the diagonal shoulder.
    [".O.", "X*.", "..."],
    // Cutting through an unprotected diagonal.
    ["XO?", "O*o", "?o?"],
    // Cutting where a stone of ours already peeps.
    ["XO?", "O*X", "???"],
    // Pushing between two stones (de), nothing of ours behind.
    ["?X?", "O*O", "ooo"],
    // The cut of a knight's move.
    ["OX?", "o*O", "???"],
    // On the edge: chasing along the first line.
    ["X.?", "O*?", "###"],
    // On the edge: blocking the cut.
    ["OX?", "X*O", "###"],
    // On the edge: blocking the connection underneath.
    ["?X?", "x*O", "###"],
    // On the edge: descending (sagari).
    ["?XO", "x*x", "###"],
    // On the edge: the cut.
    ["?OX", "X*O", "###"],
];

/// The (dx, dy) of the eight cells around the centre, in key order.
pub(crate) const CELLS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

const EMPTY: u32 = 0;
const BLACK: u32 = 1;
const WHITE: u32 = 2;
const EDGE: u32 = 3;

fn table() -> &'static [u64] {
    static TABLE: OnceLock<Vec<u64>> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// The codes a pattern character allows, with `x` the colour code of `X` and `o` that of `O`.
fn allowed(ch: u8, x: u32, o: u32) -> Vec<u32> {
    match ch {
        b'X' => vec![x],
        b'O' => vec![o],
        b'.' => vec![EMPTY],
        b'#' => vec![EDGE],
        b'x' => vec![EMPTY, o, EDGE],
        b'o' => vec![EMPTY, x, EDGE],
        _ => vec![EMPTY, BLACK, WHITE, EDGE],
    }
}

fn build() -> Vec<u64> {
    let mut bits = vec![0u64; 1 << 10];
    for rows in PATTERNS {
        let cell = |dx: i32, dy: i32| rows[(dy + 1) as usize].as_bytes()[(dx + 1) as usize];
        for sym in 0..8 {
            for (x, o) in [(BLACK, WHITE), (WHITE, BLACK)] {
                // Cell k of the key holds what the pattern has at the cell that the symmetry sends to it.
                let mut choices: [Vec<u32>; 8] = Default::default();
                for (k, &cell_k) in CELLS.iter().enumerate() {
                    let (sx, sy) = symmetry(sym, cell_k);
                    choices[k] = allowed(cell(sx, sy), x, o);
                }
                expand(&choices, 0, 0, &mut bits);
            }
        }
    }
    bits
}

/// Symmetry `sym` (0 to 7) of the square applied to the offset `(dx, dy)`: a transpose when bit 2 is set, then
/// a reflection of x for bit 0 and of y for bit 1.
pub(crate) fn symmetry(sym: usize, (dx, dy): (i32, i32)) -> (i32, i32) {
    let (a, b) = if sym & 4 != 0 { (dy, dx) } else { (dx, dy) };
    (
        if sym & 1 != 0 { -a } else { a },
        if sym & 2 != 0 { -b } else { b },
    )
}

fn expand(choices: &[Vec<u32>; 8], k: usize, key: u32, bits: &mut [u64]) {
    if k == 8 {
        bits[(key >> 6) as usize] |= 1 << (key & 63);
        return;
    }
    for &c in &choices[k] {
        expand(choices, k + 1, key | (c << (2 * k)), bits);
    }
}

/// The neighbourhood key of an on-board point: the codes of the board's `cells_around` it, two bits each.
#[inline]
pub fn key(board: &Board, i: Idx) -> u32 {
    board.codes_around(i)
}

/// Whether the 3×3 neighbourhood of the on-board point `i` is one of the patterns. Any other cell of the
/// padded array gives some answer without a panic, so that callers may test before they know the cell empty.
#[inline(always)]
pub fn matches(board: &Board, i: Idx) -> bool {
    let key = key(board, i);
    table()[(key >> 6) as usize] >> (key & 63) & 1 != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Grid, Point};

    fn at(diagram: &str, x: u8, y: u8) -> bool {
        let board = Board::from_grid(&Grid::from_diagram(diagram).unwrap()).unwrap();
        matches(&board, board.idx(Point::new(x, y)))
    }

    #[test]
    fn hane_and_cut_shapes_match_in_every_orientation() {
        // The enclosing hane at the centre, then rotated and with the colours swapped.
        assert!(at(".....\n.XOX.\n.....\n.....\n.....", 2, 2));
        assert!(at(".....\n.....\n.....\n.XOX.\n.....", 2, 2));
        assert!(at(".....\n..O..\n...X.\n..O..\n.....", 2, 2));
        assert!(at(".....\n.OXO.\n.....\n.....\n.....", 2, 2));
        // The cut through a diagonal.
        assert!(at(".....\n.XO..\n.O...\n.....\n.....", 2, 2));
        // An empty neighbourhood is no pattern, nor is a lone stone far away.
        assert!(!at(".....\n.....\n.....\n.....\n.....", 2, 2));
        assert!(!at("X....\n.....\n.....\n.....\n.....", 2, 2));
    }

    #[test]
    fn edge_shapes_need_the_edge() {
        // Blocking the cut on the first line: the centre is on the bottom row.
        assert!(at(".....\n.....\n.....\n.OX..\n.X.O.", 2, 4));
        // Stones only on opposite diagonals make no shape.
        assert!(!at(".....\n.X...\n.....\n...O.\n.....", 2, 2));
    }
}
