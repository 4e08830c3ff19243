//! The fast engine against the slow, literal reference (`tesuji_rules::reference`) on random games: every ko
//! and suicide knob, square and rectangular boards up to 5×5. At every turn the legal plays, the position, the
//! prisoners and the player to move must agree; the incremental hash must equal a recomputed one; undo must
//! restore the previous state exactly.

use proptest::prelude::*;
use tesuji_rules::{
    Board, Color, Game, Grid, KoRule, Move, Rules, Size, SuicideRule, reference::RefGame,
};

fn rules(size: Size, ko: KoRule, suicide: SuicideRule) -> Rules {
    Rules {
        size,
        ko,
        suicide,
        ..Rules::default()
    }
}

/// Plays one random game in both engines, checking them against each other at every turn.
fn compare(size: Size, ko: KoRule, suicide: SuicideRule, choices: &[u16], start: &Grid) {
    let mut game = Game::from_position(rules(size, ko, suicide), start, Color::Black).unwrap();
    let mut reference = RefGame::new(start.clone(), Color::Black, ko, suicide);
    for (turn, &choice) in choices.iter().enumerate() {
        let ours = game.legal_plays();
        let mut theirs = reference.legal_plays();
        theirs.sort_by_key(|p| (p.y, p.x));
        assert_eq!(
            ours,
            theirs,
            "{ko:?} {suicide:?} turn {turn}\n{:?}",
            game.grid()
        );
        let before = game.clone();
        let pick = choice as usize % (ours.len() + 1);
        if pick == ours.len() {
            game.play_move(Move::Pass).unwrap();
            assert!(reference.pass());
        } else {
            game.play_move(Move::Play(ours[pick])).unwrap();
            assert!(reference.play(ours[pick]));
        }
        assert_eq!(
            &game.grid(),
            reference.grid(),
            "{ko:?} {suicide:?} turn {turn}"
        );
        assert_eq!(game.captures(), reference.prisoners());
        assert_eq!(game.to_move(), reference.to_move());
        let recomputed = Board::from_grid(&game.grid()).unwrap();
        assert_eq!(game.board().hash(), recomputed.hash(), "incremental hash");
        assert!(
            game.board().is_consistent(),
            "incremental records\n{:?}",
            game.grid()
        );
        let mut undone = game.clone();
        undone.undo().unwrap();
        assert_eq!(undone.grid(), before.grid());
        assert_eq!(undone.to_move(), before.to_move());
        assert_eq!(undone.captures(), before.captures());
        assert_eq!(undone.legal_moves(), before.legal_moves());
        assert_eq!(undone.board().ko_point(), before.board().ko_point());
        if reference.is_over() {
            assert_ne!(game.phase(), tesuji_rules::Phase::Playing);
            break;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn fast_engine_matches_reference(
        w in 1u8..=5,
        h in 1u8..=5,
        ko in 0usize..4,
        suicide in 0usize..3,
        choices in prop::collection::vec(any::<u16>(), 0..80),
    ) {
        let size = Size::new(w, h).unwrap();
        compare(size, KoRule::ALL[ko], SuicideRule::ALL[suicide], &choices, &Grid::new(size));
    }
}

#[test]
fn every_knob_combination_from_the_triple_ko() {
    // The triple-ko position of the perft tables, where the ko rules differ most.
    let start = Grid::from_diagram(".w.bw/wbbbw/w.bww/bbbw./wwww.").unwrap();
    let mut seed: u64 = 0x5eed;
    for ko in KoRule::ALL {
        for suicide in SuicideRule::ALL {
            for _ in 0..40 {
                let choices: Vec<u16> = (0..60)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        (seed >> 48) as u16
                    })
                    .collect();
                compare(start.size(), ko, suicide, &choices, &start);
            }
        }
    }
}
