//! No engine help during one's own game: an uploaded record that holds a position of a game its uploader is
//! playing gets no review until that game ends (the review of a finished game and the estimate refuse a game
//! in play already). A position matches in any of the board's 8 symmetries, with the colours swapped or not;
//! a record position that holds the position in play with a few stones more (a line played on from it) matches
//! too.
//!
//! Which positions of a game in play count: the position in play once it has [`MIN_CURRENT_STONES`] stones (an
//! emptier board is an opening many records share), and every earlier position with [`MIN_PAST_STONES`].

use std::collections::HashSet;

use tesuji_rules::{Color, Game, Grid};

/// Fewest stones the position in play must hold for a record to be matched against it.
pub const MIN_CURRENT_STONES: usize = 3;

/// Fewest stones an earlier position of a game in play must hold to be matched.
pub const MIN_PAST_STONES: usize = 10;

/// Most stones a record's position may have beyond the position in play to count as a line played on from it.
pub const MAX_EXTRA_STONES: usize = 20;

/// A position as compared: its sides and a cell a point in row-major order (0 empty, 1 Black, 2 White).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Cells {
    width: u8,
    height: u8,
    cells: Vec<u8>,
}

impl Cells {
    fn of(grid: &Grid) -> Cells {
        let size = grid.size();
        let cells = size
            .points()
            .map(|p| match grid.get(p) {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            })
            .collect();
        Cells {
            width: size.width(),
            height: size.height(),
            cells,
        }
    }

    fn stones(&self) -> usize {
        self.cells.iter().filter(|&&c| c != 0).count()
    }

    /// The position in symmetry `t` (bit 0 transposes, bit 1 flips x, bit 2 flips y), colours swapped or not.
    fn transformed(&self, t: u8, swap: bool) -> Cells {
        let (w, h) = (usize::from(self.width), usize::from(self.height));
        let transpose = t & 1 != 0;
        let (tw, th) = if transpose { (h, w) } else { (w, h) };
        let mut cells = vec![0; w * h];
        for y in 0..h {
            for x in 0..w {
                let (mut a, mut b) = if transpose { (y, x) } else { (x, y) };
                if t & 2 != 0 {
                    a = tw - 1 - a;
                }
                if t & 4 != 0 {
                    b = th - 1 - b;
                }
                let c = self.cells[y * w + x];
                cells[b * tw + a] = if swap && c != 0 { 3 - c } else { c };
            }
        }
        Cells {
            width: tw as u8,
            height: th as u8,
            cells,
        }
    }

    /// Every stone of `inner` is in `self` at the same point, with at most `extra` stones more.
    fn holds(&self, inner: &Cells, extra: usize) -> bool {
        self.width == inner.width
            && self.height == inner.height
            && inner
                .cells
                .iter()
                .zip(&self.cells)
                .all(|(&i, &o)| i == 0 || i == o)
            && self.stones() <= inner.stones() + extra
    }
}

/// Every position a game has stood in, its start first, then the board after each turn.
pub fn positions_of(game: &Game) -> Vec<Grid> {
    let rules = *game.rules();
    let mut positions = vec![game.start_grid()];
    // A new game under the rules starts as this one did (handicap placement, forced passes) unless stones were
    // set up; then the recorded start is the position.
    let fresh = Game::new(rules).ok().filter(|g| {
        g.start_grid() == game.start_grid() && g.start_to_move() == game.start_to_move()
    });
    let start =
        fresh.or_else(|| Game::from_position(rules, &game.start_grid(), game.start_to_move()).ok());
    let Some(mut at) = start else {
        positions.push(game.grid());
        return positions;
    };
    for action in game.log() {
        if at.apply_action(action.clone()).is_err() {
            break;
        }
        if matches!(action, tesuji_rules::Action::Turn(..)) {
            positions.push(at.grid());
        }
    }
    positions
}

/// A game in play, as records are checked against it.
pub struct InPlay {
    pub id: i64,
    /// Its earlier positions that count, and the one in play when it counts.
    positions: HashSet<Cells>,
    /// The position in play, when it counts.
    current: Option<Cells>,
}

impl InPlay {
    /// Game `id` as it stands.
    pub fn new(id: i64, game: &Game) -> InPlay {
        let current = Some(Cells::of(&game.grid())).filter(|c| c.stones() >= MIN_CURRENT_STONES);
        let mut positions: HashSet<Cells> = positions_of(game)
            .iter()
            .map(Cells::of)
            .filter(|c| c.stones() >= MIN_PAST_STONES)
            .collect();
        positions.extend(current.clone());
        InPlay {
            id,
            positions,
            current,
        }
    }
}

/// The first of `games` that a position of `record` belongs to, in any symmetry and colouring (see the
/// module's notes); `None` when the record may be reviewed.
pub fn game_in_record(record: &[Grid], games: &[InPlay]) -> Option<i64> {
    if games.iter().all(|g| g.positions.is_empty()) {
        return None;
    }
    for grid in record {
        let cells = Cells::of(grid);
        for t in 0..8 {
            for swap in [false, true] {
                let seen = cells.transformed(t, swap);
                for game in games {
                    let continued = game
                        .current
                        .as_ref()
                        .is_some_and(|c| seen.holds(c, MAX_EXTRA_STONES));
                    if continued || game.positions.contains(&seen) {
                        return Some(game.id);
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(rows: &str) -> Grid {
        Grid::from_diagram(rows).unwrap()
    }

    #[test]
    fn the_eight_symmetries_are_distinct_and_each_has_an_inverse() {
        // A position with no symmetry of its own: every transform gives a different position.
        let cells = Cells::of(&grid("b..../..w../...../...../....b"));
        let all: HashSet<Cells> = (0..8).map(|t| cells.transformed(t, false)).collect();
        assert_eq!(all.len(), 8);
        for t in 0..8 {
            let once = cells.transformed(t, true);
            assert!(
                (0..8).any(|u| once.transformed(u, true) == cells),
                "transform {t} has no inverse"
            );
            assert_eq!(once.stones(), cells.stones());
        }
        // A rectangle keeps its points: transposed, its sides swap.
        let rect = Cells::of(&grid("b.w/.../..b/w.."));
        let turned = rect.transformed(1, false);
        assert_eq!((turned.width, turned.height), (4, 3));
        assert_eq!(turned.transformed(1, false), rect);
    }

    #[test]
    fn a_point_moves_where_its_symmetry_says() {
        // Black at (1, 0) on 5×5: each transform puts it on one of its 8 images.
        let cells = Cells::of(&grid(".b.../...../...../...../....."));
        let images: HashSet<(usize, usize)> = [
            (1, 0),
            (3, 0),
            (0, 1),
            (4, 1),
            (0, 3),
            (4, 3),
            (1, 4),
            (3, 4),
        ]
        .into_iter()
        .collect();
        for t in 0..8 {
            let seen = cells.transformed(t, false);
            let at = seen.cells.iter().position(|&c| c == 1).unwrap();
            assert!(images.contains(&(at % 5, at / 5)), "transform {t}: {at}");
        }
    }
}
