//! The server's module graph, read from its source: which module names which (`crate::…`, `super::…`, and a
//! folder's re-exports), and the invariants ARCHITECTURE.md states of it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every module of `src` (`game::registry`; `""` is the crate) and the file it is.
fn modules(src: &Path) -> BTreeMap<String, PathBuf> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            found.insert(parts.join("::"), path);
        }
    }
    found
}

/// The code of a file without its comments and its tests.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]") {
        Some(cut) => &text[..cut],
        None => &text[..],
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(k) => &line[..k],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a file names from `crate::` or `super::`, made absolute for module `module`; a group
/// (`crate::a::{b, c::d}`) gives one path per member.
fn paths_named(code: &str, module: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let at_word = i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':';
        let rest: String = chars[i..chars.len().min(i + 7)].iter().collect();
        if !at_word || !(rest.starts_with("crate::") || rest.starts_with("super::")) {
            i += 1;
            continue;
        }
        // Read `seg::seg::…`, stopping before a group.
        let mut segments = Vec::new();
        loop {
            let start = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            segments.push(chars[start..i].iter().collect::<String>());
            if chars[i..].starts_with(&[':', ':']) && chars.get(i + 2).is_some_and(|&c| is_ident(c))
            {
                i += 2;
            } else {
                break;
            }
        }
        let mut base: Vec<String> = Vec::new();
        let mut own: Vec<String> = module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let mut k = 0;
        if segments[0] == "crate" {
            k = 1;
        } else {
            while segments.get(k).is_some_and(|s| s == "super") {
                own.pop();
                k += 1;
            }
            base = own;
        }
        base.extend(segments[k..].iter().cloned());
        if chars[i..].starts_with(&[':', ':', '{']) {
            let close = chars[i..]
                .iter()
                .position(|&c| c == '}')
                .map_or(chars.len(), |p| i + p);
            let group: String = chars[i + 3..close].iter().collect();
            for member in group.split(',') {
                // `b::c as d` names `b::c`; `self` names the module the group is in.
                let named = member.split_whitespace().next().unwrap_or("");
                let mut path = base.clone();
                path.extend(
                    named
                        .split("::")
                        .take_while(|s| !s.is_empty() && *s != "self" && s.chars().all(is_ident))
                        .map(String::from),
                );
                paths.push(path);
            }
            i = close;
        } else {
            paths.push(base);
        }
    }
    paths
}

/// Which modules each module names (itself and the crate root left out).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let resolve = |path: &[String]| {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].join("::"))
            .find(|m| modules.contains_key(m))
    };
    let mut edges = BTreeMap::new();
    for (module, file) in &modules {
        let code = code_of(file);
        let mut named: Vec<Vec<String>> = paths_named(&code, module);
        // A folder's `pub use child::…` makes its users depend on the child.
        let is_folder = file.ends_with("mod.rs") || file.ends_with("lib.rs");
        if is_folder {
            for line in code.lines() {
                if let Some(rest) = line.trim().strip_prefix("pub use ") {
                    let child: String = rest.chars().take_while(|&c| is_ident(c)).collect();
                    if rest[child.len()..].starts_with("::") && child != "crate" && child != "super"
                    {
                        let mut path: Vec<String> = module
                            .split("::")
                            .filter(|s| !s.is_empty())
                            .map(String::from)
                            .collect();
                        path.push(child);
                        named.push(path);
                    }
                }
            }
        }
        let targets: BTreeSet<String> = named
            .iter()
            .filter_map(|p| resolve(p))
            .filter(|t| t != module && !t.is_empty())
            .collect();
        edges.insert(module.clone(), targets);
    }
    edges
}

/// The circles of a graph: its strongly connected parts of more than one module (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut part = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    part.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if part.len() > 1 {
                    self.found.push(part);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The features: each a folder of its own, built with what it needs, which the core never names.
const FEATURES: &[&str] = &[
    "chat",
    "news",
    "players",
    "ratings",
    "rematch",
    "reviews",
    "seeks",
    "vacations",
];

fn in_folder(module: &str, folder: &str) -> bool {
    module == folder || module.starts_with(&format!("{folder}::"))
}

/// The core (`game/`) and its edge (`http/`, the cluster, the relay, the store...) name no feature: only the
/// crate's root, which wires them, does.
#[test]
fn the_core_names_no_feature() {
    let edges = graph(&src());
    let mut wrong = Vec::new();
    for (module, targets) in &edges {
        if module.is_empty() || FEATURES.iter().any(|f| in_folder(module, f)) {
            continue;
        }
        for target in targets {
            if FEATURES.iter().any(|f| in_folder(target, f)) {
                wrong.push(format!("{module} -> {target}"));
            }
        }
    }
    assert!(wrong.is_empty(), "the core names features: {wrong:?}");
}

/// No module of the server imports one that imports it back, directly or through others: the core's files are
/// layered (`game/mod.rs` says how), and the features, the edge and the store point one way.
#[test]
fn no_import_circle() {
    let found = circles(&graph(&src()));
    assert!(found.is_empty(), "modules in an import circle: {found:?}");
}

/// The modules below the edge that must know nothing of HTTP: the core, its errors and what they use.
const BELOW_THE_EDGE: &[&str] = &["game", "error", "relay", "replay", "clocks", "store"];

/// The core and its errors know no HTTP: no status codes, no responses, no routes (`http/` maps an error to its
/// answer, `crate::http::answer`).
#[test]
fn the_core_knows_no_http() {
    let mut wrong = Vec::new();
    for (module, path) in modules(&src()) {
        if !BELOW_THE_EDGE.iter().any(|f| in_folder(&module, f)) {
            continue;
        }
        let code = code_of(&path);
        for word in ["axum", "StatusCode", "IntoResponse", "hyper"] {
            if code.contains(word) {
                wrong.push(format!("{module} names {word}"));
            }
        }
    }
    assert!(wrong.is_empty(), "HTTP below the edge: {wrong:?}");
}

#[test]
fn no_feature_extends_the_core() {
    let modules = modules(&src());
    for (module, file) in &modules {
        let code = code_of(file);
        if code.contains("impl Games") || code.contains("impl LiveGame") {
            assert!(
                in_folder(module, "game"),
                "{module} adds methods to the core's types"
            );
        }
    }
}

/// The other crates of the workspace have no import circle at all (the server's is checked above).
#[test]
fn no_other_crate_has_an_import_circle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut read = 0;
    for entry in std::fs::read_dir(crates).unwrap() {
        let src = entry.unwrap().path().join("src");
        if !src.is_dir() || src == self::src() {
            continue;
        }
        read += 1;
        let found = circles(&graph(&src));
        assert!(
            found.is_empty(),
            "{}: import circles {found:?}",
            src.display()
        );
    }
    // rules, sgf, clock, rating, bot, nn, gtp, client, load, cli.
    assert!(read >= 10, "only {read} crates read");
}

/// The reader of the graph on a made-up crate, so that the checks above can fail.
#[test]
fn the_graph_shows_a_circle_and_resolves_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("a")).unwrap();
    std::fs::write(
        root.join("lib.rs"),
        "pub mod a;\npub mod b;\npub use b::Thing;\n",
    )
    .unwrap();
    std::fs::write(
        root.join("a/mod.rs"),
        "pub mod x;\npub mod y;\npub use x::X;\n",
    )
    .unwrap();
    // Grouped members, `super::super`, comments and tests are read as they are meant.
    std::fs::write(
        root.join("a/x.rs"),
        "use super::super::b::Thing;\n// crate::a::y is only mentioned\npub struct X;\n\
         #[cfg(test)]\nmod tests { use crate::a::y::Y; }\n",
    )
    .unwrap();
    std::fs::write(
        root.join("a/y.rs"),
        "use crate::{b::Thing, a::x};\npub struct Y;\n",
    )
    .unwrap();
    std::fs::write(root.join("b.rs"), "pub struct Thing(crate::a::X);\n").unwrap();
    let edges = graph(root);
    let names = |m: &str| edges[m].iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(names("a::x"), ["b"]);
    assert_eq!(names("a::y"), ["a::x", "b"]);
    assert_eq!(names("a"), ["a::x"]);
    assert_eq!(names("b"), ["a"]);
    let found = circles(&edges);
    let expected: BTreeSet<String> = ["a", "a::x", "b"].map(String::from).into();
    assert_eq!(found, [expected]);
}
