//! The board's playout primitives against literal definitions, on positions from random games: libEGO's eye
//! test, light legality, the combined candidate test, the scan that picks the light playout's move, the count
//! of empty neighbours, the cells' codes and the chains' names.

use proptest::prelude::*;
use tesuji_rules::{Board, Color, Grid, Point, Size};

/// libEGO's eye, literally: all four neighbours `c` or off the board, and the opponent's diagonals plus one
/// if any diagonal is off the board fewer than two.
fn literal_eye(grid: &Grid, c: Color, p: Point) -> bool {
    let size = grid.size();
    let (x, y) = (p.x as i32, p.y as i32);
    let at = |dx: i32, dy: i32| {
        let (nx, ny) = (x + dx, y + dy);
        if nx < 0 || ny < 0 || nx >= size.width() as i32 || ny >= size.height() as i32 {
            None
        } else {
            Some(grid.get(Point::new(nx as u8, ny as u8)))
        }
    };
    let orthogonal_ok = [(0, -1), (-1, 0), (1, 0), (0, 1)]
        .iter()
        .all(|&(dx, dy)| at(dx, dy).is_none() || at(dx, dy) == Some(Some(c)));
    let diagonals = [(-1, -1), (1, -1), (-1, 1), (1, 1)].map(|(dx, dy)| at(dx, dy));
    let opponent = diagonals
        .iter()
        .filter(|d| **d == Some(Some(c.opponent())))
        .count();
    let edge = diagonals.iter().any(Option::is_none) as usize;
    grid.get(p).is_none() && orthogonal_ok && opponent + edge < 2
}

/// A position from `choices` random light-legal plays.
fn random_board(size: Size, choices: &[u16]) -> (Board, Color) {
    let mut board = Board::new(size);
    let to_move = play_random(&mut board, Color::Black, choices);
    (board, to_move)
}

/// Plays on `board` from `to_move`, one turn per choice: the chosen empty point when it is light-legal, else a
/// pass. Returns the colour to move after.
fn play_random(board: &mut Board, mut to_move: Color, choices: &[u16]) -> Color {
    for &k in choices {
        let empty = board.empty_points();
        if empty.is_empty() {
            break;
        }
        let i = empty[k as usize % empty.len()] as usize;
        if board.is_light_legal(to_move, i) {
            board.play(to_move, i);
        } else {
            board.pass();
        }
        to_move = to_move.opponent();
    }
    to_move
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn playout_primitives_match_their_definitions(
        w in 1u8..=9,
        h in 1u8..=9,
        choices in prop::collection::vec(any::<u16>(), 0..120),
        start in any::<u16>(),
    ) {
        let size = Size::new(w, h).unwrap();
        let (board, to_move) = random_board(size, &choices);
        prop_assert!(board.is_consistent());
        let grid = board.to_grid();
        for c in Color::BOTH {
            for p in size.points() {
                let i = board.idx(p);
                prop_assert_eq!(board.is_eyelike(c, i), literal_eye(&grid, c, p), "{:?} {:?}", c, p);
                let empty_around = board.neighbors(i).iter().filter(|&&n| board.is_empty_at(n)).count();
                prop_assert_eq!(board.empty_neighbor_count(i), empty_around as u32);
                // The playouts' branch-free neighbour summaries, against the one-by-one tests.
                let around = board.neighbors(i);
                let mask = |f: &dyn Fn(usize) -> bool| {
                    (0..4).filter(|&k| f(around[k])).map(|k| 1u8 << k).sum::<u8>()
                };
                let own = mask(&|n| board.color_at(n) == Some(c));
                let captures = around
                    .iter()
                    .any(|&n| board.color_at(n) == Some(c.opponent()) && board.in_atari(n));
                prop_assert_eq!(board.captures_and_own(c, i), (captures, own), "{:?} {:?}", c, p);
                let own_in_atari = mask(&|n| board.color_at(n) == Some(c) && board.in_atari(n));
                let ataris = if grid.get(p).is_some() {
                    (board.in_atari(i), own_in_atari)
                } else {
                    (false, 0)
                };
                prop_assert_eq!(board.ataris_around(c, i), ataris, "{:?} {:?}", c, p);
                let code = match grid.get(p) {
                    None => 0,
                    Some(Color::Black) => 1,
                    Some(Color::White) => 2,
                };
                prop_assert_eq!(board.cell_code(i), code);
                if grid.get(p).is_some() {
                    prop_assert!(!board.is_light_candidate(c, i));
                    continue;
                }
                // Light legality: the simple-ko point and single-stone suicide are out, larger suicide is in.
                // (The ko point binds the player to move only.)
                if c != to_move {
                    continue;
                }
                let legal = board.check(c, i, true, true, false).is_ok();
                prop_assert_eq!(board.is_light_legal(c, i), legal);
                prop_assert_eq!(
                    board.is_light_candidate(c, i),
                    legal && !board.is_eyelike(c, i)
                );
                // Uniform playouts: simple ko and no suicide at all.
                prop_assert_eq!(
                    board.is_uniform_candidate(c, i),
                    board.check(c, i, true, false, false).is_ok() && !board.is_eyelike(c, i)
                );
            }
        }
        // Off the board: the frame around it and beyond the array.
        for i in 0..board.stride() {
            prop_assert_eq!(board.cell_code(i), 3);
        }
        prop_assert_eq!(board.cell_code(usize::MAX), 3);
        // The 3×3 key around every cell of the array, border ring included, and a little beyond it: the codes
        // of the eight cells NW, N, NE, W, E, SW, S, SE, two bits each.
        let s = board.stride() as isize;
        let cells = (size.height() as usize + 2) * board.stride() + 1;
        for i in (0..cells + 3).chain([usize::MAX - 1, usize::MAX]) {
            let expected = [-s - 1, -s, -s + 1, -1, 1, s - 1, s, s + 1]
                .iter()
                .enumerate()
                .map(|(k, &d)| u32::from(board.cell_code(i.wrapping_add_signed(d))) << (2 * k))
                .sum::<u32>();
            prop_assert_eq!(board.codes_around(i), expected, "cell {}", i);
        }
        // Chain names: two stones share one exactly when one's chain holds the other; empty points have none.
        for p in size.points() {
            let i = board.idx(p);
            if grid.get(p).is_none() {
                prop_assert_eq!(board.chain_id(i), 0);
                continue;
            }
            prop_assert!(board.chain_id(i) != 0);
            for q in size.points().filter(|&q| grid.get(q).is_some()) {
                let j = board.idx(q);
                let joined = board.chain_stones(i).any(|s| s == j);
                prop_assert_eq!(board.chain_id(i) == board.chain_id(j), joined, "{:?} {:?}", p, q);
            }
        }
        // The scan: the first candidate from `start` in the empty list, wrapping around.
        let empty = board.empty_points();
        let expected = (!empty.is_empty())
            .then(|| {
                let n = empty.len();
                (0..n)
                    .map(|k| empty[(start as usize % n + k) % n] as usize)
                    .find(|&i| board.is_light_candidate(to_move, i))
            })
            .flatten();
        prop_assert_eq!(board.first_light_candidate(to_move, start as usize), expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// A board that stops keeping its snapshot plays on exactly like one that keeps it (hash, chains, counts),
    /// and turning the snapshot back on rebuilds the packed position exactly.
    #[test]
    fn the_snapshot_switch_changes_nothing_else(
        w in 1u8..=9,
        h in 1u8..=9,
        before in prop::collection::vec(any::<u16>(), 0..60),
        after in prop::collection::vec(any::<u16>(), 0..60),
    ) {
        let size = Size::new(w, h).unwrap();
        let (mut kept, to_move) = random_board(size, &before);
        let mut light = kept.clone();
        light.keep_snapshot(false);
        prop_assert!(light.snapshot().is_empty());
        // Both boards list their empty points in the same order, so the same choices make the same plays.
        play_random(&mut kept, to_move, &after);
        play_random(&mut light, to_move, &after);
        prop_assert!(light.snapshot().is_empty());
        prop_assert!(light.is_consistent());
        prop_assert_eq!(&kept, &light);
        prop_assert_eq!(kept.hash(), light.hash());
        prop_assert_eq!(kept.captures(), light.captures());
        prop_assert_eq!(kept.empty_points(), light.empty_points());
        light.keep_snapshot(true);
        prop_assert_eq!(light.snapshot(), kept.snapshot());
        prop_assert!(light.is_consistent());
    }
}
