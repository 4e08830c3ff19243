//! `Game::plays_ignoring_phase`: the plays the board and the repetition rule would allow the player to move
//! if the game went on. While the game is played they are its legal plays; once two passes have ended a
//! Tromp-Taylor game they are, written out literally, the empty points whose play (captures and suicide
//! applied) makes a position that never stood before: positional superko, RULES.md §2, which also rules out
//! a single stone's suicide, the position it leaves being the current one.

use tesuji_rules::{Color, Game, Grid, Move, Phase, Point, Rules};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn after_two_passes_the_plays_are_those_the_board_and_superko_allow() {
    let mut rules: Rules = "tromp-taylor".parse().unwrap();
    rules.size = tesuji_rules::Size::square(4).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ended = 0;
    for _ in 0..300 {
        let mut game = Game::new(rules).unwrap();
        let mut seen: Vec<Grid> = vec![game.grid()];
        let length = 4 + rng.below(14);
        for _ in 0..length {
            assert_eq!(game.plays_ignoring_phase(), game.legal_plays());
            let plays = game.legal_plays();
            if plays.is_empty() {
                break;
            }
            let p = plays[rng.below(plays.len())];
            game.play(game.to_move(), Move::Play(p)).unwrap();
            seen.push(game.grid());
        }
        if game.phase() != Phase::Playing {
            continue;
        }
        game.play(game.to_move(), Move::Pass).unwrap();
        game.play(game.to_move(), Move::Pass).unwrap();
        assert_eq!(game.phase(), Phase::Over);
        assert!(game.legal_plays().is_empty());
        ended += 1;
        let color: Color = game.to_move();
        let want: Vec<Point> = rules
            .size
            .points()
            .filter(|&p| {
                game.grid_after_play(color, p)
                    .is_some_and(|after| after != game.grid() && !seen.contains(&after))
            })
            .collect();
        assert_eq!(game.plays_ignoring_phase(), want);
    }
    assert!(ended > 200, "only {ended} games reached their end");
}
