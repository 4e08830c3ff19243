//! The Monte Carlo tree search player: UCT with RAVE (AMAF) on the fast [`Board`], the playouts of
//! [`crate::policy`], and the game's own rules at the root.
//!
//! ## The tree
//! An arena of nodes; a node's children are one contiguous run, made when the node has been visited
//! [`MctsConfig::expand_after`] times. Every child starts with a *prior* (virtual visits and wins from
//! `prior`: captures, rescues, ladders read by [`crate::ladder`] (an escape into a working ladder is bad, an atari
//! that starts one good), shape, self-atari, the first line, and on boards of 13×13 and more the opening's
//! lines, the first two lines away from contact, and closeness to the last move in the common-fate graph, where a
//! chain is one node, in place of the smaller boards' bonus for the eight points around the last move), and the
//! learned move model of [`crate::features`] (on boards below 13×13 more visits, at a value that grows with the
//! log of the move's probability among the children: [`MctsConfig::pattern_prior`]; on bigger ones, as in
//! Pachi, won visits by the square root of that probability: [`MctsConfig::pattern_wins`]), so no first-play
//! urgency is needed. On those big boards the prior, except the closeness, also starts the child's AMAF
//! record, scaled up, since AMAF soon outweighs the prior's visits and in open areas favours the second line.
//! A child is chosen by the value `(1 − β)·Q + β·AMAF` with Silver's schedule
//! `β = n_amaf / (n_amaf + n + n·n_amaf / K)` (`n` includes the prior's visits), plus a small UCB term. After
//! each playout every node of the path counts the result, and each of its children whose point was played
//! first, after that node, by the child's colour counts it in its AMAF record: once, or with
//! [`MctsConfig::amaf_distance`] more the sooner after the node it was played.
//!
//! ## The rules in the tree
//! The root's children are exactly the game's legal moves ([`Game::legal_moves`]: superko of every kind, the
//! suicide knob, forced handicap passes, free placement), minus the mover's own eye-like points and the
//! points that Benson's algorithm already gives to a player (pass-alive territory: a play there changes
//! nothing), so the move played is always legal. Below the root a cheaper test stands in: simple ko and no
//! suicide from the board, and, under any superko rule, no play may recreate a position of the game so far or of
//! the path (positional superko for all three kinds: it can only forbid more than situational or natural ko
//! would, and only in the tree's evaluation, never at the root). Forced passes and free handicap placement
//! are followed in the tree too. Two passes in a row end a line: under `end=score` rules (and in cleanup mode)
//! the position is counted exactly as it stands, since nothing is removed after such a game; otherwise a
//! playout settles which stones are dead, as the players would.
//!
//! ## Counting
//! Playouts are counted by area (stones and one-colour regions) with komi and the handicap bonus, whatever the
//! rules: area and territory counts differ by a point or two in a finished game, which matters for choosing
//! moves only in the closest games.
//!
//! ## Budget and threads
//! A fixed number of playouts, a time per move, or both (the first reached stops). Several threads grow one
//! tree ([`MctsConfig::shared_tree`], tree parallelism): a thread holds the tree's lock while it chooses a
//! line and again while it counts the result, not during the playout, and it counts the line's visits as it
//! chooses it (a virtual loss), so that the other threads turn to other lines until the result is in. Then
//! the threads' order decides the search: a fixed count is not reproducible. Without a shared tree each
//! thread runs its own tree from its own seed (root parallelism) and the roots are merged; the split of a
//! fixed playout count is fixed, so the same seed and count give the same move on any machine. One thread is
//! reproducible either way.
//!
//! ## Passing and resigning
//! See [`MctsBot::choose`].

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_pcg::Pcg32;
use tesuji_rules::game::Action;
use tesuji_rules::score::benson;
use tesuji_rules::{
    Board, Color, EndRule, Game, Grid, Idx, KoRule, Move, Phase, Rules, ScoringRule,
};

use crate::estimate::{self};
use crate::features::{self, Gammas};
use crate::ladder::Ladder;
use crate::policy::{self, PASS, Reading, Scorer};

mod analysis;
mod config;
mod passing;
mod priors;

pub use analysis::{Analysis, Decision, MoveStat};
pub use config::{BadSetting, MctsConfig, PATTERN_WINS_BIG};
pub(crate) use passing::pass_counts;
use passing::{cleanup_move, count_margin, pass_loses};
use priors::{AMAF_PRIOR, CFG_PRIOR, cfg_distances, prior};

/// The MCTS bot, seeded.
#[derive(Clone, Debug)]
pub struct MctsBot {
    config: MctsConfig,
    seed: u64,
}

impl MctsBot {
    pub fn new(config: MctsConfig, seed: u64) -> MctsBot {
        MctsBot { config, seed }
    }

    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// The move for the player to move in `game` (a pass when the game is not in play).
    ///
    /// `game` gives the position, its history and the legality of every move; `rules` the count (komi, scoring,
    /// the end rule; it may differ from `game.rules()` when a caller keeps a separate legality game, as the GTP
    /// engine does). `cleanup`: every stone left on the board will count as alive (KGS's
    /// `kgs-genmove_cleanup`); rules with `end=score` are always so.
    ///
    /// - When the opponent has just passed and we win the count as the position stands even if our own unsure
    ///   chains are taken dead (dead stones: those that the [`estimate`] finds dead under a dead-stone phase,
    ///   none under `end=score`), pass. Under area scoring, if that win needs stones removed that Benson's
    ///   algorithm does not already prove dead, capture them first (nothing is lost by playing in one's own
    ///   area).
    /// - Otherwise search. Resign when the best move's value is below [`MctsConfig::resign_below`] after
    ///   [`MctsConfig::resign_after`] playouts.
    /// - Pass when the pass is the most visited move, or when the position is finished
    ///   ([`Analysis::finished`]: the playouts agree on the owner of every point, so no dame is left to fill
    ///   and no chain is in doubt) and the pass's value is within 0.05 of the best move's: nothing is left to
    ///   gain. But not into a count that loses: when the count with the estimate's dead stones and our unsure
    ///   chains dead is a loss while the search expects a win (the pass's or the best other move's value at
    ///   least one half), or while it is a win with our unsure chains alive (playing can settle them), play the
    ///   most visited other move at a point that nobody surely owns instead ([`pass_loses`]).
    /// - In cleanup mode, before passing, capture opponent stones that are dead in our area.
    pub fn choose(&self, game: &Game, rules: &Rules, cleanup: bool) -> Decision {
        self.choose_keeping(game, rules, cleanup, &mut KeptTrees::default())
    }

    /// [`MctsBot::choose`], starting the search from the trees in `kept` when they are of an earlier position
    /// of the same game (see [`KeptTrees`]), and leaving this search's trees there. With
    /// [`MctsConfig::reuse`] off, every search starts empty.
    pub fn choose_keeping(
        &self,
        game: &Game,
        rules: &Rules,
        cleanup: bool,
        kept: &mut KeptTrees,
    ) -> Decision {
        if game.phase() != Phase::Playing {
            return Decision::Play(Move::Pass);
        }
        let legal = game.legal_moves();
        match legal.as_slice() {
            [] => return Decision::Play(Move::Pass),
            [only] => return Decision::Play(*only),
            _ => {}
        }
        let me = game.to_move();
        let cleanup = cleanup || rules.end == EndRule::Score;
        let can_pass = legal.contains(&Move::Pass);
        let seed = self.search_seed(game);
        let size = game.board().size();
        let estimate_now = || estimate::estimate(game, estimate::default_playouts(size), seed);
        let mut est = None;
        if can_pass && game.passes_in_row() >= 1 {
            let e = est.insert(estimate_now());
            if cleanup {
                if let Some(m) = cleanup_move(game, e) {
                    return Decision::Play(m);
                }
                if count_margin(game, rules, me, &[]) > 0 {
                    return Decision::Play(Move::Pass);
                }
            } else if pass_counts(game, rules, me, e).safe > 0 {
                let proven = e.proven_dead();
                if rules.scoring != ScoringRule::Territory
                    && count_margin(game, rules, me, &proven) <= 0
                    && let Some(m) = cleanup_move(game, e)
                {
                    return Decision::Play(m);
                }
                return Decision::Play(Move::Pass);
            }
        }
        let analysis = self.search(game, rules, cleanup, Some(kept));
        let Some(best) = analysis.best().cloned() else {
            return Decision::Play(Move::Pass);
        };
        if self.config.resign_below > 0.0
            && analysis.playouts >= self.config.resign_after
            && best.value < self.config.resign_below
        {
            return Decision::Resign;
        }
        let finished = analysis.finished(&game.grid(), rules.scoring != ScoringRule::Territory);
        // A finished position, and the search agrees that passing costs nothing.
        let pass_is_as_good = analysis
            .stat(Move::Pass)
            .is_some_and(|p| p.visits >= 20 && p.value >= best.value - 0.05);
        let pass = can_pass && (best.mv == Move::Pass || (finished && pass_is_as_good));
        // The best other move: the root's moves are the game's legal moves; check anyway.
        let other = analysis
            .moves
            .iter()
            .find(|s| s.mv != Move::Pass && game.is_legal(me, s.mv))
            .cloned();
        if pass {
            let e = est.get_or_insert_with(estimate_now);
            if cleanup && let Some(m) = cleanup_move(game, e) {
                return Decision::Play(m);
            }
            // Playing on must be able to change the count: a stone in an area surely ours or theirs changes no
            // dead stones, and under territory scoring costs a point each time, which a search counted by area
            // does not see; so the most visited move where the estimate owns nothing, if any.
            let telling = analysis.moves.iter().find(|s| {
                s.mv != Move::Pass
                    && game.is_legal(me, s.mv)
                    && matches!(s.mv, Move::Play(p) if e.owner(p).is_none())
            });
            if let Some(other) = telling
                && pass_loses(game, rules, me, cleanup, e, &analysis, other)
            {
                return Decision::Play(other.mv);
            }
            return Decision::Play(Move::Pass);
        }
        other.map_or(Decision::Play(Move::Pass), |s| Decision::Play(s.mv))
    }

    /// The seed of a search: the bot's seed mixed with the position and the move number, so that the same
    /// position in the same game gets the same search whatever was asked before (from an empty tree).
    fn search_seed(&self, game: &Game) -> u64 {
        splitmix(self.seed ^ splitmix(game.board().hash() ^ (game.turns() as u64) << 1))
    }

    /// Searches the position of `game` for the player to move (see [`MctsBot::choose`] for the arguments).
    pub fn analyze(&self, game: &Game, rules: &Rules, cleanup: bool) -> Analysis {
        self.search(game, rules, cleanup, None)
    }

    /// [`MctsBot::analyze`] from the trees in `kept` when they fit (see [`KeptTrees`]; the moves' visits and
    /// values then count the kept playouts too, [`Analysis::playouts`] only this search's), leaving this
    /// search's trees there. With [`MctsConfig::reuse`] off, the same as `analyze`.
    pub fn analyze_keeping(
        &self,
        game: &Game,
        rules: &Rules,
        cleanup: bool,
        kept: &mut KeptTrees,
    ) -> Analysis {
        self.search(game, rules, cleanup, Some(kept))
    }

    /// [`MctsBot::analyze`], from the kept trees when they fit and keeping this search's, when given.
    fn search(
        &self,
        game: &Game,
        rules: &Rules,
        cleanup: bool,
        kept: Option<&mut KeptTrees>,
    ) -> Analysis {
        let start = Instant::now();
        let score_at_end = cleanup || rules.end == EndRule::Score;
        let ctx = Context::new(game, rules, score_at_end, None);
        let threads = self.config.threads.max(1);
        let mut kept = kept.filter(|_| self.config.reuse);
        let key = kept
            .as_ref()
            .map(|_| TreeKey::of(game, rules, score_at_end));
        let trees = new_trees(threads, self.config.shared_tree);
        let grafts = match (kept.as_deref_mut(), &key) {
            (Some(k), Some(key)) => k.subtrees(key, &ctx, trees.len()),
            _ => Vec::new(),
        };
        let total = match (self.config.playouts, self.config.time) {
            (None, None) => Some(10_000),
            (p, _) => p,
        };
        let deadline = self.config.time.map(|t| start + t);
        let mut workers = self.workers(&ctx, &trees, self.search_seed(game));
        // Each tree takes its kept subtree before any thread searches it.
        for (w, graft) in workers.iter_mut().zip(grafts) {
            if let Some((nodes, at)) = graft {
                w.graft(&nodes, at);
            }
        }
        let quota = |k: usize| {
            total.map(|n| n / threads as u64 + u64::from((k as u64) < n % threads as u64))
        };
        if threads == 1 {
            workers[0].search(quota(0), deadline, None);
        } else {
            std::thread::scope(|s| {
                for (k, w) in workers.iter_mut().enumerate() {
                    s.spawn(move || w.search(quota(k), deadline, None));
                }
            });
        }
        let analysis = ctx.merge(&trees, &workers, start.elapsed());
        drop(workers);
        if let (Some(kept), Some(key)) = (kept, key) {
            kept.key = Some(key);
            kept.trees = trees.into_iter().map(into_nodes).collect();
        }
        analysis
    }

    /// One worker per thread, each on its tree of `trees` (one for all when they share it).
    fn workers<'a>(&'a self, ctx: &'a Context, trees: &'a [Tree], seed: u64) -> Vec<Worker<'a>> {
        (0..self.config.threads.max(1))
            .map(|k| {
                let tree = &trees[k % trees.len()];
                Worker::new(
                    ctx,
                    &self.config,
                    tree,
                    splitmix(seed.wrapping_add(k as u64)),
                )
            })
            .collect()
    }

    /// Searches the position of `game` as [`MctsBot::analyze`] does, and calls `report` with what the search has
    /// found every `interval`, until `stop` says so (asked every few playouts, so the search ends promptly)
    /// or, when the bot's settings give a playout count or a time, until that is reached (with neither, until
    /// `stop` only). Answers the last analysis. `only`: the root's moves are these (a pass always allowed), when given and any is legal.
    pub fn analyze_live(
        &self,
        game: &Game,
        rules: &Rules,
        only: Option<&[Move]>,
        interval: Duration,
        stop: &(dyn Fn() -> bool + Sync),
        mut report: impl FnMut(&Analysis),
    ) -> Analysis {
        let start = Instant::now();
        let ctx = Context::new(game, rules, rules.end == EndRule::Score, only);
        let threads = self.config.threads.max(1);
        let end = self.config.time.map(|t| start + t);
        let trees = new_trees(threads, self.config.shared_tree);
        let mut workers = self.workers(&ctx, &trees, self.search_seed(game));
        let interval = interval.max(Duration::from_millis(10));
        loop {
            let done = |ws: &[Worker]| {
                stop()
                    || end.is_some_and(|e| Instant::now() >= e)
                    || self
                        .config
                        .playouts
                        .is_some_and(|n| ws.iter().map(|w| w.playouts).sum::<u64>() >= n)
            };
            if done(&workers) {
                break;
            }
            let until = Some(end.map_or(Instant::now() + interval, |e| {
                e.min(Instant::now() + interval)
            }));
            // Each thread's share of a playout count, whole.
            let quota = self.config.playouts.map(|n| n.div_ceil(threads as u64));
            if threads == 1 {
                workers[0].search(quota, until, Some(stop));
            } else {
                std::thread::scope(|s| {
                    for w in workers.iter_mut() {
                        s.spawn(move || w.search(quota, until, Some(stop)));
                    }
                });
            }
            report(&ctx.merge(&trees, &workers, start.elapsed()));
        }
        ctx.merge(&trees, &workers, start.elapsed())
    }
}

/// Search trees kept from one move to the next ([`MctsBot::choose_keeping`]): when the next search's game is
/// this one with more turns played (the bot's move and the answer, typically), each thread's subtree under
/// those turns starts the next search with its visits, as if its playouts had been made again. Anything
/// else (another game, other rules, an undo) starts empty.
#[derive(Debug, Default)]
pub struct KeptTrees {
    key: Option<TreeKey>,
    /// Per thread, its tree (the root at 0); one when the threads share it.
    trees: Vec<Vec<Node>>,
}

impl KeptTrees {
    /// Per tree of the next search (`count` of them): the kept tree and the index of the node of `key`'s
    /// position in it, when the kept trees are of an earlier position of `key`'s game and that node has been
    /// reached. Empty when nothing fits. The trees are taken out: the search that uses them leaves its own.
    fn subtrees(
        &mut self,
        key: &TreeKey,
        ctx: &Context,
        count: usize,
    ) -> Vec<Option<(Vec<Node>, usize)>> {
        let (Some(old), trees) = (self.key.take(), std::mem::take(&mut self.trees)) else {
            return Vec::new();
        };
        let follows = old.start == key.start
            && old.rules == key.rules
            && old.komi_half == key.komi_half
            && old.score_at_end == key.score_at_end
            && key.log.starts_with(&old.log);
        if !follows || trees.len() != count {
            return Vec::new();
        }
        let turns: Option<Vec<Idx>> = key.log[old.log.len()..]
            .iter()
            .map(|a| match a {
                Action::Turn(_, Move::Pass) => Some(PASS),
                Action::Turn(_, Move::Play(p)) => Some(ctx.board.idx(*p)),
                _ => None,
            })
            .collect();
        let Some(turns) = turns else {
            return Vec::new();
        };
        trees
            .into_iter()
            .map(|nodes| {
                let mut at = 0usize;
                for &m in &turns {
                    let nd = nodes.get(at)?;
                    let first = nd.first_child as usize;
                    if first == 0 {
                        return None;
                    }
                    at = first
                        + (0..nd.nchildren as usize)
                            .find(|&j| nodes.get(first + j).is_some_and(|c| c.mv as Idx == m))?;
                }
                Some((nodes, at))
            })
            .collect()
    }
}

/// What a kept tree is of: the game (its start, rules and turns) and the count searched.
#[derive(Clone, Debug, PartialEq)]
struct TreeKey {
    start: Grid,
    rules: Rules,
    komi_half: i32,
    score_at_end: bool,
    log: Vec<Action>,
}

impl TreeKey {
    fn of(game: &Game, rules: &Rules, score_at_end: bool) -> TreeKey {
        TreeKey {
            start: game.start_grid(),
            rules: *game.rules(),
            komi_half: rules.komi.net() + rules.handicap_bonus_half_points(),
            score_at_end,
            log: game.log().to_vec(),
        }
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Node of a tree: 32 bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    /// The move into this node ([`PASS`] for a pass).
    mv: u16,
    nchildren: u16,
    /// Index of the first child; 0 until the children are made (the root is never a child).
    first_child: u32,
    visits: u32,
    /// Results for the player who made `mv`.
    wins: f32,
    /// AMAF plays counted (on big boards starting from the prior's visits, see `children`).
    amaf_visits: f32,
    amaf_wins: f32,
    prior_visits: f32,
    prior_wins: f32,
}

/// A search tree: its nodes, the root at 0, under a lock for the threads that share it.
type Tree = Mutex<Vec<Node>>;

/// The trees of a search on `threads` threads: one each, or one for all when `shared`.
fn new_trees(threads: usize, shared: bool) -> Vec<Tree> {
    let count = if shared { 1 } else { threads.max(1) };
    (0..count)
        .map(|_| {
            let mut nodes = Vec::with_capacity(1024);
            nodes.push(Node {
                mv: PASS as u16,
                ..Node::default()
            });
            Mutex::new(nodes)
        })
        .collect()
}

/// The nodes of `tree` to read or change. A thread that panicked while holding the lock left the tree whole
/// (nodes are plain numbers, changed one field at a time), so a poisoned lock is used as it is.
fn lock(tree: &Tree) -> MutexGuard<'_, Vec<Node>> {
    tree.lock().unwrap_or_else(PoisonError::into_inner)
}

fn into_nodes(tree: Tree) -> Vec<Node> {
    tree.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// The turn-order state along a line of the tree.
#[derive(Clone, Copy, Debug)]
struct State {
    to_move: Color,
    passes: u32,
    forced_left: u8,
    free_left: u8,
    last: Idx,
    /// The move before `last` (the mover's own previous move).
    prev: Idx,
}

impl State {
    /// Makes the move on the board; returns the mover.
    #[inline]
    fn apply(&mut self, board: &mut Board, m: Idx) -> Color {
        let mover = self.to_move;
        if m == PASS {
            board.pass();
            self.passes += 1;
            if mover == Color::White && self.forced_left > 0 {
                self.forced_left -= 1;
            }
            self.to_move = mover.opponent();
        } else {
            board.play(mover, m);
            self.passes = 0;
            if mover == Color::Black && self.free_left > 0 {
                self.to_move = if self.free_left > 1 {
                    Color::Black
                } else {
                    Color::White
                };
                self.free_left -= 1;
            } else {
                self.to_move = mover.opponent();
            }
        }
        self.prev = self.last;
        self.last = m;
        mover
    }
}

/// What every thread of one search shares.
struct Context {
    board: Board,
    root: State,
    superko: bool,
    /// Hashes of every position of the game so far, sorted (for the tree's superko test).
    history: Vec<u64>,
    /// White's advantage in half-points: komi and the handicap bonus.
    komi_half: i32,
    /// Two passes end a line with an exact count (`end=score`, cleanup).
    score_at_end: bool,
    root_moves: Vec<Idx>,
    /// Per colour and padded index: points the tree never plays (pass-alive territory).
    blocked: [Vec<bool>; 2],
    /// Every on-board cell, in row-major order.
    cells: Vec<Idx>,
    max_moves: usize,
}

impl Context {
    fn new(game: &Game, rules: &Rules, score_at_end: bool, only: Option<&[Move]>) -> Context {
        let board = game.board().clone();
        let size = board.size();
        let to_move = game.to_move();
        let cells: Vec<Idx> = size.points().map(|p| board.idx(p)).collect();
        let ncells = board.stride() * (size.height() as usize + 2) + 1;
        let grid = board.to_grid();
        let owner = benson(&grid, game.rules().suicide).owner;
        let mut blocked = [vec![false; ncells], vec![false; ncells]];
        for (k, &i) in cells.iter().enumerate() {
            let Some(o) = owner[k] else { continue };
            // Under an exact count the owner may still need to capture the dead stones inside.
            let dead_neighbour = board
                .neighbors(i)
                .into_iter()
                .any(|n| board.color_at(n) == Some(o.opponent()));
            blocked[o.opponent().index()][i] = true;
            blocked[o.index()][i] = !(score_at_end && dead_neighbour);
        }
        let wanted = |m: &Move| only.is_none_or(|only| *m == Move::Pass || only.contains(m));
        let legal = game.legal_moves();
        // A list that allows nothing legal but the pass is no list: the search goes on over every move.
        let restrict = legal.iter().any(|m| *m != Move::Pass && wanted(m));
        let root_moves = legal
            .into_iter()
            .filter(|m| !restrict || wanted(m))
            .filter_map(|m| match m {
                Move::Pass => Some(PASS),
                Move::Play(p) => {
                    let i = board.idx(p);
                    (!board.is_eyelike(to_move, i) && !blocked[to_move.index()][i]).then_some(i)
                }
            })
            .collect();
        let mut turns = game.log().iter().rev().filter_map(|a| match a {
            Action::Turn(_, Move::Play(p)) => Some(board.idx(*p)),
            Action::Turn(_, Move::Pass) => Some(PASS),
            _ => None,
        });
        let last = turns.next().unwrap_or(PASS);
        let prev = turns.next().unwrap_or(PASS);
        let superko = game.rules().ko != KoRule::Simple;
        let history = if superko {
            game_hashes(game)
        } else {
            Vec::new()
        };
        Context {
            root: State {
                to_move,
                passes: game.passes_in_row(),
                forced_left: game.forced_passes_left(),
                free_left: game.free_handicap_left(),
                last,
                prev,
            },
            superko,
            history,
            komi_half: rules.komi.net() + rules.handicap_bonus_half_points(),
            score_at_end,
            root_moves,
            blocked,
            cells,
            max_moves: 3 * size.area() + 20,
            board,
        }
    }

    /// Black's result of a count of `margin` points (Black's area minus White's): 1, 0 or ½.
    #[inline]
    fn black_value(&self, margin: i32) -> f32 {
        let half = 2 * margin - self.komi_half;
        match half.cmp(&0) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Less => 0.0,
            std::cmp::Ordering::Equal => 0.5,
        }
    }

    /// The move of a padded index.
    fn move_of(&self, m: Idx) -> Move {
        if m == PASS {
            Move::Pass
        } else {
            Move::Play(self.board.point(m))
        }
    }

    /// The line from root child `k`: its move, then the most visited child of each node while it has been
    /// visited (at most 40 moves), with each one's visits.
    fn principal_variation(&self, nodes: &[Node], k: usize) -> (Vec<Move>, Vec<u64>) {
        let (mut line, mut visits) = (Vec::new(), Vec::new());
        let root = nodes[0];
        if root.first_child == 0 || k >= root.nchildren as usize {
            return (line, visits);
        }
        let mut node = root.first_child as usize + k;
        loop {
            let nd = nodes[node];
            line.push(self.move_of(nd.mv as Idx));
            visits.push(u64::from(nd.visits));
            if nd.first_child == 0 || line.len() >= 40 {
                return (line, visits);
            }
            let first = nd.first_child as usize;
            let best = (first..first + nd.nchildren as usize)
                .max_by_key(|&c| nodes[c].visits)
                .filter(|&c| nodes[c].visits > 0);
            match best {
                Some(c) => node = c,
                None => return (line, visits),
            }
        }
    }

    /// The roots of the search's trees, merged, with the workers' counts of scores and owners.
    fn merge(&self, trees: &[Tree], workers: &[Worker], elapsed: Duration) -> Analysis {
        let size = self.board.size();
        let n = self.root_moves.len();
        let mut visits = vec![0u64; n];
        // This search's own playouts through each root move: the count of its scores and owners.
        let mut fresh = vec![0u64; n];
        let mut wins = vec![0f64; n];
        let mut priors = vec![0f64; n];
        let mut sums = vec![(0f64, 0f64); n];
        let mut total = (0f64, 0f64);
        // Per root move: the tree where it has the most visits, for its principal variation.
        let mut deepest = vec![(0u32, 0usize); n];
        let mut own = vec![0i64; self.cells.len()];
        let mut own_squares = vec![0u64; self.cells.len()];
        let ncells = self.cells.len();
        // Per root move and cell, when kept: the owners' sums over the workers.
        let mut moves_own = vec![0i64; workers.first().map_or(0, |w| w.root_own.len())];
        let mut playouts = 0;
        let trees: Vec<MutexGuard<Vec<Node>>> = trees.iter().map(lock).collect();
        for (t, nodes) in trees.iter().enumerate() {
            let root = nodes[0];
            if root.first_child != 0 {
                for k in 0..(root.nchildren as usize).min(n) {
                    let ch = nodes[root.first_child as usize + k];
                    visits[k] += ch.visits as u64;
                    wins[k] += ch.wins as f64;
                    priors[k] = ch.prior_wins as f64;
                    if ch.visits > deepest[k].0 {
                        deepest[k] = (ch.visits, t);
                    }
                }
            }
        }
        for w in workers {
            playouts += w.playouts;
            total.0 += w.scores.0;
            total.1 += w.scores.1;
            // (Both are per root move, in the root's order: the same in every tree.)
            for (k, (&fresh_k, &sums_k)) in w
                .root_playouts
                .iter()
                .zip(&w.root_scores)
                .enumerate()
                .take(n)
            {
                fresh[k] += fresh_k;
                sums[k].0 += sums_k.0;
                sums[k].1 += sums_k.1;
            }
            for (to, &from) in moves_own.iter_mut().zip(&w.root_own) {
                *to += i64::from(from);
            }
            for (k, &i) in self.cells.iter().enumerate() {
                own[k] += w.own_sum[i] as i64;
                own_squares[k] += u64::from(w.own_squares[i]);
            }
        }
        // The margins are Black's: the player to move's are their opposite for White.
        let sign = if self.root.to_move == Color::Black {
            1.0
        } else {
            -1.0
        };
        let stats = |(sum, squares): (f64, f64), count: u64| {
            if count == 0 {
                return (0.0, 0.0);
            }
            let mean = sum / count as f64;
            let variance = (squares / count as f64 - mean * mean).max(0.0);
            (sign * mean, variance.sqrt())
        };
        let prior_sum: f64 = priors.iter().sum();
        let mut moves: Vec<MoveStat> = self
            .root_moves
            .iter()
            .enumerate()
            .map(|(k, &m)| {
                let (score_mean, score_stdev) = stats(sums[k], fresh[k]);
                let (pv, pv_visits) = match trees.get(deepest[k].1) {
                    Some(nodes) if visits[k] > 0 => self.principal_variation(nodes, k),
                    _ => (vec![self.move_of(m)], vec![0]),
                };
                MoveStat {
                    mv: self.move_of(m),
                    visits: visits[k],
                    value: if visits[k] > 0 {
                        wins[k] / visits[k] as f64
                    } else {
                        0.5
                    },
                    prior: if prior_sum > 0.0 {
                        priors[k] / prior_sum
                    } else {
                        1.0 / n as f64
                    },
                    score_mean,
                    score_stdev,
                    score_selfplay: score_mean,
                    pv,
                    pv_visits,
                    ownership: moves_own
                        .get(k * ncells..(k + 1) * ncells)
                        .map(|row| {
                            let count = fresh[k].max(1) as f32;
                            row.iter().map(|&s| s as f32 / count).collect()
                        })
                        .unwrap_or_default(),
                }
            })
            .collect();
        // Most visited first; ties by value, then by the root's order (stable sort).
        moves.sort_by(|a, b| {
            b.visits.cmp(&a.visits).then(
                b.value
                    .partial_cmp(&a.value)
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
        });
        let (score_mean, score_stdev) = stats(total, playouts);
        let count = playouts.max(1) as f32;
        Analysis {
            moves,
            playouts,
            ownership: own.iter().map(|&s| s as f32 / count).collect(),
            ownership_stdev: own
                .iter()
                .zip(&own_squares)
                .map(|(&s, &q)| {
                    let mean = s as f32 / count;
                    (q as f32 / count - mean * mean).max(0.0).sqrt()
                })
                .collect(),
            size,
            elapsed,
            to_move: self.root.to_move,
            score_mean,
            score_stdev,
        }
    }
}

/// The hash of every position of the game: the start, then after each turn.
fn game_hashes(game: &Game) -> Vec<u64> {
    let mut out = Vec::with_capacity(game.log().len() + 1);
    let Ok(mut board) = Board::from_grid(&game.start_grid()) else {
        return out;
    };
    out.push(board.hash());
    for a in game.log() {
        if let Action::Turn(c, m) = a {
            match m {
                Move::Play(p) => {
                    let i = board.idx(*p);
                    board.play(*c, i);
                }
                Move::Pass => board.pass(),
            }
            out.push(board.hash());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// One thread's buffers and counts, and the tree it grows (its own, or one that all threads share).
struct Worker<'a> {
    ctx: &'a Context,
    config: &'a MctsConfig,
    tree: &'a Tree,
    rng: Pcg32,
    board: Board,
    /// The nodes of the current line and the player to move at each.
    path: Vec<(u32, Color)>,
    tree_moves: Vec<(Idx, Color)>,
    path_hashes: Vec<u64>,
    playout_moves: Vec<(Idx, Color)>,
    scratch: policy::Scratch,
    /// The tree's ladder reader (the priors').
    ladder: Ladder,
    /// Per padded index: the common-fate-graph distance from the last move (see [`cfg_distances`]).
    cfg: Vec<u8>,
    cfg_queue: Vec<Idx>,
    /// Buffers of `children`: the children's moves, their tactical readings, and their strengths in the
    /// learned model.
    moves: Vec<Idx>,
    readings: Vec<Reading>,
    strengths: Vec<f32>,
    /// The children made for a node, until they join the tree.
    new_children: Vec<Node>,
    scorer: Scorer,
    /// Per padded index: colour code (1 Black, 2 White) of the first play there in the current sequence, and
    /// that play's position in the sequence (tree moves, then playout moves).
    first: Vec<u8>,
    first_at: Vec<u32>,
    /// Per padded index: sum of the owners at the ends of the playouts, and of their squares.
    own_sum: Vec<i32>,
    own_squares: Vec<u32>,
    /// Per root child (in the order of its children), per cell (in `ctx.cells` order): the sum of the owners at
    /// the ends of the playouts through it. Empty unless the config asks for moves' ownership.
    root_own: Vec<i32>,
    /// Black's final margins (points, komi included), summed and summed squared: per root child, in the
    /// order of its children, and over all playouts.
    root_scores: Vec<(f64, f64)>,
    /// Per root child: the playouts of this search through it (its visits less those of a kept tree).
    root_playouts: Vec<u64>,
    scores: (f64, f64),
    playouts: u64,
}

impl<'a> Worker<'a> {
    fn new(ctx: &'a Context, config: &'a MctsConfig, tree: &'a Tree, seed: u64) -> Worker<'a> {
        let ncells = ctx.blocked[0].len();
        Worker {
            ctx,
            config,
            tree,
            rng: Pcg32::seed_from_u64(seed),
            board: ctx.board.clone(),
            path: Vec::new(),
            tree_moves: Vec::new(),
            path_hashes: Vec::new(),
            playout_moves: Vec::with_capacity(ctx.max_moves + 1),
            scratch: policy::Scratch::for_board(&ctx.board).with_two_libs(config.playout_two_libs),
            ladder: Ladder::new(),
            cfg: Vec::new(),
            cfg_queue: Vec::new(),
            moves: Vec::new(),
            readings: Vec::new(),
            strengths: Vec::new(),
            new_children: Vec::new(),
            scorer: Scorer::new(&ctx.board),
            first: vec![0; ncells],
            first_at: vec![0; ncells],
            own_sum: vec![0; ncells],
            own_squares: vec![0; ncells],
            root_own: if config.moves_ownership {
                vec![0; ctx.root_moves.len() * ctx.cells.len()]
            } else {
                Vec::new()
            },
            root_scores: vec![(0.0, 0.0); ctx.root_moves.len().max(1)],
            root_playouts: vec![0; ctx.root_moves.len().max(1)],
            scores: (0.0, 0.0),
            playouts: 0,
        }
    }

    /// Starts the tree from node `at` of an `old` tree of an earlier position: the root's children are made
    /// as always, and each takes the record and the subtree of the old node's child of the same move (as much
    /// as fits in [`MctsConfig::max_nodes`]).
    fn graft(&mut self, old: &[Node], at: usize) {
        let st = self.ctx.root;
        let Some(&from) = old.get(at) else { return };
        if from.first_child == 0 {
            return;
        }
        self.children(true, &st);
        let mut nodes = lock(self.tree);
        if !self.attach(&mut nodes, 0) {
            return;
        }
        let old_first = from.first_child as usize;
        let old_children = old_first..(old_first + from.nchildren as usize).min(old.len());
        let first = nodes[0].first_child as usize;
        // (old index, new index) of the copied nodes whose children are still to copy.
        let mut todo = Vec::new();
        let mut visits = 0u32;
        for k in first..first + nodes[0].nchildren as usize {
            let mv = nodes[k].mv;
            if let Some(j) = old_children.clone().find(|&j| old[j].mv == mv) {
                nodes[k] = old[j];
                visits = visits.saturating_add(old[j].visits);
                todo.push((j, k));
            }
        }
        nodes[0].visits = visits;
        while let Some((from, to)) = todo.pop() {
            let nd = old[from];
            let (f, n) = (nd.first_child as usize, nd.nchildren as usize);
            if f == 0 || f + n > old.len() || nodes.len() + n > self.config.max_nodes {
                nodes[to].first_child = 0;
                nodes[to].nchildren = 0;
                continue;
            }
            let at = nodes.len();
            nodes[to].first_child = at as u32;
            nodes.extend_from_slice(&old[f..f + n]);
            todo.extend((0..n).map(|j| (f + j, at + j)));
        }
    }

    fn search(
        &mut self,
        quota: Option<u64>,
        deadline: Option<Instant>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) {
        loop {
            if quota.is_some_and(|q| self.playouts >= q) {
                return;
            }
            // The clock and the stop flag are read every few playouts.
            if self.playouts.is_multiple_of(16)
                && (deadline.is_some_and(|d| Instant::now() >= d)
                    || stop.is_some_and(|stop| stop()))
            {
                return;
            }
            self.iterate();
            self.playouts += 1;
        }
    }

    fn iterate(&mut self) {
        let ctx = self.ctx;
        self.board.clone_from(&ctx.board);
        let mut st = ctx.root;
        self.path.clear();
        self.tree_moves.clear();
        self.path_hashes.clear();
        self.playout_moves.clear();
        let mut nodes = lock(self.tree);
        let mut node = 0usize;
        self.path.push((0, st.to_move));
        let mut terminal = false;
        loop {
            if st.passes >= 2 {
                terminal = true;
                break;
            }
            if nodes[node].first_child == 0 {
                if (node != 0 && nodes[node].visits < self.config.expand_after)
                    || !self.has_room(&nodes)
                {
                    break;
                }
                // The children's readings are the costly part: made without the lock.
                drop(nodes);
                self.children(node == 0, &st);
                nodes = lock(self.tree);
                if !self.attach(&mut nodes, node) {
                    break;
                }
            }
            let child = self.select(&nodes, node);
            let m = nodes[child].mv as Idx;
            let mover = st.apply(&mut self.board, m);
            self.tree_moves.push((m, mover));
            if ctx.superko && m != PASS {
                self.path_hashes.push(self.board.hash());
            }
            node = child;
            self.path.push((child as u32, st.to_move));
        }
        // The line counts as visited now and as won only when its result is in (`backup`): a thread that
        // shares the tree meanwhile sees a loss there (a virtual loss) and turns to other lines.
        for &(n, _) in &self.path {
            nodes[n as usize].visits += 1;
        }
        let root_first = nodes[0].first_child as usize;
        drop(nodes);
        if !(terminal && ctx.score_at_end) {
            policy::run(
                &mut self.board,
                st.to_move,
                st.last,
                &mut self.rng,
                &mut self.scratch,
                &mut self.playout_moves,
                ctx.max_moves,
            );
        }
        let margin = self.scorer.area(&self.board);
        // The root child this playout went through, if any.
        let root_child = self
            .path
            .get(1)
            .map(|&(child, _)| child as usize - root_first);
        let ncells = ctx.cells.len();
        let own_row = root_child
            .filter(|&k| (k + 1) * ncells <= self.root_own.len())
            .map(|k| k * ncells);
        for (j, &i) in ctx.cells.iter().enumerate() {
            let owner = self.scorer.owner_at(&self.board, i) as i32;
            self.own_sum[i] += owner;
            self.own_squares[i] += owner.unsigned_abs();
            if let Some(row) = own_row {
                self.root_own[row + j] += owner;
            }
        }
        let points = f64::from(2 * margin - ctx.komi_half) / 2.0;
        self.scores.0 += points;
        self.scores.1 += points * points;
        if let Some(n) = root_child.and_then(|k| self.root_playouts.get_mut(k)) {
            *n += 1;
        }
        if let Some(sums) = root_child.and_then(|k| self.root_scores.get_mut(k)) {
            sums.0 += points;
            sums.1 += points * points;
        }
        let value = ctx.black_value(margin);
        self.backup(&mut lock(self.tree), value);
    }

    /// Whether `nodes` has room for the children of one more node.
    fn has_room(&self, nodes: &[Node]) -> bool {
        nodes.len() + self.ctx.board.size().area() < self.config.max_nodes
    }

    /// Gives `node` the children in [`Worker::new_children`], unless another thread has given it children
    /// meanwhile. False when it has none: no room, or no child.
    fn attach(&mut self, nodes: &mut Vec<Node>, node: usize) -> bool {
        if nodes[node].first_child != 0 {
            return true;
        }
        let n = self.new_children.len();
        if n == 0 || !self.has_room(nodes) {
            return false;
        }
        nodes[node].first_child = nodes.len() as u32;
        nodes[node].nchildren = n as u16;
        nodes.append(&mut self.new_children);
        true
    }

    /// Makes the children of a node (the root's when `root`), whose position is on the board with `st` to
    /// move, into [`Worker::new_children`]: the tree's nodes are not needed, so a thread that shares the tree
    /// does this without its lock.
    fn children(&mut self, root: bool, st: &State) {
        let ctx = self.ctx;
        let size = ctx.board.size();
        let c = st.to_move;
        self.new_children.clear();
        let board = &self.board;
        let ladder = &mut self.ladder;
        // On big boards AMAF misleads in open areas (random playouts reward the second line), and it soon
        // outweighs the prior's visits: there the prior, scaled up, starts the AMAF record too.
        let amaf_prior = crate::policy::is_big(size);
        // The closeness prior is for big boards only: small ones skip the search of distances.
        if amaf_prior {
            cfg_distances(board, st.last, &mut self.cfg, &mut self.cfg_queue);
        }
        // The children's moves.
        let mut moves = std::mem::take(&mut self.moves);
        moves.clear();
        if c == Color::White && st.forced_left > 0 {
            moves.push(PASS);
        } else if root {
            moves.extend_from_slice(&ctx.root_moves);
        } else {
            let blocked = &ctx.blocked[c.index()];
            for &e in board.empty_points() {
                let i = e as Idx;
                if blocked[i]
                    || board.is_eyelike(c, i)
                    || board.check(c, i, true, false, false).is_err()
                {
                    continue;
                }
                if ctx.superko {
                    let h = board.hash_after(c, i);
                    if self.path_hashes.contains(&h) || ctx.history.binary_search(&h).is_ok() {
                        continue;
                    }
                }
                moves.push(i);
            }
            if st.free_left == 0 {
                moves.push(PASS);
            }
        }
        // The learned model's strengths of the plays, normalized to their mean: `p·n`. Not of the pass: the
        // records' players pass after a pass once the game is over for them, and the model would make passing
        // back look good before the search has judged the count (the pass keeps its own prior).
        // Both priors share one tactical reading of each play: its ladders are the costly part.
        let readings = &mut self.readings;
        readings.clear();
        readings.extend(moves.iter().map(|&m| {
            if m == PASS {
                Reading::default()
            } else {
                Reading::of(board, c, m, ladder)
            }
        }));
        let config = self.config;
        let strengths = &mut self.strengths;
        strengths.clear();
        let plays = moves.iter().filter(|&&m| m != PASS).count();
        let pattern_wins = config.pattern_wins_on(size);
        if (config.pattern_prior > 0.0 || pattern_wins > 0.0) && plays > 1 {
            let gammas = Gammas::builtin(size);
            strengths.extend(moves.iter().zip(readings.iter()).map(|(&m, r)| {
                if m == PASS {
                    return 0.0;
                }
                gammas.strength(&features::play_features(board, c, m, st.last, st.prev, r))
            }));
            let mean = strengths.iter().sum::<f32>() / plays as f32;
            if mean > 0.0 && mean.is_finite() {
                strengths.iter_mut().for_each(|x| *x /= mean);
            } else {
                strengths.clear();
            }
        }
        let cfg = &self.cfg;
        for (k, &m) in moves.iter().enumerate() {
            let (mut pn, mut pw) = prior(board, m, st.last, size, &readings[k]);
            let (an, aw) = if amaf_prior && m != PASS {
                (AMAF_PRIOR * pn, AMAF_PRIOR * pw)
            } else {
                (0.0, 0.0)
            };
            if let Some(&rel) = strengths.get(k).filter(|_| m != PASS) {
                let (visits, wins) = config.model_prior(rel, plays, pattern_wins);
                pn += visits;
                pw += wins;
            }
            // Locality on a big board: answers next to the last move's chain, and a little further out, are
            // where the play is (distance in the common-fate graph, where a chain is one node). In the node's
            // own record only: AMAF, which counts moves played anywhere later, has its own sense of urgency.
            // (On small boards `cfg` stays empty: no distance, no prior.)
            if let Some(&d @ 1..=3) = cfg.get(m) {
                let (visits, value) = CFG_PRIOR[usize::from(d) - 1];
                pn += visits;
                pw += visits * value;
            }
            self.new_children.push(Node {
                mv: m as u16,
                prior_visits: pn,
                prior_wins: pw,
                amaf_visits: an,
                amaf_wins: aw,
                ..Node::default()
            });
        }
        self.moves = moves;
    }

    /// The child of `node` with the best RAVE value.
    fn select(&self, nodes: &[Node], node: usize) -> usize {
        let parent = &nodes[node];
        let first = parent.first_child as usize;
        let k = self.config.rave_equiv;
        let log_n = ((parent.visits + 1) as f32).ln();
        let mut best = first;
        let mut best_score = f32::NEG_INFINITY;
        for (j, ch) in nodes[first..first + parent.nchildren as usize]
            .iter()
            .enumerate()
        {
            let n = ch.visits as f32 + ch.prior_visits;
            let q = (ch.wins + ch.prior_wins) / n;
            let v = if ch.amaf_visits > 0.0 {
                let an = ch.amaf_visits;
                let beta = an / (an + n + n * an / k);
                (1.0 - beta) * q + beta * ch.amaf_wins / an
            } else {
                q
            };
            let score = v + self.config.explore * (log_n / n).sqrt();
            if score > best_score {
                best_score = score;
                best = first + j;
            }
        }
        best
    }

    /// Counts the result `black` (Black's value, 0 to 1) along the path (whose visits `iterate` counted) and
    /// in the AMAF records.
    fn backup(&mut self, nodes: &mut [Node], black: f32) {
        let value_for = |c: Color| {
            if c == Color::Black {
                black
            } else {
                1.0 - black
            }
        };
        for (k, &(node, _)) in self.path.iter().enumerate().skip(1) {
            nodes[node as usize].wins += value_for(self.tree_moves[k - 1].1);
        }
        let code = |c: Color| c as u8 + 1;
        let tree_len = self.tree_moves.len();
        let len = tree_len + self.playout_moves.len();
        for (j, &(m, c)) in self.playout_moves.iter().enumerate().rev() {
            if m != PASS {
                self.first[m] = code(c);
                self.first_at[m] = (tree_len + j) as u32;
            }
        }
        let distance = self.config.amaf_distance;
        for k in (0..self.path.len()).rev() {
            if let Some(&(m, c)) = self.tree_moves.get(k)
                && m != PASS
            {
                self.first[m] = code(c);
                self.first_at[m] = k as u32;
            }
            let (node, to_move) = self.path[k];
            let nd = nodes[node as usize];
            if nd.first_child == 0 {
                continue;
            }
            let (mine, v) = (code(to_move), value_for(to_move));
            let first = nd.first_child as usize;
            // The weight of a move played at position f after this node's position k (see `amaf_distance`): at
            // distance 0 the scale is 0 and every weight exactly 1.
            let scale = distance / (len - k + 1) as f32;
            for ch in &mut nodes[first..first + nd.nchildren as usize] {
                let m = ch.mv as usize;
                if self.first[m] == mine && m != PASS {
                    let w = 1.0 + scale * (len - self.first_at[m] as usize) as f32;
                    ch.amaf_visits += w;
                    ch.amaf_wins += w * v;
                }
            }
        }
        for &(m, _) in self.playout_moves.iter().chain(&self.tree_moves) {
            self.first[m] = 0;
        }
    }
}

/// Convenience for tests and tools: a game from a diagram with `to_move` to play under `rules` (its size is the
/// diagram's).
pub fn game_from_diagram(diagram: &str, to_move: Color, rules: &Rules) -> Option<Game> {
    let grid = Grid::from_diagram(diagram).ok()?;
    let mut r = *rules;
    r.size = grid.size();
    Game::from_position(r, &grid, to_move).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tesuji_rules::Point;

    /// Each iteration's AMAF counts, checked against a literal reading of the rule on the iteration's own line:
    /// for every node of the line that has children and every child but the pass, find the first play at the
    /// child's point after the node; if the node's player made it, the child gains that play's weight in
    /// visits and weight times the result in wins. Nothing else changes.
    #[test]
    fn amaf_counts_each_first_play_by_its_distance() {
        let rules: Rules = "chinese:size=9,komi=7".parse().unwrap();
        let game = Game::new(rules).unwrap();
        let ctx = Context::new(&game, &rules, false, None);
        for distance in [0.0, 3.0] {
            let config = MctsConfig {
                amaf_distance: distance,
                expand_after: 2,
                ..MctsConfig::playouts(1)
            };
            let tree = new_trees(1, true).pop().unwrap();
            let mut w = Worker::new(&ctx, &config, &tree, 11);
            for _ in 0..300 {
                let before = lock(&tree).clone();
                w.iterate();
                let after = lock(&tree).clone();
                let seq: Vec<(Idx, Color)> = w
                    .tree_moves
                    .iter()
                    .chain(&w.playout_moves)
                    .copied()
                    .collect();
                let len = seq.len();
                // The result for the player of the line's first move, from that child's own wins.
                let (c1, _) = w.path[1];
                let old = |i: usize| before.get(i).copied().unwrap_or_default();
                let v1 = after[c1 as usize].wins - old(c1 as usize).wins;
                let mover0 = seq[0].1;
                let value_for = |c: Color| if c == mover0 { v1 } else { 1.0 - v1 };
                let mut expected: Vec<(f32, f32)> = vec![(0.0, 0.0); after.len()];
                for (k, &(node, to_move)) in w.path.iter().enumerate() {
                    let nd = after[node as usize];
                    let first = nd.first_child as usize;
                    if first == 0 {
                        continue;
                    }
                    for (j, ch) in after[first..first + nd.nchildren as usize]
                        .iter()
                        .enumerate()
                    {
                        let m = ch.mv as Idx;
                        if m == PASS {
                            continue;
                        }
                        let Some(f) = (k..len).find(|&f| seq[f].0 == m) else {
                            continue;
                        };
                        if seq[f].1 != to_move {
                            continue;
                        }
                        let weight = 1.0 + distance * (len - f) as f32 / (len - k + 1) as f32;
                        expected[first + j] = (weight, weight * value_for(to_move));
                    }
                }
                for (i, node) in after.iter().enumerate() {
                    let got = (
                        node.amaf_visits - old(i).amaf_visits,
                        node.amaf_wins - old(i).amaf_wins,
                    );
                    let (ev, ew) = expected[i];
                    assert!(
                        (got.0 - ev).abs() < 1e-3 && (got.1 - ew).abs() < 1e-3,
                        "distance {distance}, node {i}: AMAF gained {got:?}, expected {:?}",
                        (ev, ew)
                    );
                }
            }
            assert!(lock(&tree).len() > 100, "the tree grew");
        }
    }

    #[test]
    fn cfg_distances_count_a_chain_as_one_node() {
        // Points as (x, y) from the top left. The last move is (1,4), in a black chain (1,4)-(2,4) touching the
        // white chain (3,3)-(3,4).
        let grid =
            Grid::from_diagram(".......\n.......\n.......\n...O...\n.XXO...\n.......\n.......")
                .unwrap();
        let board = Board::from_grid(&grid).unwrap();
        let at = |x: u8, y: u8| board.idx(Point::new(x, y));
        let (mut dist, mut queue) = (Vec::new(), Vec::new());
        cfg_distances(&board, at(1, 4), &mut dist, &mut queue);
        // The chain itself is not a candidate; its liberties and the touching chain are at 1.
        assert_eq!(dist[at(1, 4)], 0);
        assert_eq!(dist[at(2, 4)], 0);
        assert_eq!(dist[at(0, 4)], 1);
        assert_eq!(dist[at(2, 3)], 1);
        assert_eq!(dist[at(3, 4)], 1);
        // The white chain is one node: its liberties (4,3) and (3,2) are at 2, as is (0,3) beside two
        // liberties of the black chain.
        assert_eq!(dist[at(4, 3)], 2);
        assert_eq!(dist[at(3, 2)], 2);
        assert_eq!(dist[at(0, 3)], 2);
        // Three steps: counted; four: not.
        assert_eq!(dist[at(5, 3)], 3);
        assert_eq!(dist[at(6, 3)], 0);
        // A chain two steps away is one node at 2 however long it is: the black chain along the bottom row
        // touches (1,5), a liberty at 1, so even its far end (6,6) is at 2, and (6,5) above that end at 3.
        let grid =
            Grid::from_diagram(".......\n.......\n.......\n...O...\n.XXO...\n.......\nXXXXXXX")
                .unwrap();
        let board = Board::from_grid(&grid).unwrap();
        cfg_distances(&board, at(1, 4), &mut dist, &mut queue);
        assert_eq!(dist[at(1, 5)], 1);
        assert_eq!(dist[at(0, 6)], 2);
        assert_eq!(dist[at(6, 6)], 2);
        assert_eq!(dist[at(6, 5)], 3);
        // No last move, or a pass: nothing is near.
        cfg_distances(&board, PASS, &mut dist, &mut queue);
        assert!(dist.iter().all(|&d| d == 0));
    }
}
