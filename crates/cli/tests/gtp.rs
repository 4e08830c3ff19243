//! `tesuji gtp` as a GUI's process: it ends when told to, whatever the controller does with its pipe.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The engine as a child process, its input and output piped.
struct Gtp {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Gtp {
    fn start(args: &[&str]) -> Gtp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tesuji"))
            .arg("gtp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tesuji gtp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Gtp {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("input open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    /// Reads output lines up to the blank line that ends a response; the response without it.
    fn response(&mut self) -> String {
        let mut text = String::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(n > 0, "output ended: {text:?}");
            if line == "\n" && !text.is_empty() {
                return text;
            }
            text.push_str(&line);
        }
    }

    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.response()
    }

    /// Waits at most `limit` for the process to exit; its time to exit and its status.
    fn exit_within(&mut self, limit: Duration) -> Option<(Duration, std::process::ExitStatus)> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return Some((started.elapsed(), status));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        None
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Sends `quit` with the input left open, as Sabaki's GTP library does in `controller.stop()`, and checks that
/// the engine answers and exits by itself (20 s is a bound against a hang, not a speed check).
fn quits_with_input_open(mut engine: Gtp, what: &str) {
    engine.send("9 quit");
    let answer = engine.response();
    assert_eq!(answer, "=9 \n", "{what}");
    let exited = engine.exit_within(Duration::from_secs(20));
    let Some((took, status)) = exited else {
        panic!("{what}: still running 20 s after answering quit, its input open");
    };
    assert!(status.success(), "{what}: {status}");
    eprintln!("{what}: exited {took:?} after the quit answer");
    // Nothing follows the answer.
    let mut rest = String::new();
    engine.stdout.read_to_string(&mut rest).expect("read");
    assert_eq!(rest, "", "{what}");
    // The input is still open: the engine did not wait for it to close.
    assert!(engine.stdin.is_some());
}

#[test]
fn quit_exits_while_the_controller_keeps_stdin_open() {
    let mut idle = Gtp::start(&["--bot", "simple"]);
    assert_eq!(idle.ask("name"), "= tesuji\n");
    idle.ask("boardsize 9");
    idle.ask("play b E5");
    quits_with_input_open(idle, "after plain commands");

    // While an analysis streams: the quit line stops it, ends its answer, and is answered in turn.
    let mut analysing = Gtp::start(&["--bot", "mcts:threads=1", "--rules", "chinese:size=9"]);
    analysing.send("lz-analyze 10");
    let mut line = String::new();
    analysing.stdout.read_line(&mut line).expect("read");
    assert_eq!(line, "=\n");
    line.clear();
    analysing.stdout.read_line(&mut line).expect("read");
    assert!(line.starts_with("info move "), "{line}");
    analysing.send("9 quit");
    // The rest of the analysis, then its blank line.
    loop {
        line.clear();
        assert!(analysing.stdout.read_line(&mut line).expect("read") > 0);
        if line == "\n" {
            break;
        }
    }
    let answer = analysing.response();
    assert_eq!(answer, "=9 \n");
    let Some((took, status)) = analysing.exit_within(Duration::from_secs(20)) else {
        panic!("still running 20 s after answering quit during an analysis, its input open");
    };
    assert!(status.success(), "{status}");
    eprintln!("during an analysis: exited {took:?} after the quit answer");
}

/// An engine's own answers to `name` and `version`, asked by hand.
fn name_and_version(command: &[&str]) -> String {
    let mut child = Command::new(command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the engine");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"name\nversion\nquit\n").unwrap();
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    let answers: Vec<&str> = out
        .split("\n\n")
        .filter_map(|a| a.strip_prefix("= "))
        .collect();
    format!("{} {}", answers[0].trim(), answers[1].trim())
}

/// `tesuji match` names the engines as they name themselves (GTP `name` and `version`, GNU Go's own answers
/// for GNU Go), in the records' `PB`/`PW` and in the table, not by the commands that started them.
#[test]
fn match_records_name_engines_by_their_gtp_name_and_version() {
    let gnugo = "/usr/games/gnugo";
    assert!(
        std::path::Path::new(gnugo).exists(),
        "GNU Go is needed at {gnugo} (cargo xtask test installs it)"
    );
    let tesuji = env!("CARGO_BIN_EXE_tesuji");
    let gnugo_name = name_and_version(&[gnugo, "--mode", "gtp", "--level", "1"]);
    let tesuji_name = name_and_version(&[tesuji, "gtp", "--bot", "simple"]);
    assert!(gnugo_name.starts_with("GNU Go "), "{gnugo_name}");
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(tesuji)
        .args([
            "match",
            "--black",
            &format!("{gnugo} --mode gtp --level 1"),
            "--white",
            &format!("{tesuji} gtp --bot simple"),
            "--size",
            "9",
            "--games",
            "2",
            "--time-per-move",
            "10",
            "--sgf-dir",
            dir.path().to_str().unwrap(),
        ])
        .output()
        .expect("run tesuji match");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout.contains(&format!("A = {gnugo_name}\nB = {tesuji_name}\n")),
        "{stdout}"
    );
    for (game, (black, white)) in [
        (1, (&gnugo_name, &tesuji_name)),
        (2, (&tesuji_name, &gnugo_name)),
    ] {
        let path = dir.path().join(format!("game-{game:04}.sgf"));
        let read = tesuji_sgf::read(&std::fs::read(&path).unwrap()).unwrap();
        let root = read.collection.trees[0].root();
        assert_eq!(root.value("PB"), Some(black.as_str()), "game {game}");
        assert_eq!(root.value("PW"), Some(white.as_str()), "game {game}");
    }
}

/// The variable `cargo xtask test` sets to the `node_modules` folder where it installed Sabaki's GTP library.
const NODE_PATH_VAR: &str = "TESUJI_TEST_NODE_PATH";

/// Sabaki's own GTP library (`@sabaki/gtp` 3.0.0, run by `tests/clients/sabaki-stop.cjs` in Node): its
/// `controller.stop()` resolves once the engine has exited by itself after `quit`, well before the library's
/// 3 s kill timer (which it clears when `quit` is answered, so an engine that stays never lets it resolve).
#[test]
fn sabakis_gtp_library_stops_the_engine() {
    let modules = std::env::var_os(NODE_PATH_VAR).unwrap_or_else(|| {
        panic!(
            "{NODE_PATH_VAR} is not set: this test runs under `cargo xtask test`, which installs @sabaki/gtp \
             with npm and sets it (or set it to a node_modules folder that holds @sabaki/gtp 3.0.0)"
        )
    });
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/sabaki-stop.cjs");
    let output = Command::new("node")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_tesuji"))
        .args(["--bot", "simple"])
        .env("NODE_PATH", &modules)
        .output()
        .expect("run node (`cargo xtask test` installs it)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{} failed ({}): {stdout}{}",
        script.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(report["answers"]["name"]["content"], "tesuji", "{report}");
    for command in ["version", "boardsize", "play", "genmove"] {
        assert_eq!(
            report["answers"][command]["error"], false,
            "{command}: {report}"
        );
    }
    // `stop()` resolved with the process's exit (code 0), not the race's 10 s limit, and nothing is left.
    assert_eq!(
        report["stopped"],
        serde_json::json!({"signal": 0}),
        "{report}"
    );
    assert_eq!(report["running"], false, "{report}");
    let ms = report["ms"].as_u64().unwrap_or(u64::MAX);
    assert!(
        ms < 3000,
        "stop() took {ms} ms: the library's kill timer would have ended it"
    );
    eprintln!("@sabaki/gtp: controller.stop() resolved {ms} ms after it was called");
}

/// A `kata-raw-nn` answer read back: its named figures, the policy rows (`None` for `NAN`) and ownership.
struct RawNn {
    figures: std::collections::HashMap<String, f64>,
    policy: Vec<Option<f64>>,
    ownership: Vec<f64>,
}

fn read_raw_nn(text: &str) -> RawNn {
    let mut figures = std::collections::HashMap::new();
    let mut policy = Vec::new();
    let mut ownership = Vec::new();
    let mut section = "";
    for line in text.trim_start_matches("= ").lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["policy"] => section = "policy",
            ["whiteOwnership"] => section = "ownership",
            [key, value] if key.chars().all(|c| c.is_ascii_alphabetic()) => {
                figures.insert(key.to_string(), value.parse().expect(line));
            }
            values if section == "policy" => {
                // (Rust's float parser would take `NAN` for a number.)
                policy.extend(
                    values
                        .iter()
                        .map(|&v| (v != "NAN").then(|| v.parse::<f64>().expect(line))),
                );
            }
            values if section == "ownership" => {
                ownership.extend(values.iter().map(|v| v.parse::<f64>().expect(line)));
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    RawNn {
        figures,
        policy,
        ownership,
    }
}

/// `tesuji gtp --model`, fed each reference position as KataGo was (boardsize, clear_board, kata-set-rules,
/// komi, the moves, `kata-raw-nn 0`), answers what KataGo answered, to the tolerances.
#[test]
fn kata_raw_nn_answers_as_katago_does() {
    let network = std::env::var("TESUJI_TEST_NETWORK").expect(
        "TESUJI_TEST_NETWORK names no network file: run `cargo xtask test`, which fetches KaTrain's network",
    );
    let mut bare = Gtp::start(&[]);
    assert_eq!(
        bare.ask("kata-raw-nn 0"),
        "? no network loaded: start the engine with --model FILE (or TESUJI_MODEL)\n"
    );
    let mut engine = Gtp::start(&["--model", &network]);
    for bad in [
        "kata-raw-nn",
        "kata-raw-nn 8",
        "kata-raw-nn b",
        "kata-raw-nn 0 1.5",
        "kata-raw-nn 0 0.2 x",
    ] {
        assert!(engine.ask(bad).starts_with("? "), "{bad}");
    }
    let mut compared = 0;
    for (number, line) in include_str!("../../nn/tests/data/katago-positions.jsonl")
        .lines()
        .enumerate()
    {
        let place = format!("line {} of katago-positions.jsonl", number + 1);
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let rules = v["rules"].as_str().unwrap();
        engine.ask(&format!("boardsize {}", v["size"]));
        engine.ask("clear_board");
        let set = engine.ask(&format!("kata-set-rules {rules}"));
        assert_eq!(set, "= \n", "{rules}");
        engine.ask(&format!("komi {}", v["komi"]));
        for m in v["moves"].as_array().unwrap() {
            let answer = engine.ask(&format!(
                "play {} {}",
                m[0].as_str().unwrap(),
                m[1].as_str().unwrap()
            ));
            assert_eq!(answer, "= \n");
        }
        let got = read_raw_nn(&engine.ask("kata-raw-nn 0"));
        let want = &v["output"];
        let near = |key: &str, tolerance: f64| {
            let (w, g) = (want[key].as_f64().unwrap(), got.figures[key]);
            assert!(
                (w - g).abs() <= tolerance,
                "{place}: {key}: KataGo {w}, ours {g}"
            );
        };
        near("whiteWin", 5e-4);
        near("whiteLoss", 5e-4);
        near("whiteLead", 0.02);
        near("policyPass", 5e-4);
        let want_policy = want["policy"].as_array().unwrap();
        assert_eq!(want_policy.len(), got.policy.len());
        for (i, (w, g)) in want_policy.iter().zip(&got.policy).enumerate() {
            match (w.as_f64(), g) {
                (Some(w), Some(g)) => {
                    assert!((w - g).abs() <= 5e-4, "{place}: policy[{i}] {w}, ours {g}")
                }
                (w, g) => assert_eq!(w.is_none(), g.is_none(), "{place}: policy[{i}] legality"),
            }
        }
        for (w, g) in want["whiteOwnership"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&got.ownership)
        {
            assert!((w.as_f64().unwrap() - g).abs() <= 2e-3);
        }
        compared += 1;
    }
    let data = include_str!("../../nn/tests/data/katago-positions.jsonl");
    assert_eq!(compared, data.lines().count());
    assert!(data.contains("stone-scoring"));
    // `all` answers every symmetry, one block after another, with no blank line inside the response.
    let all = engine.ask("kata-raw-nn all");
    for s in 0..8 {
        assert!(all.contains(&format!("symmetry {s}\n")), "{all}");
    }
}

/// With a network, the analysis commands report the network search: `kata-analyze` streams lines whose
/// figures are the search's (visits growing, win rates and ownership in range) until the next command, and
/// `kata-genmove_analyze` plays the move its last line lists first.
#[test]
fn analysis_commands_report_the_network_search() {
    let network = std::env::var("TESUJI_TEST_NETWORK").expect(
        "TESUJI_TEST_NETWORK names no network file: run `cargo xtask test`, which fetches KaTrain's network",
    );
    let mut engine = Gtp::start(&["--model", &network, "--bot", "nn:visits=40"]);
    engine.ask("boardsize 9");
    engine.ask("komi 7");
    engine.ask("play b E5");
    engine.send("kata-analyze interval 20 ownership true");
    let mut line = String::new();
    engine.stdout.read_line(&mut line).expect("read");
    assert_eq!(line, "=\n");
    let mut visits_seen = Vec::new();
    while visits_seen.len() < 5 {
        line.clear();
        engine.stdout.read_line(&mut line).expect("read");
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.first(), Some(&"info"), "{line}");
        let after = |key: &str| -> f64 {
            let at = words.iter().position(|w| *w == key).expect(key);
            words[at + 1].parse().expect(key)
        };
        let rate = after("winrate");
        assert!((0.0..=1.0).contains(&rate), "{line}");
        // Every move listed has its visits.
        let listed: f64 = words
            .windows(2)
            .filter(|w| w[0] == "visits")
            .map(|w| w[1].parse::<f64>().expect("visits"))
            .sum();
        visits_seen.push(listed);
        let at = words
            .iter()
            .position(|w| *w == "ownership")
            .expect("ownership");
        let owners: Vec<f64> = words[at + 1..]
            .iter()
            .map(|w| w.parse().expect("a number"))
            .collect();
        assert_eq!(owners.len(), 81, "{line}");
        assert!(owners.iter().all(|o| (-1.0..=1.0).contains(o)));
        // White to move after Black's centre stone: E5 is Black's, from White's side.
        assert!(owners[4 * 9 + 4] < -0.5, "E5 owned {}", owners[40]);
    }
    // An analysis without limit searches on: the listed moves' visits grow between lines.
    assert!(visits_seen.last() > visits_seen.first(), "{visits_seen:?}");
    // The next command stops it; the analysis ends with its blank line, then the command is answered.
    engine.send("name");
    loop {
        line.clear();
        assert!(engine.stdout.read_line(&mut line).expect("read") > 0);
        if line == "\n" {
            break;
        }
        assert!(line.starts_with("info move "), "{line}");
    }
    assert_eq!(engine.response(), "= tesuji\n");
    let answer = engine.ask("kata-genmove_analyze w interval 10");
    let lines: Vec<&str> = answer.lines().collect();
    assert_eq!(lines[0], "=", "{answer}");
    let last_info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info"))
        .expect(&answer);
    let first_listed = last_info.split_whitespace().nth(2).expect("a move");
    let played = lines
        .last()
        .and_then(|l| l.strip_prefix("play "))
        .expect(&answer);
    assert_eq!(played, first_listed, "{answer}");
    // The move is on the board: playing there again is refused.
    assert!(engine.ask(&format!("play w {played}")).starts_with("? "));
}
