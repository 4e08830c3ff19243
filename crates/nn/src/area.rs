//! KataGo's area of a position, as its input features 18 and 19 show it: Benson's pass-alive chains and the
//! territory they enclose (`Board::calculateAreaForPla`), area scoring's count (`calculateArea`), and the
//! independent-life count of the group-tax rules (`calculateIndependentLifeArea`). Results are colour codes
//! per padded cell of [`Chains`] (0 nobody, 1 Black, 2 White).
//!
//! KataGo's pass-alive test differs from the textbook Benson in one knob: with suicide forbidden, an
//! opponent stone inside a region need not touch a chain for the region to be vital to it (only its empty
//! points must).

use crate::ladder::{BLACK, Chains, EMPTY, WHITE, other};

/// One maximal region of empty points and opponent stones (of the colour being tested).
struct Region {
    /// Its cells are `cells[start..end]`.
    start: usize,
    end: usize,
    /// Heads of the chains every (empty) point of the region touches: at most the four around its first.
    vital: [usize; 4],
    vital_len: usize,
    /// Points touching no stone of the colour, counted up to 2.
    internal: u8,
    contains_opp: bool,
    /// Next to a chain found not pass-alive.
    borders_dead: bool,
}

/// Marks in `result` what `pla` owns by Benson's test: its pass-alive chains, the regions they enclose with
/// at most one point touching none of them (or, with `safe_big`, any such region without opponent stones),
/// and with `unsafe_big` any region without opponent stones that nobody claimed yet.
fn area_for_pla(
    b: &Chains,
    pla: u8,
    safe_big: bool,
    unsafe_big: bool,
    suicide_legal: bool,
    result: &mut [u8],
) {
    let opp = other(pla);
    let cells = b.cells();
    let mut region_of = vec![usize::MAX; cells];
    let mut order: Vec<usize> = Vec::with_capacity(cells);
    let mut regions: Vec<Region> = Vec::new();
    let mut any_pla = false;
    for y in 0..b.height() {
        for x in 0..b.width() {
            let loc = b.idx(x, y);
            if region_of[loc] != usize::MAX {
                continue;
            }
            let c = b.color(loc);
            if c != EMPTY {
                any_pla |= c == pla;
                continue;
            }
            let r = regions.len();
            let mut region = Region {
                start: order.len(),
                end: order.len(),
                vital: [0; 4],
                vital_len: 0,
                internal: 0,
                contains_opp: false,
                borders_dead: false,
            };
            for n in b.neighbors(loc) {
                if b.color(n) == pla {
                    let h = b.head(n);
                    if !region.vital[..region.vital_len].contains(&h) {
                        region.vital[region.vital_len] = h;
                        region.vital_len += 1;
                    }
                }
            }
            // Breadth-first over the region, keeping only the chains each point touches.
            region_of[loc] = r;
            order.push(loc);
            let mut k = region.start;
            while k < order.len() {
                let p = order[k];
                k += 1;
                if region.vital_len > 0 && (suicide_legal || b.color(p) == EMPTY) {
                    let mut kept = 0;
                    for j in 0..region.vital_len {
                        let h = region.vital[j];
                        if b.touches_chain(p, pla, h) {
                            region.vital[kept] = h;
                            kept += 1;
                        }
                    }
                    region.vital_len = kept;
                }
                if region.internal < 2 && !b.neighbors(p).iter().any(|&n| b.color(n) == pla) {
                    region.internal += 1;
                }
                if b.color(p) == opp {
                    region.contains_opp = true;
                }
                for n in b.neighbors(p) {
                    let c = b.color(n);
                    if (c == EMPTY || c == opp) && region_of[n] == usize::MAX {
                        region_of[n] = r;
                        order.push(n);
                    }
                }
            }
            region.end = order.len();
            regions.push(region);
        }
    }

    let mut heads = Vec::new();
    for loc in 0..cells {
        if b.color(loc) == pla && b.head(loc) == loc {
            heads.push(loc);
        }
    }
    let mut vital_count = vec![0i32; cells];
    for region in &regions {
        for &h in &region.vital[..region.vital_len] {
            vital_count[h] += 1;
        }
    }
    // Benson: a chain with fewer than two vital regions is not pass-alive, and the regions it borders are
    // then vital to nobody. Repeat until nothing changes.
    let mut dead = vec![false; heads.len()];
    loop {
        let mut changed = false;
        for (k, &h) in heads.iter().enumerate() {
            if dead[k] || vital_count[h] >= 2 {
                continue;
            }
            dead[k] = true;
            changed = true;
            let mut s = h;
            loop {
                for n in b.neighbors(s) {
                    let r = region_of.get(n).copied().unwrap_or(usize::MAX);
                    if r != usize::MAX && !regions[r].borders_dead {
                        regions[r].borders_dead = true;
                        for &v in &regions[r].vital[..regions[r].vital_len] {
                            vital_count[v] -= 1;
                        }
                    }
                }
                s = b.next(s);
                if s == h {
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }

    for (k, &h) in heads.iter().enumerate() {
        if !dead[k] {
            let mut s = h;
            loop {
                result[s] = pla;
                s = b.next(s);
                if s == h {
                    break;
                }
            }
        }
    }
    for region in &regions {
        let points = &order[region.start..region.end];
        let enclosed = !region.borders_dead && any_pla;
        if (region.internal <= 1 && enclosed) || (safe_big && !region.contains_opp && enclosed) {
            // Overwrites: an opponent's unsafe territory may have been marked around these stones.
            for &p in points {
                result[p] = pla;
            }
        } else if unsafe_big && !region.contains_opp && any_pla {
            for &p in points {
                if result[p] == EMPTY {
                    result[p] = pla;
                }
            }
        }
    }
}

/// KataGo's `calculateArea`: both colours' pass-alive area (Black first), and with `non_pass_alive_stones`
/// every other stone as its own colour's.
pub(crate) fn area(
    b: &Chains,
    non_pass_alive_stones: bool,
    safe_big: bool,
    unsafe_big: bool,
    suicide_legal: bool,
) -> Vec<u8> {
    let mut result = vec![EMPTY; b.cells()];
    area_for_pla(b, BLACK, safe_big, unsafe_big, suicide_legal, &mut result);
    area_for_pla(b, WHITE, safe_big, unsafe_big, suicide_legal, &mut result);
    if non_pass_alive_stones {
        for y in 0..b.height() {
            for x in 0..b.width() {
                let loc = b.idx(x, y);
                if result[loc] == EMPTY {
                    result[loc] = b.color(loc);
                }
            }
        }
    }
    result
}

/// KataGo's `calculateIndependentLifeArea`: the area-scoring regions (every stone alive) that touch no dame
/// and hold no own stone in atari, that is, not in seki; with the number of such regions, White's minus
/// Black's (the group tax). `keep_territories` adds the other empty points of the basic area,
/// `keep_stones` its other stones.
pub(crate) fn independent_life_area(
    b: &Chains,
    keep_territories: bool,
    keep_stones: bool,
    suicide_legal: bool,
) -> (Vec<u8>, i32) {
    let basic = area(b, true, true, true, suicide_legal);
    let cells = b.cells();
    let mut result = vec![EMPTY; cells];
    let mut seki = vec![false; cells];
    let mut queue = Vec::with_capacity(cells);
    for y in 0..b.height() {
        for x in 0..b.width() {
            let loc = b.idx(x, y);
            let owner = basic[loc];
            if owner == EMPTY || seki[loc] {
                continue;
            }
            let in_atari = b.color(loc) == owner && b.liberties(loc) == 1;
            let touches_dame = b
                .neighbors(loc)
                .iter()
                .any(|&n| b.color(n) == EMPTY && basic[n] == EMPTY);
            if !in_atari && !touches_dame {
                continue;
            }
            seki[loc] = true;
            queue.clear();
            queue.push(loc);
            let mut k = 0;
            while k < queue.len() {
                let p = queue[k];
                k += 1;
                for n in b.neighbors(p) {
                    if basic.get(n) == Some(&owner) && !seki[n] {
                        seki[n] = true;
                        queue.push(n);
                    }
                }
            }
        }
    }
    let mut white_minus_black = 0;
    for y in 0..b.height() {
        for x in 0..b.width() {
            let loc = b.idx(x, y);
            let owner = basic[loc];
            if owner == EMPTY || seki[loc] || result[loc] == owner {
                continue;
            }
            white_minus_black += if owner == WHITE { 1 } else { -1 };
            result[loc] = owner;
            queue.clear();
            queue.push(loc);
            let mut k = 0;
            while k < queue.len() {
                let p = queue[k];
                k += 1;
                for n in b.neighbors(p) {
                    if basic.get(n) == Some(&owner) && result[n] != owner {
                        result[n] = owner;
                        queue.push(n);
                    }
                }
            }
        }
    }
    for y in 0..b.height() {
        for x in 0..b.width() {
            let loc = b.idx(x, y);
            let owner = basic[loc];
            if owner == EMPTY {
                continue;
            }
            let is_stone = owner == b.color(loc);
            if (keep_territories && !is_stone) || (keep_stones && is_stone) {
                result[loc] = owner;
            }
        }
    }
    (result, white_minus_black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Color, Grid, Point};

    fn load(diagram: &str) -> Chains {
        let grid = Grid::from_diagram(diagram).unwrap();
        let size = grid.size();
        Chains::set_up(
            size.width() as usize,
            size.height() as usize,
            |x, y| match grid.get(Point::new(x as u8, y as u8)) {
                Some(Color::Black) => BLACK,
                Some(Color::White) => WHITE,
                None => EMPTY,
            },
        )
    }

    /// The result as rows: `X`/`O` owned, `.` nobody.
    fn show(c: &Chains, result: &[u8]) -> String {
        let rows: Vec<String> = (0..c.height())
            .map(|y| {
                (0..c.width())
                    .map(|x| match result[c.idx(x, y)] {
                        BLACK => 'X',
                        WHITE => 'O',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        rows.join("\n")
    }

    // The expected areas are KataGo 1.17.2's (its input planes 18 and 19 for the same positions).

    #[test]
    fn two_eyes_are_pass_alive_and_one_is_not() {
        let two_eyes = load(
            ". X . X O .\n\
             X X X X O .\n\
             O O O O O .\n\
             . . . . . .",
        );
        assert_eq!(
            show(&two_eyes, &area(&two_eyes, false, false, false, false)),
            "XXXX..\nXXXX..\n......\n......",
            "only Black's chain and its eyes are pass-alive"
        );
        // Area scoring: every other stone as its owner's, and an empty region bordered by one colour.
        assert_eq!(
            show(&two_eyes, &area(&two_eyes, true, true, true, false)),
            "XXXXOO\nXXXXOO\nOOOOOO\nOOOOOO"
        );
        let one_eye = load(
            ". X X X O .\n\
             X X X X O .\n\
             O O O O O .\n\
             . . . . . .",
        );
        assert!(
            area(&one_eye, false, false, false, false)
                .iter()
                .all(|&x| x == EMPTY)
        );
    }

    #[test]
    fn suicide_rules_change_what_is_vital() {
        // A white stone in the middle of Black's big eye touches no black stone. With suicide forbidden only
        // the eye's empty points must touch the chain, so the eye is vital and Black is pass-alive, the
        // white stone dead in its territory; with suicide allowed the eye is not vital and nothing is.
        let c = load(
            "X X X X X X X\n\
             X . . . X . X\n\
             X . O . X X X\n\
             X . . . X X X\n\
             X X X X X X X",
        );
        assert!(
            area(&c, false, false, false, false)
                .iter()
                .enumerate()
                .all(|(i, &x)| x == BLACK || c.color(i) == crate::ladder::EDGE)
        );
        assert!(
            area(&c, false, false, false, true)
                .iter()
                .all(|&x| x == EMPTY)
        );
        assert_eq!(
            show(&c, &area(&c, true, true, true, true)),
            "XXXXXXX\nX...XXX\nX.O.XXX\nX...XXX\nXXXXXXX"
        );
    }

    #[test]
    fn regions_touching_dame_are_not_independent() {
        // A column of dame between two walls: every region touches it, so only the stones count.
        let dame = load(
            ". X . O .\n\
             X X . O O\n\
             . X . O .\n\
             X X . O O\n\
             . X . O .",
        );
        let (life, count) = independent_life_area(&dame, false, true, false);
        assert_eq!(show(&dame, &life), ".X.O.\nXX.OO\n.X.O.\nXX.OO\n.X.O.");
        assert_eq!(count, 0);
        let apart = load(
            ". X O . O\n\
             X X O O O\n\
             . X O . O\n\
             X X O O O\n\
             . X O . O",
        );
        let (life, count) = independent_life_area(&apart, false, true, false);
        assert_eq!(show(&apart, &life), "XXOOO\nXXOOO\nXXOOO\nXXOOO\nXXOOO");
        assert_eq!(count, 1 - 1);
        let black_only = load(
            ". X .\n\
             X X X\n\
             . . .",
        );
        let (_, count) = independent_life_area(&black_only, false, false, false);
        assert_eq!(count, -1, "one independent black region");
    }
}
