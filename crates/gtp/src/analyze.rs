//! The analysis commands of analysis GUIs: Leela Zero's `lz-analyze` and `lz-genmove_analyze`, KataGo's
//! `kata-analyze` and `kata-genmove_analyze` (docs/GTP_Extensions.md of KataGo), and Sabaki's `analyze` and
//! `genmove_analyze` (Sabaki's engine-analysis guide): their arguments, and the `info` lines they print.
//!
//! Every figure is from the point of view of the player analyzed. Leela Zero's form gives integers ×10000
//! (`winrate 4656 prior 839 lcb 4640`); KataGo's floats, with the score of our own playouts' final margins
//! (`scoreMean`, `scoreLead` and `scoreSelfplay` are all that mean: a playout count has no separate lead), or
//! with a network the network search's lead (`scoreMean`, `scoreLead`, as KataGo prints them) and self-play
//! score (`scoreSelfplay`), and `ownership`;
//! Sabaki's is Leela Zero's with `scoreLead`.

use tesuji_bot::mcts::{Analysis, MoveStat};
use tesuji_rules::{Color, Move, Point, Size};

use crate::error::GtpError;

/// Which program's form the lines take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `lz-analyze`: Leela Zero's integers.
    Leela,
    /// `kata-analyze`: KataGo's floats and fields.
    Kata,
    /// `analyze`: Sabaki's, Leela Zero's with `scoreLead`.
    Sabaki,
}

/// A request to analyze, as parsed from the command's arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub flavor: Flavor,
    /// The player analyzed (the player to move when not given).
    pub color: Option<Color>,
    /// Centiseconds between lines; 0: one line when the search ends (a genmove) or stops.
    pub interval_cs: u32,
    /// At least this many moves listed (with no visits if need be), at most `max_moves`.
    pub min_moves: usize,
    pub max_moves: Option<usize>,
    pub ownership: bool,
    /// KataGo's `ownershipStdev`: the spread of each point's owner over the playouts.
    pub ownership_stdev: bool,
    /// KataGo's `pvVisits`: the visits of each move of a variation.
    pub pv_visits: bool,
    /// KataGo's `movesOwnership`: each move's own ownership, after its variation.
    pub moves_ownership: bool,
    /// `allow` and `avoid` lists: (allow, colour, moves).
    pub lists: Vec<(bool, Color, Vec<Move>)>,
}

/// The longest interval accepted, in centiseconds (a day).
const MAX_INTERVAL_CS: u32 = 8_640_000;

fn bad(text: impl Into<String>) -> GtpError {
    GtpError::BadAnalysis(text.into())
}

/// The vertices of an `avoid`/`allow` list: comma-separated, each a vertex or `pass`.
fn vertex_list(text: &str, size: Size) -> Result<Vec<Move>, GtpError> {
    text.split(',')
        .map(|v| {
            if v.eq_ignore_ascii_case("pass") {
                Ok(Move::Pass)
            } else {
                Point::from_gtp(v, size)
                    .map(Move::Play)
                    .ok_or_else(|| bad(format!("invalid vertex {v:?}")))
            }
        })
        .collect()
}

fn color_of(text: &str) -> Option<Color> {
    match text.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

fn count(text: Option<&&str>, key: &str) -> Result<u32, GtpError> {
    text.and_then(|t| t.parse::<u32>().ok())
        .ok_or_else(|| bad(format!("{key} needs a whole number")))
}

fn flag(text: Option<&&str>, key: &str) -> Result<bool, GtpError> {
    match text.map(|t| t.to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(bad(format!("{key} needs true or false"))),
    }
}

impl Request {
    /// Parses `[COLOR] [INTERVAL] [KEY VALUE]...`: `interval CS`, `minmoves N`, `maxmoves N`, `ownership
    /// BOOL`, `ownershipStdev BOOL`, `pvVisits BOOL`, `movesOwnership BOOL`,
    /// `avoid COLOR VERTICES UNTILDEPTH` and `allow COLOR VERTICES UNTILDEPTH` (the root's moves of the player
    /// analyzed are restricted: any depth of 1 or more holds there, and the search below is free).
    pub fn parse(flavor: Flavor, args: &[&str], size: Size) -> Result<Request, GtpError> {
        let mut r = Request {
            flavor,
            color: None,
            interval_cs: 0,
            min_moves: 0,
            max_moves: None,
            ownership: false,
            ownership_stdev: false,
            pv_visits: false,
            moves_ownership: false,
            lists: Vec::new(),
        };
        let mut rest = args;
        if let Some(c) = rest.first().and_then(|t| color_of(t)) {
            r.color = Some(c);
            rest = &rest[1..];
        }
        if let Some(cs) = rest.first().and_then(|t| t.parse::<u32>().ok()) {
            r.interval_cs = cs;
            rest = &rest[1..];
        }
        while let Some((&key, tail)) = rest.split_first() {
            let value = tail.first();
            rest = tail.get(1..).unwrap_or_default();
            match key {
                "interval" => r.interval_cs = count(value, key)?,
                "minmoves" => r.min_moves = count(value, key)? as usize,
                "maxmoves" => r.max_moves = Some(count(value, key)? as usize),
                "ownership" => r.ownership = flag(value, key)?,
                "ownershipStdev" => r.ownership_stdev = flag(value, key)?,
                "pvVisits" => r.pv_visits = flag(value, key)?,
                "movesOwnership" => r.moves_ownership = flag(value, key)?,
                "avoid" | "allow" => {
                    let color = value
                        .and_then(|t| color_of(t))
                        .ok_or_else(|| bad(format!("{key} needs a colour")))?;
                    let vertices = tail
                        .get(1)
                        .ok_or_else(|| bad(format!("{key} needs vertices")))?;
                    let depth = count(tail.get(2), key)?;
                    if depth == 0 {
                        return Err(bad(format!("{key} needs a depth of 1 or more")));
                    }
                    r.lists
                        .push((key == "allow", color, vertex_list(vertices, size)?));
                    rest = tail.get(3..).unwrap_or_default();
                }
                _ => return Err(bad(format!("unknown analysis option {key:?}"))),
            }
        }
        if r.interval_cs > MAX_INTERVAL_CS {
            return Err(bad("interval too long"));
        }
        Ok(r)
    }

    /// The moves the root of `color` may play, of the `legal` ones, when a list restricts them.
    pub fn root_moves(&self, color: Color, legal: &[Move]) -> Option<Vec<Move>> {
        let mine = || self.lists.iter().filter(|(_, c, _)| *c == color);
        // No list for this player: nothing restricted.
        mine().next()?;
        let allowed = |m: &Move| {
            mine()
                .filter(|(allow, _, _)| *allow)
                .all(|(_, _, ms)| ms.contains(m))
                && !mine()
                    .filter(|(allow, _, _)| !allow)
                    .any(|(_, _, ms)| ms.contains(m))
        };
        Some(legal.iter().copied().filter(allowed).collect())
    }
}

/// Rounds a figure in 0..1 to Leela Zero's integers ×10000.
fn per_10000(x: f64) -> i64 {
    (x.clamp(0.0, 1.0) * 10_000.0).round() as i64
}

/// A float as KataGo prints one: at most six decimals, no trailing zeros.
fn float(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// The visit floor of the moves listed, in percent of the most visited move's visits: KataGo's
/// `minVisitPropForLCB` (0.15 in its configurations), the share of the best move's visits below which KataGo
/// holds a move too little explored to be chosen for its lower confidence bound. A tree search that visits
/// every legal move a little would otherwise list them all (a GUI then draws a circle on every empty point, and
/// the highest win rate of a few playouts among them).
pub const VISIT_FLOOR_PERCENT: u64 = 15;

/// How many of `analysis`'s moves a line lists: those of at least [`VISIT_FLOOR_PERCENT`] of the most visited
/// move's visits (the moves come most visited first: KataGo's order, whose first is the move the engine plays),
/// then the next ones as `min_moves` asks, with or without visits, and at most `max_moves`. 0 before any move
/// has visits.
pub fn listed_moves(request: &Request, analysis: &Analysis) -> usize {
    let best = analysis.moves.iter().map(|m| m.visits).max().unwrap_or(0);
    if best == 0 {
        return 0;
    }
    let above_floor = analysis
        .moves
        .iter()
        .filter(|m| m.visits > 0 && m.visits.saturating_mul(100) >= best * VISIT_FLOOR_PERCENT)
        .count();
    above_floor
        .max(request.min_moves)
        .min(request.max_moves.unwrap_or(usize::MAX))
        .min(analysis.moves.len())
}

/// One line of analysis: an `info` group per move listed (see [`listed_moves`]; `order` 0 the first), then
/// `ownership` (and `ownershipStdev`) when asked, from the top-left point, row by row. `None` before any move
/// has visits (nothing to say yet), or when `maxmoves 0` asks for none.
pub fn info_line(request: &Request, analysis: &Analysis) -> Option<String> {
    let size = analysis.size;
    let listed = listed_moves(request, analysis);
    if listed == 0 {
        return None;
    }
    // Ownership is Black's; KataGo's is the analyzed player's.
    let sign = if analysis.to_move == Color::Black {
        1.0
    } else {
        -1.0
    };
    let mut line = String::new();
    for (order, m) in analysis.moves.iter().take(listed).enumerate() {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&info(request, m, order, size));
        if request.flavor == Flavor::Kata && request.moves_ownership {
            owners(&mut line, "movesOwnership", sign, &m.ownership, size.area());
        }
    }
    if request.flavor == Flavor::Kata {
        if request.ownership {
            owners(
                &mut line,
                "ownership",
                sign,
                &analysis.ownership,
                size.area(),
            );
        }
        if request.ownership_stdev {
            let spread = &analysis.ownership_stdev;
            owners(&mut line, "ownershipStdev", 1.0, spread, size.area());
        }
    }
    Some(line)
}

/// `key` and a value per point, `sign` times `values` (zeros where there are none): the `ownership`,
/// `ownershipStdev` and `movesOwnership` boards.
fn owners(line: &mut String, key: &str, sign: f64, values: &[f32], points: usize) {
    line.push(' ');
    line.push_str(key);
    for k in 0..points {
        line.push(' ');
        line.push_str(&float(
            sign * f64::from(values.get(k).copied().unwrap_or(0.0)),
        ));
    }
}

/// One move's `info` group.
fn info(request: &Request, m: &MoveStat, order: usize, size: Size) -> String {
    let mv = m.mv.to_gtp(size);
    let pv: Vec<String> = m.pv.iter().map(|&p| p.to_gtp(size)).collect();
    let pv = if pv.is_empty() {
        mv.clone()
    } else {
        pv.join(" ")
    };
    let value = if m.visits > 0 { m.value } else { 0.0 };
    match request.flavor {
        Flavor::Leela | Flavor::Sabaki => {
            let mut text = format!(
                "info move {mv} visits {} winrate {} prior {} lcb {} order {order}",
                m.visits,
                per_10000(value),
                per_10000(m.prior),
                per_10000(m.lcb()),
            );
            if request.flavor == Flavor::Sabaki {
                text.push_str(&format!(" scoreLead {}", float(m.score_mean)));
            }
            text.push_str(&format!(" pv {pv}"));
            text
        }
        Flavor::Kata => {
            let mut text = format!(
                "info move {mv} visits {} utility {} winrate {} scoreMean {} scoreStdev {} scoreLead {} \
                 scoreSelfplay {} prior {} lcb {} utilityLcb {} order {order} pv {pv}",
                m.visits,
                float(2.0 * value - 1.0),
                float(value),
                float(m.score_mean),
                float(m.score_stdev),
                float(m.score_mean),
                float(m.score_selfplay),
                float(m.prior),
                float(m.lcb()),
                float(2.0 * m.lcb() - 1.0),
            );
            if request.pv_visits {
                text.push_str(" pvVisits");
                for v in &m.pv_visits {
                    text.push_str(&format!(" {v}"));
                }
            }
            text
        }
    }
}
