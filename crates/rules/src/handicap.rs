//! Fixed handicap points (RULES.md §8): GNU Go's `fixed_handicap`, the GTP reference.

use crate::types::{Point, Size};

/// The fixed handicap points for `stones` stones (2..=9), in GNU Go's order (row by row from the top), or
/// `None` when the board does not allow that many: sides below 7, more than 4 stones unless both sides are odd
/// and at least 9. Rectangular boards follow the same rule on each axis.
pub fn fixed_handicap_points(size: Size, stones: u8) -> Option<Vec<Point>> {
    let (w, h) = (size.width(), size.height());
    if !(2..=9).contains(&stones) || w < 7 || h < 7 {
        return None;
    }
    if stones > 4 && (w % 2 == 0 || h % 2 == 0 || w < 9 || h < 9) {
        return None;
    }
    // Third line up to 11 lines, fourth line from 12.
    let edge = |side: u8| if side <= 11 { 2 } else { 3 };
    let (lo_x, hi_x, mid_x) = (edge(w), w - 1 - edge(w), w / 2);
    let (lo_y, hi_y, mid_y) = (edge(h), h - 1 - edge(h), h / 2);
    // (x, y) in terms of low/mid/high, y from the top.
    let top_left = (lo_x, lo_y);
    let top_right = (hi_x, lo_y);
    let bottom_left = (lo_x, hi_y);
    let bottom_right = (hi_x, hi_y);
    let center = (mid_x, mid_y);
    let left = (lo_x, mid_y);
    let right = (hi_x, mid_y);
    let top = (mid_x, lo_y);
    let bottom = (mid_x, hi_y);
    let mut pts: Vec<(u8, u8)> = vec![top_right, bottom_left];
    if stones >= 3 {
        pts.push(top_left);
    }
    if stones >= 4 {
        pts.push(bottom_right);
    }
    if stones >= 6 {
        pts.extend([left, right]);
    }
    if stones >= 8 {
        pts.extend([top, bottom]);
    }
    if stones % 2 == 1 && stones >= 5 {
        pts.push(center);
    }
    let mut pts: Vec<Point> = pts.into_iter().map(|(x, y)| Point::new(x, y)).collect();
    pts.sort_by_key(|p| (p.y, p.x));
    Some(pts)
}

/// The largest fixed handicap a board allows (0 when it allows none).
pub fn max_fixed_handicap(size: Size) -> u8 {
    (2..=9)
        .rev()
        .find(|&n| fixed_handicap_points(size, n).is_some())
        .unwrap_or(0)
}
