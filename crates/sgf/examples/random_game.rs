//! Writes a random legal game as SGF on standard output, for benchmarks: plays drawn uniformly (a simple
//! linear-congruential generator) from the legal plays that fill no one-point eye, under `tromp-taylor`
//! (positional superko), until two passes.
//!
//! `cargo run --release -p tesuji-sgf --example random_game -- SIZE SEED > game.sgf`

use tesuji_rules::{Game, Move, Rules};
use tesuji_sgf::tree::{Collection, Property, Tree};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let side: u8 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(19);
    let mut seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let spec = format!("tromp-taylor:size={side}");
    let rules: Rules = spec.parse().expect("size 1 to 25");
    let mut game = Game::new(rules).expect("game");
    let mut tree = Tree::new();
    *tree.root_mut() = tesuji_sgf::Node {
        properties: vec![
            Property::raw("FF", vec!["4".into()]),
            Property::raw("GM", vec!["1".into()]),
            Property::raw("SZ", vec![side.to_string()]),
            Property::raw("RU", vec![spec.clone()]),
        ],
        ..Default::default()
    };
    let mut at = Tree::ROOT;
    while game.phase() == tesuji_rules::Phase::Playing
        && game.turns() < 4 * rules.size.area() as u32
    {
        let color = game.to_move();
        let plays: Vec<Move> = game
            .legal_moves()
            .into_iter()
            .filter(|m| match m {
                Move::Play(p) => !game.board().is_eyelike(color, game.board().idx(*p)),
                Move::Pass => false,
            })
            .collect();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mv = if plays.is_empty() {
            Move::Pass
        } else {
            plays[(seed >> 33) as usize % plays.len()]
        };
        game.play_move(mv).expect("a legal move");
        let value = match mv {
            Move::Pass => String::new(),
            Move::Play(p) => {
                let letter = |v: u8| (b'a' + v) as char;
                format!("{}{}", letter(p.x), letter(p.y))
            }
        };
        let ident = if color == tesuji_rules::Color::Black {
            "B"
        } else {
            "W"
        };
        at = tree
            .add_child(at, vec![Property::raw(ident, vec![value])])
            .expect("parent exists");
    }
    print!(
        "{}",
        tesuji_sgf::write::write(&Collection { trees: vec![tree] })
    );
}
