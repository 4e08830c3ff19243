//! RULES.md through GTP: a result the rules give themselves is what `final_score`, `final_status_list` and
//! `printsgf` answer; a handicap given in a rules spec is honoured by its placement, never dropped.

mod common;

use common::Ours;
use tesuji_rules::{Color, Game, Move, Phase, Rules};

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

/// One move of a random game: a play among the legal ones, or a pass one time in `pass_every` (often, so that
/// games end by passing).
fn random_move(g: &Game, seed: &mut u64, pass_every: u64) -> Move {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    let moves = g.legal_moves();
    if moves.len() == 1 || (*seed >> 33).is_multiple_of(pass_every) {
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
        "japanese:size=2",
        "bga:size=9,komi=none",
        "aga:size=5",
        "chinese:size=5,komi=0",
    ] {
        let rules: Rules = spec.parse().unwrap();
        // Only a cycle of plays voids a game (a pass starts the count anew): where a void is sought, passes are
        // rarer and the board is 2×2, where such cycles are common.
        let pass_every = if spec.starts_with("japanese") { 10 } else { 3 };
        for game_no in 0..40u64 {
            let mut seed = 0x9E37_79B9_7F4A_7C15 ^ (game_no + 1).wrapping_mul(0x1000_0001);
            let mut e = Ours::new(rules);
            let mut g = Game::new(rules).unwrap();
            for _ in 0..120 {
                if g.phase() == Phase::Marking {
                    // Play resumes: the next move disputes (GTP has no dispute of its own).
                    g.dispute(g.to_move()).unwrap();
                }
                let mv = random_move(&g, &mut seed, pass_every);
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
        "japanese:size=2 Repetition",
        "bga:size=9,komi=none Score",
        "aga:size=5 Score",
    ] {
        assert!(seen.contains_key(kind), "no {kind} among {seen:?}");
    }
}

#[test]
fn a_spec_handicap_of_passes_forces_whites_first_passes() {
    // §5 5.2: handicap n, White's first n-1 turns are passes.
    let mut e = Ours::with_spec("ideal:size=9");
    e.ok("tesuji-rules ideal:handicap=3");
    let spec = e.ok("tesuji-rules");
    let back: Rules = spec.parse().unwrap();
    assert_eq!((back.handicap, back.size.width()), (3, 9), "{spec}");
    assert!(spec.contains("handicap=3"), "{spec}");
    e.ok("play b e5");
    assert_eq!(e.ok("is_legal w c3"), "0");
    assert!(e.send("play w c3").is_err());
    assert_eq!(e.ok("genmove w"), "pass");
    e.ok("play b c7");
    assert_eq!(e.ok("is_legal w c3"), "0");
    e.ok("play w pass");
    // The two forced passes are made: White plays now.
    e.ok("play b g3");
    assert_eq!(e.ok("is_legal w c3"), "1");
    e.ok("play w c3");
    // The handicap is the rules': a new board starts with it again.
    e.ok("clear_board");
    e.ok("play b e5");
    assert_eq!(e.ok("is_legal w c3"), "0");
    // The same from the command line's rules.
    let mut e = Ours::with_spec("ideal:size=9,handicap=2");
    e.ok("play b e5");
    assert_eq!(e.ok("is_legal w c3"), "0");
    e.ok("play w pass");
    e.ok("play b c7");
    assert_eq!(e.ok("is_legal w c3"), "1");
}

#[test]
fn a_spec_handicap_of_fixed_stones_places_them() {
    let mut e = Ours::with_spec("chinese:size=9");
    e.ok("tesuji-rules chinese:handicap=4,placement=fixed");
    assert_eq!(e.engine.grid().count(Color::Black), 4);
    let expected =
        tesuji_rules::handicap::fixed_handicap_points(e.engine.grid().size(), 4).unwrap();
    for p in expected {
        assert_eq!(
            e.engine.grid().get(p),
            Some(Color::Black),
            "{}",
            p.to_gtp(e.engine.grid().size())
        );
    }
    // White moves first.
    assert!(e.send("play w e5").is_ok());
    // bga's komi=hN is a fixed handicap too.
    let mut e = Ours::with_spec("bga:size=9");
    e.ok("tesuji-rules bga:size=9,komi=h3");
    assert_eq!(e.engine.grid().count(Color::Black), 3);
    e.ok("clear_board");
    assert_eq!(
        e.engine.grid().count(Color::Black),
        3,
        "the rules' handicap is placed again"
    );
}

#[test]
fn a_spec_handicap_of_free_stones_is_placed_by_black() {
    let mut e = Ours::with_spec("chinese:size=9");
    e.ok("tesuji-rules chinese:handicap=3,placement=free");
    assert_eq!(e.engine.grid().count(Color::Black), 0);
    e.ok("play b c3");
    e.ok("play b g7");
    assert!(
        e.send("play w e5").is_err(),
        "Black has a stone left to place"
    );
    let err = e.send("genmove w").unwrap_err();
    assert!(err.contains("it is black's turn"), "{err}");
    assert_eq!(e.engine.grid().count(Color::White), 0);
    e.ok("play b e5");
    e.ok("play w c7");
    assert_eq!(e.engine.grid().count(Color::Black), 3);
}

#[test]
fn a_spec_handicap_is_refused_clearly_when_it_cannot_be_honoured() {
    // A board size that cannot take the rules' handicap: GTP's own refusal, and the board stays as it was.
    let mut e = Ours::with_spec("chinese:size=9,handicap=5,placement=fixed");
    assert_eq!(e.send("boardsize 8"), Err("unacceptable size".to_string()));
    assert_eq!(e.engine.grid().count(Color::Black), 5);
    e.ok("boardsize 13");
    assert_eq!(e.engine.grid().count(Color::Black), 5);
    // A fixed handicap the board has no points for.
    let mut e = Ours::with_spec("chinese:size=7");
    let err = e
        .send("tesuji-rules chinese:size=7,handicap=9,placement=fixed")
        .unwrap_err();
    assert!(err.contains("handicap"), "{err}");
}

/// `tesuji-why COLOR VERTEX`: `legal`, or the reason in a few words; a superko names the GTP move after which
/// the repeated position stood, in the list's own numbering (GTP's free colour order included).
#[test]
fn tesuji_why_explains_refusals() {
    // The ko of seed 000's rule 6, built in any colour order: White's four stones, then Black's three.
    let build = ["w b4", "w a3", "w c3", "w b2", "b c4", "b d3", "b c2"];
    let mut e = Ours::with_spec("chinese:size=5");
    for mv in build {
        e.ok(&format!("play {mv}"));
    }
    assert_eq!(e.ok("tesuji-why b b3"), "legal");
    e.ok("play b b3");
    assert_eq!(
        e.ok("tesuji-why w c3"),
        "positional superko: repeats the position after move 7"
    );
    assert_eq!(e.ok("is_legal w c3"), "0");
    assert_eq!(e.ok("tesuji-why w b3"), "occupied");
    assert_eq!(e.ok("tesuji-why w e5"), "legal");
    // From a set-up position the ko repeats the starting position.
    let mut e = Ours::with_spec("tromp-taylor:size=5");
    e.ok("set_position w b4 w a3 w c3 w b2 b c4 b d3 b c2");
    e.ok("play b b3");
    assert_eq!(
        e.ok("tesuji-why w c3"),
        "positional superko: repeats the starting position"
    );
    // Simple ko, suicide, forced pass.
    let mut e = Ours::with_spec("japanese:size=5");
    for mv in build {
        e.ok(&format!("play {mv}"));
    }
    e.ok("play b b3");
    assert_eq!(e.ok("tesuji-why w c3"), "ko");
    let mut e = Ours::with_spec("chinese:size=5");
    e.ok("play b a2");
    e.ok("play b b1");
    assert_eq!(e.ok("tesuji-why w a1"), "suicide");
    let mut e = Ours::with_spec("ideal:size=9,handicap=2");
    e.ok("play b e5");
    assert_eq!(e.ok("tesuji-why w c3"), "forced pass");
    assert!(e.send("tesuji-why w").is_err());
}

/// The ruled game follows the `komi` command and a set-up position's first mover.
#[test]
fn the_ruled_result_follows_komi_and_the_first_mover() {
    let mut e = Ours::with_spec("tromp-taylor:size=5");
    e.ok("komi 100");
    e.ok("play b c3");
    e.ok("play w pass");
    e.ok("play b pass");
    assert_eq!(e.ok("final_score"), "W+75");
    let mut e = Ours::with_spec("ideal:size=9");
    e.ok("set_position b e5");
    e.ok("play w pass");
    e.ok("play b pass");
    // A play was made before (the set-up stone is the start, not a play): the ideal draw holds.
    assert_eq!(e.ok("final_score"), "0");
}

/// Rules a controller sets between games, before `clear_board`, on the board of the game just played: they
/// cannot be that game's (a handicap after moves, a played move they forbid), so they are accepted for the next
/// one, which starts with them, as it would on an engine started with them. Never refused, never dropped.
#[test]
fn rules_set_after_a_game_are_the_next_games() {
    let started = |spec: &str| {
        let mut fresh = Ours::with_spec(spec);
        (fresh.ok("tesuji-rules"), fresh.ok("showboard"))
    };
    // A handicap after moves (the tester's case), for each placement, then a komi and the new board.
    for (spec, placement) in [
        ("ideal:size=9", "ideal:size=9,handicap=3"),
        (
            "chinese:size=9",
            "chinese:size=9,handicap=4,placement=fixed",
        ),
        ("chinese:size=9", "chinese:size=9,handicap=3,placement=free"),
    ] {
        let mut e = Ours::with_spec(spec);
        let before = e.ok("tesuji-rules");
        e.ok("play b e5");
        e.ok("play w c3");
        let board = e.ok("showboard");
        assert_eq!(
            e.ok(&format!("tesuji-rules {placement}")),
            "rules apply from the next game"
        );
        // The game in progress goes on under its own rules.
        assert_eq!(e.ok("tesuji-rules"), before);
        assert_eq!(e.ok("showboard"), board);
        e.ok("play b c7");
        e.ok("clear_board");
        assert_eq!(
            (e.ok("tesuji-rules"), e.ok("showboard")),
            started(placement)
        );
        // And every game after it.
        e.ok("play b e5");
        e.ok("clear_board");
        assert_eq!(
            (e.ok("tesuji-rules"), e.ok("showboard")),
            started(placement)
        );
        assert_eq!(e.engine.next_rules(), None);
    }
    // The passes placement forces White's first passes in the next game.
    let mut e = Ours::with_spec("ideal:size=9");
    e.ok("play b e5");
    e.ok("tesuji-rules ideal:handicap=3");
    e.ok("komi 0.5");
    e.ok("boardsize 9");
    e.ok("play b e5");
    assert_eq!(e.ok("is_legal w c3"), "0");
    assert!(e.ok("showboard").contains("Komi: 0.5"));
    // Rules under which a played move is illegal (a suicide, which Tromp-Taylor allows), from every rules command.
    for command in [
        "tesuji-rules japanese",
        "kata-set-rules japanese",
        "kgs-rules japanese",
    ] {
        // (Simple ko: under positional superko a lone stone's suicide repeats the position.)
        let mut e = Ours::with_spec("tromp-taylor:size=5,ko=simple");
        for line in ["play b a2", "play b b1", "play w a1"] {
            e.ok(line);
        }
        let before = e.ok("tesuji-rules");
        assert_eq!(e.ok(command), "rules apply from the next game", "{command}");
        assert_eq!(e.ok("tesuji-rules"), before, "{command}");
        e.ok("clear_board");
        let now: Rules = e.ok("tesuji-rules").parse().unwrap();
        assert_eq!(now.preset, tesuji_rules::Preset::Japanese, "{command}");
        assert_eq!(e.ok("is_legal w a1"), "1");
        e.ok("play b a2");
        e.ok("play b b1");
        assert_eq!(
            e.ok("is_legal w a1"),
            "0",
            "{command}: suicide is now illegal"
        );
    }
    // Rules the game can take apply at once, and replace rules waiting for the next game.
    let mut e = Ours::with_spec("ideal:size=9");
    e.ok("play b e5");
    e.ok("tesuji-rules ideal:handicap=3");
    assert_eq!(e.ok("tesuji-rules chinese"), "");
    assert_eq!(e.ok("tesuji-rules"), "chinese:size=9");
    e.ok("clear_board");
    assert_eq!(e.ok("tesuji-rules"), "chinese:size=9");
}
