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
