//! What GUIs do with our answers, their code read and its steps followed here: Lizzie 0.7.4's start
//! (`Leelaz.java`, `startEngine` and `parseLine`).

use std::io::Cursor;

use tesuji_gtp::{EngineConfig, run};

/// Java's `Integer.parseInt`: an optional sign, then decimal digits only.
fn java_parse_int(text: &str) -> Option<i32> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Lizzie 0.7.4 starts an engine with `1 name` and `2 version` and reads each answer line as
/// `line.trim().split(" ")`: a name whose first word starts with `KataGo` makes it KataGo, and then the version
/// is not checked; otherwise the version's first word is split at dots and its second piece read with
/// `Integer.parseInt` (an exception there ends Lizzie's reading of the engine), a blocking dialog opening
/// ("Lizzie requires version 0.15 or later of Leela Zero") when it is below 15.
#[test]
fn lizzie_starts_without_its_version_dialog() {
    let mut out = Vec::new();
    run(
        Cursor::new(b"1 name\n2 version\n3 quit\n".to_vec()),
        &mut out,
        EngineConfig::default(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let answers: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with('='))
        .map(|l| l.trim().split(' ').collect())
        .collect();
    assert_eq!(answers.len(), 3, "{text}");
    let (name, version) = (&answers[0], &answers[1]);
    assert_eq!(name[0], "=1");
    assert_eq!(version[0], "=2");
    // We are not KataGo and do not say so: Lizzie checks the version.
    assert!(!name[1].starts_with("KataGo"), "{text}");
    let pieces: Vec<&str> = version[1].split('.').collect();
    let minor = pieces
        .get(1)
        .and_then(|p| java_parse_int(p))
        .unwrap_or_else(|| panic!("Lizzie cannot read {:?}: {text}", version[1]));
    assert!(minor >= 15, "Lizzie's dialog: found {}", version[1]);
    // And the answer still says whose version it is.
    let whole = version[1..].join(" ");
    assert!(
        whole.contains(&format!("tesuji {}", env!("CARGO_PKG_VERSION"))),
        "{whole}"
    );
}
