//! One test (at least) for every ruling of RULES.md §4–§7 and the seed texts' examples.

use tesuji_rules::result::Outcome;
use tesuji_rules::{
    Color, Game, Grid, Illegal, KoRule, Move, Phase, Point, Rules, ScoringRule, Size,
};

fn rules(spec: &str) -> Rules {
    spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn at(size: Size, v: &str) -> Move {
    Move::Play(Point::from_gtp(v, size).unwrap())
}

/// Plays GTP vertices (or `pass`) alternately from the player to move.
fn play_all(game: &mut Game, moves: &[&str]) {
    let size = game.rules().size;
    for v in moves {
        let mv = if *v == "pass" {
            Move::Pass
        } else {
            at(size, v)
        };
        game.play_move(mv)
            .unwrap_or_else(|e| panic!("{v}: {e}\n{game:?}"));
    }
}

fn from_diagram(spec: &str, diagram: &str, to_move: Color) -> Game {
    let grid = Grid::from_diagram(diagram).unwrap();
    let mut r = rules(spec);
    r.size = grid.size();
    Game::from_position(r, &grid, to_move).unwrap()
}

// Seed 000, rule 6: Black plays A capturing; White's recapture at B would repeat the original position.
const TT_KO: &str = "
    .....
    .OX..
    O.OX.
    .OX..
    .....";

#[test]
fn tromp_taylor_rule_6_example() {
    let mut g = from_diagram("tromp-taylor", TT_KO, Color::Black);
    let size = g.rules().size;
    // A = the empty point between the white stones (B3 in GTP on 5x5), B = C3 where Black captures from.
    g.play_move(at(size, "B3")).unwrap();
    assert_eq!(g.captures(), [1, 0]);
    assert_eq!(
        g.check(Color::White, at(size, "C3")),
        Err(Illegal::Ko(KoRule::Positional))
    );
}

#[test]
fn simple_ko_forbids_only_the_immediate_recapture() {
    let mut g = from_diagram("japanese", TT_KO, Color::Black);
    let size = g.rules().size;
    g.play_move(at(size, "B3")).unwrap();
    assert_eq!(
        g.check(Color::White, at(size, "C3")),
        Err(Illegal::Ko(KoRule::Simple))
    );
    play_all(&mut g, &["E1", "E5"]);
    // After a turn elsewhere, the recapture is allowed.
    assert!(g.is_legal(Color::White, at(size, "C3")));
}

#[test]
fn bga_figure_2_situational_superko() {
    let mut g = from_diagram("bga:size=9", &bga9(TT_KO), Color::Black);
    let size = g.rules().size;
    g.play_move(at(size, "B7")).unwrap();
    assert_eq!(
        g.check(Color::White, at(size, "C7")),
        Err(Illegal::Ko(KoRule::Situational))
    );
}

/// Puts a 5x5 diagram in the top-left corner of a 9x9 board.
fn bga9(small: &str) -> String {
    let rows: Vec<&str> = small
        .lines()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .collect();
    let mut out = String::new();
    for y in 0..9 {
        let row = rows.get(y).copied().unwrap_or("");
        out.push_str(row);
        out.push_str(&".".repeat(9 - row.len()));
        out.push('\n');
    }
    out
}

#[test]
fn suicide_knobs() {
    // Black at A1 (bottom left) has no liberty: single-stone suicide. Black at B1 next to the black stone at A2
    // ... build a corner where the played stone joins a chain in atari: multi-stone suicide.
    let diagram = "
        ...
        O..
        XO.
        .XO";
    for (spec, single, multi) in [
        ("chinese", false, false),
        ("new-zealand", false, true),
        ("ideal", true, true),
        ("tromp-taylor", false, true),
    ] {
        let g = from_diagram(spec, diagram, Color::Black);
        let size = g.rules().size;
        // A1: the black stones at A2 and B1 are in atari at A1 → a 3-stone suicide.
        assert_eq!(
            g.is_legal(Color::Black, at(size, "A1")),
            multi,
            "{spec} multi"
        );
        let g2 = from_diagram(
            spec,
            "
            .O.
            O..
            ...",
            Color::Black,
        );
        let size2 = g2.rules().size;
        // Tromp-Taylor: single-stone suicide repeats the position, so it is illegal under positional ko.
        assert_eq!(
            g2.is_legal(Color::Black, at(size2, "A3")),
            single,
            "{spec} single"
        );
    }
}

#[test]
fn ideal_single_stone_suicide_is_a_play_not_a_pass() {
    let mut g = from_diagram("ideal", ".O.\nO..\n...", Color::White);
    let size = g.rules().size;
    play_all(&mut g, &["pass", "A3"]);
    // The suicide removed Black's stone: the position is unchanged, White got a prisoner, and the game goes on.
    assert_eq!(g.grid().get(Point::new(0, 0)), None);
    assert_eq!(g.captures(), [0, 1]);
    assert_eq!(g.passes_in_row(), 0);
    g.play_move(Move::Pass).unwrap();
    assert_eq!(g.phase(), Phase::Playing);
    let _ = size;
}

#[test]
fn ideal_two_passes_before_any_play_is_a_draw() {
    let mut g = Game::new(rules("ideal:size=9")).unwrap();
    play_all(&mut g, &["pass", "pass"]);
    let r = g.result().unwrap();
    assert_eq!(r.outcome, Outcome::NoPlay);
    assert_eq!(r.to_string(), "0");
}

#[test]
fn ideal_handicap_passes_are_forced_and_real() {
    let mut g = Game::new(rules("ideal:size=9,handicap=3")).unwrap();
    assert_eq!(g.rules().komi.white, 0, "komi 0/0 unless set");
    let size = g.rules().size;
    play_all(&mut g, &["E5"]);
    assert_eq!(
        g.check(Color::White, at(size, "C3")),
        Err(Illegal::ForcedPass)
    );
    play_all(&mut g, &["pass", "C3", "pass", "G7"]);
    // The forced passes are over: White may play, and White made the first pass of the game.
    assert!(g.is_legal(Color::White, at(size, "G3")));
    assert_eq!(g.first_pass(), Some(Color::White));
}

#[test]
fn ideal_tie_goes_to_the_first_passer_and_shared_points_count_for_both() {
    // Black and White each wall off half of a 3x3 board with a shared middle column.
    let mut g = from_diagram("ideal:komi=B0/W0", "X.O\nX.O\nX..", Color::White);
    // A play first: two passes before any play would be a draw (7.5). Then Black passes first.
    play_all(&mut g, &["C1", "pass", "pass"]);
    // Playing is over: mark nothing dead, both accept.
    assert_eq!(g.phase(), Phase::Marking);
    g.accept(Color::Black).unwrap();
    g.accept(Color::White).unwrap();
    let r = g.result().unwrap();
    let s = r.score.unwrap();
    assert_eq!(s.scoring, ScoringRule::AreaReach);
    assert_eq!(s.black.shared, 3);
    assert_eq!(s.black.total, 2 * 6);
    assert_eq!(s.white.total, 2 * 6);
    // Equal totals: the player who passed first (Black) wins, written with margin 0.
    assert_eq!(r.winner, Some(Color::Black));
    assert_eq!(r.to_string(), "B+0");
}

#[test]
fn dead_stone_phase_proposals_acceptance_and_dispute() {
    // A white stone inside Black's area.
    let mut g = from_diagram("chinese:komi=0", "XXXX\nX.OX\nXXXX\n....", Color::Black);
    play_all(&mut g, &["pass", "pass"]);
    assert_eq!(g.phase(), Phase::Marking);
    assert_eq!(g.check(Color::Black, Move::Pass), Err(Illegal::NotPlaying));
    g.toggle_dead(Color::Black, Point::new(2, 1)).unwrap();
    assert_eq!(g.dead_stones(), &[Point::new(2, 1)]);
    g.accept(Color::Black).unwrap();
    assert_eq!(g.acceptances(), [true, false]);
    // A change clears both acceptances.
    g.toggle_dead(Color::White, Point::new(2, 1)).unwrap();
    assert_eq!(g.acceptances(), [false, false]);
    assert!(g.dead_stones().is_empty());
    // White disputes: play resumes with the opponent of the last passer (White passed last) to move.
    g.dispute(Color::White).unwrap();
    assert_eq!(g.phase(), Phase::Playing);
    assert_eq!(g.to_move(), Color::Black);
    play_all(&mut g, &["pass", "pass"]);
    // Under chinese rules two passes after a resumption lead to the dead-stone phase again.
    assert_eq!(g.phase(), Phase::Marking);
    g.propose(Color::Black, &[Point::new(2, 1)]).unwrap();
    g.accept(Color::White).unwrap();
    g.accept(Color::Black).unwrap();
    let r = g.result().unwrap();
    // Area: Black's 10 stones, and 6 empty points once the dead stone is gone (2 inside, the open bottom row).
    let s = r.score.unwrap();
    assert_eq!(s.black.dead, 1);
    assert_eq!(s.black.stones, 10);
    assert_eq!(s.black.territory, 6);
    assert_eq!(s.white.stones + s.white.territory, 0);
    assert_eq!(r.to_string(), "B+16");
}

#[test]
fn bga_resumption_two_passes_end_with_every_stone_alive() {
    let mut g = from_diagram(
        "bga:size=9,counting=chinese",
        &bga9("XXXX\nX.OX\nXXXX"),
        Color::Black,
    );
    play_all(&mut g, &["pass", "pass"]);
    g.dispute(Color::Black).unwrap();
    play_all(&mut g, &["pass", "pass"]);
    let r = g.result().unwrap();
    assert_eq!(r.outcome, Outcome::Score);
    // Every stone alive: the white stone counts for White.
    assert_eq!(r.score.unwrap().white.stones, 1);
}

#[test]
fn bga_ties_are_white_wins_by_half_a_point() {
    let mut g = Game::new(rules("bga:size=9,komi=none,counting=chinese")).unwrap();
    play_all(&mut g, &["E5", "pass", "pass"]);
    g.accept(Color::Black).unwrap();
    g.accept(Color::White).unwrap();
    // Black 81 points... but komi=none is 0.5 for White: B+80.5.
    assert_eq!(g.result().unwrap().to_string(), "B+80.5");
    let mut g = Game::new(rules("bga:size=9,komi=none,counting=chinese")).unwrap();
    play_all(&mut g, &["pass", "pass"]);
    g.accept(Color::Black).unwrap();
    g.accept(Color::White).unwrap();
    assert_eq!(g.result().unwrap().to_string(), "W+0.5");
}

#[test]
fn aga_pass_stones_and_white_passes_last() {
    let mut g = Game::new(rules("aga:size=9")).unwrap();
    play_all(&mut g, &["E5", "pass", "pass"]);
    // White passed first, then Black: each pass gave the opponent a stone.
    assert_eq!(g.pass_stones(), [1, 1]);
    g.accept(Color::Black).unwrap();
    g.accept(Color::White).unwrap();
    // Black passed last, so White passes once more: one more pass stone for Black.
    let s = g.result().unwrap().score.unwrap();
    assert_eq!(s.black.pass_stones, 2);
    assert_eq!(s.white.pass_stones, 1);
}

#[test]
fn resignation_time_and_forfeit() {
    type Act = fn(&mut Game) -> Result<(), Illegal>;
    let cases: [(Act, &str); 4] = [
        (|g| g.resign(Color::White), "B+R"),
        (|g| g.timeout(Color::Black), "W+T"),
        (|g| g.forfeit(Color::White), "B+F"),
        (|g| g.resign_both(), "0"),
    ];
    for (act, re) in cases {
        let mut g = Game::new(rules("ideal:size=9")).unwrap();
        act(&mut g).unwrap();
        assert_eq!(g.phase(), Phase::Over);
        assert_eq!(g.result().unwrap().to_string(), re);
        assert_eq!(g.play_move(Move::Pass), Err(Illegal::GameOver));
        assert_eq!(g.resign(Color::Black), Err(Illegal::GameOver));
    }
}

#[test]
fn handicap_placements() {
    let g = Game::new(rules("aga:handicap=3")).unwrap();
    assert_eq!(g.to_move(), Color::White);
    let size = g.rules().size;
    for v in ["D4", "Q16", "D16"] {
        assert_eq!(
            g.grid().get(Point::from_gtp(v, size).unwrap()),
            Some(Color::Black)
        );
    }
    let mut g = Game::new(rules("chinese:handicap=3")).unwrap();
    assert_eq!(
        g.check(Color::Black, Move::Pass),
        Err(Illegal::HandicapPlacement)
    );
    play_all(&mut g, &["A1", "B2", "C3"]);
    // Wait: free placement means Black places all three before White moves.
    assert_eq!(g.to_move(), Color::White);
    assert_eq!(g.grid().count(Color::Black), 3);
    assert!(Game::new(rules("aga:size=8,handicap=5")).is_err());
}

#[test]
fn not_your_turn_and_off_board_are_refused() {
    let mut g = Game::new(rules("chinese:size=9")).unwrap();
    assert_eq!(
        g.play(Color::White, Move::Pass),
        Err(Illegal::NotYourTurn {
            expected: Color::Black
        })
    );
    assert!(matches!(
        g.play(Color::Black, Move::Play(Point::new(9, 0))),
        Err(Illegal::OffBoard { .. })
    ));
    g.play(Color::Black, Move::Play(Point::new(0, 0))).unwrap();
    g.play(Color::White, Move::Pass).unwrap();
    assert_eq!(
        g.play(Color::Black, Move::Play(Point::new(0, 0))),
        Err(Illegal::Occupied)
    );
}

/// 7×7, one black chain with sixteen one-point eyes and nothing else on the board.
const MANY_EYES: &str = "
    .X.X.X.
    XXXXXXX
    .X.X.X.
    XXXXXXX
    .X.X.X.
    XXXXXXX
    .X.X.X.";

#[test]
fn ideal_self_fill_ten_in_a_row_loses() {
    let mut g = from_diagram("ideal:self-fill=10", MANY_EYES, Color::Black);
    let eyes: Vec<Point> = (0..7)
        .step_by(2)
        .flat_map(|y| (0..7).step_by(2).map(move |x| Point::new(x, y)))
        .collect();
    for (n, &eye) in eyes.iter().take(9).enumerate() {
        let effect = g.play_move(Move::Play(eye)).unwrap();
        assert!(effect.self_fill, "fill {n}");
        assert_eq!(g.self_fill_runs()[0], n as u32 + 1);
        g.play_move(Move::Pass).unwrap();
    }
    assert_eq!(g.phase(), Phase::Playing);
    g.play_move(Move::Play(eyes[9])).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.outcome, Outcome::SelfFill);
    assert_eq!(r.to_string(), "W+F");
}

#[test]
fn self_fill_run_is_broken_by_any_other_turn_and_off_without_the_knob() {
    let mut g = from_diagram("ideal:self-fill=10", MANY_EYES, Color::Black);
    play_all(&mut g, &["A7", "pass", "C7"]);
    assert_eq!(g.self_fill_runs(), [2, 0]);
    // White plays a single-stone suicide into an eye (legal under `ideal`); Black passes: the run is broken.
    play_all(&mut g, &["G1", "pass"]);
    assert_eq!(g.self_fill_runs()[0], 0);
    // Without the knob there is no referee.
    let mut g = from_diagram("ideal", MANY_EYES, Color::Black);
    let effect = g.play_move(at(g.rules().size, "A7")).unwrap();
    assert!(!effect.self_fill);
}

#[test]
fn bga_figure_1_capture_takes_precedence_over_self_capture() {
    // A9 has no liberty for White, but a White stone there takes the last liberty of the black stones at B9 and
    // A8: it captures them and is legal. J1 is the same shape where the black stones have other liberties:
    // there White's stone would capture nothing, so it is suicide.
    let diagram = "
        .XO......
        XO.......
        O........
        .........
        .........
        .........
        .........
        ........X
        .......X.";
    let mut g = from_diagram("bga:size=9", diagram, Color::White);
    let size = g.rules().size;
    assert_eq!(g.check(Color::White, at(size, "J1")), Err(Illegal::Suicide));
    let effect = g.play(Color::White, at(size, "A9")).unwrap();
    assert_eq!(effect.captured, 2);
    assert_eq!(g.grid().get(Point::new(0, 0)), Some(Color::White));
}

#[test]
fn bga_aga_off_passes_cost_a_prisoner_only_during_a_dispute() {
    let mut g = Game::new(rules("bga:size=9,aga=off,counting=japanese")).unwrap();
    play_all(&mut g, &["E5", "pass", "pass"]);
    assert_eq!(g.pass_stones(), [0, 0]);
    g.dispute(Color::White).unwrap();
    // Black passed last: White moves first in the play-out.
    assert_eq!(g.to_move(), Color::White);
    play_all(&mut g, &["D4", "pass"]);
    assert_eq!(g.pass_stones(), [0, 1]);
}

#[test]
fn ideal_resumption_always_returns_to_marking_and_keeps_ko_history() {
    let mut g = from_diagram("ideal", TT_KO, Color::Black);
    let size = g.rules().size;
    // Black takes the ko; both pass; a dispute resumes play with White to move (Black passed last).
    play_all(&mut g, &["B3", "pass", "pass"]);
    g.dispute(Color::White).unwrap();
    assert_eq!(g.to_move(), Color::White);
    // Natural ko: White's recapture makes a position White never made by a play before, so it is legal; Black's
    // re-recapture would repeat the position after Black's own earlier play: refused, the history was kept.
    play_all(&mut g, &["C3"]);
    assert_eq!(
        g.check(Color::Black, at(size, "B3")),
        Err(Illegal::Ko(KoRule::Natural))
    );
    play_all(&mut g, &["pass", "pass"]);
    // Under `ideal`, two passes after a resumption lead to the dead-stone phase again (not to the AGA rule).
    assert_eq!(g.phase(), Phase::Marking);
}

#[test]
fn tromp_taylor_ends_at_two_passes_with_every_stone_alive() {
    let mut g = from_diagram("tromp-taylor", "XXXX\nX.OX\nXXXX\n....", Color::Black);
    play_all(&mut g, &["pass", "pass"]);
    assert_eq!(g.phase(), Phase::Over);
    let s = g.result().unwrap().score.unwrap();
    // The white stone is alive by rule; nobody's empty points: (1,1) touches both colours.
    assert_eq!(s.white.stones, 1);
    assert_eq!(s.black.stones, 10);
    assert_eq!(s.black.territory, 4);
    assert_eq!(s.dame, 1);
    assert_eq!(g.result().unwrap().to_string(), "B+13");
}

#[test]
fn komi_and_tie_rules_in_results() {
    // Whole komi under `new-zealand` can tie: a draw.
    let mut g = from_diagram("new-zealand:komi=1", "X.\n..", Color::Black);
    play_all(&mut g, &["B1", "pass", "pass"]);
    g.accept(Color::Black).unwrap();
    g.accept(Color::White).unwrap();
    // Black: 2 stones + 2 empty = 4; White: 1 komi... not a tie: B+3.
    assert_eq!(g.result().unwrap().to_string(), "B+3");
    let mut g = from_diagram("chinese:komi=4,tie=white", "X.\n..", Color::Black);
    play_all(&mut g, &["pass", "pass"]);
    g.accept(Color::Black).unwrap();
    g.accept(Color::White).unwrap();
    let r = g.result().unwrap();
    assert_eq!(r.margin, 0);
    assert_eq!(r.to_string(), "W+0");
    let mut g = from_diagram("chinese:komi=4", "X.\n..", Color::Black);
    play_all(&mut g, &["pass", "pass"]);
    g.accept(Color::Black).unwrap();
    g.accept(Color::White).unwrap();
    assert_eq!(g.result().unwrap().to_string(), "0");
}

/// A seki in the corner (9x9): the black corner group has the eye A9, the white group beside it the eye E9, and
/// they share C9. Black's wall on the right owns the region beyond it, White's wall on the left the A1–B6 region.
const CORNER_SEKI: &str = "
    .X.O.OX..
    XXXOOOX..
    OOOXXXX..
    ..OX.....
    ..OX.....
    ..OX.....
    ..OX.....
    ..OX.....
    ..OX.....";

#[test]
fn bga_territory_counts_the_eyes_of_a_seki_with_aga_rules_on_and_off() {
    // §4: an empty region bordered by one colour counts; only regions touching both colours (C9) count for
    // nobody. The eyes A9 and E9 are one-colour regions, so each counts for its owner, whatever the AGA option.
    let grid = Grid::from_diagram(CORNER_SEKI).unwrap();
    let right = 5 * 6 + 2 * 3; // E1..I6 and H7..I9
    let left = 2 * 6; // A1..B6
    for aga in ["on", "off"] {
        for komi in ["none", "normal", "big"] {
            let spec = format!("bga:size=9,counting=japanese,komi={komi},aga={aga}");
            let g = Game::from_position(rules(&spec), &grid, Color::Black).unwrap();
            let score = g.score_with(&[]);
            assert_eq!(score.scoring, ScoringRule::Territory, "{spec}");
            assert_eq!(
                score.black.territory,
                right + 1,
                "{spec}: Black's region and the eye A9"
            );
            assert_eq!(
                score.white.territory,
                left + 1,
                "{spec}: White's region and the eye E9"
            );
            assert_eq!(score.dame, 1, "{spec}: only C9 is shared");
        }
    }
    // The Japanese preset keeps its own ruling: the eyes of a seki count for nobody.
    let g = Game::from_position(rules("japanese:size=9"), &grid, Color::Black).unwrap();
    let score = g.score_with(&[]);
    assert_eq!(
        (score.black.territory, score.white.territory),
        (right, left)
    );
    assert_eq!(score.dame, 3);
}

#[test]
fn stone_scoring_taxes_two_points_a_group() {
    // Black has two living groups (left and right), White one wall in the middle, with a dame column on
    // each side of it; a white stone in Black's left eye space is dead.
    let diagram = "
        X.X.O.X.X
        XXX.O.XXX
        O.X.O.X..";
    let count = |spec: &str| {
        let mut g = from_diagram(spec, diagram, Color::Black);
        play_all(&mut g, &["pass", "pass"]);
        g.toggle_dead(Color::Black, Point::new(0, 2)).unwrap();
        g.accept(Color::Black).unwrap();
        g.accept(Color::White).unwrap();
        *g.result().unwrap()
    };
    let stones = count("chinese:komi=0,scoring=stones");
    let s = stones.score.unwrap();
    assert_eq!(s.scoring, ScoringRule::Stones);
    // Black: 12 stones and 6 eye points (the dead stone's point among them), two groups: 18 - 4.
    assert_eq!(
        (s.black.stones, s.black.territory, s.black.groups),
        (12, 6, 2)
    );
    assert_eq!(s.black.total, 2 * 14);
    // White: the wall of 3, no territory, one group: 3 - 2.
    assert_eq!(
        (s.white.stones, s.white.territory, s.white.groups),
        (3, 0, 1)
    );
    assert_eq!(s.white.total, 2);
    assert_eq!(s.dame, 6);
    assert_eq!(stones.to_string(), "B+13");
    // Area scoring counts the same points with no tax: B+15.
    let area = count("chinese:komi=0");
    assert_eq!(area.score.unwrap().black.groups, 0);
    assert_eq!(area.to_string(), "B+15");
}
