//! Random action sequences on random board sizes under every ruleset: `Game` never panics, a refused action
//! changes nothing, every accepted action reads back from its text, and under the ko and suicide knobs alone
//! the fast engine agrees with the slow reference (`tesuji_rules::reference`) on every legal play, position,
//! prisoner count and player to move, undo included.
#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use tesuji_rules::reference::RefGame;
use tesuji_rules::spec::with_size;
use tesuji_rules::{
    Action, Color, Game, Grid, KoRule, Move, Phase, Point, Preset, Rules, Size, SuicideRule,
};

#[derive(Arbitrary, Debug)]
struct Input {
    width: u8,
    height: u8,
    /// 0..8 a preset, otherwise the knobs against the reference.
    ruleset: u8,
    ko: u8,
    suicide: u8,
    steps: Vec<Step>,
}

/// Points are indices into the board with a few past its end, so that points off the board come up.
#[derive(Arbitrary, Debug)]
enum Step {
    Play(bool, u8),
    Pass(bool),
    Resign(bool),
    ResignBoth,
    Timeout(bool),
    Forfeit(bool),
    Toggle(bool, u8),
    Mark(bool, Vec<u8>),
    Accept(bool),
    Dispute(bool),
    Undo,
}

fn color(white: bool) -> Color {
    if white { Color::White } else { Color::Black }
}

fn point(size: Size, i: u8) -> Point {
    let i = i as usize % (size.area() + 3);
    if i < size.area() {
        size.point_at(i)
    } else {
        Point::new(size.width() + (i - size.area()) as u8, 0)
    }
}

fuzz_target!(|input: Input| {
    if input.ruleset % 10 < 8 {
        any_ruleset(&input);
    } else {
        against_reference(&input);
    }
});

/// What must not change when an action is refused.
fn observable(game: &Game) -> (Grid, Color, Phase, usize, Vec<Point>, [bool; 2]) {
    (
        game.grid(),
        game.to_move(),
        game.phase(),
        game.log().len(),
        game.dead_stones().to_vec(),
        game.acceptances(),
    )
}

fn any_ruleset(input: &Input) {
    let preset = Preset::ALL[input.ruleset as usize % 8];
    let Some(size) = Size::new(input.width % 9 + 1, input.height % 9 + 1) else {
        return;
    };
    let Ok(rules) = with_size(preset.name(), size).parse::<Rules>() else {
        return;
    };
    let Ok(mut game) = Game::new(rules) else {
        return;
    };
    for step in &input.steps {
        let before = observable(&game);
        let action = match step {
            Step::Play(w, i) => Action::Turn(color(*w), Move::Play(point(size, *i))),
            Step::Pass(w) => Action::Turn(color(*w), Move::Pass),
            Step::Resign(w) => Action::Resign(color(*w)),
            Step::ResignBoth => Action::ResignBoth,
            Step::Timeout(w) => Action::Timeout(color(*w)),
            Step::Forfeit(w) => Action::Forfeit(color(*w)),
            Step::Toggle(w, i) => {
                let accepted = game.toggle_dead(color(*w), point(size, *i)).is_ok();
                after(&game, &before, accepted);
                continue;
            }
            Step::Mark(w, points) => {
                let points: Vec<Point> = points.iter().map(|&i| point(size, i)).collect();
                Action::Mark(color(*w), points)
            }
            Step::Accept(w) => Action::Accept(color(*w)),
            Step::Dispute(w) => Action::Dispute(color(*w)),
            Step::Undo => {
                let undone = game.clone().undo().is_some();
                if undone {
                    game.undo();
                    assert!(game.board().is_consistent());
                } else {
                    assert_eq!(observable(&game), before);
                }
                continue;
            }
        };
        let accepted = game.apply_action(action.clone()).is_ok();
        after(&game, &before, accepted);
        if accepted {
            // Every accepted action is stored as text: it must read back as the action the game logged.
            let logged = game
                .log()
                .last()
                .expect("an accepted action is logged")
                .clone();
            let text = logged.text(size);
            let by = logged.color().unwrap_or(Color::Black);
            let read = Action::parse(by, &text, size)
                .unwrap_or_else(|e| panic!("{logged:?} as {text:?} does not read: {e}"));
            if logged != Action::ResignBoth {
                assert_eq!(read, logged, "{text:?}");
            }
        }
    }
}

fn after(game: &Game, before: &(Grid, Color, Phase, usize, Vec<Point>, [bool; 2]), accepted: bool) {
    if !accepted {
        assert_eq!(
            &observable(game),
            before,
            "a refused action changed the game"
        );
    }
    assert!(game.board().is_consistent());
}

fn against_reference(input: &Input) {
    let Some(size) = Size::new(input.width % 6 + 1, input.height % 6 + 1) else {
        return;
    };
    let (ko, suicide) = (
        KoRule::ALL[input.ko as usize % KoRule::ALL.len()],
        SuicideRule::ALL[input.suicide as usize % SuicideRule::ALL.len()],
    );
    let rules = Rules {
        size,
        ko,
        suicide,
        ..Rules::default()
    };
    let Ok(mut game) = Game::new(rules) else {
        panic!("an empty {size} board under {ko:?} {suicide:?} is refused");
    };
    let mut reference = RefGame::new(Grid::new(size), Color::Black, ko, suicide);
    let mut earlier: Vec<(Game, RefGame)> = Vec::new();
    for step in &input.steps {
        let to_move = game.to_move();
        assert_eq!(to_move, reference.to_move());
        // Ours come in row-major order.
        let ours = game.legal_plays();
        let mut theirs = reference.legal_plays();
        theirs.sort_by_key(|p| (p.y, p.x));
        assert_eq!(ours, theirs, "{ko:?} {suicide:?}\n{:?}", game.grid());
        let kept = (game.clone(), reference.clone());
        let played = match step {
            Step::Play(_, i) => {
                let p = point(size, *i);
                let legal = size.contains(p) && reference.is_legal(p);
                assert_eq!(game.is_legal(to_move, Move::Play(p)), legal, "{p:?}");
                let accepted = game.play(to_move, Move::Play(p)).is_ok();
                assert_eq!(accepted, legal);
                if legal {
                    assert!(reference.play(p));
                }
                legal
            }
            Step::Pass(_) => {
                game.play(to_move, Move::Pass)
                    .expect("a pass is legal in play");
                assert!(reference.pass());
                true
            }
            Step::Undo => {
                if let Some((g, r)) = earlier.pop() {
                    assert!(game.undo().is_some());
                    assert_eq!(game.grid(), g.grid());
                    assert_eq!(game.to_move(), g.to_move());
                    assert_eq!(game.captures(), g.captures());
                    assert_eq!(game.board().ko_point(), g.board().ko_point());
                    reference = r;
                }
                false
            }
            _ => false,
        };
        if played {
            earlier.push(kept);
        }
        assert_eq!(&game.grid(), reference.grid());
        assert_eq!(game.captures(), reference.prisoners());
        assert!(game.board().is_consistent());
        if reference.is_over() {
            assert_ne!(game.phase(), Phase::Playing);
            return;
        }
    }
}
