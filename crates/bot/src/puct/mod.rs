//! The network player: PUCT search with a KataGo network's policy as the priors and its value and score
//! as the evaluation of each new leaf (no playouts).
//!
//! ## The tree
//! An arena of nodes; a node's children (every legal move of its position, pass included) are made when it
//! is first evaluated, each with the network's probability for its move as its prior. A node keeps the sum of
//! the utilities of the evaluations below it, from the side of the player who moved into it.
//!
//! ## Choosing a line
//! At a node with `N` visits a child is chosen by `Q + c·P·√N / (1 + n)`, with KataGo's exploration
//! constant `c = 1 + 0.45·ln((N + 500) / 500)`. A child never visited takes the parent's value less a
//! reduction that grows with the prior already explored, `0.2·√(Σ P of visited children)` (KataGo's
//! first-play urgency; 0.1 at the root).
//!
//! ## Utility
//! Win minus loss, plus a score term `0.3 · (2/π) · atan((lead − c) / s)` with `c` the root's own lead at
//! the start of the search and `s` half the board's side: points matter most near the expected result
//! (KataGo's dynamic score utility).
//!
//! ## The move
//! The root child with the most visits (ties: the better value). Resigns when, after at least a hundred
//! visits, the chosen move's win rate is below the resignation threshold.
//!
//! Every move played is one of [`Game::legal_moves`], the root's children.

use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg32;
use tesuji_nn::katarules::KataRules;
use tesuji_nn::network::Network;
use tesuji_nn::output::{Evaluation, GTP_POLICY_OPTIMISM, Symmetry};
use tesuji_nn::position::{Query, evaluate};
use tesuji_rules::{Color, Game, Move, Phase};

use crate::mcts::Decision;

/// The search's budget and settings: `nn:time=S,visits=N,resign=R`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctConfig {
    /// Evaluations of the network a move, at most.
    pub visits: Option<u64>,
    /// Time a move, at most.
    pub time: Option<Duration>,
    /// The win rate under which the bot resigns (0 never).
    pub resign: f64,
}

impl Default for PuctConfig {
    /// One second a move.
    fn default() -> PuctConfig {
        PuctConfig {
            visits: None,
            time: Some(Duration::from_secs(1)),
            resign: 0.05,
        }
    }
}

/// A bad `nn:` setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad nn setting {0:?}: expected time=SECONDS, visits=N or resign=RATE")]
pub struct BadSetting(pub String);

fn number<T: FromStr + PartialOrd>(value: &str, range: RangeInclusive<T>) -> Option<T> {
    value.parse::<T>().ok().filter(|x| range.contains(x))
}

impl FromStr for PuctConfig {
    type Err = BadSetting;
    /// `time=S` (seconds, up to a day), `visits=N` (1 to 10⁹), `resign=R` (0 to 0.5), comma-separated; a
    /// count alone removes the default time.
    fn from_str(s: &str) -> Result<PuctConfig, BadSetting> {
        let mut config = PuctConfig::default();
        let mut timed = false;
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || BadSetting(part.to_string());
            let (key, value) = part.split_once('=').ok_or_else(bad)?;
            match key.trim() {
                "time" => {
                    let t = number(value.trim(), 0.001..=86_400.0).ok_or_else(bad)?;
                    config.time = Some(Duration::from_secs_f64(t));
                    timed = true;
                }
                "visits" => {
                    config.visits = Some(number(value.trim(), 1..=1_000_000_000).ok_or_else(bad)?)
                }
                "resign" => config.resign = number(value.trim(), 0.0..=0.5).ok_or_else(bad)?,
                _ => return Err(bad()),
            }
        }
        if config.visits.is_some() && !timed {
            config.time = None;
        }
        Ok(config)
    }
}

struct Node {
    mv: Move,
    prior: f32,
    visits: u32,
    /// Sum of utilities, from the side of the player who moved into this node.
    utility: f64,
    /// Sum of win minus loss, from the same side.
    winloss: f64,
    /// The first child and how many; none until evaluated.
    children: Option<(u32, u32)>,
    /// For a position with no move to make (a finished game, or one in its dead-stone phase): its value
    /// for the player to move there, win minus loss and lead, found once.
    fixed: Option<(f64, f64)>,
}

/// The figures of one root move after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMove {
    pub mv: Move,
    pub visits: u32,
    /// Win rate for the player to move, 0 to 1.
    pub win_rate: f64,
    pub prior: f32,
}

/// A search's answer: the move and what the root saw.
#[derive(Clone, Debug)]
pub struct Search {
    pub decision: Decision,
    pub moves: Vec<RootMove>,
    pub visits: u32,
}

pub struct PuctBot<'a> {
    network: &'a Network,
    config: PuctConfig,
    seed: u64,
}

/// What the search asks of a position: its rules as the network knows them and White's komi.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub rules: KataRules,
    pub komi: i32,
}

impl<'a> PuctBot<'a> {
    pub fn new(network: &'a Network, config: PuctConfig, seed: u64) -> PuctBot<'a> {
        PuctBot {
            network,
            config,
            seed,
        }
    }

    /// Searches the position of `game` (the player to move's turn) and chooses.
    pub fn search(&self, game: &Game, setting: Setting) -> Search {
        let started = Instant::now();
        let mut rng = Pcg32::seed_from_u64(self.seed ^ game.turns() as u64);
        let mover = game.to_move();
        let side = game.rules().size;
        let scale = (side.width().max(side.height()) as f64 / 2.0).max(1.0);
        let mut tree = vec![Node {
            mv: Move::Pass,
            prior: 1.0,
            visits: 0,
            utility: 0.0,
            winloss: 0.0,
            children: None,
            fixed: None,
        }];
        let root_moves = game.legal_moves();
        if root_moves.len() <= 1 {
            let only = root_moves.first().copied().unwrap_or(Move::Pass);
            return Search {
                decision: Decision::Play(only),
                moves: Vec::new(),
                visits: 0,
            };
        }
        // The score term is centred on the root's own lead, from its first evaluation.
        let first = self.evaluate(game, setting, &mut rng);
        let center = lead_for(&first, mover);
        self.expand(&mut tree, 0, game, &first);
        let mut visits = 0u64;
        loop {
            if self.config.visits.is_some_and(|v| visits >= v)
                || self.config.time.is_some_and(|t| started.elapsed() >= t)
            {
                break;
            }
            self.simulate(&mut tree, game, setting, center, scale, &mut rng);
            visits += 1;
        }
        let (first_child, count) = tree[0].children.unwrap_or((0, 0));
        let mut moves: Vec<RootMove> = (first_child..first_child + count)
            .map(|i| {
                let n = &tree[i as usize];
                RootMove {
                    mv: n.mv,
                    visits: n.visits,
                    win_rate: if n.visits > 0 {
                        (n.winloss / n.visits as f64 + 1.0) / 2.0
                    } else {
                        0.5
                    },
                    prior: n.prior,
                }
            })
            .collect();
        moves.sort_by(|a, b| {
            b.visits
                .cmp(&a.visits)
                .then(b.win_rate.total_cmp(&a.win_rate))
                .then(b.prior.total_cmp(&a.prior))
        });
        let best = &moves[0];
        let decision = if best.visits >= 100 && best.win_rate < self.config.resign {
            Decision::Resign
        } else {
            Decision::Play(best.mv)
        };
        Search {
            decision,
            moves,
            visits: visits as u32,
        }
    }

    fn evaluate(&self, game: &Game, setting: Setting, rng: &mut Pcg32) -> Evaluation {
        let query = Query {
            game,
            rules: setting.rules,
            komi: setting.komi,
            symmetry: Symmetry(rng.random_range(0..8)),
            policy_optimism: GTP_POLICY_OPTIMISM,
        };
        evaluate(self.network, &[query]).remove(0)
    }

    /// Gives node `at` one child a legal move, each with its prior from `e`.
    fn expand(&self, tree: &mut Vec<Node>, at: usize, game: &Game, e: &Evaluation) {
        let moves = game.legal_moves();
        let first = tree.len() as u32;
        for mv in &moves {
            let prior = match mv {
                Move::Pass => e.pass,
                Move::Play(p) => e.policy[p.y as usize * e.width + p.x as usize].unwrap_or(0.0),
            };
            tree.push(Node {
                mv: *mv,
                prior,
                visits: 0,
                utility: 0.0,
                winloss: 0.0,
                children: None,
                fixed: None,
            });
        }
        tree[at].children = Some((first, moves.len() as u32));
    }

    fn simulate(
        &self,
        tree: &mut Vec<Node>,
        root: &Game,
        setting: Setting,
        center: f64,
        scale: f64,
        rng: &mut Pcg32,
    ) {
        let mut game = root.clone();
        let mut path = vec![0usize];
        let mut at = 0usize;
        while let Some((first, count)) = tree[at].children {
            if count == 0 {
                break;
            }
            let child = select(tree, at, first, count, at == 0);
            if game.play(game.to_move(), tree[child].mv).is_err() {
                // The children are the legal moves of this very position; kept safe all the same.
                break;
            }
            path.push(child);
            at = child;
        }
        // The value of the leaf for the player to move there, from a finished game or the network.
        let to_move = game.to_move();
        let (winloss, lead) = match (tree[at].fixed, game.result()) {
            (Some(fixed), _) => fixed,
            (None, Some(result)) => {
                let wl = match result.winner {
                    Some(w) if w == to_move => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
                let margin = result.margin as f64 / 2.0;
                let value = (
                    wl,
                    if to_move == Color::Black {
                        margin
                    } else {
                        -margin
                    },
                );
                tree[at].fixed = Some(value);
                value
            }
            (None, None) => {
                let e = self.evaluate(&game, setting, rng);
                let wl = (e.white_win - e.white_loss) as f64;
                let value = (
                    if to_move == Color::White { wl } else { -wl },
                    lead_for(&e, to_move),
                );
                if game.phase() == Phase::Playing {
                    self.expand(tree, at, &game, &e);
                } else {
                    tree[at].fixed = Some(value);
                }
                value
            }
        };
        let root_mover = root.to_move();
        // The score term from the root mover's side, centred on the root's lead.
        let root_lead = if to_move == root_mover { lead } else { -lead };
        let score = 0.3 * std::f64::consts::FRAC_2_PI * ((root_lead - center) / scale).atan();
        let leaf_utility = winloss + if to_move == root_mover { score } else { -score };
        // Each node counts the value for the player who moved into it: the opponent of its player to move.
        for (depth, &node) in path.iter().enumerate().rev() {
            let steps_up = path.len() - 1 - depth;
            let sign = if steps_up % 2 == 0 { -1.0 } else { 1.0 };
            let n = &mut tree[node];
            n.visits += 1;
            n.utility += sign * leaf_utility;
            n.winloss += sign * winloss;
        }
    }
}

/// White's lead from the side of `color`.
fn lead_for(e: &Evaluation, color: Color) -> f64 {
    let lead = e.white_lead as f64;
    if color == Color::White { lead } else { -lead }
}

/// The child of `parent` to follow.
fn select(tree: &[Node], parent: usize, first: u32, count: u32, root: bool) -> usize {
    let p = &tree[parent];
    let n = p.visits.max(1) as f64;
    let c = 1.0 + 0.45 * ((n + 500.0) / 500.0).ln();
    // The parent's value for its player to move is the opposite of its own record.
    let parent_value = if p.visits > 0 {
        -p.utility / p.visits as f64
    } else {
        0.0
    };
    let explored: f64 = (first..first + count)
        .map(|i| &tree[i as usize])
        .filter(|ch| ch.visits > 0)
        .map(|ch| ch.prior as f64)
        .sum();
    let reduction = if root { 0.1 } else { 0.2 };
    let unvisited = parent_value - reduction * explored.sqrt();
    let sqrt_n = n.sqrt();
    let mut best = first as usize;
    let mut best_score = f64::NEG_INFINITY;
    for i in first..first + count {
        let ch = &tree[i as usize];
        let q = if ch.visits > 0 {
            ch.utility / ch.visits as f64
        } else {
            unvisited
        };
        let score = q + c * ch.prior as f64 * sqrt_n / (1.0 + ch.visits as f64);
        if score > best_score {
            best_score = score;
            best = i as usize;
        }
    }
    best
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
