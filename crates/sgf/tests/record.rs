//! Game records: root properties read into rules, main lines replayed with full legality.

use tesuji_rules::{
    Color, Illegal, KoRule, Komi, Move, Phase, Point, Preset, Rules, ScoringRule, SekiEyes, Size,
    SuicideRule,
};
use tesuji_sgf::record::{
    RecordError, RulesFromRecord, decode_move, handicap_of, komi_of, parse_komi, record_rules,
    replay, rules_from_name, rules_of, size_of,
};

fn data(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn tree(text: &str) -> tesuji_sgf::Tree {
    let read = tesuji_sgf::read(text.as_bytes()).unwrap();
    read.collection.trees.into_iter().next().unwrap()
}

#[test]
fn komi_forms() {
    assert_eq!(parse_komi("7.5").unwrap(), 15);
    assert_eq!(parse_komi("6.50").unwrap(), 13);
    assert_eq!(parse_komi("-3").unwrap(), -6);
    assert_eq!(parse_komi("0").unwrap(), 0);
    assert_eq!(parse_komi(" 6.5 ").unwrap(), 13);
    // Fox writes fiftieths of a point.
    assert_eq!(parse_komi("325").unwrap(), 13);
    assert_eq!(parse_komi("375").unwrap(), 15);
    for bad in ["6.25", "abc", "", "7.5.5", "1e3", "99999999999999"] {
        assert!(
            matches!(parse_komi(bad), Err(RecordError::BadKomi(_))),
            "{bad}"
        );
    }
}

#[test]
fn foxlike_record_komi_handicap_and_replay() {
    let read = tesuji_sgf::read(&data("katago/sgf/foxlike.sgf")).unwrap();
    let t = &read.collection.trees[0];
    assert_eq!(komi_of(t).unwrap(), Some(13));
    assert_eq!(handicap_of(t).unwrap(), 2);
    assert_eq!(
        rules_of(t),
        RulesFromRecord::Known(Rules::preset(Preset::Chinese))
    );
    let rules = record_rules(t, None, Rules::default()).unwrap();
    assert_eq!(rules.komi, Komi::white(13));
    assert_eq!(rules.handicap, 2);
    // The handicap stones are in the second node here (`;AB[pd][dp]`): they still make the starting position,
    // and White moves first.
    let r = replay(t, rules).unwrap();
    assert_eq!(r.turns, 2);
    assert_eq!(r.game.grid().count(Color::Black), 3);
    // Setup after a move is refused with its node number.
    let t = tree("(;SZ[9];B[aa];AB[bb];W[cc])");
    assert!(matches!(
        replay(&t, record_rules(&t, None, Rules::default()).unwrap()),
        Err(RecordError::SetupInPlay { node: 2 })
    ));
}

#[test]
fn rules_names_other_programs_write() {
    for (name, preset) in [
        ("Japanese", Preset::Japanese),
        ("japanese", Preset::Japanese),
        ("Chinese", Preset::Chinese),
        ("AGA", Preset::Aga),
        ("NZ", Preset::NewZealand),
        ("New Zealand", Preset::NewZealand),
        ("Korean", Preset::Korean),
        ("Tromp-Taylor", Preset::TrompTaylor),
        ("tromp-taylor", Preset::TrompTaylor),
    ] {
        assert_eq!(
            rules_from_name(name).map(|r| r.preset),
            Some(preset),
            "{name}"
        );
    }
    // Our own spec strings.
    assert_eq!(
        rules_from_name("chinese:ko=situational").map(|r| r.ko),
        Some(KoRule::Situational)
    );
    // KataGo's strings (the forms of its kata-get-rules answers).
    let tt = rules_from_name("koPOSITIONALscoreAREAtaxNONEsui1").unwrap();
    assert_eq!(
        (tt.ko, tt.scoring, tt.suicide),
        (KoRule::Positional, ScoringRule::Area, SuicideRule::Multi)
    );
    let jp = rules_from_name("koSIMPLEscoreTERRITORYtaxSEKIsui0").unwrap();
    assert_eq!(
        (jp.ko, jp.scoring, jp.suicide, jp.seki_eyes),
        (
            KoRule::Simple,
            ScoringRule::Territory,
            SuicideRule::Forbidden,
            SekiEyes::None
        )
    );
    let nz = rules_from_name("koSITUATIONALscoreAREAtaxNONEsui1whb0").unwrap();
    assert_eq!(nz.ko, KoRule::Situational);
    // tax ALL is stone scoring under area scoring, and has no knob under territory scoring.
    let stones = rules_from_name("koSIMPLEscoreAREAtaxALLsui0").unwrap();
    assert_eq!(stones.scoring, ScoringRule::Stones);
    assert!(rules_from_name("koSIMPLEscoreTERRITORYtaxALLsui0").is_none());
    assert!(rules_from_name("Ing").is_none());
    let t = tree("(;RU[Ing Goe]SZ[9])");
    assert_eq!(rules_of(&t), RulesFromRecord::Unknown("Ing Goe".into()));
}

#[test]
fn sizes_and_moves() {
    assert_eq!(
        size_of(&tree("(;SZ[9])")).unwrap(),
        Size::square(9).unwrap()
    );
    assert_eq!(
        size_of(&tree("(;SZ[9:13])")).unwrap(),
        Size::new(9, 13).unwrap()
    );
    assert_eq!(size_of(&tree("(;)")).unwrap(), Size::STANDARD);
    assert!(size_of(&tree("(;SZ[52])")).is_err());
    assert!(size_of(&tree("(;SZ[x])")).is_err());
    let s19 = Size::STANDARD;
    assert_eq!(decode_move("", s19), Some(Move::Pass));
    assert_eq!(decode_move("tt", s19), Some(Move::Pass));
    assert_eq!(decode_move("aa", s19), Some(Move::Play(Point::new(0, 0))));
    assert_eq!(decode_move("sa", s19), Some(Move::Play(Point::new(18, 0))));
    assert_eq!(
        decode_move("tt", Size::square(21).unwrap()),
        Some(Move::Play(Point::new(19, 19)))
    );
    assert_eq!(decode_move("zz", s19), None);
}

#[test]
fn replays_the_katago_records() {
    for f in [
        "cornermoves.sgf",
        "humanslbigdiff.sgf",
        "sampletest7x7.sgf",
        "sampletest9x9.sgf",
        "messy.sgf",
    ] {
        let read = tesuji_sgf::read(&data(&format!("katago/sgf/{f}"))).unwrap();
        for t in &read.collection.trees {
            let rules =
                record_rules(t, Some("tromp-taylor".parse().unwrap()), Rules::default()).unwrap();
            let r = replay(t, rules).unwrap_or_else(|e| panic!("{f}: {e}"));
            let main_moves = t
                .main_line()
                .filter(|&id| t.node(id).unwrap().has_move())
                .count();
            assert_eq!(r.turns, main_moves, "{f}");
        }
    }
}

#[test]
fn the_first_illegal_move_is_reported() {
    // W[aa] plays on an occupied point at node 2.
    let t = tree("(;SZ[9];B[aa];W[aa])");
    let rules = record_rules(&t, None, Rules::default()).unwrap();
    match replay(&t, rules) {
        Err(RecordError::Illegal {
            node,
            color,
            mv,
            reason,
        }) => {
            assert_eq!(
                (node, color, mv.as_str(), reason),
                (2, Color::White, "A9", Illegal::Occupied)
            );
        }
        other => panic!("{other:?}"),
    }
    let t = tree("(;SZ[9];B[zz])");
    assert!(matches!(
        replay(&t, record_rules(&t, None, Rules::default()).unwrap()),
        Err(RecordError::BadPoint { node: 1, .. })
    ));
}

#[test]
fn moves_after_two_passes_resume_play() {
    let t = tree("(;SZ[9]RU[Chinese];B[ee];W[];B[];W[cc];B[gg])");
    let rules = record_rules(&t, None, Rules::default()).unwrap();
    let r = replay(&t, rules).unwrap();
    assert_eq!(r.turns, 5);
    assert_eq!(r.game.phase(), Phase::Playing);
    assert!(r.game.disputed());
}

/// Two moves of one colour in a row (a pass left out): replayed with the other colour's pass between them, as
/// GTP engines do, and noted with the node.
#[test]
fn two_moves_of_one_colour_in_a_row_get_a_pass_between_them() {
    // The record, the colours played, the inserted passes, and the turns played once each node is (a node's
    // comment belongs after its own move, inserted passes counted).
    for (text, colors, inserted, node_turns) in [
        (
            "(;SZ[9];B[ee];B[cc];W[gg])",
            "BWBW",
            vec![(2, "black", "white")],
            vec![0, 1, 3, 4],
        ),
        (
            "(;SZ[9]RU[Chinese];B[ee];W[cc];W[gg];W[];B[aa])",
            "BWBWBWB",
            vec![(3, "white", "black"), (4, "white", "black")],
            vec![0, 1, 2, 4, 6, 7],
        ),
        // A White first move on an empty board with Black to move: a Black pass first.
        (
            "(;SZ[9]PL[B];W[ee];B[cc])",
            "BWB",
            vec![(1, "white", "black")],
            vec![0, 2, 3],
        ),
    ] {
        let t = tree(text);
        let rules = record_rules(&t, None, Rules::default()).unwrap();
        let r = replay(&t, rules).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(r.node_turns, node_turns, "{text}");
        let played: String = r
            .game
            .log()
            .iter()
            .filter_map(|a| match a {
                tesuji_rules::Action::Turn(Color::Black, _) => Some('B'),
                tesuji_rules::Action::Turn(Color::White, _) => Some('W'),
                _ => None,
            })
            .collect();
        assert_eq!(played, colors, "{text}");
        let notes: Vec<(usize, bool)> = r
            .notes
            .iter()
            .map(|n| (n.node, n.message.contains("in a row")))
            .collect();
        let expected: Vec<(usize, bool)> = inserted.iter().map(|&(k, _, _)| (k, true)).collect();
        assert_eq!(notes, expected, "{text}");
        for (note, (_, mover, passer)) in r.notes.iter().zip(&inserted) {
            assert!(
                note.message.contains(&format!("two {mover} moves"))
                    && note.message.contains(&format!("{passer} pass")),
                "{text}: {}",
                note.message
            );
            assert_eq!(Some(note.id), t.main_line().nth(note.node));
        }
        // The record's own turns only.
        assert_eq!(
            r.turns,
            text.matches("B[").count() + text.matches("W[").count(),
            "{text}"
        );
    }
    // The inserted pass is a pass like any other: after Black's pass, a second Black move is preceded by White's
    // pass, which ends play; the move resumes it.
    let t = tree("(;SZ[9]RU[Chinese];B[ee];W[cc];B[];B[gg])");
    let r = replay(&t, record_rules(&t, None, Rules::default()).unwrap()).unwrap();
    assert!(r.game.disputed());
    assert_eq!(r.game.grid().count(Color::Black), 2);
    // In order, nothing is noted.
    let t = tree("(;SZ[9];B[ee];W[cc];B[];W[])");
    assert!(
        replay(&t, record_rules(&t, None, Rules::default()).unwrap())
            .unwrap()
            .notes
            .is_empty()
    );
}

/// Under `end=score` two passes end the game; a record that plays on is replayed as resumed play, noted.
#[test]
fn play_after_two_passes_under_tromp_taylor_is_resumed_play() {
    let t = tree("(;SZ[5]RU[tromp-taylor];B[cc];W[];B[];W[bb];B[dd])");
    let rules = record_rules(&t, None, Rules::default()).unwrap();
    let r = replay(&t, rules).unwrap();
    assert_eq!(r.turns, 5);
    assert_eq!(r.game.grid().count(Color::Black), 2);
    assert_eq!(r.game.grid().count(Color::White), 1);
    assert_eq!(r.notes.len(), 1);
    assert_eq!(r.notes[0].node, 4);
    // A pass inserted between two moves of one colour counts: here it is the second pass, and play goes on.
    let t = tree("(;SZ[5]RU[tromp-taylor];B[cc];W[];W[bb])");
    let r = replay(&t, record_rules(&t, None, Rules::default()).unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.game.grid().count(Color::White), 1);
    assert_eq!(r.notes.len(), 2, "{:?}", r.notes);
    // Ending with two passes is still the end, with nothing noted.
    let t = tree("(;SZ[5]RU[tromp-taylor];B[cc];W[];B[])");
    let r = replay(&t, record_rules(&t, None, Rules::default()).unwrap()).unwrap();
    assert_eq!(r.game.phase(), Phase::Over);
    assert!(r.notes.is_empty());
}

/// Every node's line and column, for messages about nodes.
#[test]
fn node_positions_are_where_each_node_starts() {
    let text = "(;SZ[9]\n;B[ee]\n  ;W[cc](;B[aa])(;B[bb]))\n(;SZ[5];B[cc])";
    let read = tesuji_sgf::read(text.as_bytes()).unwrap();
    assert_eq!(read.node_positions.len(), 2);
    assert_eq!(
        read.node_positions[0],
        vec![(1, 2), (2, 1), (3, 3), (3, 10), (3, 18)]
    );
    assert_eq!(read.node_positions[1], vec![(4, 2), (4, 8)]);
    for (tree, positions) in read.collection.trees.iter().zip(&read.node_positions) {
        assert_eq!(tree.len(), positions.len());
    }
}

#[test]
fn setup_stones_and_player_to_move() {
    let t = tree("(;SZ[9]HA[2]AB[cc][gg]AW[ee:ff];W[aa])");
    let rules = record_rules(&t, None, Rules::default()).unwrap();
    let r = replay(&t, rules).unwrap();
    let g = r.game.grid();
    assert_eq!(g.count(Color::Black), 2);
    assert_eq!(g.count(Color::White), 5);
    let t = tree("(;SZ[9]AB[cc]PL[W])");
    let r = replay(&t, record_rules(&t, None, Rules::default()).unwrap()).unwrap();
    assert_eq!(r.game.to_move(), Color::White);
}

/// KataGo's `printsgf` answers: records another engine wrote, with its rule names and results.
fn katago_printsgf(file: &str) -> Vec<String> {
    let text = String::from_utf8(data(&format!("katago/gtp-expected-stdout/{file}"))).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("= (").map(|rest| format!("({rest}")))
        .collect()
}

#[test]
fn katago_printsgf_records_read_and_replay() {
    let records = katago_printsgf("printsgf.txt.stdout");
    assert!(records.len() >= 4);
    for text in &records {
        let t = tree(text);
        let rules =
            record_rules(&t, None, Rules::default()).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(
            matches!(rules_of(&t), RulesFromRecord::Known(_)),
            "{text}: RU not understood"
        );
        let r = replay(&t, rules).unwrap_or_else(|e| panic!("{text}: {e}"));
        // The handicap record: three stones set up, White's move made.
        if text.contains("AB[cd][ed][dj]") {
            assert_eq!(rules.size, Size::new(9, 13).unwrap());
            assert_eq!(r.game.grid().count(Color::Black), 3);
            assert_eq!(r.game.grid().count(Color::White), 1);
        }
    }
}

#[test]
fn katago_results_match_our_count() {
    // KataGo wrote RE[B+20] under Tromp-Taylor (every stone alive) and RE[B+7] under Chinese rules, where its
    // judgement took Black's stone at F5 (SGF fc), alone on White's side, as dead.
    let records = katago_printsgf("printsgffinalscore.txt.stdout");
    let with_result: Vec<&String> = records.iter().filter(|r| r.contains("RE[")).collect();
    assert_eq!(with_result.len(), 2);
    for text in with_result {
        let t = tree(text);
        let re = t.root().value("RE").unwrap().to_string();
        let rules = record_rules(&t, None, Rules::default()).unwrap();
        let r = replay(&t, rules).unwrap();
        let dead: Vec<Point> = if rules.preset == Preset::TrompTaylor {
            Vec::new()
        } else {
            vec![Point::from_gtp("F5", rules.size).unwrap()]
        };
        let score = r.game.score_with(&dead);
        let result =
            tesuji_rules::result::GameResult::from_score(score, &rules, r.game.first_pass());
        assert_eq!(result.to_string(), re, "{text}");
    }
}

#[test]
fn games_written_as_records_replay_to_the_same_game() {
    use tesuji_rules::Game;
    use tesuji_sgf::record::{GameInfo, to_tree};
    let mut marked_games = 0;
    for (spec, seed) in [
        ("chinese:size=9,handicap=3,placement=fixed", 1u64),
        ("aga:size=13,handicap=2", 2),
        ("tromp-taylor:size=7,komi=-2.5", 3),
        ("ideal:size=9,handicap=3", 4),
        ("japanese:size=9x11", 5),
    ] {
        let rules: Rules = spec.parse().unwrap();
        let mut game = Game::new(rules).unwrap();
        let mut s = seed;
        while game.phase() == Phase::Playing && game.turns() < 200 {
            let moves = game.legal_moves();
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mv = moves[(s >> 33) as usize % moves.len()];
            game.play_move(mv).unwrap();
        }
        let marked_this = game.phase() == Phase::Marking;
        if marked_this {
            marked_games += 1;
            // Mark one chain of each colour dead, so that the record must carry dead stones of both.
            let grid = game.grid();
            let first = |c: Color| grid.size().points().find(|&p| grid.get(p) == Some(c));
            let marked: Vec<_> = [first(Color::Black), first(Color::White)]
                .into_iter()
                .flatten()
                .collect();
            game.propose(Color::Black, &marked).unwrap();
            game.accept(Color::Black).unwrap();
            game.accept(Color::White).unwrap();
        }
        let info = GameInfo {
            black: Some("黑]\\name".into()),
            white: Some("White".into()),
            comment: Some("a comment: with ] and \\".into()),
            ..GameInfo::default()
        };
        let tree = to_tree(&game, &info);
        let text = tesuji_sgf::write::write(&tesuji_sgf::Collection { trees: vec![tree] });
        let read = tesuji_sgf::read(text.as_bytes()).unwrap();
        assert!(
            read.diagnostics.is_empty(),
            "{spec}: {:?}",
            read.diagnostics
        );
        let t = &read.collection.trees[0];
        assert_eq!(
            t.root().get("PB").unwrap().text_value().unwrap(),
            "黑]\\name"
        );
        let back = record_rules(t, None, Rules::default()).unwrap();
        assert_eq!(back.to_string(), rules.to_string(), "{spec}");
        let r = replay(t, back).unwrap_or_else(|e| panic!("{spec}: {e}\n{text}"));
        assert_eq!(r.game.grid(), game.grid(), "{spec}");
        assert_eq!(r.turns as u32, game.turns(), "{spec}");
        if let Some(result) = game.result() {
            assert_eq!(t.root().value("RE"), Some(result.to_string().as_str()));
        }
        // The dead stones come back from the record, and counting with them gives the recorded result.
        let dead = tesuji_sgf::record::dead_stones_of(t, &r.game.grid());
        let mut expected = game.dead_stones().to_vec();
        expected.sort_unstable();
        assert_eq!(dead, expected, "{spec}");
        assert_eq!(
            dead.is_empty(),
            !marked_this,
            "{spec}: marked stones stay marked"
        );
        if let Some(result) = game.result().filter(|r| r.score.is_some()) {
            let again = tesuji_rules::result::GameResult::from_score(
                r.game.score_with(&dead),
                &back,
                r.game.first_pass(),
            );
            assert_eq!(again.to_string(), result.to_string(), "{spec}");
        }
    }
    assert!(marked_games > 0, "no game reached the marking phase");
}

/// A counted game's record marks the whole territory: `TB` Black's empty points and dead white stones, `TW`
/// White's, as other servers' records do; the dead stones read back from them.
#[test]
fn a_counted_record_marks_each_players_territory() {
    // 5×5: Black's wall on column B, White's on D, a black stone at E5 left dead in White's area.
    let rules: Rules = "japanese:size=5".parse().unwrap();
    let mut game = tesuji_rules::Game::new(rules).unwrap();
    let size = rules.size;
    for v in [
        "B1", "D1", "B2", "D2", "B3", "D3", "B4", "D4", "B5", "D5", "E5", "pass", "pass",
    ] {
        let mv = if v == "pass" {
            Move::Pass
        } else {
            Move::Play(Point::from_gtp(v, size).unwrap())
        };
        game.play_move(mv).unwrap();
    }
    let e5 = Point::from_gtp("E5", size).unwrap();
    game.propose(Color::White, &[e5]).unwrap();
    game.accept(Color::White).unwrap();
    game.accept(Color::Black).unwrap();
    let tree = tesuji_sgf::record::to_tree(&game, &tesuji_sgf::record::GameInfo::default());
    let last = tree
        .main_line()
        .last()
        .and_then(|id| tree.node(id))
        .unwrap();
    let marks = |ident: &str| -> Vec<String> {
        let mut v = last
            .get(ident)
            .map(|p| p.values.clone())
            .unwrap_or_default();
        v.sort();
        v
    };
    // SGF points: column letter then row letter from the top (A1 = "ae").
    assert_eq!(marks("TB"), ["aa", "ab", "ac", "ad", "ae"]);
    assert_eq!(marks("TW"), ["ea", "eb", "ec", "ed", "ee"]);
    assert_eq!(
        tesuji_sgf::record::dead_stones_of(&tree, &game.grid()),
        vec![e5]
    );
}

/// Every preset (and every bga table, sizes, komi, handicap, overrides): `RU` is the name other programs read,
/// our own property reads back exactly, and `RU` alone gives the same preset (`ideal`, unknown elsewhere, as
/// Tromp-Taylor).
#[test]
fn written_rules_are_conventional_and_read_back() {
    use tesuji_sgf::record::{OWN_RULES, to_tree};
    let expected = [
        ("tromp-taylor", "Tromp-Taylor"),
        ("ideal", "Tromp-Taylor"),
        ("bga", "BGA"),
        ("aga", "AGA"),
        ("chinese", "Chinese"),
        ("japanese", "Japanese"),
        ("korean", "Korean"),
        ("new-zealand", "NZ"),
    ];
    assert_eq!(expected.len(), Preset::ALL.len());
    let mut specs: Vec<String> = Vec::new();
    for (name, _) in expected {
        specs.push(name.to_string());
        specs.push(format!("{name}:size=9"));
    }
    specs.extend(
        [
            "japanese:size=9,komi=0.5,handicap=3",
            "chinese:size=13,handicap=4,ko=situational",
            "bga:size=9,counting=japanese,komi=big,aga=on",
            "bga:size=13,counting=chinese,komi=h3,aga=off",
            "aga:size=19,handicap=2",
            "ideal:size=7,handicap=2",
        ]
        .map(String::from),
    );
    for spec in specs {
        let rules: Rules = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
        let game = tesuji_rules::Game::new(rules).unwrap();
        let tree = to_tree(&game, &Default::default());
        let text = tesuji_sgf::write::write(&tesuji_sgf::Collection { trees: vec![tree] });
        let t = &tesuji_sgf::read(text.as_bytes()).unwrap().collection.trees[0];
        let ru = t.root().value("RU").unwrap();
        let name = expected
            .iter()
            .find(|(n, _)| *n == rules.preset.name())
            .map(|(_, sgf)| *sgf)
            .unwrap();
        assert_eq!(ru, name, "{spec}: {text}");
        assert_eq!(t.root().value(OWN_RULES), Some(rules.to_string().as_str()));
        let back = record_rules(t, None, Rules::default()).unwrap();
        assert_eq!(back, rules, "{spec}: {text}");
        // Other programs' path: RU alone.
        let from_name = rules_from_name(ru).unwrap_or_else(|| panic!("{spec}: RU[{ru}] not read"));
        let preset = if rules.preset == Preset::Ideal {
            Preset::TrompTaylor
        } else {
            rules.preset
        };
        assert_eq!(from_name.preset, preset, "{spec}");
        let mut plain = t.clone();
        plain.root_mut().properties.retain(|p| p.ident != OWN_RULES);
        let read = record_rules(&plain, None, Rules::default()).unwrap();
        assert_eq!(read.preset, preset, "{spec}");
        assert_eq!(
            (read.size, read.komi.net(), read.handicap),
            (rules.size, rules.komi.net(), rules.handicap),
            "{spec}"
        );
        // An external reader sees the same RU.
        let theirs = sgf_parse::parse(&text).unwrap();
        let root = theirs[0].as_go_node().unwrap();
        let ru_theirs = root
            .properties()
            .find_map(|p| match p {
                sgf_parse::go::Prop::RU(v) => Some(v.to_string()),
                _ => None,
            })
            .unwrap();
        assert_eq!(ru_theirs, name, "{spec}");
    }
}
