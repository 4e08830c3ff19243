//! Property tests in simulated time: random controls, move times, lags, pauses and restarts.

use proptest::prelude::*;
use tesuji_clock::sgf::{
    control_from_record, control_from_sgf, control_to_sgf, time_left_from_sgf, time_left_to_sgf,
};
use tesuji_clock::{
    Clock, ClockState, GtpTimeLeft, GtpTimeSettings, KgsTimeSettings, MAX_DURATION_MS, Overtime,
    Remaining, RunningTurn, TimeControl, format_duration, parse_duration,
};
use tesuji_rules::Color;

/// Any valid time control, durations anywhere up to the limit (with odd milliseconds).
fn any_control() -> impl Strategy<Value = TimeControl> {
    let ms = prop_oneof![
        0..5_000u64,
        (0..7_200u64).prop_map(|s| s * 1000),
        0..=MAX_DURATION_MS
    ];
    let count = prop_oneof![1..=10u32, 0..=1_001u32];
    raw_control(ms, count)
}

/// A valid time control on the scale of a game simulated move by move.
fn game_control() -> impl Strategy<Value = TimeControl> {
    let ms = prop_oneof![0..3_000u64, (0..120u64).prop_map(|s| s * 1000)];
    raw_control(ms, 1..=5u32)
}

fn raw_control(
    ms: impl Strategy<Value = u64> + Clone,
    count: impl Strategy<Value = u32> + Clone,
) -> impl Strategy<Value = TimeControl> {
    prop_oneof![
        Just(TimeControl::None),
        ms.clone()
            .prop_map(|main_ms| TimeControl::Absolute { main_ms }),
        (ms.clone(), ms.clone(), proptest::option::of(ms.clone())).prop_map(
            |(main_ms, increment_ms, max_ms)| TimeControl::Fischer {
                main_ms,
                increment_ms,
                max_ms: max_ms.map(|cap| cap.max(main_ms)),
            }
        ),
        (ms.clone(), count.clone(), ms.clone()).prop_map(|(main_ms, periods, period_ms)| {
            TimeControl::ByoYomi {
                main_ms,
                periods,
                period_ms,
            }
        }),
        (ms.clone(), count, ms.clone()).prop_map(|(main_ms, stones, period_ms)| {
            TimeControl::Canadian {
                main_ms,
                stones,
                period_ms,
            }
        }),
        ms.prop_map(|per_move_ms| TimeControl::Simple { per_move_ms }),
    ]
    .prop_filter("valid", |control| control.validate().is_ok())
}

/// All the time a player at rest has before they lose: main time plus the overtime still to come.
fn total(rest: &Remaining) -> u64 {
    match rest.overtime {
        Overtime::Unlimited | Overtime::SuddenDeath => rest.main_ms,
        Overtime::ByoYomi { periods, period_ms } => rest.main_ms + u64::from(periods) * period_ms,
        Overtime::Canadian { block_ms, .. } => rest.main_ms + block_ms,
    }
}

/// The most a turn may give back beyond what it was charged: the increment, a period made whole again, a renewed
/// block or move time.
fn bonus(control: &TimeControl) -> u64 {
    match *control {
        TimeControl::Fischer { increment_ms, .. } => increment_ms,
        TimeControl::ByoYomi { period_ms, .. } | TimeControl::Canadian { period_ms, .. } => {
            period_ms
        }
        TimeControl::Simple { per_move_ms } => per_move_ms,
        _ => 0,
    }
}

#[derive(Clone, Debug)]
enum Op {
    Start,
    Advance(u64),
    End(u64),
    Check,
    Pause(u64),
    Restart(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Start),
        4 => prop_oneof![0..2_000u64, 0..150_000u64].prop_map(Op::Advance),
        3 => prop_oneof![Just(0u64), 0..3_000u64].prop_map(Op::End),
        1 => Just(Op::Check),
        1 => (0..10_000_000u64).prop_map(Op::Pause),
        1 => (0..10_000_000u64).prop_map(Op::Restart),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random games in simulated time: the clock agrees with the rules written down, time left never goes up
    /// except by increment, period or block renewal and lag credit, a flag stays, pauses and restarts lose no
    /// time.
    #[test]
    fn simulated_games_keep_the_rules(
        control in game_control(),
        lag_cap_ms in prop_oneof![Just(0u64), 0..2_000u64],
        ops in proptest::collection::vec(op(), 0..80),
    ) {
        let mut clock = Clock::new(control, lag_cap_ms).unwrap();
        let mut now: u64 = 1_000;
        let mut to_move = Color::Black;
        let mut flagged = None;
        for op in ops {
            match op {
                Op::Start => {
                    let idle = clock.running().is_none() && flagged.is_none();
                    let result = clock.start_turn(to_move, now);
                    prop_assert_eq!(result.is_ok(), idle);
                    if idle {
                        prop_assert_eq!(clock.running(), Some(to_move));
                    }
                }
                Op::Advance(dt) => {
                    let before: Vec<_> = Color::BOTH.iter().map(|&c| clock.until_flag_ms(c, now)).collect();
                    let rest_before: Vec<_> = Color::BOTH.iter().map(|&c| clock.remaining(c, now)).collect();
                    now += dt;
                    for (i, &c) in Color::BOTH.iter().enumerate() {
                        let after = clock.until_flag_ms(c, now);
                        if let (Some(before), Some(after)) = (before[i], after) {
                            prop_assert!(after <= before);
                            if clock.running() == Some(c) {
                                prop_assert_eq!(after, before.saturating_sub(dt));
                            }
                        }
                        if clock.running() != Some(c) {
                            prop_assert_eq!(clock.remaining(c, now), rest_before[i]);
                        }
                    }
                }
                Op::End(lag) => {
                    let Some(color) = clock.running() else {
                        prop_assert!(clock.end_turn(to_move, now, lag).is_err());
                        continue;
                    };
                    let rest = clock.at_rest(color);
                    let spent = clock.spent_ms(now);
                    let charged = spent - lag.min(lag_cap_ms).min(spent);
                    let result = clock.end_turn(color, now, lag);
                    let on_time = !control.is_timed() || charged <= total(&rest);
                    prop_assert_eq!(result.is_ok(), on_time);
                    match result {
                        Ok(after) => {
                            prop_assert_eq!(after, clock.at_rest(color));
                            prop_assert!(!after.flagged);
                            if control.is_timed() {
                                prop_assert!(total(&after) + charged <= total(&rest) + bonus(&control));
                            }
                            match control {
                                TimeControl::Absolute { .. } => {
                                    prop_assert_eq!(after.main_ms, rest.main_ms - charged);
                                }
                                TimeControl::Fischer { increment_ms, max_ms, .. } => {
                                    let left = rest.main_ms - charged + increment_ms;
                                    prop_assert_eq!(after.main_ms, max_ms.map_or(left, |cap| left.min(cap)));
                                }
                                TimeControl::Simple { per_move_ms } => {
                                    prop_assert_eq!(after.main_ms, per_move_ms);
                                }
                                TimeControl::ByoYomi { period_ms, .. } => {
                                    // Periods never come back, and the current one is whole between turns.
                                    let periods = |r: &Remaining| match r.overtime {
                                        Overtime::ByoYomi { periods, .. } => periods,
                                        _ => 0,
                                    };
                                    prop_assert!(periods(&after) >= 1 && periods(&after) <= periods(&rest));
                                    prop_assert!(total(&after) <= total(&rest));
                                    prop_assert_eq!(after.overtime, Overtime::ByoYomi {
                                        periods: periods(&after),
                                        period_ms,
                                    });
                                }
                                _ => {}
                            }
                            to_move = color.opponent();
                        }
                        Err(_) => {
                            prop_assert_eq!(clock.flagged(), Some(color));
                            flagged = Some(color);
                        }
                    }
                }
                Op::Check => {
                    let expected = flagged.or_else(|| {
                        let color = clock.running()?;
                        let limit = clock.until_flag_ms(color, now)?;
                        (limit == 0 && clock.spent_ms(now) > total(&clock.at_rest(color)) + lag_cap_ms)
                            .then_some(color)
                    });
                    let mut probe = clock.clone();
                    let found = clock.flag_check(now);
                    prop_assert_eq!(found, expected);
                    // A move with the whole allowance at the same instant would agree.
                    if flagged.is_none() && let Some(color) = probe.running() {
                        prop_assert_eq!(probe.end_turn(color, now, u64::MAX).is_err(), found.is_some());
                    }
                    if found.is_some() {
                        flagged = found;
                    }
                }
                Op::Pause(length) => {
                    let seen: Vec<_> = Color::BOTH.iter().map(|&c| clock.remaining(c, now)).collect();
                    let next = clock.next_flag_at();
                    clock.pause(now).unwrap();
                    now += length;
                    clock.resume(now).unwrap();
                    for (i, &c) in Color::BOTH.iter().enumerate() {
                        prop_assert_eq!(clock.remaining(c, now), seen[i]);
                    }
                    match next {
                        // Not yet due: the pause moves the flag by its length.
                        Some(at) if at > now - length => prop_assert_eq!(clock.next_flag_at(), Some(at + length)),
                        // Already due: it stays due.
                        Some(_) => prop_assert!(clock.next_flag_at().is_some_and(|at| at <= now)),
                        None => prop_assert_eq!(clock.next_flag_at(), None),
                    }
                }
                Op::Restart(new_now) => {
                    let seen: Vec<_> = Color::BOTH.iter().map(|&c| clock.remaining(c, now)).collect();
                    let state = clock.snapshot(now);
                    clock = Clock::restore(control, lag_cap_ms, &state).unwrap();
                    clock.resume(new_now).unwrap();
                    now = new_now;
                    for (i, &c) in Color::BOTH.iter().enumerate() {
                        prop_assert_eq!(clock.remaining(c, now), seen[i]);
                    }
                }
            }
            prop_assert_eq!(clock.flagged(), flagged);
            if let Some(color) = flagged {
                prop_assert!(clock.remaining(color, now).flagged);
                prop_assert_eq!(clock.running(), None);
            }
        }
    }

    /// The same moves with and without pauses (and restarts on a new time scale) in the middle of turns end
    /// with the same clocks.
    #[test]
    fn pauses_lose_no_time(
        control in game_control(),
        lag_cap_ms in 0..1_000u64,
        turns in proptest::collection::vec(
            (0..100_000u64, 0..2_000u64, proptest::collection::vec((0..1u64 << 20, 0..1_000_000u64, any::<bool>()), 0..3)),
            1..30,
        ),
    ) {
        let mut straight = Clock::new(control, lag_cap_ms).unwrap();
        let mut paused = straight.clone();
        let (mut t1, mut t2) = (0u64, 0u64);
        let mut color = Color::Black;
        for (think, lag, breaks) in turns {
            let r1 = straight.start_turn(color, t1);
            let r2 = paused.start_turn(color, t2);
            prop_assert_eq!(&r1, &r2);
            if r1.is_err() {
                break;
            }
            // Split the thinking at the break points; each break is a pause or a restart.
            let mut thought = 0;
            for (at, length, restart) in breaks {
                let step = (at % (think + 1)).saturating_sub(thought);
                thought += step;
                t2 += step;
                if restart {
                    let state = paused.snapshot(t2);
                    paused = Clock::restore(control, lag_cap_ms, &state).unwrap();
                    t2 = length;
                } else {
                    paused.pause(t2).unwrap();
                    t2 += length;
                }
                paused.resume(t2).unwrap();
            }
            t2 += think - thought;
            t1 += think;
            prop_assert_eq!(straight.remaining(color, t1), paused.remaining(color, t2));
            prop_assert_eq!(straight.end_turn(color, t1, lag), paused.end_turn(color, t2, lag));
            prop_assert_eq!(straight.snapshot(t1), paused.snapshot(t2));
            color = color.opponent();
        }
    }

    /// The timer instant the server is given is exactly when the flag falls.
    #[test]
    fn next_flag_at_is_exact(
        control in game_control(),
        lag_cap_ms in 0..2_000u64,
        first in 0..200_000u64,
        start in 0..1_000_000u64,
    ) {
        let mut clock = Clock::new(control, lag_cap_ms).unwrap();
        clock.start_turn(Color::Black, 0).unwrap();
        if clock.end_turn(Color::Black, first, 0).is_err() {
            return Ok(());
        }
        clock.start_turn(Color::White, start).unwrap();
        match clock.next_flag_at() {
            None => prop_assert!(!control.is_timed()),
            Some(at) => {
                prop_assert!(at > start);
                prop_assert_eq!(clock.clone().flag_check(at - 1), None);
                prop_assert_eq!(clock.clone().flag_check(at), Some(Color::White));
            }
        }
    }

    /// Nothing panics, whatever the instants, lags and order of calls.
    #[test]
    fn arbitrary_calls_never_panic(
        control in any_control(),
        lag_cap_ms in any::<u64>(),
        calls in proptest::collection::vec((0..8u8, any::<bool>(), any::<u64>(), any::<u64>()), 0..60),
    ) {
        let mut clock = Clock::new(control, lag_cap_ms).unwrap();
        for (call, black, a, b) in calls {
            let color = if black { Color::Black } else { Color::White };
            match call {
                0 => { let _ = clock.start_turn(color, a); }
                1 => { let _ = clock.end_turn(color, a, b); }
                2 => { let _ = clock.flag_check(a); }
                3 => { let _ = clock.pause(a); }
                4 => { let _ = clock.resume(a); }
                5 => {
                    let state = clock.snapshot(a);
                    let mut again = Clock::restore(control, lag_cap_ms, &state).unwrap();
                    let _ = again.resume(b);
                    clock = again;
                }
                6 => {
                    let _ = clock.next_flag_at();
                    let _ = clock.until_flag_ms(color, a);
                }
                _ => {
                    let remaining = clock.remaining(color, a);
                    let _ = GtpTimeLeft::from_remaining(&remaining);
                    let _ = time_left_to_sgf(&remaining);
                }
            }
        }
    }

    /// Restoring any state either refuses it or gives a clock that works without panicking.
    #[test]
    fn restoring_any_state_never_panics(
        control in any_control(),
        mains in any::<[u64; 2]>(),
        counts in any::<[u32; 2]>(),
        times in any::<[u64; 2]>(),
        kinds in any::<[u8; 2]>(),
        flags in any::<[bool; 2]>(),
        turn in proptest::option::of((any::<bool>(), any::<u64>())),
        now in any::<u64>(),
    ) {
        let player = |i: usize| Remaining {
            main_ms: mains[i],
            overtime: match kinds[i] % 4 {
                0 => Overtime::Unlimited,
                1 => Overtime::SuddenDeath,
                2 => Overtime::ByoYomi { periods: counts[i], period_ms: times[i] },
                _ => Overtime::Canadian { stones: counts[i], block_ms: times[i] },
            },
            flagged: flags[i],
        };
        let state = ClockState {
            players: [player(0), player(1)],
            turn: turn.map(|(black, spent_ms)| RunningTurn {
                color: if black { Color::Black } else { Color::White },
                spent_ms,
            }),
        };
        if let Ok(mut clock) = Clock::restore(control, 1_000, &state) {
            clock.resume(now).unwrap();
            let _ = clock.flag_check(now.saturating_add(now));
            for color in Color::BOTH {
                let _ = clock.remaining(color, u64::MAX);
                let _ = clock.end_turn(color, u64::MAX, u64::MAX);
                let _ = clock.start_turn(color, now);
            }
        }
    }

    /// The canonical spec parses back to the same value.
    #[test]
    fn spec_round_trip(control in any_control()) {
        let text = control.to_string();
        prop_assert_eq!(text.parse::<TimeControl>(), Ok(control));
    }

    #[test]
    fn duration_round_trip(ms in prop_oneof![0..100_000u64, any::<u64>()]) {
        prop_assert_eq!(parse_duration(&format_duration(ms)), Ok(ms));
    }

    /// Any text given as a spec, a duration, GTP arguments or SGF values is read or refused, never a panic.
    #[test]
    fn any_text_is_read_or_refused(text in "[a-z0-9:+x/,=.\\- ]{0,30}|\\PC{0,30}") {
        let _ = text.parse::<TimeControl>();
        let _ = parse_duration(&text);
        let words: Vec<&str> = text.split(' ').collect();
        let _ = GtpTimeSettings::parse_args(&words).map(|s| s.to_control());
        let _ = KgsTimeSettings::parse_args(&words).map(|s| s.to_control());
        let _ = control_from_sgf(Some(&text), Some(&text));
        let _ = control_from_sgf(None, Some(&text));
        let _ = time_left_from_sgf(&TimeControl::None, &text, Some(&text));
    }

    /// The SGF form of every control reads back to it.
    #[test]
    fn sgf_round_trip(control in any_control()) {
        let sgf = control_to_sgf(&control);
        prop_assert_eq!(
            control_from_record(sgf.tm.as_deref(), sgf.ot.as_deref(), sgf.spec.as_deref()),
            Ok(control)
        );
        // TM/OT alone say all but a Fischer cap.
        let mut plain = control;
        if let TimeControl::Fischer { max_ms, .. } = &mut plain {
            *max_ms = None;
        }
        prop_assert_eq!(control_from_sgf(sgf.tm.as_deref(), sgf.ot.as_deref()), Ok(plain));
    }

    /// GTP's and KGS's forms, where they exist, read back to a control that plays the same.
    #[test]
    fn gtp_forms_round_trip(control in any_control()) {
        if let Ok(kgs) = KgsTimeSettings::from_control(&control) {
            let back = kgs.to_control().unwrap();
            match control {
                TimeControl::Simple { per_move_ms } => prop_assert_eq!(back, TimeControl::Canadian {
                    main_ms: 0, stones: 1, period_ms: per_move_ms,
                }),
                _ => prop_assert_eq!(back, control),
            }
            let args = kgs.to_string();
            let words: Vec<&str> = args.split(' ').collect();
            prop_assert_eq!(KgsTimeSettings::parse_args(&words), Ok(kgs));
        }
        if let Ok(gtp) = GtpTimeSettings::from_control(&control) {
            let back = gtp.to_control().unwrap();
            prop_assert_eq!(GtpTimeSettings::from_control(&back), Ok(gtp));
        }
    }

    /// `time_left` and SGF time left read back under the same control (GTP to whole seconds).
    #[test]
    fn time_left_round_trip(control in game_control(), spent in 0..300_000u64) {
        let mut clock = Clock::new(control, 0).unwrap();
        clock.start_turn(Color::Black, 0).unwrap();
        let seen = clock.remaining(Color::Black, spent);
        if seen.flagged {
            return Ok(());
        }
        if let Some(sgf) = time_left_to_sgf(&seen) {
            prop_assert_eq!(time_left_from_sgf(&control, &sgf.time, sgf.overtime.as_deref()), Ok(seen));
        }
        // Less than a second of main time shows as `0 0`, which reads as overtime just begun; otherwise the
        // reading gives back the same arguments.
        if let Some(gtp) = GtpTimeLeft::from_remaining(&seen).filter(|gtp| gtp.time_s > 0 || gtp.stones > 0) {
            let back = gtp.to_remaining(&control);
            prop_assert_eq!(GtpTimeLeft::from_remaining(&back), Some(gtp));
        }
    }
}
