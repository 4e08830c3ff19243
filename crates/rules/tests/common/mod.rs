//! Helpers shared by the integration tests: reading the external truth in `tests/data/`.
#![allow(dead_code)]

use tesuji_rules::{Color, Grid, Size};

/// A file under `tests/data/`.
pub fn data(path: &str) -> String {
    let full = format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("reading {full}: {e}"))
}

/// One row of the perft tables of `tests/data/perft/README.md`.
#[derive(Debug, Clone)]
pub struct PerftRow {
    pub start: Grid,
    pub to_move: Color,
    /// `tt`, `nosuicide`, or both (`tt = nosuicide`).
    pub rules: Vec<String>,
    pub counts: Vec<u64>,
}

/// Every row of the perft tables.
pub fn perft_rows() -> Vec<PerftRow> {
    let text = data("perft/README.md");
    let mut rows = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[3].starts_with("1,") {
            continue;
        }
        let (start, rules, counts) = (cells[1], cells[2], cells[3]);
        let (grid, to_move) = parse_start(start);
        rows.push(PerftRow {
            start: grid,
            to_move,
            rules: rules.split('=').map(|r| r.trim().to_string()).collect(),
            counts: counts
                .split(',')
                .map(|c| c.trim().trim_end_matches('*').parse().unwrap())
                .collect(),
        });
    }
    assert!(
        rows.len() >= 9,
        "perft README: found only {} rows",
        rows.len()
    );
    rows
}

/// `empty 3×3, b` or `` `...../...` w (comment) ``.
fn parse_start(start: &str) -> (Grid, Color) {
    let color = |c: &str| match c.trim() {
        "b" => Color::Black,
        "w" => Color::White,
        other => panic!("bad colour {other:?}"),
    };
    if let Some(rest) = start.strip_prefix("empty ") {
        let (dims, col) = rest.split_once(',').unwrap();
        let (w, h) = dims.split_once('×').unwrap();
        let size = Size::new(w.trim().parse().unwrap(), h.trim().parse().unwrap()).unwrap();
        (Grid::new(size), color(col))
    } else {
        let mut parts = start.split('`');
        parts.next();
        let rows = parts.next().unwrap();
        let after = parts.next().unwrap().trim();
        let col = after.split_whitespace().next().unwrap();
        (Grid::from_diagram(rows).unwrap(), color(col))
    }
}

/// A tiny deterministic generator (splitmix64): no extra crates, reproducible games.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}
