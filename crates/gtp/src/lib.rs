//! tesuji-gtp: the Go Text Protocol, version 2, in both directions: the engine ([`run`], [`Engine`]) and the
//! controller side ([`controller`]) with the referee of engine matches ([`referee`]).
//!
//! [`run`] reads commands from any `BufRead` and answers on any `Write` until `quit` or the end of input.
//! [`Engine`] answers one line at a time (for tests and embedding). The commands are GTP's standard set, the
//! extensions tools send (GNU Go's `is_legal`, `all_legal`, `captures`; KGS's `kgs-*`; KataGo's `kata-get-rules`,
//! `kata-set-rules`, `set_position`) and `tesuji-rules [SPEC]`.
//!
//! Legality is always the rules crate's: see [`position`] for how GTP's free colour order is mapped onto a
//! [`tesuji_rules::Game`]. The dead stones of `final_score`, `final_status_list` and the result `printsgf`
//! writes are the estimator's ([`tesuji_bot::estimate`]: playouts and Benson's unconditional life; stones it is
//! unsure of count as alive); under `end=score` every stone is alive.

pub mod controller;
pub mod engine;
pub mod error;
pub mod katago;
pub mod position;
pub mod protocol;
pub mod referee;
pub mod sgfio;

use std::io::{self, BufRead, Write};

pub use engine::{BotKind, COMMANDS, Engine, EngineConfig, TimeSettings, UnknownBot};
pub use error::GtpError;

/// Runs the engine over `input` and `output` until `quit` or the end of input. Only I/O errors (a closed
/// output, say) end it early; malformed input is answered with `?` and the engine goes on.
pub fn run<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    config: EngineConfig,
) -> io::Result<()> {
    let mut engine = Engine::new(config);
    let mut line = Vec::new();
    loop {
        let (end, dropped) = protocol::read_line(&mut input, &mut line)?;
        if end == protocol::LineEnd::Eof && line.is_empty() {
            return Ok(());
        }
        let reply = if dropped {
            let id = protocol::leading_id(&protocol::clean(&line));
            Some(protocol::response(id, &Err(GtpError::LineTooLong)))
        } else {
            engine.process_line(&line)
        };
        if let Some(reply) = reply {
            output.write_all(reply.as_bytes())?;
            output.flush()?;
        }
        if engine.quit_requested() || end == protocol::LineEnd::Eof {
            return Ok(());
        }
    }
}
