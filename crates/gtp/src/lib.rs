//! tesuji-gtp: the Go Text Protocol, version 2, in both directions: the engine ([`run`], [`Engine`]) and the
//! controller side ([`controller`]) with the referee of engine matches ([`referee`]).
//!
//! [`run`] reads commands from any `BufRead` and answers on any `Write` until `quit` or the end of input.
//! [`Engine`] answers one line at a time (for tests and embedding). The commands are GTP's standard set, the
//! extensions tools send (GNU Go's `is_legal`, `all_legal`, `captures`; KGS's `kgs-*`; KataGo's `kata-get-rules`,
//! `kata-set-rules`, `set_position`), the analysis commands of Sabaki, Lizzie and KataGo's tools ([`analyze`])
//! and `tesuji-rules [SPEC]`.
//!
//! Legality is always the rules crate's: see [`position`] for how GTP's free colour order is mapped onto a
//! [`tesuji_rules::Game`]. The dead stones of `final_score`, `final_status_list` and the result `printsgf`
//! writes are the estimator's ([`tesuji_bot::estimate`]: playouts and Benson's unconditional life; stones it is
//! unsure of count as alive); under `end=score` every stone is alive.

pub mod analyze;
pub mod controller;
pub mod engine;
pub mod error;
pub mod katago;
pub mod position;
pub mod protocol;
pub mod referee;
pub mod sgfio;

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

pub use engine::{BotKind, COMMANDS, Engine, EngineConfig, TimeSettings, UnknownBot};
pub use error::GtpError;

/// Runs the engine over `input` and `output` until `quit` or the end of input. Only I/O errors (a closed
/// output, say) end it early; malformed input is answered with `?` and the engine goes on.
///
/// Input is read on a thread of its own, so that an analysis command (`lz-analyze` and the like) streams its
/// lines until the next line of input arrives, which ends it, and is then answered in turn. That thread is not
/// waited for: after `quit` is answered (and the answer flushed) `run` returns at once, even while the
/// controller keeps its end of the input open; the reading thread, blocked on input, ends with the process or
/// at the input's end.
pub fn run<R: BufRead + Send + 'static, W: Write>(
    mut input: R,
    mut output: W,
    config: EngineConfig,
) -> io::Result<()> {
    let mut engine = Engine::new(config);
    // Lines read but not yet taken by the engine: an analysis runs while there are none.
    let waiting = Arc::new(AtomicUsize::new(0));
    let (lines, read) = mpsc::channel::<io::Result<(Vec<u8>, protocol::LineEnd, bool)>>();
    let counter = Arc::clone(&waiting);
    std::thread::spawn(move || {
        loop {
            let mut line = Vec::new();
            let got = protocol::read_line(&mut input, &mut line);
            let end = matches!(got, Err(_) | Ok((protocol::LineEnd::Eof, _)));
            counter.fetch_add(1, Ordering::SeqCst);
            // The engine gone (after `quit`): nobody reads any more.
            if lines.send(got.map(|(e, d)| (line, e, d))).is_err() || end {
                return;
            }
        }
    });
    let stop = || waiting.load(Ordering::SeqCst) > 0;
    loop {
        let Ok(got) = read.recv() else {
            return Ok(());
        };
        waiting.fetch_sub(1, Ordering::SeqCst);
        let (line, end, dropped) = got?;
        if end == protocol::LineEnd::Eof && line.is_empty() {
            return Ok(());
        }
        if dropped {
            let id = protocol::leading_id(&protocol::clean(&line));
            output.write_all(protocol::response(id, &Err(GtpError::LineTooLong)).as_bytes())?;
            output.flush()?;
        } else {
            engine.answer_line(&line, &mut output, &stop)?;
        }
        if engine.quit_requested() || end == protocol::LineEnd::Eof {
            return Ok(());
        }
    }
}
