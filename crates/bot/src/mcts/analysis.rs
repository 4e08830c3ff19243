//! What a search found: the decision, and each root move's visits and value.

use std::time::Duration;

use tesuji_rules::{Color, Grid, Move, Size};

/// What the bot does on its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Play(Move),
    Resign,
}

/// The search's figures for one move of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStat {
    pub mv: Move,
    pub visits: u64,
    /// Mean result for the player to move, 0 to 1.
    pub value: f64,
    /// The prior's share of this move among the root's moves (their prior wins, normalized), 0 to 1.
    pub prior: f64,
    /// The mean final margin of the playouts through this move, in points (komi included), for the player to
    /// move, and its standard deviation; 0 without visits.
    pub score_mean: f64,
    pub score_stdev: f64,
    /// The expected final score, for the player to move, where the search tells it apart from the lead that
    /// `score_mean` holds (the network's self-play score); else `score_mean`.
    pub score_selfplay: f64,
    /// The principal variation from this move: the move, then the most visited child at each level (in the
    /// thread's tree where this move has the most visits).
    pub pv: Vec<Move>,
    /// The visits of each move of `pv` in that tree.
    pub pv_visits: Vec<u64>,
    /// Per point in row-major order, over the playouts through this move: Black's share of their ends minus
    /// White's, −1 to 1 (0 without visits). Empty unless [`MctsConfig::moves_ownership`] asks for it.
    pub ownership: Vec<f32>,
}

impl MoveStat {
    /// A lower confidence bound of the value (a normal approximation, two standard errors below), 0 to 1: what
    /// Leela Zero's and KataGo's `lcb` report. 0 without visits.
    pub fn lcb(&self) -> f64 {
        if self.visits == 0 {
            return 0.0;
        }
        let v = self.value;
        let n = self.visits as f64;
        (v - 2.0 * (v * (1.0 - v) / n).sqrt() - 1.0 / n).clamp(0.0, 1.0)
    }
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The root's moves, most visited first.
    pub moves: Vec<MoveStat>,
    pub playouts: u64,
    /// Per point in row-major order: Black's share of the playouts' ends minus White's, −1 to 1.
    pub ownership: Vec<f32>,
    /// Per point: the standard deviation of its owner at the playouts' ends (1 Black, −1 White, 0 nobody).
    pub ownership_stdev: Vec<f32>,
    pub size: Size,
    pub elapsed: Duration,
    /// The player to move at the root.
    pub to_move: Color,
    /// The mean final margin of all the playouts, in points (komi included), for the player to move, and its
    /// standard deviation.
    pub score_mean: f64,
    pub score_stdev: f64,
}

impl Analysis {
    /// The most visited move.
    pub fn best(&self) -> Option<&MoveStat> {
        self.moves.first()
    }

    /// The figures of a move, if the root has it.
    pub fn stat(&self, mv: Move) -> Option<&MoveStat> {
        self.moves.iter().find(|s| s.mv == mv)
    }

    /// Whether the playouts agree on the owner of every point (|ownership| ≥ 0.95), except, when `dame_count`
    /// is false (territory scoring), empty points that are nobody's (|ownership| ≤ 0.2).
    pub fn finished(&self, grid: &Grid, dame_count: bool) -> bool {
        self.ownership.iter().enumerate().all(|(k, &o)| {
            o.abs() >= 0.95
                || (!dame_count && o.abs() <= 0.2 && grid.get(self.size.point_at(k)).is_none())
        })
    }
}
