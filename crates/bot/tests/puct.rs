//! The network search on KaTrain's network (`TESUJI_TEST_NETWORK`, fetched by `cargo xtask test`; without it
//! these tests fail): every move it plays is legal, each visit goes through exactly one root move on any
//! number of threads, a kept tree starts the next move's search, and it takes what a glance shows is
//! right: a big group in atari.

use std::path::PathBuf;

use tesuji_bot::mcts::Decision;
use tesuji_bot::puct::{KeptTree, Live, PuctBot, PuctConfig, Setting};
use tesuji_nn::cache::EvalCache;
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

fn visits(search: &tesuji_bot::puct::Search) -> u64 {
    search.analysis.moves.iter().map(|m| m.visits).sum()
}

#[test]
fn a_game_of_legal_moves_with_every_visit_counted_once() {
    let network = network();
    let cache = EvalCache::new(1000);
    let config: PuctConfig = "visits=24".parse().unwrap();
    let bot = PuctBot::new(&network, &cache, config, 7);
    let mut game = Game::new(rules(7)).unwrap();
    let mut turns = 0;
    while game.phase() == Phase::Playing && turns < 60 {
        let search = bot.search(&game, setting(&game));
        if search.analysis.moves.len() > 1 {
            assert_eq!(search.analysis.playouts, 24);
            // The root's own evaluation is its one visit that is no move's.
            assert_eq!(visits(&search), 24);
        }
        // The move played is the first of the analysis.
        let first = search.analysis.moves.first().map(|m| m.mv);
        match search.decision {
            Decision::Play(mv) => {
                assert!(game.legal_moves().contains(&mv), "{mv:?} at turn {turns}");
                if search.analysis.moves.len() > 1 {
                    assert_eq!(Some(mv), first);
                }
                game.play(game.to_move(), mv).unwrap();
            }
            Decision::Resign => break,
        }
        turns += 1;
    }
    assert!(turns >= 10, "the game ended after {turns} turns");
}

#[test]
fn threads_and_batches_share_one_tree_and_count_every_visit() {
    let network = network();
    let cache = EvalCache::new(1000);
    let config: PuctConfig = "visits=48,threads=2,batch=3".parse().unwrap();
    let bot = PuctBot::new(&network, &cache, config, 3);
    let mut game = Game::new(rules(9)).unwrap();
    for _ in 0..3 {
        let search = bot.search(&game, setting(&game));
        assert_eq!(search.analysis.playouts, 48);
        assert_eq!(visits(&search), 48);
        let Decision::Play(mv) = search.decision else {
            panic!("resigned an even opening")
        };
        game.play(game.to_move(), mv).unwrap();
    }
}

#[test]
fn a_move_not_visited_shows_the_roots_figures_less_the_first_play_reduction() {
    // Before, such moves showed a win rate of 0 and an even score.
    let network = network();
    let cache = EvalCache::new(1000);
    let bot = PuctBot::new(&network, &cache, "visits=6".parse().unwrap(), 2);
    let mut game = Game::new(rules(9)).unwrap();
    game.play(Color::Black, Move::Play(Point::new(4, 4)))
        .unwrap();
    let a = bot.search(&game, setting(&game)).analysis;
    let (visited, unvisited): (Vec<_>, Vec<_>) = a.moves.iter().partition(|m| m.visits > 0);
    assert!(!visited.is_empty() && unvisited.len() > 50);
    // White is ahead at komi 7.5 after one stone: a visited answer wins well above 0.
    let best = visited.iter().map(|m| m.value).fold(0.0, f64::max);
    assert!(best > 0.3, "{best}");
    // The same for all: the root's, less the reduction.
    for m in &unvisited {
        assert!(m.value > 0.05 && m.value == unvisited[0].value, "{m:?}");
        assert_eq!(m.score_mean, a.score_mean, "{m:?}");
    }
}

#[test]
fn a_kept_tree_starts_the_next_search_and_an_undo_starts_afresh() {
    let network = network();
    let cache = EvalCache::new(1000);
    let bot = PuctBot::new(&network, &cache, "visits=60".parse().unwrap(), 5);
    let mut kept = KeptTree::default();
    let mut game = Game::new(rules(9)).unwrap();
    let first = bot.search_keeping(&game, setting(&game), &mut kept);
    assert_eq!(visits(&first), 60);
    // Play the chosen move and the answer the search expected most: its subtree has visits already.
    let line = &first.analysis.moves[0].pv;
    assert!(line.len() >= 2, "{line:?}");
    let before = game.clone();
    game.play(Color::Black, line[0]).unwrap();
    game.play(Color::White, line[1]).unwrap();
    let second = bot.search_keeping(&game, setting(&game), &mut kept);
    assert_eq!(second.analysis.playouts, 60);
    assert!(visits(&second) > 60, "{} visits", visits(&second));
    // Back to the start: the kept tree is of a later position, so the search starts empty.
    let third = bot.search_keeping(&before, setting(&before), &mut kept);
    assert_eq!(visits(&third), 60);
}

#[test]
fn an_analysis_restricted_to_some_moves_lists_only_those_and_stops_when_told() {
    let network = network();
    let cache = EvalCache::new(1000);
    // No budget: the search runs until stopped.
    let config = PuctConfig {
        visits: None,
        time: None,
        ..PuctConfig::default()
    };
    let bot = PuctBot::new(&network, &cache, config, 9);
    let game = Game::new(rules(9)).unwrap();
    let size = game.rules().size;
    let only: Vec<Move> = ["A1", "B2", "C3"]
        .iter()
        .map(|v| Move::Play(Point::from_gtp(v, size).unwrap()))
        .collect();
    let reports = std::cell::Cell::new(0u32);
    let started = std::time::Instant::now();
    let stop = || started.elapsed() > std::time::Duration::from_millis(1500);
    let mut report = |a: &tesuji_bot::mcts::Analysis| {
        reports.set(reports.get() + 1);
        assert!(
            a.moves
                .iter()
                .all(|m| only.contains(&m.mv) || m.mv == Move::Pass)
        );
    };
    let live = Live {
        only: Some(&only),
        stop: &stop,
        report: Some((std::time::Duration::from_millis(100), &mut report)),
        moves_ownership: true,
    };
    let search = bot.run(&game, setting(&game), None, live);
    let a = &search.analysis;
    assert!(a.playouts > 0);
    assert!(reports.get() >= 2, "{} reports", reports.get());
    assert_eq!(a.moves.len(), 4, "{:?}", a.moves);
    assert!(
        a.moves
            .iter()
            .all(|m| only.contains(&m.mv) || m.mv == Move::Pass)
    );
    // Ownership for the whole board and for each visited move; C3 is the one a player would choose.
    assert_eq!(a.ownership.len(), 81);
    assert_eq!(a.moves[0].mv, only[2], "{:?}", a.moves);
    assert_eq!(a.moves[0].ownership.len(), 81);
}

#[test]
fn it_wins_a_capturing_race_by_capturing_first() {
    let network = network();
    let cache = EvalCache::new(1000);
    let bot = PuctBot::new(&network, &cache, "visits=40".parse().unwrap(), 1);
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
        &search.analysis.moves[..3]
    );
    let best = &search.analysis.moves[0];
    assert!(best.value > 0.9, "{best:?}");
}

/// Plays `mv` for the player to move and then White's reply: the first legal play of `replies`.
fn play_with_reply(game: &mut Game, mv: Move, replies: &[&str]) {
    game.play(game.to_move(), mv).unwrap();
    let size = game.rules().size;
    let reply = replies
        .iter()
        .map(|v| Move::Play(Point::from_gtp(v, size).unwrap()))
        .find(|m| game.legal_moves().contains(m))
        .unwrap_or(Move::Pass);
    game.play(game.to_move(), reply).unwrap();
}

#[test]
fn it_resigns_a_lost_game_on_its_third_search_and_plays_out_a_close_one() {
    let network = network();
    let cache = EvalCache::new(1000);
    let config: PuctConfig = "visits=40,resign=0.5".parse().unwrap();
    let bot = PuctBot::new(&network, &cache, config, 11);
    // White's one group with five one-point eyes fills seven columns of nine: Black, to move, is about 50
    // points behind with nowhere to live.
    let diagram = "
        O.OOOOOX.
        OOOOOOOX.
        OOOO.OOX.
        OOOOOOOX.
        O.OOOOOX.
        OOOOOOOX.
        OOOO.OOX.
        OOOOOOOX.
        OO.OOOOX.";
    let grid = tesuji_rules::Grid::from_diagram(diagram).unwrap();
    let mut r = rules(9);
    r.size = grid.size();
    let mut game = Game::from_position(r, &grid, Color::Black).unwrap();
    // White fills two of its eyes meanwhile.
    let replies = ["B9", "E7"];
    // Without a kept tree there is no third search in a row: it plays.
    assert!(matches!(
        bot.search(&game, setting(&game)).decision,
        Decision::Play(_)
    ));
    let mut kept = KeptTree::default();
    for turn in 0..3 {
        let search = bot.search_keeping(&game, setting(&game), &mut kept);
        let best = &search.analysis.moves[0];
        assert!(best.value < 0.05 && best.score_mean < -20.0, "{best:?}");
        match (turn, search.decision) {
            (0 | 1, Decision::Play(mv)) => play_with_reply(&mut game, mv, &replies),
            (2, Decision::Resign) => {}
            (t, d) => panic!("search {t}: {d:?}"),
        }
    }
    // A close game is played out however low the win rate: Black at komi 7.5 on an empty 9×9 board is
    // behind by about a point, under the threshold of 50% but not 2 points behind.
    let mut game = Game::new(rules(9)).unwrap();
    let mut kept = KeptTree::default();
    for _ in 0..4 {
        let search = bot.search_keeping(&game, setting(&game), &mut kept);
        let Decision::Play(mv) = search.decision else {
            panic!("resigned a close game: {:?}", search.analysis.moves[0])
        };
        play_with_reply(&mut game, mv, &["E5", "C3", "G7", "C7", "G3"]);
    }
}
