//! The search tree: an arena of nodes, their figures recomputed from their children (KataGo's way, so that
//! a child's value can be weighted by how sure it is), the choice of a child to explore and of the move to
//! play. Every value here is from White's side; the player to move at a node turns it to their own.

use tesuji_rules::{Color, Move};

use super::bias::{BiasTable, Correction, FREED_SHARE, PatternId, WEIGHT_EXPONENT};
use super::utility::{ScoreUtility, UTILITY_RADIUS, t3_cdf};

/// An index into the arena; 0 is the root, which is no node's child, so 0 as a child means "none yet".
pub type NodeId = u32;

/// What is known of a position without searching it: the network's figures, or a finished game's count.
#[derive(Clone, Debug)]
pub struct Eval {
    /// Win minus loss, −1 to 1.
    pub winloss: f64,
    /// The expected final score and its mean square.
    pub score: f64,
    pub score_sq: f64,
    pub lead: f64,
    /// How much this evaluation counts (see [`super::utility::evaluation_weight`]); 1 for a finished game.
    pub weight: f64,
    /// Per point, row by row from the top: +1 White's to −1 Black's; empty for a finished game.
    pub ownership: Box<[f32]>,
}

/// A node's figures: weighted means over its own evaluation and its children's subtrees.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub visits: u32,
    pub weight: f64,
    pub weight_sq: f64,
    pub winloss: f64,
    pub score: f64,
    pub score_sq: f64,
    pub lead: f64,
    pub utility: f64,
    pub utility_sq: f64,
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub mv: Move,
    pub prior: f32,
    pub child: NodeId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Not evaluated yet.
    Fresh,
    /// A thread is evaluating it.
    Pending,
    /// Evaluated, its moves its edges.
    Expanded,
    /// Evaluated with nothing to play: a finished game, or one past its playing phase. Every visit counts
    /// its evaluation again.
    Final,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub to_move: Color,
    pub state: State,
    pub eval: Option<Eval>,
    /// The policy optimism the edges' priors were made with.
    pub optimism: f32,
    /// Most likely first.
    pub edges: Vec<Edge>,
    pub stats: Stats,
    /// Threads on their way through this node, not back yet.
    pub virtual_losses: u32,
    /// The local pattern of the move that reached this node, when it has one ([`super::bias`]).
    pub pattern: Option<PatternId>,
    /// This node's share in its pattern's corrections, as last added.
    pub correction: Correction,
}

impl Node {
    pub fn fresh(to_move: Color) -> Node {
        Node {
            to_move,
            state: State::Fresh,
            eval: None,
            optimism: 0.0,
            edges: Vec::new(),
            stats: Stats::default(),
            virtual_losses: 0,
            pattern: None,
            correction: Correction::default(),
        }
    }

    /// A value from White's side turned to the side of this node's player to move.
    pub fn mine(&self, white: f64) -> f64 {
        if self.to_move == Color::White {
            white
        } else {
            -white
        }
    }
}

/// The search's constants (KataGo's GTP defaults).
const CPUCT: f64 = 1.0;
const CPUCT_LOG: f64 = 0.45;
const CPUCT_BASE: f64 = 500.0;
const STDEV_PRIOR: f64 = 0.40;
const STDEV_PRIOR_WEIGHT: f64 = 2.0;
const STDEV_SCALE: f64 = 0.85;
const FPU_REDUCTION: f64 = 0.2;
const ROOT_FPU_REDUCTION: f64 = 0.1;
const VALUE_WEIGHT_EXPONENT: f64 = 0.25;
const NOISE_PRUNE_SCALE: f64 = 0.15;
const LCB_STDEVS: f64 = 5.0;
const LCB_MIN_VISIT_SHARE: f64 = 0.15;

#[derive(Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    /// The corrections of the nodes' patterns.
    pub bias: BiasTable,
}

/// A child's figures as its parent weighs them.
struct Weighed {
    stats: Stats,
    /// Its utility for the parent's player to move.
    mine: f64,
    weight: f64,
    prior: f64,
}

impl Tree {
    pub fn new(to_move: Color) -> Tree {
        Tree {
            nodes: vec![Node::fresh(to_move)],
            bias: BiasTable::default(),
        }
    }

    /// The utility of a node's own evaluation, with this search's score scale.
    pub fn own_utility(eval: &Eval, scale: &ScoreUtility) -> f64 {
        eval.winloss + scale.of(eval.score, eval.score_sq)
    }

    /// Recomputes `at`'s figures from its evaluation and its children's: each child weighted by its weight,
    /// less when its value is far below its siblings' (by more than its few visits explain) or when it has
    /// taken far more than its prior's share while worse than the better moves before it.
    pub fn recompute(&mut self, at: NodeId, scale: &ScoreUtility) {
        let node = &self.nodes[at as usize];
        let Some(eval) = &node.eval else {
            return;
        };
        let raw_own = Tree::own_utility(eval, scale);
        let mut s = Stats::default();
        let mut add = |w: f64, wsq: f64, x: &Stats| {
            s.weight += w;
            s.weight_sq += wsq;
            s.winloss += w * x.winloss;
            s.score += w * x.score;
            s.score_sq += w * x.score_sq;
            s.lead += w * x.lead;
            s.utility += w * x.utility;
            s.utility_sq += w * x.utility_sq;
        };
        // A final node's visits all count its one evaluation; the caller counts them.
        let repeats = if node.state == State::Final {
            node.stats.visits.max(1)
        } else {
            1
        };
        let mine = Stats {
            visits: repeats,
            weight: eval.weight,
            weight_sq: eval.weight * eval.weight,
            winloss: eval.winloss,
            score: eval.score,
            score_sq: eval.score_sq,
            lead: eval.lead,
            utility: raw_own,
            utility_sq: raw_own * raw_own,
        };
        let mut children: Vec<Weighed> = node
            .edges
            .iter()
            .filter(|e| e.child != 0)
            .map(|e| (e, self.nodes[e.child as usize].stats))
            .filter(|(_, st)| st.visits > 0 && st.weight > 0.0)
            .map(|(e, st)| Weighed {
                stats: st,
                mine: node.mine(st.utility),
                weight: st.weight,
                prior: f64::from(e.prior).max(1e-30),
            })
            .collect();
        let visits = repeats + children.iter().map(|c| c.stats.visits).sum::<u32>();
        let original_total: f64 = children.iter().map(|c| c.weight).sum();
        let total = prune_noise(&mut children);
        downweight_bad_children(&mut children, total);
        let own = match (node.pattern, node.state) {
            (Some(pattern), State::Expanded) => {
                let children_utility = (total > 1e-10).then(|| {
                    children
                        .iter()
                        .map(|c| c.weight * c.stats.utility)
                        .sum::<f64>()
                        / total
                });
                raw_own + self.correct(at, pattern, raw_own, children_utility, original_total)
            }
            _ => raw_own,
        };
        let mine = Stats {
            utility: own,
            utility_sq: own * own,
            ..mine
        };
        let r = f64::from(repeats);
        add(mine.weight * r, mine.weight_sq * r, &mine);
        for c in &children {
            let scaling = c.weight / c.stats.weight;
            add(c.weight, scaling * scaling * c.stats.weight_sq, &c.stats);
        }
        for x in [
            &mut s.winloss,
            &mut s.score,
            &mut s.score_sq,
            &mut s.lead,
            &mut s.utility,
            &mut s.utility_sq,
        ] {
            *x /= s.weight;
        }
        s.visits = visits;
        self.nodes[at as usize].stats = s;
    }

    /// Records what the search under `at` found against its own evaluation (`children_utility` over
    /// `raw_own`, weighted by the children's weight to a power) in its pattern, and answers the bias its
    /// pattern now gives its own evaluation.
    fn correct(
        &mut self,
        at: NodeId,
        pattern: PatternId,
        raw_own: f64,
        children_utility: Option<f64>,
        children_weight: f64,
    ) -> f64 {
        let entry = &mut self.bias.entries[pattern as usize];
        if let Some(children_utility) = children_utility {
            let node = &mut self.nodes[at as usize];
            let weight = children_weight.powf(WEIGHT_EXPONENT);
            let now = Correction {
                delta_sum: (children_utility - raw_own) * weight,
                weight_sum: weight,
            };
            entry.delta_sum += now.delta_sum - node.correction.delta_sum;
            entry.weight_sum += now.weight_sum - node.correction.weight_sum;
            node.correction = now;
        }
        entry.bias()
    }

    /// The child edge of `at` to follow, for `at`'s player to move; `at` is expanded with edges.
    pub fn select(&self, at: NodeId, root: bool, scale: &ScoreUtility) -> usize {
        let node = &self.nodes[at as usize];
        let mut mass = 0.0;
        let mut total_weight = 0.0;
        for e in node.edges.iter().filter(|e| e.child != 0) {
            mass += f64::from(e.prior);
            total_weight += self.nodes[e.child as usize].stats.weight;
        }
        let explore = explore_scaling(total_weight, &node.stats);
        let fpu = self.fpu(node, root, mass, scale);
        let mut best = 0;
        let mut best_value = f64::NEG_INFINITY;
        for (i, e) in node.edges.iter().enumerate() {
            let (mut utility, mut weight, virtual_losses) = match e.child {
                0 => (fpu, 0.0, 0),
                c => {
                    let child = &self.nodes[c as usize];
                    let s = child.stats;
                    let u = if s.visits > 0 && s.weight > 0.0 {
                        node.mine(s.utility)
                    } else {
                        fpu
                    };
                    (u, s.weight, child.virtual_losses)
                }
            };
            if virtual_losses > 0 {
                let vl = f64::from(virtual_losses);
                let share = vl / (vl + weight.max(0.25));
                utility += (-UTILITY_RADIUS - utility) * share;
                weight += vl;
            }
            let value = utility + explore * f64::from(e.prior) / (1.0 + weight);
            if value > best_value {
                best_value = value;
                best = i;
            }
        }
        best
    }

    /// The value, for `at`'s player to move, its unvisited children are taken to have when chosen.
    pub fn first_play_value(&self, at: NodeId, scale: &ScoreUtility) -> f64 {
        let node = &self.nodes[at as usize];
        let mass: f64 = node
            .edges
            .iter()
            .filter(|e| e.child != 0)
            .map(|e| f64::from(e.prior))
            .sum();
        self.fpu(node, at == 0, mass, scale)
    }

    /// The value an unvisited child is taken to have, for `node`'s player to move: the parent's value,
    /// leaning on its own evaluation until the likely moves have been tried, less a reduction that grows
    /// with the prior already explored.
    fn fpu(&self, node: &Node, root: bool, mass: f64, scale: &ScoreUtility) -> f64 {
        let parent = node.mine(node.stats.utility);
        let own = node
            .eval
            .as_ref()
            .map_or(parent, |e| node.mine(Tree::own_utility(e, scale)));
        let lean = mass.powi(2).min(1.0);
        let base = lean * parent + (1.0 - lean) * own;
        let reduction = if root {
            ROOT_FPU_REDUCTION
        } else {
            FPU_REDUCTION
        };
        base - reduction * mass.sqrt()
    }

    /// The tree under `at` as a tree of its own, `at` its root.
    /// The patterns' corrections lose most of what the dropped nodes gave them, and the patterns no kept
    /// node has are dropped.
    pub fn subtree(&self, at: NodeId) -> Tree {
        let mut nodes: Vec<Node> = Vec::new();
        let mut kept = vec![false; self.nodes.len()];
        let mut queue = std::collections::VecDeque::from([(at, 0usize)]);
        nodes.push(self.nodes[at as usize].clone());
        kept[at as usize] = true;
        // Breadth first: each node copied, then its children's ids renumbered as they are copied.
        while let Some((old, new)) = queue.pop_front() {
            nodes[new].virtual_losses = 0;
            for (k, e) in self.nodes[old as usize].edges.iter().enumerate() {
                if e.child != 0 {
                    let id = nodes.len();
                    nodes.push(self.nodes[e.child as usize].clone());
                    kept[e.child as usize] = true;
                    nodes[new].edges[k].child = id as NodeId;
                    queue.push_back((e.child, id));
                }
            }
        }
        let mut bias = self.bias.clone();
        let mut used = vec![false; bias.entries.len()];
        for (node, &kept) in self.nodes.iter().zip(&kept) {
            let Some(p) = node.pattern else { continue };
            if kept {
                used[p as usize] = true;
            } else {
                let entry = &mut bias.entries[p as usize];
                entry.delta_sum -= FREED_SHARE * node.correction.delta_sum;
                entry.weight_sum -= FREED_SHARE * node.correction.weight_sum;
            }
        }
        let (bias, renumber) = bias.retain(&used);
        for node in &mut nodes {
            node.pattern = node.pattern.and_then(|p| renumber[p as usize]);
        }
        Tree { nodes, bias }
    }

    /// The line from `edge`: its move, then each time the most visited child's, with their visits.
    pub fn principal_variation(&self, edge: &Edge) -> (Vec<Move>, Vec<u64>) {
        let mut moves = Vec::new();
        let mut visits = Vec::new();
        let mut next = Some(edge);
        while let Some(e) = next {
            let Some(child) = (e.child != 0).then(|| &self.nodes[e.child as usize]) else {
                break;
            };
            if child.stats.visits == 0 || moves.len() >= 64 {
                break;
            }
            moves.push(e.mv);
            visits.push(u64::from(child.stats.visits));
            next = child
                .edges
                .iter()
                .filter(|c| c.child != 0)
                .max_by_key(|c| self.nodes[c.child as usize].stats.visits);
        }
        if moves.is_empty() {
            moves.push(edge.mv);
        }
        (moves, visits)
    }

    /// The ownership of the position at `at` over its subtree (each node's evaluation weighted by its share
    /// of the subtree's weight), White's +1 to Black's −1 per point, and its standard deviation. Empty when
    /// nothing in it has one.
    pub fn ownership(&self, at: NodeId) -> (Vec<f32>, Vec<f32>) {
        let mut sum: Vec<f64> = Vec::new();
        let mut sum_sq: Vec<f64> = Vec::new();
        let mut mass = 0.0;
        let mut stack = vec![(at, 1.0f64)];
        while let Some((id, share)) = stack.pop() {
            let node = &self.nodes[id as usize];
            let own = node.eval.as_ref().map_or(0.0, |e| e.weight);
            let children: Vec<(NodeId, f64)> = node
                .edges
                .iter()
                .filter(|e| e.child != 0)
                .map(|e| (e.child, self.nodes[e.child as usize].stats))
                .filter(|(_, s)| s.visits > 0 && s.weight > 0.0)
                .map(|(c, s)| (c, s.weight))
                .collect();
            let total = own + children.iter().map(|c| c.1).sum::<f64>();
            if total <= 0.0 {
                continue;
            }
            if let Some(e) = node.eval.as_ref().filter(|e| !e.ownership.is_empty()) {
                if sum.is_empty() {
                    sum = vec![0.0; e.ownership.len()];
                    sum_sq = vec![0.0; e.ownership.len()];
                }
                if sum.len() == e.ownership.len() {
                    let w = share * own / total;
                    for (k, &o) in e.ownership.iter().enumerate() {
                        sum[k] += w * f64::from(o);
                        sum_sq[k] += w * f64::from(o) * f64::from(o);
                    }
                    mass += w;
                }
            }
            // Shares too small to matter are left out; the mean is taken over what was counted.
            stack.extend(
                children
                    .into_iter()
                    .map(|(c, w)| (c, share * w / total))
                    .filter(|&(_, s)| s > 1e-4),
            );
        }
        if mass <= 0.0 {
            return (Vec::new(), Vec::new());
        }
        let mean: Vec<f32> = sum.iter().map(|x| (x / mass) as f32).collect();
        let spread = sum_sq
            .iter()
            .zip(&sum)
            .map(|(sq, x)| {
                let m = x / mass;
                ((sq / mass - m * m).max(0.0)).sqrt() as f32
            })
            .collect();
        (mean, spread)
    }

    /// The root's children in the order of preference to play: each edge index with the weight it is
    /// chosen by (0 for a move never visited). The most weighted child, those that took more visits than
    /// they deserve in hindsight reduced to what they deserve, and the best lower confidence bound among
    /// those with enough visits lifted above the others (KataGo's LCB move choice).
    pub fn play_order(&self) -> Vec<(usize, f64)> {
        let root = &self.nodes[0];
        let child = |e: &Edge| (e.child != 0).then(|| &self.nodes[e.child as usize]);
        let mut values: Vec<f64> = root
            .edges
            .iter()
            .map(|e| {
                child(e).map_or(0.0, |c| {
                    if c.stats.visits > 0 {
                        c.stats.weight
                    } else {
                        0.0
                    }
                })
            })
            .collect();
        let mut order: Vec<(usize, f64)> = Vec::new();
        if values.iter().all(|&v| v <= 0.0) {
            order = (0..root.edges.len()).map(|i| (i, 0.0)).collect();
            return order;
        }
        // The best before the bound: the most weighted, discounting a last visit and leaning on the prior.
        let goodness = |i: usize| {
            let n = child(&root.edges[i]).map_or(0.0, |c| f64::from(c.stats.visits));
            values[i] * (n - 1.0).max(0.0) / n.max(1.0) + 2.0 * f64::from(root.edges[i].prior)
        };
        let best = (0..values.len())
            .max_by(|&a, &b| goodness(a).total_cmp(&goodness(b)))
            .unwrap_or(0);
        let best_weight = values[best];
        // Moves that took more than their share in hindsight: the weight at which their selection value
        // would have stopped at the best child's.
        let total: f64 = values.iter().sum();
        let explore = explore_scaling(total, &root.stats);
        let utility_of =
            |i: usize| child(&root.edges[i]).map_or(0.0, |c| root.mine(c.stats.utility));
        let best_selection =
            utility_of(best) + explore * f64::from(root.edges[best].prior) / (1.0 + values[best]);
        for (i, value) in values.iter_mut().enumerate() {
            if i == best || *value <= 0.0 {
                continue;
            }
            let room = best_selection - utility_of(i);
            if room > 0.0 {
                let wanted = (explore * f64::from(root.edges[i].prior) / room - 1.0).max(0.0);
                *value = value.min(wanted).ceil();
            }
        }
        // The lower confidence bounds.
        let bounds: Vec<Option<(f64, f64)>> = root
            .edges
            .iter()
            .map(|e| child(e).and_then(|c| self.lcb(root, c)))
            .collect();
        let mut best_lcb: Option<(usize, f64)> = None;
        for (i, b) in bounds.iter().enumerate() {
            if let Some((lcb, _)) = b
                && values[i] > 0.0
                && values[i] >= LCB_MIN_VISIT_SHARE * best_weight
                && best_lcb.is_none_or(|(_, l)| *lcb > l)
            {
                best_lcb = Some((i, *lcb));
            }
        }
        if let Some((top, lcb)) = best_lcb {
            let mut lifted = values[top];
            for (i, b) in bounds.iter().enumerate() {
                if let (true, Some((other, radius))) = (i != top, b) {
                    let excess = lcb - other;
                    if excess >= 0.0 {
                        let factor = (radius + excess) / (radius + 0.2 * excess);
                        lifted = lifted.max(factor * factor * values[i]);
                    }
                }
            }
            values[top] = lifted;
        }
        order.extend(values.iter().copied().enumerate());
        order.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| root.edges[b.0].prior.total_cmp(&root.edges[a.0].prior))
        });
        order
    }

    /// A child's lower confidence bound of its utility for `parent`'s player to move, and its radius.
    fn lcb(&self, parent: &Node, child: &Node) -> Option<(f64, f64)> {
        let s = child.stats;
        if s.visits == 0 || s.weight <= 0.0 || s.weight_sq <= 0.0 {
            return None;
        }
        let mut weight = s.weight;
        let mut weight_sq = s.weight_sq;
        let ess = weight * weight / weight_sq;
        // A small prior that the spread is the largest a utility can have, for the first few visits.
        let prior = weight / (ess * ess * ess);
        let mut sq = s.utility_sq.max(s.utility * s.utility + 1e-8);
        sq = (sq * weight + (sq + UTILITY_RADIUS * UTILITY_RADIUS) * prior) / (weight + prior);
        weight += prior;
        weight_sq += prior * prior;
        let ess = weight * weight / weight_sq;
        let radius = LCB_STDEVS * ((sq - s.utility * s.utility).max(0.0) / ess).sqrt();
        Some((parent.mine(s.utility) - radius, radius))
    }
}

/// The exploration term's scale at a node whose children weigh `total_weight`: KataGo's growing constant,
/// times the square root of the weight, times how spread the node's utilities are (against a prior).
fn explore_scaling(total_weight: f64, stats: &Stats) -> f64 {
    let c = CPUCT + CPUCT_LOG * ((total_weight + CPUCT_BASE) / CPUCT_BASE).ln();
    let stdev = if stats.visits == 0 || stats.weight <= 1.0 {
        STDEV_PRIOR
    } else {
        let u2 = stats.utility * stats.utility;
        let sq = stats.utility_sq.max(u2);
        let prior = STDEV_PRIOR * STDEV_PRIOR;
        (((u2 + prior) * STDEV_PRIOR_WEIGHT + sq * stats.weight)
            / (STDEV_PRIOR_WEIGHT + stats.weight - 1.0)
            - u2)
            .max(0.0)
            .sqrt()
    };
    let factor = 1.0 + STDEV_SCALE * (stdev / STDEV_PRIOR - 1.0);
    c * (total_weight + 0.01).sqrt() * factor
}

/// Takes weight from children, in prior order, that are worse than the weighted mean of those before
/// them and hold more than twice their prior's share of those before them: noise, not a good move.
/// Answers the children's new total weight.
fn prune_noise(children: &mut [Weighed]) -> f64 {
    if children.len() <= 1 {
        return children.iter().map(|c| c.weight).sum();
    }
    let mut utility_sum = 0.0;
    let mut weight_sum = 0.0;
    let mut prior_sum = 0.0;
    for c in children.iter_mut() {
        if weight_sum > 0.0 && prior_sum > 0.0 {
            let gap = utility_sum / weight_sum - c.mine;
            if gap > 0.0 {
                let lenient_share = 2.0 * weight_sum * c.prior / prior_sum;
                if c.weight > lenient_share {
                    let excess = c.weight - lenient_share;
                    c.weight -= excess * (1.0 - (-gap / NOISE_PRUNE_SCALE).exp());
                }
            }
        }
        utility_sum += c.mine * c.weight;
        weight_sum += c.weight;
        prior_sum += c.prior;
    }
    weight_sum
}

/// Scales each child's weight by how likely its value is at least the weighted mean, to the power 0.25, on
/// a t distribution whose spread narrows with the child's weight; the total is kept.
fn downweight_bad_children(children: &mut [Weighed], total: f64) {
    if children.is_empty() || total <= 0.0 {
        return;
    }
    let mean = children.iter().map(|c| c.mine * c.weight).sum::<f64>() / total;
    let mut new_total = 0.0;
    for c in children.iter_mut() {
        let precision = 1.5 * c.weight.sqrt();
        let stdev = (1e-8 + 1.0 / precision).sqrt();
        let p = t3_cdf((c.mine - mean) / stdev) + 0.0001;
        c.weight *= p.powf(VALUE_WEIGHT_EXPONENT);
        new_total += c.weight;
    }
    if new_total > 0.0 {
        for c in children.iter_mut() {
            c.weight *= total / new_total;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node of White's win minus loss `winloss` at an even score, weight 1, with `children`.
    fn node(to_move: Color, winloss: f64, children: &[NodeId], pattern: Option<PatternId>) -> Node {
        let mut n = Node::fresh(to_move);
        n.state = State::Expanded;
        n.pattern = pattern;
        n.eval = Some(Eval {
            winloss,
            score: 0.0,
            score_sq: 0.0,
            lead: 0.0,
            weight: 1.0,
            ownership: Box::new([]),
        });
        n.edges = children
            .iter()
            .enumerate()
            .map(|(k, &child)| Edge {
                mv: Move::Play(tesuji_rules::Point::new(k as u8, 0)),
                prior: 0.5,
                child,
            })
            .collect();
        n
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn what_the_search_finds_under_a_node_moves_every_node_of_its_pattern() {
        let scale = ScoreUtility::new(81, 0.0);
        // The root; A and B reached by the same pattern 0; C under A, found better for White than A's own
        // evaluation said.
        let mut tree = Tree {
            nodes: vec![
                node(Color::Black, 0.0, &[1, 2], None),
                node(Color::White, 0.0, &[3], Some(0)),
                node(Color::White, 0.2, &[], Some(0)),
                node(Color::Black, 0.6, &[], None),
            ],
            bias: BiasTable::default(),
        };
        tree.bias.entries.push(Correction::default());
        tree.recompute(3, &scale);
        for _ in 0..2 {
            // Recomputing again replaces A's share; it does not add it twice.
            tree.recompute(1, &scale);
            let entry = tree.bias.entries[0];
            assert!(close(entry.delta_sum, 0.6) && close(entry.weight_sum, 1.0));
        }
        // A's own evaluation moved by 0.45 of the mean correction, then averaged with C's.
        assert!(close(tree.nodes[1].stats.utility, (0.27 + 0.6) / 2.0));
        // B, never searched below, moved the same.
        tree.recompute(2, &scale);
        assert!(close(tree.nodes[2].stats.utility, 0.2 + 0.27));

        // The next move B: A and C leave the tree and take 80% of their share with them.
        let kept = tree.subtree(2);
        assert_eq!(kept.bias.entries.len(), 1);
        let entry = kept.bias.entries[0];
        assert!(close(entry.delta_sum, 0.12) && close(entry.weight_sum, 0.2));
        assert_eq!(kept.nodes[0].pattern, Some(0));
        // The next move C: no node has the pattern any more.
        let kept = tree.subtree(3);
        assert!(kept.bias.entries.is_empty() && kept.nodes[0].pattern.is_none());
    }

    #[test]
    fn a_node_without_a_pattern_keeps_its_own_evaluation() {
        let scale = ScoreUtility::new(81, 0.0);
        let mut tree = Tree {
            nodes: vec![
                node(Color::Black, 0.0, &[1], None),
                node(Color::White, 0.6, &[], None),
            ],
            bias: BiasTable::default(),
        };
        tree.recompute(1, &scale);
        tree.recompute(0, &scale);
        assert!(close(tree.nodes[0].stats.utility, 0.3));
    }
}
