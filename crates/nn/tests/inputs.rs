//! The V7 inputs against KataGo 1.17.2's own: for each position below, every plane and global value that
//! KataGo's `NNInputs::fillRowV7` computed (a throwaway program linked against KataGo's objects, with the
//! history its GTP engine builds: the set-up stones placed row by row, then `play` for each turn, the cleanup
//! phase prevented, default evaluation knobs). Then: no game of any size or state makes the encoder panic,
//! and the planes always agree with the board.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use tesuji_nn::inputs::{EncodeOptions, Features, GLOBAL_FEATURES, SPATIAL_FEATURES, encode};
use tesuji_nn::katarules::KataRules;
use tesuji_rules::{Action, Color, Game, Move, Phase, Placement, Preset, Rules, Size, SuicideRule};

struct Fixture {
    name: &'static str,
    /// Our rules, as a spec string.
    spec: &'static str,
    /// The game's actions, each `COLOUR TEXT`.
    actions: &'static str,
    /// KataGo's rules: one of its names, or `ours` for [`KataRules::from_rules`].
    katago: &'static str,
    komi: i32,
    conservative_pass: bool,
    /// KataGo's planes: the points of each (GTP vertices), `all` for every point.
    planes: [&'static str; SPATIAL_FEATURES],
    global: [f32; GLOBAL_FEATURES],
}

fn replay(spec: &str, actions: &str) -> Game {
    let rules: Rules = spec.parse().unwrap();
    let mut game = Game::new(rules).unwrap();
    for a in actions.split(';').map(str::trim).filter(|a| !a.is_empty()) {
        let (color, text) = a.split_once(' ').unwrap();
        let action = Action::parse(color.parse().unwrap(), text, rules.size).unwrap();
        game.apply_action(action).unwrap();
    }
    game
}

fn points(f: &Features, feature: usize, size: Size) -> String {
    let on: Vec<String> = size
        .points()
        .filter(|p| f.at(feature, p.x as usize, p.y as usize) == 1.0)
        .map(|p| p.to_gtp(size))
        .collect();
    on.join(" ")
}

#[test]
fn katago_computes_the_same_inputs() {
    for fx in FIXTURES {
        let game = replay(fx.spec, fx.actions);
        let rules = match fx.katago {
            "ours" => KataRules::from_rules(game.rules()),
            name => KataRules::from_name(name).unwrap(),
        };
        let options = EncodeOptions {
            conservative_pass: fx.conservative_pass,
            ..EncodeOptions::default()
        };
        let f = encode(&game, &rules, fx.komi, &options);
        let size = game.rules().size;
        for (feature, &want) in fx.planes.iter().enumerate() {
            if want == "all" {
                assert!(
                    size.points()
                        .all(|p| f.at(feature, p.x as usize, p.y as usize) == 1.0)
                );
            } else {
                assert_eq!(
                    points(&f, feature, size),
                    want,
                    "{}: plane {feature}",
                    fx.name
                );
            }
        }
        assert_eq!(f.global, fx.global, "{}: global values", fx.name);
        // Every value is exactly 0 or 1 in the planes.
        assert!(f.spatial.iter().all(|&v| v == 0.0 || v == 1.0));
    }
}

/// A random game of `rules`: plays, passes, and past the end of play disputes or marking, stopped anywhere;
/// sometimes from a set-up position (one such game reached, given to a new game).
fn random_game(rng: &mut Pcg64Mcg, rules: Rules, turns: usize) -> Option<Game> {
    let mut game = Game::new(rules).ok()?;
    if rng.random_range(0..5) == 0 {
        let before = random_game(rng, rules, turns / 2)?;
        let plain = Rules {
            handicap: 0,
            ..rules
        };
        let to_move = [Color::Black, Color::White][rng.random_range(0..2)];
        game = Game::from_position(plain, &before.grid(), to_move).ok()?;
    }
    for _ in 0..turns {
        match game.phase() {
            Phase::Over => break,
            Phase::Marking => match rng.random_range(0..3) {
                0 => break,
                1 => {
                    let c = game.to_move();
                    game.dispute(c).ok()?;
                }
                _ => {
                    let c = game.to_move();
                    game.accept(c).ok()?;
                    game.accept(c.opponent()).ok()?;
                }
            },
            Phase::Playing => {
                if rng.random_range(0..200) == 0 {
                    game.resign(game.to_move()).ok()?;
                    break;
                }
                let legal = game.legal_moves();
                let plays: Vec<Move> = legal
                    .iter()
                    .copied()
                    .filter(|m| matches!(m, Move::Play(_)))
                    .collect();
                let mv = if plays.is_empty()
                    || (legal.contains(&Move::Pass) && rng.random_range(0..12) == 0)
                {
                    Move::Pass
                } else {
                    plays[rng.random_range(0..plays.len())]
                };
                game.play_move(mv).ok()?;
            }
        }
    }
    Some(game)
}

/// The planes that follow from the position alone agree with it.
fn check_board(game: &Game, f: &Features) {
    let size = game.rules().size;
    let (w, h) = (size.width() as usize, size.height() as usize);
    assert_eq!((f.width, f.height), (w, h));
    assert_eq!(f.spatial.len(), SPATIAL_FEATURES * w * h);
    let me = game.to_move();
    for p in size.points() {
        let (x, y) = (p.x as usize, p.y as usize);
        assert_eq!(f.at(0, x, y), 1.0);
        let stone = game.board().get(p);
        assert_eq!(f.at(1, x, y) == 1.0, stone == Some(me));
        assert_eq!(f.at(2, x, y) == 1.0, stone == Some(me.opponent()));
        let libs = game.board().liberties(p);
        for (feature, n) in [(3, 1), (4, 2), (5, 3)] {
            assert_eq!(f.at(feature, x, y) == 1.0, stone.is_some() && libs == n);
        }
        assert!(
            f.at(14, x, y) == 0.0 || stone.is_some(),
            "only stones are laddered"
        );
        assert!(
            f.at(17, x, y) == 0.0 || stone.is_none(),
            "working moves are empty points"
        );
        assert!(
            f.at(6, x, y) == 0.0 || stone.is_none(),
            "bans are on empty points"
        );
        assert!(f.at(18, x, y) + f.at(19, x, y) <= 1.0);
        for feature in [7, 8, 20, 21] {
            assert_eq!(f.at(feature, x, y), 0.0, "no cleanup phase");
        }
    }
    assert!(f.global.iter().all(|v| v.is_finite()));
    let area = (w * h) as f32;
    assert!(f.global[5].abs() <= (area + 20.0) / 20.0);
}

#[test]
fn every_game_encodes_without_panicking() {
    let mut rng = Pcg64Mcg::seed_from_u64(2024);
    let presets = [
        Preset::TrompTaylor,
        Preset::Ideal,
        Preset::Aga,
        Preset::Chinese,
        Preset::Japanese,
        Preset::Korean,
        Preset::NewZealand,
    ];
    let names = [
        "tromp-taylor",
        "chinese",
        "chinese-ogs",
        "japanese",
        "aga",
        "aga-button",
        "new-zealand",
        "stone-scoring",
        "ancient-territory",
    ];
    let mut games = 0;
    while games < 400 {
        let mut rules = Rules::preset(presets[rng.random_range(0..presets.len())]);
        let (w, h) = match rng.random_range(0..4) {
            0 => (rng.random_range(1..=4), rng.random_range(1..=4)),
            1 => (rng.random_range(1..=25), rng.random_range(1..=25)),
            _ => {
                let s = [5, 9, 13, 19, 25][rng.random_range(0..5)];
                (s, s)
            }
        };
        let Some(size) = Size::new(w, h) else {
            continue;
        };
        rules.size = size;
        rules.suicide =
            [SuicideRule::Forbidden, SuicideRule::Multi, SuicideRule::All][rng.random_range(0..3)];
        if rng.random_range(0..4) == 0 {
            rules.handicap = rng.random_range(2..=9);
            rules.placement =
                [Placement::Fixed, Placement::Free, Placement::Passes][rng.random_range(0..3)];
        }
        let turns = rng.random_range(0..=3 * size.area() + 10);
        let Some(game) = random_game(&mut rng, rules, turns) else {
            continue;
        };
        games += 1;
        let katago = match rng.random_range(0..2) {
            0 => KataRules::from_rules(game.rules()),
            _ => KataRules::from_name(names[rng.random_range(0..names.len())]).unwrap(),
        };
        let options = EncodeOptions {
            conservative_pass: rng.random_range(0..4) == 0,
            enable_passing_hacks: rng.random_range(0..4) == 0,
            pass_alive_as_if_suicide_legal: rng.random_range(0..4) == 0,
            ..EncodeOptions::default()
        };
        let komi = rng.random_range(-2000..=2000);
        let f = encode(&game, &katago, komi, &options);
        check_board(&game, &f);
    }
}

#[test]
fn the_player_to_move_is_the_games() {
    // Black to place a second free handicap stone: KataGo would start its history over for Black.
    let game = replay("chinese:size=9,handicap=3", "B C3");
    assert_eq!(game.to_move(), Color::Black);
    let f = encode(
        &game,
        &KataRules::from_name("chinese").unwrap(),
        1,
        &EncodeOptions::default(),
    );
    assert_eq!(points(&f, 1, game.rules().size), "C3");
    assert_eq!(
        points(&f, 9, game.rules().size),
        "",
        "no history after the restart"
    );
}

const FIXTURES: &[Fixture] = &[
    Fixture {
        name: "positional superko bans",
        spec: "tromp-taylor:size=3,suicide=multi",
        actions: "B A1; W C2; B C1; W B3; B B1; W A2; B B2; W C1; B A1; W B2; B B1; W C3; B A1; W B1; B pass; W A3; B pass; W pass",
        katago: "ours",
        komi: 15,
        conservative_pass: false,
        planes: [
            "all",
            "",
            "A3 B3 C3 A2 B2 C2 B1 C1",
            "A3 B3 C3 A2 B2 C2 B1 C1",
            "",
            "",
            "A1",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "A3 B3 C3 A2 B2 C2 B1 C1",
            "A3 B3 C3 A2 B2 C2 B1 C1",
            "A3 B3 C3 A2 B2 C2 B1 C1",
            "",
            "",
            "A3 B3 C3 A2 B2 C2 A1 B1 C1",
            "",
            "",
        ],
        global: [
            1.0, 0.0, 0.0, 0.0, 0.0, -0.375, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
            0.0, -0.5,
        ],
    },
    Fixture {
        name: "situational superko bans",
        spec: "new-zealand:size=4x3",
        actions: "B C3; W pass; B pass; W dispute; W C2; B B3; W pass; B D1; W D2; B B2; W pass; B D3; W A2; B B1; W C1; B A1; W D1; B A3; W pass; B C1; W C2; B D1; W D2; B pass; W D2; B A2; W C2; B D3; W A2; B B3; W D1; B C3; W B1; B B2; W C1; B A3; W D3; B B2; W B3; B pass; W A1; B pass; W B2; B pass; W A3; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass; B dispute; B pass; W pass",
        katago: "ours",
        komi: 14,
        conservative_pass: false,
        planes: [
            "all",
            "",
            "A3 B3 D3 A2 B2 C2 D2 A1 B1 C1 D1",
            "A3 B3 D3 A2 B2 C2 D2 A1 B1 C1 D1",
            "",
            "",
            "C3",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "A3 B3 D3 A2 B2 C2 D2 A1 B1 C1 D1",
            "A3 B3 D3 A2 B2 C2 D2 A1 B1 C1 D1",
            "A3 B3 D3 A2 B2 C2 D2 A1 B1 C1 D1",
            "",
            "",
            "A3 B3 C3 D3 A2 B2 C2 D2 A1 B1 C1 D1",
            "",
            "",
        ],
        global: [
            1.0, 0.0, 0.0, 0.0, 0.0, -0.35, 1.0, -0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "a third repetition under simple ko ends the game",
        spec: "japanese:size=3",
        actions: "B C1; W A2; B A1; W B3; B B2; W pass; B C3; W B1; B A3; W C2; B A1; W B3; B C1; W A2; B C3; W B1; B A3; W C2; B A1; W B3; B C1; W A2; B C3",
        katago: "japanese",
        komi: 13,
        conservative_pass: false,
        planes: [
            "all",
            "B3 A2",
            "C3 B2 A1 C1",
            "B3 C3 A2 A1",
            "B2 C1",
            "",
            "C2",
            "",
            "",
            "C3",
            "",
            "",
            "",
            "",
            "C1",
            "A1 C1",
            "A1 C1",
            "B1",
            "",
            "",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.425, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "a pass from a position passed from before ends the phase",
        spec: "chinese:size=3,ko=simple",
        actions: "B A3; W A1; B C2; W C3; B C1; W B3; B B2; W B1; B B3; W pass; B C3; W A2; B C1; W C3; B B3; W C2; B B2; W C1; B pass; W A3; B B2; W B3; B B2; W pass; B A1; W pass; B A3; W B1; B B3; W C1; B pass; W C3; B pass; W pass; B dispute; B A2; W C2; B pass; W pass; B dispute; B B2; W A1; B A2; W pass; B pass; W dispute; W A3; B pass; W B3; B pass; W A2; B B2",
        katago: "chinese",
        komi: 15,
        conservative_pass: false,
        planes: [
            "all",
            "",
            "B2",
            "",
            "",
            "",
            "",
            "",
            "",
            "B2",
            "A2",
            "",
            "B3",
            "",
            "",
            "A3 B3 C3 A2 C2 A1 B1 C1",
            "A3 B3 C3 C2 A1 B1 C1",
            "",
            "",
            "A3 B3 C3 A2 B2 C2 A1 B1 C1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 1.0, 0.0, 1.0, 0.375, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
            0.0, 0.5,
        ],
    },
    Fixture {
        name: "two passes end an area game",
        spec: "tromp-taylor:size=5,suicide=multi",
        actions: "B D2; W B5; B C1; W A3; B A2; W C4; B pass; W C2; B pass; W A4; B E5; W E3; B pass; W C5; B C3; W E4; B pass; W E1; B pass; W D4; B A1; W D1; B pass; W D3; B B3; W B2; B B4; W C3; B B4; W D5; B pass; W pass",
        katago: "tromp-taylor",
        komi: 7,
        conservative_pass: false,
        planes: [
            "all",
            "B4 A2 D2 A1 C1",
            "B5 C5 D5 A4 C4 D4 E4 A3 C3 D3 E3 B2 C2 D1 E1",
            "B4 A2 D2 A1 C1 D1 E1",
            "A4 A3",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "B4 A2 D2 A1 C1",
            "B4 A2 D2 A1 C1",
            "B4 A2 D2 A1 C1",
            "",
            "A2 D2 A1 C1",
            "A5 B5 C5 D5 E5 A4 B4 C4 D4 E4 A3 B3 C3 D3 E3 B2 C2 D1 E1",
            "",
            "",
        ],
        global: [
            1.0, 0.0, 0.0, 0.0, 0.0, -0.175, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
            0.0, -0.5,
        ],
    },
    Fixture {
        name: "one pass under friendly passing",
        spec: "chinese:size=5",
        actions: "B A2; W C2; B A4; W C4; B D4; W E2; B pass; W C5; B E1; W pass; B E3; W A5; B C1; W B2; B B4; W E5; B D3; W A1; B D2; W pass",
        katago: "chinese",
        komi: 15,
        conservative_pass: false,
        planes: [
            "all",
            "A4 B4 D4 D3 E3 A2 D2 C1 E1",
            "A5 C5 E5 C4 B2 C2 A1",
            "A5 A2 A1",
            "E5 C1 E1",
            "C5 A4 B4 C4 B2 C2",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "A5 E5",
            "A5 E5",
            "A5 E5",
            "D5 E4",
            "A4 B4 D4 D3 E3 A2 D2 E2 C1 D1 E1",
            "A5 C5 E5 C4 B2 C2 A1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, -0.375, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, -0.5,
        ],
    },
    Fixture {
        name: "territory play resumed after two passes",
        spec: "japanese:size=5",
        actions: "B pass; W E4; B C4; W B3; B C1; W E5; B D5; W D1; B E2; W pass; B C3; W A4; B B1; W C5; B D2; W B2; B D3; W B4; B A3; W pass; B pass; W dispute; W pass; B A2; W B5; B E3; W D4; B E1; W A5; B D5; W A1; B A2; W E5; B pass; W C2",
        katago: "japanese",
        komi: 13,
        conservative_pass: false,
        planes: [
            "all",
            "D5 C4 C3 D3 E3 A2 D2 E2 B1 C1 E1",
            "A5 B5 C5 E5 A4 B4 B3 B2 C2",
            "A5 B5 C5 D5 E5 A4 B4 B3 B2 C2",
            "A2 B1 C1",
            "C4 C3 D3 E3 D2 E2 E1",
            "",
            "",
            "",
            "C2",
            "",
            "E5",
            "A2",
            "A1",
            "",
            "E5",
            "E5",
            "",
            "",
            "",
            "",
            "",
        ],
        global: [
            0.0, 1.0, 0.0, 0.0, 0.0, -0.325, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "fixed handicap under aga",
        spec: "aga:size=9,handicap=4",
        actions: "W E3; B D7; W B4; B J4",
        katago: "aga",
        komi: 0,
        conservative_pass: false,
        planes: [
            "all",
            "B4 E3",
            "C7 D7 G7 J4 C3 G3",
            "",
            "",
            "J4",
            "",
            "",
            "",
            "J4",
            "B4",
            "D7",
            "E3",
            "",
            "",
            "",
            "",
            "",
            "B4 E3",
            "C7 D7 G7 J4 C3 G3",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.15, 1.0, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "free handicap being placed",
        spec: "chinese:size=9,handicap=3",
        actions: "B B8",
        katago: "chinese",
        komi: 1,
        conservative_pass: false,
        planes: [
            "all",
            "B8",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "A9 B9 C9 D9 E9 F9 G9 H9 J9 A8 B8 C8 D8 E8 F8 G8 H8 J8 A7 B7 C7 D7 E7 F7 G7 H7 J7 A6 B6 C6 D6 E6 F6 G6 H6 J6 A5 B5 C5 D5 E5 F5 G5 H5 J5 A4 B4 C4 D4 E4 F4 G4 H4 J4 A3 B3 C3 D3 E3 F3 G3 H3 J3 A2 B2 C2 D2 E2 F2 G2 H2 J2 A1 B1 C1 D1 E1 F1 G1 H1 J1",
            "",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, -0.025, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.5,
        ],
    },
    Fixture {
        name: "free handicap placed",
        spec: "chinese:size=9,handicap=3",
        actions: "B A2; B E1; B G1; W C3; B G3",
        katago: "chinese",
        komi: 1,
        conservative_pass: false,
        planes: [
            "all",
            "C3",
            "G3 A2 E1 G1",
            "",
            "",
            "A2 E1 G1",
            "",
            "",
            "",
            "G3",
            "C3",
            "G1",
            "",
            "",
            "",
            "",
            "",
            "",
            "C3",
            "G3 A2 E1 G1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.175, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.5,
        ],
    },
    Fixture {
        name: "handicap by white passes",
        spec: "ideal:size=9,handicap=3",
        actions: "B A6; W pass; B J9; W pass; B B2; W C1; B G5; W D8",
        katago: "ours",
        komi: 0,
        conservative_pass: false,
        planes: [
            "all",
            "J9 A6 G5 B2",
            "D8 C1",
            "",
            "J9",
            "A6 C1",
            "",
            "",
            "",
            "D8",
            "G5",
            "C1",
            "B2",
            "",
            "J9",
            "J9",
            "J9",
            "",
            "J9 A6 G5 B2",
            "D8 C1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 1.0, -0.0, 1.0, -0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "the button taken by a pass",
        spec: "aga:size=5",
        actions: "B E3; W B5; B B4; W pass; B C2; W A1; B D4; W D2; B E2; W E4; B C1; W E5; B B3; W A5; B A3; W pass; B A4; W C5; B pass",
        katago: "aga-button",
        komi: 14,
        conservative_pass: false,
        planes: [
            "all",
            "A5 B5 C5 E5 E4 D2 A1",
            "A4 B4 D4 A3 B3 E3 C2 E2 C1",
            "E5 E4",
            "A5 B5 C5 E3 D2 E2 A1",
            "D4",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "A5 B5 C5 E5 E4 D2 A1",
            "A5 B5 C5 E5 E4 D2 A1",
            "A5 B5 C5 E5 E4 D2 A1",
            "",
            "A5 B5 C5 E5 E4 D2 A1",
            "A4 B4 D4 A3 B3 E3 C2 E2 C1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.375, 1.0, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.5,
        ],
    },
    Fixture {
        name: "a rectangle under new zealand rules",
        spec: "new-zealand:size=7x5",
        actions: "B D4; W E3; B C1; W B4; B A4; W G3; B F4; W B3; B A3; W pass; B B1; W C5; B G1; W D2; B A1; W D5; B E5; W F5; B B2; W B5; B A5; W E1; B C3; W F1; B E2; W A2",
        katago: "new-zealand",
        komi: 14,
        conservative_pass: false,
        planes: [
            "all",
            "E5 D4 F4 C3 B2 E2 A1 B1 C1 G1",
            "B5 C5 D5 F5 B4 B3 E3 G3 A2 D2 E1 F1",
            "E5 F5 A2 E2 G1",
            "B2 A1 B1 C1 E1 F1",
            "D4 F4 C3 E3 G3 D2",
            "",
            "",
            "",
            "A2",
            "E2",
            "F1",
            "C3",
            "E1",
            "B2 E2 A1 B1 C1 G1",
            "E2 G1",
            "G1",
            "",
            "E5 D4 F4 C3 B2 E2 A1 B1 C1 G1",
            "A5 B5 C5 D5 F5 A4 B4 A3 B3 E3 G3 A2 D2 E1 F1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, -0.35, 1.0, -0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "komi clipped",
        spec: "tromp-taylor:size=4",
        actions: "B C2; W C1; B A3; W A1; B D2; W B2; B A2; W C3; B D1",
        katago: "tromp-taylor",
        komi: 200,
        conservative_pass: false,
        planes: [
            "all",
            "C3 B2 A1 C1",
            "A3 A2 C2 D2 D1",
            "C2 D2 A1 C1 D1",
            "A3 A2 B2",
            "C3",
            "",
            "",
            "",
            "D1",
            "C3",
            "A2",
            "B2",
            "D2",
            "A1",
            "B2 C2 D2 A1",
            "B2 A1 C1",
            "",
            "C3 B2 A1 B1 C1",
            "A3 A2 C2 D2 D1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 1.8, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "territory chilling with captures",
        spec: "korean:size=9",
        actions: "B H8; W A3; B F1; W A9; B B1; W B3; B F8; W G8; B B2; W H7; B J6; W D5; B E2; W E6; B J2; W A5; B C2; W E3; B A1; W F3; B C7; W F6; B H4; W F5; B G5; W F7; B E8; W D9; B D6; W B7; B B6; W D2; B C1; W F4; B G4; W J7; B E9; W J3; B J4; W B8; B D3; W E7; B C4; W E5; B J1; W J9; B H1; W C6; B F2; W J8; B E4; W G7; B B9; W A6; B H6; W B4; B D7; W F9; B H3; W A4; B J5; W B5; B G1; W A2; B H2; W A7; B G9; W G2; B F9; W A8; B E1; W H9; B J3; W D8",
        katago: "korean",
        komi: 13,
        conservative_pass: false,
        planes: [
            "all",
            "B9 C7 D7 D6 H6 J6 G5 J5 C4 E4 G4 H4 J4 D3 H3 J3 B2 C2 E2 F2 H2 J2 A1 B1 C1 E1 F1 G1 H1 J1",
            "A9 D9 H9 J9 A8 B8 D8 G8 J8 A7 B7 E7 F7 G7 H7 J7 A6 C6 E6 F6 A5 B5 D5 E5 F5 A4 B4 F4 A3 B3 E3 F3 A2 D2 G2",
            "B9 C7 D7 D6 E4 D2 G2",
            "C6 D3 B2 C2 A1 B1 C1",
            "C4",
            "",
            "",
            "",
            "D8",
            "J3",
            "H9",
            "E1",
            "A8",
            "B9 C7 D7 D6 D2",
            "B9 E9 F9 G9 E8 F8 C7 D7 D6 D2",
            "B9 E9 F9 G9 E8 F8 C7 D7 D6 D2",
            "",
            "",
            "",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, -0.325, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "stone scoring's group tax (data set 2)",
        spec: "tromp-taylor:size=9,ko=simple,suicide=multi",
        actions: "B c8; W e5; B c5; W f7; B g4; W e3; B c3; W g6; B f2; W h5; B e2; W h3; B f3; W f4; B e8; W f8; B d3; W e4; B g3; W h2; B h4; W j4; B g5; W h7; B e6; W e7; B d6; W d8; B d7; W e9; B c9; W f6; B f5; W g2; B d9",
        katago: "stone-scoring",
        komi: 19,
        conservative_pass: false,
        planes: [
            "all",
            "E9 D8 F8 E7 F7 H7 F6 G6 E5 H5 E4 F4 J4 E3 H3 G2 H2",
            "C9 D9 C8 D7 D6 E6 C5 F5 G5 G4 H4 C3 D3 F3 G3 E2 F2",
            "D8",
            "E9 E5 H5 E4 F4 J4 E3",
            "C9 D9 C8 D7 D6 E6 F5 G5 G4 H4 F3 G3 E2 F2",
            "",
            "",
            "",
            "D9",
            "G2",
            "F5",
            "F6",
            "C9",
            "E5 E4 F4 E3",
            "E5 E4 F4 E3",
            "E5 E4 F4 E3",
            "",
            "E9 D8 F8 E7 F7 H7 F6 G6 E5 H5 E4 F4 J4 E3 H3 G2 H2",
            "C9 D9 C8 D7 D6 E6 C5 F5 G5 G4 H4 C3 D3 F3 G3 E2 F2",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.475, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.5,
        ],
    },
    Fixture {
        name: "a tromp-taylor game over (data set 41)",
        spec: "tromp-taylor:size=9,ko=simple,suicide=multi",
        actions: "B g6; W c3; B c6; W f3; B e6; W g4; B h5; W h4; B b4; W b3; B c5; W a4; B a5; W a3; B c4; W d3; B j4; W j3; B j5; W h2; B g5; W f5; B f6; W e5; B d5; W d4; B pass; W pass",
        katago: "tromp-taylor",
        komi: 0,
        conservative_pass: false,
        planes: [
            "all",
            "C6 E6 F6 G6 A5 C5 D5 G5 H5 J5 B4 C4 J4",
            "E5 F5 A4 D4 G4 H4 A3 B3 C3 D3 F3 J3 H2",
            "",
            "A5 E5 F5 J3",
            "G4 H4",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "A9 B9 C9 D9 E9 F9 G9 H9 J9 A8 B8 C8 D8 E8 F8 G8 H8 J8 A7 B7 C7 D7 E7 F7 G7 H7 J7 A6 B6 C6 D6 E6 F6 G6 H6 J6 A5 B5 C5 D5 G5 H5 J5 B4 C4 J4",
            "E5 F5 A4 D4 E4 F4 G4 H4 A3 B3 C3 D3 E3 F3 G3 H3 J3 A2 B2 C2 D2 E2 F2 G2 H2 J2 A1 B1 C1 D1 E1 F1 G1 H1 J1",
            "",
            "",
        ],
        global: [
            1.0, 0.0, 0.0, 0.0, 0.0, -0.0, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "ladders on 9x9 (data set 56)",
        spec: "tromp-taylor:size=9,ko=simple,suicide=multi",
        actions: "B j5; W e5; B d6; W d5; B c6; W b4; B f7; W g5; B h6; W h4; B b5; W c5; B b6; W a4; B j4; W h2; B h3; W g3; B j3",
        katago: "japanese",
        komi: 1,
        conservative_pass: false,
        planes: [
            "all",
            "C5 D5 E5 G5 A4 B4 H4 G3 H2",
            "F7 B6 C6 D6 H6 B5 J5 J4 H3 J3",
            "",
            "H4",
            "J5 J4 G3 H3 J3 H2",
            "",
            "",
            "",
            "J3",
            "G3",
            "H3",
            "H2",
            "J4",
            "",
            "",
            "H4",
            "",
            "",
            "",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.075, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0,
        ],
    },
    Fixture {
        name: "ladders on 13x13 (data set 26)",
        spec: "tromp-taylor:size=13,ko=simple,suicide=multi",
        actions: "B n8; W n4; B l3; W l5; B h3; W c3; B e3; W d5; B c11; W f10; B c8; W j11; B f8; W e11; B l11; W e2; B d2; W d3; B f2; W e4; B f3; W c2; B e1; W g5; B d9; W j4; B j3; W j6; B j8; W k10; B l8; W l10; B m11; W c6; B m10; W h9; B j9; W j10; B h8; W g8; B g7; W g9; B e7; W b7; B b8; W d12; B c12; W k12; B h6; W h5; B a7; W a6; B a8; W e6; B d13; W e13; B c13; W c1; B c7; W b6; B k4; W k5; B l12; W n2; B m2; W f4; B m1; W g3; B g2; W l4; B m3; W n3; B n6; W n5; B m6; W k13; B d11; W e12; B e9; W d1; B g4; W h4; B k3; W f6; B f7; W g6; B h7; W e2; B f1; W l13",
        katago: "tromp-taylor",
        komi: 15,
        conservative_pass: false,
        planes: [
            "all",
            "C13 D13 C12 L12 C11 D11 L11 M11 M10 D9 E9 J9 A8 B8 C8 F8 H8 J8 L8 N8 A7 C7 E7 F7 G7 H7 H6 M6 N6 G4 K4 E3 F3 H3 J3 K3 L3 M3 F2 G2 M2 E1 F1 M1",
            "E13 K13 L13 D12 E12 K12 E11 J11 F10 J10 K10 L10 G9 H9 G8 B7 A6 B6 C6 E6 F6 G6 J6 D5 G5 H5 K5 L5 N5 E4 F4 H4 J4 L4 N4 C3 D3 N3 C2 E2 N2 C1 D1",
            "G4 E2",
            "",
            "G9 H9 G8 N8 J6 N5 E4 F4 N4 E3 F3 N3 F2 G2 N2 E1 F1",
            "",
            "",
            "",
            "L13",
            "F1",
            "E2",
            "H7",
            "G6",
            "",
            "",
            "",
            "",
            "C13 D13 C12 L12 C11 D11 L11 M11 M10 D9 E9 J9 A8 B8 C8 F8 H8 J8 L8 N8 A7 C7 E7 F7 G7 H7 H6 M6 N6 G4 K4 E3 F3 G3 H3 J3 K3 L3 M3 F2 G2 H2 J2 K2 L2 M2 E1 F1 G1 H1 J1 K1 L1 M1",
            "E13 F13 G13 H13 J13 K13 L13 D12 E12 F12 G12 H12 J12 K12 E11 F11 G11 H11 J11 F10 G10 H10 J10 K10 L10 G9 H9 G8 B7 A6 B6 C6 E6 F6 G6 J6 A5 B5 C5 D5 E5 F5 G5 H5 J5 K5 L5 N5 A4 B4 C4 D4 E4 F4 H4 J4 L4 N4 A3 B3 C3 D3 N3 A2 B2 C2 D2 E2 N2 A1 B1 C1 D1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, -0.375, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, -0.5,
        ],
    },
    Fixture {
        name: "two passes, conservative pass",
        spec: "tromp-taylor:size=5,suicide=multi",
        actions: "B D2; W B5; B C1; W A3; B A2; W C4; B pass; W C2; B pass; W A4; B E5; W E3; B pass; W C5; B C3; W E4; B pass; W E1; B pass; W D4; B A1; W D1; B pass; W D3; B B3; W B2; B B4; W C3; B B4; W D5; B pass",
        katago: "tromp-taylor",
        komi: 7,
        conservative_pass: true,
        planes: [
            "all",
            "B5 C5 D5 A4 C4 D4 E4 A3 C3 D3 E3 B2 C2 D1 E1",
            "B4 A2 D2 A1 C1",
            "B4 A2 D2 A1 C1 D1 E1",
            "A4 A3",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "B4 A2 D2 A1 C1",
            "B4 A2 D2 A1 C1",
            "B4 A2 D2 A1 C1",
            "",
            "A5 B5 C5 D5 E5 A4 B4 C4 D4 E4 A3 B3 C3 D3 E3 B2 C2 D1 E1",
            "A2 D2 A1 C1",
            "",
            "",
        ],
        global: [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.175, 1.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.5,
        ],
    },
];
