//! `loadsgf` and `printsgf`: game records in and out of a [`Position`].
//!
//! Loading keeps the engine's rule knobs and takes size, komi and handicap from the record (GTP: "board size
//! and komi are set to the values given in the sgf file"); the setup of the root and of the nodes before the
//! first move is read by `tesuji_sgf::record::replay`, and the moves are replayed in any colour order, as GTP
//! plays them.

use tesuji_rules::handicap::fixed_handicap_points;
use tesuji_rules::{Color, Game, Move, Placement, Point, Rules};
use tesuji_sgf::record::{GameInfo, decode_move, record_rules, replay, to_tree};
use tesuji_sgf::{Collection, Property, Tree};

use crate::error::GtpError;
use crate::position::Position;

fn load_error(e: impl std::fmt::Display) -> GtpError {
    GtpError::Load(e.to_string())
}

/// The position of a record's main line before move `move_number` (1 = no move; `None` = every move).
pub fn load(bytes: &[u8], move_number: Option<usize>, rules: &Rules) -> Result<Position, GtpError> {
    let read = tesuji_sgf::read(bytes).map_err(load_error)?;
    let tree = read
        .collection
        .trees
        .first()
        .ok_or_else(|| load_error("the file holds no game"))?;
    let mut rules = record_rules(tree, Some(*rules), *rules).map_err(load_error)?;
    let main: Vec<_> = tree.main_line().collect();
    let first_move = main
        .iter()
        .position(|&id| tree.node(id).is_some_and(tesuji_sgf::Node::has_move))
        .unwrap_or(main.len());
    // The setup alone: the nodes up to the first move, without their moves.
    let mut setup = Tree::new();
    let mut at = Tree::ROOT;
    for (k, &id) in main.iter().enumerate().take(first_move + 1) {
        let Some(node) = tree.node(id) else { continue };
        let props: Vec<Property> = node
            .properties
            .iter()
            .filter(|p| p.ident != "B" && p.ident != "W")
            .cloned()
            .collect();
        if k == 0 {
            setup.root_mut().properties = props;
        } else if let Some(next) = setup.add_child(at, props) {
            at = next;
        }
    }
    let start = replay(&setup, rules).map_err(load_error)?.game;
    let has_pl = main
        .iter()
        .take(first_move + 1)
        .any(|&id| tree.node(id).is_some_and(|n| n.get("PL").is_some()));
    let first_color = main.get(first_move).and_then(|&id| {
        let n = tree.node(id)?;
        Some(if n.get("B").is_some() {
            Color::Black
        } else {
            Color::White
        })
    });
    let to_move = if has_pl {
        start.start_to_move()
    } else {
        first_color.unwrap_or(
            if rules.handicap >= 2 && start.grid().count(Color::Black) > 0 {
                Color::White
            } else {
                Color::Black
            },
        )
    };
    if rules.handicap >= 2 {
        // The record says how many stones, not how they were placed: fixed when they are the fixed points.
        let fixed = fixed_handicap_points(rules.size, rules.handicap).is_some_and(|points| {
            let grid = start.start_grid();
            grid.count(Color::Black) == points.len()
                && points.iter().all(|&p| grid.get(p) == Some(Color::Black))
        });
        rules.placement = if fixed {
            Placement::Fixed
        } else {
            Placement::Free
        };
    }
    let mut pos = Position::with_start(rules, start.start_grid(), to_move).map_err(load_error)?;
    let limit = move_number.map(|n| n.saturating_sub(1));
    for (k, &id) in main.iter().enumerate() {
        let Some(node) = tree.node(id) else { continue };
        if k > first_move && ["AB", "AW", "AE"].iter().any(|i| node.get(i).is_some()) {
            return Err(load_error(format!(
                "node {k}: setup stones after the start of the game are not supported"
            )));
        }
        for (ident, color) in [("B", Color::Black), ("W", Color::White)] {
            let Some(raw) = node.value(ident) else {
                continue;
            };
            if limit.is_some_and(|l| pos.moves().len() >= l) {
                return Ok(pos);
            }
            let mv = decode_move(raw, rules.size)
                .ok_or_else(|| load_error(format!("node {k}: {ident}[{raw}] is not a move")))?;
            pos.play(color, mv).map_err(|reason| {
                load_error(format!(
                    "move {} ({color} {}) is illegal: {reason}",
                    pos.moves().len() + 1,
                    mv.to_gtp(pos.size())
                ))
            })?;
        }
    }
    Ok(pos)
}

/// The record of the position: the root as `tesuji_sgf::record::to_tree` writes it (size, komi, handicap,
/// rules, setup), every GTP move in order, and `RE`: the result the rules gave, if they ended the game, or
/// else, once the last two moves are passes, the count with `dead`.
pub fn record(pos: &Position, dead: &[Point]) -> Result<Tree, GtpError> {
    let start = Game::from_position(*pos.rules(), pos.start(), pos.start_to_move())
        .map_err(|e| GtpError::Write(e.to_string()))?;
    let mut tree = to_tree(&start, &GameInfo::default());
    let result = match pos.ruled_result() {
        Some(result) => Some(*result),
        None => pos.ended().then(|| pos.result(dead)),
    };
    if let Some(result) = result {
        tree.root_mut()
            .properties
            .push(Property::text("RE", &result.to_string()));
    }
    let mut at = Tree::ROOT;
    for &(color, mv) in pos.moves() {
        let ident = if color == Color::Black { "B" } else { "W" };
        let value = match mv {
            Move::Pass => String::new(),
            Move::Play(p) => tesuji_sgf::record::sgf_point(p),
        };
        if let Some(next) = tree.add_child(at, vec![Property::raw(ident, vec![value])]) {
            at = next;
        }
    }
    Ok(tree)
}

/// The record's text on one line: the writer's line breaks between nodes dropped (a break inside a value,
/// which our records never hold, becomes a space).
pub fn one_line(tree: Tree) -> String {
    let text = tesuji_sgf::write::write(&Collection { trees: vec![tree] });
    let mut out = String::with_capacity(text.len());
    let (mut in_value, mut escaped) = (false, false);
    for ch in text.chars() {
        match ch {
            '\n' | '\r' if !in_value => {}
            '\n' | '\r' => out.push(' '),
            _ => out.push(ch),
        }
        if in_value {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == ']' {
                in_value = false;
            }
        } else if ch == '[' {
            in_value = true;
        }
    }
    out
}
