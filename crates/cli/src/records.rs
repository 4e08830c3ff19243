//! The commands on game records: `score`, `sgf check`, `sgf fmt`, `bench replay`.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::json;
use tesuji_bot::estimate;
use tesuji_rules::result::{GameResult, PlayerScore, format_half_points};
use tesuji_rules::spec::sets_key;
use tesuji_rules::{Color, Komi, Point, Rules, Size};
use tesuji_sgf::record::{
    RulesFromRecord, komi_of, parse_komi, record_rules, replay, rules_of, size_of,
};
use tesuji_sgf::{NodeId, parse::Severity};

/// Reads and parses a file, with its diagnostics; a file that cannot be read at all is an error.
fn load(path: &Path) -> Result<(tesuji_sgf::Read, Vec<String>, bool)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let read = tesuji_sgf::read(&bytes).with_context(|| format!("{}", path.display()))?;
    let errors = read
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    let lines = read
        .diagnostics
        .iter()
        .map(|d| format!("{}:{d}", path.display()))
        .chain(
            read.encoding_warnings
                .iter()
                .map(|w| format!("{}: {w}", path.display())),
        )
        .collect();
    Ok((read, lines, errors))
}

/// A `--rules` spec for a record of this size: read at the record's size unless it names one, so that what
/// depends on the size (bga's komi options) is right for the board counted.
fn spec_rules(spec: &str, size: Size) -> Result<Rules> {
    let rules: Rules = spec
        .parse()
        .with_context(|| format!("bad --rules {spec:?}"))?;
    if sets_key(spec, "size") {
        return Ok(rules);
    }
    // A preset that does not take this size (bga: 9, 13, 19) keeps the spec as written.
    Ok(tesuji_rules::spec::with_size(spec, size)
        .parse()
        .unwrap_or(rules))
}

/// `tesuji score --all-rules`: the game counted under every ruleset of `tesuji_rules::compare`, one line (or
/// JSON object) each.
fn print_all_rules(
    game: &tesuji_rules::Game,
    komi: Option<Komi>,
    dead: &[Point],
    inserted: &[usize],
    as_json: bool,
) {
    use tesuji_rules::compare::{Refused, count_under_all};
    let size = game.rules().size;
    let counted = count_under_all(game, komi, dead);
    let mut rows = Vec::new();
    for c in &counted {
        let rules = c.rules.map(|r| r.to_string());
        match &c.outcome {
            Ok(count) => {
                let totals = count.score.map(|s| (s.black.total, s.white.total));
                if as_json {
                    rows.push(json!({
                        "spec": c.spec,
                        "rules": rules,
                        "result": count.result.to_string(),
                        "black": totals.map(|t| t.0 as f64 / 2.0),
                        "white": totals.map(|t| t.1 as f64 / 2.0),
                    }));
                } else {
                    let totals = totals.map_or(String::new(), |(b, w)| {
                        format!(
                            " (black {}, white {})",
                            format_half_points(b),
                            format_half_points(w)
                        )
                    });
                    println!("{}: {}{totals}", c.spec, count.result);
                }
            }
            Err(Refused::Illegal { turn, reason }) => {
                let turn = *turn - inserted.iter().filter(|&&t| t < *turn).count();
                if as_json {
                    rows.push(json!({
                        "spec": c.spec,
                        "rules": rules,
                        "illegal": {"move": turn, "reason": reason.short()},
                    }));
                } else {
                    println!("{}: move {turn} is illegal ({})", c.spec, reason.short());
                }
            }
            Err(Refused::Size) => {
                let board = format!("{}x{}", size.width(), size.height());
                if as_json {
                    rows.push(json!({"spec": c.spec, "rules": rules, "unavailable": board}));
                } else {
                    println!("{}: not played on a {board} board", c.spec);
                }
            }
        }
    }
    if as_json {
        println!("{}", serde_json::Value::Array(rows));
    }
}

/// Where `tesuji score` takes its dead stones from.
#[derive(Clone, Copy, Debug)]
pub enum DeadFrom<'a> {
    /// The record's TB/TW marks on its last node.
    Record,
    /// GTP vertices separated by commas (each marks its chain).
    List(&'a str),
    /// The estimator (`tesuji_bot::estimate`): its dead chains; its unsure ones stay on the board.
    Estimate,
}

/// `tesuji score FILE [--rules SPEC] [--komi K] [--dead V,... | --auto-dead] [--json]`. Returns the stones the
/// estimator was unsure of (always none unless `--auto-dead`): the count treats them as alive, so the caller
/// must tell the user that the result may be wrong.
pub fn score(
    path: &Path,
    spec: Option<&str>,
    komi: Option<&str>,
    dead: DeadFrom,
    as_json: bool,
    all_rules: bool,
) -> Result<Vec<String>> {
    let (read, _, _) = load(path)?;
    let Some(tree) = read.collection.trees.first() else {
        bail!("{}: no game in the file", path.display());
    };
    let size = size_of(tree).with_context(|| format!("{}", path.display()))?;
    let rules = spec.map(|s| spec_rules(s, size)).transpose()?;
    if rules.is_none()
        && let RulesFromRecord::Unknown(ru) = rules_of(tree)
    {
        eprintln!(
            "tesuji: {}: unknown rules RU[{ru}]; scoring under tromp-taylor (choose with --rules)",
            path.display()
        );
    }
    // A komi the user states (`--komi`, or `komi=` in the spec: bga's komi option too) wins over the record's
    // `KM`, which applies where the user stated none.
    let stated = match (komi, spec, &rules) {
        (Some(k), _, _) => Some((
            Komi::white(parse_komi(k).with_context(|| format!("bad --komi {k:?}"))?),
            "--komi",
        )),
        (None, Some(s), Some(r)) if sets_key(s, "komi") => Some((r.komi, "--rules")),
        _ => None,
    };
    // Every ruleset: the moves are read under the most lenient rules (simple ko, any suicide), then counted
    // under each preset.
    let lenient: Option<Rules> = all_rules.then(|| {
        "tromp-taylor:ko=simple,suicide=all"
            .parse()
            .expect("a valid spec")
    });
    let mut rules = record_rules(tree, lenient.or(rules), Rules::default())
        .with_context(|| format!("{}", path.display()))?;
    if let Some((k, from)) = stated {
        if let Ok(Some(km)) = komi_of(tree)
            && Komi::white(km) != k
        {
            eprintln!(
                "tesuji: {}: counting with komi {k} as {from} states, not the record's KM[{}]",
                path.display(),
                format_half_points(km)
            );
        }
        rules.komi = k;
    }
    // Where a node starts, for messages about it: `file:line:column`.
    let at = |id: NodeId| match read.node_positions.first().and_then(|t| t.get(id.0)) {
        Some((line, column)) => format!("{}:{line}:{column}", path.display()),
        None => path.display().to_string(),
    };
    let replayed = replay(tree, rules).map_err(|e| {
        let place = e.node().and_then(|k| tree.main_line().nth(k));
        anyhow::anyhow!("{}: {e}", place.map_or(path.display().to_string(), at))
    })?;
    for note in &replayed.notes {
        eprintln!(
            "tesuji: {}: warning: node {}: {}",
            at(note.id),
            note.node,
            note.message
        );
    }
    let mut unsure = Vec::new();
    let dead_points: Vec<Point> = match dead {
        DeadFrom::Record => tesuji_sgf::record::dead_stones_of(tree, &replayed.game.grid()),
        DeadFrom::Estimate => {
            // A fixed seed: the same record always gets the same count.
            let est = estimate::estimate(&replayed.game, estimate::default_playouts(size), 0);
            unsure = est.unsure();
            est.dead()
        }
        DeadFrom::List(list) => list
            .split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| {
                Point::from_gtp(v, size).with_context(|| {
                    format!(
                        "bad --dead vertex {v:?} on a {}x{} board",
                        size.width(),
                        size.height()
                    )
                })
            })
            .collect::<Result<_>>()?,
    };
    let game = &replayed.game;
    let vertices =
        |points: &[Point]| -> Vec<String> { points.iter().map(|p| p.to_gtp(size)).collect() };
    for &p in &dead_points {
        if game.grid().get(p).is_none() {
            bail!("bad --dead vertex {}: no stone there", p.to_gtp(size));
        }
    }
    if all_rules {
        // The record's komi unless one is stated; without either, each preset's own.
        let komi = stated
            .map(|(k, _)| k)
            .or_else(|| komi_of(tree).ok().flatten().map(Komi::white));
        // The passes the replay inserted are not the record's moves: a refused move is named by the record's
        // own count.
        let inserted: Vec<usize> = replayed
            .notes
            .iter()
            .filter(|n| n.kind == tesuji_sgf::record::NoteKind::PassInserted)
            .map(|n| n.turn + 1)
            .collect();
        print_all_rules(game, komi, &dead_points, &inserted, as_json);
        return Ok(vertices(&unsure));
    }
    let score = game.score_with(&dead_points);
    let result = GameResult::from_score(score, &rules, game.first_pass());
    if as_json {
        let side = |s: &PlayerScore| {
            json!({
                "stones": s.stones,
                "territory": s.territory,
                "shared": s.shared,
                "captures": s.captures,
                "dead": s.dead,
                "pass_stones": s.pass_stones,
                "komi": s.komi as f64 / 2.0,
                "handicap_bonus": s.handicap_bonus as f64 / 2.0,
                "total": s.total as f64 / 2.0,
            })
        };
        let out = json!({
            "result": result.to_string(),
            "rules": rules.to_string(),
            "black": side(&score.black),
            "white": side(&score.white),
            "dame": score.dame,
            "dead": vertices(&tesuji_rules::game::expand_chains(&game.grid(), &dead_points)),
            "unsure": vertices(&unsure),
        });
        println!("{out}");
    } else {
        println!("{result}");
        println!("rules {rules}");
        if matches!(dead, DeadFrom::Estimate) {
            let dead = vertices(&dead_points);
            println!(
                "dead{}",
                dead.iter().map(|v| format!(" {v}")).collect::<String>()
            );
        }
        for (c, s) in [(Color::Black, &score.black), (Color::White, &score.white)] {
            println!(
                "{c}: stones {} territory {} shared {} captures {} dead {} pass-stones {} komi {} bonus {} total {}",
                s.stones,
                s.territory,
                s.shared,
                s.captures,
                s.dead,
                s.pass_stones,
                format_half_points(s.komi),
                format_half_points(s.handicap_bonus),
                format_half_points(s.total)
            );
        }
    }
    Ok(vertices(&unsure))
}

/// `tesuji sgf check FILE...`: prints every diagnostic; fails when any file has an error.
pub fn check(paths: &[std::path::PathBuf]) -> Result<()> {
    let mut failed = 0;
    for path in paths {
        match load(path) {
            Ok((_, lines, errors)) => {
                for l in &lines {
                    println!("{l}");
                }
                if errors {
                    failed += 1;
                }
            }
            Err(e) => {
                println!("{e:#}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} of {} files have errors", paths.len());
    }
    Ok(())
}

/// `tesuji sgf fmt FILE`: the canonical rewrite on standard output.
pub fn fmt(path: &Path) -> Result<()> {
    let (read, _, _) = load(path)?;
    print!("{}", tesuji_sgf::write_utf8(&read.collection));
    Ok(())
}

/// `tesuji bench replay FILE...`: MB/s parsed and moves/s replayed with full legality checking.
pub fn bench_replay(paths: &[std::path::PathBuf], rounds: u32) -> Result<()> {
    let files: Vec<(String, Vec<u8>)> = paths
        .iter()
        .map(|p| {
            std::fs::read(p)
                .map(|b| (p.display().to_string(), b))
                .with_context(|| format!("cannot read {}", p.display()))
        })
        .collect::<Result<_>>()?;
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let rounds = rounds.max(1);
    let start = Instant::now();
    let mut parsed = Vec::new();
    for _ in 0..rounds {
        parsed.clear();
        for (name, b) in &files {
            let read = tesuji_sgf::read(b).with_context(|| name.clone())?;
            parsed.push(read.collection);
        }
    }
    let parse_secs = start.elapsed().as_secs_f64();
    let mut games = Vec::new();
    for (collection, (name, _)) in parsed.iter().zip(&files) {
        for tree in &collection.trees {
            let rules = record_rules(tree, Some("tromp-taylor".parse()?), Rules::default())
                .with_context(|| name.clone())?;
            games.push((tree, rules, name));
        }
    }
    let start = Instant::now();
    let mut moves = 0usize;
    for _ in 0..rounds {
        for (tree, rules, name) in &games {
            let r = replay(tree, *rules).with_context(|| (*name).clone())?;
            moves += r.turns;
        }
    }
    let replay_secs = start.elapsed().as_secs_f64();
    println!(
        "files {} bytes {bytes} games {} rounds {rounds}",
        files.len(),
        games.len()
    );
    println!(
        "parse MB/s {:.1}",
        (bytes as f64 * rounds as f64) / parse_secs / 1e6
    );
    println!("replay moves/s {:.0}", moves as f64 / replay_secs);
    Ok(())
}
