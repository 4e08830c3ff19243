//! The playout policy of the tree search, and the tactical look-ahead that it and the tree's priors share.
//!
//! One move of a playout, for the player `c` after the opponent's last move (MoGo's order):
//!
//! 1. **Atari.** If the last stone's chain is in atari, capture it. If the last move put one of `c`'s chains next
//!    to it in atari, save it: capture a neighbouring chain that is itself in atari, or extend at the liberty when
//!    that leaves the chain at least two liberties (and, with exactly two, early in the playout, when it does
//!    not then die in a ladder: [`crate::ladder`]). One of these moves at random.
//!    With [`Scratch::with_two_libs`] (the search's `twolib=1`, off by default), then, early in the playout:
//!    [`two_liberty_moves`], a ladder on the last move's chain of two liberties or a run from one on a chain
//!    of `c`'s.
//! 2. **Patterns.** One of the empty points around the last move whose 3×3 neighbourhood is a
//!    [`crate::patterns`] shape, when the play is not a self-atari.
//! 3. **Fill board** (boards of 13×13 and more). A few random empty points are tried; the first whose eight
//!    neighbours are all empty points is played.
//! 4. **Random.** From a random place in the empty-point list, the first point that is not `c`'s eye
//!    ([`Board::is_eyelike`]), is legal with simple ko, is no suicide, and is no self-atari of a chain of three or
//!    more stones (a throw-in of one or two stones stays possible, as nakade needs). None: pass.
//!
//! A playout ends after two passes in a row or a move limit, and is counted by area: stones plus empty regions
//! that reach only one colour ([`Scorer`]). Playouts know only simple ko; the tree above them keeps the rules.

use rand::{Rng, RngExt};
use rand_pcg::Pcg32;
use tesuji_rules::{Board, Color, Idx, Size};

use crate::ladder::Ladder;
use crate::patterns;

/// The move code of a pass in move lists: index 0 is a border cell on every board.
pub const PASS: Idx = 0;

/// Plays a playout's ladder reading may spend: a ladder across a 9×9 board, most of one across 19×19.
const PLAYOUT_LADDER_BUDGET: u32 = 60;

/// A playout's reusable buffers: the candidate list and the ladder reader.
#[derive(Clone, Debug)]
pub struct Scratch {
    moves: Vec<Idx>,
    ladder: Ladder,
    /// Whether playouts read ladders at all (early in each playout only: [`LADDER_PLIES`]).
    ladders: bool,
    /// Whether the fill-board step runs ([`fill_board_move`]): set by [`Scratch::for_board`] on big boards.
    fill_board: bool,
    /// Whether the fights-of-two-liberties step runs ([`two_liberty_moves`]).
    two_libs: bool,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch::new()
    }
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            moves: Vec::new(),
            ladder: Ladder::new(),
            ladders: true,
            fill_board: false,
            two_libs: false,
        }
    }

    /// Buffers for the tree's playouts on `board`: the fill-board step on boards of 13×13 and more.
    pub fn for_board(board: &Board) -> Scratch {
        let size = board.size();
        Scratch {
            fill_board: is_big(size),
            ..Scratch::new()
        }
    }

    /// These buffers with the fights-of-two-liberties step on or off.
    pub fn with_two_libs(self, on: bool) -> Scratch {
        Scratch {
            two_libs: on,
            ..self
        }
    }

    /// Buffers for playouts that never read ladders: the estimator's, whose playouts start from finished
    /// positions and whose verdicts were checked with this policy.
    pub fn without_ladders() -> Scratch {
        Scratch {
            ladders: false,
            ..Scratch::new()
        }
    }
}

/// Moves at the start of a playout during which atari escapes are read as ladders. Later the board is full of
/// short-of-liberty chains whose reading costs much and tells little.
const LADDER_PLIES: usize = 24;

/// What a play at an empty point would do for its chain, found without playing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tactics {
    /// Opponent stones the play captures.
    pub captured: u32,
    /// Distinct liberties of the mover's chain after the play, counted up to 3. When the play captures, a lower
    /// bound: of the points it empties, only the captured stones beside the played point count.
    pub liberties: u8,
    /// Stones of the mover's chain after the play: exact when `liberties <= 1`, a lower bound otherwise.
    pub stones: u32,
    /// Own stones in atari before the play that the new chain takes in.
    pub rescued: u32,
}

impl Tactics {
    /// The play captures nothing and leaves its chain one liberty or none.
    #[inline]
    pub fn is_self_atari(&self) -> bool {
        self.captured == 0 && self.liberties <= 1
    }
}

/// What a play does in a fight, read once for both of the tree's priors (the hand-made one and the learned
/// model's): its [`Tactics`] and the ladders it meets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    pub tactics: Tactics,
    /// It takes in own stones in atari and leaves them two liberties, and the opponent captures them by ladder.
    pub escape_fails: bool,
    /// The stones of the biggest opponent chain it puts in atari that cannot escape ([`Ladder::ladder_capture`];
    /// 0 for none, and for a self-atari).
    pub caught: u32,
}

impl Reading {
    /// The reading of `c`'s legal play at the empty on-board point `m`, with the ladder reader's full budget.
    pub fn of(board: &Board, c: Color, m: Idx, ladder: &mut Ladder) -> Reading {
        let tactics = tactics(board, c, m);
        let escape_fails = tactics.rescued > 0
            && tactics.liberties == 2
            && ladder.escape_fails(board, c, m, Ladder::BUDGET);
        let caught = if tactics.is_self_atari() {
            0
        } else {
            ladder.ladder_capture(board, c, m, Ladder::BUDGET)
        };
        Reading {
            tactics,
            escape_fails,
            caught,
        }
    }
}

/// Up to three distinct liberties, other than the point played.
struct Libs {
    at: [Idx; 3],
    n: usize,
    played: Idx,
}

impl Libs {
    #[inline]
    fn add(&mut self, l: Idx) {
        if self.n < 3 && l != self.played && !self.at[..self.n].contains(&l) {
            self.at[self.n] = l;
            self.n += 1;
        }
    }
}

/// The distinct chains beside one point, by [`Board::chain_id`]: four at most.
#[derive(Default)]
struct Chains {
    ids: [Idx; 4],
    n: usize,
}

impl Chains {
    /// Adds the chain of the stone at `stone`; false when it is in already.
    #[inline]
    fn insert(&mut self, board: &Board, stone: Idx) -> bool {
        let id = board.chain_id(stone);
        if self.ids[..self.n].contains(&id) {
            return false;
        }
        self.ids[self.n] = id;
        self.n += 1;
        true
    }

    #[inline]
    fn ids(&self) -> &[Idx] {
        &self.ids[..self.n]
    }
}

/// The [`Tactics`] of a play by `c` at the empty on-board point `i`.
pub fn tactics(board: &Board, c: Color, i: Idx) -> Tactics {
    let mut libs = Libs {
        at: [0; 3],
        n: 0,
        played: i,
    };
    // The own chains beside `i`, and the opponent chains it captures.
    let mut own = Chains::default();
    let mut caught = Chains::default();
    let mut t = Tactics {
        stones: 1,
        ..Tactics::default()
    };
    for n in board.neighbors(i) {
        if board.is_empty_at(n) {
            libs.add(n);
            continue;
        }
        match board.color_at(n) {
            Some(x) if x == c => {
                own.insert(board, n);
            }
            Some(_) if board.in_atari(n) => {
                // Its only liberty is `i`: the play takes it, and its point becomes a liberty.
                libs.add(n);
                if caught.insert(board, n) {
                    t.captured += board.chain_len(n);
                }
            }
            _ => {}
        }
    }
    // Own chains in atari that join the new stone.
    for &id in own.ids() {
        if board.in_atari(id) {
            t.rescued += board.chain_len(id);
        }
    }
    // The liberties of the own chains that join, stopping at three.
    'chains: for &id in own.ids() {
        t.stones += board.chain_len(id);
        for s in board.chain_stones(id) {
            for l in board.neighbors(s) {
                if board.is_empty_at(l) {
                    libs.add(l);
                }
            }
            if libs.n >= 3 {
                break 'chains;
            }
        }
    }
    t.liberties = libs.n as u8;
    if t.liberties < 2 {
        t.rescued = 0;
    }
    t
}

/// A play that captures nothing and leaves its chain one liberty or none: what [`self_atari`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfAtari {
    /// The chain's liberties after the play: 0 or 1.
    pub liberties: u8,
    /// The chain's stones after the play.
    pub stones: u32,
}

/// [`tactics`]'s verdict on a self-atari alone, for the playouts: whether `c`'s play at the empty on-board
/// point `i` captures nothing and leaves its chain at most one liberty. It stops at the first capture or the
/// second liberty, which most plays show among their four neighbours.
pub fn self_atari(board: &Board, c: Color, i: Idx) -> Option<SelfAtari> {
    if board.empty_neighbor_count(i) >= 2 {
        return None;
    }
    let (captures, mut own_stones) = board.captures_and_own(c, i);
    if captures {
        return None;
    }
    let around = board.neighbors(i);
    // The one liberty found so far (at most one neighbour is empty); `PASS`, 0, for none yet.
    let mut lib = PASS;
    for n in around {
        lib += n * usize::from(board.is_empty_at(n));
    }
    let mut own = Chains::default();
    while own_stones != 0 {
        own.insert(board, around[own_stones.trailing_zeros() as usize]);
        own_stones &= own_stones - 1;
    }
    let mut stones = 1;
    for &id in own.ids() {
        stones += board.chain_len(id);
        for s in board.chain_stones(id) {
            for l in board.neighbors(s) {
                if l != i && l != lib && board.is_empty_at(l) {
                    if lib != PASS {
                        return None;
                    }
                    lib = l;
                }
            }
        }
    }
    Some(SelfAtari {
        liberties: u8::from(lib != PASS),
        stones,
    })
}

/// A random element of `list`, if any.
#[inline]
fn pick(rng: &mut Pcg32, list: &[Idx]) -> Option<Idx> {
    match list.len() {
        0 => None,
        1 => Some(list[0]),
        n => Some(list[rng.random_range(0..n)]),
    }
}

/// Step 1: captures of the last stone's chain and the rescues of own chains it put in atari. An extension that
/// leaves two liberties is kept only when the chain does not then die in a ladder: running along a ladder only
/// feeds the opponent more stones.
pub fn atari_moves(
    board: &Board,
    c: Color,
    last: Idx,
    out: &mut Vec<Idx>,
    mut ladder: Option<&mut Ladder>,
) {
    let opp = Some(c.opponent());
    let (last_in_atari, mut own) = board.ataris_around(c, last);
    if last_in_atari && board.color_at(last) == opp {
        let lib = board.atari_liberty(last);
        if board.is_light_legal(c, lib) {
            out.push(lib);
        }
    }
    // The own neighbours in atari, in the order of `neighbors`.
    let around = board.neighbors(last);
    while own != 0 {
        let n = around[own.trailing_zeros() as usize];
        own &= own - 1;
        let lib = board.atari_liberty(n);
        if board.is_light_legal(c, lib) {
            let libs = tactics(board, c, lib).liberties;
            let dies = |l: &mut Ladder| l.escape_fails(board, c, lib, PLAYOUT_LADDER_BUDGET);
            if libs >= 3 || (libs == 2 && !ladder.as_deref_mut().is_some_and(dies)) {
                out.push(lib);
            }
        }
        for s in board.chain_stones(n) {
            for m in board.neighbors(s) {
                if board.color_at(m) == opp && board.in_atari(m) {
                    let l = board.atari_liberty(m);
                    if board.is_light_legal(c, l) {
                        out.push(l);
                    }
                }
            }
        }
    }
}

/// Step 1b, early in a playout (it reads ladders): fights of two liberties at the last move. When the last
/// move left its own chain two liberties, an atari at one of them that the chain cannot escape by ladder; when
/// it left a chain of `c`'s beside it two liberties and the opponent would capture that chain by ladder, a
/// liberty that gives it three or more.
pub fn two_liberty_moves(
    board: &Board,
    c: Color,
    last: Idx,
    out: &mut Vec<Idx>,
    ladder: &mut Ladder,
) {
    let mut libs = [0; 3];
    if board.color_at(last) == Some(c.opponent())
        && crate::ladder::chain_liberties(board, last, &mut libs) == 2
    {
        for &l in &libs[..2] {
            if board.is_light_legal(c, l)
                && self_atari(board, c, l).is_none()
                && ladder.ladder_capture(board, c, l, PLAYOUT_LADDER_BUDGET) > 0
            {
                out.push(l);
            }
        }
    }
    for n in board.neighbors(last) {
        if board.color_at(n) != Some(c)
            || crate::ladder::chain_liberties(board, n, &mut libs) != 2
            || !ladder.captured_with_two(board, n, PLAYOUT_LADDER_BUDGET)
        {
            continue;
        }
        for &l in &libs[..2] {
            if board.is_light_legal(c, l) && tactics(board, c, l).liberties >= 3 {
                out.push(l);
            }
        }
    }
}

/// Step 2: pattern moves around the last move that are not self-atari.
pub fn pattern_moves(board: &Board, c: Color, last: Idx, out: &mut Vec<Idx>) {
    let (sides, corners) = (board.neighbors(last), board.diagonals(last));
    let cells = [
        sides[0], sides[1], sides[2], sides[3], corners[0], corners[1], corners[2], corners[3],
    ];
    // The shape test first, for all eight without a branch: few cells match, so the tests of emptiness and
    // legality, whose branches mispredict, run on few.
    let mut shaped = 0u32;
    for (k, &n) in cells.iter().enumerate() {
        shaped |= u32::from(patterns::matches(board, n)) << k;
    }
    while shaped != 0 {
        let n = cells[shaped.trailing_zeros() as usize];
        shaped &= shaped - 1;
        if board.is_light_candidate(c, n) && self_atari(board, c, n).is_none() {
            out.push(n);
        }
    }
}

/// Whether the random step accepts a light candidate: no suicide, and no self-atari of three stones or more.
#[inline]
fn acceptable(board: &Board, c: Color, i: Idx) -> bool {
    self_atari(board, c, i).is_none_or(|s| s.liberties == 1 && s.stones < 3)
}

/// Random points the fill-board step tries on a big board.
const FILL_BOARD_TRIES: usize = 3;

/// Step 3 on boards of 13×13 and more (MoGo's "fill board"): a random empty point whose eight neighbours are
/// all empty points of the board, if one of a few tries finds it. Uniformly random play leaves wide areas of
/// a big board empty for long; a stone in the middle of nothing settles the count there sooner and closer to
/// what players would get.
fn fill_board_move(board: &Board, rng: &mut Pcg32) -> Option<Idx> {
    let empty = board.empty_points();
    if empty.is_empty() {
        return None;
    }
    for _ in 0..FILL_BOARD_TRIES {
        let i = empty[((rng.next_u32() as u64 * empty.len() as u64) >> 32) as usize] as Idx;
        let clear = |cells: [Idx; 4]| cells.iter().all(|&n| board.is_empty_at(n));
        if clear(board.neighbors(i)) && clear(board.diagonals(i)) {
            return Some(i);
        }
    }
    None
}

/// Step 4: the first acceptable point from a random place in the empty-point list, or [`PASS`].
pub fn random_move(board: &Board, c: Color, rng: &mut Pcg32) -> Idx {
    let empty = board.empty_points();
    let n = empty.len();
    if n == 0 {
        return PASS;
    }
    let start = ((rng.next_u32() as u64 * n as u64) >> 32) as usize;
    let ok = |&&v: &&u16| {
        let i = v as Idx;
        board.is_light_candidate(c, i) && acceptable(board, c, i)
    };
    empty[start..]
        .iter()
        .find(ok)
        .or_else(|| empty[..start].iter().find(ok))
        .map_or(PASS, |&v| v as Idx)
}

/// The policy's move for `c` after the last move `last` ([`PASS`] when it was a pass or there is none).
pub fn choose(board: &Board, c: Color, last: Idx, rng: &mut Pcg32, scratch: &mut Scratch) -> Idx {
    let read_ladders = scratch.ladders;
    choose_reading(board, c, last, rng, scratch, read_ladders)
}

/// [`choose`], reading ladders only when `read_ladders` (and the scratch allows it).
fn choose_reading(
    board: &Board,
    c: Color,
    last: Idx,
    rng: &mut Pcg32,
    scratch: &mut Scratch,
    read_ladders: bool,
) -> Idx {
    if last != PASS && board.color_at(last).is_some() {
        let out = &mut scratch.moves;
        out.clear();
        let ladder = (read_ladders && scratch.ladders).then_some(&mut scratch.ladder);
        atari_moves(board, c, last, out, ladder);
        if let Some(m) = pick(rng, out) {
            return m;
        }
        if scratch.two_libs && read_ladders && scratch.ladders {
            two_liberty_moves(board, c, last, out, &mut scratch.ladder);
            if let Some(m) = pick(rng, out) {
                return m;
            }
        }
        pattern_moves(board, c, last, out);
        if let Some(m) = pick(rng, out) {
            return m;
        }
    }
    if scratch.fill_board
        && let Some(m) = fill_board_move(board, rng)
    {
        return m;
    }
    random_move(board, c, rng)
}

/// Plays a playout on `board` with `to_move` first after the last move `last`, appending each move and its
/// colour to `moves` ([`PASS`] for a pass). Ends after two passes in a row or when `moves` holds `max_moves`.
pub fn run(
    board: &mut Board,
    mut to_move: Color,
    mut last: Idx,
    rng: &mut Pcg32,
    scratch: &mut Scratch,
    moves: &mut Vec<(Idx, Color)>,
    max_moves: usize,
) {
    let mut passes = 0;
    let (start, end) = (moves.len(), moves.len() + max_moves);
    while passes < 2 && moves.len() < end {
        let early = moves.len() - start < LADDER_PLIES;
        let m = choose_reading(board, to_move, last, rng, scratch, early);
        if m == PASS {
            board.pass();
            passes += 1;
        } else {
            board.play(to_move, m);
            passes = 0;
        }
        moves.push((m, to_move));
        last = m;
        to_move = to_move.opponent();
    }
}

/// Area counting of a board at the end of a playout, with reusable buffers.
pub struct Scorer {
    mark: Vec<u32>,
    epoch: u32,
    stack: Vec<Idx>,
    region: Vec<Idx>,
    /// Per padded index after [`Scorer::area`]: 1 Black's, -1 White's, 0 nobody's.
    owner: Vec<i8>,
}

impl Scorer {
    pub fn new(board: &Board) -> Scorer {
        let cells = board.stride() * (board.size().height() as usize + 2) + 1;
        Scorer {
            mark: vec![0; cells],
            epoch: 0,
            stack: Vec::new(),
            region: Vec::new(),
            owner: vec![0; cells],
        }
    }

    /// Black's area minus White's (Tromp-Taylor: stones, and empty regions reaching one colour only). Empty
    /// points are given their owner (see [`Scorer::owner_at`]).
    pub fn area(&mut self, board: &Board) -> i32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.fill(0);
            self.epoch = 1;
        }
        let [b, w] = board.stone_counts();
        let mut margin = b as i32 - w as i32;
        for &e in board.empty_points() {
            let e = e as Idx;
            if self.mark[e] == self.epoch {
                continue;
            }
            self.mark[e] = self.epoch;
            self.stack.clear();
            self.region.clear();
            self.stack.push(e);
            let mut touches = [false; 2];
            while let Some(p) = self.stack.pop() {
                self.region.push(p);
                for n in board.neighbors(p) {
                    if board.is_empty_at(n) {
                        if self.mark[n] != self.epoch {
                            self.mark[n] = self.epoch;
                            self.stack.push(n);
                        }
                    } else if let Some(c) = board.color_at(n) {
                        touches[c.index()] = true;
                    }
                }
            }
            let owner = match touches {
                [true, false] => 1,
                [false, true] => -1,
                _ => 0,
            };
            margin += owner as i32 * self.region.len() as i32;
            for &p in &self.region {
                self.owner[p] = owner;
            }
        }
        margin
    }

    /// The owner of the cell `i` after the last [`Scorer::area`]: the colour of a stone, or of the region an
    /// empty point belongs to (1 Black, -1 White, 0 nobody).
    #[inline]
    pub fn owner_at(&self, board: &Board, i: Idx) -> i8 {
        match board.color_at(i) {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => self.owner[i],
        }
    }
}

/// Whether a board takes the model learned on big boards: 13 lines or more a side.
pub fn is_big(size: Size) -> bool {
    size.width().min(size.height()) >= 13
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use tesuji_rules::{Grid, Point, Size};

    fn board(diagram: &str) -> Board {
        Board::from_grid(&Grid::from_diagram(diagram).unwrap()).unwrap()
    }

    /// The board after a playout of at most `plies` turns from the empty board, Black first.
    fn played(size: Size, rng: &mut Pcg32, plies: usize) -> Board {
        let mut b = Board::new(size);
        let mut moves = Vec::new();
        run(
            &mut b,
            Color::Black,
            PASS,
            rng,
            &mut Scratch::new(),
            &mut moves,
            plies,
        );
        b
    }

    #[test]
    fn tactics_count_liberties_captures_and_rescues() {
        // Black at C3 joins B3 (in atari) and has two more liberties.
        let b = board(".....\n.O...\nOX.X.\n.O...\n.....");
        let t = tactics(&b, Color::Black, b.idx(Point::new(2, 2)));
        assert_eq!(t.captured, 0);
        assert_eq!(t.liberties, 3);
        assert_eq!(t.rescued, 1);
        // White at A1 in the corner between two black stones: a self-atari of one stone.
        let b = board("...\nX..\n.X.");
        let t = tactics(&b, Color::White, b.idx(Point::new(0, 2)));
        assert!(t.is_self_atari());
        assert_eq!(t.liberties, 0);
        // Black captures the white stone in atari.
        let b = board(".X.\nXOX\n...");
        let t = tactics(&b, Color::Black, b.idx(Point::new(1, 2)));
        assert_eq!(t.captured, 1);
        assert!(!t.is_self_atari());
    }

    /// [`tactics`] against playing the move on a copy and counting, and [`self_atari`] against [`tactics`], at
    /// every legal point of positions from random playouts on several sizes.
    #[test]
    fn tactics_and_the_self_atari_test_match_playing_the_move() {
        let mut rng = Pcg32::seed_from_u64(7);
        let mut checked = [0usize; 2];
        for n in [5u8, 7, 9, 13, 19] {
            let size = Size::square(n).unwrap();
            for game in 0..12 {
                let b = played(size, &mut rng, 10 + game * n as usize * n as usize / 10);
                for c in Color::BOTH {
                    for p in size.points() {
                        let i = b.idx(p);
                        if !b.is_empty_at(i) || b.check(c, i, true, true, false).is_err() {
                            continue;
                        }
                        let t = tactics(&b, c, i);
                        let mut after = b.clone();
                        let effect = after.play(c, i);
                        assert_eq!(t.captured, effect.captured, "{n} {p:?}");
                        let libs = after.liberties(p).min(3);
                        if t.captured == 0 {
                            assert_eq!(usize::from(t.liberties), libs, "{n} {p:?}");
                        } else {
                            assert!(usize::from(t.liberties) <= libs, "{n} {p:?}");
                        }
                        // A suicide (of more than one stone: the only kind the check lets through) leaves no chain.
                        let stones = after.chain_len(i).max(effect.suicided);
                        if libs <= 1 {
                            assert_eq!(t.stones, stones);
                        } else {
                            assert!(t.stones <= stones);
                        }
                        let mut in_atari: Vec<Idx> = b
                            .neighbors(i)
                            .into_iter()
                            .filter(|&x| b.color_at(x) == Some(c) && b.in_atari(x))
                            .map(|x| b.chain_id(x))
                            .collect();
                        in_atari.sort_unstable();
                        in_atari.dedup();
                        let rescued: u32 = in_atari.iter().map(|&x| b.chain_len(x)).sum();
                        assert_eq!(t.rescued, if libs >= 2 { rescued } else { 0 });
                        let quick = self_atari(&b, c, i);
                        assert_eq!(quick.is_some(), t.is_self_atari(), "{n} {p:?}");
                        if let Some(q) = quick {
                            assert_eq!((q.liberties, q.stones), (t.liberties, t.stones));
                        }
                        checked[usize::from(quick.is_some())] += 1;
                    }
                }
            }
        }
        // Both verdicts occur often enough to mean something.
        assert!(checked[0] > 5_000 && checked[1] > 200, "{checked:?}");
    }

    #[test]
    fn playouts_capture_a_chain_in_atari_after_the_last_move() {
        // White just played B2 into atari: Black's policy captures at C2 (step 1), whatever the seed.
        let b = board(".X...\nXO...\n.X...\n.....\n.....");
        let last = b.idx(Point::new(1, 1));
        for seed in 0..20 {
            let mut rng = Pcg32::seed_from_u64(seed);
            let m = choose(&b, Color::Black, last, &mut rng, &mut Scratch::new());
            assert_eq!(m, b.idx(Point::new(2, 1)));
        }
    }

    #[test]
    fn two_liberty_fights_chase_ladders_and_run_from_them() {
        let two = |diagram: &str, c: Color, last: (u8, u8)| {
            let b = board(diagram);
            let mut out = Vec::new();
            two_liberty_moves(
                &b,
                c,
                b.idx(Point::new(last.0, last.1)),
                &mut out,
                &mut Ladder::new(),
            );
            let mut points: Vec<(u8, u8)> =
                out.iter().map(|&m| (b.point(m).x, b.point(m).y)).collect();
            points.sort();
            points
        };
        // White's corner stone: crawling along either edge dies, so both ataris capture it. (A small board: the
        // playouts' ladder budget settles short ladders only.)
        let empty = "....\n....\n....\n....";
        let corner = "O...\n....\n....\n....";
        assert_eq!(two(corner, Color::Black, (0, 0)), [(0, 1), (1, 0)]);
        // A white stone beside the left edge breaks the ladder down that edge: the atari on the top row, which
        // sends White down there, is no capture.
        let breaker = "O...\n....\n.O..\n....";
        assert_eq!(two(breaker, Color::Black, (0, 0)), [(0, 1)]);
        // White's hane leaves Black's edge stone two liberties and a ladder along the edge: only extending down
        // the edge reaches three liberties (the corner gives two).
        let hane = "....\nXO..\n....\n....";
        assert_eq!(two(hane, Color::Black, (1, 1)), [(0, 2)]);
        // Two liberties in the open are no ladder: nothing to run from.
        let loose = ".......\n.......\n...O...\n..OX...\n.......\n.......\n.......";
        assert!(two(loose, Color::Black, (2, 3)).is_empty());
        // Nothing to fight for on an open board.
        let open = "....\n.O..\n....\n....";
        assert!(two(open, Color::Black, (1, 1)).is_empty());
        assert!(two(empty, Color::Black, (2, 2)).is_empty());
    }

    #[test]
    fn fill_board_plays_in_open_areas_of_big_boards_only() {
        // The first move of a playout on an empty board: on 19x19 the fill-board step nearly always finds a
        // point away from the edge; on 9x9 there is no such step, and a random point is on the first line about
        // one time in three.
        let first_line_share = |n: u8| {
            let b = Board::new(Size::square(n).unwrap());
            let mut scratch = Scratch::for_board(&b);
            let edge = (0..400)
                .filter(|&seed| {
                    let mut rng = Pcg32::seed_from_u64(seed);
                    let p = b.point(choose(&b, Color::Black, PASS, &mut rng, &mut scratch));
                    p.x == 0 || p.y == 0 || p.x == n - 1 || p.y == n - 1
                })
                .count();
            edge as f64 / 400.0
        };
        assert!(first_line_share(19) < 0.02, "{}", first_line_share(19));
        assert!(first_line_share(9) > 0.2, "{}", first_line_share(9));
    }

    #[test]
    fn playouts_end_and_count_every_point() {
        let size = Size::square(9).unwrap();
        let mut rng = Pcg32::seed_from_u64(1);
        let mut scorer = Scorer::new(&Board::new(size));
        for _ in 0..50 {
            let b = played(size, &mut rng, 3 * 81);
            assert!(b.is_consistent());
            let margin = scorer.area(&b);
            assert!(margin.abs() <= 81);
            // An empty point counted for a colour touches stones of that colour only.
            for &e in b.empty_points() {
                let owner = scorer.owner_at(&b, e as Idx);
                let colours: Vec<_> = b
                    .neighbors(e as Idx)
                    .iter()
                    .filter_map(|&n| b.color_at(n))
                    .collect();
                if owner != 0 {
                    assert!(colours.iter().all(|&c| (c == Color::Black) == (owner == 1)));
                }
            }
        }
    }
}
