//! Spec strings and durations: the examples, the canonical form, the presets, and one test per error.

use tesuji_clock::{
    BLITZ, CLASSICAL, CORRESPONDENCE, ControlError, PRESETS, RAPID, SpecError, TimeControl,
    format_duration, parse_duration, preset,
};

fn parse(text: &str) -> Result<TimeControl, SpecError> {
    text.parse()
}

#[test]
fn durations() {
    for (text, ms) in [
        ("0", 0),
        ("0s", 0),
        ("90s", 90_000),
        ("10m", 600_000),
        ("1h30m", 5_400_000),
        ("1.5s", 1_500),
        ("2.5m", 150_000),
        ("250ms", 250),
        ("1d2h3m4s5ms", 93_784_005),
        ("1m0.001s", 60_001),
    ] {
        assert_eq!(parse_duration(text), Ok(ms), "{text}");
    }
}

#[test]
fn durations_print_canonically() {
    for (ms, text) in [
        (0, "0s"),
        (90_000, "1m30s"),
        (600_000, "10m"),
        (5_400_000, "1h30m"),
        (1_500, "1.5s"),
        (250, "0.25s"),
        (1, "0.001s"),
        (86_400_000, "1d"),
        (93_784_005, "1d2h3m4.005s"),
    ] {
        assert_eq!(format_duration(ms), text);
    }
}

#[test]
fn bad_durations_say_what_is_wrong() {
    for (text, why) in [
        ("", "it is empty"),
        ("10", "a number has no unit"),
        ("m", "expected a number"),
        ("10x", "unknown unit"),
        ("30s10m", "units must go from larger to smaller"),
        ("10m10m", "units must go from larger to smaller"),
        ("1.5m30s", "only the last part may have a fraction"),
        ("1.s", "a '.' needs digits after it"),
        ("1.0005s", "finer than a millisecond"),
        (
            "999999999999999999999999999999999999999999999d",
            "too large",
        ),
        ("999999999999d", "too long"),
        ("-5s", "expected a number"),
    ] {
        let message = parse_duration(text).unwrap_err().to_string();
        assert!(message.contains(why), "{text}: {message}");
        assert!(message.contains("bad duration"), "{text}: {message}");
    }
}

#[test]
fn the_examples_parse_and_print_back() {
    for text in [
        "absolute:10m",
        "fischer:5m+10s",
        "fischer:5m+10s,max=10m",
        "byoyomi:10m+5x30s",
        "canadian:10m+25/5m",
        "simple:30s",
        "none",
        "byoyomi:0s+1x1.5s",
    ] {
        let control = parse(text).unwrap();
        assert_eq!(control.to_string(), text);
    }
    assert_eq!(
        parse("byoyomi:10m+5x30s"),
        Ok(TimeControl::ByoYomi {
            main_ms: 600_000,
            periods: 5,
            period_ms: 30_000
        })
    );
    assert_eq!(
        parse("canadian:10m+25/5m"),
        Ok(TimeControl::Canadian {
            main_ms: 600_000,
            stones: 25,
            period_ms: 300_000
        })
    );
    assert_eq!(
        parse("fischer:5m+10s,max=10m"),
        Ok(TimeControl::Fischer {
            main_ms: 300_000,
            increment_ms: 10_000,
            max_ms: Some(600_000)
        })
    );
}

#[test]
fn other_spellings_print_canonically() {
    for (text, canonical) in [
        ("  Absolute:600s ", "absolute:10m"),
        ("BYOYOMI:0+5x30000ms", "byoyomi:0s+5x30s"),
        ("simple:90s", "simple:1m30s"),
        ("fischer:1h+0s", "fischer:1h+0s"),
    ] {
        assert_eq!(parse(text).unwrap().to_string(), canonical);
    }
}

#[test]
fn presets_parse_by_name_and_print_in_full() {
    assert_eq!(parse("blitz"), Ok(BLITZ));
    assert_eq!(parse("rapid"), Ok(RAPID));
    assert_eq!(parse("classical"), Ok(CLASSICAL));
    assert_eq!(parse("correspondence"), Ok(CORRESPONDENCE));
    assert_eq!(BLITZ.to_string(), "fischer:3m+10s,max=3m");
    assert_eq!(RAPID.to_string(), "fischer:10m+20s,max=10m");
    assert_eq!(CLASSICAL.to_string(), "fischer:30m+30s,max=30m");
    assert_eq!(CORRESPONDENCE.to_string(), "fischer:3d+1d,max=3d");
    for (name, control) in PRESETS {
        assert_eq!(control.validate(), Ok(()));
        assert_eq!(preset(name), Some(control));
        assert_eq!(parse(&control.to_string()), Ok(control));
    }
    assert_eq!(preset("bullet"), None);
}

#[test]
fn bad_specs_say_what_is_wrong() {
    for (text, message) in [
        (
            "",
            "empty time spec; expected SYSTEM:SETTINGS such as byoyomi:10m+5x30s, or none",
        ),
        (
            "fast",
            "unknown time system \"fast\"; expected one of: none, absolute, fischer, byoyomi, canadian, simple, \
             or a preset: blitz, rapid, classical, correspondence",
        ),
        ("none:5m", "none takes no settings; write it alone"),
        ("blitz:3m", "blitz takes no settings; write it alone"),
        (
            "absolute",
            "absolute needs settings; expected MAIN such as absolute:10m",
        ),
        (
            "byoyomi:",
            "byoyomi needs settings; expected MAIN+PERIODSxPERIOD such as byoyomi:10m+5x30s",
        ),
        (
            "fischer:5m",
            "bad fischer settings \"5m\"; expected MAIN+INCREMENT[,max=CAP] such as fischer:5m+10s or \
             fischer:5m+10s,max=10m",
        ),
        (
            "fischer:5m+10s,min=3m",
            "unknown fischer option \"min\"; expected max=DURATION",
        ),
        (
            "fischer:5m+10s,max=10m,max=11m",
            "option \"max\" is given twice",
        ),
        (
            "fischer:5m+10s,max",
            "bad fischer settings \"5m+10s,max\"; expected MAIN+INCREMENT[,max=CAP] such as fischer:5m+10s or fischer:5m+10s,max=10m",
        ),
        (
            "fischer:5m+10s,max=1m",
            "the Fischer cap max=1m is less than the main time 5m",
        ),
        (
            "fischer:0s+10s",
            "Fischer time needs a main time of more than 0",
        ),
        (
            "byoyomi:10m+5*30s",
            "bad byoyomi settings \"10m+5*30s\"; expected MAIN+PERIODSxPERIOD such as byoyomi:10m+5x30s",
        ),
        (
            "byoyomi:10m+ax30s",
            "bad number of periods \"a\"; expected a whole number such as 5",
        ),
        ("byoyomi:10m+0x30s", "byo-yomi needs at least 1 period"),
        ("byoyomi:10m+5x0s", "byo-yomi needs a period of more than 0"),
        (
            "byoyomi:10m+1001x1s",
            "too many periods: 1001, where the limit is 1000",
        ),
        (
            "canadian:10m+25x5m",
            "bad canadian settings \"10m+25x5m\"; expected MAIN+STONES/PERIOD such as canadian:10m+25/5m",
        ),
        (
            "canadian:10m+0/5m",
            "Canadian overtime needs at least 1 stone per period",
        ),
        (
            "canadian:10m+25/0s",
            "Canadian overtime needs a period of more than 0",
        ),
        (
            "canadian:10m+99999999999/5m",
            "bad number of stones \"99999999999\"; expected a whole number such as 5",
        ),
        ("simple:0s", "simple time needs more than 0 per move"),
        (
            "absolute:0",
            "absolute time needs a main time of more than 0",
        ),
        (
            "absolute:400d",
            "the main time 400d is longer than the limit of 365d",
        ),
        (
            "absolute:10",
            "bad duration \"10\": a number has no unit (d, h, m, s or ms); write it as 90s, 10m, 1h30m or 1.5s",
        ),
    ] {
        assert_eq!(parse(text).unwrap_err().to_string(), message, "{text}");
    }
}

#[test]
fn long_input_is_cut_in_messages() {
    let long = "x".repeat(500);
    let message = parse(&long).unwrap_err().to_string();
    assert!(message.len() < 250, "{message}");
    assert!(message.contains('…'));
}

#[test]
fn validation_limits() {
    assert_eq!(
        TimeControl::Canadian {
            main_ms: 0,
            stones: 1001,
            period_ms: 1
        }
        .validate(),
        Err(ControlError::TooMany {
            what: "stones",
            count: 1001
        })
    );
    assert!(
        TimeControl::Fischer {
            main_ms: 1,
            increment_ms: u64::MAX,
            max_ms: None
        }
        .validate()
        .is_err()
    );
    assert_eq!(TimeControl::None.validate(), Ok(()));
}

#[test]
fn correspondence_with_a_duration_is_that_long_a_move() {
    assert_eq!(
        parse("correspondence:3d"),
        Ok(TimeControl::Simple {
            per_move_ms: 3 * 86_400_000
        })
    );
    assert_eq!(
        parse("Correspondence:1d12h").unwrap().to_string(),
        "simple:1d12h"
    );
    // The preset without settings stays the capped Fischer clock.
    assert_eq!(parse("correspondence"), Ok(CORRESPONDENCE));
    assert!(parse("correspondence:").is_err());
    assert!(parse("correspondence:400d").is_err());
}
