//! All legal moves of a 19×19 middle-game position under positional superko (the target: under 5 µs),
//! and the cost of one checked turn.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tesuji_rules::{Game, Move, Rules};

/// A reproducible middle game: 150 turns of a simple linear-congruential choice among the legal plays.
fn middle_game(spec: &str) -> Game {
    let rules: Rules = spec.parse().expect("bench spec");
    let mut game = Game::new(rules).expect("bench game");
    let mut seed: u64 = 12345;
    for _ in 0..150 {
        let moves = game.legal_moves();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Never the pass (the last entry) unless it is the only move.
        let k = (seed >> 33) as usize % (moves.len() - 1).max(1);
        let _ = game.play_move(moves[k]);
    }
    game
}

fn legal_moves(c: &mut Criterion) {
    for spec in ["tromp-taylor", "aga", "japanese", "ideal"] {
        let game = middle_game(spec);
        c.bench_function(&format!("legal_moves 19x19 middle game {spec}"), |b| {
            b.iter(|| black_box(&game).legal_moves())
        });
    }
    let game = middle_game("tromp-taylor");
    let mv = game.legal_moves()[0];
    c.bench_function("checked play + undo-free clone 19x19 tromp-taylor", |b| {
        b.iter(|| {
            let mut g = black_box(&game).clone();
            g.play_move(black_box(mv)).map(|_| ())
        })
    });
    let _ = Move::Pass;
}

criterion_group!(benches, legal_moves);
criterion_main!(benches);
