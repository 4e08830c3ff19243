//! `final_status_list` beside GNU Go's on positions with real sekis (with and without eyes), with dead stones,
//! and in open openings, where no stone is in seki (the count's seki test alone, made for finished positions,
//! called 5 of 6 opening stones seki).

mod common;

use std::collections::BTreeSet;

use common::{Gnugo, Ours};

/// Sets up `rows` (from the top; `X` Black, `O` White) on both engines with `play`s.
fn setup(ours: &mut Ours, gnugo: &mut Gnugo, rows: &[&str]) {
    let n = rows.len();
    for line in [
        format!("boardsize {n}"),
        "clear_board".into(),
        "komi 0".into(),
    ] {
        ours.ok(&line);
        gnugo.ok(&line);
    }
    const COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRST";
    for (y, row) in rows.iter().enumerate() {
        for (x, cell) in row.split(' ').enumerate() {
            let color = match cell {
                "X" => "b",
                "O" => "w",
                _ => continue,
            };
            let line = format!("play {color} {}{}", COLUMNS[x] as char, n - y);
            ours.ok(&line);
            gnugo.ok(&line);
        }
    }
}

fn list(answer: String) -> BTreeSet<String> {
    answer.split_whitespace().map(str::to_string).collect()
}

fn statuses(mut answer: impl FnMut(&str) -> String) -> [BTreeSet<String>; 3] {
    ["seki", "dead", "alive"].map(|s| list(answer(&format!("final_status_list {s}"))))
}

#[test]
fn seki_alive_and_dead_as_gnugo_says_on_settled_positions() {
    let positions: [(&str, [&str; 9]); 3] = [
        // One eye each (A9, E9) and one shared liberty (C9).
        (
            "seki with eyes",
            [
                ". O . X . X O . O",
                "O O X X X X O O O",
                "X X X X O O O . O",
                "O O O O O . O O O",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
            ],
        ),
        // No eyes, two shared liberties (C7, D7): whoever fills one is captured.
        (
            "seki without eyes",
            [
                "O O O O O O . . .",
                "O X X X X O O . .",
                "O X . . O X O . .",
                "X O O O O X O O O",
                "X X X X X X X X X",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
                ". . . . . . . . .",
            ],
        ),
        // A stone in each side's area, dead.
        (
            "dead stones",
            [
                ". . . X . O . . .",
                ". . . X . O . . .",
                ". . . X . O . X .",
                ". . . X . O . . .",
                ". O . X . O . . .",
                ". . . X . O . . .",
                ". . . X . O . . .",
                ". . . X . O . . .",
                ". . . X . O . . .",
            ],
        ),
    ];
    for (name, rows) in positions {
        let mut ours = Ours::with_spec("chinese");
        let mut gnugo = Gnugo::start(&[]);
        setup(&mut ours, &mut gnugo, &rows);
        let theirs = statuses(|line| gnugo.ok(line));
        assert_eq!(statuses(|line| ours.ok(line)), theirs, "{name}");
    }
}

#[test]
fn no_stone_of_an_opening_is_in_seki() {
    for (size, moves) in [
        (19, ["b Q16", "w D4", "b Q4", "w D16", "b R10", "w C10"]),
        (9, ["b E5", "w C3", "b G7", "w C7", "b G3", "w E3"]),
    ] {
        let mut ours = Ours::with_spec("chinese");
        let mut gnugo = Gnugo::start(&[]);
        for line in [format!("boardsize {size}"), "clear_board".into()] {
            ours.ok(&line);
            gnugo.ok(&line);
        }
        for mv in moves {
            ours.ok(&format!("play {mv}"));
            gnugo.ok(&format!("play {mv}"));
        }
        // GNU Go agrees (on 9×9: on an open 19×19 board it reads for three minutes).
        if size == 9 {
            assert_eq!(gnugo.ok("final_status_list seki"), "", "{size}");
        }
        let [seki, dead, alive] = statuses(|line| ours.ok(line));
        assert_eq!(seki, BTreeSet::new(), "{size}");
        // Six stones on an open board: none is dead, every one alive.
        assert_eq!(dead, BTreeSet::new(), "{size}");
        let stones: BTreeSet<String> = moves
            .iter()
            .map(|m| m.split(' ').nth(1).unwrap().to_string())
            .collect();
        assert_eq!(alive, stones, "{size}");
    }
}
