//! The search's settings: [`MctsConfig`], its defaults, and its text form (`key=value,...`).

use std::ops::RangeInclusive;
use std::time::Duration;

use tesuji_rules::Size;

/// How hard the bot thinks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsConfig {
    /// Playouts per move (over all threads); `None`: only the time limits.
    pub playouts: Option<u64>,
    /// Time per move; `None`: only the playout limit. With neither, 10 000 playouts.
    pub time: Option<Duration>,
    /// Threads, sharing one tree unless [`MctsConfig::shared_tree`] is off (then one tree each). At least one.
    pub threads: usize,
    /// Resign when the best move wins less often than this after [`MctsConfig::resign_after`] playouts; 0 never.
    pub resign_below: f64,
    pub resign_after: u64,
    /// Visits of a node before its children are made.
    pub expand_after: u32,
    /// Nodes per tree at most (32 bytes each); a full tree stops growing and keeps searching.
    pub max_nodes: usize,
    /// RAVE's equivalence parameter `K`: the visits at which the node's own value and AMAF weigh the same.
    pub rave_equiv: f32,
    /// The weight of UCB's exploration term.
    pub explore: f32,
    /// How much more AMAF counts a move played soon after a node than one played at the end of the playout:
    /// a move first played at position `f` of a sequence of `len` moves, counted for a node at position `k`,
    /// weighs `1 + amaf_distance · (len − f) / (len − k + 1)` (Pachi's distance RAVE). 0: every move weighs 1.
    pub amaf_distance: f32,
    /// Prior visits of the learned move model ([`crate::features`]): a child whose model probability is `p`
    /// among `n` children starts with this many more visits at the value
    /// `0.5 + pattern_slope · ln(p·n)` (kept within 0.05 to 0.95). 0: no pattern prior. Default 20 (100
    /// games of self-play on 9×9 at 3000 playouts: 64% against none; 40 no better than 20). Not used where
    /// [`MctsConfig::pattern_wins`] is above 0, which by default it is on boards of 13×13 and more.
    pub pattern_prior: f32,
    /// How fast that value grows with the log of the move's relative probability (default 0.1: half or twice
    /// it lost in self-play).
    pub pattern_slope: f32,
    /// When above 0 (set, or by default on big boards), the learned model's prior takes Pachi's form instead:
    /// a child whose model probability among the plays is `p` (at least 0.001) starts with
    /// `pattern_wins · √p` more visits, all won, and [`MctsConfig::pattern_prior`] and
    /// [`MctsConfig::pattern_slope`] are not used. `None` (the default): [`PATTERN_WINS_BIG`] on boards of
    /// 13×13 and more, the log-value form on smaller ones.
    pub pattern_wins: Option<f32>,
    /// Whether the playouts fight for two liberties at the last move ([`policy::two_liberty_moves`]).
    pub playout_two_libs: bool,
    /// Whether each root move's own ownership is kept ([`MoveStat::ownership`]): a board of sums per root
    /// move, for analysis tools (KataGo's `movesOwnership`).
    pub moves_ownership: bool,
    /// Whether [`MctsBot::choose_keeping`] starts a search from the subtree that the previous search of the same
    /// game grew under the moves played since (default on).
    pub reuse: bool,
    /// Whether the threads share one tree (tree parallelism with a virtual loss) instead of growing one each.
    /// Default on: on 9×9 with two threads each it scored 55.5% against Pachi over 100 games, a tree each
    /// 48.0%. Off, a fixed playout count on several threads gives the same move from the same seed.
    pub shared_tree: bool,
}

impl Default for MctsConfig {
    /// One second per move on two threads.
    fn default() -> MctsConfig {
        MctsConfig {
            playouts: None,
            time: Some(Duration::from_secs(1)),
            threads: 2,
            resign_below: 0.05,
            resign_after: 3000,
            expand_after: 4,
            max_nodes: 1_500_000,
            rave_equiv: 3000.0,
            explore: 0.05,
            amaf_distance: 0.0,
            pattern_prior: 20.0,
            pattern_slope: 0.1,
            pattern_wins: None,
            playout_two_libs: false,
            moves_ownership: false,
            reuse: true,
            shared_tree: true,
        }
    }
}

impl MctsConfig {
    /// A fixed number of playouts, one thread, no time limit: reproducible.
    pub fn playouts(n: u64) -> MctsConfig {
        MctsConfig {
            playouts: Some(n),
            time: None,
            threads: 1,
            ..MctsConfig::default()
        }
    }

    /// [`MctsConfig::pattern_wins`] on a board of `size`: 0 for the log-value form.
    pub(super) fn pattern_wins_on(&self, size: Size) -> f32 {
        let by_size = if crate::policy::is_big(size) {
            PATTERN_WINS_BIG
        } else {
            0.0
        };
        self.pattern_wins.unwrap_or(by_size)
    }

    /// The learned model's prior (visits, wins) for a play whose strength is `rel` times the mean of the
    /// `plays` plays: Pachi's form when `pattern_wins` (from [`MctsConfig::pattern_wins_on`]) is above 0, else
    /// the log-value form.
    pub(super) fn model_prior(&self, rel: f32, plays: usize, pattern_wins: f32) -> (f32, f32) {
        if pattern_wins > 0.0 {
            // Won visits by the square root of the move's probability among the plays.
            let p = rel / plays as f32;
            if p < 0.001 {
                return (0.0, 0.0);
            }
            let won = pattern_wins * p.sqrt();
            (won, won)
        } else {
            let value = (0.5 + self.pattern_slope * rel.max(1e-9).ln()).clamp(0.05, 0.95);
            (self.pattern_prior, self.pattern_prior * value)
        }
    }
}

/// The default of [`MctsConfig::pattern_wins`] on boards of 13×13 and more: Pachi's own weight on 19×19.
/// Against Pachi on 19×19 at equal time it won 19 of 60 games (31.7%) where the log-value form won 10.5 of
/// 49 (21.4%), on the same days (docs/STRENGTH.md): 1.2 standard errors, a lean, not a proof. Not measured
/// on 13×13; small boards keep the log-value form that self-play chose there.
pub const PATTERN_WINS_BIG: f32 = 300.0;

/// Why a bot setting string is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad mcts setting {0:?}: expected playouts=N, time=SECONDS, threads=N, resign=RATE, explore=W, rave=K, drave=D, expand=N, patterns=W, slope=S, pwins=W, twolib=0|1, reuse=0|1 or shared=0|1"
)]
pub struct BadSetting(pub String);

impl std::str::FromStr for MctsConfig {
    type Err = BadSetting;

    /// Settings separated by commas, each `KEY=VALUE`: `playouts=N` (a fixed count; without `time`, no time
    /// limit), `time=SECONDS` (per move), `threads=N` (1 to 64), `resign=RATE` (0 to 1; 0 never resigns); for
    /// experiments, `explore=W` (UCB's exploration weight, 0 to 10), `rave=K` (RAVE's equivalence parameter),
    /// `drave=D` (AMAF's weight for plays soon after the node, 0 to 100: [`MctsConfig::amaf_distance`]),
    /// `expand=N` (visits before a node's children are made), `patterns=W` and `slope=S` (the learned move
    /// model's prior visits, 0 for none, and value slope), `pwins=W` (the model's prior as `W·√p` won visits
    /// instead), `twolib=1` (the playouts' fights of two liberties), `reuse=0` (every search from an empty
    /// tree), `shared=0` (a tree per thread). The empty string is the default: one second per move on two
    /// threads, sharing one tree.
    fn from_str(s: &str) -> Result<MctsConfig, BadSetting> {
        let mut c = MctsConfig::default();
        let (mut playouts, mut time) = (None, None);
        for item in s.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let bad = || BadSetting(item.to_string());
            let (key, value) = item.split_once('=').ok_or_else(bad)?;
            let value = value.trim();
            match key.trim().to_ascii_lowercase().as_str() {
                "playouts" => playouts = Some(number(value, 1..=u64::MAX).ok_or_else(bad)?),
                "time" => {
                    let t: f64 = value.parse().map_err(|_| bad())?;
                    if !(t.is_finite() && t > 0.0 && t <= 3600.0) {
                        return Err(bad());
                    }
                    time = Some(Duration::from_secs_f64(t));
                }
                "threads" => c.threads = number(value, 1..=64).ok_or_else(bad)?,
                "resign" => c.resign_below = number(value, 0.0..=1.0).ok_or_else(bad)?,
                "explore" => c.explore = number(value, 0.0..=10.0).ok_or_else(bad)?,
                "drave" => c.amaf_distance = number(value, 0.0..=100.0).ok_or_else(bad)?,
                "rave" => c.rave_equiv = number(value, 0.0..=1e9).ok_or_else(bad)?,
                "patterns" => c.pattern_prior = number(value, 0.0..=10_000.0).ok_or_else(bad)?,
                "slope" => c.pattern_slope = number(value, 0.0..=1.0).ok_or_else(bad)?,
                "pwins" => c.pattern_wins = Some(number(value, 0.0..=10_000.0).ok_or_else(bad)?),
                "twolib" => c.playout_two_libs = switch(value).ok_or_else(bad)?,
                "reuse" => c.reuse = switch(value).ok_or_else(bad)?,
                "shared" => c.shared_tree = switch(value).ok_or_else(bad)?,
                "expand" => c.expand_after = number(value, 1..=10_000).ok_or_else(bad)?,
                _ => return Err(bad()),
            }
        }
        match (playouts, time) {
            (None, None) => {}
            (p, t) => {
                c.playouts = p;
                c.time = t;
            }
        }
        Ok(c)
    }
}

/// A setting that is on (`1`) or off (`0`).
pub(super) fn switch(value: &str) -> Option<bool> {
    match value {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

/// A setting's number when it parses and lies in `range` (never NaN, which no range contains).
pub(super) fn number<T: std::str::FromStr + PartialOrd>(
    value: &str,
    range: RangeInclusive<T>,
) -> Option<T> {
    value.parse::<T>().ok().filter(|x| range.contains(x))
}
