//! `tesuji match`: two GTP engines, refereed.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use tesuji_gtp::referee::{MatchConfig, run_match, summarize};
use tesuji_rules::Rules;

/// `tesuji match`'s flags, as typed: [`run`] checks them.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// Engine A's command (Black in the first game), e.g. "/usr/games/gnugo --mode gtp --level 1".
    #[arg(long)]
    pub black: String,
    /// Engine B's command.
    #[arg(long)]
    pub white: String,
    /// Rules spec.
    #[arg(long, default_value = "chinese")]
    pub rules: String,
    /// Number of games.
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Board size (overrides the spec's).
    #[arg(long)]
    pub size: Option<u8>,
    /// Seconds each engine has for a move; missing the deadline loses the game.
    #[arg(long, default_value_t = 10.0)]
    pub time_per_move: f64,
    /// Seconds an engine has to answer any other command (starting up included).
    #[arg(long, default_value_t = 30.0)]
    pub setup_time: f64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub parallel: usize,
    /// Keep the same colours in every game (by default they alternate).
    #[arg(long)]
    pub no_alternate: bool,
    /// Real clocks instead of a deadline per move: `absolute:10m`, `fischer:5m+10s`, `byoyomi:10m+5x30s`,
    /// `canadian:10m+25/5m`, `simple:30s`, or a preset (blitz, rapid, classical). Running out loses (B+T/W+T).
    #[arg(long)]
    pub time: Option<String>,
    /// Write every game as SGF into this folder.
    #[arg(long)]
    pub sgf_dir: Option<PathBuf>,
}

/// Checks the flags, then plays the match.
pub fn run(args: MatchArgs) -> Result<()> {
    let MatchArgs {
        black,
        white,
        rules: spec,
        games,
        size,
        time_per_move,
        setup_time,
        parallel,
        no_alternate,
        time,
        sgf_dir,
    } = args;
    let alternate = !no_alternate;
    let time = time.as_deref();
    let mut rules: Rules = spec
        .parse()
        .with_context(|| format!("bad --rules {spec:?}"))?;
    if let Some(s) = size {
        rules.size = tesuji_rules::Size::square(s)
            .with_context(|| format!("bad --size {s}: use 1 to 25"))?;
    }
    if games == 0 {
        bail!("bad --games 0: play at least one game");
    }
    if !(time_per_move.is_finite() && time_per_move > 0.0 && time_per_move <= 3600.0) {
        bail!("bad --time-per-move {time_per_move}: use seconds, more than 0 and at most 3600");
    }
    if !(setup_time.is_finite() && setup_time > 0.0 && setup_time <= 3600.0) {
        bail!("bad --setup-time {setup_time}: use seconds, more than 0 and at most 3600");
    }
    let time = time
        .map(|t| {
            t.parse::<tesuji_clock::TimeControl>()
                .with_context(|| format!("bad --time {t:?}"))
        })
        .transpose()?;
    if let Some(dir) = &sgf_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create --sgf-dir {}", dir.display()))?;
    }
    let config = MatchConfig {
        black,
        white,
        rules,
        games,
        alternate,
        time_per_move: Duration::from_secs_f64(time_per_move),
        setup_time: Duration::from_secs_f64(setup_time),
        parallel: parallel.max(1),
        time,
    };
    let bar = ProgressBar::new(games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Without a terminal the bar is hidden: a line per game instead, so a long match shows its progress in a log.
    let log_lines = bar.is_hidden();
    // Each record is written as its game ends, so a long match that is stopped keeps what it played.
    let write_failure = std::sync::Mutex::new(None);
    let records = run_match(&config, |r| {
        let result = r.result.map_or("no result".to_string(), |x| x.to_string());
        if let Some(dir) = &sgf_dir {
            let path = dir.join(format!("game-{:04}.sgf", r.index + 1));
            if let Err(e) = std::fs::write(&path, &r.sgf)
                && let Ok(mut first) = write_failure.lock()
            {
                first.get_or_insert(format!("cannot write {}: {e}", path.display()));
            }
        }
        if log_lines {
            let a = if r.a_color == tesuji_rules::Color::Black {
                "A Black"
            } else {
                "A White"
            };
            eprintln!("game {}: {result} ({a}, {} turns)", r.index + 1, r.turns);
        }
        bar.set_message(format!("game {}: {result}", r.index + 1));
        bar.inc(1);
    });
    bar.finish_and_clear();
    if let Some(e) = write_failure.into_inner().ok().flatten() {
        bail!(e);
    }
    for r in records.iter().filter(|r| r.fault.is_some()) {
        eprintln!("game {}: {}", r.index + 1, r.fault.as_deref().unwrap_or(""));
    }
    // The engines as they name themselves (`name` and `version`), from the first game that started them.
    let (a, b) = records
        .iter()
        .map(|r| r.a_and_b_names())
        .find(|(a, b)| !a.is_empty() && !b.is_empty())
        .map_or_else(
            || {
                (
                    tesuji_gtp::referee::program_name(&config.black),
                    tesuji_gtp::referee::program_name(&config.white),
                )
            },
            |(a, b)| (a.to_string(), b.to_string()),
        );
    println!("A = {a}\nB = {b}\nrules {}", config.rules);
    println!("{}", summarize(&records));
    Ok(())
}
