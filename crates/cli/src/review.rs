//! `tesuji analyze`: a game record reviewed by the search, position by position, from the command line.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use tesuji_bot::mcts::{MctsBot, MctsConfig};
use tesuji_bot::review::{Position, lead_text, mistakes, review};
use tesuji_rules::{Color, Rules, Size};
use tesuji_sgf::Property;
use tesuji_sgf::record::{record_rules, replay, size_of};

/// The mistakes listed: those that lost their player at least this much win rate, at most this many.
const MISTAKE_LOSS: f64 = 0.05;
const MISTAKES_LISTED: usize = 10;

/// What a node's comment says of the position after it.
fn comment(p: &Position, size: Size) -> String {
    let mut text = format!(
        "tesuji: Black {:.1}% · {}",
        p.black_winrate * 100.0,
        lead_text(p.black_score)
    );
    if let Some(best) = p.best {
        let line: Vec<String> = p.pv.iter().map(|&m| m.to_gtp(size)).collect();
        let _ = write!(
            text,
            " · best for {} {} ({})",
            p.to_move,
            best.to_gtp(size),
            line.join(" ")
        );
    }
    let _ = write!(text, " · {} playouts", p.playouts);
    text
}

/// The win rate (and score) over the moves as an SVG plot: Black's win rate from 0 to 100% (the line), Black's
/// lead scaled to the largest seen (the dashed line), the 50% mark, move numbers along the bottom.
pub fn graph_svg(reviewed: &[Position]) -> String {
    // Positions out of play (after the game ended) have no search to plot.
    let reviewed: Vec<&Position> = reviewed.iter().filter(|p| p.playouts > 0).collect();
    let (width, height, pad) = (800.0, 300.0, 30.0);
    let n = reviewed.len().max(2) - 1;
    let x = |k: usize| pad + (width - 2.0 * pad) * k as f64 / n as f64;
    let y = |rate: f64| pad + (height - 2.0 * pad) * (1.0 - rate);
    let most = reviewed
        .iter()
        .map(|p| p.black_score.abs())
        .fold(1.0, f64::max);
    let points = |f: &dyn Fn(&Position) -> f64| {
        reviewed
            .iter()
            .enumerate()
            .map(|(k, p)| format!("{:.1},{:.1}", x(k), y(f(p))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" \
         height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <title>Black's win rate and lead, move by move</title>\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n\
         <line x1=\"{pad}\" y1=\"{mid}\" x2=\"{right}\" y2=\"{mid}\" stroke=\"#999\" stroke-dasharray=\"2 4\"/>\n",
        mid = y(0.5),
        right = width - pad
    );
    let _ = writeln!(
        svg,
        "<polyline class=\"score\" fill=\"none\" stroke=\"#c60\" stroke-dasharray=\"6 3\" points=\"{}\"/>",
        points(&|p| 0.5 + p.black_score / most / 2.0)
    );
    let _ = writeln!(
        svg,
        "<polyline class=\"winrate\" fill=\"none\" stroke=\"#036\" stroke-width=\"2\" points=\"{}\"/>",
        points(&|p| p.black_winrate)
    );
    for (k, p) in reviewed.iter().enumerate() {
        let _ = writeln!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\" fill=\"#036\" data-move=\"{k}\"><title>move {k}: Black {:.1}%, {}</title></circle>",
            x(k),
            y(p.black_winrate),
            p.black_winrate * 100.0,
            lead_text(p.black_score)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{pad}\" y=\"{:.0}\">0</text><text x=\"{:.0}\" y=\"{:.0}\" text-anchor=\"end\">{n}</text>\n\
         <text x=\"2\" y=\"{:.0}\">100%</text><text x=\"2\" y=\"{:.0}\">0%</text>\n</svg>",
        height - 8.0,
        width - pad,
        height - 8.0,
        y(1.0) + 4.0,
        y(0.0) + 4.0,
    );
    svg
}

/// `tesuji analyze FILE [--rules SPEC] [--playouts N] [--threads N] [--out OUT.sgf] [--graph OUT.svg]`: prints
/// the biggest mistakes and the figures; writes the record with a comment on every move and the graph.
pub fn analyze(
    path: &Path,
    spec: Option<&str>,
    playouts: u64,
    threads: usize,
    out: Option<&Path>,
    graph: Option<&Path>,
) -> Result<()> {
    if playouts == 0 {
        bail!("--playouts must be at least 1");
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let read = tesuji_sgf::read(&bytes).with_context(|| format!("{}", path.display()))?;
    let Some(tree) = read.collection.trees.first() else {
        bail!("{}: no game in the file", path.display());
    };
    let size = size_of(tree).with_context(|| format!("{}", path.display()))?;
    let rules: Option<Rules> = spec
        .map(|s| s.parse().with_context(|| format!("bad --rules {s:?}")))
        .transpose()?;
    let rules = record_rules(tree, rules, Rules::default())
        .with_context(|| format!("{}", path.display()))?;
    let replayed = replay(tree, rules).with_context(|| format!("{}", path.display()))?;
    // A tree per thread: with a fixed count and seed the same record gives the same report on any machine.
    let bot = MctsBot::new(
        MctsConfig {
            threads: threads.max(1),
            shared_tree: false,
            ..MctsConfig::playouts(playouts)
        },
        0,
    );
    let started = Instant::now();
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} positions  {elapsed} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let reviewed = review(&bot, &replayed.game, &rules, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64().max(1e-9);
    let total: u64 = reviewed.iter().map(|p| p.playouts).sum();
    println!(
        "{} positions, {} playouts each, in {:.1} s ({:.0} playouts/s)",
        reviewed.len(),
        playouts,
        elapsed,
        total as f64 / elapsed
    );
    if let Some(last) = reviewed.iter().rev().find(|p| p.playouts > 0) {
        println!(
            "after move {}: Black {:.1}%, {}",
            last.turn,
            last.black_winrate * 100.0,
            lead_text(last.black_score)
        );
    }
    for m in mistakes(&replayed.game, &reviewed, MISTAKE_LOSS)
        .iter()
        .take(MISTAKES_LISTED)
    {
        let better = m
            .better
            .map_or(String::new(), |b| format!(", better {}", b.to_gtp(size)));
        println!(
            "move {} ({} {}): {:+.0}% win rate{better}",
            m.number,
            if m.color == Color::Black { "B" } else { "W" },
            m.played.to_gtp(size),
            -m.loss * 100.0
        );
    }
    if let Some(out) = out {
        let mut tree = tree.clone();
        let main: Vec<_> = tree.main_line().collect();
        for (k, id) in main.into_iter().enumerate() {
            let Some(p) = replayed.node_turns.get(k).and_then(|&t| reviewed.get(t)) else {
                continue;
            };
            if p.playouts == 0 {
                continue;
            }
            let text = comment(p, size);
            if let Some(node) = tree.node_mut(id) {
                // Sabaki's win rate property (Black's, in percent), which its graph and other tools read.
                node.properties.retain(|q| q.ident != "SBKV");
                node.properties.push(Property::text(
                    "SBKV",
                    &format!("{:.2}", p.black_winrate * 100.0),
                ));
                match node.properties.iter_mut().find(|q| q.ident == "C") {
                    Some(c) => {
                        let old = c.text_value().unwrap_or_default();
                        *c = Property::text("C", &format!("{old}\n\n{text}"));
                    }
                    None => node.properties.push(Property::text("C", &text)),
                }
            }
        }
        let collection = tesuji_sgf::Collection { trees: vec![tree] };
        std::fs::write(out, tesuji_sgf::write_utf8(&collection))
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    if let Some(graph) = graph {
        std::fs::write(graph, graph_svg(&reviewed))
            .with_context(|| format!("cannot write {}", graph.display()))?;
    }
    Ok(())
}
