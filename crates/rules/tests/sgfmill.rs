//! sgfmill's board tests (`tests/data/sgfmill/board_test_data.json`, data from sgfmill's
//! `board_test_data.py`, MIT) replayed on our [`Board`].
//!
//! Which rules these are: sgfmill's `Board.play` carries out captures, then removes the player's own chain when
//! it is left without liberties (self-capture of any size, the single stone included), and enforces no ko rule
//! at all; moves need not alternate. That is our *board level*: [`Board::play`] with nothing checked, i.e. a
//! ruleset with `suicide=all` and no superko (the plays are never checked against the simple-ko point either;
//! that point is only compared). sgfmill's `area_score` is Tromp-Taylor area counting with every stone alive
//! and no komi, compared with [`score::area`] (Black's points minus White's).
//!
//! The ko point. sgfmill returns a `simple_ko_point` from `play` when the played stone's chain was "surrounded"
//! before any removal (no liberty), it is a single stone, and exactly one opponent chain was captured and that
//! chain was a single stone. RULES.md §2 (`ko = simple`), which [`Board::ko_point`] implements: after a play that
//! captured exactly one stone, with a single stone that now has exactly one liberty. The two agree: a lone stone
//! without a liberty that removes one adjacent stone has exactly that point as its one liberty, and conversely a
//! lone stone whose one liberty after the capture is the captured point had none before it. The differences are
//! outside what the data exercises: sgfmill's point is a return value of the last `play` (it knows no passes,
//! while [`Board::pass`] clears ours), and neither forbids anything at this level. The test
//! [`ko_point_definitions_agree`] checks the equivalence on random plays.

mod common;

use serde_json::Value;
use tesuji_rules::score;
use tesuji_rules::{Board, Color, Grid, Point, SetupError, Size};

fn nine() -> Size {
    Size::square(9).unwrap()
}

/// A GTP vertex on 9×9 (sgfmill's columns skip `I` too).
fn vertex(v: &str) -> Point {
    Point::from_gtp(v, nine()).unwrap_or_else(|| panic!("bad vertex {v:?}"))
}

/// sgfmill's diagram: rows `9  .  #  o ...` top first, then a line of column letters; `#` black, `o` white.
fn sgfmill_grid(board: &str) -> Grid {
    let rows: Vec<String> = board
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().skip(1).collect::<String>())
        .collect();
    let grid = Grid::from_diagram(&rows.join("\n")).unwrap();
    assert_eq!(grid.size(), nine(), "{board}");
    grid
}

fn area_margin(grid: &Grid) -> i64 {
    let c = score::area(grid, &[]);
    c.area_points(Color::Black) as i64 - c.area_points(Color::White) as i64
}

fn cases(kind: &str) -> Vec<Value> {
    let json: Value = serde_json::from_str(&common::data("sgfmill/board_test_data.json")).unwrap();
    json[kind].as_array().unwrap().clone()
}

fn color(letter: &str) -> Color {
    match letter {
        "B" => Color::Black,
        "W" => Color::White,
        other => panic!("bad colour {other:?}"),
    }
}

#[test]
fn play_tests() {
    let cases = cases("play_tests");
    assert_eq!(cases.len(), 16);
    let mut with_ko = 0;
    for case in &cases {
        let code = case["code"].as_str().unwrap();
        let mut board = Board::new(nine());
        for m in case["moves"].as_array().unwrap() {
            let (c, v) = m.as_str().unwrap().split_once(' ').unwrap();
            let i = board.idx(vertex(v));
            assert_eq!(board.color_at(i), None, "{code}: {v} is occupied");
            board.play(color(c), i);
        }
        let expected = sgfmill_grid(case["board"].as_str().unwrap());
        assert_eq!(board.to_grid(), expected, "{code}: final position");
        let ko = case["ko_point"].as_str().map(vertex);
        with_ko += ko.is_some() as u32;
        assert_eq!(board.ko_point(), ko, "{code}: ko point");
        let area = case["area_score"].as_i64().unwrap();
        assert_eq!(area_margin(&board.to_grid()), area, "{code}: area score");
        // The board's own bookkeeping agrees with its position.
        let grid = board.to_grid();
        assert_eq!(
            board.stone_counts(),
            [
                grid.count(Color::Black) as u32,
                grid.count(Color::White) as u32
            ],
            "{code}: stone counts"
        );
        assert_eq!(
            Board::from_grid(&grid).unwrap().hash(),
            board.hash(),
            "{code}: hash"
        );
    }
    assert_eq!(with_ko, 1, "the data has exactly one ko case");
}

/// The ko point is given only to the player who captured: the test data's `ko-corner` then a pass clears it
/// (sgfmill has no passes; ours must forget the point).
#[test]
fn ko_corner_pass_clears_the_point() {
    let mut board = Board::new(nine());
    for (c, v) in [
        (Color::Black, "A1"),
        (Color::Black, "B2"),
        (Color::Black, "A3"),
        (Color::White, "B1"),
        (Color::White, "A2"),
    ] {
        let i = board.idx(vertex(v));
        board.play(c, i);
    }
    assert_eq!(board.ko_point(), Some(vertex("A1")));
    let a1 = board.idx(vertex("A1"));
    assert_eq!(
        board.check(Color::Black, a1, true, true, true),
        Err(tesuji_rules::BoardRefusal::Ko)
    );
    assert_eq!(board.check(Color::Black, a1, false, true, true), Ok(()));
    board.pass();
    assert_eq!(board.ko_point(), None);
}

/// sgfmill's `simple_ko_point`, literally: before any removal the played stone is a chain of one stone with no
/// liberty, and the surrounded chains next to it are exactly one opponent chain of one stone.
fn sgfmill_ko_point(before: &Grid, p: Point, c: Color) -> Option<Point> {
    let mut g = before.clone();
    g.set(p, Some(c));
    let size = g.size();
    let mut surrounded: Vec<Vec<Point>> = Vec::new();
    for q in std::iter::once(p).chain(size.neighbors(p)) {
        if g.get(q).is_none() || surrounded.iter().any(|ch| ch.contains(&q)) {
            continue;
        }
        if g.liberties(q).is_empty() {
            surrounded.push(g.chain(q));
        }
    }
    if surrounded.len() < 2 {
        return None;
    }
    let captured: Vec<&Vec<Point>> = surrounded
        .iter()
        .filter(|ch| g.get(ch[0]) == Some(c.opponent()))
        .collect();
    let own = surrounded.iter().find(|ch| g.get(ch[0]) == Some(c))?;
    (captured.len() == 1 && captured[0].len() == 1 && own.len() == 1).then(|| captured[0][0])
}

use common::Rng;

/// RULES.md §2's simple-ko point (our [`Board::ko_point`]) and sgfmill's definition agree on random
/// self-capturing, non-alternating play on small boards, where kos are frequent.
#[test]
fn ko_point_definitions_agree() {
    let mut rng = Rng(0x5EED);
    let mut kos = 0;
    for game in 0..300 {
        let side = 3 + (game % 5) as u8;
        let size = Size::square(side).unwrap();
        let mut board = Board::new(size);
        for _ in 0..120 {
            let empties: Vec<usize> = board.empty_points().iter().map(|&i| i as usize).collect();
            if empties.is_empty() {
                break;
            }
            let i = empties[rng.below(empties.len())];
            let c = if rng.below(2) == 0 {
                Color::Black
            } else {
                Color::White
            };
            let p = board.point(i);
            let before = board.to_grid();
            let expected = sgfmill_ko_point(&before, p, c);
            board.play(c, i);
            kos += expected.is_some() as u32;
            assert_eq!(
                board.ko_point(),
                expected,
                "{c} at {p:?} on\n{before}\ngave\n{}",
                board.to_grid()
            );
        }
    }
    assert!(kos > 50, "only {kos} ko points met: the test is too weak");
}

#[test]
fn setup_tests() {
    let cases = cases("setup_tests");
    assert_eq!(cases.len(), 3);
    let mut illegal = 0;
    for case in &cases {
        let code = case["code"].as_str().unwrap();
        let points = |key: &str| -> Vec<Point> {
            case[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| vertex(v.as_str().unwrap()))
                .collect()
        };
        // sgfmill applies black, then white, then empty points.
        let mut grid = Grid::new(nine());
        for p in points("black") {
            grid.set(p, Some(Color::Black));
        }
        for p in points("white") {
            grid.set(p, Some(Color::White));
        }
        for p in points("empty") {
            grid.set(p, None);
        }
        let expected = sgfmill_grid(case["board"].as_str().unwrap());
        let legal = case["was_legal_as_specified"].as_bool().unwrap();
        illegal += !legal as u32;

        // `Board::from_grid` accepts exactly the positions sgfmill calls legal as specified.
        match Board::from_grid(&grid) {
            Ok(b) => {
                assert!(legal, "{code}: from_grid accepted an illegal setup");
                assert_eq!(b.to_grid(), expected, "{code}");
            }
            Err(SetupError::NoLiberty { point }) => {
                assert!(!legal, "{code}: from_grid refused a legal setup");
                assert!(
                    grid.get(point).is_some() && grid.liberties(point).is_empty(),
                    "{code}: {point:?} is named but has a liberty"
                );
            }
        }

        // sgfmill then removes every chain without a liberty (both colours, all at once). Our board can do the
        // same with `setup_stone` and `has_liberty`.
        let mut board = Board::new(nine());
        for p in nine().points() {
            if let Some(c) = grid.get(p) {
                let i = board.idx(p);
                board.setup_stone(c, i);
            }
        }
        assert_eq!(board.to_grid(), grid, "{code}: setup_stone");
        let mut cleaned = grid.clone();
        let mut removed = false;
        for p in nine().points() {
            let i = board.idx(p);
            if board.color_at(i).is_some() && !board.has_liberty(i) {
                cleaned.set(p, None);
                removed = true;
            }
        }
        assert_eq!(removed, !legal, "{code}: was_legal_as_specified");
        assert_eq!(cleaned, expected, "{code}: position after the setup");
        let b = Board::from_grid(&cleaned).expect("the cleaned setup is legal");
        assert_eq!(b.to_grid(), expected, "{code}");
    }
    assert_eq!(illegal, 1);
}
