//! The protocol under malformed input: bad ids, bad vertices, unknown commands, huge lines, empty lines,
//! comments, control characters, every command with missing or extra arguments, and random corruptions of
//! valid commands. The engine must answer `?` (with the id when there is one), never stop, and never change
//! its state on a failed command.

mod common;

use common::{Ours, parse_response};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use tesuji_gtp::{COMMANDS, EngineConfig, run};

/// Runs the whole `run` loop over `input`; returns every response, parsed.
fn session(input: &[u8]) -> Vec<(Option<u32>, Result<String, String>)> {
    let mut out = Vec::new();
    run(
        std::io::Cursor::new(input.to_vec()),
        &mut out,
        EngineConfig::default(),
    )
    .expect("run");
    let text = String::from_utf8(out).expect("UTF-8 output");
    text.split_inclusive("\n\n").map(parse_response).collect()
}

fn err(s: &str) -> Result<String, String> {
    Err(s.to_string())
}

fn ok(s: &str) -> Result<String, String> {
    Ok(s.to_string())
}

#[test]
fn ids_and_framing() {
    let r = session(
        b"007 name\n99999999999 name\n2147483648 name\n-5 name\n12x name\n5\n3 foo\n\n   \n\t\n# comment\n\
          name # trailing comment\n8 protocol_version\n",
    );
    assert_eq!(
        r,
        vec![
            (Some(7), ok("tesuji")),
            (None, err("invalid id")),
            (None, err("invalid id")),
            (None, err("unknown command")),
            (None, err("unknown command")),
            (Some(5), err("missing command")),
            (Some(3), err("unknown command")),
            (None, ok("tesuji")),
            (Some(8), ok("2")),
        ]
    );
}

#[test]
fn control_characters_tabs_and_bad_bytes() {
    let r = session(
        b"\x01na\x02me\r\n\x7fprotocol_version\x00\nplay\tb\tA1\nshowboard\x1b\n\xff\xfe\nNAME\n",
    );
    assert_eq!(r[0], (None, ok("tesuji")));
    assert_eq!(r[1], (None, ok("2")));
    assert_eq!(r[2], (None, ok("")));
    assert!(r[3].1.as_ref().unwrap().contains("\n19 . . ."));
    assert_eq!(r[4], (None, err("unknown command")));
    // Command names are case-sensitive, as in GNU Go.
    assert_eq!(r[5], (None, err("unknown command")));
    assert_eq!(r.len(), 6);
}

#[test]
fn quit_and_end_of_input() {
    let r = session(b"1 quit\nname\n");
    assert_eq!(r, vec![(Some(1), ok(""))]);
    // The last line may lack its newline.
    let r = session(b"name\n2 protocol_version");
    assert_eq!(r, vec![(None, ok("tesuji")), (Some(2), ok("2"))]);
    assert!(session(b"").is_empty());
    // `quit` with an argument is an error and the engine goes on.
    let r = session(b"quit now\nname\n");
    assert_eq!(
        r,
        vec![
            (None, err("wrong number of arguments")),
            (None, ok("tesuji"))
        ]
    );
}

#[test]
fn huge_lines() {
    let mut input = Vec::new();
    // 1 MB lines: read whole, answered as what they are.
    input.extend_from_slice(b"4 play b ");
    input.extend(std::iter::repeat_n(b'A', 1 << 20));
    input.push(b'\n');
    input.extend(std::iter::repeat_n(b'x', 1 << 20));
    input.push(b'\n');
    input.extend_from_slice(b"play b ");
    input.extend(std::iter::repeat_n(b'#', 1 << 20));
    input.push(b'\n');
    // Past the limit: dropped, answered with the id.
    input.extend_from_slice(b"42 name ");
    input.extend(std::iter::repeat_n(b'y', 9 << 20));
    input.push(b'\n');
    input.extend_from_slice(b"play b d4\nall_legal white\n");
    let r = session(&input);
    assert_eq!(r[0], (Some(4), err("invalid color or coordinate")));
    assert_eq!(r[1], (None, err("unknown command")));
    assert_eq!(r[2], (None, err("invalid color or coordinate")));
    assert_eq!(r[3], (Some(42), err("line too long")));
    assert_eq!(r[4], (None, ok("")));
    assert_eq!(r[5].1.as_ref().unwrap().split(' ').count(), 360);
    assert_eq!(r.len(), 6);
}

#[test]
fn bad_vertices_and_colors() {
    let mut e = Ours::with_spec("chinese");
    e.ok("boardsize 9");
    for line in [
        "play b z9",
        "play b j10",
        "play b I5",
        "play b A0",
        "play b A-1",
        "play b A+1",
        "play b tt",
        "play b 5A",
        "play b A",
        "play b 5",
        "play b A99999999999999999999",
        "play x a1",
        "play bl a1",
        "play",
        "play b",
        "is_legal b k10",
        "is_legal q a1",
        "set_free_handicap a1 a1",
        "set_free_handicap a1 pass",
        "set_free_handicap a1 z1",
    ] {
        assert!(e.send(line).is_err(), "{line} should fail");
    }
    assert_eq!(e.send("play b z9"), err("invalid color or coordinate"));
    assert_eq!(e.send("play b"), err("invalid color or coordinate"));
    assert_eq!(e.send("play b a1 a2"), err("wrong number of arguments"));
    // Case-insensitive colours and vertices; `pass` in any case.
    e.ok("play BLACK j9");
    e.ok("play W a1");
    e.ok("play b PASS");
    assert_eq!(e.send("play w J9"), err("illegal move"));
    assert_eq!(e.ok("captures black"), "0");
    assert!(e.ok("showboard").contains(" 9 . . . . . . . . X 9"));
}

/// For every command: argument lists that must fail (missing, extra, malformed).
fn bad_arguments(name: &str) -> Vec<&'static str> {
    match name {
        "protocol_version" | "name" | "version" | "list_commands" | "quit" | "clear_board"
        | "undo" | "showboard" | "final_score" | "kata-get-rules" => vec!["x", "1 2"],
        "known_command" => vec!["", "a b"],
        "boardsize" => vec![
            "",
            "0",
            "26",
            "-9",
            "9.0",
            "nine",
            "9 0",
            "9 9 9",
            "99999999999",
        ],
        "komi" => vec!["", "x", "6.25", "1e3", "nan", "inf", "6.5 1", "1001", "--1"],
        "play" => vec!["", "b", "b a1 a2", "b a1 extra", "x a1", "b z1"],
        "genmove" | "kgs-genmove_cleanup" => vec!["", "x", "b w", "pass"],
        "final_status_list" => vec!["", "undead", "alive dead"],
        "fixed_handicap" | "place_free_handicap" => {
            vec!["", "x", "-2", "0", "1", "2 3", "99999999999"]
        }
        "set_free_handicap" => vec!["", "a1", "a1 a1", "a1 pass", "a1 zz9"],
        "loadsgf" => vec![
            "",
            "/nonexistent/file.sgf",
            "/nonexistent/file.sgf 0",
            "a b c",
        ],
        "printsgf" => vec!["a b", "/nonexistent/dir/out.sgf"],
        "time_settings" => vec!["", "1", "1 2", "1 2 3 4", "-1 0 0", "a b c"],
        "time_left" => vec!["", "b", "b 1", "x 1 1", "b x 1", "b 1 -1", "b 1 1 1"],
        "kgs-time_settings" => vec![
            "",
            "fischer 1 2",
            "absolute",
            "byoyomi 1 2",
            "canadian 1 2 x",
            "none 1",
        ],
        "is_legal" | "tesuji-why" => vec!["", "b", "b a1 a2", "x a1"],
        "all_legal" | "captures" => vec!["", "x", "b w"],
        "kgs-rules" => vec!["", "ing", "chinese japanese"],
        "kata-set-rules" => vec!["", "nonsense", "{\"ko\":", "koSIMPLEscoreAREAbutton1"],
        "tesuji-rules" => vec!["nonsense", "chinese:ko=none", "chinese:komi=x"],
        "set_position" => vec![
            "b",
            "b a1 w",
            "b a1 b a1",
            "b pass",
            "x a1",
            "b a1 w a2 w b1",
        ],
        "lz-analyze"
        | "kata-analyze"
        | "analyze"
        | "lz-genmove_analyze"
        | "kata-genmove_analyze"
        | "genmove_analyze" => vec![
            "x",
            "b -5",
            "b 10 interval",
            "b 10 maxmoves x",
            "ownership yes",
            "movesOwnership yes",
            "avoid b c3",
            "allow x c3 1",
            "avoid b zz9 1",
            "avoid b c3 0",
            "w 10 10",
        ],
        "gogui-analyze_commands"
        | "tesuji-ownership"
        | "tesuji-pv"
        | "tesuji-score"
        | "kata-list-params" => vec!["x"],
        "kata-get-param" => vec!["", "nonsense", "maxTime 3"],
        "kata-set-param" => vec![
            "",
            "maxTime",
            "maxTime x",
            "maxTime -1",
            "numSearchThreads 0",
            "maxPlayouts -3",
            "nonsense 3",
            "maxPlayouts 1 2",
        ],
        // Without a network every form fails; the arguments themselves are checked in crates/cli/tests/gtp.rs.
        "kata-raw-nn" => vec!["", "8", "b", "0 1.5", "0 0.2 x"],
        other => panic!("no bad arguments listed for {other}"),
    }
}

#[test]
fn every_command_with_missing_or_extra_arguments() {
    let mut e = Ours::with_spec("chinese:size=9");
    for line in ["play b c3", "play w e5", "play b c4", "komi 6.5"] {
        e.ok(line);
    }
    let board = e.ok("showboard");
    let record = e.ok("printsgf");
    let rules = e.ok("tesuji-rules");
    for name in COMMANDS {
        for args in bad_arguments(name) {
            let line = format!("17 {name} {args}");
            let reply = e.engine.process_line(line.as_bytes()).expect("answered");
            let (id, answer) = parse_response(&reply);
            assert_eq!(id, Some(17), "{line}");
            assert!(answer.is_err(), "{line:?} should fail, got {answer:?}");
            assert!(!e.engine.quit_requested(), "{line}");
        }
    }
    // Nothing changed.
    assert_eq!(e.ok("showboard"), board);
    assert_eq!(e.ok("printsgf"), record);
    assert_eq!(e.ok("tesuji-rules"), rules);
    // And the engine still plays.
    e.ok("undo");
    e.ok("play b d4");
    assert_eq!(e.ok("captures white"), "0");
}

#[test]
fn failed_commands_change_nothing() {
    let mut e = Ours::with_spec("chinese:size=7");
    // Handicap only on an empty board, and an illegal move leaves everything as it was.
    e.ok("play b d4");
    assert_eq!(e.send("fixed_handicap 2"), err("board not empty"));
    assert_eq!(e.send("place_free_handicap 2"), err("board not empty"));
    assert_eq!(e.send("set_free_handicap a1 b2"), err("board not empty"));
    assert_eq!(e.send("play w d4"), err("illegal move"));
    e.ok("undo");
    assert_eq!(e.send("undo"), err("cannot undo"));
    assert_eq!(e.ok("fixed_handicap 4"), "C5 E5 C3 E3");
    assert_eq!(e.send("fixed_handicap 5"), err("invalid handicap"));
    // Handicap stones are the start position: not undoable, as in GNU Go.
    assert_eq!(e.send("undo"), err("cannot undo"));
    e.ok("clear_board");
    assert_eq!(e.ok("place_free_handicap 3").split(' ').count(), 3);
    e.ok("clear_board");
    e.ok("set_free_handicap a1 b2 c3");
    assert!(e.ok("printsgf").contains("HA[3]"));
    // Rules that would make a played move illegal wait for the next game.
    e.ok("clear_board");
    e.ok("tesuji-rules tromp-taylor:size=3");
    for line in [
        "play b b1",
        "play b a2",
        "play b b3",
        "play b c2",
        "play b b2",
        "play w pass",
    ] {
        e.ok(line);
    }
    // White at A1 would be a suicide of one stone: legal only where suicide is.
    e.ok("tesuji-rules tromp-taylor:size=3,ko=simple");
    e.ok("play w a1");
    let before = e.ok("showboard");
    // Rules that forbid it are the next game's; this one keeps its own.
    assert_eq!(
        e.ok("tesuji-rules chinese"),
        "rules apply from the next game"
    );
    assert_eq!(e.ok("showboard"), before);
    assert_eq!(e.ok("tesuji-rules"), "tromp-taylor:size=3,ko=simple");
}

/// Random corruptions of valid lines: a shadow engine receives exactly the lines that succeeded, and the two
/// must end in the same state.
#[test]
fn random_corruptions_keep_the_state() {
    let base = [
        "play b d4",
        "play w e5",
        "genmove b",
        "genmove w",
        "undo",
        "is_legal b c3",
        "all_legal w",
        "komi 5.5",
        "boardsize 9",
        "clear_board",
        "showboard",
        "final_score",
        "final_status_list dead",
        "captures b",
        "fixed_handicap 3",
        "set_free_handicap c3 g7",
        "kgs-rules japanese",
        "kata-set-rules chinese",
        "tesuji-rules chinese:size=9",
        "time_left b 30 0",
        "set_position b a1 w b2",
        "play b pass",
        "known_command play",
        "kgs-genmove_cleanup w",
    ];
    let junk: &[u8] = b" \t#\x00\x01\r\xffabcxyzABC0123456789-+.:,{}\"";
    let mut rng = Pcg64Mcg::seed_from_u64(99);
    let mut tested = Ours::with_spec("chinese:size=9");
    let mut shadow = Ours::with_spec("chinese:size=9");
    let mut failures = 0;
    for _ in 0..4000 {
        let line = base[rng.random_range(0..base.len())];
        let mut bytes = line.as_bytes().to_vec();
        for _ in 0..rng.random_range(0..4) {
            let at = rng.random_range(0..=bytes.len());
            match rng.random_range(0..3) {
                0 => bytes.insert(at, junk[rng.random_range(0..junk.len())]),
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ if at < bytes.len() => bytes[at] = junk[rng.random_range(0..junk.len())],
                _ => {}
            }
        }
        let Some(reply) = tested.engine.process_line(&bytes) else {
            continue;
        };
        let (_, answer) = parse_response(&reply);
        assert!(!tested.engine.quit_requested());
        match answer {
            Ok(_) => {
                let again = shadow.engine.process_line(&bytes).expect("answered");
                assert_eq!(again, reply, "{:?}", String::from_utf8_lossy(&bytes));
            }
            Err(_) => failures += 1,
        }
    }
    assert!(
        failures > 500,
        "too few failures to mean anything: {failures}"
    );
    for line in [
        "showboard",
        "printsgf",
        "tesuji-rules",
        "kata-get-rules",
        "final_score",
    ] {
        assert_eq!(tested.send(line), shadow.send(line), "{line}");
    }
}

#[test]
fn list_and_known_commands() {
    let mut e = Ours::with_spec("chinese");
    let list = e.ok("list_commands");
    assert_eq!(list.lines().collect::<Vec<_>>(), COMMANDS.to_vec());
    for name in COMMANDS {
        assert_eq!(e.ok(&format!("known_command {name}")), "true");
    }
    assert_eq!(e.ok("known_command foo"), "false");
    assert_eq!(e.ok("protocol_version"), "2");
    assert!(e.ok("version").contains(env!("CARGO_PKG_VERSION")));
}
