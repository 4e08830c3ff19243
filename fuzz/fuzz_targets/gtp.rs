//! Random command lines to a GTP session: the engine never panics and answers every command line with one
//! well-formed response (`=` or `?`, ending in a blank line). `loadsgf` and `printsgf` are left out: they
//! read and write files the input names, and the SGF reader has a target of its own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tesuji_gtp::{Engine, EngineConfig};

/// Enough for the interesting sequences; more lines mostly make each run slower.
const MAX_LINES: usize = 64;

fuzz_target!(|bytes: &[u8]| {
    let mut engine = Engine::new(EngineConfig::default());
    for line in bytes.split(|&b| b == b'\n').take(MAX_LINES) {
        let lower = String::from_utf8_lossy(line).to_ascii_lowercase();
        if lower.contains("loadsgf") || lower.contains("printsgf") {
            continue;
        }
        let Some(reply) = engine.process_line(line) else {
            // Blank lines and comments get no answer.
            continue;
        };
        assert!(
            reply.starts_with('=') || reply.starts_with('?'),
            "{reply:?} to {lower:?}"
        );
        assert!(reply.ends_with("\n\n"), "{reply:?} to {lower:?}");
        assert!(
            !reply[..reply.len() - 2].contains("\n\n"),
            "a blank line inside {reply:?} to {lower:?}"
        );
        if engine.quit_requested() {
            break;
        }
    }
});
