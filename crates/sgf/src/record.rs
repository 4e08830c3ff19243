//! Game records: the root's size, komi, handicap and rules read into a [`Rules`], and the main line replayed
//! on a [`Game`] with full legality checking.
//!
//! Komi (`KM`) accepted: whole and half numbers (`7.5`, `6.50`, `-3`, `0`), and the values some servers write
//! in fiftieths of a point (Fox writes `KM[375]` for 7.5 and `KM[325]` for 6.5): a value whose magnitude is
//! above 150 and which is a whole multiple of 25 is read as fiftieths. Anything else that is not a whole or
//! half number (`6.25`, `abc`) is a [`RecordError::BadKomi`].

use tesuji_rules::{
    Color, Game, Grid, HandicapBonus, Illegal, KoRule, Komi, Move, Point, Preset, Rules,
    ScoringRule, SekiEyes, Size, SuicideRule,
};

use crate::parse::{parse_point, point_list};
use crate::tree::{Node, NodeId, Tree, unescape};

/// Why a record cannot be read as a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("SZ[{0}]: the board must be 1 to 25 points a side")]
    BadSize(String),
    #[error("KM[{0}]: not a komi (use a whole or half number, e.g. 6.5)")]
    BadKomi(String),
    #[error("HA[{0}]: not a handicap (0 to 9)")]
    BadHandicap(String),
    #[error("node {node}: {ident}[{value}] is not a point of a {size} board")]
    BadPoint {
        node: usize,
        ident: String,
        value: String,
        size: Size,
    },
    #[error("node {node}: setup stones after the start of the game are not supported")]
    SetupInPlay { node: usize },
    #[error("node {node}: {color} {mv} is illegal: {reason}")]
    Illegal {
        node: usize,
        color: Color,
        mv: String,
        reason: Illegal,
    },
    #[error("the setup position is illegal: {0}")]
    Setup(String),
}

impl RecordError {
    /// The main-line node the error is about (0 is the root), when it is about one.
    pub fn node(&self) -> Option<usize> {
        match self {
            RecordError::BadPoint { node, .. }
            | RecordError::SetupInPlay { node }
            | RecordError::Illegal { node, .. } => Some(*node),
            _ => None,
        }
    }
}

/// What the root's `RU` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesFromRecord {
    /// No `RU`.
    Absent,
    /// Understood.
    Known(Rules),
    /// Kept as written and reported; the caller chooses the rules.
    Unknown(String),
}

/// The board size of `SZ` (`19`, or `w:h`); 19 × 19 when absent.
pub fn size_of(tree: &Tree) -> Result<Size, RecordError> {
    let Some(raw) = tree.root().value("SZ") else {
        return Ok(Size::STANDARD);
    };
    let text = unescape(raw);
    let parse = |s: &str| s.trim().parse::<u8>().ok();
    let size = match text.split_once(':') {
        Some((w, h)) => parse(w).zip(parse(h)).and_then(|(w, h)| Size::new(w, h)),
        None => parse(&text).and_then(Size::square),
    };
    size.ok_or(RecordError::BadSize(text))
}

/// The komi of `KM` in half-points (see the module documentation for the forms accepted).
pub fn komi_of(tree: &Tree) -> Result<Option<i32>, RecordError> {
    tree.root()
        .value("KM")
        .map(|raw| parse_komi(&unescape(raw)))
        .transpose()
}

/// Reads a komi value as half-points.
pub fn parse_komi(text: &str) -> Result<i32, RecordError> {
    let bad = || RecordError::BadKomi(text.to_string());
    let t = text.trim();
    if t.is_empty() || t.len() > 12 {
        return Err(bad());
    }
    // Exact decimal arithmetic in hundredths: no floating point.
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && frac.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 2 && frac[2..].bytes().any(|b| b != b'0')
    {
        return Err(bad());
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let hundredths: i64 = match frac.len() {
        0 => 0,
        1 => frac.parse::<i64>().map_err(|_| bad())? * 10,
        _ => frac[..2].parse().map_err(|_| bad())?,
    };
    let mut value = whole * 100 + hundredths;
    if frac.is_empty() && whole > 150 && whole % 25 == 0 {
        // Fiftieths of a point (Fox): 375 is 7.5.
        value = whole * 2;
    }
    if value % 50 != 0 {
        return Err(bad());
    }
    let half_points = value / 50;
    i32::try_from(if neg { -half_points } else { half_points }).map_err(|_| bad())
}

/// The handicap of `HA` (0 when absent).
pub fn handicap_of(tree: &Tree) -> Result<u8, RecordError> {
    match tree.root().value("HA") {
        None => Ok(0),
        Some(raw) => {
            let text = unescape(raw);
            text.trim()
                .parse::<u8>()
                .ok()
                .filter(|&n| n <= 9)
                .ok_or(RecordError::BadHandicap(text))
        }
    }
}

/// Our own root property holding the rules' exact spec, e.g. `TESUJIRULES[japanese:size=9]`; `RU` holds the
/// conventional name other programs read ([`conventional_name`]).
pub const OWN_RULES: &str = "TESUJIRULES";

/// Our own root property holding the time control's exact spec (`TESUJITIME[fischer:3m+10s,max=3m]`), beside
/// the `TM`/`OT` other programs read; the clock crate reads it back.
pub const OWN_TIME: &str = "TESUJITIME";

/// The name other programs read in `RU` for our rules: `Japanese`, `Chinese`, `Korean`, `AGA`, `NZ`,
/// `Tromp-Taylor` and `BGA` (the names KGS, OGS and Sabaki write, and KataGo reads); `ideal`, which no
/// other program knows, as its nearest, `Tromp-Taylor` (area scoring, suicide allowed). Overridden knobs are
/// not named: the exact rules are in [`OWN_RULES`].
pub fn conventional_name(rules: &Rules) -> &'static str {
    match rules.preset {
        Preset::Japanese => "Japanese",
        Preset::Chinese => "Chinese",
        Preset::Korean => "Korean",
        Preset::Aga => "AGA",
        Preset::NewZealand => "NZ",
        Preset::TrompTaylor | Preset::Ideal => "Tromp-Taylor",
        Preset::Bga => "BGA",
    }
}

/// The rules the root names: our own [`OWN_RULES`] spec when present and readable, else `RU`: one of our spec
/// strings, a name other programs write (Japanese, Chinese, AGA, NZ / New Zealand, Korean, Tromp-Taylor,
/// BGA), or one of KataGo's `koPOSITIONALscoreAREA...` strings.
pub fn rules_of(tree: &Tree) -> RulesFromRecord {
    if let Some(r) = tree
        .root()
        .value(OWN_RULES)
        .and_then(|raw| unescape(raw).trim().parse::<Rules>().ok())
    {
        return RulesFromRecord::Known(r);
    }
    match tree.root().value("RU") {
        None => RulesFromRecord::Absent,
        Some(raw) => {
            let text = unescape(raw);
            match rules_from_name(&text) {
                Some(r) => RulesFromRecord::Known(r),
                None => RulesFromRecord::Unknown(text),
            }
        }
    }
}

/// Rules for an `RU` value, if we know it.
pub fn rules_from_name(name: &str) -> Option<Rules> {
    let name = name.trim();
    if let Ok(r) = name.parse::<Rules>() {
        return Some(r);
    }
    let key: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    let preset = match key.as_str() {
        "japanese" | "jp" => Preset::Japanese,
        "korean" | "kr" => Preset::Korean,
        "chinese" | "cn" => Preset::Chinese,
        "aga" | "american" => Preset::Aga,
        "nz" | "newzealand" => Preset::NewZealand,
        "trompataylor" | "tromptaylor" | "tt" => Preset::TrompTaylor,
        _ => return katago_rules(name),
    };
    Some(Rules::preset(preset))
}

/// KataGo's compact rules strings, e.g. `koPOSITIONALscoreAREAtaxNONEsui1whbN`: the fields we can express.
/// `tax ALL` is stone scoring under area scoring; under territory scoring it and the button have no knob here,
/// so such strings are not understood.
fn katago_rules(text: &str) -> Option<Rules> {
    let mut rest = text;
    let mut fields: Vec<(&str, &str)> = Vec::new();
    const KEYS: [&str; 8] = ["ko", "score", "tax", "sui", "button", "whb", "fpok", "komi"];
    while !rest.is_empty() {
        let key = KEYS.iter().find(|k| rest.starts_with(*k))?;
        rest = &rest[key.len()..];
        let end = KEYS
            .iter()
            .filter_map(|k| rest.find(k))
            .filter(|&i| i > 0)
            .min()
            .unwrap_or(rest.len());
        fields.push((key, &rest[..end]));
        rest = &rest[end..];
    }
    let get = |k: &str| fields.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
    let scoring = match get("score")? {
        "AREA" => ScoringRule::Area,
        "TERRITORY" => ScoringRule::Territory,
        _ => return None,
    };
    let mut r = Rules::preset(if scoring == ScoringRule::Area {
        Preset::Chinese
    } else {
        Preset::Japanese
    });
    r.ko = match get("ko")? {
        "SIMPLE" => KoRule::Simple,
        "POSITIONAL" => KoRule::Positional,
        "SITUATIONAL" => KoRule::Situational,
        _ => return None,
    };
    if r.ko != KoRule::Simple {
        r.repetition = tesuji_rules::Repetition::None;
    }
    // KataGo's suicide is multi-stone suicide; single-stone suicide is never legal there.
    r.suicide = match get("sui").unwrap_or("0") {
        "0" | "false" => SuicideRule::Forbidden,
        "1" | "true" => SuicideRule::Multi,
        _ => return None,
    };
    r.seki_eyes = match get("tax").unwrap_or("NONE") {
        "NONE" => SekiEyes::Count,
        "SEKI" => SekiEyes::None,
        "ALL" if scoring == ScoringRule::Area => {
            r.scoring = ScoringRule::Stones;
            SekiEyes::Count
        }
        _ => return None,
    };
    r.handicap_bonus = match get("whb").unwrap_or("0") {
        "0" => HandicapBonus::Zero,
        "N" => HandicapBonus::N,
        "N-1" => HandicapBonus::NMinusOne,
        _ => return None,
    };
    if !matches!(get("button"), None | Some("0") | Some("false")) {
        return None;
    }
    if let Some(k) = get("komi") {
        r.komi = Komi::white(parse_komi(k).ok()?);
    }
    Some(r)
}

/// The rules to replay a record with: `rules` (or the record's `RU`, or `default`), with the record's size,
/// `KM` and `HA` applied.
pub fn record_rules(
    tree: &Tree,
    rules: Option<Rules>,
    default: Rules,
) -> Result<Rules, RecordError> {
    let mut r = match (rules, rules_of(tree)) {
        (Some(r), _) => r,
        (None, RulesFromRecord::Known(r)) => r,
        (None, _) => default,
    };
    r.size = size_of(tree)?;
    if let Some(k) = komi_of(tree)? {
        r.komi = Komi::white(k);
    }
    r.handicap = handicap_of(tree)?;
    Ok(r)
}

/// A replayed main line.
#[derive(Debug, Clone)]
pub struct Replay {
    pub game: Game,
    /// Turns of the record replayed (plays and passes; inserted passes not counted).
    pub turns: usize,
    /// Where the replay read the record generously, in node order.
    pub notes: Vec<ReplayNote>,
    /// For each main-line node (0 is the root), the turns of the replayed game once that node is played
    /// (inserted passes included): where the node's comment belongs in a move-by-move view.
    pub node_turns: Vec<usize>,
}

/// A place where a record is not a game as the rules see it but was read as its players surely meant: two moves
/// of one colour in a row (a pass left out, inserted), or play that goes on after two passes under rules where
/// they end the game (read as resumed play).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayNote {
    /// The node's place in the main line (0 is the root).
    pub node: usize,
    /// The node's index in the tree, for [`crate::Read::node_positions`].
    pub id: NodeId,
    pub kind: NoteKind,
    /// Turns in the replayed game before this node's move (inserted passes included): the move concerned is
    /// the game's turn number `turn + 1`, or the one after the inserted pass.
    pub turn: usize,
    pub message: String,
}

/// What a [`ReplayNote`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// The other colour's pass was inserted before this move.
    PassInserted,
    /// Play goes on after two passes that end the game under these rules.
    PlayAfterEnd,
}

/// Decodes a move value: a point, or a pass (`""`, and `tt` on boards up to 19 × 19).
pub fn decode_move(raw: &str, size: Size) -> Option<Move> {
    let t = raw.trim();
    if t.is_empty() || (t == "tt" && size.width() <= 19 && size.height() <= 19) {
        return Some(Move::Pass);
    }
    let (x, y) = parse_point(t)?;
    let p = Point::new(x, y);
    size.contains(p).then_some(Move::Play(p))
}

/// Replays the main line of a record under `rules` (whose size must be the record's): setup stones (`AB`, `AW`,
/// `AE`, with compressed point lists) and `PL` of the nodes up to the first move, then every move; setup after
/// a move is refused. After play ended with two passes,
/// a further move means a dispute resumed play (§6.3); under `end=score`, where two passes end the game, a
/// record that plays on is replayed with `end=agree` so that it may. Two moves of one colour in a row are read
/// as GTP engines read them: the other colour's pass is inserted between them. Each such reading is a
/// [`ReplayNote`]. The first illegal move is reported with its node (0 is the root), colour, point and reason.
pub fn replay(tree: &Tree, rules: Rules) -> Result<Replay, RecordError> {
    let size = rules.size;
    let main: Vec<NodeId> = tree.main_line().collect();
    let mut notes = Vec::new();
    let mut rules = rules;
    let mut after_end = None;
    if rules.end == tesuji_rules::EndRule::Score {
        after_end = play_after_two_passes(tree, &main, size);
        if after_end.is_some() {
            rules.end = tesuji_rules::EndRule::Agree;
        }
    }
    let is_move = |id: NodeId| tree.node(id).is_some_and(Node::has_move);
    // Setup stones of the root and of the nodes before the first move (some servers put the handicap stones
    // in the node after the root) make the starting position.
    let first_move = main
        .iter()
        .position(|&id| is_move(id))
        .unwrap_or(main.len());
    let mut grid = Grid::new(size);
    let mut player = None;
    for (k, &id) in main.iter().enumerate().take(first_move + 1) {
        let Some(node) = tree.node(id) else { continue };
        if k == first_move {
            // The first move's own node may carry setup too: it applies before the move.
            if ["AB", "AW", "AE"].iter().all(|i| node.get(i).is_none()) {
                break;
            }
        }
        for (ident, color) in [
            ("AB", Some(Color::Black)),
            ("AW", Some(Color::White)),
            ("AE", None),
        ] {
            if let Some(p) = node.get(ident) {
                let points =
                    point_list(&p.values, size.width(), size.height()).map_err(|value| {
                        RecordError::BadPoint {
                            node: k,
                            ident: ident.to_string(),
                            value,
                            size,
                        }
                    })?;
                for (x, y) in points {
                    grid.set(Point::new(x, y), color);
                }
            }
        }
        if let Some(pl) = node.value("PL") {
            player = Some(pl.trim().to_ascii_uppercase());
        }
    }
    let first_mover = main.get(first_move).and_then(|&id| {
        let n = tree.node(id)?;
        if n.get("B").is_some() {
            Some(Color::Black)
        } else {
            Some(Color::White)
        }
    });
    let to_move = match player {
        Some(pl) if pl.starts_with('W') => Color::White,
        Some(pl) if pl.starts_with('B') => Color::Black,
        _ => first_mover.unwrap_or(Color::Black),
    };
    let mut game = Game::from_position(rules, &grid, to_move)
        .map_err(|e| RecordError::Setup(e.to_string()))?;
    let mut turns = 0;
    let mut node_turns = Vec::with_capacity(main.len());
    for (k, &id) in main.iter().enumerate() {
        let Some(node) = tree.node(id) else {
            node_turns.push(game.turns() as usize);
            continue;
        };
        if k > first_move && ["AB", "AW", "AE"].iter().any(|i| node.get(i).is_some()) {
            return Err(RecordError::SetupInPlay { node: k });
        }
        for (ident, color) in [("B", Color::Black), ("W", Color::White)] {
            let Some(raw) = node.value(ident) else {
                continue;
            };
            let mv = decode_move(raw, size).ok_or_else(|| RecordError::BadPoint {
                node: k,
                ident: ident.to_string(),
                value: raw.to_string(),
                size,
            })?;
            if game.phase() == tesuji_rules::Phase::Marking {
                // A move after the end of play: the players disputed and play resumed.
                let _ = game.dispute(color);
            }
            let other = color.opponent();
            let before = game.turns() as usize;
            if after_end == Some(k) {
                after_end = None;
                notes.push(ReplayNote {
                    node: k,
                    id,
                    kind: NoteKind::PlayAfterEnd,
                    turn: before,
                    message:
                        "play goes on after two passes, which end the game under these rules: read \
                              as resumed play"
                            .to_string(),
                });
            }
            if game.phase() == tesuji_rules::Phase::Playing
                && game.to_move() == other
                && game.play(other, Move::Pass).is_ok()
            {
                notes.push(ReplayNote {
                    node: k,
                    id,
                    kind: NoteKind::PassInserted,
                    turn: before,
                    message: format!(
                        "two {color} moves in a row: read with a {other} pass between them"
                    ),
                });
                if game.phase() == tesuji_rules::Phase::Marking {
                    // The inserted pass ended play; this move resumes it.
                    let _ = game.dispute(color);
                }
            }
            game.play(color, mv)
                .map_err(|reason| RecordError::Illegal {
                    node: k,
                    color,
                    mv: match mv {
                        Move::Pass => "pass".to_string(),
                        Move::Play(p) => p.to_gtp(size),
                    },
                    reason,
                })?;
            turns += 1;
        }
        node_turns.push(game.turns() as usize);
    }
    Ok(Replay {
        game,
        turns,
        notes,
        node_turns,
    })
}

/// The main-line index of the first move that follows two passes in a row, if any; the passes that replay
/// inserts between two moves of one colour count.
fn play_after_two_passes(tree: &Tree, main: &[NodeId], size: Size) -> Option<usize> {
    let mut passes = 0;
    let mut last = None;
    for (k, &id) in main.iter().enumerate() {
        let Some(node) = tree.node(id) else { continue };
        for (ident, color) in [("B", Color::Black), ("W", Color::White)] {
            let Some(mv) = node.value(ident).and_then(|raw| decode_move(raw, size)) else {
                continue;
            };
            if last == Some(color) {
                passes += 1; // the other colour's pass, inserted
            }
            if passes >= 2 {
                return Some(k);
            }
            passes = if mv == Move::Pass { passes + 1 } else { 0 };
            last = Some(color);
        }
    }
    None
}

/// What a record says about a game beyond its moves. Every field is optional; text is escaped when written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameInfo {
    pub black: Option<String>,
    pub white: Option<String>,
    pub black_rank: Option<String>,
    pub white_rank: Option<String>,
    pub date: Option<String>,
    pub event: Option<String>,
    pub round: Option<String>,
    pub place: Option<String>,
    /// Main time in seconds (`TM`).
    pub time_limit: Option<String>,
    /// Overtime description (`OT`).
    pub overtime: Option<String>,
    /// The time control's exact spec, in our own [`OWN_TIME`] property.
    pub time_spec: Option<String>,
    /// A comment on the root node (`C`).
    pub comment: Option<String>,
    /// Notes on the game as a whole (`GC`).
    pub game_comment: Option<String>,
}

/// The SGF of a game: `FF[4]GM[1]CA[UTF-8]`, size, komi, handicap, rules (`RU` the conventional name, and our
/// canonical spec string in [`OWN_RULES`]), the
/// starting position (`AB`/`AW`, and `PL` when White starts without handicap stones), the game information,
/// every turn in order (passes as `B[]`), and the result when the game is over.
pub fn to_tree(game: &Game, info: &GameInfo) -> Tree {
    let rules = game.rules();
    let size = rules.size;
    let mut root = vec![
        crate::Property::raw("FF", vec!["4".into()]),
        crate::Property::raw("GM", vec!["1".into()]),
        crate::Property::raw("CA", vec!["UTF-8".into()]),
        crate::Property::raw(
            "SZ",
            vec![if size.width() == size.height() {
                size.width().to_string()
            } else {
                format!("{}:{}", size.width(), size.height())
            }],
        ),
        crate::Property::raw(
            "KM",
            vec![tesuji_rules::result::format_half_points(rules.komi.net())],
        ),
    ];
    if rules.handicap >= 2 {
        root.push(crate::Property::raw("HA", vec![rules.handicap.to_string()]));
    }
    root.push(crate::Property::text("RU", conventional_name(rules)));
    root.push(crate::Property::text(OWN_RULES, &rules.to_string()));
    let start = game.start_grid();
    for (ident, color) in [("AB", Color::Black), ("AW", Color::White)] {
        let points: Vec<String> = size
            .points()
            .filter(|&p| start.get(p) == Some(color))
            .map(sgf_point)
            .collect();
        if !points.is_empty() {
            root.push(crate::Property::raw(ident, points));
        }
    }
    let has_handicap_stones = start.count(Color::Black) > 0 && rules.handicap >= 2;
    if game.start_to_move() == Color::White && !has_handicap_stones {
        root.push(crate::Property::raw("PL", vec!["W".into()]));
    }
    let fields = [
        ("PB", &info.black),
        ("PW", &info.white),
        ("BR", &info.black_rank),
        ("WR", &info.white_rank),
        ("DT", &info.date),
        ("EV", &info.event),
        ("RO", &info.round),
        ("PC", &info.place),
        ("TM", &info.time_limit),
        ("OT", &info.overtime),
        (OWN_TIME, &info.time_spec),
        ("C", &info.comment),
        ("GC", &info.game_comment),
    ];
    for (ident, value) in fields {
        if let Some(v) = value {
            root.push(crate::Property::text(ident, v));
        }
    }
    if let Some(result) = game.result() {
        root.push(crate::Property::text("RE", &result.to_string()));
    }
    let mut tree = Tree::new();
    tree.root_mut().properties = root;
    let mut at = Tree::ROOT;
    for action in game.log() {
        if let tesuji_rules::Action::Turn(color, mv) = action {
            let ident = if *color == Color::Black { "B" } else { "W" };
            let value = match mv {
                Move::Pass => String::new(),
                Move::Play(p) => sgf_point(*p),
            };
            if let Some(next) = tree.add_child(at, vec![crate::Property::raw(ident, vec![value])]) {
                at = next;
            }
        }
    }
    // A counted game's territory goes on the last node: `TB` the empty points of Black's area and every dead white
    // stone, `TW` the same for White, as KGS and OGS mark a count (under territory scoring a seki eye the rules
    // do not count may be marked too); `dead_stones_of` reads the dead stones back.
    if game.result().is_some_and(|r| r.score.is_some()) {
        let grid = game.grid();
        let dead = game.dead_stones();
        let owners = tesuji_rules::score::owners(&grid, dead);
        for (ident, owner) in [("TB", Color::Black), ("TW", Color::White)] {
            // Its empty points, and every dead stone of the other colour (even one in a neutral region).
            let points: Vec<String> = size
                .points()
                .filter(|p| match grid.get(*p) {
                    None => owners[size.index(*p)] == Some(owner),
                    Some(c) => c != owner && dead.contains(p),
                })
                .map(sgf_point)
                .collect();
            if !points.is_empty()
                && let Some(node) = tree.node_mut(at)
            {
                node.properties.push(crate::Property::raw(ident, points));
            }
        }
    }
    tree
}

/// The dead stones a record marks on its last main-line node: stones of one colour on the other colour's
/// territory points (`TB`, `TW`), as [`to_tree`] and KGS write them. Territory marks on empty points are not
/// dead stones and are left out.
pub fn dead_stones_of(tree: &Tree, grid: &Grid) -> Vec<Point> {
    let Some(last) = tree.main_line().last().and_then(|id| tree.node(id)) else {
        return Vec::new();
    };
    let size = grid.size();
    let mut dead = Vec::new();
    for (ident, dead_color) in [("TB", Color::White), ("TW", Color::Black)] {
        for prop in last.properties.iter().filter(|p| p.ident == ident) {
            // A malformed list marks nothing: the count then simply has fewer dead stones.
            let points = crate::parse::point_list(&prop.values, size.width(), size.height())
                .unwrap_or_default();
            for (x, y) in points {
                let p = Point::new(x, y);
                if grid.get(p) == Some(dead_color) && !dead.contains(&p) {
                    dead.push(p);
                }
            }
        }
    }
    dead.sort_unstable();
    dead
}

/// The SGF coordinates of a point: `a`..`z`, then `A`..`Z`.
pub fn sgf_point(p: Point) -> String {
    let letter = |v: u8| {
        if v < 26 {
            (b'a' + v) as char
        } else {
            (b'A' + v - 26) as char
        }
    };
    format!("{}{}", letter(p.x), letter(p.y))
}
