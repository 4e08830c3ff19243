//! RULES.md §2 `repetition = void` under simple ko (`japanese`): a cycle of plays found by search, repeated until
//! its first state occurs for the third time, ends the game with no result (`Void`) at exactly that play, not
//! earlier; the same plays under positional superko (`chinese`) are refused at the first play that repeats a
//! position, with `Illegal::Ko(KoRule::Positional)`.
//!
//! The games start from the perft tables' "triple ko" position `.w.bw/wbbbw/w.bww/bbbw./wwww.` (Black to move).
//! Under simple ko without suicide no cycle of plays passes through that position itself (see [`PREFIX`]), so the
//! cycle is searched for after a short prefix of plays.

use std::collections::HashMap;

use tesuji_rules::result::Outcome;
use tesuji_rules::{Color, Game, Grid, Illegal, KoRule, Move, Phase, Point, Rules};

/// The "triple ko" position of the perft tables, Black to move.
const TRIPLE_KO: &str = ".w.bw/wbbbw/w.bww/bbbw./wwww.";

fn game(preset: &str) -> Game {
    let grid = Grid::from_diagram(TRIPLE_KO).unwrap();
    let rules: Rules = format!("{preset}:size=5").parse().unwrap();
    Game::from_position(rules, &grid, Color::Black).unwrap()
}

/// A state as the repetition rule sees it: the position and the colour to move.
fn state(g: &Game) -> (String, Color) {
    (g.grid().to_rows(), g.to_move())
}

/// A state as the legality of the next plays depends on it: also the simple-ko point.
fn full_state(g: &Game) -> (String, Color, Option<Point>) {
    (g.grid().to_rows(), g.to_move(), g.board().ko_point())
}

/// The shortest cycle of plays (no passes) of at most `max` plays that leads from the game's state back to it
/// (ko point included, so that the cycle can be played again) without visiting any state twice on the way,
/// by iterative deepening over the game's own legal moves.
fn find_cycle(start: &Game, max: usize) -> Option<Vec<Point>> {
    type Full = (String, Color, Option<Point>);
    fn dfs(
        g: &Game,
        target: &Full,
        depth: usize,
        path: &mut Vec<Point>,
        on_path: &mut Vec<Full>,
    ) -> bool {
        for mv in g.legal_moves() {
            let Move::Play(p) = mv else { continue };
            let mut next = g.clone();
            next.play_move(mv).unwrap();
            if next.phase() != Phase::Playing {
                continue;
            }
            let s = full_state(&next);
            path.push(p);
            if &s == target {
                if depth == 1 {
                    return true;
                }
            } else if depth > 1 && !on_path.contains(&s) {
                on_path.push(s);
                if dfs(&next, target, depth - 1, path, on_path) {
                    return true;
                }
                on_path.pop();
            }
            path.pop();
        }
        false
    }
    let target = full_state(start);
    (1..=max).find_map(|depth| {
        let mut path = Vec::new();
        dfs(start, &target, depth, &mut path, &mut Vec::new()).then_some(path)
    })
}

/// The position is called a triple ko in the perft tables, but under simple ko without suicide no cycle of
/// plays passes through it: every play at the start fills a liberty of a large chain. Cycles appear once a large
/// chain has been captured: a breadth-first search over every state within 11 plays (1.9 million of them, run
/// offline: too slow for a test) finds the first states on a cycle of plays after these 7 plays.
const PREFIX: [(u8, u8); 7] = [(4, 4), (0, 0), (4, 3), (3, 4), (3, 2), (4, 2), (2, 4)];

/// The game after [`PREFIX`], where the search for a cycle starts.
fn entry(preset: &str) -> Game {
    let mut g = game(preset);
    for (x, y) in PREFIX {
        g.play_move(Move::Play(Point::new(x, y)))
            .unwrap_or_else(|e| panic!("{preset}: prefix ({x}, {y}): {e}\n{g:?}"));
    }
    g
}

#[test]
fn no_short_cycle_through_the_starting_state() {
    assert_eq!(find_cycle(&game("japanese"), 6), None);
}

#[test]
fn repeated_cycle_is_void_at_the_third_occurrence() {
    let start = game("japanese");
    let entry = entry("japanese");
    let cycle = find_cycle(&entry, 8).expect("a cycle of plays after the prefix");
    assert!(cycle.len() >= 2, "cycle {cycle:?}");

    // Count every state from the very start, as the rule does (position + colour to move).
    let mut g = start.clone();
    let mut seen: HashMap<(String, Color), u32> = HashMap::new();
    seen.insert(state(&g), 1);
    let moves: Vec<Point> = PREFIX
        .iter()
        .map(|&(x, y)| Point::new(x, y))
        .chain(cycle.iter().copied().cycle().take(5 * cycle.len()))
        .collect();
    let mut plays = 0;
    let mut third = None;
    for &p in &moves {
        assert_eq!(
            g.phase(),
            Phase::Playing,
            "play {plays}: the game ended early"
        );
        g.play_move(Move::Play(p))
            .unwrap_or_else(|e| panic!("play {} {p:?}: {e}\n{g:?}", plays + 1));
        plays += 1;
        let count = seen.entry(state(&g)).or_insert(0);
        *count += 1;
        if *count == 3 {
            third = Some(state(&g));
            break;
        }
        assert_eq!(
            g.phase(),
            Phase::Playing,
            "play {plays}: ended though no state occurred three times"
        );
        assert!(g.result().is_none());
    }
    // The cycle visits no state twice and the prefix visits none of its states, so the cycle's first state is
    // the first to occur a third time: at the end of the second time round.
    assert_eq!(plays, PREFIX.len() + 2 * cycle.len(), "{seen:?}");
    assert_eq!(third, Some(state(&entry)));
    assert_eq!(g.phase(), Phase::Over);
    let result = *g.result().expect("a result");
    assert_eq!(result.outcome, Outcome::Repetition);
    assert_eq!(result.winner, None);
    assert!(!result.is_draw(), "no result is not a draw");
    assert_eq!(result.to_string(), "Void");
    assert_eq!(
        g.check(g.to_move(), Move::Play(cycle[0])),
        Err(Illegal::GameOver)
    );

    // Undo takes back the voiding play; the same play voids again.
    let mut back = g.clone();
    back.undo();
    assert_eq!(back.phase(), Phase::Playing);
    assert!(back.result().is_none());
    back.play_move(Move::Play(*cycle.last().unwrap())).unwrap();
    assert_eq!(back.result(), Some(&result));

    // Without the repetition rule the same plays go on.
    let rules: Rules = "japanese:size=5,repetition=none".parse().unwrap();
    let mut free = Game::from_position(rules, &start.grid(), Color::Black).unwrap();
    for &p in &moves {
        free.play_move(Move::Play(p)).unwrap();
    }
    assert_eq!(free.phase(), Phase::Playing);
}

/// Every ruleset that voids by repetition: the presets that do by default, and simple ko with `repetition=void`
/// set on the others (area and territory counting, with and without a dead-stone phase).
/// `spec` with more keys.
fn with_keys(spec: &str, keys: &str) -> Rules {
    let sep = if spec.contains(':') { ',' } else { ':' };
    format!("{spec}{sep}{keys}").parse().unwrap()
}

const VOIDING: [&str; 5] = [
    "japanese",
    "korean",
    "chinese:ko=simple,repetition=void",
    "new-zealand:ko=simple,repetition=void",
    "tromp-taylor:ko=simple,repetition=void",
];

/// The exploit that voided won games: after the count is accepted by one side, the other disputes and both pass
/// again, so that the position with the same player to move comes back a third time. Passes are not a cycle of
/// plays: no number of rounds of pass, pass, dispute voids a game, whoever disputes and whatever was played.
#[test]
fn passes_around_a_dispute_never_void() {
    for spec in VOIDING {
        for plays in [0usize, 1, 3] {
            let mut g = Game::new(with_keys(spec, "size=5")).unwrap();
            for &(x, y) in &[(2, 2), (1, 1), (3, 3)][..plays] {
                g.play_move(Move::Play(Point::new(x, y))).unwrap();
            }
            for round in 0..12 {
                let who = g.to_move();
                g.play_move(Move::Pass).unwrap();
                g.play_move(Move::Pass).unwrap();
                let context = format!("{spec}, {plays} plays, round {round}: {g:?}");
                assert_ne!(
                    g.result().map(|r| r.outcome),
                    Some(Outcome::Repetition),
                    "{context}"
                );
                if g.phase() == Phase::Over {
                    // `end=score` counts at two passes: there is nothing to dispute.
                    assert!(spec.starts_with("tromp-taylor"), "{context}");
                    break;
                }
                assert_eq!(g.phase(), Phase::Marking, "{context}");
                // One side accepts the count, the other disputes; the disputer alternates between rounds.
                g.accept(who).unwrap();
                g.dispute(if round % 2 == 0 { who.opponent() } else { who })
                    .unwrap();
                assert_eq!(g.phase(), Phase::Playing, "{context}");
            }
        }
    }
}

/// A state as the rule sees it, with the window it is counted in: `Void` exactly when a state occurs for the
/// third time since the last pass (or the start), checked by a literal model on random games of small boards
/// whose players pass, dispute, accept and play at random. Small boards make cycles of plays common, so both
/// sides of the rule are met.
#[test]
fn a_void_is_a_third_occurrence_within_a_run_of_plays() {
    let mut voids = 0;
    let mut passes_past_third = 0;
    for spec in VOIDING {
        for size in [2u8, 3, 4] {
            for seed in 0..150u64 {
                let rules = with_keys(spec, &format!("size={size},komi=0.5"));
                let mut g = Game::new(rules).unwrap();
                let mut x = (seed + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                let mut next = |n: usize| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % n as u64) as usize
                };
                // Every state since the start, and where the current window (since the last pass) starts.
                let mut seen: Vec<(String, Color)> = vec![state(&g)];
                let mut window = 0;
                for _ in 0..300 {
                    match g.phase() {
                        Phase::Over => break,
                        Phase::Marking => {
                            if next(8) == 0 {
                                g.accept(Color::Black).unwrap();
                                g.accept(Color::White).unwrap();
                            } else {
                                g.dispute(Color::BOTH[next(2)]).unwrap();
                            }
                            continue;
                        }
                        Phase::Playing => {}
                    }
                    let legal = g.legal_moves();
                    // Passes are rare enough for cycles of plays to form between them.
                    let plays: Vec<Move> =
                        legal.iter().copied().filter(|m| *m != Move::Pass).collect();
                    let mv = if plays.is_empty() || next(6) == 0 {
                        Move::Pass
                    } else {
                        plays[next(plays.len())]
                    };
                    g.play_move(mv).unwrap();
                    let s = state(&g);
                    if mv == Move::Pass {
                        window = seen.len();
                    }
                    seen.push(s.clone());
                    let in_window = seen[window..].iter().filter(|t| **t == s).count();
                    let in_all = seen.iter().filter(|t| **t == s).count();
                    let context = format!("{spec} size {size} seed {seed}: {g:?}");
                    if in_window >= 3 {
                        voids += 1;
                        assert_eq!(
                            g.result().map(|r| r.outcome),
                            Some(Outcome::Repetition),
                            "{context}"
                        );
                        // The turns it names: the earlier occurrences in the window.
                        let turns: Vec<u32> = (window..seen.len() - 1)
                            .filter(|&k| seen[k] == s)
                            .map(|k| k as u32)
                            .collect();
                        assert_eq!(g.repetition_turns(), turns, "{context}");
                        break;
                    }
                    if in_all >= 3 {
                        passes_past_third += 1;
                    }
                    assert_ne!(
                        g.result().map(|r| r.outcome),
                        Some(Outcome::Repetition),
                        "{context}"
                    );
                }
            }
        }
    }
    // Both sides of the rule were met: voids by cycles of plays, and third occurrences across passes that did
    // not void.
    assert!(voids >= 50, "{voids} voids");
    assert!(
        passes_past_third >= 50,
        "{passes_past_third} third occurrences across passes"
    );
}

#[test]
fn positional_superko_refuses_the_repeating_play() {
    let cycle = find_cycle(&entry("japanese"), 8).expect("a cycle of plays after the prefix");
    let moves: Vec<Point> = PREFIX
        .iter()
        .map(|&(x, y)| Point::new(x, y))
        .chain(cycle.iter().copied())
        .collect();
    // The positions these plays go through, from the start (legal under simple ko, as found).
    let mut j = game("japanese");
    let mut positions = vec![j.grid()];
    for &p in &moves {
        j.play_move(Move::Play(p)).unwrap();
        positions.push(j.grid());
    }
    let first_repeat = (1..positions.len())
        .find(|&k| positions[..k].contains(&positions[k]))
        .expect("the cycle repeats a position");
    assert!(first_repeat > PREFIX.len(), "the prefix repeats nothing");

    let mut g = game("chinese");
    for (k, &p) in moves.iter().enumerate() {
        let mv = Move::Play(p);
        if k + 1 == first_repeat {
            let before = g.grid();
            let (to_move, log) = (g.to_move(), g.log().len());
            assert_eq!(
                g.check(to_move, mv),
                Err(Illegal::Ko(KoRule::Positional)),
                "play {} of {moves:?} repeats a position",
                k + 1
            );
            assert_eq!(g.play_move(mv), Err(Illegal::Ko(KoRule::Positional)));
            // The refusal names the turn of the position it repeats: the first one equal to it.
            let earlier = positions[..first_repeat]
                .iter()
                .position(|p| *p == positions[first_repeat])
                .unwrap();
            assert_eq!(
                g.why(to_move, mv).unwrap_err().repeats,
                Some(earlier as u32)
            );
            assert_eq!(
                (g.grid(), g.to_move(), g.log().len()),
                (before, to_move, log)
            );
            return;
        }
        g.play_move(mv)
            .unwrap_or_else(|e| panic!("play {} {p:?}: {e}", k + 1));
        assert_eq!(g.grid(), positions[k + 1]);
    }
    panic!("no play was refused");
}

/// `Game::shrink_to_fit` gives back reserved room and changes nothing else: a game shrunk after every turn
/// allows exactly the moves of one never shrunk, and ends the same, through superko refusals and voids alike.
#[test]
fn a_shrunk_game_judges_as_before() {
    for preset in ["chinese", "japanese", "tromp-taylor"] {
        for seed in 0..20u64 {
            let mut plain = game(preset);
            let mut shrunk = plain.clone();
            shrunk.shrink_to_fit();
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for _ in 0..200 {
                if plain.phase() != Phase::Playing {
                    break;
                }
                let legal = plain.legal_moves();
                assert_eq!(shrunk.legal_moves(), legal, "{preset} seed {seed}");
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mv = legal[(x % legal.len() as u64) as usize];
                assert_eq!(
                    plain.play_move(mv),
                    shrunk.play_move(mv),
                    "{preset} seed {seed}"
                );
                shrunk.shrink_to_fit();
            }
            assert_eq!(plain.phase(), shrunk.phase());
            assert_eq!(
                plain.result().map(|r| r.to_string()),
                shrunk.result().map(|r| r.to_string()),
                "{preset} seed {seed}"
            );
            assert_eq!(plain.grid(), shrunk.grid());
        }
    }
}
