//! KataGo's ladder reading, as its input features 14–17 use it: a chain in atari that cannot escape a
//! continuous atari sequence, and a chain of two liberties that the attacker can put into one.
//!
//! KataGo's reader has one shortcut whose answer depends on the order in which it lists a chain's
//! liberties, and that order follows KataGo's own chain lists, which follow the order the stones were
//! played in and how earlier readings took moves back. So this module keeps a board the way KataGo's
//! `Board` keeps it ([`Chains`]: on the padded layout both programs share, `stride = width + 1`, a head per
//! chain, a circular list of its stones, its stone and liberty counts, the simple-ko point), with KataGo's
//! rules for joining, removing and restoring chains, and reads ladders on it with KataGo's search
//! (`Board::searchIsLadderCaptured`: the same base cases, move lists, shortcuts, ko handling, illegal-move
//! handling, depth limit and node budget). The area code reads the same board.

/// Colour codes of a cell.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const EDGE: u8 = 3;

/// The other colour's code (for a stone's code only).
#[inline]
pub(crate) fn other(c: u8) -> u8 {
    3 - c
}

/// No point: cell 0 is always off the board.
const NONE: usize = 0;

/// KataGo's node budget for one ladder search: past it the ladder is taken to work for the defender.
const NODE_BUDGET: usize = 25_000;

/// What taking a play back needs (KataGo's `MoveRecord`).
#[derive(Clone, Copy, Default)]
struct Record {
    loc: usize,
    color: u8,
    ko: usize,
    /// Bit `i`: the play captured the chain at its `i`-th neighbour; `SUICIDE`: it removed its own chain.
    captures: u8,
}

const SUICIDE: u8 = 0x10;

/// A board of chains kept as KataGo keeps them (see the module documentation).
#[derive(Clone)]
pub(crate) struct Chains {
    width: usize,
    height: usize,
    stride: usize,
    color: Vec<u8>,
    head: Vec<u16>,
    next: Vec<u16>,
    /// At a chain's head: its stones and its distinct liberties.
    stones: Vec<u16>,
    libs: Vec<u16>,
    ko: usize,
}

impl Chains {
    /// An empty board.
    pub(crate) fn new(width: usize, height: usize) -> Chains {
        let stride = width + 1;
        let cells = (height + 2) * stride + 1;
        let mut color = vec![EDGE; cells];
        for y in 0..height {
            for x in 0..width {
                color[(y + 1) * stride + x + 1] = EMPTY;
            }
        }
        Chains {
            width,
            height,
            stride,
            color,
            head: vec![0; cells],
            next: vec![0; cells],
            stones: vec![0; cells],
            libs: vec![0; cells],
            ko: NONE,
        }
    }

    /// A set-up position: the stones placed one by one in row-major order, as KataGo places a list of
    /// stones (`setStonesFailIfNoLibs`); `stones(x, y)` is the colour code at each point. A stone that
    /// would be suicide or capture is left out (no legal position has one).
    pub(crate) fn set_up(
        width: usize,
        height: usize,
        stones: impl Fn(usize, usize) -> u8,
    ) -> Chains {
        let mut b = Chains::new(width, height);
        for y in 0..height {
            for x in 0..width {
                let c = stones(x, y);
                let i = b.idx(x, y);
                if (c == BLACK || c == WHITE) && !b.is_suicide(i, c) && !b.would_capture(i, c) {
                    b.play(i, c);
                }
            }
        }
        b.ko = NONE;
        b
    }

    #[inline]
    pub(crate) fn width(&self) -> usize {
        self.width
    }
    #[inline]
    pub(crate) fn height(&self) -> usize {
        self.height
    }
    #[inline]
    pub(crate) fn cells(&self) -> usize {
        self.color.len()
    }
    /// The padded index of the point `(x, y)`, `y = 0` the top row.
    #[inline]
    pub(crate) fn idx(&self, x: usize, y: usize) -> usize {
        (y + 1) * self.stride + x + 1
    }
    /// The point of a padded index.
    #[inline]
    pub(crate) fn xy(&self, i: usize) -> (usize, usize) {
        (
            (i % self.stride).wrapping_sub(1),
            (i / self.stride).wrapping_sub(1),
        )
    }
    /// The colour code of a cell (off the array reads as the edge).
    #[inline]
    pub(crate) fn color(&self, i: usize) -> u8 {
        self.color.get(i).copied().unwrap_or(EDGE)
    }
    #[inline]
    pub(crate) fn head(&self, i: usize) -> usize {
        self.head[i] as usize
    }
    #[inline]
    pub(crate) fn next(&self, i: usize) -> usize {
        self.next[i] as usize
    }
    /// Distinct liberties of the chain of the stone at `i`.
    #[inline]
    pub(crate) fn liberties(&self, i: usize) -> usize {
        self.libs[self.head(i)] as usize
    }
    #[inline]
    fn chain_size(&self, i: usize) -> usize {
        self.stones[self.head(i)] as usize
    }
    /// The simple-ko point, if any.
    pub(crate) fn ko(&self) -> Option<usize> {
        (self.ko != NONE).then_some(self.ko)
    }
    /// The four neighbours, KataGo's order: up, left, right, down. Every point's are inside the array.
    #[inline]
    pub(crate) fn neighbors(&self, i: usize) -> [usize; 4] {
        [
            i.saturating_sub(self.stride),
            i.saturating_sub(1),
            i + 1,
            i + self.stride,
        ]
    }

    fn add_libs(&mut self, head: usize, delta: isize) {
        self.libs[head] = (self.libs[head] as isize + delta).max(0) as u16;
    }

    fn immediate_liberties(&self, i: usize) -> usize {
        self.neighbors(i)
            .iter()
            .filter(|&&n| self.color(n) == EMPTY)
            .count()
    }

    /// Whether a stone of the chain headed `head` (of colour `c`) is next to `i`.
    pub(crate) fn touches_chain(&self, i: usize, c: u8, head: usize) -> bool {
        self.neighbors(i)
            .iter()
            .any(|&n| self.color(n) == c && self.head(n) == head)
    }

    /// KataGo's `isLibertyOf`: a stone of the chain headed `head` is next to `i`.
    fn is_liberty_of(&self, i: usize, head: usize) -> bool {
        self.touches_chain(i, self.color(head), head)
    }

    /// KataGo's `isIllegalSuicide`: a stone of `c` at the empty point `i` would be a suicide the rules forbid
    /// (any suicide, or with `multi_legal` one of a single stone only).
    pub(crate) fn is_illegal_suicide(&self, i: usize, c: u8, multi_legal: bool) -> bool {
        self.neighbors(i).iter().all(|&n| match self.color(n) {
            EMPTY => false,
            EDGE => true,
            x if x == c => !multi_legal && self.liberties(n) <= 1,
            _ => self.liberties(n) != 1,
        })
    }

    /// KataGo's `isSuicide`.
    fn is_suicide(&self, i: usize, c: u8) -> bool {
        self.is_illegal_suicide(i, c, false)
    }

    fn would_capture(&self, i: usize, c: u8) -> bool {
        self.neighbors(i)
            .iter()
            .any(|&n| self.color(n) == other(c) && self.liberties(n) == 1)
    }

    /// KataGo's `isLegal` with multi-stone suicide forbidden (the reader's): empty, not the ko point, and not
    /// suicide.
    fn is_legal(&self, i: usize, c: u8) -> bool {
        self.color(i) == EMPTY && i != self.ko && !self.is_suicide(i, c)
    }

    /// A pass: only the ko point goes.
    pub(crate) fn pass(&mut self) {
        self.ko = NONE;
    }

    /// KataGo's `playMoveAssumeLegal`: `c` plays at the empty point `i`, joining and taking chains in the
    /// neighbours' order, then removing its own chain if it has no liberty.
    pub(crate) fn play(&mut self, i: usize, c: u8) {
        if self.color(i) != EMPTY {
            return;
        }
        let opp = other(c);
        self.color[i] = c;
        self.libs[i] = self.immediate_liberties(i) as u16;
        self.stones[i] = 1;
        self.head[i] = i as u16;
        self.next[i] = i as u16;
        let mut captured = 0;
        let mut ko_point = NONE;
        let mut seen = [NONE; 4];
        let mut nseen = 0;
        for n in self.neighbors(i) {
            let x = self.color(n);
            if x == c {
                if self.head(n) == self.head(i) {
                    continue;
                }
                self.add_libs(self.head(n), -1);
                self.merge(n, i);
            } else if x == opp {
                let h = self.head(n);
                if seen[..nseen].contains(&h) {
                    continue;
                }
                self.add_libs(h, -1);
                seen[nseen] = h;
                nseen += 1;
                if self.liberties(n) == 0 {
                    captured += self.remove_chain(n);
                    ko_point = n;
                }
            }
        }
        let h = self.head(i);
        self.ko = if captured == 1 && self.stones[h] == 1 && self.libs[h] == 1 {
            ko_point
        } else {
            NONE
        };
        if self.libs[h] == 0 {
            self.remove_chain(i);
        }
    }

    /// KataGo's `mergeChains`: the smaller chain (the second on a tie) goes into the larger, its stones
    /// spliced in right after the larger one's head.
    fn merge(&mut self, a: usize, b: usize) {
        let (mut h1, mut h2) = (self.head(a), self.head(b));
        if self.stones[h1] < self.stones[h2] {
            std::mem::swap(&mut h1, &mut h2);
        }
        self.stones[h1] += self.stones[h2];
        let mut new_libs = 0;
        let mut s = h2;
        loop {
            for n in self.neighbors(s) {
                if self.color(n) == EMPTY && !self.is_liberty_of(n, h1) {
                    new_libs += 1;
                }
            }
            self.head[s] = h1 as u16;
            if self.next(s) == h2 {
                break;
            }
            s = self.next(s);
        }
        self.add_libs(h1, new_libs);
        self.next[s] = self.next[h1];
        self.next[h1] = h2 as u16;
    }

    /// KataGo's `removeChain`: empties the chain through `i`, giving each neighbouring chain its liberty
    /// back; returns its size.
    fn remove_chain(&mut self, i: usize) -> usize {
        let opp = other(self.color(i));
        let mut count = 0;
        let mut s = i;
        loop {
            self.color[s] = EMPTY;
            count += 1;
            self.change_neighbor_liberties(s, opp, 1);
            s = self.next(s);
            if s == i {
                return count;
            }
        }
    }

    /// KataGo's `changeSurroundingLiberties`: `delta` to each distinct chain of `c` next to `i`.
    fn change_neighbor_liberties(&mut self, i: usize, c: u8, delta: isize) {
        let mut heads = [NONE; 4];
        let mut nheads = 0;
        for n in self.neighbors(i) {
            if self.color(n) != c {
                continue;
            }
            let h = self.head(n);
            if !heads[..nheads].contains(&h) {
                heads[nheads] = h;
                nheads += 1;
                self.add_libs(h, delta);
            }
        }
    }

    /// KataGo's `addChain`: fills the empty region at `i` with a chain of `c` headed `i`.
    fn add_chain(&mut self, i: usize, c: u8) {
        self.libs[i] = 0;
        self.stones[i] = 0;
        let front = self.add_chain_from(i, i, i, c);
        self.next[i] = front as u16;
    }

    /// Fills depth first, linking each stone to the one filled before it; returns the last filled.
    fn add_chain_from(&mut self, head: usize, tail: usize, i: usize, c: u8) -> usize {
        self.color[i] = c;
        self.head[i] = head as u16;
        self.stones[head] += 1;
        self.next[i] = tail as u16;
        self.change_neighbor_liberties(i, other(c), -1);
        let mut last = i;
        for n in self.neighbors(i) {
            if self.color(n) == EMPTY {
                last = self.add_chain_from(head, last, n, c);
            }
        }
        last
    }

    /// KataGo's `rebuildChain`: relinks the stones of `c` connected to `i` (whose heads point nowhere) into
    /// a chain headed `i`, counting its liberties.
    fn rebuild_chain(&mut self, i: usize, c: u8) {
        self.libs[i] = 0;
        self.stones[i] = 0;
        let front = self.rebuild_chain_from(i, i, i, c);
        self.next[i] = front as u16;
    }

    fn rebuild_chain_from(&mut self, head: usize, tail: usize, i: usize, c: u8) -> usize {
        let around = self.neighbors(i);
        let fresh = around
            .iter()
            .filter(|&&n| self.color(n) == EMPTY && !self.is_liberty_of(n, head))
            .count();
        self.add_libs(head, fresh as isize);
        self.head[i] = head as u16;
        self.stones[head] += 1;
        self.next[i] = tail as u16;
        let mut last = i;
        for n in around {
            if self.color(n) == c && self.head(n) != head {
                last = self.rebuild_chain_from(head, last, n, c);
            }
        }
        last
    }

    /// KataGo's `playMoveRecorded`.
    fn play_recorded(&mut self, i: usize, c: u8) -> Record {
        let mut captures = 0;
        for (k, n) in self.neighbors(i).into_iter().enumerate() {
            if self.color(n) == other(c) && self.liberties(n) == 1 {
                captures |= 1 << k;
            }
        }
        if captures == 0 && self.is_suicide(i, c) {
            captures = SUICIDE;
        }
        let record = Record {
            loc: i,
            color: c,
            ko: self.ko,
            captures,
        };
        self.play(i, c);
        record
    }

    /// KataGo's `undo`: the position comes back exactly, its chain lists not always as they were.
    fn undo(&mut self, r: Record) {
        self.ko = r.ko;
        let i = r.loc;
        let opp = other(r.color);
        for (k, n) in self.neighbors(i).into_iter().enumerate() {
            if r.captures & (1 << k) != 0 && self.color(n) == EMPTY {
                self.add_chain(n, opp);
            }
        }
        if r.captures == SUICIDE {
            self.add_chain(i, r.color);
        }
        self.color[i] = EMPTY;
        self.change_neighbor_liberties(i, opp, 1);
        if self.chain_size(i) <= 1 {
            return;
        }
        let own = self
            .neighbors(i)
            .iter()
            .filter(|&&n| self.color(n) == r.color)
            .count();
        if own <= 1 {
            // The chain stays whole: take the stone out of its list (and move the head off it).
            let mut head = self.head(i);
            if head == i {
                let new_head = self.next(i);
                let mut s = i;
                loop {
                    self.head[s] = new_head as u16;
                    s = self.next(s);
                    if s == i {
                        break;
                    }
                }
                self.stones[new_head] = self.stones[head];
                self.libs[new_head] = self.libs[head];
                head = new_head;
            }
            let mut s = head;
            while self.next(s) != i {
                s = self.next(s);
            }
            self.next[s] = self.next[i];
            let lost = self
                .neighbors(i)
                .iter()
                .filter(|&&n| self.color(n) == EMPTY && !self.is_liberty_of(n, head))
                .count();
            self.add_libs(head, 1 - lost as isize);
            self.stones[head] -= 1;
        } else {
            // The chain may fall apart: rebuild each part around the stone.
            let mut s = i;
            loop {
                self.head[s] = NONE as u16;
                s = self.next(s);
                if s == i {
                    break;
                }
            }
            for n in self.neighbors(i) {
                if self.color(n) == r.color && self.head(n) == NONE {
                    self.rebuild_chain(n, r.color);
                }
            }
        }
    }

    /// KataGo's `getBoundNumLibertiesAfterPlay`: quick bounds on the liberties of a stone of `c` at `i`.
    fn liberty_bounds_after_play(&self, i: usize, c: u8) -> (usize, usize) {
        let opp = other(c);
        let (mut immediate, mut caps, mut cap_stones, mut conn, mut max_conn) = (0, 0, 0, 0, 0);
        for n in self.neighbors(i) {
            match self.color(n) {
                EMPTY => immediate += 1,
                x if x == opp && self.liberties(n) == 1 => {
                    caps += 1;
                    cap_stones += self.chain_size(n);
                }
                x if x == c => {
                    let extra = self.liberties(n).saturating_sub(1);
                    conn += extra;
                    max_conn = max_conn.max(extra);
                }
                _ => {}
            }
        }
        (
            caps + max_conn.max(immediate),
            immediate + cap_stones + conn,
        )
    }

    /// KataGo's `getNumLibertiesAfterPlay`: the liberties a stone of `c` at `i` would have, or `max` if at
    /// least that many (`max` at most 8).
    fn liberties_after_play(&self, i: usize, c: u8, max: usize) -> usize {
        let max = max.min(8);
        let opp = other(c);
        let mut libs = [NONE; 8];
        let mut nlibs = 0;
        let mut captured = [NONE; 4];
        let mut ncaptured = 0;
        for n in self.neighbors(i) {
            let x = self.color(n);
            let taken = x == opp && self.liberties(n) == 1;
            if x == EMPTY || taken {
                libs[nlibs] = n;
                nlibs += 1;
                if nlibs >= max {
                    return max;
                }
            }
            if taken {
                let h = self.head(n);
                if !captured[..ncaptured].contains(&h) {
                    captured[ncaptured] = h;
                    ncaptured += 1;
                }
            }
        }
        let empty_after = |p: usize| match self.color(p) {
            EMPTY => true,
            x if x == opp => captured[..ncaptured].contains(&self.head(p)),
            _ => false,
        };
        let mut joined = [NONE; 4];
        let mut njoined = 0;
        for n in self.neighbors(i) {
            if self.color(n) != c {
                continue;
            }
            let h = self.head(n);
            if joined[..njoined].contains(&h) {
                continue;
            }
            joined[njoined] = h;
            njoined += 1;
            let mut s = n;
            loop {
                for lib in self.neighbors(s) {
                    if lib != i && empty_after(lib) && !libs[..nlibs].contains(&lib) {
                        libs[nlibs] = lib;
                        nlibs += 1;
                        if nlibs >= max {
                            return max;
                        }
                    }
                }
                s = self.next(s);
                if s == n {
                    break;
                }
            }
        }
        nlibs
    }

    /// KataGo's `wouldBeKoCapture`: `c` at `i` would take a single stone in a ko shape.
    fn would_be_ko_capture(&self, i: usize, c: u8) -> bool {
        if self.color(i) != EMPTY {
            return false;
        }
        let opp = other(c);
        let mut taken = None;
        for n in self.neighbors(i) {
            let x = self.color(n);
            if x != EDGE && x != opp {
                return false;
            }
            if x == opp && self.liberties(n) == 1 {
                if taken.is_some() {
                    return false;
                }
                taken = Some(n);
            }
        }
        taken.is_some_and(|n| self.chain_size(n) == 1)
    }

    /// KataGo's `countHeuristicConnectionLibertiesX2`.
    fn connection_liberties_x2(&self, i: usize, c: u8) -> usize {
        self.neighbors(i)
            .iter()
            .filter(|&&n| self.color(n) == c)
            .map(|&n| self.liberties(n))
            .filter(|&libs| libs > 1)
            .map(|libs| libs * 2 - 3)
            .sum()
    }

    /// Whether an opponent chain next to the chain through `i` is in atari.
    fn has_liberty_gaining_captures(&self, i: usize) -> bool {
        let opp = other(self.color(i));
        let mut s = i;
        loop {
            if self
                .neighbors(s)
                .iter()
                .any(|&n| self.color(n) == opp && self.liberties(n) == 1)
            {
                return true;
            }
            s = self.next(s);
            if s == i {
                return false;
            }
        }
    }
}

/// The reusable lists of a ladder search (KataGo's `buf` and its explicit stack).
pub(crate) struct LadderReader {
    buf: Vec<usize>,
    starts: Vec<usize>,
    lens: Vec<usize>,
    /// The move being searched at each level; `None` until the level's list is made.
    current: Vec<Option<usize>>,
    records: Vec<Record>,
    checked: Vec<usize>,
    working: Vec<usize>,
    solved: Vec<u8>,
}

impl LadderReader {
    pub(crate) fn new() -> LadderReader {
        LadderReader {
            buf: Vec::new(),
            starts: Vec::new(),
            lens: Vec::new(),
            current: Vec::new(),
            records: Vec::new(),
            checked: Vec::new(),
            working: Vec::new(),
            solved: Vec::new(),
        }
    }

    /// Writes `lib` at `at` of the move buffer, growing it as needed.
    fn put(&mut self, at: usize, lib: usize) {
        if at >= self.buf.len() {
            self.buf.resize(at + 64, NONE);
        }
        self.buf[at] = lib;
    }

    /// KataGo's `findLiberties`: writes from `at` the liberties of the chain through `i` (walking its list
    /// from `i`) that are not already in `buf[from..]`, returning how many.
    fn find_liberties(&mut self, b: &Chains, i: usize, from: usize, at: usize) -> usize {
        let mut found = 0;
        let mut s = i;
        loop {
            for lib in b.neighbors(s) {
                if b.color(lib) != EMPTY {
                    continue;
                }
                let end = (at + found).min(self.buf.len());
                if !self.buf[from.min(end)..end].contains(&lib) {
                    self.put(at + found, lib);
                    found += 1;
                }
            }
            s = b.next(s);
            if s == i {
                return found;
            }
        }
    }

    /// KataGo's `findLibertyGainingCaptures`: the liberties of the opponent chains in atari next to the chain
    /// through `i`.
    fn find_captures(&mut self, b: &Chains, i: usize, from: usize, at: usize) -> usize {
        let opp = other(b.color(i));
        self.checked.clear();
        let mut found = 0;
        let mut s = i;
        loop {
            for n in b.neighbors(s) {
                if b.color(n) == opp && b.liberties(n) == 1 {
                    let h = b.head(n);
                    if !self.checked.contains(&h) {
                        found += self.find_liberties(b, n, from, at + found);
                        self.checked.push(h);
                    }
                }
            }
            s = b.next(s);
            if s == i {
                return found;
            }
        }
    }

    /// KataGo's `searchIsLadderCaptured`: whether the chain through `loc`, with one liberty (two when the
    /// attacker moves first), is captured by continuous ataris. Afterwards the position is as before (its
    /// chain lists perhaps not), except where KataGo's is not: a search out of nodes leaves no ko point and,
    /// as KataGo's, may leave one play on the board if it ran out just after a level returned.
    pub(crate) fn is_captured(&mut self, b: &mut Chains, loc: usize, defender_first: bool) -> bool {
        let pla = b.color(loc);
        if pla != BLACK && pla != WHITE {
            return false;
        }
        let libs = b.liberties(loc);
        if libs > 2 || (defender_first && libs > 1) {
            return false;
        }
        let opp = other(pla);
        // The defender is assumed to win every ko at the root.
        let saved_ko = b.ko;
        if defender_first {
            b.ko = NONE;
        }
        let stack_size = b.width() * b.height() * 3 / 2 + 1;
        if self.current.len() < stack_size + 1 {
            self.starts.resize(stack_size + 1, 0);
            self.lens.resize(stack_size + 1, 0);
            self.current.resize(stack_size + 1, None);
            self.records.resize(stack_size + 1, Record::default());
        }
        let mut level: usize = 0;
        let mut nodes = 0;
        self.current[0] = None;
        self.starts[0] = 0;
        self.lens[0] = 0;
        let mut result = false;
        let mut from_deeper = false;
        loop {
            // Returns `$value` to the level above (or from the search at the root).
            macro_rules! up {
                ($value:expr) => {{
                    result = $value;
                    from_deeper = true;
                    if level == 0 {
                        b.ko = saved_ko;
                        return result;
                    }
                    level -= 1;
                    continue;
                }};
            }
            if level + 1 >= stack_size {
                // Too deep: taken as captured, as KataGo does.
                up!(true);
            }
            if nodes >= NODE_BUDGET {
                // Out of nodes: the plays of the levels above are taken back and the ladder fails.
                for k in (0..level).rev() {
                    b.undo(self.records[k]);
                }
                return false;
            }
            let defender = level.is_multiple_of(2) == defender_first;
            match self.current[level] {
                None => {
                    let libs = b.liberties(loc);
                    if !defender && libs <= 1 {
                        up!(true);
                    }
                    if !defender && libs >= 3 {
                        up!(false);
                    }
                    if defender && libs >= 2 {
                        up!(false);
                    }
                    // A ko the attacker left is taken as the defender's escape: no ladder hangs on a ko.
                    if defender && b.ko != NONE {
                        up!(false);
                    }
                    let start = self.starts[level];
                    let mut len;
                    if defender {
                        len = self.find_captures(b, loc, start, start);
                        len += self.find_liberties(b, loc, start, start + len);
                        if len == 0 {
                            up!(true);
                        }
                        // KataGo takes the list's last move for the chain's own liberty; it is not when
                        // that liberty also captures, and the bounds are then those of another move.
                        let (lower, upper) =
                            b.liberty_bounds_after_play(self.buf[start + len - 1], pla);
                        if lower >= 3 {
                            up!(false);
                        }
                        if len == 1 && upper <= 1 {
                            up!(true);
                        }
                    } else {
                        len = self.find_liberties(b, loc, start, start);
                        if len != 2 {
                            up!(false);
                        }
                        let (m0, m1) = (self.buf[start], self.buf[start + 1]);
                        let (libs0, libs1) = (b.immediate_liberties(m0), b.immediate_liberties(m1));
                        // Both liberties are ko mouths the defender cannot profit from: a double-ko death.
                        if libs0 == 0
                            && libs1 == 0
                            && b.would_be_ko_capture(m0, opp)
                            && b.would_be_ko_capture(m1, opp)
                            && b.liberties_after_play(m0, pla, 3) <= 2
                            && b.liberties_after_play(m1, pla, 3) <= 2
                            && !b.has_liberty_gaining_captures(loc)
                        {
                            up!(true);
                        }
                        let adjacent = m0.abs_diff(m1) == 1 || m0.abs_diff(m1) == b.stride;
                        if !adjacent {
                            // A liberty with three free neighbours is an escape if left to the defender.
                            if libs0 >= 3 && libs1 >= 3 {
                                up!(false);
                            } else if libs0 >= 3 {
                                len = 1;
                            } else if libs1 >= 3 {
                                self.buf[start] = m1;
                                len = 1;
                            }
                        }
                        if len > 1 {
                            let h0 = libs0 * 2 + b.connection_liberties_x2(m0, pla);
                            let h1 = libs1 * 2 + b.connection_liberties_x2(m1, pla);
                            if h1 > h0 {
                                self.buf.swap(start, start + 1);
                            }
                        }
                    }
                    self.lens[level] = len;
                    self.current[level] = Some(0);
                }
                Some(k) => {
                    if from_deeper {
                        b.undo(self.records[level]);
                    }
                    if defender && !result {
                        up!(false);
                    }
                    if !defender && result {
                        up!(true);
                    }
                    self.current[level] = Some(k + 1);
                }
            }
            let k = self.current[level].unwrap_or(0);
            if k >= self.lens[level] {
                // Out of moves: the defender is caught, or the attacker failed.
                up!(defender);
            }
            let mv = self.buf[self.starts[level] + k];
            let mover = if defender { pla } else { opp };
            if !b.is_legal(mv, mover) {
                // An illegal move fails like a bad one; the next one is tried at the same level.
                result = defender;
                from_deeper = false;
                continue;
            }
            self.records[level] = b.play_recorded(mv, mover);
            nodes += 1;
            level += 1;
            self.current[level] = None;
            self.starts[level] = self.starts[level - 1] + self.lens[level - 1];
            self.lens[level] = 0;
        }
    }

    /// KataGo's `searchIsLadderCapturedAttackerFirst2Libs`: whether the chain through `loc`, of two liberties,
    /// is caught when the attacker fills one of them; the filling moves that work are left in `working`.
    fn is_captured_attacker_first(&mut self, b: &mut Chains, loc: usize) -> bool {
        self.working.clear();
        let pla = b.color(loc);
        if (pla != BLACK && pla != WHITE) || b.liberties(loc) != 2 {
            return false;
        }
        let opp = other(pla);
        if self.find_liberties(b, loc, 0, 0) != 2 {
            return false;
        }
        let moves = [self.buf[0], self.buf[1]];
        let mut works = [false; 2];
        for (k, &mv) in moves.iter().enumerate() {
            if b.is_legal(mv, opp) {
                let record = b.play_recorded(mv, opp);
                works[k] = self.is_captured(b, loc, true);
                b.undo(record);
            }
        }
        for (k, &mv) in moves.iter().enumerate() {
            if works[k] {
                self.working.push(mv);
            }
        }
        works[0] || works[1]
    }

    /// KataGo's `iterLadders`: for every stone of a chain of one or two liberties on `board` that is caught
    /// in a ladder, in row-major order, `found(stone, working moves)`; the working moves come only with the
    /// chain's first stone and only for chains of two liberties. The reading plays on one copy of the board
    /// for all chains, as KataGo's does.
    pub(crate) fn for_each_laddered(
        &mut self,
        board: &Chains,
        mut found: impl FnMut(usize, &[usize]),
    ) {
        let mut copy = board.clone();
        // Per chain head: 0 not read yet, 1 escapes, 2 caught.
        self.solved.clear();
        self.solved.resize(board.cells(), 0);
        for y in 0..board.height() {
            for x in 0..board.width() {
                let loc = board.idx(x, y);
                let c = board.color(loc);
                if c != BLACK && c != WHITE {
                    continue;
                }
                let libs = board.liberties(loc);
                if libs != 1 && libs != 2 {
                    continue;
                }
                let head = board.head(loc);
                match self.solved[head] {
                    2 => found(loc, &[]),
                    1 => {}
                    _ => {
                        let caught = if libs == 1 {
                            self.working.clear();
                            self.is_captured(&mut copy, loc, true)
                        } else {
                            self.is_captured_attacker_first(&mut copy, loc)
                        };
                        self.solved[head] = if caught { 2 } else { 1 };
                        if caught {
                            found(loc, &self.working);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;
    use tesuji_rules::{Color, Grid, Point};

    fn chains(diagram: &str) -> Chains {
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

    /// Every chain's list, head, stone count and liberty count agree with the stones on the board.
    fn assert_consistent(b: &Chains) {
        for y in 0..b.height() {
            for x in 0..b.width() {
                let i = b.idx(x, y);
                let c = b.color(i);
                if c != BLACK && c != WHITE {
                    continue;
                }
                // The connected stones, by flooding.
                let mut flood = vec![i];
                let mut k = 0;
                while k < flood.len() {
                    for n in b.neighbors(flood[k]) {
                        if b.color(n) == c && !flood.contains(&n) {
                            flood.push(n);
                        }
                    }
                    k += 1;
                }
                let mut listed = Vec::new();
                let mut s = i;
                loop {
                    assert_eq!(b.head(s), b.head(i), "one head per chain");
                    listed.push(s);
                    s = b.next(s);
                    if s == i || listed.len() > flood.len() {
                        break;
                    }
                }
                flood.sort_unstable();
                listed.sort_unstable();
                assert_eq!(flood, listed, "the list holds the chain's stones once each");
                assert_eq!(b.chain_size(i), flood.len());
                let mut libs: Vec<usize> = flood
                    .iter()
                    .flat_map(|&s| b.neighbors(s))
                    .filter(|&n| b.color(n) == EMPTY)
                    .collect();
                libs.sort_unstable();
                libs.dedup();
                assert_eq!(
                    b.liberties(i),
                    libs.len(),
                    "liberties of the chain at {x},{y}"
                );
            }
        }
    }

    #[test]
    fn plays_and_take_backs_keep_the_chains_exact() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        for _ in 0..40 {
            let mut b = Chains::new(7, 6);
            let mut records = Vec::new();
            let mut colors = Vec::new();
            for _ in 0..120 {
                if !records.is_empty() && rng.random_range(0..4) == 0 {
                    let r: Record = records.pop().unwrap();
                    b.undo(r);
                    let before: Vec<u8> = colors.pop().unwrap();
                    assert_eq!(b.color, before, "a take-back restores the position");
                    assert_consistent(&b);
                    continue;
                }
                let c = if records.len() % 2 == 0 { BLACK } else { WHITE };
                let empty: Vec<usize> = (0..b.cells())
                    .filter(|&i| b.color(i) == EMPTY && b.is_legal(i, c))
                    .collect();
                if empty.is_empty() {
                    break;
                }
                colors.push(b.color.clone());
                records.push(b.play_recorded(empty[rng.random_range(0..empty.len())], c));
                assert_consistent(&b);
            }
        }
    }

    #[test]
    fn the_ko_point_is_a_lone_capture_by_a_lone_stone() {
        let mut b = chains(
            ". X O .\n\
             X O . O\n\
             . X O .\n\
             . . . .",
        );
        // Black C3 takes B3: one stone, by a stone left with one liberty.
        b.play(b.idx(2, 1), BLACK);
        assert_eq!(b.color(b.idx(1, 1)), EMPTY);
        assert_eq!(b.ko(), Some(b.idx(1, 1)));
        assert!(!b.is_legal(b.idx(1, 1), WHITE));
        b.pass();
        assert_eq!(b.ko(), None);
        // Taking two stones makes no ko.
        let mut b = chains(
            "X O O X\n\
             . X X .\n\
             . . . .",
        );
        b.play(b.idx(0, 1), BLACK);
        assert_eq!(b.ko(), None);
    }

    /// A white stone in atari in a ladder heading for the lower right, with optional extra stones.
    fn ladder(extra: &[(usize, usize, u8)]) -> Chains {
        let mut b = chains(
            ". . . . . . . . .\n\
             . . . . . . . . .\n\
             . . . . . . . . .\n\
             . . X X . . . . .\n\
             . X O . . . . . .\n\
             . . X . . . . . .\n\
             . . . . . . . . .\n\
             . . . . . . . . .\n\
             . . . . . . . . .",
        );
        for &(x, y, c) in extra {
            b.play(b.idx(x, y), c);
        }
        b
    }

    // Expected answers below are KataGo 1.17.2's for the same positions.

    #[test]
    fn a_ladder_runs_to_the_edge_unless_a_stone_breaks_it() {
        let mut r = LadderReader::new();
        let mut b = ladder(&[]);
        let white = b.idx(2, 4);
        assert!(r.is_captured(&mut b, white, true));
        // A white stone on the path breaks it; one beside the path does not.
        let mut broken = ladder(&[(6, 6, WHITE)]);
        assert!(!r.is_captured(&mut broken, white, true));
        let mut aside = ladder(&[(7, 8, WHITE)]);
        assert!(r.is_captured(&mut aside, white, true));
        // The reading leaves the position as it was.
        let before = ladder(&[]).color;
        assert_eq!(b.color, before);
    }

    #[test]
    fn a_stone_in_atari_escapes_by_capturing() {
        // The black stone below the white one is itself in atari: White takes it and is out.
        let mut b = ladder(&[(1, 5, WHITE), (2, 6, WHITE)]);
        let mut r = LadderReader::new();
        let white = b.idx(2, 4);
        assert!(!r.is_captured(&mut b, white, true));
    }

    #[test]
    fn two_liberties_are_read_with_the_attacker_first() {
        // Without the black stone under it, the white stone has two liberties: only the atari from below
        // drives it into the ladder; the other lets it out with three liberties.
        let mut b = chains(
            ". . . . . . . . .\n\
             . . . . . . . . .\n\
             . . . . . . . . .\n\
             . . X X . . . . .\n\
             . X O . . . . . .\n\
             . . . . . . . . .\n\
             . . . . . . . . .\n\
             . . . . . . . . .\n\
             . . . . . . . . .",
        );
        let mut r = LadderReader::new();
        let white = b.idx(2, 4);
        assert!(r.is_captured_attacker_first(&mut b, white));
        assert_eq!(r.working, vec![b.idx(2, 5)]);
        let mut found = Vec::new();
        r.for_each_laddered(&b, |stone, working| found.push((stone, working.to_vec())));
        assert_eq!(found, vec![(b.idx(2, 4), vec![b.idx(2, 5)])]);
        // With a breaker on the path the atari no longer works.
        b.play(b.idx(6, 6), WHITE);
        assert!(!r.is_captured_attacker_first(&mut b, white));
    }

    #[test]
    fn every_stone_of_a_caught_chain_is_listed_once() {
        // Two white stones in atari against the edge, with nowhere to run.
        let b = chains(
            "O O . X .\n\
             X X X X .\n\
             . . . . .",
        );
        let mut r = LadderReader::new();
        let mut found = Vec::new();
        r.for_each_laddered(&b, |stone, working| found.push((stone, working.len())));
        assert_eq!(found, vec![(b.idx(0, 0), 0), (b.idx(1, 0), 0)]);
    }
}
