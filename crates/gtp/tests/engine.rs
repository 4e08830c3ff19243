//! The engine's own behaviour: self-play with the stopgap bot finishes, records round-trip through
//! `printsgf`/`loadsgf`, counting and statuses, rule switching.

mod common;

use common::Ours;
use tesuji_gtp::{Engine, EngineConfig, TimeSettings};
use tesuji_rules::score::benson;
use tesuji_rules::{Color, SuicideRule};

/// Self-play until two passes in a row; returns the number of moves.
fn self_play(spec: &str, seed: u64, limit: usize) -> (Ours, usize) {
    let mut e = Ours {
        engine: Engine::new(EngineConfig {
            rules: spec.parse().unwrap(),
            seed,
            ..EngineConfig::default()
        }),
    };
    let mut passes = 0;
    for n in 0..limit {
        let color = if n % 2 == 0 { "b" } else { "w" };
        let mv = e.ok(&format!("genmove {color}"));
        passes = if mv == "pass" { passes + 1 } else { 0 };
        if passes == 2 {
            return (e, n + 1);
        }
    }
    panic!("{spec} seed {seed}: no two passes in {limit} moves");
}

#[test]
fn self_play_games_finish() {
    for (spec, seeds) in [
        ("chinese:size=9", 0..4),
        ("tromp-taylor:size=9", 0..4),
        ("japanese:size=7", 0..2),
        ("chinese:size=19", 0..1),
    ] {
        for seed in seeds {
            let (mut e, moves) = self_play(spec, seed, 2000);
            let score = e.ok("final_score");
            assert!(
                score == "0" || score.starts_with("B+") || score.starts_with("W+"),
                "{score}"
            );
            if spec.starts_with("tromp-taylor") {
                // Cleanup: no stone is left inside the opponent's pass-alive territory.
                let grid = e.engine.grid();
                let owner = benson(&grid, SuicideRule::All).owner;
                let size = grid.size();
                for p in size.points() {
                    if let Some(c) = grid.get(p) {
                        assert_ne!(
                            owner[size.index(p)],
                            Some(c.opponent()),
                            "{spec} {seed}\n{grid}"
                        );
                    }
                }
            }
            eprintln!("{spec} seed {seed}: {moves} moves, {score}");
        }
    }
}

#[test]
fn genmove_is_deterministic_for_a_seed() {
    let (mut a, n) = self_play("chinese:size=9", 7, 2000);
    let (mut b, m) = self_play("chinese:size=9", 7, 2000);
    assert_eq!(n, m);
    assert_eq!(a.ok("printsgf"), b.ok("printsgf"));
}

#[test]
fn records_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (mut e, _) = self_play("chinese:size=9,komi=6.5", 3, 2000);
    let text = e.ok("printsgf");
    assert!(!text.contains('\n'));
    assert!(text.starts_with("(;FF[4]GM[1]CA[UTF-8]SZ[9]KM[6.5]"));
    assert!(text.contains("RE["), "an ended game has a result: {text}");
    let path = dir.path().join("game.sgf");
    let path = path.to_str().unwrap();
    e.ok(&format!("printsgf {path}"));
    assert_eq!(std::fs::read_to_string(path).unwrap().trim_end(), text);

    let mut f = Ours::with_spec("chinese");
    f.ok(&format!("loadsgf {path}"));
    assert_eq!(f.ok("printsgf"), text);
    assert_eq!(f.ok("showboard"), e.ok("showboard"));
    // Up to move 5: the first four moves.
    f.ok(&format!("loadsgf {path} 5"));
    let mut g = Ours::with_spec("chinese:size=9,komi=6.5");
    let record = tesuji_sgf::read(text.as_bytes()).unwrap();
    let tree = &record.collection.trees[0];
    for id in tree.main_line().skip(1).take(4) {
        let node = tree.node(id).unwrap();
        let (c, v) = if let Some(v) = node.value("B") {
            ("b", v)
        } else {
            ("w", node.value("W").unwrap())
        };
        let mv =
            tesuji_sgf::record::decode_move(v, tesuji_rules::Size::square(9).unwrap()).unwrap();
        let vertex = match mv {
            tesuji_rules::Move::Pass => "pass".to_string(),
            tesuji_rules::Move::Play(p) => p.to_gtp(tesuji_rules::Size::square(9).unwrap()),
        };
        g.ok(&format!("play {c} {vertex}"));
    }
    assert_eq!(f.ok("showboard"), g.ok("showboard"));
    // loadsgf 1: the setup only.
    f.ok(&format!("loadsgf {path} 1"));
    assert!(f.send("undo").is_err(), "no move was replayed");
    assert_eq!(f.engine.grid().count(Color::Black), 0);
    // A bad file changes nothing.
    let before = f.ok("showboard");
    std::fs::write(dir.path().join("bad.sgf"), "(;SZ[9];B[ee];W[ee])").unwrap();
    let bad = dir.path().join("bad.sgf");
    let answer = f.send(&format!("loadsgf {}", bad.to_str().unwrap()));
    assert!(answer.unwrap_err().starts_with("cannot load file"));
    assert_eq!(f.ok("showboard"), before);
}

#[test]
fn handicap_records_and_moves_out_of_turn() {
    let mut e = Ours::with_spec("chinese:size=9");
    assert_eq!(e.ok("fixed_handicap 3"), "C7 G7 C3");
    e.ok("play w e5");
    e.ok("play w d5");
    let text = e.ok("printsgf");
    assert!(
        text.contains("HA[3]") && text.contains("AB[cc][gc][cg]"),
        "{text}"
    );
    assert!(text.ends_with(";W[ee];W[de])"), "{text}");
    // White moved twice: the record keeps both moves, and loading it gives the same position.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sgf");
    std::fs::write(&path, &text).unwrap();
    let mut f = Ours::with_spec("chinese");
    f.ok(&format!("loadsgf {}", path.to_str().unwrap()));
    assert_eq!(f.ok("showboard"), e.ok("showboard"));
}

#[test]
fn counting_and_statuses() {
    // Tromp-Taylor: every stone alive, area counted.
    let mut e = Ours::with_spec("tromp-taylor:size=5");
    e.ok("set_position b b1 b b2 b b3 b b4 b b5 w d1 w d2 w d3 w d4 w d5 w e3");
    // 10 points each (column C is dame); Tromp-Taylor's komi is 0.
    assert_eq!(e.ok("final_score"), "0");
    assert_eq!(e.ok("final_status_list dead"), "");
    assert_eq!(e.ok("final_status_list seki"), "");
    assert_eq!(e.ok("final_status_list alive").split(' ').count(), 11);
    e.ok("komi 0.5");
    assert_eq!(e.ok("final_score"), "W+0.5");
    e.ok("komi -5");
    assert_eq!(e.ok("final_score"), "B+5");
    // Chinese: a stone inside the opponent's pass-alive territory is dead.
    let mut e = Ours::with_spec("chinese:size=5,komi=0");
    e.ok("set_position b a4 b b4 b c4 b d4 b e4 b d5");
    assert_eq!(e.ok("final_status_list dead"), "");
    e.ok("play w b5");
    // Black's wall has two eyes (E5, and A5-C5 where White's stone cannot make one).
    assert_eq!(e.ok("final_status_list dead"), "B5");
    assert_eq!(e.ok("final_status_list alive"), "D5 A4 B4 C4 D4 E4");
    assert_eq!(e.ok("final_score"), "B+25");
    // Under Tromp-Taylor the same stone is alive and counts.
    e.ok("tesuji-rules tromp-taylor:size=5");
    assert_eq!(e.ok("final_status_list dead"), "");
    assert_eq!(e.ok("final_score"), "B+21");
    // A stone the estimator finds dead though Benson's algorithm proves nothing (Black's wall has one big
    // eye): the count removes it, as final_status_list says. Columns A-C Black's, E-G White's, D dame.
    let mut e = Ours::with_spec("chinese:size=7,komi=0");
    let walls: Vec<String> = (1..=7)
        .flat_map(|row| [format!("b c{row}"), format!("w e{row}")])
        .collect();
    e.ok(&format!("set_position {} w a4", walls.join(" ")));
    assert_eq!(e.ok("final_status_list dead"), "A4");
    assert_eq!(e.ok("final_score"), "0");
    // Captures by colour.
    let mut e = Ours::with_spec("chinese:size=5");
    for line in ["play b a2", "play w a1", "play b b1"] {
        e.ok(line);
    }
    assert_eq!(e.ok("captures black"), "1");
    assert_eq!(e.ok("captures white"), "0");
}

#[test]
fn rules_commands() {
    let mut e = Ours::with_spec("chinese");
    assert_eq!(e.ok("tesuji-rules"), "chinese");
    e.ok("boardsize 9");
    e.ok("play b e5");
    assert_eq!(e.ok("tesuji-rules"), "chinese:size=9");
    // Same size: the game goes on under the new rules, with the new rules' komi.
    e.ok("tesuji-rules japanese");
    assert_eq!(e.ok("tesuji-rules"), "japanese:size=9");
    assert!(e.ok("showboard").contains("Komi: 6.5"));
    assert_eq!(e.ok("captures black"), "0");
    assert!(e.ok("showboard").contains(" 5 . . . . X . . . . 5"));
    // A spec with a size: a new board.
    e.ok("tesuji-rules tromp-taylor:size=7");
    assert!(e.ok("showboard").contains(" 7 . . . . . . . 7"));
    // kgs-rules and kata-set-rules keep size and komi; KataGo's JSON may set komi.
    e.ok("komi 3");
    e.ok("kgs-rules aga");
    assert_eq!(e.ok("tesuji-rules"), "aga:size=7,komi=3");
    e.ok("kata-set-rules japanese");
    assert_eq!(e.ok("tesuji-rules"), "japanese:size=7,komi=3");
    e.ok(r#"kata-set-rules {"ko":"POSITIONAL","scoring":"AREA","tax":"NONE","suicide":true,"komi":7}"#);
    // KataGo's JSON without a handicap bonus means none, as in KataGo.
    assert_eq!(
        e.ok("tesuji-rules"),
        "chinese:size=7,suicide=multi,komi=7,handicap-bonus=0"
    );
    assert!(e.send("tesuji-rules bogus").is_err());
    assert!(e.send("kgs-rules ing").is_err());
}

#[test]
fn time_commands_are_stored() {
    let mut e = Ours::with_spec("chinese");
    e.ok("time_settings 300 30 5");
    assert_eq!(
        e.engine.time_settings(),
        &TimeSettings::Canadian {
            main: 300,
            byo: 30,
            stones: 5
        }
    );
    e.ok("kgs-time_settings byoyomi 600 30 5");
    assert_eq!(
        e.engine.time_settings(),
        &TimeSettings::Byoyomi {
            main: 600,
            period: 30,
            periods: 5
        }
    );
    e.ok("kgs-time_settings none");
    assert_eq!(e.engine.time_settings(), &TimeSettings::None);
    e.ok("time_left white 25 3");
    e.ok("time_left b -1 0");
}

/// The search bot's time per move follows the controller's clock, with the bot crate's budget rule.
#[test]
fn the_clock_sets_the_time_to_think() {
    use tesuji_bot::time::{MARGIN_MS, RESERVE_MS, moves_to_plan};
    let mut e = Ours::with_spec("chinese:size=9");
    let ms = |e: &Ours, c: Color| e.engine.think_time(c).map(|d| d.as_millis() as u64);
    assert_eq!(
        ms(&e, Color::Black),
        None,
        "no clock: the bot's own setting"
    );
    e.ok("kgs-time_settings absolute 60");
    let plan = moves_to_plan(81);
    let spread = |main: u64| (main - plan * RESERVE_MS) / plan;
    assert_eq!(ms(&e, Color::Black), Some(spread(60_000)));
    e.ok("time_left black 20 0");
    assert_eq!(ms(&e, Color::Black), Some(spread(20_000)));
    assert_eq!(
        ms(&e, Color::White),
        Some(spread(60_000)),
        "White's clock is its own"
    );
    // Byo-yomi periods: most of one period a move once in overtime.
    e.ok("kgs-time_settings byoyomi 0 10 3");
    e.ok("time_left white 10 3");
    assert_eq!(ms(&e, Color::White), Some(8_000));
    // Canadian: the block's time shared among its stones; a stone with 1 s left keeps the margin.
    e.ok("time_settings 0 60 10");
    e.ok("time_left black 60 10");
    assert_eq!(ms(&e, Color::Black), Some(4_800));
    e.ok("time_left black 1 1");
    assert_eq!(ms(&e, Color::Black), Some(1_000 - MARGIN_MS));
    // `absolute 0` is no clock anyone can keep: the bot's own setting.
    e.ok("time_settings 0 0 0");
    assert_eq!(ms(&e, Color::Black), None);
}

#[test]
fn moves_out_of_turn_and_passes() {
    // GTP lets either colour move at any time, also after two passes.
    let mut e = Ours::with_spec("tromp-taylor:size=5");
    for line in [
        "play b c3",
        "play b d3",
        "play w pass",
        "play b pass",
        "play w pass",
        "play w c2",
        "play b pass",
    ] {
        e.ok(line);
    }
    assert!(e.ok("showboard").contains("Next player: white"));
    let grid = e.engine.grid();
    assert_eq!(grid.count(Color::Black), 2);
    assert_eq!(grid.count(Color::White), 1);
    for _ in 0..7 {
        e.ok("undo");
    }
    assert!(e.send("undo").is_err());
}
