//! `Game::why`: a superko refusal names the earlier position it would repeat. Random games on small boards under
//! each superko rule; every refused play's answer is checked against RULES.md §2 written out on grids: the
//! earliest turn after which the position (positional), the state (situational) or the position made by the
//! same player's play (natural) equals what the play would make.

use tesuji_rules::{Action, Board, Color, Game, Grid, Illegal, KoRule, Move, Phase, Point, Rules};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The grid, the player to move, and the turn's mover and whether it was a play, after a turn.
type After = (Grid, Color, Option<(Color, bool)>);

/// What stood after every turn (index 0: the start).
fn history(game: &Game) -> Vec<After> {
    let mut g =
        Game::from_position(*game.rules(), &game.start_grid(), game.start_to_move()).unwrap();
    let mut out = vec![(g.grid(), g.to_move(), None)];
    for a in game.log() {
        g.apply_action(a.clone()).unwrap();
        if let Action::Turn(c, m) = a {
            out.push((
                g.grid(),
                g.to_move(),
                Some((*c, matches!(m, Move::Play(_)))),
            ));
        }
    }
    out
}

/// The grid `color` playing at `p` would make, captures and suicide included, ko ignored.
fn grid_after(game: &Game, color: Color, p: Point) -> Grid {
    let mut b = Board::from_grid(&game.grid()).unwrap();
    let i = b.idx(p);
    b.play(color, i);
    b.to_grid()
}

#[test]
fn superko_refusals_name_the_earliest_repeated_turn() {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut explained = [0u32; 3];
    for (k, ko) in ["positional", "situational", "natural"]
        .into_iter()
        .enumerate()
    {
        for size in [3, 4] {
            let rules: Rules = format!("tromp-taylor:size={size},ko={ko},suicide=all,end=agree")
                .parse()
                .unwrap();
            for _ in 0..60 {
                let mut g = Game::new(rules).unwrap();
                for _ in 0..60 {
                    if g.phase() == Phase::Marking {
                        g.dispute(g.to_move()).unwrap();
                    }
                    let color = g.to_move();
                    // Every refused play of this turn is explained.
                    for p in rules.size.points() {
                        let mv = Move::Play(p);
                        let (check, why) = (g.check(color, mv), g.why(color, mv));
                        assert_eq!(check.err(), why.err().map(|r| r.reason), "{g:?} {p:?}");
                        let Err(Illegal::Ko(rule)) = check else {
                            continue;
                        };
                        let repeats = why
                            .unwrap_err()
                            .repeats
                            .expect("a superko refusal names a turn");
                        let target = grid_after(&g, color, p);
                        let next = color.opponent();
                        let earliest = history(&g).iter().position(|(grid, to_move, turn)| {
                            *grid == target
                                && match rule {
                                    KoRule::Positional => true,
                                    KoRule::Situational => *to_move == next,
                                    KoRule::Natural => *turn == Some((color, true)),
                                    KoRule::Simple => unreachable!(),
                                }
                        });
                        assert_eq!(Some(repeats as usize), earliest, "{g:?} {color} {p:?}");
                        assert_eq!(g.grid_after_play(color, p), Some(target), "{g:?}");
                        explained[k] += 1;
                    }
                    let moves = g.legal_moves();
                    let mv = if rng.next().is_multiple_of(5) {
                        Move::Pass
                    } else {
                        moves[(rng.next() % moves.len() as u64) as usize]
                    };
                    g.play(color, mv).unwrap();
                }
            }
        }
    }
    for (k, n) in explained.iter().enumerate() {
        assert!(*n > 20, "rule {k}: only {n} refusals explained");
    }
}

#[test]
fn why_answers_like_check_and_says_it_in_words() {
    // Seed 000's example: White's retake at C3 would repeat the starting position.
    let grid = Grid::from_diagram(".....\n.OX..\nO.OX.\n.OX..\n.....").unwrap();
    let rules: Rules = "tromp-taylor:size=5".parse().unwrap();
    let mut g = Game::from_position(rules, &grid, Color::Black).unwrap();
    let size = rules.size;
    let at = |v: &str| Move::Play(Point::from_gtp(v, size).unwrap());
    assert_eq!(g.why(Color::Black, at("B3")), Ok(()));
    g.play_move(at("B3")).unwrap();
    let refusal = g.why(Color::White, at("C3")).unwrap_err();
    assert_eq!(refusal.repeats, Some(0));
    assert_eq!(
        refusal.short(),
        "positional superko: repeats the starting position"
    );
    assert!(
        refusal.to_string().contains("the starting position"),
        "{refusal}"
    );
    // Simple ko and other refusals carry no turn.
    let mut j =
        Game::from_position("japanese:size=5".parse().unwrap(), &grid, Color::Black).unwrap();
    j.play_move(at("B3")).unwrap();
    let refusal = j.why(Color::White, at("C3")).unwrap_err();
    assert_eq!(
        (refusal.reason, refusal.repeats),
        (Illegal::Ko(KoRule::Simple), None)
    );
    assert_eq!(refusal.short(), "ko");
    assert_eq!(
        j.why(Color::White, at("B3")).unwrap_err().short(),
        "occupied"
    );
}
