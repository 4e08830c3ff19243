//! GTP `time_settings`, `kgs-time_settings`, `time_left`, and SGF `TM`, `OT`, `BL`/`WL`, `OB`/`OW`.

use tesuji_clock::sgf::{
    control_from_record, control_from_sgf, control_to_sgf, time_left_from_sgf, time_left_to_sgf,
};
use tesuji_clock::{
    Clock, GtpTimeLeft, GtpTimeSettings, KgsTimeSettings, MapError, Overtime, PRESETS, Remaining,
    SgfTime, SgfTimeLeft, TimeControl,
};
use tesuji_rules::Color::Black;

fn spec(text: &str) -> TimeControl {
    text.parse().unwrap()
}

fn gtp(main_s: u64, byo_yomi_s: u64, byo_yomi_stones: u64) -> GtpTimeSettings {
    GtpTimeSettings {
        main_s,
        byo_yomi_s,
        byo_yomi_stones,
    }
}

// ---- time_settings ----

#[test]
fn time_settings_to_ours() {
    assert_eq!(
        gtp(600, 300, 25).to_control(),
        Ok(spec("canadian:10m+25/5m"))
    );
    assert_eq!(gtp(0, 30, 1).to_control(), Ok(spec("canadian:0s+1/30s")));
    // Byo-yomi time 0: absolute time, whatever the stones.
    assert_eq!(gtp(600, 0, 0).to_control(), Ok(spec("absolute:10m")));
    assert_eq!(gtp(600, 0, 5).to_control(), Ok(spec("absolute:10m")));
    // Byo-yomi time above 0 with no stones: no time limit.
    assert_eq!(gtp(0, 1, 0).to_control(), Ok(TimeControl::None));
    assert_eq!(gtp(600, 30, 0).to_control(), Ok(TimeControl::None));
    // Absolute time of nothing is refused rather than lost at once.
    assert!(matches!(
        gtp(0, 0, 0).to_control(),
        Err(MapError::Invalid(_))
    ));
    assert!(matches!(
        gtp(u64::MAX, 0, 0).to_control(),
        Err(MapError::Invalid(_))
    ));
}

#[test]
fn ours_to_time_settings() {
    let of = |text: &str| GtpTimeSettings::from_control(&spec(text));
    assert_eq!(of("none"), Ok(gtp(0, 1, 0)));
    assert_eq!(of("absolute:10m"), Ok(gtp(600, 0, 0)));
    assert_eq!(of("canadian:10m+25/5m"), Ok(gtp(600, 300, 25)));
    assert_eq!(of("byoyomi:10m+1x30s"), Ok(gtp(600, 30, 1)));
    assert_eq!(of("simple:30s"), Ok(gtp(0, 30, 1)));
    assert_eq!(of("canadian:10m+25/5m").unwrap().to_string(), "600 300 25");
    assert_eq!(
        of("byoyomi:10m+5x30s").unwrap_err().to_string(),
        "byoyomi:10m+5x30s has no GTP time_settings form"
    );
    assert!(matches!(of("fischer:5m+10s"), Err(MapError::NoForm { .. })));
    assert_eq!(
        of("absolute:1.5s").unwrap_err().to_string(),
        "the main time 1.5s is not a whole number of seconds, as GTP needs"
    );
}

#[test]
fn time_settings_round_trip_in_its_normal_form() {
    for main_s in [0, 1, 600] {
        for byo_yomi_s in [0, 1, 30] {
            for stones in [0, 1, 25] {
                let settings = gtp(main_s, byo_yomi_s, stones);
                let Ok(control) = settings.to_control() else {
                    continue;
                };
                let back = GtpTimeSettings::from_control(&control).unwrap();
                let normal = if byo_yomi_s > 0 && stones == 0 {
                    gtp(0, 1, 0)
                } else if byo_yomi_s == 0 {
                    gtp(main_s, 0, 0)
                } else {
                    settings
                };
                assert_eq!(back, normal, "{settings}");
            }
        }
    }
}

#[test]
fn time_settings_arguments() {
    assert_eq!(
        GtpTimeSettings::parse_args(&["600", "30", "5"]),
        Ok(gtp(600, 30, 5))
    );
    for bad in [
        &["600", "30"][..],
        &["600", "30", "-5"],
        &["6e2", "30", "5"],
        &["", "1", "1"],
    ] {
        let message = GtpTimeSettings::parse_args(bad).unwrap_err().to_string();
        assert!(
            message.starts_with("bad time_settings arguments"),
            "{message}"
        );
    }
}

// ---- kgs-time_settings ----

#[test]
fn kgs_time_settings_both_ways() {
    for (args, text) in [
        (&["none"][..], "none"),
        (&["absolute", "600"], "absolute:10m"),
        (&["byoyomi", "600", "30", "5"], "byoyomi:10m+5x30s"),
        (&["canadian", "600", "300", "25"], "canadian:10m+25/5m"),
    ] {
        let kgs = KgsTimeSettings::parse_args(args).unwrap();
        assert_eq!(kgs.to_string(), args.join(" "));
        let control = kgs.to_control().unwrap();
        assert_eq!(control, spec(text));
        assert_eq!(KgsTimeSettings::from_control(&control), Ok(kgs));
    }
    assert_eq!(
        KgsTimeSettings::from_control(&spec("simple:30s")),
        Ok(KgsTimeSettings::Canadian {
            main_s: 0,
            period_s: 30,
            stones: 1
        })
    );
    assert!(matches!(
        KgsTimeSettings::from_control(&spec("fischer:5m+10s")),
        Err(MapError::NoForm { .. })
    ));
    assert!(matches!(
        KgsTimeSettings::from_control(&spec("byoyomi:10m+5x1.5s")),
        Err(MapError::NotWholeSeconds { .. })
    ));
}

#[test]
fn kgs_time_settings_special_cases() {
    let read = |args: &[&str]| KgsTimeSettings::parse_args(args).unwrap().to_control();
    // No periods, or periods of no time: absolute time.
    assert_eq!(
        read(&["byoyomi", "600", "30", "0"]),
        Ok(spec("absolute:10m"))
    );
    assert_eq!(
        read(&["byoyomi", "600", "0", "5"]),
        Ok(spec("absolute:10m"))
    );
    // Canadian reads as time_settings does.
    assert_eq!(read(&["canadian", "600", "30", "0"]), Ok(TimeControl::None));
    assert_eq!(
        read(&["canadian", "600", "0", "25"]),
        Ok(spec("absolute:10m"))
    );
    assert!(read(&["absolute", "0"]).is_err());
    assert_eq!(
        read(&["BYOYOMI", "0", "30", "5"]),
        Ok(spec("byoyomi:0s+5x30s"))
    );
}

#[test]
fn kgs_time_settings_bad_arguments() {
    for bad in [
        &[][..],
        &["none", "5"],
        &["absolute"],
        &["byoyomi", "600", "30"],
        &["canadian", "600", "x", "25"],
        &["fischer", "600", "10"],
    ] {
        let message = KgsTimeSettings::parse_args(bad).unwrap_err().to_string();
        assert!(
            message.starts_with("bad kgs-time_settings arguments"),
            "{message}"
        );
        assert!(message.contains("byoyomi MAIN PERIOD PERIODS"), "{message}");
    }
}

// ---- time_left ----

fn left(time_s: u64, stones: u32) -> GtpTimeLeft {
    GtpTimeLeft { time_s, stones }
}

#[test]
fn time_left_from_a_running_clock() {
    let mut clock = Clock::new(spec("byoyomi:1m+5x30s"), 0).unwrap();
    clock.start_turn(Black, 0).unwrap();
    let at = |now| GtpTimeLeft::from_remaining(&clock.remaining(Black, now));
    assert_eq!(at(0), Some(left(60, 0)));
    // Rounded down.
    assert_eq!(at(1), Some(left(59, 0)));
    assert_eq!(at(70_000), Some(left(20, 5)));
    assert_eq!(at(100_500), Some(left(19, 4)));
    assert_eq!(left(19, 4).to_string(), "19 4");

    let mut clock = Clock::new(spec("canadian:0s+25/5m"), 0).unwrap();
    clock.start_turn(Black, 0).unwrap();
    clock.end_turn(Black, 60_000, 0).unwrap();
    assert_eq!(
        GtpTimeLeft::from_remaining(&clock.at_rest(Black)),
        Some(left(240, 24))
    );
    let unlimited = Remaining::initial(&TimeControl::None);
    assert_eq!(GtpTimeLeft::from_remaining(&unlimited), None);
}

#[test]
fn time_left_to_ours() {
    let byo = spec("byoyomi:1m+5x30s");
    assert_eq!(
        left(45, 0).to_remaining(&byo),
        Remaining {
            main_ms: 45_000,
            overtime: Overtime::ByoYomi {
                periods: 5,
                period_ms: 30_000
            },
            flagged: false
        }
    );
    assert_eq!(
        left(20, 3).to_remaining(&byo).overtime,
        Overtime::ByoYomi {
            periods: 3,
            period_ms: 20_000
        }
    );
    let canadian = spec("canadian:10m+25/5m");
    let in_block = left(200, 7).to_remaining(&canadian);
    assert!(in_block.in_overtime());
    assert_eq!(GtpTimeLeft::from_remaining(&in_block), Some(left(200, 7)));
    assert_eq!(
        left(30, 0).to_remaining(&spec("fischer:1m+5s")).main_ms,
        30_000
    );
    assert!(left(30, 0).to_remaining(&TimeControl::None).is_unlimited());
}

// ---- SGF ----

fn sgf(tm: Option<&str>, ot: Option<&str>, spec: Option<&str>) -> SgfTime {
    SgfTime {
        tm: tm.map(str::to_string),
        ot: ot.map(str::to_string),
        spec: spec.map(str::to_string),
    }
}

#[test]
fn sgf_tm_and_ot() {
    for (text, tm, ot) in [
        ("none", None, None),
        ("absolute:10m", Some("600"), None),
        ("byoyomi:10m+5x30s", Some("600"), Some("5x30 byo-yomi")),
        ("canadian:10m+25/5m", Some("600"), Some("25/300 Canadian")),
        ("fischer:5m+10s", Some("300"), Some("10 fischer")),
        ("simple:30s", Some("0"), Some("30 simple")),
        ("byoyomi:0s+3x1.5s", Some("0"), Some("3x1.5 byo-yomi")),
    ] {
        let control = spec(text);
        let own = (control != TimeControl::None).then(|| control.to_string());
        assert_eq!(
            control_to_sgf(&control),
            sgf(tm, ot, own.as_deref()),
            "{text}"
        );
        assert_eq!(control_from_sgf(tm, ot), Ok(control), "{text}");
    }
    // OGS writes Fischer without a cap; the cap is kept in our own property only, and read from there.
    let capped = spec("fischer:5m+10s,max=10m");
    let written = control_to_sgf(&capped);
    assert_eq!(written.ot.as_deref(), Some("10 fischer"));
    assert_eq!(
        control_from_sgf(written.tm.as_deref(), written.ot.as_deref()),
        Ok(spec("fischer:5m+10s"))
    );
    // What we wrote before is still read.
    assert_eq!(
        control_from_sgf(Some("300"), Some("10 fischer max 600")),
        Ok(capped)
    );
}

/// Every kind of clock and every preset: our own property reads back exactly, and `TM`/`OT` alone (what other
/// programs read) give the same control, but for a Fischer cap, which `OT` cannot say.
#[test]
fn sgf_round_trip_every_control() {
    let mut controls: Vec<TimeControl> = tesuji_clock::PRESETS.iter().map(|(_, c)| *c).collect();
    for text in [
        "none",
        "absolute:1h",
        "fischer:3m+10s,max=3m",
        "fischer:90s+2s",
        "byoyomi:10m+5x30s",
        "canadian:10m+25/5m",
        "simple:30s",
        "correspondence:3d",
    ] {
        controls.push(spec(text));
    }
    for control in controls {
        let w = control_to_sgf(&control);
        let (tm, ot, own) = (w.tm.as_deref(), w.ot.as_deref(), w.spec.as_deref());
        assert_eq!(control_from_record(tm, ot, own), Ok(control), "{control}");
        let mut plain = control;
        if let TimeControl::Fischer { max_ms, .. } = &mut plain {
            *max_ms = None;
        }
        assert_eq!(control_from_record(tm, ot, None), Ok(plain), "{control}");
        // Nothing of our spec syntax leaks into the properties other programs read.
        assert!(!ot.unwrap_or("").contains("max"), "{control}: {ot:?}");
    }
    // An unreadable own property falls back to TM/OT.
    assert_eq!(
        control_from_record(Some("600"), Some("5x30 byo-yomi"), Some("klingon")),
        Ok(spec("byoyomi:10m+5x30s"))
    );
}

#[test]
fn sgf_other_writers() {
    assert_eq!(
        control_from_sgf(Some("1800.0"), Some("5x30 Byo-Yomi")),
        Ok(spec("byoyomi:30m+5x30s"))
    );
    assert_eq!(
        control_from_sgf(None, Some("25/600 canadian")),
        Ok(spec("canadian:0s+25/10m"))
    );
    assert_eq!(control_from_sgf(Some("0"), None), Ok(TimeControl::None));
    assert_eq!(
        control_from_sgf(Some("600"), Some("  ")),
        Ok(spec("absolute:10m"))
    );
    assert_eq!(
        control_from_sgf(Some("12.3456"), None),
        Ok(spec("absolute:12.345s"))
    );
}

#[test]
fn sgf_bad_values() {
    for (tm, ot, message) in [
        (Some("-5"), None, "bad SGF TM value \"-5\": a negative time"),
        (
            Some("ten"),
            None,
            "bad SGF TM value \"ten\": expected a number of seconds such as 600 or 12.5",
        ),
        (
            Some("600"),
            Some("3 moves in 5 minutes"),
            "bad SGF OT value \"3 moves in 5 minutes\": unknown overtime; expected a form such as 5x30 byo-yomi, \
             25/300 Canadian, 10 fischer or 30 simple",
        ),
        (
            Some("600"),
            Some("5/30 byo-yomi"),
            "bad SGF OT value \"5/30 byo-yomi\": unknown overtime; expected a form such as 5x30 byo-yomi, 25/300 Canadian, 10 fischer or 30 simple",
        ),
        (
            Some("600"),
            Some("30 simple"),
            "bad SGF OT value \"30 simple\": simple time has no main time, so TM must be 0",
        ),
        (
            Some("600"),
            Some("0x30 byo-yomi"),
            "byo-yomi needs at least 1 period",
        ),
    ] {
        assert_eq!(control_from_sgf(tm, ot).unwrap_err().to_string(), message);
    }
}

#[test]
fn sgf_time_left() {
    let byo = spec("byoyomi:1m+5x30s");
    let mut clock = Clock::new(byo, 0).unwrap();
    let to = |r: &Remaining| time_left_to_sgf(r);
    assert_eq!(
        to(&clock.at_rest(Black)),
        Some(SgfTimeLeft {
            time: "60".into(),
            overtime: None
        })
    );
    clock.start_turn(Black, 0).unwrap();
    let during = clock.remaining(Black, 70_500);
    assert_eq!(
        to(&during),
        Some(SgfTimeLeft {
            time: "19.5".into(),
            overtime: Some("5".into())
        })
    );
    assert_eq!(time_left_from_sgf(&byo, "19.5", Some("5")), Ok(during));
    assert_eq!(
        time_left_from_sgf(&byo, "60", None),
        Ok(clock.at_rest(Black))
    );
    assert_eq!(
        time_left_from_sgf(&byo, "60", Some("0")),
        Ok(clock.at_rest(Black))
    );
    assert_eq!(to(&Remaining::initial(&TimeControl::None)), None);
    assert!(time_left_from_sgf(&byo, "x", None).is_err());
    assert!(time_left_from_sgf(&byo, "5", Some("-1")).is_err());
}

#[test]
fn every_preset_has_an_sgf_form_that_reads_back() {
    for (_, control) in PRESETS {
        let SgfTime { tm, ot, spec } = control_to_sgf(&control);
        assert_eq!(
            control_from_record(tm.as_deref(), ot.as_deref(), spec.as_deref()),
            Ok(control)
        );
    }
}
