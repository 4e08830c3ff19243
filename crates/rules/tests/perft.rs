//! The fast engine's perft against every table of `data/perft/README.md`, to the depths that run in seconds
//! (`.ci/run` checks deeper ones with `tesuji perft` in release mode).

mod common;

use tesuji_rules::{Game, Rules, SuicideRule, perft::perft};

/// Largest count checked here; deeper rows are for the release-mode check.
const BUDGET: u64 = 2_000_000;

#[test]
fn perft_tables() {
    let mut checked = 0;
    for row in common::perft_rows() {
        for name in &row.rules {
            let mut rules: Rules = "tromp-taylor".parse().unwrap();
            rules.size = row.start.size();
            rules.suicide = match name.as_str() {
                "tt" => SuicideRule::All,
                "nosuicide" => SuicideRule::Forbidden,
                other => panic!("unknown rules {other}"),
            };
            let game = Game::from_position(rules, &row.start, row.to_move).unwrap();
            for (depth, &expected) in row.counts.iter().enumerate() {
                if expected > BUDGET {
                    break;
                }
                assert_eq!(
                    perft(&game, depth as u32),
                    expected,
                    "{name} from {:?} {} depth {depth}",
                    row.start,
                    row.to_move
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "only {checked} perft values checked");
}
