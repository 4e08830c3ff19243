//! The controller side of GTP: driving another engine's process, command by command, with a deadline on
//! every answer. A crash, a closed pipe or a missed deadline is an [`EngineError`], never a hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::Duration;

/// Why a command to an engine did not get an answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    #[error("cannot start `{command}`: {reason}")]
    Start { command: String, reason: String },
    #[error("no answer to `{command}` within {seconds:.1} s")]
    Timeout { command: String, seconds: f64 },
    #[error("the engine stopped (answering `{command}`)")]
    Crashed { command: String },
    #[error("`{command}` failed: {message}")]
    Failure { command: String, message: String },
}

/// A GTP engine running as a child process.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    /// Complete answers (`=`/`?` and the text up to the blank line), read by a thread of their own.
    answers: Receiver<Result<String, String>>,
    pub name: String,
}

impl Engine {
    /// Starts `command` with the shell (so it may carry arguments and quoting).
    pub fn start(command: &str) -> Result<Engine, EngineError> {
        let start_error = |reason: String| EngineError::Start {
            command: command.to_string(),
            reason,
        };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| start_error(e.to_string()))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| start_error("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| start_error("no stdout".into()))?;
        let (tx, rx) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut answer = String::new();
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Err("end of output".to_string()));
                        return;
                    }
                    Ok(_) => {}
                }
                let l = line.trim_end_matches(['\n', '\r']);
                if l.is_empty() {
                    // A blank line ends an answer (blank lines between answers are skipped).
                    if !answer.is_empty() && tx.send(Ok(std::mem::take(&mut answer))).is_err() {
                        return;
                    }
                } else {
                    if !answer.is_empty() {
                        answer.push('\n');
                    }
                    answer.push_str(l);
                }
            }
        });
        Ok(Engine {
            child,
            stdin,
            answers: rx,
            name: command.to_string(),
        })
    }

    /// Sends a command and waits for its answer; `Ok` holds the text after `= `.
    pub fn send(&mut self, command: &str, deadline: Duration) -> Result<String, EngineError> {
        let crashed = || EngineError::Crashed {
            command: command.to_string(),
        };
        writeln!(self.stdin, "{command}").map_err(|_| crashed())?;
        self.stdin.flush().map_err(|_| crashed())?;
        match self.answers.recv_timeout(deadline) {
            Ok(Ok(answer)) => {
                if let Some(rest) = answer.strip_prefix('=') {
                    Ok(strip_id(rest).to_string())
                } else if let Some(rest) = answer.strip_prefix('?') {
                    Err(EngineError::Failure {
                        command: command.to_string(),
                        message: strip_id(rest).to_string(),
                    })
                } else {
                    Err(EngineError::Failure {
                        command: command.to_string(),
                        message: format!("not a GTP answer: {answer}"),
                    })
                }
            }
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => Err(crashed()),
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                command: command.to_string(),
                seconds: deadline.as_secs_f64(),
            }),
        }
    }

    /// Whether the engine knows a command (false when it cannot say).
    pub fn knows(&mut self, command: &str, deadline: Duration) -> bool {
        matches!(self.send(&format!("known_command {command}"), deadline), Ok(a) if a.trim() == "true")
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // Give it a moment to leave on its own, then make sure.
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of an answer after an optional id.
fn strip_id(rest: &str) -> &str {
    rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim()
}
