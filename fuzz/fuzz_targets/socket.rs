//! Any text as a message on a game's socket: decoding never panics; a refusal is one of our sentences (no
//! Rust debug output) with a reason code, of bounded length; an action that reads is read the same from its
//! own fields, and made an action (its point, its colour) against boards of every shape without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tesuji_rules::Size;
use tesuji_server::http::wire::{ClientMessage, Undecodable};

fuzz_target!(|text: &str| {
    match ClientMessage::decode(text) {
        Ok(ClientMessage::Resync) => {}
        Ok(ClientMessage::Action(message)) => {
            for (w, h) in [(1, 1), (9, 9), (19, 19), (25, 25), (3, 17)] {
                let size = Size::new(w, h).expect("a valid size");
                if let Err(e) = message.sent(size) {
                    check_refusal(&e.to_string(), e.status_and_reason().1, text);
                }
            }
        }
        Err(Undecodable { error, .. }) => {
            check_refusal(&error.to_string(), error.status_and_reason().1, text)
        }
    }
});

fn check_refusal(sentence: &str, reason: &str, text: &str) {
    assert!(!reason.is_empty());
    for debug in ["Some(", "None", "Error {"] {
        assert!(
            !sentence.contains(debug) || text.contains(debug),
            "debug output in {sentence:?}"
        );
    }
    // serde names an unknown field or a bad value, so a refusal may quote its message; nothing grows more.
    assert!(
        sentence.len() <= 400 + 2 * text.len(),
        "{} bytes of refusal for {} bytes of message",
        sentence.len(),
        text.len()
    );
}
