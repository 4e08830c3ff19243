//! Any text as a rules spec: the parser never panics, and a spec it accepts is written (`Display`) as a spec
//! that reads back as the same rules.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tesuji_rules::Rules;

fuzz_target!(|text: &str| {
    let Ok(rules) = text.parse::<Rules>() else {
        return;
    };
    let written = rules.to_string();
    let again: Rules = written
        .parse()
        .unwrap_or_else(|e| panic!("{text:?} gave {written:?}, which does not read: {e}"));
    assert_eq!(again, rules, "{text:?} → {written:?}");
    assert_eq!(again.to_string(), written);
});
