//! The reference implementation against the perft tables of data/perft/README.md, read from the copy in
//! tests/data at test time.

use std::time::Instant;

use tesuji_rules::reference::{RefGame, perft};
use tesuji_rules::{Color, Grid, KoRule, Size, SuicideRule};

/// Each row is tested to the deepest depth d with perft(d) × d at most this (and at least to depth 2). The
/// reference clones its whole history at every node, so its time grows roughly with that product; this keeps
/// the whole table near a few seconds at the test profile's opt-level 2.
const MAX_WORK: u64 = 2_500_000;

/// One row of the table: a start, the rule sets it holds for, and perft(0), perft(1), ...
struct Row {
    label: String,
    start: Grid,
    to_move: Color,
    rules: Vec<String>,
    counts: Vec<u64>,
}

fn color(text: &str) -> Color {
    match text.trim().chars().next() {
        Some('b') => Color::Black,
        Some('w') => Color::White,
        _ => panic!("no colour to move in {text:?}"),
    }
}

/// `empty 2×2, b` or `` `...../..b.b` w (comment) ``.
fn parse_start(cell: &str) -> (Grid, Color) {
    if let Some(rest) = cell.strip_prefix("empty ") {
        let (dims, to_move) = rest.split_once(',').expect("empty W×H, colour");
        let (w, h) = dims.trim().split_once('×').expect("W×H");
        let size = Size::new(w.parse().unwrap(), h.parse().unwrap()).expect("board size");
        (Grid::new(size), color(to_move))
    } else {
        let mut parts = cell.split('`');
        assert_eq!(parts.next(), Some(""), "start cell {cell:?}");
        let rows = parts.next().expect("rows in backticks");
        let to_move = parts.next().expect("colour after the rows");
        (Grid::from_diagram(rows).unwrap(), color(to_move))
    }
}

fn table() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft/README.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut rows = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        // Data rows only: three cells, the counts starting at perft(0) = 1.
        if cells.len() != 3 || !cells[2].starts_with("1,") {
            continue;
        }
        let (start, to_move) = parse_start(cells[0]);
        rows.push(Row {
            label: format!("{} [{}]", cells[0], cells[1]),
            start,
            to_move,
            rules: cells[1].split('=').map(|r| r.trim().to_string()).collect(),
            counts: cells[2]
                .split(',')
                .map(|n| n.trim().trim_end_matches('*').parse().unwrap())
                .collect(),
        });
    }
    rows
}

fn suicide_rule(name: &str) -> SuicideRule {
    match name {
        "tt" => SuicideRule::All,
        "nosuicide" => SuicideRule::Forbidden,
        _ => panic!("unknown rule set {name:?}"),
    }
}

#[test]
fn table_reads_as_expected() {
    let rows = table();
    assert_eq!(rows.len(), 9, "rows of the perft table");
    for row in &rows {
        assert_eq!(row.counts[0], 1, "{}", row.label);
        assert!(row.counts.len() >= 5, "{}", row.label);
        for rules in &row.rules {
            suicide_rule(rules);
        }
    }
    assert_eq!(rows[0].start, Grid::new(Size::square(2).unwrap()));
    assert_eq!(rows[5].start, Grid::new(Size::square(19).unwrap()));
    assert_eq!(rows[6].start.to_rows(), "...../...../...../...b./..b.b");
    assert_eq!(rows[6].to_move, Color::White);
    assert_eq!(rows[7].start.to_rows(), ".w.bw/wbbbw/w.bww/bbbw./wwww.");
    assert_eq!(rows[7].to_move, Color::Black);
    assert_eq!(rows[8].rules, ["nosuicide"]);
    assert_eq!(rows[8].counts, [1, 5, 26, 109, 739, 6347, 62970]);
}

#[test]
fn perft_tables() {
    let failures: Vec<String> = table()
        .iter()
        .flat_map(|row| row.rules.iter().filter_map(|rules| check(row, rules).err()))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Compares perft(0..=depth) with the row, `depth` chosen by `MAX_WORK`.
fn check(row: &Row, rules: &str) -> Result<(), String> {
    let depth = (0..row.counts.len())
        .rfind(|&d| row.counts[d] * d as u64 <= MAX_WORK)
        .unwrap_or(0)
        .max(2);
    let game = RefGame::new(
        row.start.clone(),
        row.to_move,
        KoRule::Positional,
        suicide_rule(rules),
    );
    let clock = Instant::now();
    let got: Vec<u64> = (0..=depth as u32).map(|d| perft(&game, d)).collect();
    eprintln!(
        "{} as {rules}: depth {depth} in {:.2?}",
        row.label,
        clock.elapsed()
    );
    if got == row.counts[..=depth] {
        Ok(())
    } else {
        Err(format!(
            "{} as {rules}: got {got:?}, expected {:?}",
            row.label,
            &row.counts[..=depth]
        ))
    }
}
