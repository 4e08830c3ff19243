//! The `tesuji` command as users meet it: outputs, one-line errors and exit codes.

use std::process::{Command, Output};

fn tesuji(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tesuji"))
        .args(args)
        .output()
        .expect("run tesuji")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sgf_data(path: &str) -> String {
    format!("{}/../sgf/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn perft_prints_one_line_per_depth() {
    // The triple-ko row of the perft tables (tt): 1, 5, 26, 121.
    let o = tesuji(&[
        "perft",
        "--rules",
        "tromp-taylor",
        "--position",
        ".w.bw/wbbbw/w.bww/bbbw./wwww. b",
        "--depth",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "0 1\n1 5\n2 26\n3 121\n");
}

#[test]
fn serve_refuses_a_grace_period_out_of_range() {
    for bad in ["0", "86401", "soon"] {
        let o = tesuji(&["serve", "--grace", bad, "--address", "127.0.0.1:0"]);
        assert_eq!(o.status.code(), Some(2), "--grace {bad}");
        let err = stderr(&o);
        assert!(err.contains("--grace"), "--grace {bad}: {err}");
    }
}

#[test]
fn serve_refuses_an_untimed_claim_absence_out_of_range() {
    for bad in ["0", "366", "-1", "a week"] {
        let flag = format!("--untimed-claim-days={bad}");
        let o = tesuji(&["serve", &flag, "--address", "127.0.0.1:0"]);
        assert_eq!(o.status.code(), Some(2), "--untimed-claim-days {bad}");
        let err = stderr(&o);
        assert!(
            err.contains("--untimed-claim-days"),
            "--untimed-claim-days {bad}: {err}"
        );
    }
}

#[test]
fn serve_refuses_a_database_that_is_not_postgresql() {
    for bad in ["mysql://u@h/db", "tesuji.db", ""] {
        let o = tesuji(&["serve", "--database", bad, "--address", "127.0.0.1:0"]);
        assert_eq!(o.status.code(), Some(2), "--database {bad:?}");
        let err = stderr(&o);
        assert!(
            err.contains("--database") && err.contains("postgres://"),
            "--database {bad:?}: {err}"
        );
    }
}

/// A PostgreSQL server that cannot be reached is one line naming it, without its password, and exit 1.
#[test]
fn serve_says_which_database_it_cannot_reach() {
    // A port nobody listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://ann:hunter2@127.0.0.1:{port}/tesuji");
    let o = tesuji(&["serve", "--database", &url, "--address", "127.0.0.1:0"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().filter(|l| !l.contains(" INFO ")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains(&format!(
            "cannot connect to PostgreSQL at postgres://ann@127.0.0.1:{port}/tesuji"
        )),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
}

#[test]
fn bad_input_is_one_clear_line_and_exit_1() {
    for (args, needle) in [
        (
            vec!["perft", "--rules", "tromp", "--depth", "1"],
            "unknown rules preset",
        ),
        (
            vec!["perft", "--position", "..x/..z b", "--depth", "1"],
            "bad --position",
        ),
        (
            vec!["perft", "--position", "... q", "--depth", "1"],
            "colour",
        ),
        (vec!["score", "/no/such/file.sgf"], "cannot read"),
        (vec!["bench", "playouts", "--size", "30"], "bad --size"),
        (vec!["bench", "server", "--nodes", "2"], "--nats nats://"),
    ] {
        let o = tesuji(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn score_prints_result_and_json() {
    let file = sgf_data("katago/sgf/sampletest7x7.sgf");
    let o = tesuji(&["score", &file]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("B+") || first.starts_with("W+") || first == "0",
        "{text}"
    );
    let o = tesuji(&[
        "score", &file, "--json", "--rules", "chinese", "--komi", "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let black = v["black"]["total"].as_f64().unwrap();
    let white = v["white"]["total"].as_f64().unwrap();
    // Chinese counting, no komi: the result is the difference of the totals.
    let expected = if black > white {
        format!("B+{}", black - white)
    } else if white > black {
        format!("W+{}", white - black)
    } else {
        "0".to_string()
    };
    assert_eq!(v["result"].as_str().unwrap(), expected);
    assert_eq!(v["white"]["komi"].as_f64(), Some(0.0));
}

#[test]
fn score_refuses_bad_dead_vertices_and_illegal_records() {
    let file = sgf_data("katago/sgf/cornermoves.sgf");
    let o = tesuji(&["score", &file, "--dead", "Z9"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad --dead vertex"));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sgf");
    std::fs::write(&bad, "(;SZ[9];B[aa];W[aa])").unwrap();
    let o = tesuji(&["score", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("node 2") && err.contains("occupied"), "{err}");
}

#[test]
fn sgf_check_and_fmt() {
    let good = sgf_data("sgf-parse/ff4_ex.sgf");
    let o = tesuji(&["sgf", "check", &good]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.sgf");
    std::fs::write(&broken, "(;SZ[9];B[aa").unwrap();
    let o = tesuji(&["sgf", "check", &good, broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("broken.sgf:"), "{}", stdout(&o));
    // fmt: the rewrite reads back to the same trees and is itself canonical.
    let o = tesuji(&["sgf", "fmt", &good]);
    assert!(o.status.success());
    let once = stdout(&o);
    let rewritten = dir.path().join("once.sgf");
    std::fs::write(&rewritten, &once).unwrap();
    let o = tesuji(&["sgf", "fmt", rewritten.to_str().unwrap()]);
    assert_eq!(stdout(&o), once);
    let original = tesuji_sgf::read(&std::fs::read(&good).unwrap()).unwrap();
    let again = tesuji_sgf::read(once.as_bytes()).unwrap();
    // The same trees, but for the CA[UTF-8] the rewrite adds to each root.
    let strip_ca = |mut c: tesuji_sgf::Collection| {
        for t in &mut c.trees {
            t.root_mut().properties.retain(|p| p.ident != "CA");
        }
        c
    };
    assert_eq!(strip_ca(original.collection), strip_ca(again.collection));
    assert_eq!(once.matches("CA[UTF-8]").count(), 2);
}

#[test]
fn fmt_writes_utf8_with_ca() {
    // chinese.sgf is GB2312 with CA[GB2312]: the rewrite is UTF-8 and says so.
    let o = tesuji(&["sgf", "fmt", &sgf_data("sabaki-sgf/chinese.sgf")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).expect("UTF-8 output");
    assert!(text.contains("CA[UTF-8]"), "{text}");
    assert!(!text.contains("GB2312"));
    assert!(
        text.contains("PW[柯洁]") && text.contains("PB[古力]"),
        "{text}"
    );
    // A file without CA gets one.
    let o = tesuji(&["sgf", "fmt", &sgf_data("sabaki-sgf/no-ca.sgf")]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("CA[UTF-8]"));
    assert!(text.contains("【第三型】"));
}

#[test]
fn match_gnugo_against_tesuji_twenty_games_with_valid_records() {
    let gnugo = "/usr/games/gnugo";
    assert!(
        std::path::Path::new(gnugo).exists(),
        "GNU Go is needed at {gnugo} (apt-get install gnugo; .ci/run installs it)"
    );
    let dir = tempfile::tempdir().unwrap();
    let ours = format!("{} gtp --bot simple", env!("CARGO_BIN_EXE_tesuji"));
    let o = tesuji(&[
        "match",
        "--black",
        &format!("{gnugo} --mode gtp --level 1"),
        "--white",
        &ours,
        "--rules",
        "chinese",
        "--size",
        "9",
        "--games",
        "20",
        "--parallel",
        "2",
        "--time-per-move",
        "10",
        "--sgf-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("games 20"), "{out}");
    assert!(
        out.contains("games lost by a fault (illegal move, crash, time): 0"),
        "{out}"
    );
    let mut files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 20);
    for f in files {
        let read = tesuji_sgf::read(&std::fs::read(&f).unwrap()).unwrap();
        assert!(
            read.diagnostics.is_empty(),
            "{}: {:?}",
            f.display(),
            read.diagnostics
        );
        let t = &read.collection.trees[0];
        let rules =
            tesuji_sgf::record::record_rules(t, None, tesuji_rules::Rules::default()).unwrap();
        let replayed = tesuji_sgf::record::replay(t, rules).unwrap();
        assert!(replayed.turns > 10, "{}", f.display());
        let re = t.root().value("RE").expect("every game has a result");
        assert!(
            re.starts_with("B+") || re.starts_with("W+") || re == "0",
            "{re}"
        );
    }
}

#[test]
fn match_scores_crashes_and_time_outs_as_losses_without_hanging() {
    let ours = format!("{} gtp --bot simple", env!("CARGO_BIN_EXE_tesuji"));
    // An engine that exits at once, and one that never answers.
    for (bad, why) in [("true", "stopped"), ("sleep 60", "no answer")] {
        let started = std::time::Instant::now();
        let dir = tempfile::tempdir().unwrap();
        let o = tesuji(&[
            "match",
            "--black",
            bad,
            "--white",
            &ours,
            "--size",
            "9",
            "--games",
            "2",
            "--time-per-move",
            "0.2",
            "--setup-time",
            "1",
            "--sgf-dir",
            dir.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        // A is the failing engine: it loses both games, as Black and as White.
        assert!(out.contains("A wins 0  B wins 2"), "{bad}: {out}");
        assert!(
            out.contains("games lost by a fault (illegal move, crash, time): 2"),
            "{out}"
        );
        assert!(stderr(&o).contains(why), "{bad}: {}", stderr(&o));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(25),
            "{bad} took too long"
        );
    }
}

#[test]
fn score_takes_dead_stones_marked_in_the_record() {
    // 5×5 under Chinese rules, komi 0: Black walls column B, White column D, a lone black stone at E5 in
    // White's area. Marked dead (TB/TW on the last node: a black stone on TW), White has 10 points and Black
    // 10: a draw; unmarked, E5 lives and White's area shrinks.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dead.sgf");
    let moves = ";B[ba];W[da];B[bb];W[db];B[bc];W[dc];B[bd];W[dd];B[be];W[de];B[ea];W[];B[]";
    std::fs::write(
        &file,
        format!("(;GM[1]FF[4]SZ[5]KM[0]RU[Chinese]{moves}TW[ea])"),
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let marked = tesuji(&["score", path, "--json"]);
    assert!(marked.status.success(), "{}", stderr(&marked));
    let v: serde_json::Value = serde_json::from_str(&stdout(&marked)).unwrap();
    assert_eq!(v["result"], "0", "{v}");
    assert_eq!(v["white"]["dead"], 1, "{v}");
    // --dead overrides the record's marks.
    let unmarked = tesuji(&["score", path, "--json", "--dead", ""]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&unmarked)).unwrap();
    assert_eq!(v["white"]["dead"], 0, "{v}");
    assert_ne!(v["result"], "0", "{v}");
}

#[test]
fn score_auto_dead_removes_the_estimated_dead_stones() {
    // The 5×5 record above without its marks: the lone black stone at E5 in White's area is dead, so the
    // estimator's count is the marked count, a draw. A wrong mark (TB on White's D5) is overridden.
    let dir = tempfile::tempdir().unwrap();
    let moves = ";B[ba];W[da];B[bb];W[db];B[bc];W[dc];B[bd];W[dd];B[be];W[de];B[ea];W[];B[]";
    for (name, marks) in [("plain.sgf", ""), ("wrong.sgf", "TB[da]")] {
        let file = dir.path().join(name);
        std::fs::write(
            &file,
            format!("(;GM[1]FF[4]SZ[5]KM[0]RU[Chinese]{moves}{marks})"),
        )
        .unwrap();
        let path = file.to_str().unwrap();
        let o = tesuji(&["score", path, "--json", "--auto-dead"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["result"], "0", "{name}: {v}");
        assert_eq!(v["dead"], serde_json::json!(["E5"]), "{name}: {v}");
        assert_eq!(v["unsure"], serde_json::json!([]), "{name}: {v}");
        let text = tesuji(&["score", path, "--auto-dead"]);
        assert_eq!(text.status.code(), Some(0), "{name}: {}", stderr(&text));
        assert!(stdout(&text).contains("\ndead E5\n"), "{}", stdout(&text));
    }
    // --dead and --auto-dead exclude each other.
    let path = dir.path().join("plain.sgf");
    let o = tesuji(&[
        "score",
        path.to_str().unwrap(),
        "--auto-dead",
        "--dead",
        "E5",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

/// A position of `crates/bot/tests/fixtures/dead/` (GNU Go's dead stones, checked by playing on) as a record:
/// its stones set up, then two passes from the colour to move. Returns the record and the dead and contested
/// stones.
fn fixture_record(name: &str) -> (String, Vec<String>, Vec<String>) {
    let path = format!(
        "{}/../bot/tests/fixtures/dead/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let field = |key: &str| -> Vec<String> {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default()
    };
    let rows: Vec<String> = text
        .lines()
        .skip_while(|l| *l != "board")
        .map(str::trim)
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            l.trim_start_matches(|c: char| c.is_ascii_digit())
                .replace(' ', "")
        })
        .collect();
    let (mut black, mut white) = (String::new(), String::new());
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let point = format!("[{}{}]", (b'a' + x as u8) as char, (b'a' + y as u8) as char);
            match c {
                'X' => black.push_str(&point),
                'O' => white.push_str(&point),
                _ => {}
            }
        }
    }
    let ru = if field("rules ")[0].starts_with("chinese") {
        "Chinese"
    } else {
        "Japanese"
    };
    let passes = if field("to-move ")[0] == "black" {
        ";B[];W[]"
    } else {
        ";W[];B[]"
    };
    let record = format!(
        "(;GM[1]FF[4]SZ[{}]KM[7]RU[{ru}]AB{black}AW{white}{passes})",
        rows.len()
    );
    (record, field("dead "), field("contested "))
}

#[test]
fn score_auto_dead_agrees_with_gnugo_on_settled_records() {
    // Positions from finished GNU Go games where GNU Go's dead stones were confirmed by playing on.
    let dir = tempfile::tempdir().unwrap();
    for name in ["game-a-63.txt", "game-b-32.txt", "game-a-99.txt"] {
        let (record, mut dead, contested) = fixture_record(name);
        assert!(contested.is_empty() && !dead.is_empty(), "{name}");
        let file = dir.path().join(name);
        std::fs::write(&file, record).unwrap();
        let o = tesuji(&["score", file.to_str().unwrap(), "--json", "--auto-dead"]);
        let v: serde_json::Value = serde_json::from_str(&stdout(&o))
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", stderr(&o)));
        let mut ours: Vec<String> = v["dead"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        ours.sort();
        dead.sort();
        assert_eq!(ours, dead, "{name}: {v}");
        // Exit 0 exactly when nothing is unsure.
        let unsure = v["unsure"].as_array().unwrap();
        let expected = if unsure.is_empty() { 0 } else { 3 };
        assert_eq!(o.status.code(), Some(expected), "{name}: {}", stderr(&o));
    }
}

#[test]
fn score_auto_dead_reports_unsure_stones_and_exits_3() {
    // A race that whoever plays first wins (game-a-62): the estimator must not call it, the count leaves
    // those stones on the board, names them on one line and exits 3, with the result still printed.
    let (record, _, contested) = fixture_record("game-a-62.txt");
    assert!(!contested.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("race.sgf");
    std::fs::write(&file, record).unwrap();
    let o = tesuji(&["score", file.to_str().unwrap(), "--auto-dead"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("B+") || first.starts_with("W+") || first == "0",
        "{out}"
    );
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.contains("unsure stones, counted alive:"))
        .unwrap_or_else(|| panic!("no unsure line: {err}"));
    for v in &contested {
        assert!(line.split_whitespace().any(|w| w == v), "{v} not in {line}");
    }
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn match_clocks_make_a_slow_engine_lose_on_time() {
    // A GTP engine that takes 0.7 s over every genmove (and passes): with 2 s of absolute time it runs out on
    // its third move, while tesuji's own engine answers in milliseconds.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("slow.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    genmove*) sleep 0.7; printf '= pass\\n\\n' ;;\n    quit*) printf '=\\n\\n'; exit 0 ;;\n    *) printf '=\\n\\n' ;;\n  esac\ndone\n",
    )
    .unwrap();
    let slow = format!("sh {}", script.display());
    let ours = format!("{} gtp --bot simple", env!("CARGO_BIN_EXE_tesuji"));
    let sgf_dir = dir.path().join("games");
    let o = tesuji(&[
        "match",
        "--black",
        &slow,
        "--white",
        &ours,
        "--size",
        "9",
        "--games",
        "2",
        "--time",
        "absolute:2s",
        "--sgf-dir",
        sgf_dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("A wins 0  B wins 2"), "{out}");
    // Lost on time, as Black (W+T) and as White (B+T), with the control in the records.
    for (game, result) in [("game-0001.sgf", "RE[W+T]"), ("game-0002.sgf", "RE[B+T]")] {
        let text = std::fs::read_to_string(sgf_dir.join(game)).unwrap();
        assert!(text.contains(result), "{game}: {text}");
        assert!(text.contains("TM[2]"), "{game}: {text}");
    }
    let o = tesuji(&[
        "match",
        "--black",
        &slow,
        "--white",
        &ours,
        "--time",
        "fischer:5m",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad --time"), "{}", stderr(&o));
}

/// The result and White's komi of `tesuji score FILE ARGS... --json`, and its standard error.
fn score_json(file: &std::path::Path, args: &[&str]) -> (String, f64, String) {
    let mut all = vec!["score", file.to_str().unwrap(), "--json"];
    all.extend_from_slice(args);
    let o = tesuji(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    (
        v["result"].as_str().unwrap().to_string(),
        v["white"]["komi"].as_f64().unwrap(),
        stderr(&o),
    )
}

/// A komi the user states (`komi=` in the spec, bga's komi option, `--komi`) wins over the record's `KM`; the
/// record's applies where the user stated none; a disagreement is said on standard error.
#[test]
fn score_komi_the_user_states_beats_the_records() {
    let dir = tempfile::tempdir().unwrap();
    // 9x9, one black stone: under area counting Black has all 81 points, so the margin is 81 - komi.
    for (km, file_komi) in [("0", 0.0), ("6.5", 6.5), ("-3", -3.0)] {
        let file = dir.path().join(format!("km{km}.sgf"));
        std::fs::write(&file, format!("(;GM[1]SZ[9]KM[{km}];B[ee];W[];B[])")).unwrap();
        let margin = |komi: f64| format!("B+{}", 81.0 - komi);
        // Stated in the spec, with or without the size (bga's `normal` is 5, and its tie rule half a point, on
        // 9x9; 4.5 on 19x19).
        for spec in [
            "bga:size=9,counting=chinese,komi=normal",
            "bga:counting=chinese,komi=normal",
        ] {
            let (result, komi, err) = score_json(&file, &["--rules", spec]);
            assert_eq!(
                (result.as_str(), komi),
                (margin(5.5).as_str(), 5.5),
                "KM[{km}] {spec}"
            );
            assert!(
                err.contains("komi 5.5") && err.contains(&format!("KM[{km}]")),
                "{spec}: {err}"
            );
        }
        for stated in ["7", "0.5", "-1.5"] {
            let k: f64 = stated.parse().unwrap();
            let spec = format!("chinese:komi={stated}");
            let (result, komi, err) = score_json(&file, &["--rules", &spec]);
            assert_eq!((result, komi), (margin(k), k), "KM[{km}] {spec}");
            assert_eq!(err.contains("komi"), k != file_komi, "{spec}: {err}");
            let (result, komi, _) = score_json(&file, &["--rules", "chinese", "--komi", stated]);
            assert_eq!((result, komi), (margin(k), k), "KM[{km}] --komi {stated}");
        }
        // Not stated: the record's KM.
        for spec in ["chinese", "bga:size=9,counting=chinese", "tromp-taylor"] {
            let (result, komi, err) = score_json(&file, &["--rules", spec]);
            assert_eq!(
                (result, komi),
                (margin(file_komi), file_komi),
                "KM[{km}] {spec}"
            );
            assert!(!err.contains("komi"), "{spec}: {err}");
        }
    }
}

/// Two moves of one colour in a row: the other colour's pass is inserted, with a warning naming the node's line
/// and column; the count goes on.
#[test]
fn score_reads_two_moves_of_one_colour_in_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("row.sgf");
    std::fs::write(&file, "(;GM[1]SZ[9]KM[0];B[ee];B[cc]\n;W[gg];B[];W[])").unwrap();
    let (result, _, err) = score_json(&file, &["--rules", "chinese"]);
    // The count of the same game played with the pass in its place.
    let expected = {
        let mut g = tesuji_rules::Game::new("chinese:size=9,komi=0".parse().unwrap()).unwrap();
        for mv in ["E5", "pass", "C7", "G3", "pass", "pass"] {
            let m = if mv == "pass" {
                tesuji_rules::Move::Pass
            } else {
                tesuji_rules::Move::Play(tesuji_rules::Point::from_gtp(mv, g.rules().size).unwrap())
            };
            g.play_move(m).unwrap();
        }
        tesuji_rules::result::GameResult::from_score(g.score_with(&[]), g.rules(), g.first_pass())
            .to_string()
    };
    assert_eq!(result, expected);
    let warning = err
        .lines()
        .find(|l| l.contains("in a row"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        warning.contains("row.sgf:1:24:") && warning.contains("node 2"),
        "{warning}"
    );
    // An illegal move names its node's line and column too.
    let bad = dir.path().join("bad.sgf");
    std::fs::write(&bad, "(;SZ[9]\n;B[aa]\n;W[aa])").unwrap();
    let o = tesuji(&["score", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad.sgf:3:1:"), "{}", stderr(&o));
}

/// `tesuji match --rules` with a handicap: the referee and both engines play it by its placement (White's forced
/// passes; fixed stones placed by the tesuji engines themselves, not twice), with no fault.
#[test]
fn match_honours_a_spec_handicap() {
    let ours = format!("{} gtp --bot simple", env!("CARGO_BIN_EXE_tesuji"));
    for (spec, check) in [
        ("ideal:size=9,handicap=3", "passes"),
        ("chinese:size=9,handicap=4,placement=fixed", "fixed"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = tesuji(&[
            "match",
            "--black",
            &ours,
            "--white",
            &ours,
            "--rules",
            spec,
            "--games",
            "2",
            "--time-per-move",
            "5",
            "--sgf-dir",
            dir.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.contains("games lost by a fault (illegal move, crash, time): 0"),
            "{spec}: {out}"
        );
        for f in std::fs::read_dir(dir.path()).unwrap() {
            let read = tesuji_sgf::read(&std::fs::read(f.unwrap().path()).unwrap()).unwrap();
            let t = &read.collection.trees[0];
            let rules =
                tesuji_sgf::record::record_rules(t, None, tesuji_rules::Rules::default()).unwrap();
            let replayed = tesuji_sgf::record::replay(t, rules).unwrap();
            assert!(replayed.notes.is_empty(), "{spec}: {:?}", replayed.notes);
            let log = replayed.game.log();
            match check {
                "passes" => {
                    // Black, White's pass, Black, White's pass, Black: then White plays.
                    let turns: Vec<_> = log
                        .iter()
                        .filter_map(|a| match a {
                            tesuji_rules::Action::Turn(c, m) => Some((*c, *m)),
                            _ => None,
                        })
                        .take(4)
                        .collect();
                    assert_eq!(
                        turns[1],
                        (tesuji_rules::Color::White, tesuji_rules::Move::Pass)
                    );
                    assert_eq!(
                        turns[3],
                        (tesuji_rules::Color::White, tesuji_rules::Move::Pass)
                    );
                }
                _ => {
                    assert_eq!(t.root().value("HA"), Some("4"));
                    assert_eq!(
                        replayed.game.start_grid().count(tesuji_rules::Color::Black),
                        4
                    );
                }
            }
        }
    }
}

/// `tesuji score --all-rules`: one line per ruleset with its result and totals, the move a ruleset refuses
/// named; the same as JSON; the record's komi unless --komi says otherwise.
#[test]
fn score_all_rules_counts_the_game_under_every_ruleset() {
    let dir = tempfile::tempdir().unwrap();
    // 5x5: White's A1 is a two-stone suicide (A1 and B1), legal only where suicide is.
    let file = dir.path().join("suicide.sgf");
    std::fs::write(
        &file,
        "(;GM[1]SZ[5]KM[2];B[ad];W[be];B[bd];W[];B[ce];W[ae];B[];W[])",
    )
    .unwrap();
    let o = tesuji(&["score", file.to_str().unwrap(), "--all-rules"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 11, "{out}");
    let specs: Vec<&str> = lines
        .iter()
        .map(|l| l.split(": ").next().unwrap())
        .collect();
    assert_eq!(specs, tesuji_rules::compare::COMPARED.to_vec());
    for line in &lines {
        let spec = line.split(": ").next().unwrap();
        match spec {
            // Black's three stones and the whole board: 25 - 2 komi.
            "tromp-taylor" | "new-zealand" => {
                assert_eq!(*line, format!("{spec}: B+23 (black 25, white 2)"))
            }
            "ideal" => assert!(line.starts_with("ideal: B+23"), "{line}"),
            s if s.starts_with("bga") => {
                assert_eq!(*line, format!("{s}: not played on a 5x5 board"))
            }
            s => assert_eq!(*line, format!("{s}: move 6 is illegal (suicide)")),
        }
    }
    let o = tesuji(&[
        "score",
        file.to_str().unwrap(),
        "--all-rules",
        "--json",
        "--komi",
        "0.5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 11);
    assert_eq!(rows[0]["spec"], "tromp-taylor");
    assert_eq!(
        (rows[0]["result"].as_str(), rows[0]["white"].as_f64()),
        (Some("B+24.5"), Some(0.5))
    );
    assert_eq!(rows[7]["spec"], "chinese");
    assert_eq!(
        rows[7]["illegal"],
        serde_json::json!({"move": 6, "reason": "suicide"})
    );
    // A pass the reader inserts is not one of the record's moves: the suicide is the record's fifth move.
    let row = dir.path().join("row.sgf");
    std::fs::write(
        &row,
        "(;GM[1]SZ[5]KM[2];B[ad];B[bd];W[be];B[ce];W[ae];B[];W[])",
    )
    .unwrap();
    let o = tesuji(&["score", row.to_str().unwrap(), "--all-rules"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("chinese: move 5 is illegal (suicide)"),
        "{}",
        stdout(&o)
    );
    // --rules and --all-rules do not go together.
    let o = tesuji(&[
        "score",
        file.to_str().unwrap(),
        "--all-rules",
        "--rules",
        "chinese",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn analyze_reviews_every_position_and_writes_the_record_and_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game.sgf");
    std::fs::write(
        &game,
        "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee]C[first move];W[cc];B[gc];W[cg];B[ge];W[ec];B[eg];W[dd];B[];W[])",
    )
    .unwrap();
    let (out, graph) = (dir.path().join("out.sgf"), dir.path().join("graph.svg"));
    let o = tesuji(&[
        "analyze",
        game.to_str().unwrap(),
        "--playouts",
        "40",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--graph",
        graph.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // Ten turns: eleven positions, the last (after the two passes) out of play.
    assert!(
        text.starts_with("11 positions, 40 playouts each, in "),
        "{text}"
    );
    assert!(text.contains("\nafter move 9: Black "), "{text}");
    for line in text.lines().filter(|l| l.starts_with("move ")) {
        let (_, rest) = line.split_once(" (").unwrap();
        assert!(rest.contains("% win rate"), "{line}");
        let loss: i64 = rest
            .split(": ")
            .nth(1)
            .unwrap()
            .split('%')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(loss <= -5, "{line}");
    }
    // The root and every move played in a position in play carry the review; the record's own comment stays.
    let record = std::fs::read_to_string(&out).unwrap();
    assert_eq!(record.matches("tesuji: Black ").count(), 10, "{record}");
    assert!(
        record.contains("C[first move\n\ntesuji: Black "),
        "{record}"
    );
    assert!(record.contains("best for white "), "{record}");
    // Sabaki's win rate property on the same nodes: Black's, in percent, as the comment says it.
    let rates: Vec<f64> = record
        .split("SBKV[")
        .skip(1)
        .map(|s| s.split(']').next().unwrap().parse().unwrap())
        .collect();
    let said: Vec<f64> = record
        .split("tesuji: Black ")
        .skip(1)
        .map(|s| s.split('%').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(rates.len(), 10, "{record}");
    for (rate, said) in rates.iter().zip(&said) {
        assert!((0.0..=100.0).contains(rate), "{rate}");
        assert!((rate - said).abs() <= 0.05 + 1e-9, "{rate} {said}");
    }
    // The record is still the same game.
    let before = tesuji(&["score", game.to_str().unwrap(), "--auto-dead"]);
    let after = tesuji(&["score", out.to_str().unwrap(), "--auto-dead"]);
    assert_eq!(stdout(&before), stdout(&after));
    // The graph: a point per position searched, numbered.
    let svg = std::fs::read_to_string(&graph).unwrap();
    assert!(svg.starts_with("<svg "), "{svg}");
    let moves: Vec<&str> = svg
        .split("data-move=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap())
        .collect();
    let want: Vec<String> = (0..10).map(|k| k.to_string()).collect();
    assert_eq!(moves, want);
    // Bad input: one line, exit 1.
    for args in [
        vec!["analyze", "/nonexistent/game.sgf"],
        vec!["analyze", game.to_str().unwrap(), "--playouts", "0"],
        vec!["analyze", game.to_str().unwrap(), "--rules", "nonsense"],
    ] {
        let o = tesuji(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn train_patterns_remakes_the_bots_gammas_from_its_records() {
    // Each of the bot's gammas files (9×9 and 19×19) names the command that made it, run from the repository's
    // root; running it again must give the same file, byte for byte.
    for file in ["gammas.txt", "gammas-19x19.txt"] {
        remake_gammas(file);
    }
}

fn remake_gammas(file: &str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let kept = std::fs::read_to_string(root.join("crates/bot/data").join(file)).unwrap();
    let command = kept.lines().nth(1).unwrap().trim_start_matches('#').trim();
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(args[..3], ["tesuji", "train", "patterns"], "{command}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gammas.txt");
    let o = Command::new(env!("CARGO_BIN_EXE_tesuji"))
        .current_dir(&root)
        .args(&args[1..])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let made = std::fs::read_to_string(&out).unwrap();
    assert!(made == kept, "{file} differs from what its command makes");
    // The model predicts moves of games it did not see far better than chance (1 in 40 or so on 9×9, 1 in
    // 200 or so on 19×19).
    let held: f64 = stdout(&o)
        .lines()
        .find_map(|l| l.strip_prefix("held out: "))
        .and_then(|l| l.split("played move first ").nth(1))
        .and_then(|l| l.trim_end_matches('%').parse().ok())
        .expect("a held-out figure");
    assert!(held >= 30.0, "{file}: held-out prediction {held}%");
}

#[test]
fn train_patterns_learns_from_the_named_players_turns_only() {
    let dir = tempfile::tempdir().unwrap();
    // Two games: Alpha has Black in the first (five turns, to Beta's four) and White in the second (three
    // turns, to Beta's three).
    let records = dir.path().join("games.sgf");
    std::fs::write(
        &records,
        "(;GM[1]SZ[9]KM[7]PB[Alpha 1.0]PW[Beta]\
         ;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[ff];W[ec];B[fc])\
         (;GM[1]SZ[9]KM[7]PB[beta]PW[ALPHA]\
         ;B[ee];W[cc];B[gg];W[cg];B[gc];W[dd])",
    )
    .unwrap();
    let out = dir.path().join("g.txt");
    let train = |player: Option<&str>| {
        let mut args = vec!["train", "patterns", "--iterations", "1", "--hold-out", "0"];
        if let Some(p) = player {
            args.extend(["--player", p]);
        }
        args.extend(["--out", out.to_str().unwrap(), records.to_str().unwrap()]);
        tesuji(&args)
    };
    let positions = |o: &std::process::Output| -> usize {
        assert!(o.status.success(), "{}", stderr(o));
        let line = stdout(o).lines().next().unwrap_or_default().to_string();
        line.split(", ")
            .nth(1)
            .and_then(|part| part.strip_suffix(" positions to train on"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no count of positions in {line:?}"))
    };
    assert_eq!(positions(&train(None)), 15);
    // Names match in any case and in part.
    assert_eq!(positions(&train(Some("alpha"))), 8);
    assert_eq!(positions(&train(Some("BETA"))), 7);
    // The command in the file's header names the player, so that it makes the same file again.
    let made = std::fs::read_to_string(&out).unwrap();
    assert!(
        made.lines().nth(1).unwrap().contains("--player BETA"),
        "{made}"
    );
    // A name that no game has: every game is skipped, with the reason, and nothing is written.
    std::fs::remove_file(&out).unwrap();
    let o = train(Some("gamma"));
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("neither player's name contains \"gamma\""),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
}

#[test]
fn train_patterns_refuses_what_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.txt");
    let out = out.to_str().unwrap();
    let missing = dir.path().join("missing.sgf");
    let o = tesuji(&["train", "patterns", "--out", out, missing.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no such file or folder"),
        "{}",
        stderr(&o)
    );
    // A folder without records, and one whose only record is broken.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = tesuji(&["train", "patterns", "--out", out, empty.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no .sgf file"), "{}", stderr(&o));
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("a.sgf"), "(;GM[1]SZ[9];B[ee];W[ee])").unwrap();
    let o = tesuji(&["train", "patterns", "--out", out, bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("skipped"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no position to train on"),
        "{}",
        stderr(&o)
    );
    assert!(!std::path::Path::new(out).exists());
    let o = tesuji(&[
        "train",
        "patterns",
        "--iterations",
        "0",
        "--out",
        out,
        sgf_data("").as_str(),
    ]);
    assert!(!o.status.success());
}

/// `tesuji reset-password` prints a one-time link for an account of the data directory; an unknown account or a
/// folder without a database is one error line and exit 1.
#[test]
fn reset_password_prints_a_one_time_link() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let o = tesuji(&["reset-password", "ann", "--data-dir", data]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), format!("tesuji: no database in {data}\n"));

    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = tesuji_server::store::open(&tesuji_server::Database::Sqlite(dir.path().into()))
            .await
            .unwrap();
        store
            .create_user("Ann", Some("ann"), Some("a hash"))
            .await
            .unwrap();
        store.close().await.unwrap();
    });
    let o = tesuji(&["reset-password", "bob", "--data-dir", data]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "tesuji: no account is named \"bob\"\n");

    let o = tesuji(&[
        "reset-password",
        "ANN",
        "--data-dir",
        data,
        "--base-url",
        "https://go.example/",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let link = stdout(&o);
    let token = link
        .trim_end()
        .strip_prefix("https://go.example/reset#")
        .unwrap_or_else(|| panic!("{link}"));
    assert!(
        token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{link}"
    );
    // Another run gives another link.
    let again = stdout(&tesuji(&["reset-password", "ann", "--data-dir", data]));
    assert!(again.starts_with("http://localhost:8080/reset#"), "{again}");
    assert_ne!(again.trim_end().rsplit('#').next(), Some(token));
}
