//! One game counted under every ruleset (`tesuji_rules::compare`): the counts agree where RULES.md says they
//! must (area counting is area counting; Board Game Arena with AGA rules gives both countings the same margin,
//! §4) and a move one ruleset refuses is named with its turn.

use tesuji_rules::compare::{COMPARED, Refused, count_under_all};
use tesuji_rules::{Color, Game, Grid, Illegal, Komi, Move, Phase, Point, Rules, Size};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as usize % n
    }
}

/// A random game under `chinese` (positional superko, no suicide: its plays are legal under every preset)
/// played to two passes; its turns.
fn random_game(size: Size, rng: &mut Rng) -> Vec<(Color, Move)> {
    let rules: Rules = format!("chinese:size={}", size.width()).parse().unwrap();
    let mut g = Game::new(rules).unwrap();
    let mut turns = Vec::new();
    while g.phase() == Phase::Playing && turns.len() < 3 * size.area() {
        let moves = g.legal_moves();
        // Mostly plays, so that stones are captured; passes now and then, always at the end.
        let mv = if turns.len() + 1 >= 3 * size.area() || rng.below(12) == 0 {
            Move::Pass
        } else {
            moves[rng.below(moves.len())]
        };
        let color = g.to_move();
        g.play(color, mv).unwrap();
        turns.push((color, mv));
    }
    while g.phase() == Phase::Playing {
        let color = g.to_move();
        g.play(color, Move::Pass).unwrap();
        turns.push((color, Move::Pass));
    }
    turns
}

fn margin_of(counted: &[tesuji_rules::compare::Counted], spec: &str) -> i32 {
    let c = counted.iter().find(|c| c.spec == spec).unwrap();
    let count = c
        .outcome
        .as_ref()
        .unwrap_or_else(|e| panic!("{spec}: {e:?}"));
    count
        .score
        .as_ref()
        .map(|s| s.margin())
        .unwrap_or_else(|| panic!("{spec}: no score"))
}

#[test]
fn counts_agree_where_the_rules_say_they_must() {
    let mut rng = Rng(0xC0FF_EE00_1234_5678);
    let size = Size::square(9).unwrap();
    let start = Grid::new(size);
    for _ in 0..30 {
        let turns = random_game(size, &mut rng);
        let counted = count_under_all(
            size,
            &start,
            Color::Black,
            &turns,
            Some(Komi::white(13)),
            0,
            &[],
        );
        assert_eq!(counted.len(), COMPARED.len());
        for c in &counted {
            assert!(c.outcome.is_ok(), "{}: {:?}", c.spec, c.outcome);
            assert_eq!(c.rules.map(|r| r.komi), Some(Komi::white(13)), "{}", c.spec);
        }
        // Area counting with every stone alive: Tromp-Taylor, Chinese, AGA, New Zealand and bga's Chinese
        // counting give one margin.
        let area = margin_of(&counted, "tromp-taylor");
        for spec in [
            "chinese",
            "aga",
            "new-zealand",
            "bga:counting=chinese,aga=on",
            "bga:counting=chinese,aga=off",
        ] {
            assert_eq!(margin_of(&counted, spec), area, "{spec}");
        }
        // §4: with AGA rules on, territory counting gives the same margin as area counting.
        assert_eq!(margin_of(&counted, "bga:counting=japanese,aga=on"), area);
        // Territory counting under the Japanese and Korean presets agrees with itself.
        assert_eq!(
            margin_of(&counted, "japanese"),
            margin_of(&counted, "korean")
        );
    }
}

#[test]
fn a_refused_move_is_named_and_other_boards_are_said_so() {
    // White's A1 removes A1 and B1: a two-stone suicide. Tromp-Taylor and the ideal rules (any suicide) and New
    // Zealand (multi-stone suicide) allow it; the presets that forbid suicide refuse turn 6.
    let size = Size::square(5).unwrap();
    let at = |v: &str| Move::Play(Point::from_gtp(v, size).unwrap());
    let turns = [
        (Color::Black, at("A2")),
        (Color::White, at("B1")),
        (Color::Black, at("B2")),
        (Color::White, Move::Pass),
        (Color::Black, at("C1")),
        (Color::White, at("A1")),
        (Color::Black, Move::Pass),
        (Color::White, Move::Pass),
    ];
    let counted = count_under_all(size, &Grid::new(size), Color::Black, &turns, None, 0, &[]);
    for c in &counted {
        match c.spec {
            "tromp-taylor" | "ideal" | "new-zealand" => {
                assert!(c.outcome.is_ok(), "{}: {:?}", c.spec, c.outcome)
            }
            s if s.starts_with("bga") => assert_eq!(c.outcome, Err(Refused::Size), "{s}"),
            s => assert_eq!(
                c.outcome,
                Err(Refused::Illegal {
                    turn: 6,
                    reason: Illegal::Suicide
                }),
                "{s}"
            ),
        }
    }
    // Each preset's own komi when none is given.
    let komi = |spec: &str| {
        counted
            .iter()
            .find(|c| c.spec == spec)
            .unwrap()
            .rules
            .unwrap()
            .komi
    };
    assert_eq!(komi("chinese"), Komi::white(15));
    assert_eq!(komi("japanese"), Komi::white(13));
    // Two passes before any play: the ideal rules' draw, a count elsewhere.
    let passes = [(Color::Black, Move::Pass), (Color::White, Move::Pass)];
    let counted = count_under_all(size, &Grid::new(size), Color::Black, &passes, None, 0, &[]);
    let ideal = counted.iter().find(|c| c.spec == "ideal").unwrap();
    assert_eq!(ideal.outcome.as_ref().unwrap().result.to_string(), "0");
    let chinese = counted.iter().find(|c| c.spec == "chinese").unwrap();
    assert_eq!(
        chinese.outcome.as_ref().unwrap().result.to_string(),
        "W+7.5"
    );
}
