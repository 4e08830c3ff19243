//! Move features, and their strengths learned from game records: the tree's pattern prior.
//!
//! Every candidate move of a position has one *level* in each of the [`GROUPS`] feature groups of [`Group`]:
//! its 3×3 neighbourhood (with which of the four adjacent chains are in atari), what it captures, rescues or puts
//! in atari (with the ladders read), whether it is a self-atari, its distances to the last two moves, its line,
//! its wider shape (the twelve points within two steps), and the liberties of a contact fight. A move's
//! *strength* is the product of its levels' gammas (a generalized Bradley–Terry model over teams of features,
//! after Rémi Coulom, "Computing Elo Ratings of Move Patterns in the Game of Go", 2007), and the model's chance
//! that a player picks move `m` is `strength(m) / Σ strength` over the position's candidates.
//!
//! The gammas are trained by `tesuji train patterns` (minorization-maximization over records of games) and kept
//! in `data/gammas.txt` beside this crate's sources; the file says how it was made. Levels the file does not
//! name have gamma 1, so any file, even an empty one, is a model.

use std::collections::HashMap;
use std::sync::OnceLock;

use tesuji_rules::{Board, ByColor, Color, Idx, Size};

use crate::ladder::{Ladder, chain_liberties};
use crate::patterns::{self, CELLS};
use crate::policy::{PASS, Reading, is_big};

/// Number of feature groups.
pub const GROUPS: usize = 10;

/// The feature groups, in the order of a [`Features`] array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// The 3×3 neighbourhood, from the mover's side, the same in all eight symmetries (see [`pattern_key`]);
    /// a pass has its own two keys ([`PASS_KEY`], [`PASS_AFTER_PASS_KEY`]).
    Pattern,
    /// 0 nothing; 1 one stone, 2 two or three, 3 four or more; 4 the chain of the last move, any size.
    Capture,
    /// Own stones in atari joined: 0 none; 1 to two liberties where a ladder catches them; 2 to two liberties;
    /// 3 to three or more.
    Escape,
    /// A play that captures nothing and is left one liberty: 0 not; 1, 2, 3 of one, two, three or more stones.
    SelfAtari,
    /// 0 puts no chain in atari; 1 does; 2 starts a ladder that captures.
    Atari,
    /// Distance to the last move, `dx + dy + max(dx, dy)` (2 for a neighbour, 3 for a diagonal): level
    /// `min(d, 17) + 1`, 0 when the last move was a pass or there was none.
    Last,
    /// The same distance to the move before the last one (the mover's own previous move; 0 when its stone was
    /// captured and the play is on its point).
    Prev,
    /// The line, 1 on the edge: level `min(line, 5)`.
    Edge,
    /// The twelve points within two steps (the 3×3 square and the four points two lines away), from the
    /// mover's side, the same in all eight symmetries (see [`shape_key`]); a pass has [`PASS_KEY`].
    Shape,
    /// A contact fight's liberties: 0 when no stone is beside the play; otherwise `1 + 5·own + opp`, with
    /// `own` the mover's chain after the play (0: one liberty or none, 1: two, 2: three or more; as
    /// [`Tactics::liberties`](crate::policy::Tactics::liberties) counts them) and `opp` the fewest liberties
    /// the play leaves an adjacent opponent chain (0: no opponent beside it, 1: none, it is captured, 2: one,
    /// 3: two, 4: three or more).
    Contact,
}

impl Group {
    pub const ALL: [Group; GROUPS] = [
        Group::Pattern,
        Group::Capture,
        Group::Escape,
        Group::SelfAtari,
        Group::Atari,
        Group::Last,
        Group::Prev,
        Group::Edge,
        Group::Shape,
        Group::Contact,
    ];

    /// The groups whose levels are keys of shapes (a gamma for each key seen often enough, one for the rest)
    /// rather than small numbers.
    pub const KEYED: [Group; 2] = [Group::Pattern, Group::Shape];

    /// This group's place in [`Group::KEYED`], if it is keyed.
    pub fn keyed(self) -> Option<usize> {
        Group::KEYED.iter().position(|&g| g == self)
    }

    /// The name in a gammas file.
    pub fn name(self) -> &'static str {
        match self {
            Group::Pattern => "pattern",
            Group::Capture => "capture",
            Group::Escape => "escape",
            Group::SelfAtari => "self_atari",
            Group::Atari => "atari",
            Group::Last => "last",
            Group::Prev => "prev",
            Group::Edge => "edge",
            Group::Shape => "shape",
            Group::Contact => "contact",
        }
    }

    fn from_name(name: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// A candidate's level in each group, in [`Group::ALL`] order.
pub type Features = [u32; GROUPS];

/// The pattern key of a pass after a play (or at the start).
pub const PASS_KEY: u32 = 1 << 31;
/// The pattern key of a pass after a pass.
pub const PASS_AFTER_PASS_KEY: u32 = (1 << 31) | 1;

/// Per symmetry of the square (those of [`crate::patterns`]), the place in `cells` each cell goes to.
fn permutations<const N: usize>(cells: &[(i32, i32); N]) -> [[usize; N]; 8] {
    std::array::from_fn(|sym| {
        std::array::from_fn(|k| {
            let to = patterns::symmetry(sym, cells[k]);
            cells.iter().position(|&c| c == to).unwrap_or(k)
        })
    })
}

/// [`permutations`] of the 3×3 cells.
fn symmetries() -> &'static [[usize; 8]; 8] {
    static PERMS: OnceLock<[[usize; 8]; 8]> = OnceLock::new();
    PERMS.get_or_init(|| permutations(&CELLS))
}

/// The 3×3 key of a play by `c` at the empty on-board point `i`: two bits a cell (0 empty, 1 the mover's stone,
/// 2 the opponent's, 3 off the board) in bits 0..16, and in bits 16..24 one bit a cell for a stone whose chain
/// is in atari (only the four adjacent cells can have it); the least of its eight symmetric images, so that a
/// shape and its rotations and reflections are one pattern.
pub fn pattern_key(board: &Board, c: Color, i: Idx) -> u32 {
    let cells = board.cells_around(i);
    let mut codes = [0u32; 8];
    let mut atari = [false; 8];
    for (k, &x) in cells.iter().enumerate() {
        codes[k] = match board.color_at(x) {
            Some(col) if col == c => 1,
            Some(_) => 2,
            None if board.is_empty_at(x) => 0,
            None => 3,
        };
        // Only the four adjacent cells (1, 3, 4 and 6 in key order) can hold a chain the play touches.
        atari[k] = matches!(k, 1 | 3 | 4 | 6) && matches!(codes[k], 1 | 2) && board.in_atari(x);
    }
    symmetries()
        .iter()
        .map(|perm| {
            let mut key = 0;
            for k in 0..8 {
                key |= codes[k] << (2 * perm[k]);
                key |= u32::from(atari[k]) << (16 + perm[k]);
            }
            key
        })
        .min()
        .unwrap_or(0)
}

/// The (dx, dy) of the twelve cells of a [`Group::Shape`] key, in key order: the 3×3 square's eight, then the
/// four two steps away.
const SHAPE_CELLS: [(i32, i32); 12] = [
    CELLS[0],
    CELLS[1],
    CELLS[2],
    CELLS[3],
    CELLS[4],
    CELLS[5],
    CELLS[6],
    CELLS[7],
    (0, -2),
    (-2, 0),
    (2, 0),
    (0, 2),
];

/// [`permutations`] of the shape's cells.
fn shape_symmetries() -> &'static [[usize; 12]; 8] {
    static PERMS: OnceLock<[[usize; 12]; 8]> = OnceLock::new();
    PERMS.get_or_init(|| permutations(&SHAPE_CELLS))
}

/// The shape key of a play by `c` at the empty on-board point `i`: two bits a cell of [`SHAPE_CELLS`] (0 empty,
/// 1 the mover's stone, 2 the opponent's, 3 off the board), the least of its eight symmetric images.
pub fn shape_key(board: &Board, c: Color, i: Idx) -> u32 {
    let p = board.point(i);
    let size = board.size();
    let mut codes = [0u32; 12];
    for (k, &(dx, dy)) in SHAPE_CELLS.iter().enumerate() {
        let (x, y) = (i32::from(p.x) + dx, i32::from(p.y) + dy);
        let on =
            (0..i32::from(size.width())).contains(&x) && (0..i32::from(size.height())).contains(&y);
        codes[k] = if !on {
            3
        } else {
            match board.color_at(board.idx(tesuji_rules::Point::new(x as u8, y as u8))) {
                Some(col) if col == c => 1,
                Some(_) => 2,
                None => 0,
            }
        };
    }
    shape_symmetries()
        .iter()
        .map(|perm| {
            (0..12)
                .map(|k| codes[k] << (2 * perm[k]))
                .fold(0, |a, b| a | b)
        })
        .min()
        .unwrap_or(0)
}

/// Coulom's distance between two points of the padded array: `dx + dy + max(dx, dy)`, as a level.
fn distance_level(board: &Board, a: Idx, b: Idx) -> u32 {
    if b == PASS {
        return 0;
    }
    let (p, q) = (board.point(a), board.point(b));
    let dx = u32::from(p.x.abs_diff(q.x));
    let dy = u32::from(p.y.abs_diff(q.y));
    (dx + dy + dx.max(dy)).min(17) + 1
}

/// What is beside `c`'s play at `i`: whether any stone is, and a mask with bit `k` set when an adjacent
/// opponent chain has `k` liberties before the play (counted up to four). Read once for both the
/// [`Group::Atari`] level (bit 2) and the [`Group::Contact`] level (the lowest bit).
fn beside(board: &Board, c: Color, i: Idx) -> (bool, u32) {
    let mut touches = false;
    let mut opponent_libs = 0;
    for n in board.neighbors(i) {
        match board.color_at(n) {
            Some(x) if x == c => touches = true,
            Some(_) => {
                touches = true;
                opponent_libs |= 1 << chain_liberties(board, n, &mut [0; 4]);
            }
            None => {}
        }
    }
    (touches, opponent_libs)
}

/// The [`Group::Contact`] level of a play whose chain is left `own_libs` liberties, from what is [`beside`] it.
fn contact_level(touches: bool, opponent_libs: u32, own_libs: u8) -> u32 {
    if !touches {
        return 0;
    }
    let own = u32::from(own_libs.clamp(1, 3)) - 1;
    // The play takes one liberty of each adjacent opponent chain: before 1..=4 is after 0..=3 (or more).
    let opp = if opponent_libs == 0 {
        0
    } else {
        opponent_libs.trailing_zeros()
    };
    1 + 5 * own + opp
}

/// The features of `c`'s legal play (or [`PASS`]) at `m`, with `last` the last move and `prev` the one before
/// it ([`PASS`] for a pass or none).
pub fn features(
    board: &Board,
    c: Color,
    m: Idx,
    last: Idx,
    prev: Idx,
    ladder: &mut Ladder,
) -> Features {
    if m == PASS {
        let mut f = [0; GROUPS];
        f[Group::Pattern as usize] = if last == PASS {
            PASS_AFTER_PASS_KEY
        } else {
            PASS_KEY
        };
        f[Group::Shape as usize] = PASS_KEY;
        return f;
    }
    play_features(board, c, m, last, prev, &Reading::of(board, c, m, ladder))
}

/// [`features`] of a play (not a pass) whose [`Reading`] is known.
pub fn play_features(
    board: &Board,
    c: Color,
    m: Idx,
    last: Idx,
    prev: Idx,
    reading: &Reading,
) -> Features {
    let mut f = [0; GROUPS];
    f[Group::Pattern as usize] = pattern_key(board, c, m);
    let t = reading.tactics;
    let (touches, opponent_libs) = beside(board, c, m);
    f[Group::Capture as usize] = if t.captured == 0 {
        0
    } else if last != PASS
        && board.color_at(last) == Some(c.opponent())
        && board.in_atari(last)
        && board.atari_liberty(last) == m
    {
        4
    } else {
        match t.captured {
            1 => 1,
            2 | 3 => 2,
            _ => 3,
        }
    };
    f[Group::Escape as usize] = match (t.rescued, t.liberties) {
        (0, _) => 0,
        (_, 2) if reading.escape_fails => 1,
        (_, 2) => 2,
        _ => 3,
    };
    f[Group::SelfAtari as usize] = if t.is_self_atari() {
        t.stones.min(3)
    } else {
        0
    };
    // A ladder capture puts a chain in atari, and a self-atari catches nothing (`Reading::caught`).
    f[Group::Atari as usize] = if reading.caught > 0 {
        2
    } else if opponent_libs & (1 << 2) != 0 {
        1
    } else {
        0
    };
    f[Group::Last as usize] = distance_level(board, m, last);
    f[Group::Prev as usize] = distance_level(board, m, prev);
    let p = board.point(m);
    let size = board.size();
    let line =
        p.x.min(p.y)
            .min(size.width() - 1 - p.x)
            .min(size.height() - 1 - p.y);
    f[Group::Edge as usize] = u32::from(line).min(4) + 1;
    f[Group::Shape as usize] = shape_key(board, c, m);
    f[Group::Contact as usize] = contact_level(touches, opponent_libs, t.liberties);
    f
}

/// Why a gammas file is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("gammas line {line}: {message}")]
pub struct BadGammas {
    pub line: usize,
    pub message: String,
}

/// The learned strength of every level; 1 for a level not named.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gammas {
    /// Per group but the keyed ones: gamma by level.
    levels: [Vec<f32>; GROUPS],
    /// Per keyed group ([`Group::KEYED`]): gamma by key.
    keys: [HashMap<u32, f32>; 2],
    /// Per keyed group: the gamma of a key not in `keys` (those seen too rarely to learn their own).
    rare: [f32; 2],
}

impl Gammas {
    /// The gammas of the repository's files for a board of `size`: learned from 19×19 records on a board of
    /// 13 lines or more a side, from 9×9 records on a smaller one (the lines and the distances between moves
    /// mean different things on the two).
    pub fn builtin(size: Size) -> &'static Gammas {
        static SMALL: OnceLock<Gammas> = OnceLock::new();
        static BIG: OnceLock<Gammas> = OnceLock::new();
        let parse = |text: &str| Gammas::parse(text).unwrap_or_default();
        if is_big(size) {
            BIG.get_or_init(|| parse(include_str!("../data/gammas-19x19.txt")))
        } else {
            SMALL.get_or_init(|| parse(include_str!("../data/gammas.txt")))
        }
    }

    /// A model from its levels: `(group, level, gamma)`, with [`Gammas::RARE`] as the pattern level of
    /// patterns not listed.
    pub fn from_levels(levels: impl IntoIterator<Item = (Group, u32, f32)>) -> Gammas {
        let mut g = Gammas {
            rare: [1.0; 2],
            ..Gammas::default()
        };
        for (group, level, gamma) in levels {
            g.set(group, level, gamma);
        }
        g
    }

    /// The level of a keyed group that stands for every key without a gamma of its own.
    pub const RARE: u32 = u32::MAX;

    fn set(&mut self, group: Group, level: u32, gamma: f32) {
        match group.keyed() {
            Some(k) if level == Gammas::RARE => self.rare[k] = gamma,
            Some(k) => {
                self.keys[k].insert(level, gamma);
            }
            None => {
                let v = &mut self.levels[group as usize];
                let k = level as usize;
                if v.len() <= k {
                    v.resize(k + 1, 1.0);
                }
                v[k] = gamma;
            }
        }
    }

    /// The gamma of a level.
    pub fn gamma(&self, group: Group, level: u32) -> f32 {
        match group.keyed() {
            Some(k) => self.keys[k].get(&level).copied().unwrap_or(self.rare[k]),
            None => self.levels[group as usize]
                .get(level as usize)
                .copied()
                .unwrap_or(1.0),
        }
    }

    /// A move's strength: the product of its levels' gammas.
    pub fn strength(&self, f: &Features) -> f32 {
        Group::ALL
            .iter()
            .zip(f)
            .map(|(&g, &level)| self.gamma(g, level))
            .product()
    }

    /// Reads a gammas file: `#` comments, and lines `GROUP LEVEL GAMMA` (a pattern's level in hexadecimal,
    /// `0x…`, or `rare`).
    pub fn parse(text: &str) -> Result<Gammas, BadGammas> {
        let mut g = Gammas::from_levels([]);
        for (k, raw) in text.lines().enumerate() {
            let bad = |message: String| BadGammas {
                line: k + 1,
                message,
            };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let [group, level, gamma] = words[..] else {
                return Err(bad(format!("expected GROUP LEVEL GAMMA, found {line:?}")));
            };
            let group =
                Group::from_name(group).ok_or_else(|| bad(format!("unknown group {group:?}")))?;
            let level = match (group.keyed(), level) {
                (Some(_), "rare") => Gammas::RARE,
                (Some(_), hex) => hex
                    .strip_prefix("0x")
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .ok_or_else(|| bad(format!("bad {} key {hex:?}", group.name())))?,
                (None, n) => n
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| n < 64)
                    .ok_or_else(|| bad(format!("bad level {n:?}")))?,
            };
            let gamma = gamma
                .parse::<f32>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .ok_or_else(|| bad(format!("bad gamma {gamma:?}")))?;
            g.set(group, level, gamma);
        }
        Ok(g)
    }

    /// The file text of these gammas, after a header of `#` lines: levels in order, patterns by key.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str(&format!("# {line}\n").replace("# \n", "#\n"));
        }
        for g in Group::ALL {
            if g.keyed().is_some() {
                continue;
            }
            for (level, gamma) in self.levels[g as usize].iter().enumerate() {
                out.push_str(&format!("{} {level} {gamma:.6}\n", g.name()));
            }
        }
        for (k, g) in Group::KEYED.into_iter().enumerate() {
            out.push_str(&format!("{} rare {:.6}\n", g.name(), self.rare[k]));
            let mut keys: Vec<_> = self.keys[k].iter().collect();
            keys.sort_by_key(|&(key, _)| *key);
            for (key, gamma) in keys {
                out.push_str(&format!("{} 0x{key:06x} {gamma:.6}\n", g.name()));
            }
        }
        out
    }
}

/// One position of a game as a competition between its candidate moves: each candidate's features, and which
/// one was played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub candidates: Vec<Features>,
    pub played: usize,
}

/// The candidates of a position: the empty points where `c` may play (no suicide, not the simple-ko point)
/// other than `c`'s own eye-like points, then the pass. The tree's children, but for superko and Benson.
pub fn candidates(board: &Board, c: Color) -> Vec<Idx> {
    let mut out: Vec<Idx> = board
        .empty_points()
        .iter()
        .map(|&e| e as Idx)
        .filter(|&i| !board.is_eyelike(c, i) && board.check(c, i, true, false, false).is_ok())
        .collect();
    out.sort_unstable();
    out.push(PASS);
    out
}

/// The examples of a game's moves from its start: `turns` are (colour, point or [`PASS`]) in order. A move
/// that is not among its position's candidates (the filling of an own eye, an illegal move) ends the game's
/// examples, since the board would no longer follow the record. Only the turns of the colours in `learn` give
/// examples (the others are played, not read).
pub fn examples(start: &Board, turns: &[(Color, Idx)], learn: ByColor<bool>) -> Vec<Example> {
    let mut board = start.clone();
    let mut ladder = Ladder::new();
    let (mut last, mut prev) = (PASS, PASS);
    let mut out = Vec::with_capacity(turns.len());
    for &(c, m) in turns {
        let cands = candidates(&board, c);
        let Some(played) = cands.iter().position(|&x| x == m) else {
            break;
        };
        if learn[c] {
            let candidates = cands
                .iter()
                .map(|&x| features(&board, c, x, last, prev, &mut ladder))
                .collect();
            out.push(Example { candidates, played });
        }
        if m == PASS {
            board.pass();
        } else {
            board.play(c, m);
        }
        prev = last;
        last = m;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::{Grid, Point};

    fn board(diagram: &str) -> Board {
        Board::from_grid(&Grid::from_diagram(diagram).unwrap()).unwrap()
    }

    #[test]
    fn a_shape_and_its_images_have_one_key() {
        // A hane: the same shape rotated, reflected, and with the colours swapped for the other mover.
        let a = board(".....\n.XO..\n.....\n.....\n.....");
        let b = board(".....\n..OX.\n.....\n.....\n.....");
        let c = board(".....\n.....\n.....\n.XO..\n.....");
        let d = board(".....\n.OX..\n.....\n.....\n.....");
        let at = |b: &Board, x, y, col| pattern_key(b, col, b.idx(Point::new(x, y)));
        let k = at(&a, 2, 2, Color::Black);
        assert_eq!(at(&b, 2, 2, Color::Black), k);
        assert_eq!(at(&c, 2, 2, Color::Black), k);
        assert_eq!(at(&d, 2, 2, Color::White), k);
        // The other mover sees another shape.
        assert_ne!(at(&a, 2, 2, Color::White), k);
        // The edge is part of the shape.
        assert_ne!(at(&a, 2, 0, Color::Black), at(&a, 2, 4, Color::Black));
    }

    #[test]
    fn a_wide_shape_and_its_images_have_one_key() {
        // A stone two lines above the point, then the same shape rotated a quarter turn and with the colours
        // swapped for the other mover.
        let row = |k: Option<(usize, char)>| {
            let mut r = vec!['.'; 9];
            if let Some((x, ch)) = k {
                r[x] = ch;
            }
            r.into_iter()
                .map(String::from)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let diagram = |stone: (usize, usize, char)| {
            (0..9)
                .map(|y| row((y == stone.1).then_some((stone.0, stone.2))))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let a = board(&diagram((4, 2, 'X')));
        let b = board(&diagram((6, 4, 'O')));
        let at = |b: &Board, x, y, col| shape_key(b, col, b.idx(Point::new(x, y)));
        let k = at(&a, 4, 4, Color::Black);
        assert_eq!(at(&b, 4, 4, Color::White), k);
        assert_ne!(
            at(&b, 4, 4, Color::Black),
            k,
            "the other mover sees an opponent's stone"
        );
        // Two steps away is in the shape; a knight's move or three steps is not.
        let open = at(&a, 2, 6, Color::Black);
        assert_ne!(k, open);
        assert_eq!(at(&a, 5, 4, Color::Black), open, "a knight's move away");
        assert_eq!(at(&a, 4, 5, Color::Black), open, "three steps away");
        // The edge is part of it, two lines in too.
        assert_ne!(at(&a, 1, 6, Color::Black), open);
        assert_ne!(at(&a, 0, 6, Color::Black), at(&a, 1, 6, Color::Black));
    }

    #[test]
    fn atari_bits_mark_adjacent_chains_in_atari() {
        // The white stone in the middle is in atari (three black neighbours); its liberty is left of it.
        let b = board(".....\n..X..\n..OX.\n..X..\n.....");
        let lib = b.idx(Point::new(1, 2));
        let key = pattern_key(&b, Color::Black, lib);
        assert_ne!(key >> 16, 0, "the adjacent chain in atari shows");
        let far = b.idx(Point::new(0, 0));
        assert_eq!(pattern_key(&b, Color::Black, far) >> 16, 0);
    }

    #[test]
    fn tactical_levels() {
        let b = board(".....\n..X..\n..OX.\n..X..\n.....");
        let mut ladder = Ladder::new();
        let last = b.idx(Point::new(2, 3));
        let capture = b.idx(Point::new(1, 2));
        let f = features(&b, Color::Black, capture, last, PASS, &mut ladder);
        assert_eq!(f[Group::Capture as usize], 1);
        assert_eq!(
            f[Group::Last as usize],
            4,
            "a diagonal of the last move: distance 3, level 4"
        );
        assert_eq!(f[Group::Prev as usize], 0);
        assert_eq!(f[Group::Edge as usize], 2);
        // White's extension there joins the stone in atari and has three liberties.
        let f = features(&b, Color::White, capture, last, PASS, &mut ladder);
        assert_eq!(f[Group::Escape as usize], 3);
        let pass = features(&b, Color::Black, PASS, last, PASS, &mut ladder);
        assert_eq!(pass[Group::Pattern as usize], PASS_KEY);
        assert_eq!(
            features(&b, Color::Black, PASS, PASS, last, &mut ladder)[Group::Pattern as usize],
            PASS_AFTER_PASS_KEY
        );
    }

    #[test]
    fn contact_levels_count_both_sides_liberties() {
        // White's stone has three liberties, the black stone above it two.
        let b = board("..X..\n..O..\n.....\n.....\n.....");
        let mut ladder = Ladder::new();
        let contact = |c, x, y, ladder: &mut Ladder| {
            features(&b, c, b.idx(Point::new(x, y)), PASS, PASS, ladder)[Group::Contact as usize]
        };
        assert_eq!(
            contact(Color::Black, 0, 4, &mut ladder),
            0,
            "nothing beside it"
        );
        // Black beside the white stone leaves it two liberties and keeps three of its own.
        assert_eq!(contact(Color::Black, 1, 1, &mut ladder), 1 + 5 * 2 + 3);
        // White beside the black stone (two liberties: the white stone takes its third) puts it in atari,
        // and has two liberties itself.
        assert_eq!(contact(Color::White, 1, 0, &mut ladder), 1 + 5 + 2);
        // Under its own stone, White's chain has three or more liberties and no opponent beside it.
        assert_eq!(contact(Color::White, 2, 2, &mut ladder), 1 + 5 * 2);
        // Black beside a white stone of one liberty captures it, and counts the emptied point.
        let b = board("O....\nX....\n.....\n.....\n.....");
        let f = features(
            &b,
            Color::Black,
            b.idx(Point::new(1, 0)),
            PASS,
            PASS,
            &mut ladder,
        );
        assert_eq!(f[Group::Contact as usize], 1 + 5 * 2 + 1);
    }

    #[test]
    fn gammas_survive_their_text() {
        let g = Gammas::from_levels([
            (Group::Capture, 1, 12.5),
            (Group::Last, 1, 7.25),
            (Group::Pattern, 0x12345, 3.0),
            (Group::Pattern, Gammas::RARE, 0.5),
            (Group::Shape, 0xabcdef, 4.0),
            (Group::Shape, Gammas::RARE, 0.25),
        ]);
        let text = g.to_text("made by a test\n\nsecond line");
        assert!(text.starts_with("# made by a test\n#\n# second line\n"));
        let back = Gammas::parse(&text).unwrap();
        assert_eq!(back, g);
        assert_eq!(back.gamma(Group::Pattern, 0x999), 0.5);
        assert_eq!(back.gamma(Group::Shape, 0xabcdef), 4.0);
        assert_eq!(back.gamma(Group::Shape, 0x12345), 0.25);
        assert_eq!(back.gamma(Group::Edge, 3), 1.0);
        let f = [0x12345, 1, 0, 0, 0, 1, 0, 0, 0xabcdef, 2];
        assert!((back.strength(&f) - 3.0 * 12.5 * 7.25 * 4.0).abs() < 1e-3);
    }

    #[test]
    fn bad_gammas_files_name_the_line() {
        for (text, line) in [
            ("capture 1 2.0\nnonsense\n", 2),
            ("capture x 2.0", 1),
            ("colour 1 2.0", 1),
            ("pattern 123 2.0", 1),
            ("capture 1 -2", 1),
            ("capture 1 NaN", 1),
        ] {
            assert_eq!(Gammas::parse(text).unwrap_err().line, line, "{text:?}");
        }
    }

    #[test]
    fn the_builtin_gammas_parse() {
        for text in [
            include_str!("../data/gammas.txt"),
            include_str!("../data/gammas-19x19.txt"),
        ] {
            let g = Gammas::parse(text).unwrap();
            assert!(g.keys[0].len() > 100, "{} patterns", g.keys[0].len());
            assert!(g.keys[1].len() > 100, "{} shapes", g.keys[1].len());
        }
        // Each board size takes its own file.
        let small = Gammas::builtin(Size::square(9).unwrap());
        let big = Gammas::builtin(Size::square(19).unwrap());
        assert_ne!(small, big);
        assert_eq!(Gammas::builtin(Size::square(13).unwrap()), big);
        assert_eq!(Gammas::builtin(Size::new(19, 11).unwrap()), small);
    }

    #[test]
    fn examples_follow_the_record() {
        let start = Board::new(tesuji_rules::Size::square(5).unwrap());
        let at = |x, y| start.idx(Point::new(x, y));
        let turns = [
            (Color::Black, at(2, 2)),
            (Color::White, at(2, 1)),
            (Color::Black, PASS),
            (Color::White, at(3, 2)),
        ];
        let ex = examples(&start, &turns, ByColor::from_fn(|_| true));
        assert_eq!(ex.len(), 4);
        // Only White's turns: the same examples as White's above.
        let white = examples(
            &start,
            &turns,
            ByColor {
                black: false,
                white: true,
            },
        );
        assert_eq!(white.len(), 2);
        assert_eq!(white[1].candidates, ex[3].candidates);
        // 25 points and the pass, then one fewer point each play.
        assert_eq!(ex[0].candidates.len(), 26);
        assert_eq!(ex[1].candidates.len(), 25);
        assert_eq!(ex[2].candidates[ex[2].played][0], PASS_KEY);
        // White's second move: its last move was the pass, the one before White's own.
        let f = ex[3].candidates[ex[3].played];
        assert_eq!(f[Group::Last as usize], 0);
        assert_eq!(
            f[Group::Prev as usize],
            4,
            "a diagonal: distance 3, level 4"
        );
    }
}
