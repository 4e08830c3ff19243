//! [`Grid`]: a plain board colouring, built from a diagram for tests and docs, and the common currency between the
//! fast board, scoring and the slow reference implementation.

use std::fmt;

use crate::types::{Color, Point, Size};

/// Why a diagram could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiagramError {
    #[error("diagram is empty")]
    Empty,
    #[error("diagram row {row} has {found} points, row 1 has {expected}")]
    RaggedRow {
        row: usize,
        found: usize,
        expected: usize,
    },
    #[error("diagram is {width}x{height}; sides must be 1 to 25")]
    BadSize { width: usize, height: usize },
    #[error("diagram row {row}, column {column}: unexpected character {found:?} (use . X b O w)")]
    BadChar {
        row: usize,
        column: usize,
        found: char,
    },
}

/// A board colouring: every point black, white or empty. No rules, no history.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    size: Size,
    cells: Vec<Option<Color>>,
}

impl Grid {
    /// An empty board.
    pub fn new(size: Size) -> Grid {
        Grid {
            size,
            cells: vec![None; size.area()],
        }
    }

    pub fn size(&self) -> Size {
        self.size
    }

    /// The colour at a point; `None` for empty points and for points off the board.
    #[inline]
    pub fn get(&self, p: Point) -> Option<Color> {
        if self.size.contains(p) {
            self.cells[self.size.index(p)]
        } else {
            None
        }
    }

    /// Sets a point; points off the board are ignored.
    pub fn set(&mut self, p: Point, c: Option<Color>) {
        if self.size.contains(p) {
            let i = self.size.index(p);
            self.cells[i] = c;
        }
    }

    /// The cells in row-major order from the top left.
    pub fn cells(&self) -> &[Option<Color>] {
        &self.cells
    }

    /// Number of stones of a colour.
    pub fn count(&self, c: Color) -> usize {
        self.cells.iter().filter(|&&x| x == Some(c)).count()
    }

    /// Reads rows of `.` (empty), `X`/`x`/`b`/`B`/`#` (black), `O`/`o`/`w`/`W` (white), top row first. Rows are
    /// separated by newlines or `/`; spaces inside a row are ignored, as are blank lines.
    pub fn from_diagram(text: &str) -> Result<Grid, DiagramError> {
        let rows: Vec<&str> = text
            .split(['\n', '/'])
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .collect();
        if rows.is_empty() {
            return Err(DiagramError::Empty);
        }
        let mut parsed: Vec<Vec<Option<Color>>> = Vec::with_capacity(rows.len());
        for (r, row) in rows.iter().enumerate() {
            let mut cells = Vec::new();
            for (c, ch) in row.chars().filter(|c| !c.is_whitespace()).enumerate() {
                cells.push(match ch {
                    '.' | '+' => None,
                    'X' | 'x' | 'b' | 'B' | '#' => Some(Color::Black),
                    'O' | 'o' | 'w' | 'W' => Some(Color::White),
                    found => {
                        return Err(DiagramError::BadChar {
                            row: r + 1,
                            column: c + 1,
                            found,
                        });
                    }
                });
            }
            if let Some(first) = parsed.first()
                && first.len() != cells.len()
            {
                return Err(DiagramError::RaggedRow {
                    row: r + 1,
                    found: cells.len(),
                    expected: first.len(),
                });
            }
            parsed.push(cells);
        }
        let (width, height) = (parsed[0].len(), parsed.len());
        let size = u8::try_from(width)
            .ok()
            .zip(u8::try_from(height).ok())
            .and_then(|(w, h)| Size::new(w, h))
            .ok_or(DiagramError::BadSize { width, height })?;
        Ok(Grid {
            size,
            cells: parsed.into_iter().flatten().collect(),
        })
    }

    /// The diagram, one row per line, `.` `X` `O`.
    pub fn to_diagram(&self) -> String {
        let mut s = String::with_capacity(self.cells.len() + self.size.height() as usize);
        for (i, c) in self.cells.iter().enumerate() {
            s.push(match c {
                None => '.',
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
            });
            if (i + 1) % self.size.width() as usize == 0 {
                s.push('\n');
            }
        }
        s
    }

    /// The diagram on one line in the perft notation: rows separated by `/`, `.` `b` `w`.
    pub fn to_rows(&self) -> String {
        let mut s = String::new();
        for (i, c) in self.cells.iter().enumerate() {
            if i > 0 && i % self.size.width() as usize == 0 {
                s.push('/');
            }
            s.push(match c {
                None => '.',
                Some(Color::Black) => 'b',
                Some(Color::White) => 'w',
            });
        }
        s
    }

    /// The chain through `p` (points of the same colour connected orthogonally), or empty for an empty point.
    pub fn chain(&self, p: Point) -> Vec<Point> {
        match self.get(p) {
            None => Vec::new(),
            Some(c) => self.region(p, |x| x == Some(c)),
        }
    }

    /// The connected set of points from `p` whose contents satisfy `member` (`p` itself must satisfy it).
    pub fn region(&self, p: Point, member: impl Fn(Option<Color>) -> bool) -> Vec<Point> {
        if !self.size.contains(p) || !member(self.get(p)) {
            return Vec::new();
        }
        let mut seen = vec![false; self.cells.len()];
        seen[self.size.index(p)] = true;
        let mut out = vec![p];
        let mut i = 0;
        while i < out.len() {
            let q = out[i];
            i += 1;
            for n in self.size.neighbors(q) {
                let ni = self.size.index(n);
                if !seen[ni] && member(self.cells[ni]) {
                    seen[ni] = true;
                    out.push(n);
                }
            }
        }
        out
    }

    /// The distinct empty points next to the chain through `p`.
    pub fn liberties(&self, p: Point) -> Vec<Point> {
        let mut libs: Vec<Point> = self
            .chain(p)
            .into_iter()
            .flat_map(|q| self.size.neighbors(q))
            .filter(|&n| self.get(n).is_none())
            .collect();
        libs.sort_unstable();
        libs.dedup();
        libs
    }

    /// Tromp-Taylor rule 3: whether `p` (not of colour `c`) reaches `c` along points of its own colour.
    pub fn reaches(&self, p: Point, c: Option<Color>) -> bool {
        let own = self.get(p);
        own != c
            && self
                .region(p, |x| x == own)
                .into_iter()
                .any(|q| self.size.neighbors(q).any(|n| self.get(n) == c))
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid {}\n{}", self.size, self.to_diagram())
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_diagram())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagram_round_trip() {
        let g = Grid::from_diagram(".w.bw/wbbbw/w.bww/bbbw./wwww.").unwrap();
        assert_eq!(g.size(), Size::square(5).unwrap());
        assert_eq!(g.to_rows(), ".w.bw/wbbbw/w.bww/bbbw./wwww.");
        assert_eq!(Grid::from_diagram(&g.to_diagram()).unwrap(), g);
        assert_eq!(g.get(Point::new(1, 0)), Some(Color::White));
        assert_eq!(g.count(Color::Black), 8);
    }

    #[test]
    fn diagram_errors() {
        assert_eq!(Grid::from_diagram(" \n"), Err(DiagramError::Empty));
        assert!(matches!(
            Grid::from_diagram("..\n..."),
            Err(DiagramError::RaggedRow { row: 2, .. })
        ));
        assert!(matches!(
            Grid::from_diagram("..\n.z"),
            Err(DiagramError::BadChar {
                row: 2,
                column: 2,
                found: 'z'
            })
        ));
        assert!(matches!(
            Grid::from_diagram(&".".repeat(26)),
            Err(DiagramError::BadSize { width: 26, .. })
        ));
    }

    #[test]
    fn reach_and_liberties() {
        // Seed 000, rule 4: the lone X in the middle reaches no empty point.
        let g = Grid::from_diagram(".O.\nOXO\n.O.").unwrap();
        assert!(!g.reaches(Point::new(1, 1), None));
        assert!(g.reaches(Point::new(1, 0), None));
        assert_eq!(g.liberties(Point::new(1, 1)), vec![]);
        assert_eq!(g.liberties(Point::new(0, 1)).len(), 2);
    }
}
