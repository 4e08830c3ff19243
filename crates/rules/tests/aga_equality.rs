//! RULES.md §4: with the AGA rules on, a Board Game Arena game gives the same margin under area (`chinese`) and
//! territory (`japanese`) counting — pass stones, White passing last and the n−1 handicap bonus make up for the
//! difference — on random finished games, handicap games and disputes included. With the AGA rules off, a stone
//! played inside one's own territory costs a point under territory counting only.

use tesuji_rules::result::{GameResult, Outcome};
use tesuji_rules::{Action, Color, Game, Grid, Move, Phase, Point, Rules};

fn rules(spec: &str) -> Rules {
    spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"))
}

mod common;

use common::Rng;

/// Test-specific draws on the shared generator.
trait Draws {
    fn color(&mut self) -> Color;
}

impl Draws for Rng {
    fn color(&mut self) -> Color {
        if self.chance(50) {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// What happened in the random games, to make sure the test exercised what it claims to.
#[derive(Default, Debug)]
struct Seen {
    games: u32,
    handicap_games: u32,
    with_captures: u32,
    with_dead: u32,
    disputes: u32,
    ended_by_resumption_passes: u32,
    pass_stones: u32,
}

/// A random turn for the player to move: a legal play that does not fill an own eye (libEGO's test), sometimes a
/// pass, and always a pass once `limit` turns have been made or no such play is left.
fn random_turn(game: &mut Game, rng: &mut Rng, pass_percent: usize, limit: u32) {
    let me = game.to_move();
    let board = game.board();
    let plays: Vec<Move> = game
        .legal_moves()
        .into_iter()
        .filter(|m| match m {
            Move::Play(p) => !board.is_eyelike(me, board.idx(*p)),
            Move::Pass => false,
        })
        .collect();
    let mv = if plays.is_empty() || game.turns() >= limit || rng.chance(pass_percent) {
        Move::Pass
    } else {
        plays[rng.below(plays.len())]
    };
    game.play(me, mv)
        .unwrap_or_else(|e| panic!("{me} {mv:?} refused: {e}\n{game:?}"));
}

/// A random set of whole chains: each chain is marked (through one of its points) with the given chance.
fn random_dead(game: &Game, rng: &mut Rng, percent: usize) -> Vec<Point> {
    let grid = game.grid();
    let size = grid.size();
    let mut seen = vec![false; size.area()];
    let mut dead = Vec::new();
    for p in size.points() {
        if grid.get(p).is_none() || seen[size.index(p)] {
            continue;
        }
        for q in grid.chain(p) {
            seen[size.index(q)] = true;
        }
        if rng.chance(percent) {
            dead.push(p);
        }
    }
    dead
}

/// Plays a random game to its end under `rules`: random turns, then in the dead-stone phase random proposals,
/// sometimes a dispute (at most `max_disputes`), otherwise both players accept.
fn random_game(rules: Rules, rng: &mut Rng, max_disputes: u32, seen: &mut Seen) -> Game {
    let mut game = Game::new(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
    let limit = 3 * rules.size.area() as u32;
    let pass_percent = 1 + rng.below(4);
    let mut disputes = 0;
    let mut steps = 0;
    while game.phase() != Phase::Over {
        steps += 1;
        assert!(steps < 20 * limit, "the game does not end\n{game:?}");
        match game.phase() {
            Phase::Playing => {
                // Right after a dispute, sometimes both pass at once (§6.4).
                let passes = if game.disputed() && rng.chance(10) {
                    100
                } else {
                    pass_percent
                };
                random_turn(&mut game, rng, passes, limit + 60 * disputes);
            }
            Phase::Marking => {
                let dead = random_dead(&game, rng, 25);
                game.propose(rng.color(), &dead).unwrap();
                if rng.chance(30) {
                    // A counter-proposal replaces the first.
                    let dead = random_dead(&game, rng, 15);
                    game.propose(rng.color(), &dead).unwrap();
                }
                if disputes < max_disputes && rng.chance(40) {
                    game.dispute(rng.color()).unwrap();
                    assert_eq!(game.phase(), Phase::Playing);
                    disputes += 1;
                } else {
                    let first = rng.color();
                    game.accept(first).unwrap();
                    assert_eq!(game.phase(), Phase::Marking, "one acceptance ends nothing");
                    game.accept(first.opponent()).unwrap();
                }
            }
            Phase::Over => {}
        }
    }
    seen.games += 1;
    seen.handicap_games += rules.has_handicap() as u32;
    seen.with_captures += (game.captures() != [0, 0]) as u32;
    seen.disputes += disputes;
    seen.pass_stones += game.pass_stones().iter().sum::<u32>();
    let last_accept = matches!(game.log().last(), Some(Action::Accept(_)));
    seen.ended_by_resumption_passes += !last_accept as u32;
    if last_accept && !game.dead_stones().is_empty() {
        seen.with_dead += 1;
    }
    game
}

/// The same actions replayed under other rules.
fn replay(rules: Rules, log: &[Action]) -> Game {
    let mut game = Game::new(rules).unwrap_or_else(|e| panic!("{rules}: {e}"));
    for a in log {
        game.apply_action(a.clone())
            .unwrap_or_else(|e| panic!("{rules}: {a:?} refused on replay: {e}\n{game:?}"));
    }
    assert_eq!(game.phase(), Phase::Over, "{rules}: replay did not end");
    game
}

fn counted(game: &Game) -> GameResult {
    let r = *game.result().expect("a finished game has a result");
    assert_eq!(r.outcome, Outcome::Score, "{game:?}");
    r
}

const KOMI_OPTIONS: [&str; 12] = [
    "none", "normal", "big", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9",
];

/// Plays random games under area counting with the AGA rules on and checks that territory counting gives the
/// same margin (and the same winner) for the same moves and the same dead stones.
fn check_equality(max_disputes: u32, games_per_table: u32, seed: u64) -> Seen {
    let mut rng = Rng(seed);
    let mut seen = Seen::default();
    for size in [9, 13] {
        for komi in KOMI_OPTIONS {
            let area = rules(&format!(
                "bga:size={size},counting=chinese,komi={komi},aga=on"
            ));
            let territory = rules(&format!(
                "bga:size={size},counting=japanese,komi={komi},aga=on"
            ));
            for _ in 0..games_per_table {
                let game = random_game(area, &mut rng, max_disputes, &mut seen);
                let a = counted(&game);
                let t = counted(&replay(territory, game.log()));
                assert_eq!(
                    a.margin,
                    t.margin,
                    "komi={komi}: area {a} vs territory {t}\n{:?}\n{:?}\nlog {:?}",
                    a.score,
                    t.score,
                    game.log()
                );
                assert_eq!(a.winner, t.winner);
                assert_eq!(a.to_string(), t.to_string());
                // And the area game is itself the same whichever counting it was generated under.
                let again = counted(&replay(area, game.log()));
                assert_eq!(again.margin, a.margin);
            }
        }
    }
    seen
}

#[test]
fn area_and_territory_margins_agree_with_aga_rules() {
    let seen = check_equality(0, 20, 0xA6A_0001);
    assert_eq!(seen.games, 480);
    assert_eq!(seen.handicap_games, 320);
    assert!(seen.with_captures > 400, "{seen:?}");
    assert!(seen.with_dead > 200, "{seen:?}");
    assert!(seen.pass_stones > 480, "{seen:?}");
}

#[test]
fn disputes_keep_the_equality() {
    let seen = check_equality(3, 20, 0xA6A_0002);
    assert!(seen.disputes > 120, "{seen:?}");
    assert!(seen.ended_by_resumption_passes > 0, "{seen:?}");
    assert!(seen.with_dead > 100, "{seen:?}");
}

/// A handicap game, by hand: White's n−1 bonus under area counting is what the territory count gets from
/// Black having made one play fewer than the stones Black has on the board.
#[test]
fn handicap_bonus_is_n_minus_one_under_area_only() {
    for n in 2..=9u8 {
        let area = rules(&format!("bga:size=9,counting=chinese,komi=h{n},aga=on"));
        let territory = rules(&format!("bga:size=9,counting=japanese,komi=h{n},aga=on"));
        assert_eq!(area.handicap_bonus_half_points(), 2 * (n as i32 - 1));
        assert_eq!(territory.handicap_bonus_half_points(), 0);
        // White passes, Black passes: play ends; nothing dead.
        let mut log = vec![
            Action::Turn(Color::White, Move::Pass),
            Action::Turn(Color::Black, Move::Pass),
            Action::Accept(Color::Black),
            Action::Accept(Color::White),
        ];
        let a = counted(&replay(area, &log));
        let t = counted(&replay(territory, &log));
        // Area: n stones and 81 − n territory for Black; White n−1 and 0.5 komi.
        assert_eq!(a.margin, 2 * 81 - 2 * (n as i32 - 1) - 1, "h{n}");
        assert_eq!(a.margin, t.margin, "h{n}");
        // One more exchange of passes after a dispute changes nothing.
        log.truncate(2);
        log.push(Action::Dispute(Color::White));
        log.push(Action::Turn(Color::White, Move::Pass));
        log.push(Action::Turn(Color::Black, Move::Pass));
        let a2 = counted(&replay(area, &log));
        let t2 = counted(&replay(territory, &log));
        assert_eq!((a2.margin, t2.margin), (a.margin, t.margin), "h{n}");
    }
}

// ---------------------------------------------------------------------------------------------------------------
// AGA rules off (§4, last paragraph): a stone inside one's own territory costs a point under territory counting,
// not under area counting.

/// Black owns the four columns on the left (36 points), White the three on the right (27).
const WALLS: &str = "
    ....XO...
    ....XO...
    ....XO...
    ....XO...
    ....XO...
    ....XO...
    ....XO...
    ....XO...
    ....XO...";

/// The margins (area, territory) of a game from [`WALLS`] with these turns, both players accepting no dead
/// stones, under `bga` 9×9 with `komi=none` and the AGA option given.
fn walls_margins(aga: &str, turns: &[(Color, Move)]) -> (i32, i32) {
    let grid = Grid::from_diagram(WALLS).unwrap();
    let mut out = [0; 2];
    for (k, counting) in ["chinese", "japanese"].into_iter().enumerate() {
        let r = rules(&format!(
            "bga:size=9,counting={counting},komi=none,aga={aga}"
        ));
        let mut game = Game::from_position(r, &grid, Color::Black).unwrap();
        for &(c, m) in turns {
            game.play(c, m)
                .unwrap_or_else(|e| panic!("{c} {m:?}: {e}\n{game:?}"));
        }
        assert_eq!(game.phase(), Phase::Marking, "{game:?}");
        game.accept(Color::Black).unwrap();
        game.accept(Color::White).unwrap();
        out[k] = counted(&game).margin;
    }
    (out[0], out[1])
}

#[test]
fn without_aga_rules_a_stone_in_own_territory_costs_a_point_under_territory_only() {
    let pass = Move::Pass;
    let a1 = Move::Play(Point::new(0, 8));
    let j9 = Move::Play(Point::new(8, 0));
    let (b, w) = (Color::Black, Color::White);

    // Both pass at once: Black 9 + 36, White 9 + 27; komi 0.5.
    let base = walls_margins("off", &[(b, pass), (w, pass)]);
    assert_eq!(base, (2 * 9 - 1, 2 * 9 - 1));

    // Black fills a point of its own territory first.
    let filled = walls_margins("off", &[(b, a1), (w, pass), (b, pass)]);
    assert_eq!(
        filled.0, base.0,
        "area counting: the stone replaces the point"
    );
    assert_eq!(filled.1, base.1 - 2, "territory counting: one point lost");
    assert_ne!(filled.0, filled.1, "the two countings now disagree");

    // White does the same: the territory margin moves the other way.
    let white_filled = walls_margins("off", &[(b, pass), (w, j9), (b, pass), (w, pass)]);
    assert_eq!(white_filled.0, base.0);
    assert_eq!(white_filled.1, base.1 + 2);

    // With the AGA rules on, the pass stones pay for it: both countings agree and nothing changes.
    let on_base = walls_margins("on", &[(b, pass), (w, pass)]);
    let on_filled = walls_margins("on", &[(b, a1), (w, pass), (b, pass)]);
    assert_eq!(on_base, (2 * 9 - 1, 2 * 9 - 1));
    assert_eq!(on_filled, on_base);
    let on_white_filled = walls_margins("on", &[(b, pass), (w, j9), (b, pass), (w, pass)]);
    assert_eq!(on_white_filled, on_base);
}

/// The same, found in random games: with the AGA rules off, area and territory margins differ in some finished
/// games (while with them on they never do, above).
#[test]
fn without_aga_rules_the_countings_differ_in_random_games() {
    let mut rng = Rng(0x0FF);
    let mut seen = Seen::default();
    let mut differ = 0;
    for komi in ["none", "h3"] {
        let area = rules(&format!("bga:size=9,counting=chinese,komi={komi},aga=off"));
        let territory = rules(&format!("bga:size=9,counting=japanese,komi={komi},aga=off"));
        for _ in 0..10 {
            let game = random_game(area, &mut rng, 0, &mut seen);
            let a = counted(&game);
            let t = counted(&replay(territory, game.log()));
            differ += (a.margin != t.margin) as u32;
        }
    }
    assert!(differ > 0, "AGA off: every random game agreed");
}
