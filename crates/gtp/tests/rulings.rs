//! RULES.md through GTP: a result the rules give themselves is what `final_score`, `final_status_list` and
//! `printsgf` answer.

mod common;

use common::Ours;
use tesuji_rules::{Game, Move, Phase, Rules};

/// The `RE` of a `printsgf` answer.
fn record_result(e: &mut Ours) -> Option<String> {
    let sgf = e.ok("printsgf");
    let at = sgf.find("RE[")? + 3;
    Some(sgf[at..].split(']').next()?.to_string())
}

#[test]
fn ideal_two_passes_before_any_play_are_a_draw() {
    // §5 4.4 and 7.5: before any play, two passes end the game as a draw, whatever the komi.
    for spec in [
        "ideal:size=9",
        "ideal:size=9,komi=B0/W7",
        "ideal:size=13,handicap=1",
    ] {
        let mut e = Ours::with_spec(spec);
        e.ok("play b pass");
        e.ok("play w pass");
        assert_eq!(e.ok("final_score"), "0", "{spec}");
        assert_eq!(e.ok("final_status_list dead"), "", "{spec}");
        assert_eq!(record_result(&mut e).as_deref(), Some("0"), "{spec}");
    }
    // After a play, the same passes end play and the count decides (White's 7 points of komi).
    let mut e = Ours::with_spec("ideal:size=9");
    e.ok("play b pass");
    e.ok("play w e5");
    e.ok("play b pass");
    e.ok("play w pass");
    assert!(e.ok("final_score").starts_with("W+"));
}

/// One move of a random game: a play among the legal ones, or a pass (often, so that games end by passing).
fn random_move(g: &Game, seed: &mut u64) -> Move {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    let moves = g.legal_moves();
    if moves.len() == 1 || (*seed >> 33).is_multiple_of(3) {
        return Move::Pass;
    }
    moves[(*seed >> 8) as usize % (moves.len() - 1)]
}

/// Random games on small boards sent as `play` commands, beside the same game on the rules crate: whenever the
/// rules end the game with a result of their own, the engine answers exactly that result.
#[test]
fn final_score_is_the_result_the_rules_gave() {
    let mut seen = std::collections::BTreeMap::<String, u32>::new();
    for spec in [
        "ideal:size=5",
        "tromp-taylor:size=5",
        "japanese:size=4",
        "bga:size=9,komi=none",
        "aga:size=5",
        "chinese:size=5,komi=0",
    ] {
        let rules: Rules = spec.parse().unwrap();
        for game_no in 0..40u64 {
            let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (game_no + 1).wrapping_mul(0x1000_0001);
            let mut e = Ours::new(rules);
            let mut g = Game::new(rules).unwrap();
            for _ in 0..120 {
                if g.phase() == Phase::Marking {
                    // Play resumes: the next move disputes (GTP has no dispute of its own).
                    g.dispute(g.to_move()).unwrap();
                }
                let mv = random_move(&g, &mut seed);
                let color = g.to_move();
                let vertex = match mv {
                    Move::Pass => "pass".to_string(),
                    Move::Play(p) => p.to_gtp(rules.size),
                };
                e.ok(&format!("play {color} {vertex}"));
                g.play(color, mv).unwrap();
                if let Some(result) = g.result() {
                    let outcome = format!("{:?}", result.outcome);
                    *seen.entry(format!("{spec} {outcome}")).or_default() += 1;
                    assert_eq!(
                        e.ok("final_score"),
                        result.to_string(),
                        "{spec} game {game_no}"
                    );
                    assert_eq!(
                        record_result(&mut e),
                        Some(result.to_string()),
                        "{spec} game {game_no}"
                    );
                    assert_eq!(e.ok("final_status_list dead"), "", "{spec} game {game_no}");
                    break;
                }
            }
        }
    }
    // The games reach every kind of ending the rules decide themselves.
    for kind in [
        "ideal:size=5 NoPlay",
        "tromp-taylor:size=5 Score",
        "japanese:size=4 Repetition",
        "bga:size=9,komi=none Score",
        "aga:size=5 Score",
    ] {
        assert!(seen.contains_key(kind), "no {kind} among {seen:?}");
    }
}
