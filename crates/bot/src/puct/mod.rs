//! The network player: PUCT search with a KataGo network's policy as the priors and its value and score
//! as the evaluation of each new leaf (no playouts), read from KataGo's search and written our own way.
//!
//! ## The tree
//! An arena of nodes ([`tree`]); a node is made when a line first reaches it and evaluated once, its edges
//! then every legal move of its position with the network's probability as the prior (the policy with
//! KataGo's optimism: 1 below the root, 0.2 at the root). A node's figures are recomputed from its own
//! evaluation and its children's at every visit through it: each child weighted by how sure the network
//! is of its evaluations (its short-term error heads), less when its value is below its siblings' by more
//! than its visits explain, or when it took more than twice its prior's share while worse than the moves
//! before it. A node's own evaluation is moved by what the search found under the other nodes reached by
//! the same local move ([`bias`]).
//!
//! ## Choosing a line
//! `Q + c·P·√W / (1 + w)` with `W` the children's weight and `w` the child's, `c` KataGo's constant that
//! grows with `W`, scaled by how spread the node's utilities are. An unvisited child takes the parent's
//! value (leaning on the parent's own evaluation until the likely moves are tried) less `0.2·√(explored
//! prior)` (0.1 at the root). Utility: [`utility`].
//!
//! ## Threads and batches
//! Threads share one tree behind a lock, held only to choose lines and to record evaluations: each thread
//! takes `batch` leaves (a virtual loss on each line steers the next away from it), evaluates them in one
//! call of the network with the lock released, and records them. Evaluations go through an [`EvalCache`]
//! keyed by the network's inputs and the symmetry, which is chosen per position.
//!
//! ## The move
//! KataGo's choice: the most weighted root move, the others cut to the visits they deserve in hindsight,
//! and the move with the best lower confidence bound among those with at least 15% of the best's weight
//! lifted above the rest. Resigns when three of its searches in a row in one game ([`KeptTree`]) found that
//! move's win rate below the threshold and its lead a point behind for every 40 points of the board (2 on 9×9,
//! 9 on 19×19), each after at least 32 visits; a search with no kept tree never resigns.
//! The tree is kept for the next move ([`KeptTree`]) when the game goes on from this one.
//!
//! Every move played is one of [`Game::legal_moves`], the root's edges.

mod bias;
mod tree;
pub mod utility;

use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tesuji_nn::cache::{EvalCache, evaluate_cached};
use tesuji_nn::katarules::KataRules;
use tesuji_nn::network::Network;
use tesuji_nn::output::{Evaluation, GTP_POLICY_OPTIMISM, Symmetry};
use tesuji_nn::position::Query;
use tesuji_rules::{Action, Color, Game, Grid, Move, Phase, Rules};

use crate::mcts::{Analysis, Decision, MoveStat};
use tree::{Edge, Eval, Node, NodeId, State, Tree};
use utility::{ScoreUtility, evaluation_weight};

/// The search's budget and settings: `nn:time=S,visits=N,threads=N,batch=N,resign=R`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctConfig {
    /// Visits a move (evaluations, and finished games reached), at most.
    pub visits: Option<u64>,
    /// Time a move, at most.
    pub time: Option<Duration>,
    /// The win rate under which the bot resigns (0 never).
    pub resign: f64,
    /// Threads searching the one tree.
    pub threads: usize,
    /// Leaves a thread evaluates in one call of the network.
    pub batch: usize,
}

impl Default for PuctConfig {
    /// One second a move on one thread, one leaf at a time.
    fn default() -> PuctConfig {
        PuctConfig {
            visits: None,
            time: Some(Duration::from_secs(1)),
            resign: 0.05,
            threads: 1,
            batch: 1,
        }
    }
}

/// A bad `nn:` setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad nn setting {0:?}: expected time=SECONDS, visits=N, threads=N (1-64), batch=N (1-64) or resign=RATE"
)]
pub struct BadSetting(pub String);

fn number<T: FromStr + PartialOrd>(value: &str, range: RangeInclusive<T>) -> Option<T> {
    value.parse::<T>().ok().filter(|x| range.contains(x))
}

impl FromStr for PuctConfig {
    type Err = BadSetting;
    /// `time=S` (seconds, up to a day), `visits=N` (1 to 10⁹), `threads=N`, `batch=N` (1 to 64),
    /// `resign=R` (0 to 0.5), comma-separated; a count alone removes the default time.
    fn from_str(s: &str) -> Result<PuctConfig, BadSetting> {
        let mut config = PuctConfig::default();
        let mut timed = false;
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || BadSetting(part.to_string());
            let (key, value) = part.split_once('=').ok_or_else(bad)?;
            let value = value.trim();
            match key.trim() {
                "time" => {
                    let t = number(value, 0.001..=86_400.0).ok_or_else(bad)?;
                    config.time = Some(Duration::from_secs_f64(t));
                    timed = true;
                }
                "visits" => config.visits = Some(number(value, 1..=1_000_000_000).ok_or_else(bad)?),
                "threads" => config.threads = number(value, 1..=64).ok_or_else(bad)?,
                "batch" => config.batch = number(value, 1..=64).ok_or_else(bad)?,
                "resign" => config.resign = number(value, 0.0..=0.5).ok_or_else(bad)?,
                _ => return Err(bad()),
            }
        }
        if config.visits.is_some() && !timed {
            config.time = None;
        }
        Ok(config)
    }
}

/// What the search asks of a position: its rules as the network knows them and White's komi.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    pub rules: KataRules,
    pub komi: i32,
}

/// A search's answer: the move, and what the root saw (its moves in the order of preference to play).
#[derive(Clone, Debug)]
pub struct Search {
    pub decision: Decision,
    pub analysis: Analysis,
}

/// What receives the analysis as the search goes.
pub type Report<'s> = dyn FnMut(&Analysis) + 's;

/// What the next search is asked to do besides finding a move.
pub struct Live<'s> {
    /// The root's moves are these (a pass always allowed), when given.
    pub only: Option<&'s [Move]>,
    /// Asked every few milliseconds: the search ends when it says so.
    pub stop: &'s (dyn Fn() -> bool + Sync),
    /// Called with the analysis so far every `interval`, and once more at the end.
    pub report: Option<(Duration, &'s mut Report<'s>)>,
    /// Each root move's own ownership in its [`MoveStat`] (KataGo's `movesOwnership`).
    pub moves_ownership: bool,
}

impl Default for Live<'_> {
    fn default() -> Self {
        Live {
            only: None,
            stop: &|| false,
            report: None,
            moves_ownership: false,
        }
    }
}

/// A search tree kept from one move to the next: when the next search's game is this one with more turns
/// played, the subtree under those turns starts it. Anything else (another game, other rules or komi, an
/// undo) starts empty.
#[derive(Debug, Default)]
pub struct KeptTree {
    key: Option<TreeKey>,
    tree: Option<Tree>,
    /// The bot's searches in a row of this game that found it lost (see [`PuctBot::run`]'s resignation).
    lost_in_a_row: u32,
}

#[derive(Clone, Debug, PartialEq)]
struct TreeKey {
    start: Grid,
    rules: Rules,
    setting: Setting,
    log: Vec<Action>,
}

impl TreeKey {
    fn of(game: &Game, setting: Setting) -> TreeKey {
        TreeKey {
            start: game.start_grid(),
            rules: *game.rules(),
            setting,
            log: game.log().to_vec(),
        }
    }
}

impl TreeKey {
    /// Whether `self`'s game goes on from `old`'s: the same start, rules and setting, and more turns.
    fn follows(&self, old: &TreeKey) -> bool {
        old.start == self.start
            && old.rules == self.rules
            && old.setting == self.setting
            && self.log.starts_with(&old.log)
    }
}

impl KeptTree {
    /// The kept subtree at `key`'s position, its root made index 0, when `key` follows the kept game.
    fn take(&mut self, key: &TreeKey) -> Option<Tree> {
        let old = self.key.take()?;
        let tree = self.tree.take()?;
        if !key.follows(&old) {
            return None;
        }
        let mut at: NodeId = 0;
        for action in &key.log[old.log.len()..] {
            let Action::Turn(_, mv) = action else {
                return None;
            };
            let node = &tree.nodes[at as usize];
            at = node.edges.iter().find(|e| e.mv == *mv)?.child;
            if at == 0 {
                return None;
            }
        }
        Some(tree.subtree(at))
    }
}

/// KataGo's policy optimism for the priors below the root.
const NODE_POLICY_OPTIMISM: f32 = 1.0;
/// Visits before the bot may resign.
const RESIGN_AFTER: u32 = 32;
/// The bot's own searches in a row that must find the game lost before it resigns.
const RESIGN_TURNS: u32 = 3;
/// Points of the board per point the bot must be behind to resign: a game lost by less is played out, since
/// the network's win rate of a close game (9×9 at komi 7.5, say) assumes an opponent who does not err.
const RESIGN_POINTS_PER_LEAD_POINT: f64 = 40.0;

pub struct PuctBot<'a> {
    network: &'a Network,
    cache: &'a EvalCache,
    config: PuctConfig,
    seed: u64,
}

/// The search under way: the tree behind its lock and what every thread reads.
struct Shared<'g> {
    tree: Mutex<Tree>,
    root: &'g Game,
    setting: Setting,
    scale: ScoreUtility,
    /// Visits begun this search.
    begun: AtomicU64,
    done: AtomicBool,
}

impl Shared<'_> {
    fn lock(&self) -> MutexGuard<'_, Tree> {
        // A thread that panicked mid-update is a bug the panic itself reports; the tree is still usable.
        self.tree.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A leaf on its way to the network: its line from the root and its position.
struct Leaf {
    path: Vec<NodeId>,
    game: Game,
}

impl<'a> PuctBot<'a> {
    pub fn new(
        network: &'a Network,
        cache: &'a EvalCache,
        config: PuctConfig,
        seed: u64,
    ) -> PuctBot<'a> {
        PuctBot {
            network,
            cache,
            config,
            seed,
        }
    }

    /// Searches the position of `game` (the player to move's turn) from an empty tree and chooses.
    pub fn search(&self, game: &Game, setting: Setting) -> Search {
        self.run(game, setting, None, Live::default())
    }

    /// [`PuctBot::search`] from the tree in `kept` when it fits, leaving this search's tree there.
    pub fn search_keeping(&self, game: &Game, setting: Setting, kept: &mut KeptTree) -> Search {
        self.run(game, setting, Some(kept), Live::default())
    }

    /// Searches as [`PuctBot::search`] does, with what `live` asks besides; the budget is the bot's, and
    /// with neither time nor visits set the search runs until `live.stop` says so.
    pub fn run(
        &self,
        game: &Game,
        setting: Setting,
        kept: Option<&mut KeptTree>,
        mut live: Live,
    ) -> Search {
        let started = Instant::now();
        let size = game.rules().size;
        let legal = game.legal_moves();
        let allowed: Vec<Move> = match live.only {
            Some(only) => legal
                .iter()
                .copied()
                .filter(|m| *m == Move::Pass || only.contains(m))
                .collect(),
            None => legal.clone(),
        };
        let key = TreeKey::of(game, setting);
        let lost_before = match &kept {
            Some(k) if k.key.as_ref().is_some_and(|old| key.follows(old)) => k.lost_in_a_row,
            _ => 0,
        };
        // A restricted root is not what the next move's search wants to start from.
        let reuse = live.only.is_none();
        let mut kept = kept;
        let mut tree = match (&mut kept, reuse) {
            (Some(k), true) => k.take(&key),
            _ => None,
        }
        .unwrap_or_else(|| Tree::new(game.to_move()));
        self.prepare_root(&mut tree, game, setting, &allowed);
        let root_score = {
            let root = &tree.nodes[0];
            match (&root.eval, root.stats.visits > 1) {
                (_, true) => root.stats.score,
                (Some(e), false) => e.score,
                (None, false) => 0.0,
            }
        };
        let scale = ScoreUtility::new(size.area(), root_score);
        tree.recompute(0, &scale);
        let visits_before = tree.nodes[0].stats.visits;
        let shared = Shared {
            tree: Mutex::new(tree),
            root: game,
            setting,
            scale,
            begun: AtomicU64::new(0),
            done: AtomicBool::new(allowed.len() <= 1),
        };
        let moves_ownership = live.moves_ownership;
        let analyze = |tree: &Tree| {
            self.analysis(tree, game, &scale, started, visits_before, moves_ownership)
        };
        let deadline = self.config.time.map(|t| started + t);
        let stop = live.stop;
        std::thread::scope(|s| {
            for k in 0..self.config.threads.max(1) {
                let shared = &shared;
                s.spawn(move || self.work(shared, k as u64, deadline, stop));
            }
            let mut next = started;
            loop {
                std::thread::sleep(Duration::from_millis(2));
                if shared.done.load(Ordering::Acquire) {
                    break;
                }
                if let Some((interval, report)) = &mut live.report
                    && Instant::now() >= next
                {
                    next = Instant::now() + *interval;
                    let a = analyze(&shared.lock());
                    report(&a);
                }
            }
        });
        let tree = shared.tree.into_inner().unwrap_or_else(|e| e.into_inner());
        let analysis = analyze(&tree);
        // The last report is the search's end: a GUI's last line lists first the move played.
        if let Some((_, report)) = &mut live.report {
            report(&analysis);
        }
        // Lost: the move to play wins less than the threshold, and leaves the bot behind by a point for every
        // 40 of the board's, after enough visits to say so.
        let lost = analysis.moves.first().is_some_and(|best| {
            self.config.resign > 0.0
                && tree.nodes[0].stats.visits >= RESIGN_AFTER
                && best.visits > 0
                && best.value < self.config.resign
                && best.score_mean <= -(size.area() as f64) / RESIGN_POINTS_PER_LEAD_POINT
        });
        let lost_in_a_row = if lost { lost_before + 1 } else { 0 };
        let decision = match analysis.moves.first() {
            _ if allowed.len() == 1 => Decision::Play(allowed[0]),
            Some(_) if lost_in_a_row >= RESIGN_TURNS => Decision::Resign,
            Some(best) => Decision::Play(best.mv),
            None => Decision::Play(Move::Pass),
        };
        if let (Some(k), true) = (kept, reuse) {
            k.key = Some(key);
            k.tree = Some(tree);
            k.lost_in_a_row = lost_in_a_row;
        }
        Search { decision, analysis }
    }

    /// Makes the root an evaluated node with the root's policy optimism, its edges the `allowed` moves
    /// (keeping the subtrees of those it had).
    fn prepare_root(&self, tree: &mut Tree, game: &Game, setting: Setting, allowed: &[Move]) {
        let root = &tree.nodes[0];
        let fresh = root.state != State::Expanded || root.optimism != GTP_POLICY_OPTIMISM;
        let same_moves = root.edges.len() == allowed.len();
        if !fresh && same_moves {
            return;
        }
        let e = self
            .evaluate(&[(game, setting, GTP_POLICY_OPTIMISM)])
            .remove(0);
        let old: Vec<Edge> = std::mem::take(&mut tree.nodes[0].edges);
        let root = &mut tree.nodes[0];
        if root.eval.is_none() {
            root.eval = Some(eval_of(
                &e,
                &ScoreUtility::new(game.rules().size.area(), f64::from(e.white_lead)),
            ));
        }
        root.state = State::Expanded;
        root.optimism = GTP_POLICY_OPTIMISM;
        root.edges = edges(&e, allowed);
        for edge in &mut root.edges {
            edge.child = old.iter().find(|o| o.mv == edge.mv).map_or(0, |o| o.child);
        }
    }

    /// The network's answers for (position, setting, policy optimism) triples, through the cache.
    fn evaluate(&self, positions: &[(&Game, Setting, f32)]) -> Vec<Arc<Evaluation>> {
        let queries: Vec<Query> = positions
            .iter()
            .map(|&(game, setting, optimism)| Query {
                game,
                rules: setting.rules,
                komi: setting.komi,
                symmetry: self.symmetry(game),
                policy_optimism: optimism,
            })
            .collect();
        evaluate_cached(self.network, self.cache, &queries)
    }

    /// The orientation a position is evaluated in: fixed per position (so that the cache finds it again),
    /// varied over positions.
    fn symmetry(&self, game: &Game) -> Symmetry {
        let h = splitmix(
            self.seed ^ game.board().hash() ^ ((game.turns() as u64) << 1) ^ game.to_move() as u64,
        );
        Symmetry((h % 8) as u8)
    }

    /// One thread's search: lines chosen under the lock, evaluated without it, recorded under it again.
    fn work(
        &self,
        shared: &Shared,
        thread: u64,
        deadline: Option<Instant>,
        stop: &(dyn Fn() -> bool + Sync),
    ) {
        let _ = thread;
        loop {
            let out_of_budget = stop()
                || deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .config
                    .visits
                    .is_some_and(|v| shared.begun.load(Ordering::Acquire) >= v);
            if out_of_budget || shared.done.load(Ordering::Acquire) {
                shared.done.store(true, Ordering::Release);
                return;
            }
            let leaves = self.gather(shared);
            if leaves.is_empty() {
                // Every line led to a leaf another thread is evaluating: let it finish.
                std::thread::sleep(Duration::from_micros(200));
                continue;
            }
            let positions: Vec<(&Game, Setting, f32)> = leaves
                .iter()
                .filter(|l| l.game.result().is_none())
                .map(|l| (&l.game, shared.setting, NODE_POLICY_OPTIMISM))
                .collect();
            let mut answers = self.evaluate(&positions).into_iter();
            let mut tree = shared.lock();
            for leaf in &leaves {
                let at = *leaf.path.last().expect("a line has its root");
                let node = &mut tree.nodes[at as usize];
                match leaf.game.result() {
                    Some(result) => {
                        let white = -f64::from(result.margin) / 2.0;
                        node.eval = Some(Eval {
                            winloss: match result.winner {
                                Some(Color::White) => 1.0,
                                Some(Color::Black) => -1.0,
                                None => 0.0,
                            },
                            score: white,
                            score_sq: white * white,
                            lead: white,
                            weight: 1.0,
                            ownership: Box::new([]),
                        });
                        node.state = State::Final;
                    }
                    None => {
                        let e = answers.next().expect("an answer for each position asked");
                        node.eval = Some(eval_of(&e, &shared.scale));
                        if leaf.game.phase() == Phase::Playing {
                            node.edges = edges(&e, &leaf.game.legal_moves());
                            node.optimism = NODE_POLICY_OPTIMISM;
                            node.state = State::Expanded;
                        } else {
                            node.state = State::Final;
                        }
                    }
                }
                if node.state == State::Final {
                    node.stats.visits = 1;
                }
                for &n in &leaf.path {
                    let v = &mut tree.nodes[n as usize].virtual_losses;
                    *v = v.saturating_sub(1);
                }
                for &n in leaf.path.iter().rev() {
                    tree.recompute(n, &shared.scale);
                }
            }
        }
    }

    /// Chooses up to `batch` lines under the lock, each to a fresh leaf (left pending, a virtual loss on its
    /// line). A line that ends in a final node is counted at once; one that meets a pending leaf ends the
    /// batch.
    fn gather(&self, shared: &Shared) -> Vec<Leaf> {
        let mut tree = shared.lock();
        let mut leaves = Vec::new();
        for _ in 0..self.config.batch.max(1) {
            if self
                .config
                .visits
                .is_some_and(|v| shared.begun.load(Ordering::Acquire) >= v)
            {
                break;
            }
            let mut game = shared.root.clone();
            let mut path: Vec<NodeId> = vec![0];
            let mut at: NodeId = 0;
            let end = loop {
                let node = &tree.nodes[at as usize];
                match node.state {
                    State::Expanded if !node.edges.is_empty() => {
                        let i = tree.select(at, at == 0, &shared.scale);
                        let mv = tree.nodes[at as usize].edges[i].mv;
                        let mut child = tree.nodes[at as usize].edges[i].child;
                        if child == 0 {
                            child = tree.nodes.len() as NodeId;
                            let to_move = tree.nodes[at as usize].to_move.opponent();
                            let mut fresh = Node::fresh(to_move);
                            fresh.pattern = tree.bias.pattern(&game, mv);
                            tree.nodes.push(fresh);
                            tree.nodes[at as usize].edges[i].child = child;
                        }
                        if game.play(game.to_move(), mv).is_err() {
                            // The edges are the legal moves of this very position; kept safe all the same.
                            break None;
                        }
                        path.push(child);
                        at = child;
                    }
                    State::Fresh => break Some(true),
                    State::Final => break Some(false),
                    State::Pending | State::Expanded => break None,
                }
            };
            match end {
                None => break,
                Some(false) => {
                    shared.begun.fetch_add(1, Ordering::AcqRel);
                    tree.nodes[at as usize].stats.visits += 1;
                    for &n in path.iter().rev() {
                        tree.recompute(n, &shared.scale);
                    }
                }
                Some(true) => {
                    shared.begun.fetch_add(1, Ordering::AcqRel);
                    tree.nodes[at as usize].state = State::Pending;
                    for &n in &path {
                        tree.nodes[n as usize].virtual_losses += 1;
                    }
                    leaves.push(Leaf { path, game });
                }
            }
        }
        leaves
    }

    /// The root's figures as the analysis commands report them, its moves in the order of preference.
    fn analysis(
        &self,
        tree: &Tree,
        game: &Game,
        scale: &ScoreUtility,
        started: Instant,
        visits_before: u32,
        moves_ownership: bool,
    ) -> Analysis {
        let size = game.rules().size;
        let root = &tree.nodes[0];
        let to_black = |white: &[f32]| white.iter().map(|o| -o).collect::<Vec<f32>>();
        // A move not visited yet is shown as the search would take it: the root's figures, its win rate
        // less the first-play reduction (as KataGo shows it).
        let unvisited = {
            let mut s = root.stats;
            let drop = tree.first_play_value(0, scale) - root.mine(s.utility);
            s.winloss = (s.winloss + root.mine(drop)).clamp(-1.0, 1.0);
            s.visits = 0;
            s
        };
        let moves: Vec<MoveStat> = tree
            .play_order()
            .into_iter()
            .map(|(i, _)| {
                let edge = &root.edges[i];
                let child = (edge.child != 0).then(|| &tree.nodes[edge.child as usize]);
                let stats = child
                    .map(|c| c.stats)
                    .filter(|s| s.visits > 0 && s.weight > 0.0)
                    .unwrap_or(unvisited);
                let (pv, pv_visits) = tree.principal_variation(edge);
                MoveStat {
                    mv: edge.mv,
                    visits: u64::from(stats.visits),
                    value: (1.0 + root.mine(stats.winloss)) / 2.0,
                    prior: f64::from(edge.prior),
                    score_mean: root.mine(stats.lead),
                    score_stdev: (stats.score_sq - stats.score * stats.score).max(0.0).sqrt(),
                    score_selfplay: root.mine(stats.score),
                    pv,
                    pv_visits,
                    ownership: match (moves_ownership, edge.child) {
                        (true, c) if c != 0 && stats.visits > 0 => to_black(&tree.ownership(c).0),
                        _ => Vec::new(),
                    },
                }
            })
            .collect();
        let (white, spread) = tree.ownership(0);
        let s = root.stats;
        Analysis {
            moves,
            playouts: u64::from(s.visits.saturating_sub(visits_before)),
            ownership: to_black(&white),
            ownership_stdev: spread,
            size,
            elapsed: started.elapsed(),
            to_move: game.to_move(),
            score_mean: root.mine(s.lead),
            score_stdev: (s.score_sq - s.score * s.score).max(0.0).sqrt(),
        }
    }
}

/// A node's evaluation from the network's answer.
fn eval_of(e: &Evaluation, scale: &ScoreUtility) -> Eval {
    let score = f64::from(e.white_score_selfplay);
    Eval {
        winloss: f64::from(e.white_win - e.white_loss),
        score,
        score_sq: f64::from(e.white_score_selfplay_sq),
        lead: f64::from(e.white_lead),
        weight: evaluation_weight(
            scale,
            score,
            f64::from(e.shortterm_winloss_error),
            f64::from(e.shortterm_score_error),
        ),
        ownership: e.white_ownership.clone().into_boxed_slice(),
    }
}

/// Edges for `moves` with their priors from `e`, most likely first.
fn edges(e: &Evaluation, moves: &[Move]) -> Vec<Edge> {
    let mut edges: Vec<Edge> = moves
        .iter()
        .map(|&mv| Edge {
            mv,
            prior: match mv {
                Move::Pass => e.pass,
                Move::Play(p) => e.policy[p.y as usize * e.width + p.x as usize].unwrap_or(0.0),
            },
            child: 0,
        })
        .collect();
    edges.sort_by(|a, b| b.prior.total_cmp(&a.prior));
    edges
}

/// A 64-bit mix of `x` (SplitMix64's finalizer).
pub(super) fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse() {
        let c: PuctConfig = "visits=200".parse().unwrap();
        assert_eq!((c.visits, c.time), (Some(200), None));
        let c: PuctConfig = "visits=200,time=2".parse().unwrap();
        assert_eq!(
            (c.visits, c.time),
            (Some(200), Some(Duration::from_secs(2)))
        );
        let c: PuctConfig = "".parse().unwrap();
        assert_eq!(c, PuctConfig::default());
        for bad in [
            "visits=0",
            "time=-1",
            "time=nan",
            "resign=0.9",
            "speed=3",
            "visits",
        ] {
            assert!(bad.parse::<PuctConfig>().is_err(), "{bad}");
        }
    }
}
