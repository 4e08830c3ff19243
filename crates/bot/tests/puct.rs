//! The network search on KaTrain's network (`TESUJI_TEST_NETWORK`, fetched by `cargo xtask test`; without it
//! these tests fail): every move it plays is legal, each visit goes through exactly one root move, and it
//! takes what a glance shows is right: a big group in atari.

use std::path::PathBuf;

use tesuji_bot::mcts::Decision;
use tesuji_bot::puct::{PuctBot, PuctConfig, Setting};
use tesuji_nn::katarules::KataRules;
use tesuji_nn::network::Network;
use tesuji_rules::{Color, Game, Move, Phase, Point, Rules, Size};

fn network() -> Network {
    let path = std::env::var_os("TESUJI_TEST_NETWORK").map(PathBuf::from).expect(
        "TESUJI_TEST_NETWORK names no network file: run `cargo xtask test`, which fetches KaTrain's network",
    );
    Network::new(tesuji_nn::model::Model::open(&path).expect("the network reads"))
}

fn setting(game: &Game) -> Setting {
    Setting {
        rules: KataRules::from_rules(game.rules()),
        komi: game.rules().komi.net(),
    }
}

fn rules(size: u8) -> Rules {
    let mut r: Rules = "chinese".parse().unwrap();
    r.size = Size::square(size).unwrap();
    r
}

#[test]
fn a_game_of_legal_moves_with_every_visit_counted_once() {
    let network = network();
    let config: PuctConfig = "visits=24".parse().unwrap();
    let bot = PuctBot::new(&network, config, 7);
    let mut game = Game::new(rules(7)).unwrap();
    let mut turns = 0;
    while game.phase() == Phase::Playing && turns < 60 {
        let search = bot.search(&game, setting(&game));
        if search.moves.len() > 1 {
            assert_eq!(search.visits, 24);
            assert_eq!(search.moves.iter().map(|m| m.visits).sum::<u32>(), 24);
            // Most visited first.
            assert!(search.moves.windows(2).all(|w| w[0].visits >= w[1].visits));
        }
        match search.decision {
            Decision::Play(mv) => {
                assert!(game.legal_moves().contains(&mv), "{mv:?} at turn {turns}");
                game.play(game.to_move(), mv).unwrap();
            }
            Decision::Resign => break,
        }
        turns += 1;
    }
    assert!(turns >= 10, "the game ended after {turns} turns");
}

#[test]
fn it_wins_a_capturing_race_by_capturing_first() {
    let network = network();
    let bot = PuctBot::new(&network, "visits=40".parse().unwrap(), 1);
    // Two strings of eight stones side by side, each with one liberty on the right edge: White's A5-H5 at
    // J5, Black's A4-H4 at J4. Black to move captures at J5 and wins; anything else loses Black's string.
    let size = Size::square(9).unwrap();
    let points = |row: u8, columns: &str| -> Vec<Point> {
        columns
            .chars()
            .map(|c| Point::from_gtp(&format!("{c}{row}"), size).unwrap())
            .collect()
    };
    let black: Vec<Point> = [points(6, "ABCDEFGHJ"), points(4, "ABCDEFGH")].concat();
    let white: Vec<Point> = [points(5, "ABCDEFGH"), points(3, "ABCDEFGHJ")].concat();
    let mut game = Game::new(rules(9)).unwrap();
    for (b, w) in black.iter().zip(&white) {
        game.play(Color::Black, Move::Play(*b)).unwrap();
        game.play(Color::White, Move::Play(*w)).unwrap();
    }
    let search = bot.search(&game, setting(&game));
    let capture = Point::from_gtp("J5", size).unwrap();
    assert_eq!(
        search.decision,
        Decision::Play(Move::Play(capture)),
        "{:?}",
        &search.moves[..3]
    );
    assert!(search.moves[0].win_rate > 0.9, "{:?}", search.moves[0]);
}
