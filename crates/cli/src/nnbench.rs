//! `tesuji bench nn`: one network evaluation at a time, ours beside KataGo's (`kata-raw-nn 0` through its
//! GTP engine), alternating position by position so that both see the same machine load; medians, their
//! ratio, the network's floating-point operations and the share of the core's peak they reach.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg32;
use tesuji_nn::katarules::KataRules;
use tesuji_nn::network::Network;
use tesuji_nn::output::{GTP_POLICY_OPTIMISM, Symmetry};
use tesuji_nn::position::{Query, evaluate};
use tesuji_rules::{Color, Game, Komi, Move, Rules, Size};

pub struct Settings {
    pub size: u8,
    pub positions: usize,
    /// KataGo's GTP command line, when it is to be timed beside ours.
    pub katago: Option<String>,
    /// Evaluations at once on separate threads, for the scaling figure.
    pub threads: usize,
    /// Positions to a call, for the batching figure.
    pub batch: usize,
    /// The core's peak in GFLOP/s, to report the share reached.
    pub peak_gflops: f64,
    pub seed: u64,
}

/// A position a few dozen random moves into a game (no move fills its own eye), with its moves.
fn position(size: u8, moves: usize, rng: &mut Pcg32) -> (Game, Vec<(Color, Move)>) {
    let mut rules: Rules = "chinese:ko=simple".parse().expect("a preset");
    rules.size = Size::square(size).expect("a board size the command line checked");
    rules.komi = Komi::white(15);
    let mut game = Game::new(rules).expect("an empty board");
    let mut played = Vec::new();
    for _ in 0..moves {
        let color = game.to_move();
        let board = game.board();
        let candidates: Vec<_> = game
            .legal_plays()
            .into_iter()
            .filter(|&p| !board.is_eyelike(color, board.idx(p)))
            .collect();
        let mv = if candidates.is_empty() {
            Move::Pass
        } else {
            Move::Play(candidates[rng.random_range(0..candidates.len())])
        };
        if game.play(color, mv).is_err() {
            break;
        }
        played.push((color, mv));
    }
    (game, played)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(network: &Network, s: &Settings) -> Result<()> {
    let mut rng = Pcg32::seed_from_u64(s.seed);
    let area = s.size as usize * s.size as usize;
    let positions: Vec<_> = (0..s.positions)
        .map(|i| position(s.size, (i * 37) % (area * 2 / 3).max(1), &mut rng))
        .collect();
    let mut katago = match &s.katago {
        Some(command) => Some(
            tesuji_gtp::controller::Engine::start(command)
                .with_context(|| format!("cannot start KataGo: {command}"))?,
        ),
        None => None,
    };
    let deadline = Duration::from_secs(120);
    let ours_once = |game: &Game| {
        let query = Query {
            game,
            rules: KataRules::from_rules(game.rules()),
            komi: game.rules().komi.net(),
            symmetry: Symmetry(0),
            policy_optimism: GTP_POLICY_OPTIMISM,
        };
        let t = Instant::now();
        std::hint::black_box(evaluate(network, &[query]));
        t.elapsed().as_secs_f64()
    };
    // One untimed evaluation each: first-use costs (tables, buffers, KataGo's own start) are not the figure.
    ours_once(&positions[0].0);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for (i, (game, moves)) in positions.iter().enumerate() {
        let mut katago_once = || -> Result<Option<f64>> {
            let Some(k) = katago.as_mut() else {
                return Ok(None);
            };
            k.send(&format!("boardsize {}", s.size), deadline)?;
            k.send("clear_board", deadline)?;
            k.send("kata-set-rules chinese", deadline)?;
            k.send("komi 7.5", deadline)?;
            for (color, mv) in moves {
                let vertex = match mv {
                    Move::Play(p) => p.to_gtp(game.rules().size),
                    Move::Pass => "pass".into(),
                };
                let c = if *color == Color::Black { "b" } else { "w" };
                k.send(&format!("play {c} {vertex}"), deadline)?;
            }
            if i == 0 {
                k.send("kata-raw-nn 0", deadline)?;
            }
            let t = Instant::now();
            k.send("kata-raw-nn 0", deadline)?;
            Ok(Some(t.elapsed().as_secs_f64()))
        };
        // Alternate which goes first, so neither always follows the other's cache effects.
        if i % 2 == 0 {
            ours.push(ours_once(game));
            theirs.extend(katago_once()?);
        } else {
            theirs.extend(katago_once()?);
            ours.push(ours_once(game));
        }
    }
    let flops = tesuji_nn::network::flops(network.model(), s.size as usize, s.size as usize);
    let ours_median = median(ours.clone());
    println!(
        "network {}: {:.2} GFLOP an evaluation on {}x{}",
        network.model().name,
        flops / 1e9,
        s.size,
        s.size
    );
    println!(
        "tesuji: median {:.1} ms an evaluation over {} positions ({:.0} evaluations/s), {:.1} GFLOP/s, {:.0}% of a {:.0} GFLOP/s peak",
        ours_median * 1e3,
        ours.len(),
        1.0 / ours_median,
        flops / ours_median / 1e9,
        100.0 * flops / ours_median / 1e9 / s.peak_gflops,
        s.peak_gflops
    );
    if !theirs.is_empty() {
        let theirs_median = median(theirs.clone());
        println!(
            "KataGo: median {:.1} ms an evaluation (kata-raw-nn 0 over GTP), {:.1} GFLOP/s",
            theirs_median * 1e3,
            flops / theirs_median / 1e9
        );
        println!(
            "ratio: tesuji {:.1}x KataGo's speed",
            theirs_median / ours_median
        );
    }
    if s.threads > 1 {
        let games: Vec<&Game> = positions.iter().map(|(g, _)| g).collect();
        let t = Instant::now();
        std::thread::scope(|scope| {
            for chunk in games.chunks(games.len().div_ceil(s.threads)) {
                scope.spawn(move || {
                    for game in chunk {
                        ours_once(game);
                    }
                });
            }
        });
        let per_second = games.len() as f64 / t.elapsed().as_secs_f64();
        println!(
            "{} threads: {:.1} evaluations/s, {:.2}x one thread's",
            s.threads,
            per_second,
            per_second * ours_median
        );
    }
    if s.batch > 1 {
        let queries: Vec<Query> = positions
            .iter()
            .map(|(game, _)| Query {
                game,
                rules: KataRules::from_rules(game.rules()),
                komi: game.rules().komi.net(),
                symmetry: Symmetry(0),
                policy_optimism: GTP_POLICY_OPTIMISM,
            })
            .collect();
        let t = Instant::now();
        for chunk in queries.chunks(s.batch) {
            std::hint::black_box(evaluate(network, chunk));
        }
        let per_second = queries.len() as f64 / t.elapsed().as_secs_f64();
        println!(
            "batches of {}: {:.1} evaluations/s, {:.2}x one at a time",
            s.batch,
            per_second,
            per_second * ours_median
        );
    }
    if ours.is_empty() {
        bail!("no positions");
    }
    Ok(())
}
