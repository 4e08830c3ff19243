//! The fast board: a padded one-dimensional array with incrementally kept chains, pseudo-liberties and a
//! Zobrist hash. It knows captures, suicide and the simple-ko point; whole-game rules (superko, turns, the end)
//! live in `game.rs`.
//!
//! Layout: rows of `width + 1` cells, one shared border column, and a border row above and below, so every
//! on-board point has four neighbours in the array (`±1`, `±stride`) and its diagonals too.
//!
//! Chains keep *pseudo-liberties*: one count per (stone, empty neighbour) pair, with the sum and the sum of
//! squares of those neighbour indices. A chain has no liberties when the count is 0, and exactly one liberty
//! when all pseudo-liberties are the same point, which is when `count * sum2 == sum * sum`. The three live in
//! one `u64` (see [`lib_key`]), so adding or removing a pseudo-liberty is a single addition.

use crate::grid::Grid;
use crate::types::{Color, Point, Size};

/// An index into the padded array. Exposed for speed-critical callers (playouts); convert with
/// [`Board::idx`] and [`Board::point`].
pub type Idx = usize;

pub(crate) const EMPTY: u8 = 0;
pub(crate) const BORDER: u8 = 3;

/// The board code of a colour (1 black, 2 white).
#[inline]
pub(crate) fn code(c: Color) -> u8 {
    c as u8 + 1
}

#[inline]
fn color_of(code: u8) -> Option<Color> {
    match code {
        1 => Some(Color::Black),
        2 => Some(Color::White),
        _ => None,
    }
}

/// Nibble offsets in [`Board`]'s neighbour counts: orthogonal black, white, empty, edge in the low half;
/// diagonal black, white, edge in the high half.
const NBR_EMPTY: u32 = 8;
const NBR_EDGE: u32 = 12;
const DIAG: u32 = 16;
const DIAG_EDGE: u32 = 24;

/// What a stone of colour code `c` adds to its orthogonal neighbours' counts (and an empty point takes away).
#[inline(always)]
fn nbr_delta(c: u8) -> u32 {
    (1u32 << (4 * (c as u32 - 1))).wrapping_sub(1 << NBR_EMPTY)
}

/// What a stone of colour code `c` adds to its diagonal neighbours' counts.
#[inline(always)]
fn diag_delta(c: u8) -> u32 {
    1u32 << (DIAG + 4 * (c as u32 - 1))
}

/// libEGO's eye test from the counts alone: every orthogonal neighbour is `me`'s or the edge, and the
/// opponent's diagonals plus one if any diagonal is off the board are fewer than two.
#[inline(always)]
fn eyelike_counts(counts: u32, me: u8) -> bool {
    let opp_diag = (counts >> (DIAG + 4 * (2 - me as u32))) & 15;
    let edge_diag = ((counts >> DIAG_EDGE) & 15 != 0) as u32;
    // Own or edge all round is no opponent and no empty neighbour: one mask. `&` rather than `&&`: both
    // halves are cheap, and one branch mispredicts less than two.
    (counts & (opp_or_empty_mask(me)) == 0) & (opp_diag + edge_diag < 2)
}

/// The nibbles of the opponent's and the empty orthogonal neighbours, for colour code `me`.
#[inline(always)]
fn opp_or_empty_mask(me: u8) -> u32 {
    (15 << (4 * (2 - me as u32))) | (15 << NBR_EMPTY)
}

/// The nibbles of own and empty orthogonal neighbours: either makes a play legal in a light playout.
#[inline(always)]
fn own_or_empty_mask(me: u8) -> u32 {
    (15 << (4 * (me as u32 - 1))) | (15 << NBR_EMPTY)
}

/// The top bit of every byte of `codes` that equals `code` (bytes of at most 3), without a branch or a carry
/// from one byte into the next.
#[inline(always)]
fn byte_mask(codes: u32, code: u8) -> u32 {
    let x = codes ^ (code as u32 * 0x0101_0101);
    !(((x & 0x7f7f_7f7f) + 0x7f7f_7f7f) | x) & 0x8080_8080
}

/// Words of the largest packed position: two bits for every cell of the largest array.
const SNAPSHOT_WORDS: usize = (2 * MAX_CELLS).div_ceil(64);

/// A packed position held without allocation: see [`Board::snapshot_after`].
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    words: [u64; SNAPSHOT_WORDS],
    len: usize,
}

impl std::ops::Deref for Snapshot {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.words[..self.len]
    }
}

/// Largest padded array: 25 columns + 1 border, 27 rows, one spare cell for the last diagonal.
const MAX_CELLS: usize = 26 * 27 + 1;

/// Zobrist keys per cell and colour, fixed at compile time (splitmix64) so hashes are reproducible.
static ZOBRIST: [[u64; 2]; MAX_CELLS] = {
    let mut table = [[0u64; 2]; MAX_CELLS];
    let mut state: u64 = 0x7e5u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut i = 0;
    while i < MAX_CELLS {
        let mut c = 0;
        while c < 2 {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            table[i][c] = z ^ (z >> 31);
            c += 1;
        }
        i += 1;
    }
    table
};

/// The Zobrist key of a stone of colour code `c` (1 or 2) at `i`.
#[inline(always)]
pub(crate) fn zobrist(i: Idx, c: u8) -> u64 {
    debug_assert!(i < MAX_CELLS && (1..=2).contains(&c));
    // SAFETY: every board index is below MAX_CELLS (the largest padded array) and colour codes are 1 or 2.
    unsafe { *ZOBRIST.get_unchecked(i).get_unchecked((c - 1) as usize) }
}

/// Bit positions of the packed pseudo-liberty record: sum of squares in bits 0..31, sum in 31..52, count in
/// 52..64. The bounds hold on the largest board (25×25, cells below 676): a chain has at most 4 × 624 = 2,496
/// pseudo-liberties (12 bits), their sum is at most 2,496 × 675 < 2²¹ and their sum of squares at most
/// 2,496 × 675² < 2³¹, so no field ever carries into the next and sums of records are field-wise sums.
const SUM_SHIFT: u32 = 31;
const COUNT_SHIFT: u32 = 52;

/// The packed record of one pseudo-liberty at `lib`. Computed, not looked up: a table was slower.
#[inline(always)]
const fn lib_key(lib: Idx) -> u64 {
    let l = lib as u64;
    (1 << COUNT_SHIFT) | (l << SUM_SHIFT) | (l * l)
}

#[derive(Clone, Copy, Debug, Default)]
struct ChainInfo {
    /// Pseudo-liberty count, sum and sum of squares, packed (see [`lib_key`]).
    libs: u64,
    stones: u32,
}

impl ChainInfo {
    #[inline(always)]
    fn lib_count(&self) -> u64 {
        self.libs >> COUNT_SHIFT
    }
    #[inline(always)]
    fn lib_sum(&self) -> u64 {
        (self.libs >> SUM_SHIFT) & ((1 << (COUNT_SHIFT - SUM_SHIFT)) - 1)
    }
    #[inline(always)]
    fn lib_sum2(&self) -> u64 {
        self.libs & ((1 << SUM_SHIFT) - 1)
    }
}

/// What a play did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PlayEffect {
    /// Opponent stones removed.
    pub captured: u32,
    /// Own stones removed (suicide).
    pub suicided: u32,
}

/// Why a play is not even pseudo-legal on this board (before any whole-history ko rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardRefusal {
    OffBoard,
    Occupied,
    /// The stone would capture nothing and its chain would have no liberty.
    Suicide {
        /// Stones the suicide would remove (the played stone included).
        stones: u32,
    },
    /// The simple-ko point.
    Ko,
}

/// Why a position cannot be set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("the chain at {point:?} has no liberty")]
    NoLiberty { point: Point },
}

/// The fast board. See the module documentation for the layout.
pub struct Board {
    size: Size,
    stride: usize,
    color: Vec<u8>,
    /// Root (chain id) of each stone's chain.
    chain: Vec<u16>,
    /// Next stone in the same chain (a circular list).
    next: Vec<u16>,
    /// Per point, neighbour counts in nibbles: orthogonal black, white, empty, off the board; diagonal black,
    /// white, off the board. Makes the playout's eye and legality tests one load.
    nbr: Vec<u32>,
    chains: Vec<ChainInfo>,
    empty: Vec<u16>,
    empty_pos: Vec<u16>,
    hash: u64,
    ko: Option<Idx>,
    captures: [u32; 2],
    stones: [u32; 2],
    /// The position packed two bits per padded cell (black bit, white bit): an exact, cheap-to-copy snapshot
    /// for confirming hash matches.
    /// Empty when the board does not keep it ([`Board::keep_snapshot`]).
    bits: Vec<u64>,
}

impl Board {
    /// An empty board.
    pub fn new(size: Size) -> Board {
        let stride = size.width() as usize + 1;
        let cells = (size.height() as usize + 2) * stride + 1;
        let mut b = Board {
            size,
            stride,
            color: vec![BORDER; cells],
            chain: vec![0; cells],
            next: vec![0; cells],
            nbr: vec![0; cells],
            chains: vec![ChainInfo::default(); cells],
            empty: Vec::with_capacity(size.area()),
            empty_pos: vec![0; cells],
            hash: 0,
            ko: None,
            captures: [0; 2],
            stones: [0; 2],
            bits: vec![0; (2 * cells).div_ceil(64)],
        };
        let (w, h) = (size.width() as usize, size.height() as usize);
        for y in 0..h {
            for x in 0..w {
                let i = (y + 1) * stride + x + 1;
                b.color[i] = EMPTY;
                b.empty_pos[i] = b.empty.len() as u16;
                b.empty.push(i as u16);
                let (left, right) = ((x == 0) as u32, (x + 1 == w) as u32);
                let (top, bottom) = ((y == 0) as u32, (y + 1 == h) as u32);
                let edges = left + right + top + bottom;
                // A diagonal is off the board when either of its two steps is.
                let diag_edges = (left | top) + (right | top) + (left | bottom) + (right | bottom);
                b.nbr[i] =
                    (edges << NBR_EDGE) | ((4 - edges) << NBR_EMPTY) | (diag_edges << DIAG_EDGE);
            }
        }
        b
    }

    /// A board holding a position. Every chain must have a liberty.
    pub fn from_grid(grid: &Grid) -> Result<Board, SetupError> {
        let mut b = Board::new(grid.size());
        for p in grid.size().points() {
            if let Some(c) = grid.get(p) {
                b.put_stone(b.idx(p), code(c));
            }
        }
        for p in grid.size().points() {
            let i = b.idx(p);
            if b.color[i] != EMPTY && b.chains[b.chain[i] as usize].libs == 0 {
                return Err(SetupError::NoLiberty { point: p });
            }
        }
        Ok(b)
    }

    /// The position as a plain grid.
    pub fn to_grid(&self) -> Grid {
        let mut g = Grid::new(self.size);
        for p in self.size.points() {
            g.set(p, self.get(p));
        }
        g
    }

    #[inline]
    pub fn size(&self) -> Size {
        self.size
    }

    /// The padded index of an on-board point.
    #[inline]
    pub fn idx(&self, p: Point) -> Idx {
        (p.y as usize + 1) * self.stride + p.x as usize + 1
    }

    /// The point at a padded index of an on-board cell (for any other index, some point that is not on the
    /// board or not that cell: check with [`Board::checked_point`] when unsure).
    #[inline]
    pub fn point(&self, i: Idx) -> Point {
        Point::new(
            (i % self.stride).wrapping_sub(1) as u8,
            (i / self.stride).wrapping_sub(1) as u8,
        )
    }

    /// The point at a padded index, or `None` when the index is not a point of the board.
    pub fn checked_point(&self, i: Idx) -> Option<Point> {
        self.on_board(i).then(|| self.point(i))
    }

    /// The padded index of a point, or `None` off the board.
    #[inline]
    pub fn checked_idx(&self, p: Point) -> Option<Idx> {
        self.size.contains(p).then(|| self.idx(p))
    }

    /// The colour at a point (`None` when empty or off the board).
    pub fn get(&self, p: Point) -> Option<Color> {
        self.checked_idx(p).and_then(|i| color_of(self.color[i]))
    }

    /// The colour at a padded index.
    #[inline]
    pub fn color_at(&self, i: Idx) -> Option<Color> {
        self.color.get(i).copied().and_then(color_of)
    }

    /// What the cell `i` holds, in two bits: 0 an empty point, 1 a black stone, 2 a white stone, 3 off the
    /// board (as is an index outside the array). One load, for shape keys.
    #[inline]
    pub fn cell_code(&self, i: Idx) -> u8 {
        self.color.get(i).copied().unwrap_or(BORDER)
    }

    /// The eight cells around the cell `i`, in the order NW, N, NE, W, E, SW, S, SE: a 3×3 shape's order.
    /// Computed with wrapping arithmetic, so any index gives indices (outside the array for most) and no panic.
    #[inline]
    pub fn cells_around(&self, i: Idx) -> [Idx; 8] {
        let s = self.stride;
        [
            i.wrapping_sub(s + 1),
            i.wrapping_sub(s),
            i.wrapping_sub(s - 1),
            i.wrapping_sub(1),
            i.wrapping_add(1),
            i.wrapping_add(s - 1),
            i.wrapping_add(s),
            i.wrapping_add(s + 1),
        ]
    }

    /// The [`Board::cell_code`]s of [`Board::cells_around`] `i`, two bits each from bit 0: a 3×3 shape's key.
    /// Cells outside the array read as off the board. One bounds test for all eight: the playouts ask this of
    /// eight cells after every move.
    #[inline]
    pub fn codes_around(&self, i: Idx) -> u32 {
        // The array always holds more than two rows of `stride` cells, so the bounds do not underflow.
        let inside = i > self.stride && i < self.color.len() - self.stride - 1;
        let mut key = 0;
        for (k, n) in self.cells_around(i).into_iter().enumerate() {
            let code = if inside {
                self.col(n)
            } else {
                self.cell_code(n)
            };
            key |= u32::from(code) << (2 * k);
        }
        key
    }

    #[inline]
    pub fn is_empty_at(&self, i: Idx) -> bool {
        self.color.get(i) == Some(&EMPTY)
    }

    #[inline]
    pub fn stride(&self) -> usize {
        self.stride
    }

    #[inline]
    pub fn neighbors(&self, i: Idx) -> [Idx; 4] {
        [
            i.wrapping_sub(self.stride),
            i.wrapping_sub(1),
            i + 1,
            i + self.stride,
        ]
    }

    /// The four diagonal cells of `i` (meaningful for on-board points).
    #[inline]
    pub fn diagonals(&self, i: Idx) -> [Idx; 4] {
        let s = self.stride;
        [
            i.wrapping_sub(s + 1),
            i.wrapping_sub(s - 1),
            i + s - 1,
            i + s + 1,
        ]
    }

    /// The empty points, in no particular order.
    #[inline]
    pub fn empty_points(&self) -> &[u16] {
        &self.empty
    }

    /// The Zobrist hash of the position (stones only).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The position packed two bits per cell: equal for equal positions on boards of the same size. Empty
    /// on a board that does not keep it ([`Board::keep_snapshot`]).
    #[inline]
    pub fn snapshot(&self) -> &[u64] {
        &self.bits
    }

    /// Whether the board keeps its packed snapshot up to date (the default). Playouts, which never compare
    /// positions exactly, turn it off and save the work on every stone placed or removed; turning it back on
    /// rebuilds it.
    pub fn keep_snapshot(&mut self, keep: bool) {
        if keep == self.snapshot_kept() {
            return;
        }
        self.bits = Vec::new();
        if keep {
            let cells = self.color.len();
            self.bits = vec![0; (2 * cells).div_ceil(64)];
            for i in 0..cells {
                let x = self.color[i];
                if x == 1 || x == 2 {
                    self.flip_bit(i, x);
                }
            }
        }
    }

    /// Every board has cells, so its kept snapshot is never empty.
    #[inline(always)]
    fn snapshot_kept(&self) -> bool {
        !self.bits.is_empty()
    }

    #[inline(always)]
    fn flip_bit(&mut self, i: Idx, code: u8) {
        if !self.snapshot_kept() {
            return;
        }
        let b = 2 * i + (code as usize - 1);
        debug_assert!(b / 64 < self.bits.len());
        // SAFETY: `bits` holds two bits for every cell of the array and `i` is a cell.
        unsafe { *self.bits.get_unchecked_mut(b / 64) ^= 1 << (b % 64) };
    }

    /// The point the simple-ko rule forbids to the player to move, if any.
    pub fn ko_point(&self) -> Option<Point> {
        self.ko.map(|i| self.point(i))
    }

    #[inline]
    pub fn ko_idx(&self) -> Option<Idx> {
        self.ko
    }

    /// Stones captured so far by each colour (suicided stones count for the opponent).
    pub fn captures(&self) -> [u32; 2] {
        self.captures
    }

    /// Stones of each colour on the board.
    pub fn stone_counts(&self) -> [u32; 2] {
        self.stones
    }

    /// Number of distinct liberties of the chain at `p` (0 for an empty point).
    pub fn liberties(&self, p: Point) -> usize {
        let Some(i) = self.checked_idx(p) else {
            return 0;
        };
        if color_of(self.color[i]).is_none() {
            return 0;
        }
        let mut libs: Vec<Idx> = self
            .chain_stones(i)
            .flat_map(|s| self.neighbors(s))
            .filter(|&n| self.color[n] == EMPTY)
            .collect();
        libs.sort_unstable();
        libs.dedup();
        libs.len()
    }

    /// The stones of the chain through `i` (which must hold a stone).
    pub fn chain_stones(&self, i: Idx) -> impl Iterator<Item = Idx> + '_ {
        let mut cur = i;
        // Nothing for an empty point or a cell off the board.
        let mut done = !self.holds_stone(i);
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let out = cur;
            cur = self.next[cur] as usize;
            done = cur == i;
            Some(out)
        })
    }

    /// The number of stones in the chain through `i`.
    #[inline]
    pub fn chain_len(&self, i: Idx) -> u32 {
        if self.holds_stone(i) {
            self.info(i).stones
        } else {
            0
        }
    }

    /// A name of the chain through the stone at `i`: the same index for all its stones, and different for
    /// different chains (until the next play). 0 for a cell without a stone.
    #[inline]
    pub fn chain_id(&self, i: Idx) -> Idx {
        if self.holds_stone(i) { self.root(i) } else { 0 }
    }

    /// How many of the four neighbours of the cell `i` are empty points (0 for an index outside the array).
    #[inline]
    pub fn empty_neighbor_count(&self, i: Idx) -> u32 {
        self.nbr
            .get(i)
            .map_or(0, |&counts| (counts >> NBR_EMPTY) & 15)
    }

    /// Whether `i` is a cell of the array holding a stone.
    #[inline]
    fn holds_stone(&self, i: Idx) -> bool {
        matches!(self.color.get(i), Some(&x) if x != EMPTY && x != BORDER)
    }

    /// Whether `i` is a point of the board.
    #[inline]
    fn on_board(&self, i: Idx) -> bool {
        matches!(self.color.get(i), Some(&x) if x != BORDER)
    }

    /// Whether the chain through the stone at `i` has exactly one liberty, and that liberty is `lib`.
    #[inline]
    fn in_atari_at(&self, i: Idx, lib: Idx) -> bool {
        let ch = self.info(i);
        // All pseudo-liberties are `lib` exactly when the record is `count` records of `lib`.
        ch.libs == ch.lib_count() * lib_key(lib)
    }

    /// Whether the chain through the stone at `i` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, i: Idx) -> bool {
        self.holds_stone(i) && self.in_atari_unchecked(i)
    }

    /// Around the stone at `i`: whether its chain is in atari, and which of its four neighbours (bit `k` for
    /// `neighbors(i)[k]`) are stones of `c` whose chain is in atari; `(false, 0)` when `i` holds no stone.
    /// Without a branch on the neighbours' colours: the playouts ask this after every move, and such branches
    /// mispredict.
    #[inline]
    pub fn ataris_around(&self, c: Color, i: Idx) -> (bool, u8) {
        if !self.holds_stone(i) {
            return (false, 0);
        }
        let me = code(c);
        let mut own = 0u8;
        // An empty or border neighbour's chain is the scratch record, whose answer the colour test masks off.
        for (k, n) in self.neighbors(i).into_iter().enumerate() {
            own |= u8::from((self.col(n) == me) & self.in_atari_unchecked(n)) << k;
        }
        (self.in_atari_unchecked(i), own)
    }

    /// For a play of `c` at the point `i`: whether some opponent neighbour's chain is in atari (the play would
    /// capture it), and which neighbours (bit `k` for `neighbors(i)[k]`) are `c`'s stones; `(false, 0)` off the
    /// board. Without a branch on the neighbours' colours, for the playouts' self-atari test.
    #[inline]
    pub fn captures_and_own(&self, c: Color, i: Idx) -> (bool, u8) {
        if !self.on_board(i) {
            return (false, 0);
        }
        let (me, opp) = (code(c), code(c.opponent()));
        let (mut captures, mut own) = (false, 0u8);
        for (k, n) in self.neighbors(i).into_iter().enumerate() {
            let x = self.col(n);
            // An empty or border neighbour's chain is the scratch record, whose answer the colour test masks off.
            captures |= (x == opp) & self.in_atari_unchecked(n);
            own |= u8::from(x == me) << k;
        }
        (captures, own)
    }

    #[inline(always)]
    fn in_atari_unchecked(&self, i: Idx) -> bool {
        let ch = self.info(i);
        let (n, sum) = (ch.lib_count(), ch.lib_sum());
        n > 0 && n * ch.lib_sum2() == sum * sum
    }

    /// The only liberty of a chain in atari (meaningful only when [`Board::in_atari`] holds).
    #[inline]
    pub fn atari_liberty(&self, i: Idx) -> Idx {
        if !self.holds_stone(i) {
            return 0;
        }
        let ch = self.info(i);
        (ch.lib_sum() / ch.lib_count().max(1)) as usize
    }

    /// Checks a play at padded index `i` by `c` against occupancy, suicide (of two or more stones unless
    /// `allow_multi_suicide`, of one stone unless `allow_single_suicide`) and, when `simple_ko` is set, the
    /// simple-ko point.
    pub fn check(
        &self,
        c: Color,
        i: Idx,
        simple_ko: bool,
        allow_multi_suicide: bool,
        allow_single_suicide: bool,
    ) -> Result<(), BoardRefusal> {
        self.validate(c, i, simple_ko, allow_multi_suicide, allow_single_suicide)
            .map(|_| ())
    }

    /// [`Board::check`], and for a legal play the Zobrist hash of the position it would make
    /// ([`Board::hash_after`]) and whether that position is the current one (a single-stone suicide).
    pub fn preview(
        &self,
        c: Color,
        i: Idx,
        simple_ko: bool,
        allow_multi_suicide: bool,
        allow_single_suicide: bool,
    ) -> Result<(u64, bool), BoardRefusal> {
        let suicide = self.validate(c, i, simple_ko, allow_multi_suicide, allow_single_suicide)?;
        if suicide == Some(1) {
            return Ok((self.hash, true));
        }
        let mut h = self.hash;
        self.play_changes(c, i, suicide.is_some(), |s, x| h ^= zobrist(s, x));
        Ok((h, false))
    }

    /// The checks of [`Board::check`]; for a legal play, the size of the suicide it is, if it is one.
    #[inline(always)]
    fn validate(
        &self,
        c: Color,
        i: Idx,
        simple_ko: bool,
        allow_multi_suicide: bool,
        allow_single_suicide: bool,
    ) -> Result<Option<u32>, BoardRefusal> {
        match self.color.get(i) {
            Some(&EMPTY) => {}
            None | Some(&BORDER) => return Err(BoardRefusal::OffBoard),
            Some(_) => return Err(BoardRefusal::Occupied),
        }
        if simple_ko && self.ko == Some(i) {
            return Err(BoardRefusal::Ko);
        }
        let suicide = self.suicide_size(c, i);
        if let Some(stones) = suicide
            && !(if stones >= 2 {
                allow_multi_suicide
            } else {
                allow_single_suicide
            })
        {
            return Err(BoardRefusal::Suicide { stones });
        }
        Ok(suicide)
    }

    /// If a stone of `c` at the empty point `i` would capture nothing and have no liberty, the number of own
    /// stones that would be removed (itself included).
    pub fn suicide_size(&self, c: Color, i: Idx) -> Option<u32> {
        // An empty neighbour is a liberty: the common case, answered from the neighbour counts.
        if self.color.get(i) != Some(&EMPTY) || (self.nbr_at(i) >> NBR_EMPTY) & 15 != 0 {
            return None;
        }
        let me = code(c);
        let mut own = 1;
        let mut roots = [0u16; 4];
        let mut nroots = 0;
        for n in self.neighbors(i) {
            match self.col(n) {
                EMPTY => return None,
                BORDER => {}
                x if x == me => {
                    if !self.in_atari_at(n, i) {
                        return None;
                    }
                    let r = self.chain[n];
                    if !roots[..nroots].contains(&r) {
                        roots[nroots] = r;
                        nroots += 1;
                        own += self.chains[r as usize].stones;
                    }
                }
                _ => {
                    if self.in_atari_at(n, i) {
                        return None;
                    }
                }
            }
        }
        Some(own)
    }

    /// The Zobrist hash the position would have after `c` plays at the empty point `i` (captures and suicide
    /// applied), without changing the board.
    pub fn hash_after(&self, c: Color, i: Idx) -> u64 {
        let mut h = self.hash;
        if self.color.get(i) == Some(&EMPTY) {
            let suicide = self.suicide_size(c, i).is_some();
            self.play_changes(c, i, suicide, |s, x| h ^= zobrist(s, x));
        }
        h
    }

    /// The packed position ([`Board::snapshot`]) after `c` plays at the empty point `i`, without changing the
    /// board or allocating.
    pub fn snapshot_after(&self, c: Color, i: Idx) -> Snapshot {
        let mut out = Snapshot {
            words: [0; SNAPSHOT_WORDS],
            len: self.bits.len(),
        };
        out.words[..self.bits.len()].copy_from_slice(&self.bits);
        if self.color.get(i) == Some(&EMPTY) {
            let suicide = self.suicide_size(c, i).is_some();
            self.play_changes(c, i, suicide, |s, x| {
                let b = 2 * s + (x as usize - 1);
                out.words[b / 64] ^= 1 << (b % 64);
            });
        }
        out
    }

    /// Calls `flip` with every (cell, colour code) that a play of `c` at the empty point `i` would toggle: the
    /// new stone, the captured stones, and on `suicide` (as [`Board::suicide_size`] says) the removed chain with
    /// the new stone again.
    #[inline(always)]
    fn play_changes(&self, c: Color, i: Idx, suicide: bool, mut flip: impl FnMut(Idx, u8)) {
        let me = code(c);
        flip(i, me);
        let mut seen = [0usize; 4];
        let mut nseen = 0;
        for n in self.neighbors(i) {
            let x = self.col(n);
            if x == EMPTY || x == BORDER || x == me || !self.in_atari_at(n, i) {
                continue;
            }
            let r = self.root(n);
            if seen[..nseen].contains(&r) {
                continue;
            }
            seen[nseen] = r;
            nseen += 1;
            for s in self.chain_stones(n) {
                flip(s, x);
            }
        }
        if suicide {
            // The whole merged chain goes, the new stone included.
            flip(i, me);
            let mut roots = [0usize; 4];
            let mut nroots = 0;
            for n in self.neighbors(i) {
                if self.col(n) == me {
                    let r = self.root(n);
                    if !roots[..nroots].contains(&r) {
                        roots[nroots] = r;
                        nroots += 1;
                        for s in self.chain_stones(n) {
                            flip(s, me);
                        }
                    }
                }
            }
        }
    }

    /// Puts a stone on an empty point without removing anything (setting up a position); on an occupied point
    /// this does nothing. Chains may be left without liberties: check with [`Board::has_liberty`].
    pub fn setup_stone(&mut self, c: Color, i: Idx) {
        if self.color.get(i) == Some(&EMPTY) {
            self.put_stone(i, code(c));
        }
    }

    /// Whether the chain through the stone at `i` has at least one liberty.
    #[inline]
    pub fn has_liberty(&self, i: Idx) -> bool {
        self.holds_stone(i) && self.info(i).libs != 0
    }

    /// libEGO's eye test for playouts: an empty point whose every neighbour is `c`'s or off the board, and fewer
    /// than two diagonals are the opponent's, where a point with any diagonal off the board counts one extra.
    #[inline]
    pub fn is_eyelike(&self, c: Color, i: Idx) -> bool {
        self.color.get(i) == Some(&EMPTY) && eyelike_counts(self.nbr_at(i), code(c))
    }

    /// Whether a play at the empty point `i` is legal in a light playout: not the simple-ko point and not the
    /// suicide of a single stone (suicide of a larger chain is allowed, as in libEGO).
    #[inline]
    pub fn is_light_legal(&self, c: Color, i: Idx) -> bool {
        if self.color.get(i) != Some(&EMPTY) {
            return false;
        }
        self.light_legal_at(code(c), i, self.nbr_at(i))
    }

    /// [`Board::is_light_legal`] for an empty cell with its neighbour counts: an empty or own neighbour
    /// settles it, otherwise the play must capture (and not at the ko point).
    #[inline(always)]
    fn light_legal_at(&self, me: u8, i: Idx, counts: u32) -> bool {
        counts & own_or_empty_mask(me) != 0 || self.light_capture(i)
    }

    /// The uniform playout's test of a candidate: an empty point that is not [`Board::is_eyelike`] for `c` and
    /// is legal with simple ko and no suicide (as [`Board::check`] with `simple_ko` and no suicide allowed).
    #[inline]
    pub fn is_uniform_candidate(&self, c: Color, i: Idx) -> bool {
        if self.color.get(i) != Some(&EMPTY) {
            return false;
        }
        let me = code(c);
        let counts = self.nbr_at(i);
        !eyelike_counts(counts, me)
            && self.ko != Some(i)
            && ((counts >> NBR_EMPTY) & 15 != 0 || self.suicide_size(c, i).is_none())
    }

    /// The light playout's whole test of a candidate: [`Board::is_light_legal`] and not
    /// [`Board::is_eyelike`], with one validation and one load of the neighbour counts.
    #[inline]
    pub fn is_light_candidate(&self, c: Color, i: Idx) -> bool {
        self.color.get(i) == Some(&EMPTY) && self.light_candidate_at(code(c), i)
    }

    /// [`Board::is_light_candidate`] for an empty cell `i` and colour code `me`.
    #[inline(always)]
    fn light_candidate_at(&self, me: u8, i: Idx) -> bool {
        let counts = self.nbr_at(i);
        !eyelike_counts(counts, me) && self.light_legal_at(me, i, counts)
    }

    /// libEGO's light-playout choice: scanning the empty-point list from position `start` (taken modulo its
    /// length) and wrapping around, the first point that is [`Board::is_light_candidate`] for `c`.
    #[inline]
    pub fn first_light_candidate(&self, c: Color, start: usize) -> Option<Idx> {
        let n = self.empty.len();
        if n == 0 {
            return None;
        }
        let me = code(c);
        // The caller's start is usually in range already: a division costs more than the rest of the call.
        let start = if start < n { start } else { start % n };
        // Points of the empty list are empty cells of the board.
        let candidate = |&v: &u16| self.light_candidate_at(me, v as usize);
        self.empty[start..]
            .iter()
            .find(|v| candidate(v))
            .or_else(|| self.empty[..start].iter().find(|v| candidate(v)))
            .map(|&v| v as usize)
    }

    /// For an empty point whose neighbours are all the opponent's or the edge: whether a stone there captures
    /// (some neighbouring chain is in atari) and is not the simple-ko point.
    #[inline(always)]
    fn light_capture(&self, i: Idx) -> bool {
        let s = self.stride;
        // Without branches: a border cell's chain is the scratch record, whose answer is masked off.
        let mut any = false;
        for n in [i - s, i - 1, i + 1, i + s] {
            any |= (self.col(n) != BORDER) & self.in_atari_unchecked(n);
        }
        any & (self.ko != Some(i))
    }

    /// Whether every incrementally kept record (hash, packed copy, chains and their pseudo-liberties, neighbour
    /// counts, empty list, stone counts) equals what a board built afresh from the position has. For tests.
    pub fn is_consistent(&self) -> bool {
        let Ok(fresh) = Board::from_grid(&self.to_grid()) else {
            return false;
        };
        let mut empty_a = self.empty.clone();
        let mut empty_b = fresh.empty.clone();
        empty_a.sort_unstable();
        empty_b.sort_unstable();
        let same_points = self.size.points().all(|p| {
            let i = self.idx(p);
            let chains_agree = self.color[i] == EMPTY || {
                let (a, b) = (self.info(i), fresh.info(i));
                let members = |board: &Board| {
                    let mut m: Vec<Idx> = board.chain_stones(i).collect();
                    m.sort_unstable();
                    m
                };
                (a.libs, a.stones) == (b.libs, b.stones) && members(self) == members(&fresh)
            };
            chains_agree
                && self.nbr[i] == fresh.nbr[i]
                && (self.color[i] != EMPTY
                    || (self.empty[self.empty_pos[i] as usize] as usize == i && self.chain[i] == 0))
        });
        same_points
            && self.hash == fresh.hash
            && (!self.snapshot_kept() || self.bits == fresh.bits)
            && self.stones == fresh.stones
            && empty_a == empty_b
    }

    /// Passing clears the simple-ko point.
    #[inline]
    pub fn pass(&mut self) {
        self.ko = None;
    }

    /// Plays `c` at the empty point `i` with captures, then removes the own chain if it has no liberty. The
    /// caller has checked legality ([`Board::check`]); on an occupied point or off the board this does nothing.
    #[inline(always)]
    pub fn play(&mut self, c: Color, i: Idx) -> PlayEffect {
        if self.color.get(i) != Some(&EMPTY) {
            return PlayEffect::default();
        }
        let (captured, last_captured) = self.place::<true>(i, code(c));
        let mut effect = PlayEffect {
            captured,
            suicided: 0,
        };
        self.ko = None;
        let own = *self.info(i);
        if own.libs == 0 {
            effect.suicided = self.remove_chain(i);
            self.captures[c.opponent().index()] += effect.suicided;
        } else if captured == 1 && own.stones == 1 && own.lib_count() == 1 {
            // A lone stone with one liberty (pseudo-liberties are exact for one stone) that took one stone.
            self.ko = Some(last_captured);
        }
        self.captures[c.index()] += captured;
        effect
    }

    // Unchecked access for the hot paths. SAFETY (for every caller below): indices are on-board cells, or
    // their orthogonal or diagonal neighbours, which the border ring and the spare last cell keep inside the
    // arrays; chain roots are on-board cells. Public entry points check their index before coming here.
    #[inline(always)]
    fn col(&self, i: Idx) -> u8 {
        debug_assert!(i < self.color.len());
        unsafe { *self.color.get_unchecked(i) }
    }
    #[inline(always)]
    fn nbr_at(&self, i: Idx) -> u32 {
        debug_assert!(i < self.nbr.len());
        unsafe { *self.nbr.get_unchecked(i) }
    }
    #[inline(always)]
    fn nbr_add(&mut self, i: Idx, delta: u32) {
        debug_assert!(i < self.nbr.len());
        let x = unsafe { self.nbr.get_unchecked_mut(i) };
        *x = x.wrapping_add(delta);
    }
    #[inline(always)]
    fn root(&self, i: Idx) -> usize {
        debug_assert!(i < self.chain.len());
        unsafe { *self.chain.get_unchecked(i) as usize }
    }
    #[inline(always)]
    fn nxt(&self, i: Idx) -> usize {
        debug_assert!(i < self.next.len());
        unsafe { *self.next.get_unchecked(i) as usize }
    }
    /// The chain record of the stone at `i`.
    #[inline(always)]
    fn info(&self, i: Idx) -> &ChainInfo {
        let r = self.root(i);
        debug_assert!(r < self.chains.len());
        unsafe { self.chains.get_unchecked(r) }
    }
    #[inline(always)]
    fn info_mut(&mut self, root: usize) -> &mut ChainInfo {
        debug_assert!(root < self.chains.len());
        unsafe { self.chains.get_unchecked_mut(root) }
    }

    /// Puts a stone of colour code `me` on the empty point `i`, merging chains, without captures.
    fn put_stone(&mut self, i: Idx, me: u8) {
        self.place::<false>(i, me);
    }

    /// Puts a stone of colour code `me` on the empty point `i`: neighbour counts, liberties, merges with own
    /// chains and (when `CAPTURE`) the removal of opponent chains left without liberties. Returns the stones
    /// captured and the last point captured.
    ///
    /// The first pass has no branch on what the neighbours are (such branches are the playout's costliest
    /// mispredictions): every neighbour's chain record loses the pseudo-liberty at `i`, and empty and border
    /// cells, whose chain is the scratch record 0, absorb it harmlessly.
    #[inline(always)]
    fn place<const CAPTURE: bool>(&mut self, i: Idx, me: u8) -> (u32, Idx) {
        debug_assert!(self.color[i] == EMPTY);
        unsafe { *self.color.get_unchecked_mut(i) = me };
        self.hash ^= zobrist(i, me);
        self.flip_bit(i, me);
        self.stones[(me - 1) as usize] += 1;
        // Remove from the empty list by moving the last entry into its slot.
        // SAFETY: `i` is an empty cell, so `empty_pos[i]` is a valid slot of `empty`, which is not empty, and
        // the last entry is a cell too.
        unsafe {
            let pos = *self.empty_pos.get_unchecked(i) as usize;
            let last = *self.empty.get_unchecked(self.empty.len() - 1);
            *self.empty.get_unchecked_mut(pos) = last;
            *self.empty_pos.get_unchecked_mut(last as usize) = pos as u16;
            self.empty.set_len(self.empty.len() - 1);
            *self.next.get_unchecked_mut(i) = i as u16;
        }
        let diag = diag_delta(me);
        for d in self.diagonals(i) {
            self.nbr_add(d, diag);
        }
        let delta = nbr_delta(me);
        let key = lib_key(i);
        let s = self.stride;
        let around = [i - s, i - 1, i + 1, i + s];
        let mut libs = 0u64;
        let mut roots = [0usize; 4];
        // The four neighbours' colour codes, one byte each, for the masks below.
        let mut codes = 0u32;
        for (k, &n) in around.iter().enumerate() {
            self.nbr_add(n, delta);
            let x = self.col(n);
            libs += lib_key(n) & ((x == EMPTY) as u64).wrapping_neg();
            let r = self.root(n);
            roots[k] = r;
            self.info_mut(r).libs = self.info_mut(r).libs.wrapping_sub(key);
            codes |= (x as u32) << (8 * k);
        }
        let (mut own, mut opp) = (byte_mask(codes, me), byte_mask(codes, 3 - me));
        if own == 0 {
            // SAFETY: `i` is a cell.
            unsafe { *self.chain.get_unchecked_mut(i) = i as u16 };
            *self.info_mut(i) = ChainInfo { libs, stones: 1 };
        } else {
            // The stone joins its first own neighbour's chain without a record of its own to merge. The chain
            // keeps its root, except a lone stone's, whose root becomes `i`: the root a merge of two equal
            // chains keeps, so that the roots and the order of the stones are as a merge leaves them. Then that
            // chain merges with the other own neighbours' chains.
            let first = roots[own.trailing_zeros() as usize / 8];
            own &= own - 1;
            let mut chain = *self.info_mut(first);
            let mut root = if chain.stones == 1 { i } else { first };
            chain.libs += libs;
            chain.stones += 1;
            *self.info_mut(root) = chain;
            // SAFETY: `i` and `first` are cells.
            unsafe {
                *self.chain.get_unchecked_mut(first) = root as u16;
                *self.chain.get_unchecked_mut(i) = root as u16;
                *self.next.get_unchecked_mut(i) = self.nxt(first) as u16;
                *self.next.get_unchecked_mut(first) = i as u16;
            }
            while own != 0 {
                let n = around[own.trailing_zeros() as usize / 8];
                own &= own - 1;
                let r = self.root(n);
                if r != root {
                    root = self.merge(root, r);
                }
            }
        }
        let (mut captured, mut last_captured) = (0, 0);
        if CAPTURE {
            // The opponent's neighbouring chains left without a pseudo-liberty, found without branches (the
            // merges above relabel own chains only, so the opponent's roots are still those of the first pass).
            let mut dead = 0;
            for (k, &r) in roots.iter().enumerate() {
                dead |= ((self.info_mut(r).libs == 0) as u32) << (8 * k + 7);
            }
            opp &= dead;
            while opp != 0 {
                let n = around[opp.trailing_zeros() as usize / 8];
                opp &= opp - 1;
                // A chain met twice is removed at the first meeting: the second finds the point empty.
                if self.col(n) != EMPTY {
                    last_captured = n;
                    captured += self.remove_chain(n);
                }
            }
        }
        (captured, last_captured)
    }

    /// Merges two distinct chains, relabelling the smaller. Returns the root of the merged chain.
    fn merge(&mut self, a: usize, b: usize) -> usize {
        let (big, small) = if self.info_mut(a).stones >= self.info_mut(b).stones {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            unsafe { *self.chain.get_unchecked_mut(s) = big as u16 };
            s = self.nxt(s);
            if s == small {
                break;
            }
        }
        // Splicing the two circular lists: swapping the successors of one stone of each.
        // SAFETY: both are chain roots, which are cells.
        unsafe {
            let (a, b) = (self.nxt(big), self.nxt(small));
            *self.next.get_unchecked_mut(big) = b as u16;
            *self.next.get_unchecked_mut(small) = a as u16;
        }
        let sm = *self.info_mut(small);
        let bg = self.info_mut(big);
        bg.libs += sm.libs;
        bg.stones += sm.stones;
        big
    }

    /// Removes the chain through `i`, giving its neighbours their liberties back. Returns the stones removed.
    fn remove_chain(&mut self, i: Idx) -> u32 {
        let x = self.col(i);
        let mut count = 0;
        let mut s = i;
        loop {
            let nxt = self.nxt(s);
            // SAFETY: `s` is a cell; `empty` has capacity for every point and `s` was not in it. An empty
            // cell's chain is the scratch record 0.
            unsafe {
                *self.color.get_unchecked_mut(s) = EMPTY;
                *self.chain.get_unchecked_mut(s) = 0;
                let len = self.empty.len();
                debug_assert!(len < self.empty.capacity());
                *self.empty_pos.get_unchecked_mut(s) = len as u16;
                self.empty.as_mut_ptr().add(len).write(s as u16);
                self.empty.set_len(len + 1);
            }
            self.hash ^= zobrist(s, x);
            self.flip_bit(s, x);
            count += 1;
            s = nxt;
            if s == i {
                break;
            }
        }
        // Second pass: every neighbouring stone gains a pseudo-liberty per adjacency; empty and border cells
        // (the removed stones among them) give theirs to the scratch record, without a branch.
        let undo = nbr_delta(x).wrapping_neg();
        let undo_diag = diag_delta(x).wrapping_neg();
        let mut s = i;
        loop {
            for d in self.diagonals(s) {
                self.nbr_add(d, undo_diag);
            }
            let key = lib_key(s);
            for n in self.neighbors(s) {
                self.nbr_add(n, undo);
                let r = self.root(n);
                self.info_mut(r).libs = self.info_mut(r).libs.wrapping_add(key);
            }
            s = self.nxt(s);
            if s == i {
                break;
            }
        }
        self.stones[(x - 1) as usize] -= count;
        count
    }
}

impl Clone for Board {
    fn clone(&self) -> Board {
        Board {
            size: self.size,
            stride: self.stride,
            color: self.color.clone(),
            chain: self.chain.clone(),
            next: self.next.clone(),
            nbr: self.nbr.clone(),
            chains: self.chains.clone(),
            empty: {
                // Room for every point: `remove_chain` appends without checking.
                let mut empty = Vec::with_capacity(self.size.area());
                empty.extend_from_slice(&self.empty);
                empty
            },
            empty_pos: self.empty_pos.clone(),
            hash: self.hash,
            ko: self.ko,
            captures: self.captures,
            stones: self.stones,
            bits: self.bits.clone(),
        }
    }

    /// Reuses the allocations: searches copy boards at every node.
    fn clone_from(&mut self, src: &Board) {
        self.size = src.size;
        self.stride = src.stride;
        self.color.clone_from(&src.color);
        self.chain.clone_from(&src.chain);
        self.next.clone_from(&src.next);
        self.nbr.clone_from(&src.nbr);
        self.chains.clone_from(&src.chains);
        self.empty.clear();
        self.empty.reserve(src.size.area());
        self.empty.extend_from_slice(&src.empty);
        self.empty_pos.clone_from(&src.empty_pos);
        self.hash = src.hash;
        self.ko = src.ko;
        self.captures = src.captures;
        self.stones = src.stones;
        self.bits.clone_from(&src.bits);
    }
}

impl PartialEq for Board {
    /// Boards are equal when they hold the same stones (history such as captures is ignored).
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size && self.color == other.color
    }
}
impl Eq for Board {}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_grid())
    }
}
