//! Helpers shared by the GTP tests: our engine and GNU Go behind the same "send a command, get `=`/`?`" call.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use tesuji_gtp::{Engine, EngineConfig};
use tesuji_rules::Rules;

/// A response: `Ok(text)` for `=`, `Err(message)` for `?`.
pub type Answer = Result<String, String>;

/// Splits one full response (`=id text\n\n`) into its id and answer.
pub fn parse_response(text: &str) -> (Option<u32>, Answer) {
    assert!(
        text.ends_with("\n\n"),
        "response must end with a blank line: {text:?}"
    );
    let body = &text[..text.len() - 2];
    assert!(
        !body.contains("\n\n"),
        "response holds an empty line: {text:?}"
    );
    let mark = body.chars().next().expect("empty response");
    let rest = &body[1..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let id = (!digits.is_empty()).then(|| digits.parse().expect("id"));
    let rest = &rest[digits.len()..];
    let rest = rest.strip_prefix(' ').unwrap_or_else(|| {
        panic!("no space after the mark and id: {text:?}");
    });
    match mark {
        '=' => (id, Ok(rest.to_string())),
        '?' => (id, Err(rest.to_string())),
        _ => panic!("response must start with = or ?: {text:?}"),
    }
}

/// Our engine, in process.
pub struct Ours {
    pub engine: Engine,
}

impl Ours {
    pub fn new(rules: Rules) -> Ours {
        Ours {
            engine: Engine::new(EngineConfig {
                rules,
                ..EngineConfig::default()
            }),
        }
    }

    pub fn with_spec(spec: &str) -> Ours {
        Ours::new(spec.parse().expect("test rules spec"))
    }

    /// Sends one line; every line with a command must be answered.
    pub fn send(&mut self, line: &str) -> Answer {
        let reply = self
            .engine
            .process_line(line.as_bytes())
            .unwrap_or_else(|| panic!("no answer to {line:?}"));
        parse_response(&reply).1
    }

    pub fn ok(&mut self, line: &str) -> String {
        self.send(line)
            .unwrap_or_else(|e| panic!("{line:?} failed: ? {e}"))
    }
}

pub const GNUGO: &str = "/usr/games/gnugo";

/// GNU Go in GTP mode with the given options.
pub struct Gnugo {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Gnugo {
    /// Starts GNU Go; fails the test (never skips it) when the binary is missing.
    pub fn start(options: &[&str]) -> Gnugo {
        assert!(
            Path::new(GNUGO).exists(),
            "GNU Go is required for this test and was not found at {GNUGO}: install it with \
             `apt-get install gnugo` (CI does)"
        );
        let mut child = Command::new(GNUGO)
            .args(["--mode", "gtp"])
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {GNUGO}: {e}"));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Gnugo {
            child,
            stdin,
            stdout,
        }
    }

    pub fn send(&mut self, line: &str) -> Answer {
        writeln!(self.stdin, "{line}").expect("write to GNU Go");
        self.stdin.flush().expect("flush");
        let mut text = String::new();
        loop {
            let mut l = String::new();
            let n = self.stdout.read_line(&mut l).expect("read from GNU Go");
            assert!(n > 0, "GNU Go closed its output after {line:?}");
            if l == "\n" && !text.is_empty() {
                text.push('\n');
                break;
            }
            text.push_str(&l);
        }
        parse_response(&text).1
    }

    pub fn ok(&mut self, line: &str) -> String {
        self.send(line)
            .unwrap_or_else(|e| panic!("GNU Go: {line:?} failed: ? {e}"))
    }
}

impl Drop for Gnugo {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}
