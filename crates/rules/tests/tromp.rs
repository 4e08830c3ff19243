//! John Tromp's counts: legal positions on small boards, and complete 2×2 games by length.

mod common;

use tesuji_rules::{Board, Color, Game, Grid, Rules, Size, perft::game_lengths};

/// Counts the colourings of a board in which every chain has a liberty, placing stones one point at a time
/// with the engine's own chain and liberty code. A chain without liberties never regains one (later points
/// only add stones), so such a branch is cut at once.
fn count_legal(size: Size) -> u64 {
    fn go(boards: &mut [Board], points: &[usize]) -> u64 {
        let Some((&i, rest_points)) = points.split_first() else {
            return 1;
        };
        let (board, rest) = boards.split_first_mut().unwrap();
        // Leave the point empty.
        rest[0].clone_from(board);
        let mut n = go(rest, rest_points);
        for c in Color::BOTH {
            rest[0].clone_from(board);
            rest[0].setup_stone(c, i);
            let stride = rest[0].stride();
            let alive = [i, i - 1, i + 1, i - stride, i + stride]
                .into_iter()
                .filter(|&j| rest[0].color_at(j).is_some())
                .all(|j| rest[0].has_liberty(j));
            if alive {
                n += go(rest, rest_points);
            }
        }
        n
    }
    let board = Board::new(size);
    let points: Vec<usize> = size.points().map(|p| board.idx(p)).collect();
    let mut boards = vec![board; points.len() + 1];
    go(&mut boards, &points)
}

#[test]
fn legal_position_counts_up_to_16_points() {
    let table = common::data("tromp-legal-counts/legal_mxn.tsv");
    let mut checked = 0;
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (m, n): (u64, u64) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        if m * n > 16 || m > n {
            continue;
        }
        let expected: u64 = f[2].parse().unwrap();
        let size = Size::new(m as u8, n as u8).unwrap();
        assert_eq!(count_legal(size), expected, "{m}x{n}");
        // The transposed board must agree with the table too.
        let transposed = Size::new(n as u8, m as u8).unwrap();
        assert_eq!(count_legal(transposed), expected, "{n}x{m}");
        checked += 1;
    }
    assert_eq!(checked, 27);
}

#[test]
fn two_by_two_games_by_length() {
    let expected: Vec<u64> = common::data("tromp-2x2-games/2x2turns.txt")
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let mut rules: Rules = "tromp-taylor:suicide=forbidden".parse().unwrap();
    rules.size = Size::square(2).unwrap();
    let game = Game::from_position(rules, &Grid::new(rules.size), Color::Black).unwrap();
    let lengths = game_lengths(&game, 24);
    assert_eq!(&lengths[..], &expected[..=24]);
}
