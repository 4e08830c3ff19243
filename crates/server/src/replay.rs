//! Replays for the pages (the board after every move) of a game or of an uploaded SGF file, a finished game
//! counted under every ruleset, and the numbering of actions the move list uses. Boards come from the rules
//! crate, so the pages never judge captures.

use serde::Serialize;
use tesuji_rules::{Color, Game, Grid, Move, Phase, Rules, Size};
use tesuji_sgf::record::{
    GameInfo, NoteKind, Replay, RulesFromRecord, dead_stones_of, record_rules, replay, rules_of,
};
use tesuji_sgf::{NodeId, Tree};

use crate::error::Error;

/// The most turns an uploaded record may have for its replay: far beyond any game people play (a long 25×25 game
/// has about 1,500), so that an upload costs bounded work.
pub const MAX_UPLOAD_TURNS: usize = 10_000;

/// A game move by move: the start, then each move with the stones it took off the board (the rules crate's
/// captures, so the page never judges one). The answer grows with the moves, not with moves × board.
#[derive(Debug, Serialize)]
pub struct ReplayView {
    pub width: u8,
    pub height: u8,
    pub rules: String,
    pub info: InfoView,
    /// Rows from the top (`.`, `X`, `O`) before the first move.
    pub start: Vec<String>,
    /// `D4`, `pass`, in order.
    pub moves: Vec<String>,
    pub colors: Vec<&'static str>,
    /// `removed[k]`: the points whose stones move `k` took off (captures, and a suicide's own stones, the played
    /// one among them), as GTP vertices.
    pub removed: Vec<Vec<String>>,
    /// Where an uploaded record was read generously (empty for stored games).
    pub notes: Vec<NoteView>,
    /// The record's comments (`C`) on its main line, each at the move after which it was written (0: before the
    /// first), in order.
    pub comments: Vec<CommentView>,
    /// The count of a game whose play ended by passes: its dead stones and totals (a stored game's final
    /// count; an uploaded record's, with the dead stones its last node marks with `TB`/`TW`).
    pub count: Option<CountView>,
    /// An uploaded record's variations: every other branch of its tree, each followed along its first
    /// children: the main line's branches first, then each variation's, in the order they are found (a
    /// variation's parent comes before it). At most [`MAX_VARIATIONS`]; one with an illegal move, or setup
    /// stones of its own, is left out.
    pub variations: Vec<VariationView>,
    /// How many variations the record has beyond those given.
    pub variations_left_out: usize,
}

/// The most variations of an uploaded record replayed, and the most turns replayed for them all (each is
/// replayed from the start): an upload costs bounded work whatever its tree.
pub const MAX_VARIATIONS: usize = 100;
const MAX_VARIATION_TURNS: usize = 50_000;
/// The most nodes of all variations' lines (each from the root), so that a record of many branches deep in a
/// long line of empty nodes costs bounded work too.
const MAX_VARIATION_NODES: usize = 200_000;

/// A branch of a record: it leaves line `parent` (0 the main line, k the k-th variation, 1-based) after that
/// line's first `at` moves, and goes on with `moves` (its `colors`, `removed` and `comments` as the main line's;
/// a comment's `move` counts from the start of the game, through the parent's moves).
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct VariationView {
    pub parent: usize,
    pub at: usize,
    pub moves: Vec<String>,
    pub colors: Vec<&'static str>,
    pub removed: Vec<Vec<String>>,
    /// How many of the parent line's comments (the first ones) belong to the moves shared with it.
    pub shared_comments: usize,
    pub comments: Vec<CommentView>,
}

/// A comment of a record, after move `move` of the main line (0: before the first move).
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct CommentView {
    #[serde(rename = "move")]
    pub number: usize,
    pub text: String,
}

/// A count at the end of play: the dead stones, each side's total and Black's margin, in half-points.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct CountView {
    pub dead: Vec<String>,
    pub black: i32,
    pub white: i32,
    pub margin: i32,
}

impl CountView {
    fn of(
        score: &tesuji_rules::result::Score,
        dead: &[tesuji_rules::Point],
        size: Size,
    ) -> CountView {
        let mut dead: Vec<String> = dead.iter().map(|p| p.to_gtp(size)).collect();
        dead.sort();
        CountView {
            dead,
            black: score.black.total,
            white: score.white.total,
            margin: score.margin(),
        }
    }

    /// A stored game's final count, when it ended with one.
    pub fn of_game(game: &Game) -> Option<CountView> {
        let score = game.result()?.score.as_ref()?;
        Some(CountView::of(score, game.dead_stones(), game.rules().size))
    }
}

/// A place where a record was read generously: `move` (1-based, as `moves`) is the pass inserted
/// (`pass_inserted`: the record has two moves of one colour in a row) or the move that resumes play after two
/// passes that ended the game under its rules (`play_after_end`).
#[derive(Debug, Serialize)]
pub struct NoteView {
    pub kind: &'static str,
    #[serde(rename = "move")]
    pub number: usize,
    /// The main-line node of the record (0 is the root).
    pub node: usize,
}

#[derive(Debug, Default, Serialize)]
pub struct InfoView {
    pub black: Option<String>,
    pub white: Option<String>,
    pub result: Option<String>,
    /// Komi in half-points.
    pub komi: i32,
    /// For an uploaded record whose rules were not understood or not given: `unknown` or `absent`, the moves
    /// being shown (and counted) under `rules` instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules_note: Option<&'static str>,
    /// The record's `RU` as written, when it was not understood.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_rules: Option<String>,
    /// What else the record says of the game (SGF's `DT`, `EV`, `RO`, `PC`, `BR`, `WR`, `GC`), when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black_rank: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white_rank: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_comment: Option<String>,
}

/// The longest text of a record's information shown (a comment may be longer).
const INFO_CHARS: usize = 200;

impl InfoView {
    /// The facts of a record's information, each cut to a length a page can show.
    pub fn with_record(mut self, info: &GameInfo) -> InfoView {
        let cut = |t: &Option<String>| t.as_ref().map(|t| t.chars().take(INFO_CHARS).collect());
        self.date = cut(&info.date);
        self.event = cut(&info.event);
        self.round = cut(&info.round);
        self.place = cut(&info.place);
        self.black_rank = cut(&info.black_rank);
        self.white_rank = cut(&info.white_rank);
        self.game_comment = info
            .game_comment
            .as_ref()
            .map(|t| t.chars().take(COMMENT_CHARS).collect());
        self
    }
}

/// The longest comment shown; longer ones are cut (an upload is at most 1 MiB anyway).
const COMMENT_CHARS: usize = 4_000;

fn rows(game: &Game) -> Vec<String> {
    grid_rows(&game.grid())
}

/// A position's rows from the top (`.`, `X`, `O`), as the API shows boards.
pub fn grid_rows(grid: &Grid) -> Vec<String> {
    let width = usize::from(grid.size().width()).max(1);
    grid.cells()
        .chunks(width)
        .map(|row| {
            row.iter()
                .map(|c| match c {
                    None => '.',
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                })
                .collect()
        })
        .collect()
}

/// The rows of a game's current board, as the API shows boards.
pub fn board_rows(game: &Game) -> Vec<String> {
    rows(game)
}

/// Replays the turns of `game` from its start, collecting the board after each.
pub fn replay_turns(game: &Game, info: InfoView) -> ReplayView {
    let rules = *game.rules();
    let size = rules.size;
    let mut view = ReplayView {
        width: size.width(),
        height: size.height(),
        rules: rules.to_string(),
        info,
        start: Vec::new(),
        moves: Vec::new(),
        colors: Vec::new(),
        removed: Vec::new(),
        notes: Vec::new(),
        comments: Vec::new(),
        count: CountView::of_game(game),
        variations: Vec::new(),
        variations_left_out: 0,
    };
    // A new game under the rules starts the same way (handicap placement, forced passes) when no setup
    // stones were added; otherwise the recorded start is the position.
    let fresh = Game::new(rules).ok().filter(|g| {
        g.start_grid() == game.start_grid() && g.start_to_move() == game.start_to_move()
    });
    let start =
        fresh.or_else(|| Game::from_position(rules, &game.start_grid(), game.start_to_move()).ok());
    let Some(mut at) = start else {
        view.start = rows(game);
        return view;
    };
    view.start = rows(&at);
    let mut before = at.grid();
    for action in game.log() {
        // Every action is replayed (a dispute changes who moves next); only turns make a new board.
        if at.apply_action(action.clone()).is_err() {
            break;
        }
        let tesuji_rules::Action::Turn(color, mv) = action else {
            continue;
        };
        view.moves.push(match mv {
            Move::Pass => "pass".to_owned(),
            Move::Play(p) => p.to_gtp(size),
        });
        view.colors.push(color.name());
        let after = at.grid();
        let played = match mv {
            Move::Play(p) => Some(*p),
            Move::Pass => None,
        };
        view.removed.push(
            size.points()
                .filter(|&p| {
                    after.get(p).is_none() && (before.get(p).is_some() || Some(p) == played)
                })
                .map(|p| p.to_gtp(size))
                .collect(),
        );
        before = after;
    }
    view
}

/// The game an uploaded SGF file records (its first game, main line), as its replay shows it: what a review of
/// the file searches.
pub fn game_of_sgf(bytes: &[u8]) -> Result<Game, Error> {
    let read = tesuji_sgf::read(bytes).map_err(|e| Error::BadSgf(e.to_string()))?;
    let tree = first_tree(&read.collection.trees)?;
    let (rules, _, _) = upload_rules(tree)?;
    Ok(replay_upload(tree, rules)?.game)
}

fn first_tree(trees: &[Tree]) -> Result<&Tree, Error> {
    trees
        .first()
        .ok_or_else(|| Error::BadSgf("the file holds no game".into()))
}

/// An uploaded record's rules, with the note and the text the page shows when they are not ours.
fn upload_rules(tree: &Tree) -> Result<(Rules, Option<&'static str>, Option<String>), Error> {
    // A record under rules we do not know is shown under Tromp-Taylor: the board is the same for any rules
    // that allow the moves.
    let (known, rules_note, written) = match rules_of(tree) {
        RulesFromRecord::Known(r) => (Some(r), None, None),
        RulesFromRecord::Absent => (None, Some("absent"), None),
        RulesFromRecord::Unknown(ru) => (None, Some("unknown"), Some(ru)),
    };
    let rules =
        record_rules(tree, known, Rules::default()).map_err(|e| Error::BadSgf(e.to_string()))?;
    Ok((rules, rules_note, written))
}

/// Replays an uploaded record's main line, refusing one too long before any replay (so that it costs no more
/// than reading it).
fn replay_upload(tree: &Tree, rules: Rules) -> Result<Replay, Error> {
    let turns = tree
        .main_line()
        .filter_map(|id| tree.node(id))
        .filter(|node| node.has_move())
        .count();
    if turns > MAX_UPLOAD_TURNS {
        return Err(Error::RecordTooLong {
            turns,
            limit: MAX_UPLOAD_TURNS,
        });
    }
    replay(tree, rules).map_err(|e| Error::BadSgf(e.to_string()))
}

/// An uploaded SGF file move by move (its first game, main line).
pub fn of_sgf(bytes: &[u8]) -> Result<ReplayView, Error> {
    let read = tesuji_sgf::read(bytes).map_err(|e| Error::BadSgf(e.to_string()))?;
    let tree = first_tree(&read.collection.trees)?;
    let (rules, rules_note, written) = upload_rules(tree)?;
    let replayed = replay_upload(tree, rules)?;
    let root = tree.root();
    let text = |ident: &str| root.get(ident).and_then(|p| p.text_value());
    let main: Vec<NodeId> = tree.main_line().collect();
    let comments = comments_of(tree, &main, &replayed.node_turns, 0);
    // Play ended by passes: the count, with the dead stones the record marks.
    let count = (replayed.game.phase() == Phase::Marking).then(|| {
        let dead = dead_stones_of(tree, &replayed.game.grid());
        CountView::of(&replayed.game.score_with(&dead), &dead, rules.size)
    });
    let notes = replayed
        .notes
        .iter()
        .map(|n| NoteView {
            kind: match n.kind {
                NoteKind::PassInserted => "pass_inserted",
                NoteKind::PlayAfterEnd => "play_after_end",
            },
            number: n.turn + 1,
            node: n.node,
        })
        .collect();
    let mut view = replay_turns(
        &replayed.game,
        InfoView {
            black: text("PB"),
            white: text("PW"),
            result: text("RE"),
            komi: rules.komi.net(),
            rules_note,
            record_rules: written.map(|ru| ru.chars().take(100).collect()),
            ..InfoView::default()
        }
        .with_record(&GameInfo {
            date: text("DT"),
            event: text("EV"),
            round: text("RO"),
            place: text("PC"),
            black_rank: text("BR"),
            white_rank: text("WR"),
            game_comment: text("GC"),
            ..GameInfo::default()
        }),
    );
    view.notes = notes;
    view.comments = comments;
    (view.variations, view.variations_left_out) = variations_of(tree, rules, main);
    if view.count.is_none() {
        view.count = count;
    }
    Ok(view)
}

/// The comments (`C`) of the nodes `path[from..]`, each at the turns played once its node is.
fn comments_of(
    tree: &Tree,
    path: &[NodeId],
    node_turns: &[usize],
    from: usize,
) -> Vec<CommentView> {
    path.iter()
        .zip(node_turns)
        .skip(from)
        .filter_map(|(&id, &turns)| {
            let text = tree.node(id)?.get("C")?.text_value()?;
            let text = text.trim();
            (!text.is_empty()).then(|| CommentView {
                number: turns,
                text: text.chars().take(COMMENT_CHARS).collect(),
            })
        })
        .collect()
}

/// The path from the root to `node` and on along first children.
fn line_through(tree: &Tree, node: NodeId) -> Vec<NodeId> {
    let mut path = Vec::new();
    let mut at = Some(node);
    while let Some(id) = at {
        path.push(id);
        at = tree.node(id).and_then(|n| n.parent);
    }
    path.reverse();
    let mut at = tree.node(node).and_then(|n| n.children.first().copied());
    while let Some(id) = at {
        path.push(id);
        at = tree.node(id).and_then(|n| n.children.first().copied());
    }
    path
}

/// A tree of `path`'s nodes only, each the child of the one before: a line of the record to replay alone.
fn tree_of(tree: &Tree, path: &[NodeId]) -> Tree {
    let mut line = Tree::new();
    let mut last = Tree::ROOT;
    for (k, &id) in path.iter().enumerate() {
        let properties = tree
            .node(id)
            .map(|n| n.properties.clone())
            .unwrap_or_default();
        if k == 0 {
            line.root_mut().properties = properties;
        } else if let Some(next) = line.add_child(last, properties) {
            last = next;
        }
    }
    line
}

/// Every branch of the record besides its main line (whose nodes are `main`), replayed from the start under
/// `rules`, each keeping only what follows the point where it leaves its parent line; and how many were left
/// out by the caps.
fn variations_of(tree: &Tree, rules: Rules, main: Vec<NodeId>) -> (Vec<VariationView>, usize) {
    let depth = depths(tree);
    let is_move = |id: &NodeId| tree.node(*id).is_some_and(tesuji_sgf::Node::has_move);
    let is_setup = |id: &NodeId| {
        tree.node(*id)
            .is_some_and(|n| ["AB", "AW", "AE"].iter().any(|i| n.get(i).is_some()))
    };
    // Lines to look at: the line's nodes from the root, where its own nodes start (those before are its
    // parent's, whose branches are found with the parent), and its index among the lines (0: the main line).
    let mut lines: std::collections::VecDeque<(Vec<NodeId>, usize, usize)> = [(main, 0, 0)].into();
    let mut variations = Vec::new();
    let mut left_out = 0;
    let (mut turns_spent, mut nodes_spent) = (0, 0);
    while let Some((path, own, index)) = lines.pop_front() {
        for (k, &id) in path.iter().enumerate().skip(own) {
            let Some(node) = tree.node(id) else { continue };
            for &branch in node.children.iter().skip(1) {
                // Each line is built and replayed from the root: its nodes and moves count against the caps
                // before they cost anything (a deep branch point is refused on its depth alone).
                let prefix = depth.get(branch.0).copied().unwrap_or(usize::MAX);
                if variations.len() >= MAX_VARIATIONS
                    || prefix >= MAX_VARIATION_NODES.saturating_sub(nodes_spent)
                {
                    left_out += 1;
                    continue;
                }
                let line = line_through(tree, branch);
                nodes_spent += line.len();
                let turns = line.iter().filter(|id| is_move(id)).count();
                // Setup stones of its own would need a board of its own: such a branch (a problem
                // collection's) is left out, as is one over the caps.
                if nodes_spent > MAX_VARIATION_NODES
                    || turns > MAX_UPLOAD_TURNS
                    || turns_spent + turns > MAX_VARIATION_TURNS
                    || line.iter().skip(k + 1).any(is_setup)
                {
                    left_out += 1;
                    continue;
                }
                turns_spent += turns;
                let Ok(replayed) = replay(&tree_of(tree, &line), rules) else {
                    left_out += 1;
                    continue;
                };
                let at = replayed.node_turns.get(k).copied().unwrap_or(0);
                let whole = replay_turns(&replayed.game, InfoView::default());
                variations.push(VariationView {
                    parent: index,
                    at,
                    moves: whole.moves.into_iter().skip(at).collect(),
                    colors: whole.colors.into_iter().skip(at).collect(),
                    removed: whole.removed.into_iter().skip(at).collect(),
                    shared_comments: comments_of(tree, &line[..=k], &replayed.node_turns, 0).len(),
                    comments: comments_of(tree, &line, &replayed.node_turns, k + 1),
                });
                let given = variations.len();
                lines.push_back((line, k + 1, given));
            }
        }
    }
    (variations, left_out)
}

/// Each node's depth (the root's is 0). Nodes come in document order, a parent before its children.
fn depths(tree: &Tree) -> Vec<usize> {
    let mut depth = vec![0; tree.len()];
    for (k, node) in tree.nodes().iter().enumerate() {
        if let Some(parent) = node.parent {
            depth[k] = depth
                .get(parent.0)
                .map_or(usize::MAX, |d| d.saturating_add(1));
        }
    }
    depth
}

/// One ruleset's count of a game, as `GET /api/games/{id}/rulesets` answers it.
#[derive(Debug, Serialize)]
pub struct RulesetCount {
    /// The spec compared under (`chinese`, `bga:counting=japanese,aga=on`...); the game's own canonical spec
    /// for the first row.
    pub spec: String,
    /// The canonical spec with the board's size and the komi applied (absent where the preset does not take
    /// the board).
    pub rules: Option<String>,
    pub result: Option<String>,
    /// Totals in half-points.
    pub black: Option<i32>,
    pub white: Option<i32>,
    /// The first move the ruleset refuses: its number among the turns, and the reason code.
    pub illegal: Option<IllegalView>,
    /// The preset does not take this board.
    pub unavailable: bool,
}

#[derive(Debug, Serialize)]
pub struct IllegalView {
    #[serde(rename = "move")]
    pub turn: usize,
    pub reason: &'static str,
}

/// A finished game counted under its own rules and then every ruleset of `tesuji_rules::compare`, with its
/// komi, handicap and dead stones.
pub fn rulesets(game: &Game) -> Vec<RulesetCount> {
    use tesuji_rules::compare::{Refused, count_under_all};
    let rules = *game.rules();
    let totals = |s: Option<tesuji_rules::result::Score>| {
        (s.map(|s| s.black.total), s.map(|s| s.white.total))
    };
    let own = game.result().copied();
    let (black, white) = totals(own.and_then(|r| r.score));
    let mut out = vec![RulesetCount {
        spec: rules.to_string(),
        rules: Some(rules.to_string()),
        result: own.map(|r| r.to_string()),
        black,
        white,
        illegal: None,
        unavailable: false,
    }];
    for c in count_under_all(game, Some(rules.komi), game.dead_stones()) {
        let (mut row_result, mut illegal, mut unavailable) = (None, None, false);
        let (mut black, mut white) = (None, None);
        match c.outcome {
            Ok(count) => {
                row_result = Some(count.result.to_string());
                (black, white) = totals(count.score);
            }
            Err(Refused::Illegal { turn, reason }) => {
                illegal = Some(IllegalView {
                    // As the move list numbers actions.
                    turn: turn_number(game, turn as u32) as usize,
                    reason: crate::error::illegal_reason(&reason),
                });
            }
            Err(Refused::Size) => unavailable = true,
        }
        out.push(RulesetCount {
            spec: c.spec.to_string(),
            rules: c.rules.map(|r| r.to_string()),
            result: row_result,
            black,
            white,
            illegal,
            unavailable,
        });
    }
    out
}

/// The number of the action (as stored and listed) that was the game's `turn`-th turn; 0 for the start. Each
/// stored action is one action of the game's log.
pub fn turn_number(game: &Game, turn: u32) -> i64 {
    let mut turns = 0;
    let mut number = 0;
    for (k, action) in game.log().iter().enumerate() {
        if turns == turn {
            break;
        }
        if matches!(action, tesuji_rules::Action::Turn(..)) {
            turns += 1;
            number = k as i64 + 1;
        }
    }
    number
}

#[cfg(test)]
mod tests {
    use tesuji_rules::{Game, Move, Point, Rules};

    use super::*;

    #[test]
    fn an_uploaded_record_brings_its_facts_comments_and_count() {
        // Two Black moves in a row: White's pass is inserted, so the comments after it move on by one.
        let sgf = "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]PB[Shusaku]BR[7d]PW[Gennan]WR[8d]DT[1846-09-11]\
                   EV[Castle game]RO[2]PC[Edo]GC[A famous game]C[Before];B[ee]C[Tengen];B[cc]C[Again \\] black]\
                   ;W[gg];B[];W[]C[  ]TB[gg])";
        let view = of_sgf(sgf.as_bytes()).unwrap();
        let info = &view.info;
        assert_eq!(
            (
                info.black_rank.as_deref(),
                info.white_rank.as_deref(),
                info.date.as_deref(),
                info.event.as_deref(),
                info.round.as_deref(),
                info.place.as_deref(),
                info.game_comment.as_deref()
            ),
            (
                Some("7d"),
                Some("8d"),
                Some("1846-09-11"),
                Some("Castle game"),
                Some("2"),
                Some("Edo"),
                Some("A famous game")
            )
        );
        assert_eq!(view.moves, ["E5", "pass", "C7", "G3", "pass", "pass"]);
        // Blank comments are left out.
        assert_eq!(
            view.comments,
            [
                CommentView {
                    number: 0,
                    text: "Before".into()
                },
                CommentView {
                    number: 1,
                    text: "Tengen".into()
                },
                CommentView {
                    number: 3,
                    text: "Again ] black".into()
                },
            ]
        );
        // White's G3 is marked dead in Black's territory: the count is the rules' with it removed.
        let count = view.count.expect("play ended by passes: a count");
        assert_eq!(count.dead, ["G3"]);
        let read = tesuji_sgf::read(sgf.as_bytes()).unwrap();
        let tree = &read.collection.trees[0];
        let rules = record_rules(tree, None, Rules::default()).unwrap();
        let replayed = tesuji_sgf::record::replay(tree, rules).unwrap();
        let g3 = Point::from_gtp("G3", replayed.game.rules().size).unwrap();
        let score = replayed.game.score_with(&[g3]);
        assert_eq!(
            (count.black, count.white, count.margin),
            (score.black.total, score.white.total, score.margin())
        );
        // Without the mark, G3 would be White's living stone: the count differs.
        assert_ne!(score.margin(), replayed.game.score_with(&[]).margin());
    }

    #[test]
    fn variations_leave_their_parent_line_where_the_record_branches() {
        // Main line E5 C7 G3; at move 1 a branch D6 (with its own branch after it, F4 or G7), and at move 1
        // a third branch, J1, with a comment.
        let sgf = "(;SZ[9];B[ee](;W[cc];B[gg])(;W[dd]C[a variation](;B[ff];W[aa])(;B[gc]))(;W[ii]C[corner]))";
        let view = of_sgf(sgf.as_bytes()).unwrap();
        assert_eq!(view.moves, ["E5", "C7", "G3"]);
        let shown: Vec<(usize, usize, Vec<&str>)> = view
            .variations
            .iter()
            .map(|v| (v.parent, v.at, v.moves.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            shown,
            [
                (0, 1, vec!["D6", "F4", "A9"]),
                (0, 1, vec!["J1"]),
                (1, 2, vec!["G7"]),
            ]
        );
        assert_eq!(view.variations[0].colors, ["white", "black", "white"]);
        assert_eq!(
            view.variations[0].comments,
            [CommentView {
                number: 2,
                text: "a variation".into()
            }]
        );
        assert_eq!(
            view.variations[1].comments,
            [CommentView {
                number: 2,
                text: "corner".into()
            }]
        );
        assert_eq!(view.variations_left_out, 0);
        // A variation with an illegal move is left out, and counted as such; the main line stands.
        let view = of_sgf(b"(;SZ[9];B[ee](;W[cc])(;W[ee]))").unwrap();
        assert_eq!((view.variations.len(), view.variations_left_out), (0, 1));
        // A comment on the parent's line after the branch point is not the variation's; one before it is.
        let view = of_sgf(b"(;SZ[9]C[root];B[ee](;C[later];W[cc])(;W[dd]))").unwrap();
        assert_eq!(
            (
                view.variations[0].shared_comments,
                view.variations[0].comments.len()
            ),
            (1, 0)
        );
        // A variation with setup stones of its own is left out.
        let view = of_sgf(b"(;SZ[9](;AB[cc];W[dd])(;AB[ee];W[ff]))").unwrap();
        assert_eq!((view.variations.len(), view.variations_left_out), (0, 1));
        // Many branches deep in a long line of empty nodes are refused on their depth.
        let deep = format!("(;SZ[19]{}{})", ";".repeat(150_000), "(;B[aa])".repeat(101));
        let started = std::time::Instant::now();
        let view = of_sgf(deep.as_bytes()).unwrap();
        assert_eq!(view.variations.len() + view.variations_left_out, 100);
        assert!(view.variations.len() <= 1, "{}", view.variations.len());
        eprintln!("deep branches: {:?}", started.elapsed());
        // A variation longer than a main line may be is left out, unreplayed.
        let long: String = (0..MAX_UPLOAD_TURNS)
            .map(|k| if k % 2 == 0 { ";W[]" } else { ";B[]" })
            .collect();
        let view = of_sgf(format!("(;SZ[9];B[ee](;W[cc])(;W[dd]{long}))").as_bytes()).unwrap();
        assert_eq!((view.variations.len(), view.variations_left_out), (0, 1));
        // A record of many variations gives at most MAX_VARIATIONS of them.
        let many: String = (0..150)
            .map(|k| {
                format!(
                    "(;W[{}{}])",
                    (b'a' + (k % 9) as u8) as char,
                    (b'a' + (k / 9 % 9) as u8) as char
                )
            })
            .collect();
        let view = of_sgf(format!("(;SZ[9];B[ii]{many})").as_bytes()).unwrap();
        assert_eq!(view.variations.len() + view.variations_left_out, 149);
        assert!(view.variations.len() <= MAX_VARIATIONS);
    }

    #[test]
    fn a_record_still_in_play_has_no_count_and_long_texts_are_cut() {
        let long = "x".repeat(10_000);
        let sgf = format!("(;SZ[9]EV[{long}]C[{long}];B[ee])");
        let view = of_sgf(sgf.as_bytes()).unwrap();
        assert_eq!(view.count, None);
        assert_eq!(
            view.info.event.as_ref().map(|e| e.chars().count()),
            Some(INFO_CHARS)
        );
        assert_eq!(view.comments[0].text.chars().count(), COMMENT_CHARS);
    }

    /// The boards a page rebuilds from a view: each move's stone placed, its removed points emptied.
    fn rebuilt(view: &ReplayView) -> Vec<Vec<String>> {
        let size = tesuji_rules::Size::new(view.width, view.height).unwrap();
        let mut cells: Vec<Vec<char>> = view.start.iter().map(|r| r.chars().collect()).collect();
        let mut boards = vec![view.start.clone()];
        for (k, mv) in view.moves.iter().enumerate() {
            if let Some(p) = Point::from_gtp(mv, size) {
                cells[p.y as usize][p.x as usize] =
                    if view.colors[k] == "black" { 'X' } else { 'O' };
            }
            for name in &view.removed[k] {
                let p = Point::from_gtp(name, size).unwrap();
                cells[p.y as usize][p.x as usize] = '.';
            }
            boards.push(cells.iter().map(|r| r.iter().collect()).collect());
        }
        boards
    }

    /// Random games with many captures and suicides: the rebuilt boards are the rules crate's after every move.
    #[test]
    fn a_replay_rebuilds_every_board_of_the_rules() {
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for spec in [
            "tromp-taylor:size=5",
            "chinese:size=7",
            "japanese:size=4x6",
            "tromp-taylor:size=9",
        ] {
            let rules: Rules = spec.parse().unwrap();
            for _ in 0..20 {
                let mut game = Game::new(rules).unwrap();
                let mut boards = vec![rows(&game)];
                let points: Vec<Point> = rules.size.points().collect();
                while boards.len() < 300 && game.phase() == tesuji_rules::Phase::Playing {
                    let color = game.to_move();
                    let tried = (0..50).find_map(|_| {
                        let p = points[(next() % points.len() as u64) as usize];
                        game.is_legal(color, Move::Play(p)).then_some(p)
                    });
                    let mv = tried.map_or(Move::Pass, Move::Play);
                    game.play(color, mv).unwrap();
                    boards.push(rows(&game));
                }
                let view = replay_turns(&game, InfoView::default());
                assert_eq!(view.moves.len() + 1, boards.len(), "{spec}");
                assert_eq!(rebuilt(&view), boards, "{spec}");
                let removed: usize = view.removed.iter().map(Vec::len).sum();
                assert!(
                    removed > 0 || boards.len() < 50,
                    "{spec}: a long game captured nothing"
                );
            }
        }
    }
}
