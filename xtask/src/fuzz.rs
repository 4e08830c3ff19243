//! `cargo xtask fuzz`: the coverage-guided fuzz targets of `fuzz/` (ARCHITECTURE.md "Fuzzing"), run with
//! cargo-fuzz and libFuzzer on the stable toolchain (`RUSTC_BOOTSTRAP=1`, `--sanitizer none`).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

/// A fuzz target and the folders of test data its corpus starts from (beside what earlier runs kept).
#[derive(Debug)]
pub struct Target {
    pub name: &'static str,
    pub seeds: &'static [&'static str],
}

/// Every target of `fuzz/fuzz_targets`, in the order they run.
pub const TARGETS: &[Target] = &[
    Target {
        name: "sgf",
        seeds: &["crates/sgf/tests/data"],
    },
    Target {
        name: "spec",
        seeds: &["fuzz/seeds/spec"],
    },
    Target {
        name: "gtp",
        seeds: &["crates/gtp/tests/data"],
    },
    Target {
        name: "socket",
        seeds: &["fuzz/seeds/socket"],
    },
    Target {
        name: "rules",
        seeds: &[],
    },
    Target {
        name: "network",
        seeds: &["fuzz/seeds/network"],
    },
];

/// How long `cargo xtask test` runs each target.
pub const CI_SECONDS: u64 = 60;

/// What one run found.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub runs: u64,
    pub seconds: u64,
}

/// The targets a command line names (all when none is named), or a one-line error naming the known ones.
pub fn choose(names: &[String]) -> Result<Vec<&'static Target>> {
    if names.is_empty() {
        return Ok(TARGETS.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            TARGETS.iter().find(|t| t.name == n).with_context(|| {
                let known: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
                format!(
                    "unknown fuzz target {n:?}; the targets are {}",
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// Builds the targets once, then runs each for `time`, as many at once as there are cores; fails when a
/// target finds a crash, naming the input libFuzzer kept.
pub fn run(root: &Path, targets: &[&Target], time: Duration) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    ensure_cargo_fuzz(&cargo)?;
    let fuzz_dir = root.join("fuzz");
    let status = fuzz_command(&cargo, &fuzz_dir)
        .args(["build", "--sanitizer", "none"])
        .status()
        .context("cannot run cargo fuzz build")?;
    if !status.success() {
        bail!("the fuzz targets do not build ({status})");
    }
    // libFuzzer keeps one core busy: as many targets run at once as there are cores.
    let at_once = std::thread::available_parallelism().map_or(1, |n| n.get());
    for batch in targets.chunks(at_once) {
        let running: Vec<Running> = batch
            .iter()
            .map(|t| start(&cargo, root, &fuzz_dir, t, time))
            .collect::<Result<_>>()?;
        // Every run of the batch is waited for before the first failure is told.
        let results: Vec<Result<()>> = running.into_iter().map(|r| r.finish(&fuzz_dir)).collect();
        results.into_iter().collect::<Result<()>>()?;
    }
    Ok(())
}

/// One target being fuzzed, its output going to its log.
struct Running {
    name: &'static str,
    child: std::process::Child,
    log_path: std::path::PathBuf,
}

fn start(
    cargo: &std::ffi::OsStr,
    root: &Path,
    fuzz_dir: &Path,
    target: &Target,
    time: Duration,
) -> Result<Running> {
    let corpus = fuzz_dir.join("corpus").join(target.name);
    std::fs::create_dir_all(&corpus)
        .with_context(|| format!("cannot create {}", corpus.display()))?;
    let log_path = fuzz_dir
        .join("artifacts")
        .join(format!("{}.log", target.name));
    std::fs::create_dir_all(log_path.parent().expect("a log has a folder"))?;
    let log = std::fs::File::create(&log_path)
        .with_context(|| format!("cannot create {}", log_path.display()))?;
    eprintln!("xtask: fuzzing {} for {} s", target.name, time.as_secs());
    let mut command = fuzz_command(cargo, fuzz_dir);
    command
        .args(["run", "--sanitizer", "none", target.name])
        .arg(&corpus)
        .args(target.seeds.iter().map(|s| root.join(s)))
        .arg("--")
        .arg(format!("-max_total_time={}", time.as_secs()))
        // libFuzzer's own limits: a run over 2 GB or 60 s is a finding too.
        .args(["-rss_limit_mb=2048", "-timeout=60", "-print_final_stats=1"])
        .stdout(log.try_clone()?)
        .stderr(log);
    let child = command.spawn().context("cannot run cargo fuzz run")?;
    Ok(Running {
        name: target.name,
        child,
        log_path,
    })
}

impl Running {
    /// Waits for the run; an error names the log and the input libFuzzer kept.
    fn finish(mut self, fuzz_dir: &Path) -> Result<()> {
        let status = self
            .child
            .wait()
            .context("cannot wait for cargo fuzz run")?;
        let text = std::fs::read_to_string(&self.log_path).unwrap_or_default();
        if !status.success() {
            let tail: Vec<&str> = text.lines().rev().take(40).collect();
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
            bail!(
                "fuzz target {} failed ({status}); its log is {} and the input is under {}",
                self.name,
                self.log_path.display(),
                fuzz_dir.join("artifacts").join(self.name).display()
            );
        }
        match outcome(&text) {
            Some(o) => eprintln!(
                "xtask: {}: {} runs in {} s, nothing found",
                self.name, o.runs, o.seconds
            ),
            None => bail!(
                "fuzz target {} ended without libFuzzer's summary; see {}",
                self.name,
                self.log_path.display()
            ),
        }
        Ok(())
    }
}

/// `cargo fuzz` in `fuzz/`, allowed the unstable flags it passes to rustc on the stable toolchain.
fn fuzz_command(cargo: &std::ffi::OsStr, fuzz_dir: &Path) -> Command {
    let mut command = Command::new(cargo);
    command
        .arg("fuzz")
        .current_dir(fuzz_dir)
        .env("RUSTC_BOOTSTRAP", "1");
    command
}

/// Installs cargo-fuzz (a cargo subcommand, built from the crate registry) when `cargo fuzz` is missing.
fn ensure_cargo_fuzz(cargo: &std::ffi::OsStr) -> Result<()> {
    let present = Command::new(cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if present {
        return Ok(());
    }
    eprintln!("xtask: installing cargo-fuzz (cargo install cargo-fuzz --locked)");
    let status = Command::new(cargo)
        .args(["install", "cargo-fuzz", "--locked"])
        .status()
        .context("cannot run cargo install")?;
    if !status.success() {
        bail!("`cargo install cargo-fuzz --locked` failed ({status})");
    }
    Ok(())
}

/// libFuzzer's closing line, `Done 71027 runs in 61 second(s)`.
pub fn outcome(log: &str) -> Option<Outcome> {
    log.lines().rev().find_map(|line| {
        let rest = line.strip_prefix("Done ")?;
        let (runs, rest) = rest.split_once(" runs in ")?;
        let seconds = rest.strip_suffix(" second(s)")?;
        Some(Outcome {
            runs: runs.trim().parse().ok()?,
            seconds: seconds.trim().parse().ok()?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libfuzzer_summary_is_read() {
        let log =
            "#2\tINITED\nstat::number_of_executed_units: 9\nDone 71027 runs in 61 second(s)\n";
        assert_eq!(
            outcome(log),
            Some(Outcome {
                runs: 71027,
                seconds: 61
            })
        );
        assert_eq!(outcome("==1== ERROR: libFuzzer: deadly signal\n"), None);
        assert_eq!(outcome("Done many runs in 61 second(s)\n"), None);
    }

    #[test]
    fn targets_are_chosen_by_name() {
        assert_eq!(choose(&[]).unwrap().len(), TARGETS.len());
        let chosen = choose(&["rules".into(), "sgf".into()]).unwrap();
        assert_eq!(
            chosen.iter().map(|t| t.name).collect::<Vec<_>>(),
            ["rules", "sgf"]
        );
        let e = choose(&["sfg".into()]).unwrap_err().to_string();
        assert!(e.contains("\"sfg\"") && e.contains("sgf, spec"), "{e}");
    }

    #[test]
    fn every_target_has_its_source_and_seeds() {
        let root = crate::workspace_root();
        let manifest = std::fs::read_to_string(root.join("fuzz").join("Cargo.toml")).unwrap();
        let sources = std::fs::read_dir(root.join("fuzz").join("fuzz_targets"))
            .unwrap()
            .count();
        assert_eq!(
            sources,
            TARGETS.len(),
            "a target in fuzz/ but not here, or the reverse"
        );
        for t in TARGETS {
            assert!(
                root.join("fuzz")
                    .join("fuzz_targets")
                    .join(format!("{}.rs", t.name))
                    .is_file(),
                "{}",
                t.name
            );
            assert!(
                manifest.contains(&format!("name = \"{}\"", t.name)),
                "{}",
                t.name
            );
            for s in t.seeds {
                assert!(root.join(s).is_dir(), "{s}");
            }
        }
    }
}
