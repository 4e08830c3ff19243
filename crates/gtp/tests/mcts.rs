//! The tree search bot behind `genmove` and the estimator behind `final_status_list`.

mod common;

use common::Ours;
use tesuji_gtp::{BotKind, Engine, EngineConfig};
use tesuji_rules::{Color, Point, Size};

fn mcts(spec: &str, bot: &str, seed: u64) -> Ours {
    Ours {
        engine: Engine::new(EngineConfig {
            rules: spec.parse().unwrap(),
            bot: bot.parse().unwrap(),
            seed,
            network: None,
        }),
    }
}

#[test]
fn bot_names_and_settings() {
    assert_eq!("simple".parse::<BotKind>(), Ok(BotKind::Simple));
    let Ok(BotKind::Mcts(c)) = "MCTS:playouts=300,threads=1".parse::<BotKind>() else {
        panic!("mcts with settings");
    };
    assert_eq!((c.playouts, c.time, c.threads), (Some(300), None, 1));
    assert!(matches!("mcts".parse::<BotKind>(), Ok(BotKind::Mcts(_))));
    for bad in ["mcts:playouts=x", "simple:playouts=3", "gnugo", "mcts:"] {
        let parsed = bad.parse::<BotKind>();
        // `mcts:` with nothing after it is the default.
        assert_eq!(parsed.is_err(), bad != "mcts:", "{bad}");
    }
}

#[test]
fn genmove_plays_legal_moves_and_is_reproducible() {
    // Two threads with a tree each: a fixed count is split the same way every time.
    let bot = "mcts:playouts=200,shared=0";
    let (mut a, mut b) = (
        mcts("chinese:size=9", bot, 4),
        mcts("chinese:size=9", bot, 4),
    );
    for n in 0..12 {
        let color = if n % 2 == 0 { "b" } else { "w" };
        let mv = a.ok(&format!("genmove {color}"));
        assert_eq!(b.ok(&format!("genmove {color}")), mv);
        assert!(mv == "pass" || Point::from_gtp(&mv, Size::square(9).unwrap()).is_some());
    }
    assert_eq!(a.ok("printsgf"), b.ok("printsgf"));
}

#[test]
fn final_status_list_uses_the_estimator() {
    // White's stone at B6 sits in Black's corner; Black's at F6 in White's. Both groups are pass-alive.
    let mut e = mcts("chinese:size=7", "mcts:playouts=100", 1);
    e.ok("set_position b d7 w e7 w b6 b d6 w e6 b f6 b d5 w e5 b a4 b b4 b c4 b d4 w e4 w f4 w g4 b b3 \
          b d3 w e3 b a2 b b2 b c2 b d2 w e2 w f2 w g2 b b1 b d1 w e1");
    assert_eq!(e.ok("final_status_list dead"), "B6 F6");
    assert_eq!(e.ok("final_status_list seki"), "");
    assert_eq!(e.ok("final_status_list unsure"), "");
    let alive = e.ok("final_status_list alive");
    assert!(alive.contains("D7") && alive.contains("E7") && !alive.contains("B6"));
    // Under Tromp-Taylor every stone is alive.
    e.ok("tesuji-rules tromp-taylor:size=7");
    assert_eq!(e.ok("final_status_list dead"), "");
    assert!(e.ok("final_status_list alive").contains("B6"));
    assert!(e.send("final_status_list undead").is_err());
}

#[test]
fn the_bot_passes_and_resigns_through_gtp() {
    // Black owns everything and White has passed: Black passes.
    let mut e = mcts("chinese:size=5,komi=0", "mcts:playouts=200", 2);
    e.ok("set_position b a5 b c5 b e5 b a4 b b4 b c4 b d4 b e4");
    e.ok("play w pass");
    assert_eq!(e.ok("genmove b"), "pass");
    // White has nothing left worth a move: with a full search it resigns, and nothing is played.
    let mut e = mcts("chinese:size=5", "mcts:playouts=3000", 2);
    e.ok("set_position w c5 w a4 w b4 w c4 w d4 w e4 w a2 w b2 w c2 w d2 w e2 w c1");
    assert_eq!(e.ok("genmove b"), "resign");
    assert_eq!(e.engine.grid().count(Color::Black), 0);
}
