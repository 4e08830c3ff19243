//! KataGo's recorded GTP transcripts (`tests/data/katago/`, see its SOURCE.txt): each script is replayed on our
//! engine and every rule-determined answer is compared with KataGo's recorded one.
//!
//! Compared: success or failure of every command we share (`play`, `undo`, `boardsize`, `komi`,
//! `set_free_handicap`, `set_position`, `kata-set-rules`, `kgs-rules`, ...); `fixed_handicap` vertices;
//! `showboard` stones, capture counts and the player to move; `kata-get-rules` JSON; under Tromp-Taylor rules
//! `final_score` (by value: KataGo writes `B+9.0`, we write `B+9`) and `final_status_list` (every stone alive);
//! `printsgf` size, komi, handicap stones, moves, and its result under Tromp-Taylor.
//!
//! Engine-specific, skipped: `genmove*` (KataGo's answer is replayed on ours as a `play`, so the games go on
//! identically), `place_free_handicap` (KataGo's points are given to ours with `set_free_handicap`),
//! `final_score`/`final_status_list` and `printsgf`'s result under other rules (KataGo's net or its own
//! dead-stone judgement), `kata-get-param`/`kata-set-param`/`kata-set-rule` (KataGo's settings), MoveNum and
//! HASH lines, and the texts of error messages. `rectangular_boardsize` is KataGo's own command: the rest of
//! that transcript is not compared. KataGo refuses `set_position` when vertices are separated by more than one
//! space (its own parsing, not GTP's), and keeps the board on a `boardsize` to the same size (GTP leaves it
//! arbitrary; we clear it, as GNU Go does): such lines are not sent to ours, so the positions stay the same.

mod common;

use std::collections::BTreeSet;

use common::Ours;
use tesuji_rules::{Color, Point, Size};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/katago");

/// A parsed `showboard`: rows of cells (`.`, `X`, `O`), stones captured by Black and by White, next player.
#[derive(Debug, PartialEq, Eq)]
struct Shown {
    rows: Vec<String>,
    captured_by: [u32; 2],
    next: String,
}

fn number_after(line: &str, prefix: &str) -> Option<u32> {
    line.strip_prefix(prefix)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Reads KataGo's or our diagram: row lines are `NN` then a cell every two characters from column 3.
fn parse_board(text: &str, katago: bool) -> Shown {
    let mut width = 0;
    let mut rows = Vec::new();
    let mut captured_by = [u32::MAX; 2];
    let mut next = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with('A') && t.split_whitespace().all(|w| w.len() == 1) && width == 0 {
            width = t.split_whitespace().count();
        } else if t.chars().next().is_some_and(|c| c.is_ascii_digit()) && width > 0 {
            let cells: String = (0..width)
                .map(|i| line.as_bytes().get(3 + 2 * i).map_or('?', |&b| b as char))
                .collect();
            rows.push(cells);
        } else if let Some(n) = number_after(line, "B stones captured: ") {
            // KataGo counts the black stones that were captured: captured by White.
            captured_by[1] = n;
        } else if let Some(n) = number_after(line, "W stones captured: ") {
            captured_by[0] = n;
        } else if let Some(n) = number_after(line, "Black (X) has captured ") {
            captured_by[0] = n;
        } else if let Some(n) = number_after(line, "White (O) has captured ") {
            captured_by[1] = n;
        } else if let Some(p) = line.strip_prefix("Next player: ") {
            next = p.trim().to_ascii_lowercase();
        }
    }
    assert!(!rows.is_empty(), "no diagram in {text:?}");
    assert!(
        captured_by.iter().all(|&n| n != u32::MAX),
        "no capture counts ({katago}) in {text:?}"
    );
    Shown {
        rows,
        captured_by,
        next,
    }
}

/// What a record says that the rules determine.
#[derive(Debug, PartialEq)]
struct Record {
    size: String,
    komi: f64,
    black_setup: BTreeSet<String>,
    moves: Vec<(String, String)>,
    result: Option<String>,
}

fn parse_record(text: &str) -> Record {
    let read = tesuji_sgf::read(text.as_bytes()).expect("SGF");
    let tree = &read.collection.trees[0];
    let root = tree.root();
    let size = root.value("SZ").unwrap_or("19").to_string();
    let komi = root.value("KM").map_or(0.0, |k| k.parse().expect("KM"));
    let black_setup = root
        .get("AB")
        .map(|p| p.values.iter().cloned().collect())
        .unwrap_or_default();
    let moves = tree
        .main_line()
        .filter_map(|id| {
            let n = tree.node(id)?;
            ["B", "W"]
                .iter()
                .find_map(|c| n.value(c).map(|v| (c.to_string(), v.to_string())))
        })
        .collect();
    let result = root.value("RE").map(str::to_string);
    Record {
        size,
        komi,
        black_setup,
        moves,
        result,
    }
}

/// Score text to Black's margin: `B+9.0` and `B+9` are both 9.
fn margin(text: &str) -> f64 {
    if text == "0" {
        return 0.0;
    }
    let (side, m) = text.split_at(2);
    let m: f64 = m.parse().unwrap_or_else(|_| panic!("score {text:?}"));
    match side {
        "B+" => m,
        "W+" => -m,
        _ => panic!("score {text:?}"),
    }
}

struct Counts {
    compared: usize,
    skipped: usize,
}

/// Replays one transcript. Returns the numbers of answers compared and skipped.
fn replay(name: &str) -> Counts {
    let script = std::fs::read_to_string(format!("{DIR}/gtp/{name}")).expect("script");
    let expected = std::fs::read_to_string(format!("{DIR}/gtp-expected-stdout/{name}.stdout"))
        .expect("expected output");
    let commands: Vec<&str> = script.lines().filter(|l| !l.trim().is_empty()).collect();
    let answers: Vec<&str> = expected
        .split("\n\n")
        .filter(|a| !a.trim().is_empty())
        .collect();
    assert_eq!(
        commands.len(),
        answers.len(),
        "{name}: one answer per command"
    );
    // KataGo's default rules in these runs: Tromp-Taylor, komi 7.5.
    let mut ours = Ours::with_spec("tromp-taylor:komi=7.5");
    let mut counts = Counts {
        compared: 0,
        skipped: 0,
    };
    for (k, (&line, &answer)) in commands.iter().zip(&answers).enumerate() {
        let at = format!("{name}:{} {line:?}", k + 1);
        let (mark, text) = answer.split_at(1);
        let theirs: Result<&str, &str> = if mark == "=" {
            Ok(text.strip_prefix(' ').unwrap_or(text))
        } else {
            Err(text.trim())
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let cmd = words[0];
        let tromp_taylor = ours.ok("tesuji-rules").starts_with("tromp-taylor");
        match cmd {
            "genmove" | "genmove_debug" => {
                let color = words[1];
                let mv = theirs.expect("KataGo's genmove").trim();
                ours.ok(&format!("play {color} {mv}"));
                counts.skipped += 1;
            }
            "place_free_handicap" => {
                let points = theirs.expect("KataGo's handicap").trim();
                ours.ok(&format!("set_free_handicap {points}"));
                counts.skipped += 1;
            }
            "kata-get-param" | "kata-set-param" | "kata-set-rule" => counts.skipped += 1,
            "rectangular_boardsize" => {
                counts.skipped += commands.len() - k;
                return counts;
            }
            "boardsize" if words.len() == 2 && ours.engine.rules().size.to_string() == words[1] => {
                // GTP leaves the board "arbitrary" after `boardsize`: KataGo keeps it when the size does
                // not change, we clear it as GNU Go does. Not sent, so that the positions stay the same.
                assert!(theirs.is_ok(), "{at}");
                counts.skipped += 1;
            }
            "set_position" if line.contains("  ") => {
                assert!(theirs.is_err(), "{at}");
                counts.skipped += 1;
            }
            "showboard" => {
                let mine = parse_board(&ours.ok(line), false);
                let kata = parse_board(theirs.expect("showboard"), true);
                assert_eq!(mine, kata, "{at}");
                counts.compared += 1;
            }
            "final_score" if tromp_taylor => {
                let mine = ours.ok(line);
                assert_eq!(margin(&mine), margin(theirs.expect("score").trim()), "{at}");
                counts.compared += 1;
            }
            "final_status_list" if tromp_taylor => {
                let set = |t: &str| {
                    t.split_whitespace()
                        .map(str::to_string)
                        .collect::<BTreeSet<_>>()
                };
                assert_eq!(set(&ours.ok(line)), set(theirs.expect("list")), "{at}");
                counts.compared += 1;
            }
            "final_score" | "final_status_list" => {
                // Engine-specific under rules with a dead-stone phase; must still answer.
                ours.ok(line);
                counts.skipped += 1;
            }
            "printsgf" => {
                let mine = parse_record(&ours.ok(line));
                let mut kata = parse_record(theirs.expect("printsgf"));
                let mut mine = mine;
                if !tromp_taylor {
                    mine.result = None;
                    kata.result = None;
                }
                assert_eq!(mine, kata, "{at}");
                counts.compared += 1;
            }
            _ => {
                // Everything else: the same success or failure, and the same answer when it succeeds.
                let mine = ours.send(line);
                match (&mine, theirs) {
                    (Ok(m), Ok(t)) => assert_eq!(m.trim(), t.trim(), "{at}"),
                    (Err(_), Err(_)) => {}
                    _ => panic!("{at}: ours {mine:?}, KataGo's {theirs:?}"),
                }
                counts.compared += 1;
            }
        }
    }
    counts
}

#[test]
fn katago_transcripts() {
    let mut total = Counts {
        compared: 0,
        skipped: 0,
    };
    for name in [
        "ending.txt",
        "handicap.txt",
        "passalivemode.txt",
        "printsgf.txt",
        "printsgffinalscore.txt",
        "rules.txt",
        "set_boardsize_twice.txt",
        "set_position.txt",
    ] {
        let c = replay(name);
        eprintln!("{name}: {} compared, {} skipped", c.compared, c.skipped);
        total.compared += c.compared;
        total.skipped += c.skipped;
    }
    eprintln!(
        "{} answers compared, {} skipped",
        total.compared, total.skipped
    );
    assert!(total.compared >= 120);
}

/// `passalivemode.txt` under area scoring with a dead-stone phase: our judgement (stones inside the
/// opponent's pass-alive territory are dead) gives KataGo's answers with its pass-alive computed under the
/// game's own suicide rule (the `auto`/`false` runs): `B+20` and dead A3 A2 B2.
#[test]
fn passalive_judgement_agrees_with_katago() {
    let mut ours = Ours::with_spec("tromp-taylor:komi=7.5");
    for line in [
        "boardsize 4 5",
        r#"kata-set-rules {"ko":"SIMPLE","scoring":"AREA","tax":"NONE","suicide":false,"hasButton":false,"friendlyPassOk":false,"whiteHandicapBonus":"0"}"#,
        "komi 0",
        "set_position b d5 b a4 b b4 w a3 b b3 b c3 b d3 w a2 w b2 b c2 b b1 b d1",
        "play w pass",
        "play b pass",
    ] {
        ours.ok(line);
    }
    assert_eq!(ours.ok("final_score"), "B+20");
    assert_eq!(ours.ok("final_status_list dead"), "A3 A2 B2");
    let size = Size::new(4, 5).unwrap();
    let grid = ours.engine.grid();
    assert_eq!(
        grid.get(Point::from_gtp("A3", size).unwrap()),
        Some(Color::White)
    );
}
