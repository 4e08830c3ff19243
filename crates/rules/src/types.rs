//! Small `Copy` types shared by every part of the engine: colours, points, moves, board sizes.

use std::fmt;

/// A player's colour. Black moves first in an even game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    #[inline]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: an index into per-player arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// `B` or `W`, as SGF and results write it.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// `black` or `white`, as GTP, the API and the store write it.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A text that names no colour.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a colour: expected black or white (b, w)")]
pub struct ColorError(pub String);

impl std::str::FromStr for Color {
    type Err = ColorError;

    /// `black`, `white`, `b` or `w`, in any case, spaces around ignored (GTP's and the API's forms).
    fn from_str(text: &str) -> Result<Color, ColorError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("black") || t.eq_ignore_ascii_case("b") {
            Ok(Color::Black)
        } else if t.eq_ignore_ascii_case("white") || t.eq_ignore_ascii_case("w") {
            Ok(Color::White)
        } else {
            Err(ColorError(t.chars().take(40).collect()))
        }
    }
}

/// A value for each colour: prisoners, acceptances, clocks, seats. Indexed by [`Color`], so no caller keeps its
/// own pair or counts on which index is Black.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ByColor<T> {
    pub black: T,
    pub white: T,
}

impl<T> ByColor<T> {
    /// The pair of `f`'s value for each colour.
    pub fn from_fn(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor {
            black: f(Color::Black),
            white: f(Color::White),
        }
    }

    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }

    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }

    /// Each colour's value changed by `f`.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor {
            black: f(self.black),
            white: f(self.white),
        }
    }

    /// Each colour with its value, Black first.
    pub fn iter(&self) -> impl Iterator<Item = (Color, &T)> {
        [(Color::Black, &self.black), (Color::White, &self.white)].into_iter()
    }
}

impl<T> std::ops::Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, color: Color) -> &T {
        self.get(color)
    }
}

impl<T> std::ops::IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, color: Color) -> &mut T {
        self.get_mut(color)
    }
}

/// From the per-player arrays the engine keeps, indexed by [`Color::index`].
impl<T> From<[T; 2]> for ByColor<T> {
    fn from([black, white]: [T; 2]) -> ByColor<T> {
        ByColor { black, white }
    }
}

/// The width and height of a board, each 1..=25.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Size {
    width: u8,
    height: u8,
}

/// The largest side a board may have.
pub const MAX_SIDE: u8 = 25;

impl Size {
    /// A board size, or `None` when a side is outside 1..=25.
    pub fn new(width: u8, height: u8) -> Option<Size> {
        ((1..=MAX_SIDE).contains(&width) && (1..=MAX_SIDE).contains(&height))
            .then_some(Size { width, height })
    }

    /// A square board; `None` outside 1..=25.
    pub fn square(side: u8) -> Option<Size> {
        Size::new(side, side)
    }

    pub const STANDARD: Size = Size {
        width: 19,
        height: 19,
    };

    #[inline]
    pub fn width(self) -> u8 {
        self.width
    }
    #[inline]
    pub fn height(self) -> u8 {
        self.height
    }
    /// The board's dimensions as people write them: `9×9`, `13×19` (width first). The `Display` form (`9`,
    /// `13x19`) is the spec's.
    pub fn dimensions(self) -> String {
        format!("{}×{}", self.width, self.height)
    }

    /// Number of points on the board.
    #[inline]
    pub fn area(self) -> usize {
        self.width as usize * self.height as usize
    }

    pub fn contains(self, p: Point) -> bool {
        p.x < self.width && p.y < self.height
    }

    /// Every point, row by row from the top left.
    pub fn points(self) -> impl Iterator<Item = Point> + Clone {
        let (w, h) = (self.width, self.height);
        (0..h).flat_map(move |y| (0..w).map(move |x| Point::new(x, y)))
    }

    /// The point's index in row-major order (0..area).
    #[inline]
    pub fn index(self, p: Point) -> usize {
        p.y as usize * self.width as usize + p.x as usize
    }

    /// The point at a row-major index.
    #[inline]
    pub fn point_at(self, index: usize) -> Point {
        Point::new(
            (index % self.width as usize) as u8,
            (index / self.width as usize) as u8,
        )
    }

    /// Orthogonal neighbours that lie on the board.
    pub fn neighbors(self, p: Point) -> impl Iterator<Item = Point> {
        let Point { x, y } = p;
        let (w, h) = (self.width, self.height);
        [
            (x > 0).then(|| Point::new(x - 1, y)),
            (x + 1 < w).then(|| Point::new(x + 1, y)),
            (y > 0).then(|| Point::new(x, y - 1)),
            (y + 1 < h).then(|| Point::new(x, y + 1)),
        ]
        .into_iter()
        .flatten()
    }
}

impl Default for Size {
    fn default() -> Self {
        Size::STANDARD
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.width == self.height {
            write!(f, "{}", self.width)
        } else {
            write!(f, "{}x{}", self.width, self.height)
        }
    }
}

/// A point of the board: `x` from the left, `y` from the top, both from 0 (SGF's orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    pub x: u8,
    pub y: u8,
}

impl Point {
    #[inline]
    pub const fn new(x: u8, y: u8) -> Point {
        Point { x, y }
    }

    /// The GTP vertex (`A1` is the bottom left; no `I`) on a board of the given size. A point off the board is
    /// written `(x,y)`, which no GTP reader takes for a vertex.
    pub fn to_gtp(self, size: Size) -> String {
        const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
        if !size.contains(self) {
            return format!("({},{})", self.x, self.y);
        }
        format!(
            "{}{}",
            LETTERS[self.x as usize] as char,
            size.height() - self.y
        )
    }

    /// Reads a GTP vertex (case-insensitive) on a board of the given size; `None` if it is not on the board.
    pub fn from_gtp(text: &str, size: Size) -> Option<Point> {
        let text = text.trim();
        let mut chars = text.chars();
        let letter = chars.next()?.to_ascii_uppercase();
        if !letter.is_ascii_uppercase() || letter == 'I' {
            return None;
        }
        let mut x = letter as u8 - b'A';
        if letter > 'I' {
            x -= 1;
        }
        let row: u32 = chars.as_str().parse().ok()?;
        if row == 0 || row > size.height() as u32 || chars.as_str().starts_with('+') {
            return None;
        }
        let p = Point::new(x, size.height() - row as u8);
        size.contains(p).then_some(p)
    }
}

/// A turn: a stone on a point, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Play(Point),
    Pass,
}

impl Move {
    /// The move as GTP writes it on a board of `size`: a vertex (`D4`), or `pass`.
    pub fn to_gtp(self, size: Size) -> String {
        match self {
            Move::Pass => "pass".to_owned(),
            Move::Play(p) => p.to_gtp(size),
        }
    }
}

/// A move by a given colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    pub color: Color,
    pub mv: Move,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_indexed_by_colour() {
        // The engine's arrays are indexed by `Color::index`: the pair must read them the same way.
        let mut pair = ByColor::from([3, 5]);
        assert_eq!((pair[Color::Black], pair[Color::White]), (3, 5));
        assert_eq!(pair, ByColor::from_fn(|c| [3, 5][c.index()]));
        pair[Color::White] += 1;
        *pair.get_mut(Color::Black) *= 2;
        assert_eq!(pair, ByColor { black: 6, white: 6 });
        let named: Vec<_> = pair
            .map(|n| n + 1)
            .iter()
            .map(|(c, n)| (c.name(), *n))
            .collect();
        assert_eq!(named, [("black", 7), ("white", 7)]);
    }

    #[test]
    fn colours_by_name() {
        for (text, c) in [
            ("black", Color::Black),
            ("B", Color::Black),
            (" White ", Color::White),
            ("w", Color::White),
        ] {
            assert_eq!(text.parse::<Color>(), Ok(c), "{text:?}");
        }
        for c in Color::BOTH {
            assert_eq!(c.name().parse::<Color>(), Ok(c));
            assert_eq!(c.to_string(), c.name());
        }
        for bad in ["", "blue", "bl", "wb", "black white"] {
            let e = bad.parse::<Color>().unwrap_err();
            assert!(e.to_string().contains("not a colour"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn gtp_round_trip() {
        let s = Size::square(19).unwrap();
        assert_eq!(Point::from_gtp("A1", s), Some(Point::new(0, 18)));
        assert_eq!(Move::Play(Point::new(0, 18)).to_gtp(s), "A1");
        assert_eq!(Move::Pass.to_gtp(s), "pass");
        assert_eq!(Point::from_gtp("t19", s), Some(Point::new(18, 0)));
        assert_eq!(Point::from_gtp("J10", s), Some(Point::new(8, 9)));
        assert_eq!(Point::from_gtp("I5", s), None);
        assert_eq!(Point::from_gtp("A20", s), None);
        assert_eq!(Point::from_gtp("A0", s), None);
        assert_eq!(Point::from_gtp("", s), None);
        assert_eq!(Point::from_gtp("A+1", s), None);
        for p in s.points() {
            assert_eq!(Point::from_gtp(&p.to_gtp(s), s), Some(p));
        }
        let big = Size::square(25).unwrap();
        assert_eq!(Point::from_gtp("Z25", big), Some(Point::new(24, 0)));
    }

    #[test]
    fn sizes() {
        assert!(Size::new(0, 5).is_none());
        assert!(Size::new(26, 5).is_none());
        let s = Size::new(9, 13).unwrap();
        assert_eq!(s.to_string(), "9x13");
        assert_eq!(s.dimensions(), "9×13");
        assert_eq!(Size::square(9).unwrap().dimensions(), "9×9");
        assert_eq!(s.points().count(), 117);
        assert_eq!(s.neighbors(Point::new(0, 0)).count(), 2);
        assert_eq!(s.neighbors(Point::new(4, 4)).count(), 4);
        let one = Size::square(1).unwrap();
        assert_eq!(one.neighbors(Point::new(0, 0)).count(), 0);
    }
}
