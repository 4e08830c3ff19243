//! The engine: one [`Position`], the bot, and a handler per command.
//!
//! Every handler checks all of its arguments before it changes anything, so a failed command leaves the engine
//! exactly as it was. Arguments are strict: a command with too few or too many arguments fails (`play` with a
//! missing colour or vertex says `invalid color or coordinate`, as GNU Go does).

use std::io::{self, Write};
use std::str::FromStr;

use tesuji_bot::estimate;
use tesuji_bot::mcts::{Analysis, Decision, KeptTrees, MctsBot, MctsConfig};
use tesuji_bot::puct::{KeptTree, Live, PuctBot, PuctConfig, Setting};
use tesuji_bot::simple::SimpleBot;
use tesuji_clock::{GtpTimeLeft, Remaining, SECOND_MS, TimeControl};
use tesuji_nn::cache::EvalCache;
use tesuji_rules::handicap::fixed_handicap_points;
use tesuji_rules::spec::MAX_KOMI_POINTS;
use tesuji_rules::{
    Board, Color, EndRule, Grid, Komi, Move, Placement, Point, Preset, Rules, Size,
};

use crate::analyze::{Flavor, Request, info_line};
use crate::error::GtpError;
use crate::katago;
use crate::position::Position;
use crate::protocol;
use crate::sgfio;

/// Which bot answers `genmove`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BotKind {
    /// The stopgap of `tesuji_bot::simple`.
    Simple,
    /// The tree search of `tesuji_bot::mcts` with its budget.
    Mcts(MctsConfig),
    /// The network search of `tesuji_bot::puct`; needs a network (`EngineConfig::network`).
    Nn(PuctConfig),
}

impl BotKind {
    pub const NAMES: [&'static str; 3] = ["simple", "mcts", "nn"];
}

/// An unknown bot name or a bad setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown bot {0:?}; expected simple, mcts with optional settings as in \
     mcts:playouts=N,time=SECONDS,threads=N,resign=RATE, or nn as in \
     nn:visits=N,time=SECONDS,threads=N,batch=N,resign=RATE"
)]
pub struct UnknownBot(pub String);

impl FromStr for BotKind {
    type Err = UnknownBot;
    /// `simple`, `mcts` (one second per move on two threads), or `mcts:SETTINGS` (see
    /// [`MctsConfig`]'s `FromStr`).
    fn from_str(s: &str) -> Result<BotKind, UnknownBot> {
        let t = s.trim();
        let (name, settings) = t.split_once(':').unwrap_or((t, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "simple" if settings.is_empty() => Ok(BotKind::Simple),
            "mcts" => settings
                .parse()
                .map(BotKind::Mcts)
                .map_err(|_| UnknownBot(s.to_string())),
            "nn" => settings
                .parse()
                .map(BotKind::Nn)
                .map_err(|_| UnknownBot(s.to_string())),
            _ => Err(UnknownBot(s.to_string())),
        }
    }
}

/// How the engine starts.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// The rules of every game; `boardsize` and `komi` change its size and komi, `clear_board` keeps them.
    pub rules: Rules,
    pub bot: BotKind,
    /// Seed of the bot's random choices.
    pub seed: u64,
    /// The neural network of `kata-raw-nn`, when one was loaded.
    pub network: Option<std::sync::Arc<tesuji_nn::network::Network>>,
}

impl Default for EngineConfig {
    /// Chinese rules (komi 7.5) on 19×19, the simple bot, seed 0.
    fn default() -> EngineConfig {
        EngineConfig {
            rules: Rules::preset(Preset::Chinese),
            bot: BotKind::Simple,
            seed: 0,
            network: None,
        }
    }
}

/// Time settings as received; stored for a later clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeSettings {
    None,
    /// GTP's `time_settings`: main time, byo-yomi time, stones per byo-yomi period (Canadian).
    Canadian {
        main: u32,
        byo: u32,
        stones: u32,
    },
    Absolute {
        main: u32,
    },
    /// KGS's Japanese byo-yomi.
    Byoyomi {
        main: u32,
        period: u32,
        periods: u32,
    },
}

/// The answer to `version`. Its first word is the Leela Zero version whose analysis output ours follows
/// (`lz-analyze`'s `info move ... visits ... winrate ... prior ... lcb ... order ... pv ...`, Leela Zero 0.17's),
/// and the rest says whose it is. Lizzie 0.7.4 reads the first word as Leela Zero's version unless the `name`
/// starts with `KataGo`: it opens a blocking dialog below 0.15, and a word it cannot read as `A.B` (B a whole
/// number) stops its reading of the engine. KataGo, which Lizzie knows by its name, answers its own version;
/// not being KataGo, we say which of Leela Zero's protocols we speak, and then our own version.
pub const VERSION: &str = concat!(
    "0.17 (Leela Zero 0.17's analysis output; tesuji ",
    env!("CARGO_PKG_VERSION"),
    ")"
);

/// Every command, as `list_commands` prints them.
pub const COMMANDS: [&str; 47] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "loadsgf",
    "printsgf",
    "time_settings",
    "time_left",
    "is_legal",
    "all_legal",
    "captures",
    "kgs-rules",
    "kgs-genmove_cleanup",
    "kgs-time_settings",
    "kata-get-rules",
    "kata-set-rules",
    "tesuji-rules",
    "tesuji-why",
    "set_position",
    "lz-analyze",
    "lz-genmove_analyze",
    "kata-analyze",
    "kata-genmove_analyze",
    "analyze",
    "genmove_analyze",
    "gogui-analyze_commands",
    "tesuji-ownership",
    "tesuji-pv",
    "tesuji-score",
    "kata-list-params",
    "kata-get-param",
    "kata-set-param",
    "kata-raw-nn",
];

/// GoGui's analyze commands (`type/label/command`): the ownership as numbers on the board, the principal
/// variation, and the score estimate.
const GOGUI_ANALYZE: &str = "dboard/Ownership/tesuji-ownership
var/Principal variation/tesuji-pv
string/Score estimate/tesuji-score";

/// The search settings `kata-get-param`/`kata-set-param` know, as KataGo names them.
const PARAMS: [&str; 3] = ["maxPlayouts", "maxTime", "numSearchThreads"];

/// The analysis commands, whose answers stream (see [`Engine::answer_line`]): each with the form of its lines
/// and whether it plays the move it ends with.
fn analysis_command(name: &str) -> Option<(Flavor, bool)> {
    match name {
        "lz-analyze" => Some((Flavor::Leela, false)),
        "lz-genmove_analyze" => Some((Flavor::Leela, true)),
        "kata-analyze" => Some((Flavor::Kata, false)),
        "kata-genmove_analyze" => Some((Flavor::Kata, true)),
        "analyze" => Some((Flavor::Sabaki, false)),
        "genmove_analyze" => Some((Flavor::Sabaki, true)),
        _ => None,
    }
}

/// A GTP engine.
pub struct Engine {
    pos: Position,
    bot: SimpleBot,
    bot_kind: BotKind,
    /// The search of the analysis commands when the bot is the simple one.
    analysis_config: MctsConfig,
    /// The seed of the search bot and of the dead-stone estimate.
    seed: u64,
    time: TimeSettings,
    time_left: [Option<(i64, u32)>; 2],
    quit: bool,
    /// The handicap placement of the rules as chosen, restored when the board's handicap is cleared.
    placement: Placement,
    /// The rules' own handicap (`tesuji gtp --rules`, `tesuji-rules SPEC` with `handicap=`): every new board
    /// starts with it, as the placement says. A handicap set up by `fixed_handicap` and the like is the
    /// board's, cleared with it.
    handicap: u8,
    /// The search bot's trees from its last move, to start the next one from (see [`KeptTrees`]).
    kept: KeptTrees,
    /// Rules set while the board held a game they cannot take over (a handicap after moves, or a played move
    /// they forbid): the next board (`clear_board`, `boardsize`) starts with them, handicap and placement
    /// included. Any rules that take effect at once replace them.
    next_rules: Option<Rules>,
    /// The network `kata-raw-nn` evaluates with.
    network: Option<std::sync::Arc<tesuji_nn::network::Network>>,
    /// The network search's tree from its last move (see [`KeptTree`]).
    nn_kept: KeptTree,
    /// The network's evaluations, shared by every search of this engine.
    nn_cache: EvalCache,
}

/// Evaluations the engine keeps: about 90 MB on 19×19.
const NN_CACHE_ENTRIES: usize = 20_000;

/// An analysis command's request, the player analyzed, the game from their side, the playout search's
/// settings and the root's moves when a list restricts them.
type AnalysisSetup = (
    Request,
    Color,
    tesuji_rules::Game,
    MctsConfig,
    Option<Vec<Move>>,
);

/// The answer to a rules command that takes effect with the next board.
pub const RULES_NEXT_GAME: &str = "rules apply from the next game";

type Reply = Result<String, GtpError>;

fn want(args: &[&str], n: usize) -> Result<(), GtpError> {
    if args.len() == n {
        Ok(())
    } else {
        Err(GtpError::WrongArguments)
    }
}

fn vertex_arg(s: &str, size: Size) -> Option<Move> {
    if s.eq_ignore_ascii_case("pass") {
        return Some(Move::Pass);
    }
    Point::from_gtp(s, size).map(Move::Play)
}

/// `COLOR VERTEX` as `play` and `is_legal` take them.
fn move_args(args: &[&str], size: Size) -> Result<(Color, Move), GtpError> {
    match args {
        [c, v] => Ok((
            c.parse::<Color>().map_err(|_| GtpError::InvalidMove)?,
            vertex_arg(v, size).ok_or(GtpError::InvalidMove)?,
        )),
        [_, _, _, ..] => Err(GtpError::WrongArguments),
        _ => Err(GtpError::InvalidMove),
    }
}

fn one_color(args: &[&str]) -> Result<Color, GtpError> {
    want(args, 1)?;
    args[0].parse::<Color>().map_err(|_| GtpError::InvalidColor)
}

/// A whole number of digits only (GTP's `int`: no sign).
fn uint(s: &str) -> Option<u32> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// GTP's `float` for komi, read exactly: `[+-]digits[.digits]`, a whole or half number within ±1000 points.
/// Returns half-points.
pub fn parse_komi(s: &str) -> Result<i32, GtpError> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !digits(whole) || !digits(frac) {
        return Err(GtpError::KomiNotFloat);
    }
    let whole = whole.trim_start_matches('0');
    if whole.len() > 4 {
        return Err(GtpError::KomiNotHalf);
    }
    let w: i32 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| GtpError::KomiNotFloat)?
    };
    let frac = frac.trim_end_matches('0');
    let half = match frac {
        "" => 0,
        "5" => 1,
        _ => return Err(GtpError::KomiNotHalf),
    };
    let h = 2 * w + half;
    if h > 2 * MAX_KOMI_POINTS as i32 {
        return Err(GtpError::KomiNotHalf);
    }
    Ok(if neg { -h } else { h })
}

fn vertices(points: &[Point], size: Size) -> String {
    points
        .iter()
        .map(|p| p.to_gtp(size))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Free handicap points chosen by the engine: the fixed points when the board has them, then, one by one, the
/// empty point farthest from the stones already placed (ties: nearest to the third or fourth line, then the
/// first in row-major order).
fn free_handicap_points(size: Size, n: usize) -> Vec<Point> {
    let fixed = (2..=9u8)
        .rev()
        .filter(|&k| k as usize <= n)
        .find_map(|k| fixed_handicap_points(size, k))
        .unwrap_or_default();
    let mut chosen = fixed;
    let area = size.area();
    let mut dist = vec![i32::MAX; area];
    let mut taken = vec![false; area];
    let mark = |p: Point, dist: &mut Vec<i32>, taken: &mut Vec<bool>| {
        taken[size.index(p)] = true;
        for q in size.points() {
            let (dx, dy) = (q.x as i32 - p.x as i32, q.y as i32 - p.y as i32);
            let d = &mut dist[size.index(q)];
            *d = (*d).min(dx * dx + dy * dy);
        }
    };
    for &p in &chosen {
        mark(p, &mut dist, &mut taken);
    }
    let line = |v: u8, side: u8| {
        let edge = v.min(side - 1 - v) as i32;
        let target = match side {
            0..=6 => (side as i32 - 1) / 2,
            7..=11 => 2,
            _ => 3,
        };
        (edge - target).abs()
    };
    while chosen.len() < n {
        let best = size
            .points()
            .filter(|&p| !taken[size.index(p)])
            .max_by_key(|&p| {
                (
                    dist[size.index(p)],
                    -(line(p.x, size.width()) + line(p.y, size.height())),
                    -(size.index(p) as i32),
                )
            });
        let Some(p) = best else { break };
        chosen.push(p);
        mark(p, &mut dist, &mut taken);
    }
    chosen.sort_by_key(|p| (p.y, p.x));
    chosen
}

impl Engine {
    pub fn new(config: EngineConfig) -> Engine {
        // The command line refuses a handicap that does not fit its board (`Position::new`); a caller that
        // passes one anyway gets the board without it.
        let pos = Position::new(config.rules).unwrap_or_else(|_| {
            let mut r = config.rules;
            r.handicap = 0;
            Position::with_start(r, Grid::new(r.size), Color::Black)
                .expect("an empty board of the rules' size is a valid start")
        });
        let handicap = pos.rules().handicap;
        Engine {
            pos,
            bot: SimpleBot::new(config.seed),
            bot_kind: config.bot,
            analysis_config: MctsConfig::default(),
            seed: config.seed,
            time: TimeSettings::None,
            time_left: [None, None],
            quit: false,
            placement: config.rules.placement,
            handicap,
            kept: KeptTrees::default(),
            next_rules: None,
            network: config.network,
            nn_kept: KeptTree::default(),
            nn_cache: EvalCache::new(NN_CACHE_ENTRIES),
        }
    }

    /// Whether `quit` was received.
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// The rules in force (size and komi included).
    pub fn rules(&self) -> &Rules {
        self.pos.rules()
    }

    /// The rules the next board starts with, when a rules command set some that the current game could not
    /// take (see [`RULES_NEXT_GAME`]).
    pub fn next_rules(&self) -> Option<&Rules> {
        self.next_rules.as_ref()
    }

    /// The current position.
    pub fn grid(&self) -> Grid {
        self.pos.grid()
    }

    /// The time settings received.
    pub fn time_settings(&self) -> &TimeSettings {
        &self.time
    }

    /// Answers one raw input line: the full response (ending with its blank line), or `None` for a line that
    /// holds no command.
    pub fn process_line(&mut self, raw: &[u8]) -> Option<String> {
        let line = protocol::clean(raw);
        match protocol::split(&line) {
            Ok(None) => None,
            Err((id, e)) => Some(protocol::response(id, &Err(e))),
            Ok(Some(cmd)) => {
                let result = self.execute(cmd.name, &cmd.args);
                Some(protocol::response(cmd.id, &result))
            }
        }
    }

    /// Answers one raw input line on `out`, as [`Engine::process_line`] does; an analysis command streams its
    /// answer: `=` (with the id), a line of analysis every interval, and, for the `*-analyze` ones, a blank
    /// line once `stop` says a new line of input came (the search stops within a few playouts); the
    /// `*genmove_analyze` ones search as `genmove` does and end with `play VERTEX` (or `play resign`).
    pub fn answer_line(
        &mut self,
        raw: &[u8],
        out: &mut dyn Write,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> io::Result<()> {
        let line = protocol::clean(raw);
        if let Ok(Some(cmd)) = protocol::split(&line)
            && let Some((flavor, genmove)) = analysis_command(cmd.name)
        {
            return self.analyze(cmd.id, flavor, genmove, &cmd.args, out, stop);
        }
        if let Some(reply) = self.process_line(raw) {
            out.write_all(reply.as_bytes())?;
            out.flush()?;
        }
        Ok(())
    }

    /// What an analysis command searches: its request, the player analyzed, the game from their side, the
    /// search's settings (the bot's budget for a genmove or when `bounded`, else until stopped) and the root's
    /// moves when a list restricts them.
    fn analysis_setup(
        &self,
        flavor: Flavor,
        genmove: bool,
        bounded: bool,
        args: &[&str],
    ) -> Result<AnalysisSetup, GtpError> {
        let request = Request::parse(flavor, args, self.pos.size())?;
        let color = request.color.unwrap_or_else(|| self.pos.to_move());
        let game = self.pos.game_for(color);
        if game.to_move() != color {
            return Err(GtpError::NoTurn(format!("{color} cannot move now")));
        }
        // A genmove ends by itself too, whatever input comes meanwhile.
        let mut config = self.bounded_config();
        if genmove {
            if let Some(budget) = self.think_time(color) {
                config.time = Some(budget);
            }
        } else if !bounded {
            config.playouts = None;
            config.time = None;
        }
        config.moves_ownership = request.moves_ownership && flavor == Flavor::Kata;
        let only = request.root_moves(color, &game.legal_moves());
        Ok((request, color, game, config, only))
    }

    /// Plays the move a `*genmove_analyze` search found for `color` (or resigns, as `genmove` would): the text
    /// after `play`.
    fn play_analyzed(&mut self, color: Color, analysis: &Analysis, config: &MctsConfig) -> String {
        match analysis.best() {
            Some(best)
                if config.resign_below > 0.0
                    && best.value < config.resign_below
                    && analysis.playouts >= config.resign_after =>
            {
                "resign".to_string()
            }
            Some(best) => {
                let mv = if self.pos.play(color, best.mv).is_ok() {
                    best.mv
                } else {
                    let _ = self.pos.play(color, Move::Pass);
                    Move::Pass
                };
                mv.to_gtp(self.pos.size())
            }
            None => {
                let _ = self.pos.play(color, Move::Pass);
                "pass".to_string()
            }
        }
    }

    /// The network search's settings when the bot is the network's and a network is loaded: the bot's
    /// budget, under a clock its time for a genmove, and with no limit for an analysis not `bounded`.
    fn nn_config(
        &self,
        genmove: bool,
        bounded: bool,
        color: Color,
    ) -> Option<(std::sync::Arc<tesuji_nn::network::Network>, PuctConfig)> {
        let BotKind::Nn(mut config) = self.bot_kind else {
            return None;
        };
        let network = self.network.clone()?;
        if genmove {
            if let Some(budget) = self.think_time(color) {
                config.time = Some(budget);
            }
        } else if !bounded {
            config.visits = None;
            config.time = None;
        }
        if (genmove || bounded) && config.visits.is_none() && config.time.is_none() {
            config.time = PuctConfig::default().time;
        }
        Some((network, config))
    }

    /// The rules and komi of the current game as the network search takes them.
    fn nn_setting(&self) -> Setting {
        let rules = *self.pos.rules();
        Setting {
            rules: tesuji_nn::katarules::KataRules::from_rules(&rules),
            komi: rules.komi.net(),
        }
    }

    /// Plays a network search's decision for `color`: the text after `play`.
    fn play_decision(&mut self, color: Color, decision: Decision) -> String {
        match decision {
            Decision::Resign => "resign".to_string(),
            Decision::Play(mv) => {
                let mv = if self.pos.play(color, mv).is_ok() {
                    mv
                } else {
                    let _ = self.pos.play(color, Move::Pass);
                    Move::Pass
                };
                mv.to_gtp(self.pos.size())
            }
        }
    }

    /// The search's settings: the tree search bot's, or for the simple bot, those analysis uses.
    fn search_config(&self) -> MctsConfig {
        match self.bot_kind {
            BotKind::Mcts(config) => config,
            BotKind::Simple | BotKind::Nn(_) => self.analysis_config,
        }
    }

    /// The search's settings for a search that must end by itself: with neither limit set, one second.
    fn bounded_config(&self) -> MctsConfig {
        let mut config = self.search_config();
        if config.playouts.is_none() && config.time.is_none() {
            config.time = MctsConfig::default().time;
        }
        config
    }

    /// A search of the position for the player to move, with the bot's budget (GoGui's commands).
    fn search_now(&self) -> Analysis {
        let color = self.pos.to_move();
        let game = self.pos.game_for(color);
        MctsBot::new(self.bounded_config(), self.seed).analyze(&game, self.pos.rules(), false)
    }

    /// `tesuji-ownership`: each point's expected owner, 1 Black to −1 White, row by row from the top.
    fn gogui_ownership(&self) -> Reply {
        let a = self.search_now();
        let width = usize::from(a.size.width());
        let rows: Vec<String> = a
            .ownership
            .chunks(width)
            .map(|row| {
                row.iter()
                    .map(|o| format!("{o:.2}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        Ok(format!("\n{}", rows.join("\n")))
    }

    /// `tesuji-pv`: the best move's principal variation, colours and vertices in turn.
    fn gogui_pv(&self) -> Reply {
        let a = self.search_now();
        let size = self.pos.size();
        let mut color = a.to_move;
        let mut out = Vec::new();
        for &mv in a.best().map_or(&[][..], |b| &b.pv[..]) {
            out.push(format!("{} {}", color.letter(), mv.to_gtp(size)));
            color = color.opponent();
        }
        Ok(out.join(" "))
    }

    /// `tesuji-score`: the mean final margin of the playouts, as a result, with the win rate of the side to move.
    fn gogui_score(&self) -> Reply {
        let a = self.search_now();
        let black = match a.to_move {
            Color::Black => a.score_mean,
            Color::White => -a.score_mean,
        };
        let lead = tesuji_bot::review::lead_text(black);
        let rate = a.best().map_or(0.5, |b| b.value);
        Ok(format!(
            "{lead} (± {:.1}; {} to move wins {:.0}% of {} playouts)",
            a.score_stdev,
            a.to_move,
            rate * 100.0,
            a.playouts
        ))
    }

    /// `kata-get-param NAME`: a search setting (0 for no limit).
    fn get_param(&self, name: &str) -> Reply {
        let mut c = self.search_config();
        if let BotKind::Nn(nn) = self.bot_kind {
            (c.playouts, c.time, c.threads) = (nn.visits, nn.time, nn.threads);
        }
        match name {
            "maxPlayouts" => Ok(c.playouts.unwrap_or(0).to_string()),
            "maxTime" => Ok(c.time.map_or(0.0, |t| t.as_secs_f64()).to_string()),
            "numSearchThreads" => Ok(c.threads.to_string()),
            _ => Err(GtpError::BadAnalysis(format!(
                "unknown parameter {name:?}; known: {}",
                PARAMS.join(", ")
            ))),
        }
    }

    /// `kata-set-param NAME VALUE`: `maxPlayouts N` (0: none), `maxTime SECONDS` (0: none), `numSearchThreads
    /// N`. With neither limit, a search takes one second.
    fn set_param(&mut self, name: &str, value: &str) -> Reply {
        let bad = || GtpError::BadAnalysis(format!("bad value {value:?} for {name}"));
        let mut c = self.search_config();
        if let BotKind::Nn(nn) = self.bot_kind {
            (c.playouts, c.time, c.threads) = (nn.visits, nn.time, nn.threads);
        }
        match name {
            "maxPlayouts" => {
                let n: u64 = value.parse().map_err(|_| bad())?;
                c.playouts = (n > 0).then_some(n);
            }
            "maxTime" => {
                let t: f64 = value.parse().map_err(|_| bad())?;
                if !(t.is_finite() && (0.0..=3600.0).contains(&t)) {
                    return Err(bad());
                }
                c.time = (t > 0.0).then(|| std::time::Duration::from_secs_f64(t));
            }
            "numSearchThreads" => {
                c.threads = value
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=64).contains(n))
                    .ok_or_else(bad)?;
            }
            _ => return self.get_param(name),
        }
        match &mut self.bot_kind {
            BotKind::Mcts(config) => *config = c,
            BotKind::Simple => self.analysis_config = c,
            BotKind::Nn(nn) => (nn.visits, nn.time, nn.threads) = (c.playouts, c.time, c.threads),
        }
        Ok(String::new())
    }

    /// An analysis command answered at once, as [`Engine::process_line`] answers (no streaming): the search
    /// runs the bot's budget, and the answer is its last line of analysis (and the move played, for a genmove).
    fn analyze_once(&mut self, flavor: Flavor, genmove: bool, args: &[&str]) -> Reply {
        let setup = self.analysis_setup(flavor, genmove, true, args)?;
        let (analysis, decision) = self.search_for(
            &setup,
            genmove,
            true,
            std::time::Duration::from_secs(3600),
            &|| false,
            &mut |_| {},
        );
        let mut text = info_line(&setup.0, &analysis).unwrap_or_default();
        if genmove {
            let played = self.play_searched(&setup, &analysis, decision);
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("play {played}"));
        }
        Ok(text)
    }

    /// An analysis command's search: the network's when the bot is the network's and a network is loaded
    /// (its decision beside it), else the playouts'; `report` gets the analysis every `slice`.
    fn search_for(
        &mut self,
        setup: &AnalysisSetup,
        genmove: bool,
        bounded: bool,
        slice: std::time::Duration,
        stop: &(dyn Fn() -> bool + Sync),
        report: &mut dyn FnMut(&Analysis),
    ) -> (Analysis, Option<Decision>) {
        let (_, color, game, config, only) = setup;
        match self.nn_config(genmove, bounded, *color) {
            Some((network, nn)) => {
                let live = Live {
                    only: only.as_deref(),
                    stop,
                    report: Some((slice, report)),
                    moves_ownership: config.moves_ownership,
                };
                let setting = self.nn_setting();
                let search = PuctBot::new(&network, &self.nn_cache, nn, self.seed).run(
                    game,
                    setting,
                    Some(&mut self.nn_kept),
                    live,
                );
                (search.analysis, Some(search.decision))
            }
            None => {
                let bot = MctsBot::new(*config, self.seed);
                let rules = self.pos.rules();
                let analysis = bot.analyze_live(game, rules, only.as_deref(), slice, stop, report);
                (analysis, None)
            }
        }
    }

    /// Plays what an analysis command's genmove search found: the text after `play`.
    fn play_searched(
        &mut self,
        setup: &AnalysisSetup,
        analysis: &Analysis,
        decision: Option<Decision>,
    ) -> String {
        let (_, color, _, config, _) = setup;
        match decision {
            Some(d) => self.play_decision(*color, d),
            None => self.play_analyzed(*color, analysis, config),
        }
    }

    /// An analysis command (see [`Engine::answer_line`]).
    fn analyze(
        &mut self,
        id: Option<u32>,
        flavor: Flavor,
        genmove: bool,
        args: &[&str],
        out: &mut dyn Write,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> io::Result<()> {
        let setup = match self.analysis_setup(flavor, genmove, false, args) {
            Ok(setup) => setup,
            Err(e) => {
                out.write_all(protocol::response(id, &Err(e)).as_bytes())?;
                return out.flush();
            }
        };
        let request = &setup.0;
        let head = match id {
            Some(id) => format!("={id}\n"),
            None => "=\n".to_string(),
        };
        out.write_all(head.as_bytes())?;
        out.flush()?;
        // With no interval, nothing is printed until the end; the search still looks up every second.
        let slice = match request.interval_cs {
            0 => std::time::Duration::from_secs(1),
            cs => std::time::Duration::from_millis(u64::from(cs) * 10),
        };
        let mut failed = None;
        let never = || false;
        // A genmove is a normal command: it ends when its search does, whatever comes in meanwhile.
        let stop: &(dyn Fn() -> bool + Sync) = if genmove { &never } else { stop };
        let mut report = |a: &Analysis| {
            if request.interval_cs == 0 || failed.is_some() {
                return;
            }
            if let Some(line) = info_line(request, a) {
                let written = out
                    .write_all(line.as_bytes())
                    .and_then(|()| out.write_all(b"\n"))
                    .and_then(|()| out.flush());
                if let Err(e) = written {
                    failed = Some(e);
                }
            }
        };
        let (analysis, decision) =
            self.search_for(&setup, genmove, false, slice, stop, &mut report);
        if let Some(e) = failed {
            return Err(e);
        }
        if genmove {
            let played = self.play_searched(&setup, &analysis, decision);
            out.write_all(format!("play {played}\n\n").as_bytes())?;
        } else {
            out.write_all(b"\n")?;
        }
        out.flush()
    }

    /// Runs one command: its answer text or its failure.
    pub fn execute(&mut self, name: &str, args: &[&str]) -> Result<String, GtpError> {
        match name {
            "protocol_version" => want(args, 0).map(|_| "2".to_string()),
            "name" => want(args, 0).map(|_| "tesuji".to_string()),
            "version" => want(args, 0).map(|_| VERSION.to_string()),
            "known_command" => {
                want(args, 1)?;
                Ok(COMMANDS.contains(&args[0]).to_string())
            }
            "list_commands" => want(args, 0).map(|_| COMMANDS.join("\n")),
            "quit" => {
                want(args, 0)?;
                self.quit = true;
                Ok(String::new())
            }
            "boardsize" => self.boardsize(args),
            "clear_board" => {
                want(args, 0)?;
                self.reset(self.pos.rules().size)
            }
            "komi" => {
                want(args, 1)?;
                let k = parse_komi(args[0])?;
                self.pos.set_komi(Komi::white(k));
                // The next game's rules, when set, are the ones a komi sent between games is meant for.
                if let Some(next) = &mut self.next_rules {
                    next.komi = Komi::white(k);
                }
                Ok(String::new())
            }
            "play" => {
                let (c, m) = move_args(args, self.pos.size())?;
                self.pos.play(c, m).map_err(|_| GtpError::IllegalMove)?;
                Ok(String::new())
            }
            "genmove" => self.genmove(args, false),
            "kgs-genmove_cleanup" => self.genmove(args, true),
            "undo" => {
                want(args, 0)?;
                if self.pos.undo() {
                    Ok(String::new())
                } else {
                    Err(GtpError::CannotUndo)
                }
            }
            "showboard" => want(args, 0).map(|_| self.showboard()),
            "final_score" => {
                want(args, 0)?;
                // A result the rules gave themselves (a draw, a void, a count they made) is the answer.
                Ok(match self.pos.ruled_result() {
                    Some(result) => result.to_string(),
                    None => self.pos.result(&self.estimated_dead()).to_string(),
                })
            }
            "final_status_list" => self.final_status_list(args),
            "fixed_handicap" => self.fixed_handicap(args),
            "place_free_handicap" => self.place_free_handicap(args),
            "set_free_handicap" => self.set_free_handicap(args),
            "loadsgf" => self.loadsgf(args),
            "printsgf" => self.printsgf(args),
            "time_settings" => self.time_settings_cmd(args),
            "time_left" => self.time_left_cmd(args),
            "kgs-time_settings" => self.kgs_time_settings(args),
            "is_legal" => {
                let (c, m) = move_args(args, self.pos.size())?;
                Ok(if self.pos.check(c, m).is_ok() {
                    "1"
                } else {
                    "0"
                }
                .to_string())
            }
            "all_legal" => {
                let c = one_color(args)?;
                Ok(vertices(&self.pos.legal_plays(c), self.pos.size()))
            }
            "captures" => {
                let c = one_color(args)?;
                Ok(self.pos.captures()[c.index()].to_string())
            }
            "kgs-rules" => self.kgs_rules(args),
            "kata-get-rules" => want(args, 0).map(|_| katago::rules_json(self.pos.rules())),
            "kata-set-rules" => self.kata_set_rules(args),
            "tesuji-rules" => self.tesuji_rules(args),
            "tesuji-why" => {
                let (c, m) = move_args(args, self.pos.size())?;
                Ok(match self.pos.why(c, m) {
                    Ok(()) => "legal".to_string(),
                    Err(refusal) => refusal.short(),
                })
            }
            "set_position" => self.set_position(args),
            "gogui-analyze_commands" => want(args, 0).map(|_| GOGUI_ANALYZE.to_string()),
            "tesuji-ownership" => want(args, 0).and_then(|_| self.gogui_ownership()),
            "tesuji-pv" => want(args, 0).and_then(|_| self.gogui_pv()),
            "tesuji-score" => want(args, 0).and_then(|_| self.gogui_score()),
            "kata-list-params" => want(args, 0).map(|_| PARAMS.join(" ")),
            "kata-get-param" => want(args, 1).and_then(|_| self.get_param(args[0])),
            "kata-set-param" => want(args, 2).and_then(|_| self.set_param(args[0], args[1])),
            "kata-raw-nn" => self.kata_raw_nn(args),
            name if analysis_command(name).is_some() => {
                let (flavor, genmove) = analysis_command(name).unwrap_or((Flavor::Leela, false));
                self.analyze_once(flavor, genmove, args)
            }
            _ => Err(GtpError::UnknownCommand),
        }
    }

    /// A new board of this size under the current rules, or the next game's when a rules command set them: the
    /// board's handicap and the history cleared, the rules' own handicap placed again.
    fn reset(&mut self, size: Size) -> Reply {
        let mut r = self.next_rules.unwrap_or_else(|| {
            let mut r = *self.pos.rules();
            r.handicap = self.handicap;
            r.placement = self.placement;
            r
        });
        r.size = size;
        // A board that cannot take the rules' handicap is not a size these rules play on.
        self.pos = Position::new(r).map_err(|_| GtpError::UnacceptableSize)?;
        self.handicap = r.handicap;
        self.placement = r.placement;
        self.next_rules = None;
        Ok(String::new())
    }

    /// Rules the current game cannot take: kept for the next board, and said so.
    fn defer_rules(&mut self, r: Rules) -> Reply {
        self.next_rules = Some(r);
        Ok(RULES_NEXT_GAME.to_string())
    }

    /// `boardsize N`, and KataGo's `boardsize W H` for a rectangle.
    fn boardsize(&mut self, args: &[&str]) -> Reply {
        let side = |a: &str| -> Result<u8, GtpError> {
            let n = uint(a).ok_or(GtpError::SizeNotInteger)?;
            u8::try_from(n).map_err(|_| GtpError::UnacceptableSize)
        };
        let size = match args {
            [n] => Size::square(side(n)?),
            [w, h] => Size::new(side(w)?, side(h)?),
            _ => return Err(GtpError::WrongArguments),
        }
        .ok_or(GtpError::UnacceptableSize)?;
        self.reset(size)
    }

    fn genmove(&mut self, args: &[&str], cleanup: bool) -> Reply {
        let c = one_color(args)?;
        let game = self.pos.game_for(c);
        if game.to_move() != c {
            // Only while Black places free handicap stones: White has no turn to take.
            return Err(GtpError::NoTurn(
                game.check(c, Move::Pass).err().map_or_else(
                    || format!("{c} cannot move now"),
                    |reason| reason.to_string(),
                ),
            ));
        }
        let cleanup = cleanup || self.pos.rules().end == EndRule::Score;
        let mv = match self.bot_kind {
            BotKind::Simple => self.bot.choose(&game, cleanup),
            BotKind::Mcts(mut config) => {
                // Under a clock its budget replaces the configured time per move (a playout count still holds).
                if let Some(budget) = self.think_time(c) {
                    config.time = Some(budget);
                }
                let bot = MctsBot::new(config, self.seed);
                match bot.choose_keeping(&game, self.pos.rules(), cleanup, &mut self.kept) {
                    Decision::Play(mv) => mv,
                    // Nothing is played: the controller ends the game.
                    Decision::Resign => return Ok("resign".to_string()),
                }
            }
            BotKind::Nn(mut config) => {
                let network = self.network.clone().ok_or(GtpError::NoNetwork)?;
                if let Some(budget) = self.think_time(c) {
                    config.time = Some(budget);
                }
                let setting = self.nn_setting();
                match PuctBot::new(&network, &self.nn_cache, config, self.seed)
                    .search_keeping(&game, setting, &mut self.nn_kept)
                    .decision
                {
                    Decision::Play(mv) => mv,
                    Decision::Resign => return Ok("resign".to_string()),
                }
            }
        };
        let mv = match self.pos.play(c, mv) {
            Ok(()) => mv,
            Err(_) => {
                // The bot chose from the legal moves, so this does not happen; a pass is always legal.
                let _ = self.pos.play(c, Move::Pass);
                Move::Pass
            }
        };
        Ok(mv.to_gtp(self.pos.size()))
    }

    fn showboard(&self) -> String {
        let size = self.pos.size();
        let grid = self.pos.grid();
        const LETTERS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
        let letters: String = LETTERS[..size.width() as usize]
            .iter()
            .map(|&b| format!(" {}", b as char))
            .collect();
        let mut out = String::from("\n");
        out.push_str(&format!("  {letters}\n"));
        for y in 0..size.height() {
            let row = size.height() - y;
            out.push_str(&format!("{row:2}"));
            for x in 0..size.width() {
                let ch = match grid.get(Point::new(x, y)) {
                    None => '.',
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                };
                out.push(' ');
                out.push(ch);
            }
            out.push_str(&format!(" {row}\n"));
        }
        out.push_str(&format!("  {letters}\n"));
        let [b, w] = self.pos.captures();
        out.push_str(&format!("Black (X) has captured {b} stones\n"));
        out.push_str(&format!("White (O) has captured {w} stones\n"));
        out.push_str(&format!("Next player: {}\n", self.pos.to_move()));
        out.push_str(&format!(
            "Komi: {}\n",
            tesuji_rules::result::format_half_points(self.pos.rules().komi.net())
        ));
        out.push_str(&format!("Rules: {}", self.pos.rules()));
        out
    }

    /// `final_status_list alive|dead|seki|unsure`. Under `end=score` every stone is alive. Otherwise the
    /// estimator of `tesuji_bot::estimate` judges: playouts from the position and Benson's unconditional life.
    /// `alive` holds every stone that is neither dead nor in seki (so the three lists cover the board), and
    /// `unsure`, an extension, the stones among them whose fate the estimate could not settle.
    fn final_status_list(&self, args: &[&str]) -> Reply {
        want(args, 1)?;
        let status = args[0].to_ascii_lowercase();
        if !matches!(status.as_str(), "alive" | "dead" | "seki" | "unsure") {
            return Err(GtpError::InvalidStatus);
        }
        let size = self.pos.size();
        if self.every_stone_alive() {
            let grid = self.pos.grid();
            let all: Vec<Point> = size.points().filter(|&p| grid.get(p).is_some()).collect();
            return Ok(if status == "alive" {
                vertices(&all, size)
            } else {
                String::new()
            });
        }
        let est = self.estimate();
        let list = match status.as_str() {
            "dead" => est.dead(),
            "seki" => est.seki(),
            "unsure" => est.unsure(),
            _ => est.alive(),
        };
        Ok(vertices(&list, size))
    }

    /// The estimator's judgement of the position (seeded: the same position gets the same answer).
    fn estimate(&self) -> estimate::Estimate {
        let game = self.pos.game_for(self.pos.to_move());
        estimate::estimate(
            &game,
            estimate::default_playouts(self.pos.size()),
            self.seed,
        )
    }

    /// Whether the count has no dead stones: under `end=score`, and when the rules ended the game themselves
    /// (without a dead-stone phase).
    fn every_stone_alive(&self) -> bool {
        self.pos.rules().end == EndRule::Score || self.pos.ruled_result().is_some()
    }

    /// The dead stones of the count: the estimator's (unsure stones count as alive), none when every stone is
    /// alive.
    fn estimated_dead(&self) -> Vec<Point> {
        if self.every_stone_alive() {
            Vec::new()
        } else {
            self.estimate().dead()
        }
    }

    /// Replaces the position by a setup of black handicap stones, White to move.
    fn place_handicap(&mut self, points: &[Point], placement: Placement) -> Result<(), GtpError> {
        let mut r = *self.pos.rules();
        r.handicap = u8::try_from(points.len()).unwrap_or(u8::MAX);
        r.placement = placement;
        let mut grid = Grid::new(r.size);
        for &p in points {
            grid.set(p, Some(Color::Black));
        }
        self.pos = Position::with_start(r, grid, Color::White)
            .map_err(|e| GtpError::InvalidPosition(e.to_string()))?;
        Ok(())
    }

    fn handicap_count(args: &[&str]) -> Result<u32, GtpError> {
        want(args, 1)?;
        uint(args[0]).ok_or(GtpError::HandicapNotInteger)
    }

    fn fixed_handicap(&mut self, args: &[&str]) -> Reply {
        let n = Self::handicap_count(args)?;
        let size = self.pos.size();
        let points = u8::try_from(n)
            .ok()
            .and_then(|n| fixed_handicap_points(size, n))
            .ok_or(GtpError::InvalidHandicap)?;
        if !self.pos.is_pristine() {
            return Err(GtpError::BoardNotEmpty);
        }
        self.place_handicap(&points, Placement::Fixed)?;
        Ok(vertices(&points, size))
    }

    fn place_free_handicap(&mut self, args: &[&str]) -> Reply {
        let n = Self::handicap_count(args)? as usize;
        let size = self.pos.size();
        if n < 2 || n >= size.area() {
            return Err(GtpError::InvalidStoneCount);
        }
        if !self.pos.is_pristine() {
            return Err(GtpError::BoardNotEmpty);
        }
        let points = free_handicap_points(size, n);
        self.place_handicap(&points, Placement::Free)?;
        Ok(vertices(&points, size))
    }

    fn set_free_handicap(&mut self, args: &[&str]) -> Reply {
        let size = self.pos.size();
        let mut points: Vec<Point> = Vec::with_capacity(args.len());
        for a in args {
            match vertex_arg(a, size) {
                Some(Move::Play(p)) if !points.contains(&p) => points.push(p),
                _ => return Err(GtpError::BadVertexList),
            }
        }
        if points.len() < 2 {
            return Err(GtpError::InvalidStoneCount);
        }
        if points.len() >= size.area() {
            // A board full of black stones has no liberty.
            return Err(GtpError::BadVertexList);
        }
        if !self.pos.is_pristine() {
            return Err(GtpError::BoardNotEmpty);
        }
        self.place_handicap(&points, Placement::Free)?;
        Ok(String::new())
    }

    fn loadsgf(&mut self, args: &[&str]) -> Reply {
        let (file, number) = match args {
            [f] => (*f, None),
            [f, n] => (
                *f,
                Some(
                    uint(n)
                        .filter(|&n| n >= 1)
                        .ok_or(GtpError::InvalidMoveNumber)? as usize,
                ),
            ),
            _ => return Err(GtpError::WrongArguments),
        };
        let bytes = std::fs::read(file).map_err(|e| GtpError::Load(e.to_string()))?;
        self.pos = sgfio::load(&bytes, number, self.pos.rules())?;
        Ok(String::new())
    }

    fn printsgf(&mut self, args: &[&str]) -> Reply {
        if args.len() > 1 {
            return Err(GtpError::WrongArguments);
        }
        let text = sgfio::one_line(sgfio::record(&self.pos, &self.estimated_dead())?);
        match args.first() {
            None | Some(&"-") => Ok(text),
            Some(file) => {
                std::fs::write(file, format!("{text}\n"))
                    .map_err(|e| GtpError::Write(e.to_string()))?;
                Ok(String::new())
            }
        }
    }

    /// The time control as the controller set it, if it limits anything.
    fn time_control(&self) -> Option<TimeControl> {
        let s = u64::from;
        let control = match self.time {
            TimeSettings::None => return None,
            TimeSettings::Absolute { main } => TimeControl::Absolute {
                main_ms: s(main) * SECOND_MS,
            },
            TimeSettings::Canadian { main, byo, stones } => TimeControl::Canadian {
                main_ms: s(main) * SECOND_MS,
                stones,
                period_ms: s(byo) * SECOND_MS,
            },
            TimeSettings::Byoyomi {
                main,
                period,
                periods,
            } => TimeControl::ByoYomi {
                main_ms: s(main) * SECOND_MS,
                periods,
                period_ms: s(period) * SECOND_MS,
            },
        };
        // Settings no clock can run (`absolute 0`) limit nothing we can plan with.
        control.validate().ok().map(|()| control)
    }

    /// How long the search bot thinks about `color`'s next move under the controller's clock
    /// ([`tesuji_bot::time::budget`]): from `color`'s last `time_left`, or the whole control before any; `None`
    /// without a time limit (the bot's own setting holds).
    pub fn think_time(&self, color: Color) -> Option<std::time::Duration> {
        let control = self.time_control()?;
        let left = match self.time_left[color.index()] {
            Some((t, stones)) => GtpTimeLeft {
                time_s: t.max(0).unsigned_abs(),
                stones,
            }
            .to_remaining(&control),
            None => Remaining::initial(&control),
        };
        let size = self.pos.size();
        let grid = self.pos.grid();
        let empty = (0..size.area())
            .filter(|&k| grid.get(size.point_at(k)).is_none())
            .count();
        tesuji_bot::time::budget(&control, &left, empty)
    }

    fn time_settings_cmd(&mut self, args: &[&str]) -> Reply {
        want(args, 3)?;
        let v: Option<Vec<u32>> = args.iter().map(|a| uint(a)).collect();
        let v = v.ok_or(GtpError::InvalidTime)?;
        self.time = if v[1] > 0 && v[2] == 0 {
            // GTP: byo-yomi time with no stones means no time limit.
            TimeSettings::None
        } else if v[1] == 0 {
            TimeSettings::Absolute { main: v[0] }
        } else {
            TimeSettings::Canadian {
                main: v[0],
                byo: v[1],
                stones: v[2],
            }
        };
        Ok(String::new())
    }

    fn time_left_cmd(&mut self, args: &[&str]) -> Reply {
        if args.len() != 3 {
            return Err(GtpError::WrongArguments);
        }
        let c = args[0]
            .parse::<Color>()
            .map_err(|_| GtpError::InvalidColor)?;
        let t: i64 = args[1]
            .parse()
            .ok()
            .filter(|t: &i64| t.unsigned_abs() < 1 << 40)
            .ok_or(GtpError::InvalidTime)?;
        let s = uint(args[2]).ok_or(GtpError::InvalidTime)?;
        self.time_left[c.index()] = Some((t, s));
        Ok(String::new())
    }

    fn kgs_time_settings(&mut self, args: &[&str]) -> Reply {
        let Some((kind, rest)) = args.split_first() else {
            return Err(GtpError::WrongArguments);
        };
        let nums: Option<Vec<u32>> = rest.iter().map(|a| uint(a)).collect();
        let nums = nums.ok_or(GtpError::InvalidTime)?;
        self.time = match (kind.to_ascii_lowercase().as_str(), nums.as_slice()) {
            ("none", []) => TimeSettings::None,
            ("absolute", &[main]) => TimeSettings::Absolute { main },
            ("byoyomi", &[main, period, periods]) => TimeSettings::Byoyomi {
                main,
                period,
                periods,
            },
            ("canadian", &[main, byo, stones]) => TimeSettings::Canadian { main, byo, stones },
            ("none" | "absolute" | "byoyomi" | "canadian", _) => {
                return Err(GtpError::WrongArguments);
            }
            _ => return Err(GtpError::InvalidTime),
        };
        Ok(String::new())
    }

    /// Switches to `rules`, keeping the board's handicap; a new size clears the board, otherwise the moves are
    /// replayed under the new rules. When one of them becomes illegal, the rules are the next game's
    /// ([`RULES_NEXT_GAME`]) and this game goes on under its own.
    fn change_rules(&mut self, mut r: Rules) -> Reply {
        let old = *self.pos.rules();
        let chosen = r.placement;
        let next = Rules {
            handicap: self.handicap,
            placement: chosen,
            ..r
        };
        r.handicap = old.handicap;
        if old.handicap >= 2 {
            r.placement = old.placement;
        }
        if r.size != old.size {
            self.pos = Position::new(next).map_err(|e| GtpError::RulesConflict(e.to_string()))?;
        } else {
            match self.pos.with_rules(r) {
                Ok(pos) => self.pos = pos,
                Err(_) => return self.defer_rules(next),
            }
        }
        self.placement = chosen;
        self.next_rules = None;
        Ok(String::new())
    }

    fn kgs_rules(&mut self, args: &[&str]) -> Reply {
        want(args, 1)?;
        let preset = match args[0].to_ascii_lowercase().as_str() {
            "japanese" => Preset::Japanese,
            "chinese" => Preset::Chinese,
            "aga" => Preset::Aga,
            "new_zealand" => Preset::NewZealand,
            other => return Err(GtpError::UnknownRules(other.to_string())),
        };
        let mut r = Rules::preset(preset);
        r.size = self.pos.size();
        r.komi = self.pos.rules().komi;
        self.change_rules(r)
    }

    /// `kata-raw-nn [COLOR] SYMMETRY [OPTIMISM]`: the network's raw answer in KataGo's own form, for one
    /// symmetry (`0`-`7`) or each of them (`all`, the blocks one after another). A colour other than the one to
    /// move evaluates the board with that colour to move and no history, as KataGo does.
    fn kata_raw_nn(&mut self, args: &[&str]) -> Reply {
        use tesuji_nn::output::{GTP_POLICY_OPTIMISM, Symmetry};
        let network = self.network.clone().ok_or(GtpError::NoNetwork)?;
        let mut rest = args;
        let mut color = self.pos.to_move();
        if let Some(c) = rest.first().and_then(|a| a.parse::<Color>().ok()) {
            color = c;
            rest = &rest[1..];
        }
        let Some((first, rest)) = rest.split_first() else {
            return Err(GtpError::BadRawNn("missing symmetry".into()));
        };
        let symmetries: Vec<Symmetry> = if first.eq_ignore_ascii_case("all") {
            Symmetry::ALL.to_vec()
        } else {
            match first.parse::<u8>() {
                Ok(s) if s < 8 => vec![Symmetry(s)],
                _ => {
                    return Err(GtpError::BadRawNn(format!(
                        "bad symmetry {:?}",
                        shorten(first)
                    )));
                }
            }
        };
        let optimism = match rest {
            [] => GTP_POLICY_OPTIMISM,
            [o] => match o.parse::<f32>() {
                Ok(o) if (0.0..=1.0).contains(&o) => o,
                _ => return Err(GtpError::BadRawNn(format!("bad optimism {:?}", shorten(o)))),
            },
            [_, extra, ..] => {
                return Err(GtpError::BadRawNn(format!(
                    "extra argument {:?}",
                    shorten(extra)
                )));
            }
        };
        let rules = *self.pos.rules();
        let game = if color == self.pos.to_move() {
            self.pos.game_for(color)
        } else {
            tesuji_rules::Game::from_position(rules, &self.pos.grid(), color)
                .map_err(|e| GtpError::InvalidPosition(e.to_string()))?
        };
        let queries: Vec<tesuji_nn::position::Query> = symmetries
            .iter()
            .map(|&symmetry| tesuji_nn::position::Query {
                game: &game,
                rules: tesuji_nn::katarules::KataRules::from_rules(&rules),
                komi: rules.komi.net(),
                symmetry,
                policy_optimism: optimism,
            })
            .collect();
        let answers = tesuji_nn::position::evaluate(&network, &queries);
        let text: String = symmetries
            .iter()
            .zip(&answers)
            .map(|(&s, e)| tesuji_nn::position::raw_nn_text(s, e))
            .collect();
        Ok(text.trim_end().to_string())
    }

    fn kata_set_rules(&mut self, args: &[&str]) -> Reply {
        if args.is_empty() {
            return Err(GtpError::WrongArguments);
        }
        let text = args.join(" ");
        let (mut r, komi) =
            katago::parse_rules(&text).ok_or_else(|| GtpError::UnknownRules(shorten(&text)))?;
        r.size = self.pos.size();
        r.komi = komi.map_or(self.pos.rules().komi, Komi::white);
        self.change_rules(r)
    }

    fn tesuji_rules(&mut self, args: &[&str]) -> Reply {
        if args.is_empty() {
            return Ok(self.pos.rules().to_string());
        }
        let spec = args.join(" ");
        let mut r: Rules = spec
            .parse()
            .map_err(|e: tesuji_rules::spec::SpecError| GtpError::UnknownRules(e.to_string()))?;
        if !tesuji_rules::spec::sets_key(&spec, "size") {
            r.size = self.pos.size();
        }
        // A handicap the spec gives (`handicap=`, or bga's `komi=hN`) becomes the rules' own, placed as their
        // placement says on a board where nothing has been played; never dropped.
        let gives_handicap = tesuji_rules::spec::sets_key(&spec, "handicap")
            || (r.preset == Preset::Bga && tesuji_rules::spec::sets_key(&spec, "komi"));
        let now = self.pos.rules();
        let same = r.handicap == now.handicap && (r.handicap == 0 || r.placement == now.placement);
        if gives_handicap && !same {
            return self.start_with_handicap(r);
        }
        self.change_rules(r)
    }

    /// New rules whose handicap starts a new board: the handicap stones placed (`fixed`), to be placed by
    /// Black (`free`), or White's forced passes to come (`passes`). On a board where something has been
    /// played, they are the next game's ([`RULES_NEXT_GAME`]); a handicap the board has no room for is refused.
    fn start_with_handicap(&mut self, r: Rules) -> Reply {
        let pos = Position::new(r).map_err(|e| GtpError::RulesConflict(e.to_string()))?;
        if !self.pos.is_unplayed() {
            return self.defer_rules(r);
        }
        self.pos = pos;
        self.handicap = r.handicap;
        self.placement = r.placement;
        self.next_rules = None;
        Ok(String::new())
    }

    /// KataGo's `set_position COLOR VERTEX ...`: a new starting position with these stones, Black to move.
    fn set_position(&mut self, args: &[&str]) -> Reply {
        if !args.len().is_multiple_of(2) {
            return Err(GtpError::InvalidPosition(
                "expected COLOR VERTEX pairs".to_string(),
            ));
        }
        let size = self.pos.size();
        let mut grid = Grid::new(size);
        for pair in args.chunks(2) {
            let c = pair[0]
                .parse::<Color>()
                .map_err(|_| GtpError::InvalidMove)?;
            let p = match vertex_arg(pair[1], size) {
                Some(Move::Play(p)) => p,
                _ => return Err(GtpError::InvalidMove),
            };
            if grid.get(p).is_some() {
                return Err(GtpError::InvalidPosition(format!(
                    "{} is given twice",
                    p.to_gtp(size)
                )));
            }
            grid.set(p, Some(c));
        }
        Board::from_grid(&grid)
            .map_err(|_| GtpError::InvalidPosition("a chain would have no liberty".to_string()))?;
        let mut r = *self.pos.rules();
        r.handicap = 0;
        r.placement = self.placement;
        self.pos = Position::with_start(r, grid, Color::Black)
            .map_err(|e| GtpError::InvalidPosition(e.to_string()))?;
        Ok(String::new())
    }
}

fn shorten(text: &str) -> String {
    let mut s: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn komi_values() {
        assert_eq!(parse_komi("7.5"), Ok(15));
        assert_eq!(parse_komi("-3"), Ok(-6));
        assert_eq!(parse_komi("+0.50"), Ok(1));
        assert_eq!(parse_komi(".5"), Ok(1));
        assert_eq!(parse_komi("6."), Ok(12));
        assert_eq!(parse_komi("1000"), Ok(2000));
        assert_eq!(parse_komi("1000.5"), Err(GtpError::KomiNotHalf));
        assert_eq!(parse_komi("0.25"), Err(GtpError::KomiNotHalf));
        assert_eq!(parse_komi("1e3"), Err(GtpError::KomiNotFloat));
        assert_eq!(parse_komi("nan"), Err(GtpError::KomiNotFloat));
        assert_eq!(parse_komi("."), Err(GtpError::KomiNotFloat));
        assert_eq!(parse_komi("-"), Err(GtpError::KomiNotFloat));
        assert_eq!(
            parse_komi("99999999999999999999"),
            Err(GtpError::KomiNotHalf)
        );
    }

    #[test]
    fn free_handicap_is_spread_and_valid() {
        for side in 1..=25u8 {
            let size = Size::square(side).unwrap();
            for n in 2..size.area().min(40) {
                let pts = free_handicap_points(size, n);
                assert_eq!(pts.len(), n, "{side} {n}");
                let mut sorted = pts.clone();
                sorted.dedup();
                assert_eq!(sorted.len(), n);
            }
        }
        let s9 = Size::square(9).unwrap();
        assert_eq!(
            free_handicap_points(s9, 4),
            fixed_handicap_points(s9, 4).unwrap()
        );
    }
}
