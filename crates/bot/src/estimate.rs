//! The estimator: who owns every point, and which chains are alive, dead, in seki — or unsure.
//!
//! Playouts of [`crate::policy`] from the position (half with each colour first, so the turn does not tip
//! contested points) give each point's *ownership*: Black's share of the playouts' ends minus White's, from −1
//! to 1. Benson's algorithm ([`tesuji_rules::score::benson`]) overrides them where it proves something:
//! pass-alive stones are alive and their pass-alive territory is theirs, so stones inside it are dead.
//!
//! A chain's value is the mean ownership of its stones from its own colour's side. It is *alive* at
//! [`SURE`] or more, *dead* at `-DEAD` or less, and *unsure* in between: a chain whose fate the playouts do not
//! agree on is reported as such, never guessed. [`DEAD`] is lower than `SURE` because the playouts err one way:
//! they let dead chains escape far more often than they kill living ones. An alive chain below [`FIRM`] with at
//! most [`RACE_LIBERTIES`] liberties that touches an unsure enemy chain or shares a liberty with it is unsure
//! too: the two may be in a race that the playouts cannot call. A lone unsure invader that leans dead inside an
//! area the other colour encloses is estimated again without it, and is dead when the area and its walls are
//! then surely the encloser's (the playouts' random defender lets such a stone live now and then). Alive chains that the territory count's seki test ([`tesuji_rules::score::seki`])
//! finds in seki both with the dead chains removed and with the unsure ones removed too, and that have a
//! liberty neither side can fill (a stone of either colour there would capture nothing and be left in atari), are
//! *seki*: that test is made for finished positions, where it alone called most stones of an opening seki. Empty points
//! are owned at `±SURE` or beyond, nobody's (dame) within ±[`DAME`], and unsure in between.

use rand::SeedableRng;
use rand_pcg::Pcg32;
use tesuji_rules::score::{benson, seki};
use tesuji_rules::{Board, Color, Game, Grid, Point, Size, SuicideRule};

use crate::policy::{self, PASS, Scorer};

/// Ownership (from a colour's side) from which a chain is alive or a point owned.
pub const SURE: f32 = 0.6;
/// Ownership against a chain (from its colour's side, negated) from which it is dead. Lower than [`SURE`]
/// because the playouts err one way: their random attacker rarely kills precisely, so a dead chain with room
/// around it survives a good share of them, while a living chain is almost never captured in them (on GNU Go's
/// finished games, `tests/gnugo_dead.rs`, 0.6 left 7 of 120 games short of its dead stones; 0.4 leaves 3).
pub const DEAD: f32 = 0.4;
/// Ownership from which an alive chain stays alive next to an unsure enemy chain.
pub const FIRM: f32 = 0.9;
/// Liberties from which an alive chain next to an unsure enemy chain is not taken to be racing it.
pub const RACE_LIBERTIES: usize = 4;
/// Ownership within which an empty point is nobody's.
pub const DAME: f32 = 0.2;

/// Playouts enough for a settled position of this size: 1500 on 9×9, 550 on 19×19.
pub fn default_playouts(size: Size) -> u32 {
    (200_000 / size.area().max(1)).clamp(200, 1500) as u32
}

/// The status of a stone's chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Alive,
    Dead,
    Seki,
    /// The playouts disagree: neither alive nor dead with confidence.
    Unsure,
}

/// The estimate of one position.
#[derive(Clone, Debug)]
pub struct Estimate {
    size: Size,
    /// Per point in row-major order: −1 (White's) to 1 (Black's).
    pub ownership: Vec<f32>,
    /// Per point: the status of the chain of the stone there; `None` for an empty point.
    status: Vec<Option<Status>>,
    /// Per point: Benson's algorithm decides it (pass-alive stone, or a point of pass-alive territory).
    proven: Vec<bool>,
    /// Per point: the stone there.
    stones: Vec<Option<Color>>,
    /// Playouts made.
    pub playouts: u32,
}

/// Estimates the position of `game` with `playouts` playouts, under the game's suicide rule.
pub fn estimate(game: &Game, playouts: u32, seed: u64) -> Estimate {
    estimate_board(
        game.board(),
        game.to_move(),
        game.rules().suicide,
        playouts,
        seed,
    )
}

/// Estimates a position with `to_move` to play.
pub fn estimate_board(
    board: &Board,
    to_move: Color,
    suicide: SuicideRule,
    playouts: u32,
    seed: u64,
) -> Estimate {
    let size = board.size();
    let grid = board.to_grid();
    let cells: Vec<usize> = size.points().map(|p| board.idx(p)).collect();
    let mut ownership = playout_ownership(board, to_move, playouts, seed);
    let proof = benson(&grid, suicide);
    let mut proven = vec![false; cells.len()];
    for (k, o) in proof.owner.iter().enumerate() {
        if let Some(c) = o {
            ownership[k] = if *c == Color::Black { 1.0 } else { -1.0 };
            proven[k] = true;
        }
    }
    // Chains: mean ownership from their own side.
    let mut status: Vec<Option<Status>> = vec![None; cells.len()];
    let mut seen = vec![false; cells.len()];
    let mut chains = Vec::new();
    for p in size.points() {
        let k = size.index(p);
        let Some(c) = grid.get(p) else { continue };
        if seen[k] {
            continue;
        }
        let chain = grid.chain(p);
        let sign = if c == Color::Black { 1.0 } else { -1.0 };
        let mean = chain
            .iter()
            .map(|&q| sign * ownership[size.index(q)])
            .sum::<f32>()
            / chain.len() as f32;
        let s = if proof.alive[k] {
            Status::Alive
        } else if proof.owner[k] == Some(c.opponent()) {
            Status::Dead
        } else if mean >= SURE {
            Status::Alive
        } else if mean <= -DEAD {
            Status::Dead
        } else {
            Status::Unsure
        };
        for &q in &chain {
            let j = size.index(q);
            seen[j] = true;
            status[j] = Some(s);
        }
        chains.push((chain, c, mean));
    }
    settle_invaders(
        board,
        &grid,
        (to_move, playouts, seed),
        &proven,
        &mut ownership,
        &mut status,
    );
    for (chain, c, mean) in chains.iter_mut() {
        let sign = if *c == Color::Black { 1.0 } else { -1.0 };
        *mean = chain
            .iter()
            .map(|&q| sign * ownership[size.index(q)])
            .sum::<f32>()
            / chain.len() as f32;
    }
    // A chain next to an unsure enemy chain (touching it or sharing a liberty) may be in a race with it: the
    // playouts' verdict on the one hangs on the other, so unless it is firmly alive it is unsure too. Not with
    // more than `RACE_LIBERTIES` liberties: the playouts count such a race right, and a wall with room behind
    // it is not in one (otherwise one unsure invader made every stone around it unsure).
    let racing = |chain: &[Point], c: Color| {
        let unsure_enemy = |r: Point| {
            grid.get(r) == Some(c.opponent()) && status[size.index(r)] == Some(Status::Unsure)
        };
        chain.iter().flat_map(|&q| size.neighbors(q)).any(|q| {
            unsure_enemy(q) || (grid.get(q).is_none() && size.neighbors(q).any(unsure_enemy))
        })
    };
    let doubted: Vec<usize> = chains
        .iter()
        .filter(|(chain, c, mean)| {
            let k = size.index(chain[0]);
            status[k] == Some(Status::Alive)
                && !proof.alive[k]
                && *mean < FIRM
                && board.liberties(chain[0]) <= RACE_LIBERTIES
                && racing(chain, *c)
        })
        .flat_map(|(chain, _, _)| chain.iter().map(|&q| size.index(q)))
        .collect();
    for k in doubted {
        status[k] = Some(Status::Unsure);
    }
    let dead: Vec<Point> = size
        .points()
        .filter(|&p| status[size.index(p)] == Some(Status::Dead))
        .collect();
    // Unsure chains left on the board make the regions around them touch both colours, which the seki test
    // reads as shared liberties; so a chain is in seki only when it is whether they stay or go.
    let unsure_or_dead: Vec<Point> = size
        .points()
        .filter(|&p| matches!(status[size.index(p)], Some(Status::Dead | Status::Unsure)))
        .collect();
    let in_seki = seki(&grid, &dead);
    let in_seki_without_unsure = seki(&grid, &unsure_or_dead);
    // The count's test assumes a finished position: in an open one every stone touches the empty area of both
    // colours. A chain is in seki only when it also has a liberty that neither side can fill (see
    // `has_seki_liberty`), on the board without the dead stones.
    let mut alive_grid = grid.clone();
    for &q in &dead {
        alive_grid.set(q, None);
    }
    let alive_board = Board::from_grid(&alive_grid).unwrap_or_else(|_| board.clone());
    let mut judged = vec![None::<bool>; cells.len()];
    for p in size.points() {
        let k = size.index(p);
        let candidate = status[k] == Some(Status::Alive)
            && in_seki[k]
            && in_seki_without_unsure[k]
            && !proof.alive[k];
        if !candidate {
            continue;
        }
        let verdict = match judged[k] {
            Some(v) => v,
            None => {
                let chain = grid.chain(p);
                let v = has_seki_liberty(&alive_board, &chain);
                for &q in &chain {
                    judged[size.index(q)] = Some(v);
                }
                v
            }
        };
        if verdict {
            status[k] = Some(Status::Seki);
        }
    }
    Estimate {
        size,
        ownership,
        status,
        proven,
        stones: grid.cells().to_vec(),
        playouts,
    }
}

/// Whether `chain` has a liberty that neither side can fill, a seki's shared liberty: an empty point next to it
/// and to the other colour's stones where a stone of either colour would capture nothing and be left with at
/// most one liberty (or none: a suicide). Filling it would hand the other side a capture.
fn has_seki_liberty(board: &Board, chain: &[Point]) -> bool {
    let size = board.size();
    let Some(own) = chain.first().and_then(|&p| board.get(p)) else {
        return false;
    };
    let unfillable_by = |c: Color, p: Point| {
        let i = board.idx(p);
        if board.captures_and_own(c, i).0 {
            return false;
        }
        if board.suicide_size(c, i).is_some() {
            return true;
        }
        let mut after = board.clone();
        after.play(c, i);
        after.liberties(p) <= 1
    };
    chain
        .iter()
        .flat_map(|&q| size.neighbors(q))
        .filter(|&p| board.get(p).is_none())
        .filter(|&p| {
            size.neighbors(p)
                .any(|r| board.get(r) == Some(own.opponent()))
        })
        .any(|p| unfillable_by(Color::Black, p) && unfillable_by(Color::White, p))
}

/// Per point in row-major order: Black's share of `playouts` policy playouts' ends minus White's, half of them
/// with each colour first.
fn playout_ownership(board: &Board, to_move: Color, playouts: u32, seed: u64) -> Vec<f32> {
    let size = board.size();
    let cells: Vec<usize> = size.points().map(|p| board.idx(p)).collect();
    let mut sums = vec![0i32; cells.len()];
    let mut rng = Pcg32::seed_from_u64(seed);
    let mut scorer = Scorer::new(board);
    let mut b = board.clone();
    let (mut scratch, mut moves) = (policy::Scratch::without_ladders(), Vec::new());
    for k in 0..playouts {
        b.clone_from(board);
        moves.clear();
        let first = if k % 2 == 0 {
            to_move
        } else {
            to_move.opponent()
        };
        policy::run(
            &mut b,
            first,
            PASS,
            &mut rng,
            &mut scratch,
            &mut moves,
            3 * size.area() + 20,
        );
        scorer.area(&b);
        for (s, &i) in sums.iter_mut().zip(&cells) {
            *s += scorer.owner_at(&b, i) as i32;
        }
    }
    let n = playouts.max(1) as f32;
    sums.iter().map(|&s| s as f32 / n).collect()
}

/// An unsure invader that leans dead (mean ownership from its side at most 0), alone with its colour in a
/// region that the other colour encloses, of at most half the board, filling at most a quarter of it, with enclosing chains that have more
/// liberties than any invading chain: the playouts let such a stone live now and then (their random defender does not answer it), and
/// its doubt spreads to the wall around it. It is dead when the playouts without it give the region and every
/// enclosing chain to the encloser with confidence: its region's and the walls' ownership become those.
fn settle_invaders(
    board: &Board,
    grid: &Grid,
    (to_move, playouts, seed): (Color, u32, u64),
    proven: &[bool],
    ownership: &mut [f32],
    status: &mut [Option<Status>],
) {
    let size = board.size();
    let sign = |c: Color| if c == Color::Black { 1.0 } else { -1.0 };
    let mean = |points: &[Point], c: Color, own: &[f32]| {
        points
            .iter()
            .map(|&q| sign(c) * own[size.index(q)])
            .sum::<f32>()
            / points.len().max(1) as f32
    };
    struct Invader {
        region: Vec<Point>,
        stones: Vec<Point>,
        encloser: Color,
        walls: Vec<Vec<Point>>,
    }
    let mut taken = vec![false; size.area()];
    let mut invaders = Vec::new();
    for p in size.points() {
        let k = size.index(p);
        let Some(c) = grid.get(p) else { continue };
        if taken[k] || status[k] != Some(Status::Unsure) {
            continue;
        }
        let enemy = c.opponent();
        let region = grid.region(p, |x| x != Some(enemy));
        for &q in &region {
            taken[size.index(q)] = true;
        }
        let stones: Vec<Point> = region
            .iter()
            .copied()
            .filter(|&q| grid.get(q) == Some(c))
            .collect();
        let doubtful = stones
            .iter()
            .all(|&q| matches!(status[size.index(q)], Some(Status::Unsure | Status::Dead)));
        // An area of more than half the board is no enclosure but open play (an early pass).
        let enclosed = region.len() * 2 <= size.area();
        if !doubtful
            || !enclosed
            || stones.len() * 4 > region.len()
            || mean(&stones, c, ownership) > 0.0
        {
            continue;
        }
        let mut walls: Vec<Vec<Point>> = Vec::new();
        for q in region.iter().flat_map(|&q| size.neighbors(q)) {
            if grid.get(q) == Some(enemy) && !walls.iter().any(|w| w.contains(&q)) {
                walls.push(grid.chain(q));
            }
        }
        // A wall with more liberties than every invading chain wins any race with it.
        let most = stones
            .iter()
            .map(|&q| board.liberties(q))
            .max()
            .unwrap_or(0);
        let sound = |w: &Vec<Point>| {
            status[size.index(w[0])] != Some(Status::Dead) && board.liberties(w[0]) > most
        };
        if walls.is_empty() || !walls.iter().all(sound) {
            continue;
        }
        invaders.push(Invader {
            region,
            stones,
            encloser: enemy,
            walls,
        });
    }
    if invaders.is_empty() {
        return;
    }
    let mut without = grid.clone();
    for q in invaders.iter().flat_map(|v| &v.stones) {
        without.set(*q, None);
    }
    // Removing stones only adds liberties, so the board is valid; refuse quietly all the same.
    let Ok(board_without) = Board::from_grid(&without) else {
        return;
    };
    let second = playout_ownership(
        &board_without,
        to_move,
        playouts,
        seed ^ 0x9E37_79B9_7F4A_7C15,
    );
    for v in invaders {
        let settled = mean(&v.region, v.encloser, &second) >= SURE
            && v.walls.iter().all(|w| mean(w, v.encloser, &second) >= SURE);
        if !settled {
            continue;
        }
        for q in v.region.iter().chain(v.walls.iter().flatten()) {
            let k = size.index(*q);
            if !proven[k] {
                ownership[k] = second[k];
            }
        }
        for q in &v.stones {
            status[size.index(*q)] = Some(Status::Dead);
        }
        for q in v.walls.iter().flatten() {
            let k = size.index(*q);
            if status[k] == Some(Status::Unsure) {
                status[k] = Some(Status::Alive);
            }
        }
    }
}

impl Estimate {
    pub fn size(&self) -> Size {
        self.size
    }

    /// The status of the stone at `p`; `None` for an empty point or a point off the board.
    pub fn status(&self, p: Point) -> Option<Status> {
        self.size
            .contains(p)
            .then(|| self.status[self.size.index(p)])
            .flatten()
    }

    /// The ownership of `p` (−1 White's to 1 Black's); 0 off the board.
    pub fn ownership_at(&self, p: Point) -> f32 {
        if self.size.contains(p) {
            self.ownership[self.size.index(p)]
        } else {
            0.0
        }
    }

    /// Whether Benson's algorithm decides `p`.
    pub fn is_proven(&self, p: Point) -> bool {
        self.size.contains(p) && self.proven[self.size.index(p)]
    }

    pub fn is_dead(&self, p: Point) -> bool {
        self.status(p) == Some(Status::Dead)
    }

    fn with(&self, keep: impl Fn(Status) -> bool) -> Vec<Point> {
        self.size
            .points()
            .filter(|&p| self.status[self.size.index(p)].is_some_and(&keep))
            .collect()
    }

    /// Stones of dead chains, row by row from the top.
    pub fn dead(&self) -> Vec<Point> {
        self.with(|s| s == Status::Dead)
    }

    /// Dead stones that Benson's algorithm proves dead (inside the opponent's pass-alive territory).
    pub fn proven_dead(&self) -> Vec<Point> {
        self.with(|s| s == Status::Dead)
            .into_iter()
            .filter(|&p| self.is_proven(p))
            .collect()
    }

    /// Stones that count as alive: alive chains and unsure ones (not removed), not in seki.
    pub fn alive(&self) -> Vec<Point> {
        self.with(|s| matches!(s, Status::Alive | Status::Unsure))
    }

    /// Stones in seki.
    pub fn seki(&self) -> Vec<Point> {
        self.with(|s| s == Status::Seki)
    }

    /// Stones of unsure chains.
    pub fn unsure(&self) -> Vec<Point> {
        self.with(|s| s == Status::Unsure)
    }

    /// Every point the estimate is unsure of: the stones of unsure chains, and the empty points that nobody
    /// owns clearly (|ownership| < [`SURE`]) unless they are dame: about even (|ownership| ≤ [`DAME`]) and
    /// between living stones of both colours, touching no unsure chain.
    pub fn unsure_points(&self) -> Vec<Point> {
        self.size
            .points()
            .filter(|&p| {
                let k = self.size.index(p);
                if let Some(s) = self.status[k] {
                    return s == Status::Unsure;
                }
                let o = self.ownership[k].abs();
                if o >= SURE {
                    return false;
                }
                let mut living = [false; 2];
                let mut doubtful = false;
                for q in self.size.neighbors(p) {
                    let j = self.size.index(q);
                    match (self.status[j], self.stones[j]) {
                        (Some(Status::Unsure), _) => doubtful = true,
                        (Some(Status::Alive | Status::Seki), Some(c)) => living[c.index()] = true,
                        _ => {}
                    }
                }
                let dame = o <= DAME && living == [true, true] && !doubtful;
                !dame
            })
            .collect()
    }

    /// The owner of an empty point or of a stone's point: its colour's when clear, `None` when nobody's or
    /// unsure.
    pub fn owner(&self, p: Point) -> Option<Color> {
        let o = self.ownership_at(p);
        if o >= SURE {
            Some(Color::Black)
        } else if o <= -SURE {
            Some(Color::White)
        } else {
            None
        }
    }
}
