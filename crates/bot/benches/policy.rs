//! The speed of the bot's pieces (run by hand: `cargo bench -p tesuji-bot`): one policy playout from the empty
//! 9×9 and 19×19 boards (a playout per iteration, so playouts/s is one over the time shown), and a 1000-playout
//! search of the empty 9×9 board on one thread.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_pcg::Pcg32;
use tesuji_bot::mcts::{MctsBot, MctsConfig};
use tesuji_bot::policy::{self, PASS, Scorer};
use tesuji_rules::{Board, Color, Game, Preset, Rules, Size};

fn playouts(c: &mut Criterion) {
    for side in [9u8, 19] {
        let size = Size::square(side).unwrap();
        let empty = Board::new(size);
        let mut board = empty.clone();
        let mut rng = Pcg32::seed_from_u64(1);
        let mut scorer = Scorer::new(&empty);
        let (mut scratch, mut moves) = (policy::Scratch::new(), Vec::new());
        c.bench_function(&format!("policy playout {side}x{side}"), |b| {
            b.iter(|| {
                board.clone_from(&empty);
                moves.clear();
                policy::run(
                    &mut board,
                    Color::Black,
                    PASS,
                    &mut rng,
                    &mut scratch,
                    &mut moves,
                    3 * size.area() + 20,
                );
                black_box(scorer.area(&board))
            })
        });
    }
}

fn search(c: &mut Criterion) {
    let mut rules = Rules::preset(Preset::Chinese);
    rules.size = Size::square(9).unwrap();
    let game = Game::new(rules).unwrap();
    let bot = MctsBot::new(MctsConfig::playouts(1000), 1);
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("1000 playouts 9x9", |b| {
        b.iter(|| black_box(bot.analyze(&game, &rules, false)))
    });
    group.finish();
}

criterion_group!(benches, playouts, search);
criterion_main!(benches);
