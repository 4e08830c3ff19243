//! One game counted under every ruleset (`tesuji_rules::compare`): the counts agree where RULES.md says they
//! must (area counting is area counting; Board Game Arena with AGA rules gives both countings the same margin,
//! §4) and a move one ruleset refuses is named with its turn.

use tesuji_rules::compare::{COMPARED, Refused, count_under_all};
use tesuji_rules::{Color, Game, Illegal, Komi, Move, Phase, Point, Rules, Size};

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
/// played to two passes.
fn random_game(size: Size, rng: &mut Rng) -> Game {
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
    g
}

/// A game of these turns under the most lenient rules (any suicide, simple ko).
fn lenient(size: Size, turns: &[(Color, Move)]) -> Game {
    let rules: Rules = format!("tromp-taylor:size={},ko=simple,end=agree", size.width())
        .parse()
        .unwrap();
    let mut g = Game::new(rules).unwrap();
    for &(c, m) in turns {
        g.play(c, m).unwrap();
    }
    g
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
    for _ in 0..30 {
        let game = random_game(size, &mut rng);
        let counted = count_under_all(&game, Some(Komi::white(13)), &[]);
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
    let counted = count_under_all(&lenient(size, &turns), None, &[]);
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
    let counted = count_under_all(&lenient(size, &passes), None, &[]);
    let ideal = counted.iter().find(|c| c.spec == "ideal").unwrap();
    assert_eq!(ideal.outcome.as_ref().unwrap().result.to_string(), "0");
    let chinese = counted.iter().find(|c| c.spec == "chinese").unwrap();
    assert_eq!(
        chinese.outcome.as_ref().unwrap().result.to_string(),
        "W+7.5"
    );
}

/// A game with free handicap placement is counted with Black's placements as placements under every ruleset,
/// not as moves out of turn with White's passes between them (which would hand Black pass stones).
#[test]
fn free_handicap_placements_stay_placements() {
    let mut rng = Rng(0xF4EE_0003);
    let rules: Rules = "chinese:size=9,handicap=3".parse().unwrap();
    let mut g = Game::new(rules).unwrap();
    assert_eq!(g.start_placements(), (3, 0));
    while g.phase() == Phase::Playing && g.turns() < 120 {
        let moves = g.legal_moves();
        let mv = if g.free_handicap_left() == 0 && rng.below(10) == 0 {
            Move::Pass
        } else {
            moves[rng.below(moves.len())]
        };
        g.play_move(mv).unwrap();
    }
    while g.phase() == Phase::Playing {
        g.play_move(Move::Pass).unwrap();
    }
    let white_passes = g
        .turn_list()
        .iter()
        .filter(|&&(c, m)| c == Color::White && m == Move::Pass)
        .count() as u32;
    let counted = count_under_all(&g, Some(rules.komi), &[]);
    let aga = counted.iter().find(|c| c.spec == "aga").unwrap();
    let score = aga.outcome.as_ref().unwrap().score.unwrap();
    // Each of White's passes gives Black a pass stone; Black's last pass, if Black passed last, one more.
    let last_black = g.turn_list().last().map(|&(c, _)| c) == Some(Color::Black);
    assert_eq!(
        score.black.pass_stones,
        white_passes + u32::from(last_black)
    );
    // Under its own rules the count is the game's own.
    let own = counted.iter().find(|c| c.spec == "chinese").unwrap();
    let mut direct = g.clone();
    direct.accept(Color::Black).unwrap();
    direct.accept(Color::White).unwrap();
    assert_eq!(
        own.outcome.as_ref().unwrap().result,
        *direct.result().unwrap()
    );
}
