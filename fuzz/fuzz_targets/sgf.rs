//! Any bytes as an SGF file: reading never panics, and what we write of a record reads back as the same
//! record, without a complaint (but for properties kept without a value), and is written again byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(first) = tesuji_sgf::read(bytes) else {
        return;
    };
    let text = tesuji_sgf::write_utf8(&first.collection);
    let again = tesuji_sgf::read(text.as_bytes()).expect("our own output reads");
    // A property kept without a value is written bare, as it came (crate::write); nothing else is remarked on.
    assert!(
        again
            .diagnostics
            .iter()
            .all(|d| d.message.ends_with("has no value")),
        "our own output drew diagnostics: {:?}\n{text}",
        again.diagnostics
    );
    assert_eq!(again.encoding, "UTF-8");
    assert_eq!(
        again.collection,
        tesuji_sgf::as_utf8(&first.collection),
        "read → write → read changed the record\n{text}"
    );
    assert_eq!(tesuji_sgf::write_utf8(&again.collection), text);
});
