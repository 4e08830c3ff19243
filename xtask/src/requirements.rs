//! What the tests need installed on the machine, how to tell whether it is, and what to do when it is not.

use std::ffi::OsStr;
use std::path::Path;

/// Something the tests need from the system, and the Debian package that provides it.
#[derive(Debug, PartialEq)]
pub struct Requirement {
    /// What it is, for messages.
    pub name: &'static str,
    /// The Debian package that installs it.
    pub package: &'static str,
    pub check: Check,
}

/// How to tell that a requirement is installed.
#[derive(Debug, PartialEq)]
pub enum Check {
    /// An executable file at this path (the tests run it by this path).
    File(&'static str),
    /// An executable of this name in a directory of `PATH` (the tests run it by its name).
    OnPath(&'static str),
}

/// Everything the tests need. A service that `cargo xtask test` starts adds its package here.
pub const REQUIREMENTS: &[Requirement] = &[
    // The GTP tests' peer and the bot's dead-stone reference.
    Requirement {
        name: "GNU Go",
        package: "gnugo",
        check: Check::File("/usr/games/gnugo"),
    },
    // The browser test's browser and its WebDriver.
    Requirement {
        name: "Chromium",
        package: "chromium",
        check: Check::OnPath("chromium"),
    },
    Requirement {
        name: "ChromeDriver",
        package: "chromium-driver",
        check: Check::OnPath("chromedriver"),
    },
    // The pages' pure modules are tested with Node's own test runner.
    Requirement {
        name: "Node.js",
        package: "nodejs",
        check: Check::OnPath("node"),
    },
    // npm installs the Node packages the tests drive our programs with (Sabaki's GTP library).
    Requirement {
        name: "npm",
        package: "npm",
        check: Check::OnPath("npm"),
    },
    // The fuzz targets' libFuzzer is C++, built by the `cc` crate with `c++` (Rust itself links with `cc`).
    Requirement {
        name: "a C++ compiler",
        package: "g++",
        check: Check::OnPath("c++"),
    },
    // pip fetches the network the neural-network tests evaluate, as a user gets it (networks.rs).
    Requirement {
        name: "pip",
        package: "python3-pip",
        check: Check::OnPath("pip3"),
    },
    // The services `cargo xtask test` starts around the tests (services.rs): a throw-away PostgreSQL 15
    // cluster, run from its version's directory, and a NATS server.
    Requirement {
        name: "PostgreSQL 15",
        package: "postgresql",
        check: Check::File("/usr/lib/postgresql/15/bin/initdb"),
    },
    Requirement {
        name: "NATS server",
        package: "nats-server",
        check: Check::OnPath("nats-server"),
    },
];

impl Requirement {
    /// Whether it is installed, looking up commands in `path` (the value of `PATH`).
    pub fn present(&self, path: Option<&OsStr>) -> bool {
        match self.check {
            Check::File(file) => is_executable(Path::new(file)),
            Check::OnPath(name) => path.is_some_and(|path| {
                std::env::split_paths(path)
                    .filter(|dir| !dir.as_os_str().is_empty())
                    .any(|dir| is_executable(&dir.join(name)))
            }),
        }
    }

    fn describe(&self) -> String {
        match self.check {
            Check::File(file) => format!("{} ({file})", self.name),
            Check::OnPath(name) => format!("{} (`{name}` on the PATH)", self.name),
        }
    }
}

#[cfg(unix)]
fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    file.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(file: &Path) -> bool {
    file.is_file()
}

/// The requirements that are not installed, in list order.
pub fn missing(requirements: &[Requirement]) -> Vec<&Requirement> {
    let path = std::env::var_os("PATH");
    requirements
        .iter()
        .filter(|r| !r.present(path.as_deref()))
        .collect()
}

/// What to do about the missing requirements.
#[derive(Debug, PartialEq)]
pub enum Plan {
    /// Nothing is missing: run the tests.
    Ready,
    /// Running as root: install these packages, then run the tests.
    Install(Vec<&'static str>),
    /// Not root: stop, with this message (what is missing and the command that installs it).
    Refuse(String),
}

pub fn plan(missing: &[&Requirement], root: bool) -> Plan {
    if missing.is_empty() {
        return Plan::Ready;
    }
    let packages = packages(missing);
    if root {
        Plan::Install(packages)
    } else {
        Plan::Refuse(format!(
            "the tests need {}: install {} as root with `{}`, then run this again \
             (run as root, it installs {} itself)",
            describe(missing),
            if missing.len() == 1 { "it" } else { "them" },
            install_command(&packages),
            if missing.len() == 1 { "it" } else { "them" },
        ))
    }
}

/// The packages of the requirements, each once, in list order.
fn packages(missing: &[&Requirement]) -> Vec<&'static str> {
    let mut packages: Vec<&'static str> = Vec::new();
    for r in missing {
        if !packages.contains(&r.package) {
            packages.push(r.package);
        }
    }
    packages
}

/// The command that installs the packages, as `cargo xtask test` runs it as root.
pub fn install_command(packages: &[&str]) -> String {
    format!(
        "apt-get update && apt-get install -y {}",
        packages.join(" ")
    )
}

/// "A (x)", "A (x) and B (y)", "A (x), B (y) and C (z)".
pub fn describe(missing: &[&Requirement]) -> String {
    let names: Vec<String> = missing.iter().map(|r| r.describe()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const GNUGO: &Requirement = &REQUIREMENTS[0];
    const CHROMIUM: &Requirement = &REQUIREMENTS[1];
    const DRIVER: &Requirement = &REQUIREMENTS[2];

    #[test]
    fn the_tests_need_gnu_go_chromium_its_driver_node_npm_a_cpp_compiler_pip_postgresql_and_nats() {
        let list: Vec<_> = REQUIREMENTS.iter().map(|r| (r.package, &r.check)).collect();
        assert_eq!(
            list,
            [
                ("gnugo", &Check::File("/usr/games/gnugo")),
                ("chromium", &Check::OnPath("chromium")),
                ("chromium-driver", &Check::OnPath("chromedriver")),
                ("nodejs", &Check::OnPath("node")),
                ("npm", &Check::OnPath("npm")),
                ("g++", &Check::OnPath("c++")),
                ("python3-pip", &Check::OnPath("pip3")),
                (
                    "postgresql",
                    &Check::File("/usr/lib/postgresql/15/bin/initdb")
                ),
                ("nats-server", &Check::OnPath("nats-server")),
            ]
        );
    }

    #[test]
    fn nothing_missing_runs_the_tests_root_or_not() {
        assert_eq!(plan(&[], true), Plan::Ready);
        assert_eq!(plan(&[], false), Plan::Ready);
    }

    #[test]
    fn root_installs_exactly_the_missing_packages() {
        assert_eq!(plan(&[GNUGO], true), Plan::Install(vec!["gnugo"]));
        assert_eq!(
            plan(&[GNUGO, DRIVER], true),
            Plan::Install(vec!["gnugo", "chromium-driver"])
        );
        assert_eq!(
            plan(&[GNUGO, CHROMIUM, DRIVER], true),
            Plan::Install(vec!["gnugo", "chromium", "chromium-driver"])
        );
    }

    #[test]
    fn a_package_shared_by_two_requirements_is_installed_once() {
        let client = Requirement {
            name: "GNU Go's twin",
            package: "gnugo",
            check: Check::OnPath("gnugo"),
        };
        assert_eq!(
            plan(&[GNUGO, &client, DRIVER], true),
            Plan::Install(vec!["gnugo", "chromium-driver"])
        );
    }

    #[test]
    fn not_root_names_what_is_missing_and_the_command_and_installs_nothing() {
        assert_eq!(
            plan(&[GNUGO, DRIVER], false),
            Plan::Refuse(
                "the tests need GNU Go (/usr/games/gnugo) and ChromeDriver (`chromedriver` on the PATH): \
                 install them as root with `apt-get update && apt-get install -y gnugo chromium-driver`, \
                 then run this again (run as root, it installs them itself)"
                    .into()
            )
        );
        assert_eq!(
            plan(&[CHROMIUM], false),
            Plan::Refuse(
                "the tests need Chromium (`chromium` on the PATH): install it as root with \
                 `apt-get update && apt-get install -y chromium`, then run this again \
                 (run as root, it installs it itself)"
                    .into()
            )
        );
        let Plan::Refuse(all) = plan(&[GNUGO, CHROMIUM, DRIVER], false) else {
            panic!("not root must refuse");
        };
        assert!(all.starts_with(
            "the tests need GNU Go (/usr/games/gnugo), Chromium (`chromium` on the PATH) and \
             ChromeDriver (`chromedriver` on the PATH):"
        ));
        assert!(
            all.contains("`apt-get update && apt-get install -y gnugo chromium chromium-driver`")
        );
    }

    /// A fresh directory under the system's temporary one, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("xtask-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        fn file(&self, name: &str, mode: u32) -> PathBuf {
            let file = self.0.join(name);
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            }
            let _ = mode;
            file
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_command_counts_when_an_executable_of_its_name_is_in_a_path_directory() {
        let empty = TempDir::new("empty");
        let bin = TempDir::new("bin");
        bin.file("tool", 0o755);
        bin.file("data", 0o644);
        std::fs::create_dir(bin.0.join("dir")).unwrap();
        let on_path = |name: &'static str, dirs: &[&Path]| {
            let path = std::env::join_paths(dirs).unwrap();
            Requirement {
                name,
                package: "p",
                check: Check::OnPath(name),
            }
            .present(Some(&path))
        };
        assert!(on_path("tool", &[&bin.0]));
        assert!(on_path("tool", &[&empty.0, &bin.0]));
        assert!(!on_path("tool", &[&empty.0]));
        assert!(!on_path("data", &[&bin.0]));
        assert!(!on_path("dir", &[&bin.0]));
        let tool = Requirement {
            name: "tool",
            package: "p",
            check: Check::OnPath("tool"),
        };
        assert!(!tool.present(None));
    }

    #[cfg(unix)]
    #[test]
    fn a_file_counts_when_it_is_executable_at_its_path() {
        let dir = TempDir::new("file");
        let tool: &'static str = dir.file("tool", 0o755).to_str().unwrap().to_owned().leak();
        let data: &'static str = dir.file("data", 0o644).to_str().unwrap().to_owned().leak();
        let file = |path| Requirement {
            name: "f",
            package: "p",
            check: Check::File(path),
        };
        assert!(file(tool).present(None));
        assert!(!file(data).present(None));
        let gone: &'static str = dir.0.join("gone").to_str().unwrap().to_owned().leak();
        assert!(!file(gone).present(None));
        // The directory holding them is no executable file.
        let folder: &'static str = dir.0.to_str().unwrap().to_owned().leak();
        assert!(!file(folder).present(None));
    }
}
