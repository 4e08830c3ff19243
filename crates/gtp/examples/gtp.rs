//! The engine on standard input and output, for trying it by hand: `cargo run -p tesuji-gtp --example gtp
//! [SPEC]` (the `tesuji gtp` command is the real front end).

use tesuji_gtp::{EngineConfig, run};

fn main() -> std::io::Result<()> {
    let mut config = EngineConfig::default();
    if let Some(spec) = std::env::args().nth(1) {
        match spec.parse() {
            Ok(rules) => config.rules = rules,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
    }
    run(
        std::io::BufReader::new(std::io::stdin()),
        std::io::stdout().lock(),
        config,
    )
}
