//! A child's prior: what the tree knows of a move before it has searched it (captures, rescues, ladders, shape,
//! the lines, closeness to the last move).

use tesuji_rules::{Board, Idx, Point, Size};

use crate::patterns;
use crate::policy::{PASS, Reading};

/// On boards of 13×13 and more: the weight of a child's prior in its AMAF record, in prior visits.
pub(super) const AMAF_PRIOR: f32 = 5.0;

/// On boards of 13×13 and more: the prior (visits, value) of a play at common-fate-graph distance 1, 2 and 3
/// from the last move.
pub(super) const CFG_PRIOR: [(f32, f32); 3] = [(15.0, 0.9), (12.0, 0.85), (5.0, 0.7)];

/// Common-fate-graph distances from the chain of the stone at `last`, up to 3, per padded index (0: farther,
/// the chain itself, or no last move). A chain is one node: every stone of a chain at distance `d` is at `d`,
/// and its neighbours are at `d + 1`. `queue` keeps the cells marked, so the next call clears only those
/// instead of the whole board (this runs at every expansion of the tree).
pub(super) fn cfg_distances(board: &Board, last: Idx, dist: &mut Vec<u8>, queue: &mut Vec<Idx>) {
    let cells = board.stride() * (board.size().height() as usize + 2) + 1;
    if dist.len() == cells {
        for &i in queue.iter() {
            dist[i] = 0;
        }
    } else {
        dist.clear();
        dist.resize(cells, 0);
    }
    queue.clear();
    if last == PASS || board.color_at(last).is_none() {
        return;
    }
    const SEEN: u8 = u8::MAX;
    for s in board.chain_stones(last) {
        dist[s] = SEEN;
        queue.push(s);
    }
    // Breadth first, one ring at a time; the chain itself is marked SEEN and reset at the end.
    let mut ring = 0;
    let mut start = 0;
    while ring < 3 && start < queue.len() {
        ring += 1;
        let end = queue.len();
        for k in start..end {
            for n in board.neighbors(queue[k]) {
                if dist[n] != 0 {
                    continue;
                }
                if board.is_empty_at(n) {
                    dist[n] = ring;
                    queue.push(n);
                } else if board.color_at(n).is_some() {
                    for t in board.chain_stones(n) {
                        dist[t] = ring;
                        queue.push(t);
                    }
                }
            }
        }
        start = end;
    }
    for s in board.chain_stones(last) {
        dist[s] = 0;
    }
}

/// Prior visits and wins of a child: an even start, then knowledge.
pub(super) fn prior(board: &Board, m: Idx, last: Idx, size: Size, reading: &Reading) -> (f32, f32) {
    const EVEN: f32 = 10.0;
    if m == PASS {
        return (EVEN, 0.3 * EVEN);
    }
    let (mut n, mut w) = (EVEN, 0.5 * EVEN);
    let mut add = |visits: f32, value: f32| {
        n += visits;
        w += visits * value;
    };
    let t = reading.tactics;
    if t.captured > 0 {
        add(10.0 + 5.0 * t.captured.min(6) as f32, 1.0);
    }
    if t.rescued > 0 {
        if reading.escape_fails {
            // Running in a ladder: the chain dies anyway, bigger.
            add(20.0 + 2.0 * t.rescued.min(10) as f32, 0.0);
        } else {
            add(
                10.0 + 5.0 * t.rescued.min(6) as f32,
                if t.liberties >= 3 { 1.0 } else { 0.7 },
            );
        }
    }
    if t.is_self_atari() {
        add(if t.stones >= 3 { 30.0 } else { 15.0 }, 0.0);
    } else {
        let caught = reading.caught;
        if caught > 0 {
            add(10.0 + 5.0 * caught.min(6) as f32, 0.9);
        }
        if t.captured == 0 && t.liberties == 2 && t.stones >= 3 {
            // Leaves a chain of three or more in a two-liberty squeeze: a little doubtful.
            add(5.0, 0.2);
        }
    }
    let big = crate::policy::is_big(size);
    if last != PASS && board.color_at(last).is_some() {
        let near = board.neighbors(last).contains(&m) || board.diagonals(last).contains(&m);
        if near && !big {
            add(5.0, 0.7);
        }
        if near && patterns::matches(board, m) {
            add(10.0, 0.9);
        }
    } else if patterns::matches(board, m) {
        add(5.0, 0.8);
    }
    // Distance to the edge, and whether any stone is within two lines (Manhattan distance 2).
    let p = board.point(m);
    let edge =
        p.x.min(p.y)
            .min(size.width() - 1 - p.x)
            .min(size.height() - 1 - p.y);
    let lonely = !near_stones(board, p, size);
    if big {
        // The opening on a big board: in an empty area (no stone within three lines either way) the third and
        // fourth lines take territory and the first two lines waste a move; left alone, the playouts would
        // prefer the second line.
        // Away from contact (no stone next to it or diagonally), the first two lines are slow even near other
        // stones: a move there is rarely more than a shape move a player would not make.
        let open = lonely && !stones_in_square(board, p, size, 3);
        let contact = board
            .neighbors(m)
            .into_iter()
            .chain(board.diagonals(m))
            .any(|n| board.color_at(n).is_some());
        match edge {
            0 if lonely => add(30.0, 0.05),
            0 if !contact => add(15.0, 0.15),
            0 => add(5.0, 0.3),
            1 if open => add(30.0, 0.1),
            1 if lonely => add(20.0, 0.2),
            1 if !contact => add(10.0, 0.3),
            2 | 3 if open => add(20.0, 0.75),
            2 | 3 if lonely => add(10.0, 0.65),
            _ if open => add(10.0, 0.45),
            _ => {}
        }
    } else if edge == 0 && lonely {
        add(15.0, 0.1);
    } else if edge == 0 {
        add(5.0, 0.3);
    }
    (n, w)
}

/// Whether a stone stands in the square of points within `r` lines of `p` in both directions.
pub(super) fn stones_in_square(board: &Board, p: Point, size: Size, r: i32) -> bool {
    stone_around(board, p, size, r, |_, _| true)
}

/// Whether a stone stands within Manhattan distance 2 of `p`.
pub(super) fn near_stones(board: &Board, p: Point, size: Size) -> bool {
    stone_around(board, p, size, 2, |dx, dy| dx.abs() + dy.abs() <= 2)
}

/// Whether a stone stands on a board point at an offset (dx, dy) from `p` with |dx|, |dy| ≤ `r` that `within`
/// accepts.
pub(super) fn stone_around(
    board: &Board,
    p: Point,
    size: Size,
    r: i32,
    within: impl Fn(i32, i32) -> bool,
) -> bool {
    let (x0, y0) = ((p.x as i32 - r).max(0), (p.y as i32 - r).max(0));
    let x1 = (p.x as i32 + r).min(size.width() as i32 - 1);
    let y1 = (p.y as i32 + r).min(size.height() as i32 - 1);
    (y0..=y1).any(|y| {
        (x0..=x1).any(|x| {
            within(x - p.x as i32, y - p.y as i32)
                && board.get(Point::new(x as u8, y as u8)).is_some()
        })
    })
}
