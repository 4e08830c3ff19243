//! `cargo xtask test`: the README's test command. It makes sure the system packages the tests need are there
//! (installing them with `apt-get` when it runs as root) and the Node packages they drive our programs with
//! (with npm, into the target folder, `TESUJI_TEST_NODE_PATH`), starts the services the tests talk to (a throw-away
//! PostgreSQL 15 and a nats-server on free ports, found by the tests through `TESUJI_TEST_POSTGRES` and
//! `TESUJI_TEST_NATS`), runs `cargo test --workspace` with any arguments given after `--` (with none, then the
//! server's API suite again on PostgreSQL and on two nodes), stops the services and removes their files, then
//! (when no arguments narrowed the tests) runs the pages' JavaScript tests with Node and every fuzz target for a
//! minute, and exits with the first failure's status.
//! `cargo xtask fuzz` runs the fuzz targets alone, for as long as asked.

mod fuzz;
mod networks;
mod requirements;
mod services;

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode, ExitStatus};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use requirements::{Plan, REQUIREMENTS, Requirement};

const USAGE: &str = "\
usage: cargo xtask test [-- CARGO-TEST-ARGS...]

test    checks for the system packages the tests need (GNU Go, Chromium, ChromeDriver, Node.js, npm,
        g++, PostgreSQL 15, nats-server), installs the missing ones with apt-get when run as root (or
        names them and stops, otherwise), installs Sabaki's GTP library with npm into
        target/node-packages (TESUJI_TEST_NODE_PATH), starts a throw-away PostgreSQL 15 cluster and a
        nats-server on free ports of 127.0.0.1, runs `cargo test --workspace CARGO-TEST-ARGS...` with
        TESUJI_TEST_POSTGRES (postgres://tesuji@127.0.0.1:PORT/postgres) and TESUJI_TEST_NATS
        (nats://127.0.0.1:PORT) set (with no arguments, then the server's API suite again on PostgreSQL
        and on two nodes, as TESUJI_TEST_BACKEND=postgres and =nodes), stops both and removes their
        files, and exits with the tests' status. When the arguments choose packages (-p/--package),
        --workspace is left out: `cargo xtask test -- -p tesuji-rules --lib`. When no arguments are
        given, the pages' tests (`node --test` on crates/server/web/tests/*.test.mjs) and every fuzz
        target for 60 s (as `cargo xtask fuzz --seconds 60`) then run too.

fuzz    [--seconds N] [TARGET...]: builds the fuzz targets of fuzz/ with cargo-fuzz (installing it with
        `cargo install` when missing) and runs each named target (all by default: sgf, spec, gtp,
        socket, rules) for N seconds (default 60), as many at once as there are cores, from its
        corpus in fuzz/corpus and seeds from the tests' data. A crash stops it, naming the input
        kept under fuzz/artifacts.";

fn main() -> ExitCode {
    match run(std::env::args_os().skip(1).collect()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Task {
    Help,
    /// `test`, with the arguments after its `--`.
    Test(Vec<OsString>),
    Fuzz {
        targets: Vec<String>,
        seconds: u64,
    },
}

fn parse(args: &[OsString]) -> Result<Task> {
    let Some(command) = args.first() else {
        bail!("no task given; `cargo xtask --help` lists them");
    };
    let rest = &args[1..];
    match command.to_str() {
        Some("-h" | "--help" | "help") => Ok(Task::Help),
        Some("test") => match rest.first() {
            None => Ok(Task::Test(Vec::new())),
            Some(a) if a == "--" => Ok(Task::Test(rest[1..].to_vec())),
            Some(a) if a == "-h" || a == "--help" => Ok(Task::Help),
            Some(a) => bail!(
                "unexpected argument {a:?} to `test`: cargo test's arguments go after `--`, \
                 as in `cargo xtask test -- -p tesuji-rules`"
            ),
        },
        Some("fuzz") => parse_fuzz(rest),
        _ => bail!(
            "unknown task {command:?}; the tasks are `test` and `fuzz` (`cargo xtask --help`)"
        ),
    }
}

fn parse_fuzz(args: &[OsString]) -> Result<Task> {
    let mut targets = Vec::new();
    let mut seconds = fuzz::CI_SECONDS;
    let mut words = args.iter();
    while let Some(a) = words.next() {
        let Some(a) = a.to_str() else {
            bail!("fuzz target names are plain words, not {a:?}");
        };
        match a {
            "-h" | "--help" => return Ok(Task::Help),
            "--seconds" => {
                let n = words.next().and_then(|n| n.to_str());
                seconds = match n.map(str::parse::<u64>) {
                    Some(Ok(n)) if n > 0 => n,
                    _ => bail!(
                        "--seconds takes a whole number of seconds above 0, as in `--seconds 3600`"
                    ),
                };
            }
            _ if a.starts_with('-') => {
                bail!("unknown option {a:?} to `fuzz`; it takes --seconds N")
            }
            _ => targets.push(a.to_string()),
        }
    }
    fuzz::choose(&targets)?;
    Ok(Task::Fuzz { targets, seconds })
}

fn run(args: Vec<OsString>) -> Result<ExitCode> {
    match parse(&args)? {
        Task::Help => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Task::Test(extra) => {
            let code = test(&extra)?;
            if code != ExitCode::SUCCESS || !extra.is_empty() {
                return Ok(code);
            }
            let code = page_tests()?;
            if code != ExitCode::SUCCESS {
                return Ok(code);
            }
            fuzz::run(
                workspace_root(),
                &fuzz::choose(&[])?,
                Duration::from_secs(fuzz::CI_SECONDS),
            )?;
            Ok(code)
        }
        Task::Fuzz { targets, seconds } => {
            ensure_requirements(REQUIREMENTS)?;
            fuzz::run(
                workspace_root(),
                &fuzz::choose(&targets)?,
                Duration::from_secs(seconds),
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The API suite's backends beside SQLite (`TESUJI_TEST_BACKEND`): its one binary runs again on each.
const OTHER_API_BACKENDS: [&str; 2] = ["postgres", "nodes"];

fn test(extra: &[OsString]) -> Result<ExitCode> {
    ensure_requirements(REQUIREMENTS)?;
    let node_path = node_packages()?;
    let network = networks::reference_network()?;
    let status = services::with_services(services::services(), |env| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut runs = vec![(cargo_test_args(extra), None)];
        // Narrowed runs take the backend from the caller's environment instead.
        if extra.is_empty() {
            runs.extend(OTHER_API_BACKENDS.map(|b| (api_suite_args(), Some(b))));
        }
        for (args, backend) in runs {
            if let Some(backend) = backend {
                eprintln!("xtask: the API suite on {backend}");
            }
            let mut command = Command::new(&cargo);
            command
                .args(args)
                .envs(env.iter().map(|(k, v)| (k, v)))
                .env(NODE_PATH_VAR, &node_path)
                .env(networks::NETWORK_VAR, &network)
                .current_dir(workspace_root());
            if let Some(backend) = backend {
                command.env("TESUJI_TEST_BACKEND", backend);
            }
            let status = command
                .status()
                .with_context(|| format!("cannot run {}", cargo.to_string_lossy()))?;
            if !status.success() {
                return Ok(status);
            }
        }
        Ok(ExitStatus::default())
    })?;
    Ok(exit_code(status))
}

/// The variable that tells the tests where the Node packages are (a `node_modules` folder, for `NODE_PATH`).
const NODE_PATH_VAR: &str = "TESUJI_TEST_NODE_PATH";

/// The Node packages the tests drive our programs with, as `npm install` names them: Sabaki's GTP library
/// (`crates/cli/tests/gtp.rs`).
const NODE_PACKAGES: &[(&str, &str)] = &[("@sabaki/gtp", "3.0.0")];

/// Installs [`NODE_PACKAGES`] with npm into `node-packages/` of the target folder, unless the versions asked
/// for are there already; answers its `node_modules` folder.
fn node_packages() -> Result<std::path::PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let prefix = std::path::absolute(target.join("node-packages"))
        .context("cannot find the target folder")?;
    let modules = prefix.join("node_modules");
    let installed = |name: &str, version: &str| {
        // npm keeps a package's manifest as published, one `"version": "X"` line in it.
        std::fs::read_to_string(modules.join(name).join("package.json"))
            .is_ok_and(|text| text.contains(&format!("\"version\": \"{version}\"")))
    };
    let wanted: Vec<String> = NODE_PACKAGES
        .iter()
        .filter(|(name, version)| !installed(name, version))
        .map(|(name, version)| format!("{name}@{version}"))
        .collect();
    if wanted.is_empty() {
        return Ok(modules);
    }
    std::fs::create_dir_all(&prefix)
        .with_context(|| format!("cannot create {}", prefix.display()))?;
    eprintln!("xtask: installing {} with npm", wanted.join(" "));
    let status = Command::new("npm")
        .args([
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(&prefix)
        .args(&wanted)
        .status()
        .context("cannot run npm")?;
    if !status.success() {
        bail!("`npm install {}` failed ({status})", wanted.join(" "));
    }
    Ok(modules)
}

/// `cargo test` of the server's API suite alone, built already by the workspace's run: `--workspace` keeps
/// the workspace's features, where `--package` would choose others and rebuild the server and its
/// dependencies (3 minutes here).
fn api_suite_args() -> Vec<OsString> {
    ["test", "--workspace", "--test", "api"]
        .map(OsString::from)
        .to_vec()
}

/// The pages' JavaScript tests: every `*.test.mjs` of `crates/server/web/tests`, with Node's test runner.
fn page_tests() -> Result<ExitCode> {
    let dir = workspace_root().join("crates/server/web/tests");
    let files = test_files(&dir)?;
    if files.is_empty() {
        bail!("no *.test.mjs file in {}", dir.display());
    }
    let status = Command::new("node")
        .arg("--test")
        .args(&files)
        .current_dir(workspace_root())
        .status()
        .context("cannot run node")?;
    Ok(exit_code(status))
}

/// The `*.test.mjs` files of `dir`, sorted.
fn test_files(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".test.mjs")))
        .collect();
    files.sort();
    Ok(files)
}

/// Checks every requirement; installs the missing packages as root, or fails naming them.
fn ensure_requirements(requirements: &[Requirement]) -> Result<()> {
    let missing = requirements::missing(requirements);
    match requirements::plan(&missing, is_root()) {
        Plan::Ready => Ok(()),
        Plan::Refuse(message) => bail!(message),
        Plan::Install(packages) => {
            eprintln!(
                "xtask: installing {} (running as root): {}",
                packages.join(" "),
                requirements::install_command(&packages)
            );
            apt_get(&["update", "-qq"])?;
            let mut install = vec!["install", "-y", "-qq"];
            install.extend(&packages);
            apt_get(&install)?;
            let still = requirements::missing(requirements);
            if !still.is_empty() {
                bail!(
                    "apt-get installed {} but still missing: {}",
                    packages.join(" "),
                    requirements::describe(&still)
                );
            }
            Ok(())
        }
    }
}

fn apt_get(args: &[&str]) -> Result<()> {
    let status = Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .context("cannot run apt-get (this command installs packages on Debian and its derivatives only)")?;
    if !status.success() {
        bail!("`apt-get {}` failed ({status})", args.join(" "));
    }
    Ok(())
}

/// `test --workspace EXTRA...`, without `--workspace` when EXTRA chooses packages itself (cargo would
/// otherwise ignore `-p` and test the whole workspace).
fn cargo_test_args(extra: &[OsString]) -> Vec<OsString> {
    let chooses_packages = extra
        .iter()
        .take_while(|a| *a != "--")
        .filter_map(|a| a.to_str())
        .any(|a| a == "--package" || a.starts_with("--package=") || a.starts_with("-p"));
    let mut args: Vec<OsString> = vec!["test".into()];
    if !chooses_packages {
        args.push("--workspace".into());
    }
    args.extend(extra.iter().cloned());
    args
}

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ lies in the workspace root")
}

/// The tests' exit status as ours: their code, or 128 + the signal that killed them, as shells report it.
fn exit_code(status: ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitCode::from(u8::try_from(128 + signal).unwrap_or(1));
        }
    }
    ExitCode::FAILURE
}

#[cfg(unix)]
fn is_root() -> bool {
    unsafe extern "C" {
        // POSIX: always succeeds, no preconditions.
        safe fn geteuid() -> u32;
    }
    geteuid() == 0
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn test_takes_the_arguments_after_its_double_dash() {
        assert_eq!(parse(&args(&["test"])).unwrap(), Task::Test(vec![]));
        assert_eq!(
            parse(&args(&["test", "--", "-p", "x", "--", "--nocapture"])).unwrap(),
            Task::Test(args(&["-p", "x", "--", "--nocapture"]))
        );
        assert_eq!(parse(&args(&["--help"])).unwrap(), Task::Help);
        assert_eq!(parse(&args(&["test", "--help"])).unwrap(), Task::Help);
    }

    #[test]
    fn fuzz_takes_targets_and_a_time() {
        assert_eq!(
            parse(&args(&["fuzz"])).unwrap(),
            Task::Fuzz {
                targets: vec![],
                seconds: 60
            }
        );
        assert_eq!(
            parse(&args(&["fuzz", "rules", "--seconds", "3600", "sgf"])).unwrap(),
            Task::Fuzz {
                targets: vec!["rules".into(), "sgf".into()],
                seconds: 3600
            }
        );
    }

    #[test]
    fn other_command_lines_are_one_line_errors() {
        for bad in [
            &[][..],
            &["ci"],
            &["test", "-p", "x"],
            &["test", "x"],
            &["fuzz", "sfg"],
            &["fuzz", "--seconds"],
            &["fuzz", "--seconds", "0"],
            &["fuzz", "--seconds", "an hour"],
            &["fuzz", "--minutes", "3"],
        ] {
            let e = parse(&args(bad)).unwrap_err().to_string();
            assert!(!e.contains('\n'), "{bad:?}: {e}");
            assert!(!e.is_empty());
        }
        let e = parse(&args(&["ci"])).unwrap_err().to_string();
        assert!(e.contains("\"ci\"") && e.contains("`test`"), "{e}");
        let e = parse(&args(&["fuzz", "--seconds", "0"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--seconds"), "{e}");
        let e = parse(&args(&["test", "-p", "x"])).unwrap_err().to_string();
        assert!(e.contains("\"-p\"") && e.contains("after `--`"), "{e}");
    }

    #[test]
    fn the_whole_workspace_unless_packages_are_chosen() {
        assert_eq!(cargo_test_args(&[]), args(&["test", "--workspace"]));
        assert_eq!(
            cargo_test_args(&args(&["--lib", "--", "--nocapture"])),
            args(&["test", "--workspace", "--lib", "--", "--nocapture"])
        );
        for choose in [
            &["-p", "tesuji-rules", "--lib"][..],
            &["-ptesuji-rules"],
            &["--package", "tesuji-rules"],
            &["--package=tesuji-rules"],
        ] {
            let mut expected = args(&["test"]);
            expected.extend(args(choose));
            assert_eq!(cargo_test_args(&args(choose)), expected);
        }
        // After cargo's own `--` the words are the test binaries' (a test name filter), not packages.
        assert_eq!(
            cargo_test_args(&args(&["--", "-p"])),
            args(&["test", "--workspace", "--", "-p"])
        );
    }

    #[cfg(unix)]
    #[test]
    fn exit_status_is_passed_on() {
        use std::os::unix::process::ExitStatusExt;
        // Raw wait statuses: exit code in the second byte, a terminating signal in the low bits.
        assert_eq!(exit_code(ExitStatus::from_raw(0)), ExitCode::SUCCESS);
        assert_eq!(
            exit_code(ExitStatus::from_raw(101 << 8)),
            ExitCode::from(101)
        );
        assert_eq!(exit_code(ExitStatus::from_raw(9)), ExitCode::from(137));
    }

    #[test]
    fn the_pages_tests_are_found() {
        let files = test_files(&workspace_root().join("crates/server/web/tests")).unwrap();
        assert!(
            files
                .iter()
                .any(|f| f.file_name().is_some_and(|n| n == "logic.test.mjs")),
            "{files:?}"
        );
        assert!(test_files(Path::new("/no/such/directory")).is_err());
    }

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"));
        assert!(workspace_root().join("xtask").is_dir());
    }
}
