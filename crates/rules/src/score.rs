//! Counting a final position (RULES.md §2 `scoring`, §4, §5 rules 5.1 and 7.1):
//!
//! - [`area`]: Tromp-Taylor rule 9 after the dead stones are removed;
//! - [`territory`]: empty regions bordered by one colour, with seki detection ([`seki`]) for `seki-eyes = none`;
//! - [`area_reach`]: the ideal rules' 5.1 territory, where a point may belong to both players;
//! - [`stones`]: [`area`] with each colour's groups counted, for stone scoring's tax;
//! - [`benson`] / [`unconditional_owner`]: Benson's unconditional life and pass-alive territory, for the
//!   automatic self-fill referee of 7.1.
//!
//! Every function is pure and total: any grid and any dead list is accepted. Dead points off the board, on empty
//! points or repeated are ignored; a dead point removes only the stone on it (callers mark whole chains).

use crate::grid::Grid;
use crate::rules::{SekiEyes, SuicideRule};
use crate::types::{Color, Point};

/// The count of one position. Arrays are indexed by [`Color::index`] (0 Black, 1 White).
///
/// For [`area`] and [`territory`]: `stones + territory + dame` (both colours) is the number of points on the board.
/// For [`area_reach`]: the same minus `shared`, since shared points are in both `territory` entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Live stones on the board: every stone not marked dead.
    pub stones: [u32; 2],
    /// Points counted for each player besides their stones: empty points (and, under [`area_reach`], dead opponent
    /// stones). Under [`area_reach`] a shared point is in both entries.
    pub territory: [u32; 2],
    /// [`area_reach`] only: points in both players' territory (already in both `territory` entries).
    pub shared: u32,
    /// Points that count for nobody.
    pub dame: u32,
    /// Stones of each colour marked dead: removed before counting by [`area`] and [`territory`] (where they become
    /// the opponent's prisoners), counted through by [`area_reach`].
    pub dead_removed: [u32; 2],
    /// [`territory`] only: points of one-colour regions that are eyes of that colour's groups in seki (see
    /// [`seki`]). Included in `territory` under [`SekiEyes::Count`], in `dame` under [`SekiEyes::None`].
    pub seki_eyes: [u32; 2],
    /// [`stones`] only: each colour's groups, the connected sets of its live stones and the empty regions only it
    /// reaches (each taxed two points under stone scoring).
    pub groups: [u32; 2],
    /// [`territory`] only, informational: points counted in `territory` that the player must still fill to protect
    /// a chain once the opponent fills the dame (false eyes). Japanese practice does not count them; they are left
    /// in `territory`, so that the caller decides.
    pub must_fill: [u32; 2],
}

impl Counts {
    /// Stones plus territory: the player's points under area counting (and under 5.1, shared points included).
    pub fn area_points(&self, c: Color) -> u32 {
        self.stones[c.index()] + self.territory[c.index()]
    }
}

/// Tromp-Taylor rule 9 after removing the stones at the `dead` points: each player has their stones plus the empty
/// points that reach only their colour. Empty points reaching both colours or none are `dame`.
pub fn area(grid: &Grid, dead: &[Point]) -> Counts {
    let plane = Plane::without_dead(grid, dead);
    let regions = EmptyRegions::new(&plane);
    let mut counts = plane.base_counts();
    for r in &regions.info {
        match r.owner() {
            Some(c) => counts.territory[c.index()] += r.size,
            None => counts.dame += r.size,
        }
    }
    counts
}

/// [`area`], with each colour's groups counted: the connected sets (through neighbouring points) of its live stones
/// and the empty points that reach only its colour.
pub fn stones(grid: &Grid, dead: &[Point]) -> Counts {
    let mut counts = area(grid, dead);
    let owner = owners(grid, dead);
    let plane = Plane::from_grid(grid);
    let mut seen = vec![false; owner.len()];
    let mut stack = Vec::new();
    for start in 0..owner.len() {
        let Some(c) = owner[start] else { continue };
        if seen[start] {
            continue;
        }
        counts.groups[c.index()] += 1;
        seen[start] = true;
        stack.push(start);
        while let Some(p) = stack.pop() {
            for q in plane.neighbors(p) {
                if !seen[q] && owner[q] == Some(c) {
                    seen[q] = true;
                    stack.push(q);
                }
            }
        }
    }
    counts
}

/// Who each point counts for once the stones at the `dead` points are removed, row by row from the top left: a
/// live stone's colour, and for an empty point or a removed stone the one colour its region reaches (`None` when
/// it reaches both or neither). The owners of [`area`]: the points of colour `c` are its `area_points(c)`. Under
/// territory scoring the same regions count, less seki eyes under [`SekiEyes::None`]; pages shade them.
pub fn owners(grid: &Grid, dead: &[Point]) -> Vec<Option<Color>> {
    let plane = Plane::without_dead(grid, dead);
    let regions = EmptyRegions::new(&plane);
    (0..plane.len())
        .map(|p| {
            plane.cells[p].or_else(|| {
                let r = regions.id[p];
                (r != NONE)
                    .then(|| regions.info[r as usize].owner())
                    .flatten()
            })
        })
        .collect()
}

/// Territory counting (RULES.md §4) after removing the stones at the `dead` points: an empty region bordered by
/// one colour only is that colour's territory; a region touching both colours (or none) is dame. Prisoners are the
/// caller's: `dead_removed[c]` stones of colour `c` were removed.
///
/// With [`SekiEyes::None`] (Japanese rules) a region whose border includes a chain in seki (see [`seki`]) counts
/// for nobody, as the 1989 rules' Article 8 counts only "eye points surrounded by stones that are alive but not in
/// seki" (goscorer also leaves such an eye out when a chain beside it is not in seki). [`SekiEyes::Count`] counts
/// it. Either way those points are reported in `seki_eyes`.
pub fn territory(grid: &Grid, dead: &[Point], seki_eyes: SekiEyes) -> Counts {
    let plane = Plane::without_dead(grid, dead);
    let regions = EmptyRegions::new(&plane);
    let filled = fill_dame(&plane);
    let n = plane.len();

    // Which one-colour regions border a chain of their owner in seki, and how many must-fill points each holds.
    let mut seki_eye = vec![false; regions.info.len()];
    let mut must = vec![0u32; regions.info.len()];
    for p in 0..n {
        let Some(r) = regions.of(p) else { continue };
        let Some(c) = regions.info[r].owner() else {
            continue;
        };
        if plane
            .neighbors(p)
            .any(|q| plane.cells[q] == Some(c) && filled.seki[q])
        {
            seki_eye[r] = true;
        }
        if filled.protective[p] == Some(c) {
            must[r] += 1;
        }
    }

    let mut counts = plane.base_counts();
    for (r, info) in regions.info.iter().enumerate() {
        let Some(c) = info.owner() else {
            counts.dame += info.size;
            continue;
        };
        let i = c.index();
        if seki_eye[r] {
            counts.seki_eyes[i] += info.size;
            if seki_eyes == SekiEyes::None {
                counts.dame += info.size;
                continue;
            }
        }
        counts.territory[i] += info.size;
        counts.must_fill[i] += must[r];
    }
    counts
}

/// Which stones are live stones in seki, per point in row-major order, after removing the stones at `dead`.
///
/// The definition is the Japanese 1989 rules' Article 8 ("stones which are alive but possess dame are in seki"),
/// applied after the dame have been filled, since those rules assume they are:
///
/// 1. Dame are filled, one stone at a time, while a *neutral* fill exists. A dame point is an empty point next to
///    a stone whose empty region touches both colours. Colour `c` may fill it when the stone captures nothing,
///    leaves its own chain at least two liberties, and leaves no opponent chain in atari — except one atari (or
///    several chains with the same last liberty) that the opponent answers by connecting at that liberty, where
///    the connection captures nothing, has two liberties and puts nothing in atari. That answer is also played
///    (it may lie in the opponent's own territory: that point is then reported in [`Counts::must_fill`]). Fills
///    that need no answer are made first; points are tried in row-major order, Black before White.
/// 2. A live stone is in seki when, after that, its chain still touches an empty point whose region touches both
///    colours: a shared liberty that neither side can fill without self-atari, capture or an unanswerable threat.
///
/// So ordinary dame between safe groups never make a seki (they get filled), while the shared liberties of a
/// seki stay empty. The definition assumes the agreed life and death is right: if the players call alive a group
/// that the opponent could kill by filling a dame, the dame stays and both sides around it count as seki.
pub fn seki(grid: &Grid, dead: &[Point]) -> Vec<bool> {
    let plane = Plane::without_dead(grid, dead);
    let filled = fill_dame(&plane);
    (0..plane.len())
        .map(|p| plane.cells[p].is_some() && filled.seki[p])
        .collect()
}

/// The ideal rules' 5.1 (RULES.md §5): a player's territory is the smallest set holding their live stones, every
/// empty point adjacent to their territory and every dead opponent stone adjacent to it. Dead stones are not
/// removed: a player's territory spreads through empty points and dead opponent stones, and stops at live
/// opponent stones and at their own dead stones.
///
/// `stones[c]` are `c`'s live stones; `territory[c]` the rest of `c`'s territory (empty points and dead opponent
/// stones); `shared` the empty points in both territories (only empty points can be: a dead stone is reached only
/// by the opponent). A dead stone that no opponent territory reaches (say, one walled in by live stones of its own
/// colour) is nobody's territory: it counts for nobody and is in `dame`, as are empty points reached by no one.
pub fn area_reach(grid: &Grid, dead: &[Point]) -> Counts {
    let plane = Plane::from_grid(grid);
    let dead = plane.dead_mask(dead);
    let n = plane.len();
    let mut counts = Counts::default();
    let mut reached = [vec![false; n], vec![false; n]];
    for c in Color::BOTH {
        let seen = &mut reached[c.index()];
        let mut stack: Vec<usize> = (0..n)
            .filter(|&p| plane.cells[p] == Some(c) && !dead[p])
            .collect();
        for &p in &stack {
            seen[p] = true;
        }
        while let Some(p) = stack.pop() {
            for q in plane.neighbors(p) {
                let passable = match plane.cells[q] {
                    None => true,
                    Some(o) => o != c && dead[q],
                };
                if passable && !seen[q] {
                    seen[q] = true;
                    stack.push(q);
                }
            }
        }
    }
    for p in 0..n {
        let (b, w) = (reached[0][p], reached[1][p]);
        match plane.cells[p] {
            Some(c) if dead[p] => counts.dead_removed[c.index()] += 1,
            Some(c) => {
                counts.stones[c.index()] += 1;
                continue;
            }
            None => {}
        }
        if b {
            counts.territory[0] += 1;
        }
        if w {
            counts.territory[1] += 1;
        }
        if b && w {
            counts.shared += 1;
        }
        if !b && !w {
            counts.dame += 1;
        }
    }
    counts
}

/// Benson's unconditional life for both colours, and the points each colour owns unconditionally.
/// Vectors are per point in row-major order ([`crate::Size::index`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Benson {
    /// Stones that are pass-alive: they can never be captured, even if their owner passes every turn.
    pub alive: Vec<bool>,
    /// `Some(c)` for pass-alive stones of `c` and for the points of `c`'s pass-alive territory.
    pub owner: Vec<Option<Color>>,
}

/// Benson's algorithm (Benson 1976) and pass-alive territory, for both colours.
///
/// For a colour `c`: a *region* is a maximal connected set of points not of colour `c` (empty points and opponent
/// stones). A region is *vital* to a `c` chain when it holds an empty point and every one of its points that the
/// opponent could empty is adjacent to the chain: its empty points when suicide is forbidden; all its points when
/// multi-stone suicide is legal (`Multi`, `All`), since the opponent could then remove their own stones from it.
/// Then repeat until nothing changes: remove every chain with fewer than two vital regions among the regions
/// whose bordering chains all remain; the chains left are pass-alive.
///
/// Pass-alive territory of `c` (KataGo's definition, plus the last condition, which also keeps the two colours'
/// claims disjoint): a region whose bordering `c` chains are all pass-alive (at least one), that has at most one
/// point not adjacent to a `c` stone, and that holds no pass-alive opponent stone.
/// The opponent can never make two eyes there (an eye of theirs would be an empty point with no `c` neighbour) and
/// cannot capture the stones around, so everything in it is `c`'s; opponent stones in it are dead. A larger region
/// stays unowned even when walled in by pass-alive stones: the opponent might live inside it.
pub fn benson(grid: &Grid, suicide: SuicideRule) -> Benson {
    let plane = Plane::from_grid(grid);
    let multi = suicide != SuicideRule::Forbidden;
    let per = [
        ColorBenson::new(&plane, Color::Black, multi),
        ColorBenson::new(&plane, Color::White, multi),
    ];
    let n = plane.len();
    let alive: Vec<bool> = (0..n).map(|p| per[0].alive[p] || per[1].alive[p]).collect();
    let mut owner = vec![None; n];
    for c in Color::BOTH {
        let b = &per[c.index()];
        let other = &per[c.opponent().index()];
        // A region holding a pass-alive opponent stone is not owned (this also keeps the two colours disjoint).
        let mut owned: Vec<bool> = b
            .regions
            .iter()
            .map(|r| r.safe && r.internal <= 1)
            .collect();
        for p in 0..n {
            if let Some(r) = b.region_of(p)
                && other.alive[p]
            {
                owned[r] = false;
            }
        }
        for (p, o) in owner.iter_mut().enumerate() {
            if b.alive[p] || b.region_of(p).is_some_and(|r| owned[r]) {
                // Both colours cannot claim a point (see above); stay total anyway: such a point is nobody's.
                *o = match o {
                    None => Some(c),
                    Some(_) => None,
                };
            }
        }
    }
    Benson { alive, owner }
}

/// Per point (row-major): the colour that owns it unconditionally — its pass-alive stones and pass-alive
/// territory, per [`benson`] with multi-stone suicide legal. That is the ideal rules' suicide rule (`all`), where
/// the self-fill referee runs, and the stricter assumption: a stone pass-alive under it is pass-alive under any
/// suicide rule.
pub fn unconditional_owner(grid: &Grid) -> Vec<Option<Color>> {
    benson(grid, SuicideRule::All).owner
}

// ---------------------------------------------------------------------------------------------------------------
// Internals.

const NONE: u32 = u32::MAX;

/// A row-major board colouring with neighbour arithmetic.
#[derive(Clone)]
struct Plane {
    w: usize,
    cells: Vec<Option<Color>>,
    removed: [u32; 2],
}

impl Plane {
    fn from_grid(grid: &Grid) -> Plane {
        Plane {
            w: grid.size().width() as usize,
            cells: grid.cells().to_vec(),
            removed: [0; 2],
        }
    }

    /// The grid with the stones at the dead points removed.
    fn without_dead(grid: &Grid, dead: &[Point]) -> Plane {
        let mut plane = Plane::from_grid(grid);
        let mask = plane.dead_mask(dead);
        for (p, &d) in mask.iter().enumerate() {
            if d && let Some(c) = plane.cells[p].take() {
                plane.removed[c.index()] += 1;
            }
        }
        plane
    }

    /// Per point: a stone stands there and its point is in `dead`.
    fn dead_mask(&self, dead: &[Point]) -> Vec<bool> {
        let mut mask = vec![false; self.len()];
        let h = self.len() / self.w.max(1);
        for p in dead {
            let (x, y) = (p.x as usize, p.y as usize);
            if x < self.w && y < h {
                let i = y * self.w + x;
                mask[i] = self.cells[i].is_some();
            }
        }
        mask
    }

    fn len(&self) -> usize {
        self.cells.len()
    }

    #[inline]
    fn neighbors(&self, i: usize) -> impl Iterator<Item = usize> + use<> {
        let (w, n) = (self.w, self.cells.len());
        let x = i % w;
        [
            (x > 0).then(|| i - 1),
            (x + 1 < w).then_some(i + 1),
            i.checked_sub(w),
            (i + w < n).then_some(i + w),
        ]
        .into_iter()
        .flatten()
    }

    /// Counts with the stones and removed dead stones filled in.
    fn base_counts(&self) -> Counts {
        let mut counts = Counts {
            dead_removed: self.removed,
            ..Counts::default()
        };
        for c in self.cells.iter().flatten() {
            counts.stones[c.index()] += 1;
        }
        counts
    }
}

/// One maximal connected set of empty points and the colours it touches.
#[derive(Clone, Copy, Debug)]
struct RegionInfo {
    size: u32,
    touches: [bool; 2],
}

impl RegionInfo {
    /// The colour it reaches alone, if exactly one.
    fn owner(&self) -> Option<Color> {
        match self.touches {
            [true, false] => Some(Color::Black),
            [false, true] => Some(Color::White),
            _ => None,
        }
    }
}

/// The empty regions of a plane.
struct EmptyRegions {
    id: Vec<u32>,
    info: Vec<RegionInfo>,
}

impl EmptyRegions {
    fn new(plane: &Plane) -> EmptyRegions {
        let n = plane.len();
        let mut regions = EmptyRegions {
            id: vec![NONE; n],
            info: Vec::new(),
        };
        let mut stack = Vec::new();
        for p in 0..n {
            if plane.cells[p].is_some() || regions.id[p] != NONE {
                continue;
            }
            let r = regions.info.len() as u32;
            let mut info = RegionInfo {
                size: 0,
                touches: [false; 2],
            };
            regions.id[p] = r;
            stack.push(p);
            while let Some(q) = stack.pop() {
                info.size += 1;
                for m in plane.neighbors(q) {
                    match plane.cells[m] {
                        Some(c) => info.touches[c.index()] = true,
                        None if regions.id[m] == NONE => {
                            regions.id[m] = r;
                            stack.push(m);
                        }
                        None => {}
                    }
                }
            }
            regions.info.push(info);
        }
        regions
    }

    fn of(&self, p: usize) -> Option<usize> {
        (self.id[p] != NONE).then_some(self.id[p] as usize)
    }
}

/// Visit marks by generation, so that repeated floods need no clearing.
struct Marks {
    mark: Vec<u32>,
    generation: u32,
    stack: Vec<usize>,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            mark: vec![0; n],
            generation: 0,
            stack: Vec::new(),
        }
    }

    fn fresh(&mut self) -> u32 {
        if self.generation == u32::MAX {
            self.mark.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        self.generation
    }
}

/// Up to `cap` distinct liberties of the chain through the stone at `start`, into `libs`.
fn liberties(plane: &Plane, start: usize, cap: usize, marks: &mut Marks, libs: &mut Vec<usize>) {
    libs.clear();
    let Some(color) = plane.cells[start] else {
        return;
    };
    let g = marks.fresh();
    marks.stack.clear();
    marks.mark[start] = g;
    marks.stack.push(start);
    while let Some(p) = marks.stack.pop() {
        for q in plane.neighbors(p) {
            if marks.mark[q] == g {
                continue;
            }
            match plane.cells[q] {
                None => {
                    marks.mark[q] = g;
                    libs.push(q);
                    if libs.len() >= cap {
                        return;
                    }
                }
                Some(c) if c == color => {
                    marks.mark[q] = g;
                    marks.stack.push(q);
                }
                Some(_) => {}
            }
        }
    }
}

/// The outcome of the dame-filling of [`seki`].
struct Filled {
    /// Per point: a stone (on the filled board) whose chain touches an unfillable dame region.
    seki: Vec<bool>,
    /// Per point: the colour of a protective stone played there in answer to a fill.
    protective: Vec<Option<Color>>,
}

/// The dame-filling simulation of [`seki`], on a scratch copy of the plane.
struct Filler {
    plane: Plane,
    /// Empty region id per point (`NONE` on stones); ids are never reused.
    region: Vec<u32>,
    touches: Vec<[bool; 2]>,
    marks: Marks,
    libs: Vec<usize>,
    protective: Vec<Option<Color>>,
}

impl Filler {
    /// Labels the empty region through `start` with a fresh id.
    fn relabel(&mut self, start: usize) {
        let r = self.touches.len() as u32;
        let mut touches = [false; 2];
        let mut stack = vec![start];
        self.region[start] = r;
        while let Some(q) = stack.pop() {
            for m in self.plane.neighbors(q) {
                match self.plane.cells[m] {
                    Some(c) => touches[c.index()] = true,
                    None if self.region[m] != r => {
                        self.region[m] = r;
                        stack.push(m);
                    }
                    None => {}
                }
            }
        }
        self.touches.push(touches);
    }

    /// Re-labels the empty regions next to `p` after a stone was placed there.
    fn stone_placed(&mut self, p: usize) {
        self.region[p] = NONE;
        let first_new = self.touches.len() as u32;
        for q in self.plane.neighbors(p) {
            if self.plane.cells[q].is_none() && self.region[q] < first_new {
                self.relabel(q);
            }
        }
    }

    fn is_dame(&self, p: usize) -> bool {
        self.plane.cells[p].is_none()
            && self.touches[self.region[p] as usize] == [true, true]
            && self
                .plane
                .neighbors(p)
                .any(|q| self.plane.cells[q].is_some())
    }

    fn lib_count(&mut self, p: usize, cap: usize) -> usize {
        liberties(&self.plane, p, cap, &mut self.marks, &mut self.libs);
        self.libs.len()
    }

    /// Tries a neutral fill of `p` by `c` (see [`seki`]); applies it and returns true when it is one.
    fn try_fill(&mut self, p: usize, c: Color, allow_answer: bool) -> bool {
        let opp = c.opponent();
        self.plane.cells[p] = Some(c);
        let answer = self.check_fill(p, c);
        let ok = match answer {
            Ok(None) => true,
            Ok(Some(l)) if allow_answer => {
                self.plane.cells[l] = Some(opp);
                let safe = self.lib_count(l, 2) >= 2
                    && self
                        .plane
                        .neighbors(l)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .all(|q| self.plane.cells[q] != Some(c) || self.lib_count(q, 2) >= 2);
                if safe {
                    self.protective[l] = Some(opp);
                    self.stone_placed(l);
                } else {
                    self.plane.cells[l] = None;
                }
                safe
            }
            _ => false,
        };
        if ok {
            self.stone_placed(p);
        } else {
            self.plane.cells[p] = None;
        }
        ok
    }

    /// With `c` already on `p`: `Err` if the fill captures, is self-atari or makes two different ataris;
    /// otherwise the last liberty of the opponent chains it puts in atari, if any.
    fn check_fill(&mut self, p: usize, c: Color) -> Result<Option<usize>, ()> {
        if self.lib_count(p, 2) < 2 {
            return Err(());
        }
        let mut atari = None;
        for q in self.plane.neighbors(p) {
            if self.plane.cells[q] != Some(c.opponent()) {
                continue;
            }
            match self.lib_count(q, 2) {
                0 => return Err(()),
                1 => {
                    let l = self.libs[0];
                    if atari.is_some_and(|a| a != l) {
                        return Err(());
                    }
                    atari = Some(l);
                }
                _ => {}
            }
        }
        Ok(atari)
    }

    /// One scan in row-major order; returns whether anything was filled. With `allow_answer` it stops at the first
    /// fill, so that fills needing no answer keep priority.
    fn scan(&mut self, allow_answer: bool) -> bool {
        let mut progress = false;
        for p in 0..self.plane.len() {
            if self.is_dame(p)
                && (self.try_fill(p, Color::Black, allow_answer)
                    || self.try_fill(p, Color::White, allow_answer))
            {
                progress = true;
                if allow_answer {
                    break;
                }
            }
        }
        progress
    }
}

fn fill_dame(plane: &Plane) -> Filled {
    let n = plane.len();
    let regions = EmptyRegions::new(plane);
    let mut f = Filler {
        plane: plane.clone(),
        region: regions.id,
        touches: regions.info.iter().map(|r| r.touches).collect(),
        marks: Marks::new(n),
        libs: Vec::new(),
        protective: vec![None; n],
    };
    // Every successful scan adds a stone, so this ends after at most n + 1 scans.
    while f.scan(false) || f.scan(true) {}

    let mut seki = vec![false; n];
    let mut stack = Vec::new();
    for p in 0..n {
        if f.plane.cells[p].is_some() || f.touches[f.region[p] as usize] != [true, true] {
            continue;
        }
        for q in f.plane.neighbors(p) {
            let Some(c) = f.plane.cells[q] else { continue };
            if seki[q] {
                continue;
            }
            seki[q] = true;
            stack.push(q);
            while let Some(s) = stack.pop() {
                for m in f.plane.neighbors(s) {
                    if f.plane.cells[m] == Some(c) && !seki[m] {
                        seki[m] = true;
                        stack.push(m);
                    }
                }
            }
        }
    }
    Filled {
        seki,
        protective: f.protective,
    }
}

/// A Benson region of one colour: a maximal connected set of points not of that colour.
#[derive(Clone, Debug)]
struct BensonRegion {
    /// Every bordering chain of the colour is pass-alive, and there is at least one.
    safe: bool,
    /// Points not adjacent to a stone of the colour, capped at 2.
    internal: u8,
}

/// Benson's algorithm for one colour.
struct ColorBenson {
    /// Per point: a pass-alive stone of this colour.
    alive: Vec<bool>,
    /// Per point not of this colour: its region (`NONE` on this colour's stones).
    region: Vec<u32>,
    regions: Vec<BensonRegion>,
}

impl ColorBenson {
    fn new(plane: &Plane, c: Color, multi_suicide: bool) -> ColorBenson {
        let n = plane.len();
        let own = |p: usize| plane.cells[p] == Some(c);

        // Chains of colour c.
        let mut chain = vec![NONE; n];
        let mut chains = 0u32;
        let mut stack = Vec::new();
        for p in 0..n {
            if !own(p) || chain[p] != NONE {
                continue;
            }
            chain[p] = chains;
            stack.push(p);
            while let Some(q) = stack.pop() {
                for m in plane.neighbors(q) {
                    if own(m) && chain[m] == NONE {
                        chain[m] = chains;
                        stack.push(m);
                    }
                }
            }
            chains += 1;
        }

        // Regions with their bordering chains and the chains they are vital to.
        let mut region = vec![NONE; n];
        let mut regions = Vec::new();
        let mut borders: Vec<Vec<u32>> = Vec::new();
        let mut vital: Vec<Vec<u32>> = Vec::new();
        let mut seen_chain = vec![NONE; chains as usize];
        for p in 0..n {
            if own(p) || region[p] != NONE {
                continue;
            }
            let r = regions.len() as u32;
            let mut internal = 0u8;
            let mut has_empty = false;
            let mut border = Vec::new();
            let mut vital_to: Option<Vec<u32>> = None;
            region[p] = r;
            stack.push(p);
            while let Some(q) = stack.pop() {
                let mut adjacent = [NONE; 4];
                let mut k = 0;
                for m in plane.neighbors(q) {
                    if own(m) {
                        let ch = chain[m];
                        if !adjacent[..k].contains(&ch) {
                            adjacent[k] = ch;
                            k += 1;
                        }
                        if seen_chain[ch as usize] != r {
                            seen_chain[ch as usize] = r;
                            border.push(ch);
                        }
                    } else if region[m] == NONE {
                        region[m] = r;
                        stack.push(m);
                    }
                }
                if k == 0 && internal < 2 {
                    internal += 1;
                }
                let empty = plane.cells[q].is_none();
                has_empty |= empty;
                if empty || multi_suicide {
                    let adjacent = &adjacent[..k];
                    match &mut vital_to {
                        None => vital_to = Some(adjacent.to_vec()),
                        Some(v) => v.retain(|ch| adjacent.contains(ch)),
                    }
                }
            }
            regions.push(BensonRegion {
                safe: !border.is_empty(),
                internal,
            });
            borders.push(border);
            vital.push(if has_empty {
                vital_to.unwrap_or_default()
            } else {
                Vec::new()
            });
        }

        // Regions each chain borders, to invalidate them when the chain is removed.
        let mut chain_regions: Vec<Vec<u32>> = vec![Vec::new(); chains as usize];
        for (r, border) in borders.iter().enumerate() {
            for &ch in border {
                chain_regions[ch as usize].push(r as u32);
            }
        }

        let mut alive_chain = vec![true; chains as usize];
        let mut vital_count = vec![0u32; chains as usize];
        loop {
            vital_count.fill(0);
            for (r, v) in vital.iter().enumerate() {
                if regions[r].safe {
                    for &ch in v {
                        vital_count[ch as usize] += 1;
                    }
                }
            }
            let mut removed = false;
            for ch in 0..chains as usize {
                if alive_chain[ch] && vital_count[ch] < 2 {
                    alive_chain[ch] = false;
                    removed = true;
                    for &r in &chain_regions[ch] {
                        regions[r as usize].safe = false;
                    }
                }
            }
            if !removed {
                break;
            }
        }

        let alive = (0..n)
            .map(|p| chain[p] != NONE && alive_chain[chain[p] as usize])
            .collect();
        ColorBenson {
            alive,
            region,
            regions,
        }
    }

    fn region_of(&self, p: usize) -> Option<usize> {
        (self.region[p] != NONE).then_some(self.region[p] as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Size;

    fn g(s: &str) -> Grid {
        Grid::from_diagram(s).unwrap()
    }

    fn pt(grid: &Grid, x: u8, y: u8) -> usize {
        grid.size().index(Point::new(x, y))
    }

    /// 500 random positions on boards up to `side` × `side` (each point a third black, white or empty) with
    /// a random quarter of their stones marked dead.
    fn random_positions(seed: u64, side: u64) -> Vec<(Grid, Vec<Point>)> {
        let mut seed = seed;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        (0..500)
            .map(|_| {
                let size = Size::new(1 + next(side) as u8, 1 + next(side) as u8).unwrap();
                let mut grid = Grid::new(size);
                for p in size.points() {
                    match next(3) {
                        0 => grid.set(p, Some(Color::Black)),
                        1 => grid.set(p, Some(Color::White)),
                        _ => {}
                    }
                }
                let dead: Vec<Point> = size
                    .points()
                    .filter(|p| grid.get(*p).is_some() && next(4) == 0)
                    .collect();
                (grid, dead)
            })
            .collect()
    }

    #[test]
    fn stone_groups_are_the_connected_sets_of_each_colours_area() {
        // `stones` counts what `area` counts, and its groups equal a literal count by union-find over the
        // owners' grid.
        for (grid, dead) in random_positions(0x570e, 9) {
            let size = grid.size();
            let counts = stones(&grid, &dead);
            let plain = area(&grid, &dead);
            assert_eq!(
                (counts.stones, counts.territory, counts.dame),
                (plain.stones, plain.territory, plain.dame)
            );
            let owner = owners(&grid, &dead);
            let (w, n) = (size.width() as usize, owner.len());
            let mut parent: Vec<usize> = (0..n).collect();
            fn find(parent: &mut [usize], mut x: usize) -> usize {
                while parent[x] != x {
                    parent[x] = parent[parent[x]];
                    x = parent[x];
                }
                x
            }
            for p in 0..n {
                for q in [p + 1, p + w] {
                    let beside = q == p + w || (q % w != 0);
                    if q < n && beside && owner[p].is_some() && owner[p] == owner[q] {
                        let (a, b) = (find(&mut parent, p), find(&mut parent, q));
                        parent[a] = b;
                    }
                }
            }
            let mut literal = [0u32; 2];
            for (p, o) in owner.iter().enumerate() {
                if let Some(c) = o
                    && find(&mut parent, p) == p
                {
                    literal[c.index()] += 1;
                }
            }
            assert_eq!(counts.groups, literal, "{grid:?} dead {dead:?}");
        }
    }

    #[test]
    fn owners_are_the_points_area_counts() {
        // Random positions and dead lists on boards up to 7×7: each colour owns exactly its area points, a live
        // stone owns its point, and a point owned by nobody is dame.
        for (grid, dead) in random_positions(0x0a11, 7) {
            let size = grid.size();
            let owners = owners(&grid, &dead);
            let counts = area(&grid, &dead);
            assert_eq!(owners.len(), size.area());
            for c in [Color::Black, Color::White] {
                let owned = owners.iter().filter(|o| **o == Some(c)).count() as u32;
                assert_eq!(
                    owned,
                    counts.area_points(c),
                    "{c:?}\n{grid:?} dead {dead:?}"
                );
            }
            assert_eq!(
                owners.iter().filter(|o| o.is_none()).count() as u32,
                counts.dame
            );
            for p in size.points() {
                if let Some(c) = grid.get(p).filter(|_| !dead.contains(&p)) {
                    assert_eq!(owners[size.index(p)], Some(c));
                }
            }
        }
    }

    #[test]
    fn empty_board_is_all_dame() {
        // Seed 000 rule 9: no point reaches a colour, so both scores are 0 (sgfmill's "empty" case agrees).
        let c = area(&g("...\n...\n..."), &[]);
        assert_eq!(c.dame, 9);
        assert_eq!(c.area_points(Color::Black), 0);
        assert_eq!(c.area_points(Color::White), 0);
    }

    #[test]
    fn dead_points_off_board_or_empty_are_ignored() {
        let grid = g(".X.\nXO.\n...");
        let junk = [
            Point::new(0, 0),
            Point::new(9, 9),
            Point::new(200, 1),
            Point::new(1, 1),
            Point::new(1, 1),
        ];
        let c = area(&grid, &junk);
        // Only the white stone at (1,1) goes; the rest of the board then reaches only black.
        assert_eq!(c.dead_removed, [0, 1]);
        assert_eq!(c.stones, [2, 0]);
        assert_eq!(c.territory, [7, 0]);
    }

    #[test]
    fn fill_answered_at_a_false_eye() {
        // Black: column 2 (chain M), (1,3) (chain P), (3,3) (stone s). White: the wall with (5,3).
        // d = (4,3) touches s and White: dame. Black cannot fill it (s+d would have one liberty, L = (2,3)).
        // White can: s is then in atari and Black connects at L, joining s, M and P with plenty of liberties.
        // So no seki, and L, a point of Black's territory, is must-fill.
        let grid = g("..XO.../..XO.../..XOOOO/.X.X.O.");
        let c = territory(&grid, &[], SekiEyes::None);
        assert!(seki(&grid, &[]).iter().all(|&s| !s));
        // Black: the 7 points left of column 2, plus L. White: 6 points top right plus (6,3). d is dame.
        assert_eq!(c.territory, [8, 7]);
        assert_eq!(c.must_fill, [1, 0]);
        assert_eq!(c.dame, 1);
        assert_eq!(c.stones, [5, 7]);
    }

    #[test]
    fn benson_regions_without_empty_points_are_never_vital() {
        // An illegal colouring: the white chain has no liberty. Its region (for Black) has no empty point, so it
        // is vital to nobody, and the black stones with one real eye are not pass-alive.
        let grid = g("XOX.\nXXXX");
        let b = benson(&grid, SuicideRule::Forbidden);
        assert!(!b.alive[pt(&grid, 0, 0)]);
    }
}
