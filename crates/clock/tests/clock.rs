//! Every time system driven through simulated time: the edges of each, lag, flags, pause and restart, and the
//! dead-stone phase.

use tesuji_clock::{Clock, ClockError, ClockState, Overtime, Remaining, RunningTurn, TimeControl};
use tesuji_rules::Color::{Black, White};

const S: u64 = 1000;

fn clock(spec: &str, lag_cap_ms: u64) -> Clock {
    Clock::new(spec.parse().unwrap(), lag_cap_ms).unwrap()
}

/// Black's turn from `at` taking `ms`, with `lag` measured.
fn black_moves(clock: &mut Clock, at: u64, ms: u64, lag: u64) -> Result<Remaining, ClockError> {
    clock.start_turn(Black, at)?;
    clock.end_turn(Black, at + ms, lag)
}

fn main_only(main_ms: u64) -> Remaining {
    Remaining {
        main_ms,
        overtime: Overtime::SuddenDeath,
        flagged: false,
    }
}

fn byo(main_ms: u64, periods: u32, period_ms: u64) -> Remaining {
    Remaining {
        main_ms,
        overtime: Overtime::ByoYomi { periods, period_ms },
        flagged: false,
    }
}

fn canadian(main_ms: u64, stones: u32, block_ms: u64) -> Remaining {
    Remaining {
        main_ms,
        overtime: Overtime::Canadian { stones, block_ms },
        flagged: false,
    }
}

// ---- absolute ----

#[test]
fn absolute_move_at_exactly_zero_left_is_on_time() {
    let mut c = clock("absolute:10s", 0);
    assert_eq!(black_moves(&mut c, 0, 10 * S, 0), Ok(main_only(0)));
    assert_eq!(c.flagged(), None);
}

#[test]
fn absolute_one_millisecond_over_loses() {
    let mut c = clock("absolute:10s", 0);
    assert_eq!(
        black_moves(&mut c, 0, 10 * S + 1, 0),
        Err(ClockError::TimedOut(Black))
    );
    assert_eq!(c.flagged(), Some(Black));
    assert!(c.at_rest(Black).flagged);
    assert_eq!(c.running(), None);
}

#[test]
fn absolute_with_zero_left_only_a_free_move_is_on_time() {
    let mut c = clock("absolute:10s", 500);
    black_moves(&mut c, 0, 10 * S, 0).unwrap();
    // Charged nothing: the lag credit covers the whole turn.
    assert_eq!(black_moves(&mut c, 20 * S, 400, 450), Ok(main_only(0)));
    assert_eq!(
        black_moves(&mut c, 30 * S, 1, 0),
        Err(ClockError::TimedOut(Black))
    );
}

#[test]
fn absolute_remaining_counts_down_during_the_turn_and_the_other_clock_stands() {
    let mut c = clock("absolute:1m", 0);
    c.start_turn(Black, 1000).unwrap();
    assert_eq!(c.remaining(Black, 1000), main_only(60 * S));
    assert_eq!(c.remaining(Black, 21 * S), main_only(40 * S));
    assert_eq!(c.remaining(White, 21 * S), main_only(60 * S));
    assert_eq!(c.until_flag_ms(Black, 21 * S), Some(40 * S));
    assert_eq!(c.spent_ms(21 * S), 20 * S);
}

// ---- Fischer ----

#[test]
fn fischer_adds_the_increment_after_each_move() {
    let mut c = clock("fischer:1m+10s", 0);
    assert_eq!(black_moves(&mut c, 0, 5 * S, 0), Ok(main_only(65 * S)));
    assert_eq!(black_moves(&mut c, 0, 0, 0), Ok(main_only(75 * S)));
}

#[test]
fn fischer_cap_cuts_the_time_after_the_increment() {
    let mut c = clock("fischer:1m+10s,max=1m", 0);
    assert_eq!(black_moves(&mut c, 0, 5 * S, 0), Ok(main_only(60 * S)));
    assert_eq!(black_moves(&mut c, 0, 15 * S, 0), Ok(main_only(55 * S)));
    assert_eq!(black_moves(&mut c, 0, 2 * S, 0), Ok(main_only(60 * S)));
}

#[test]
fn fischer_cap_above_main_lets_time_grow_to_the_cap() {
    let mut c = clock("fischer:1m+10s,max=70s", 0);
    assert_eq!(black_moves(&mut c, 0, S, 0), Ok(main_only(69 * S)));
    assert_eq!(black_moves(&mut c, 0, S, 0), Ok(main_only(70 * S)));
}

#[test]
fn fischer_at_exactly_zero_gets_the_increment_and_one_over_gets_nothing() {
    let mut c = clock("fischer:1m+10s", 0);
    assert_eq!(black_moves(&mut c, 0, 60 * S, 0), Ok(main_only(10 * S)));
    assert_eq!(
        black_moves(&mut c, 0, 10 * S + 1, 0),
        Err(ClockError::TimedOut(Black))
    );
    assert_eq!(c.at_rest(Black).main_ms, 0);
}

// ---- byo-yomi ----

#[test]
fn byoyomi_main_time_used_exactly_does_not_enter_overtime() {
    let mut c = clock("byoyomi:1m+3x10s", 0);
    let after = black_moves(&mut c, 0, 60 * S, 0).unwrap();
    assert_eq!(after, byo(0, 3, 10 * S));
    assert!(after.in_overtime());
}

#[test]
fn byoyomi_a_move_within_the_period_keeps_it() {
    let mut c = clock("byoyomi:1m+3x10s", 0);
    assert_eq!(black_moves(&mut c, 0, 65 * S, 0), Ok(byo(0, 3, 10 * S)));
    assert_eq!(black_moves(&mut c, 0, 9 * S, 0), Ok(byo(0, 3, 10 * S)));
    // Exactly at the end of the period: on time, the period kept.
    assert_eq!(black_moves(&mut c, 0, 10 * S, 0), Ok(byo(0, 3, 10 * S)));
}

#[test]
fn byoyomi_overrunning_uses_up_each_period_overrun() {
    let mut c = clock("byoyomi:1m+3x10s", 0);
    black_moves(&mut c, 0, 60 * S, 0).unwrap();
    assert_eq!(black_moves(&mut c, 0, 10 * S + 1, 0), Ok(byo(0, 2, 10 * S)));
    let mut c = clock("byoyomi:1m+3x10s", 0);
    // From main time straight through two periods into the third.
    assert_eq!(black_moves(&mut c, 0, 85 * S, 0), Ok(byo(0, 1, 10 * S)));
}

#[test]
fn byoyomi_last_period() {
    let mut c = clock("byoyomi:0s+1x10s", 0);
    for _ in 0..5 {
        assert_eq!(black_moves(&mut c, 0, 10 * S, 0), Ok(byo(0, 1, 10 * S)));
    }
    assert_eq!(
        black_moves(&mut c, 0, 10 * S + 1, 0),
        Err(ClockError::TimedOut(Black))
    );
    assert_eq!(
        c.at_rest(Black).overtime,
        Overtime::ByoYomi {
            periods: 0,
            period_ms: 0
        }
    );
}

#[test]
fn byoyomi_all_periods_in_one_move() {
    let mut c = clock("byoyomi:0s+3x10s", 0);
    assert_eq!(black_moves(&mut c, 0, 30 * S, 0), Ok(byo(0, 1, 10 * S)));
    let mut c = clock("byoyomi:0s+3x10s", 0);
    assert_eq!(
        black_moves(&mut c, 0, 30 * S + 1, 0),
        Err(ClockError::TimedOut(Black))
    );
}

#[test]
fn byoyomi_remaining_during_the_turn() {
    let mut c = clock("byoyomi:1m+3x10s", 0);
    c.start_turn(Black, 0).unwrap();
    assert_eq!(c.remaining(Black, 59 * S), byo(S, 3, 10 * S));
    assert_eq!(c.remaining(Black, 60 * S), byo(0, 3, 10 * S));
    assert_eq!(c.remaining(Black, 64 * S), byo(0, 3, 6 * S));
    assert_eq!(c.remaining(Black, 70 * S), byo(0, 3, 0));
    assert_eq!(c.remaining(Black, 70 * S + 1), byo(0, 2, 10 * S - 1));
    assert_eq!(c.remaining(Black, 85 * S), byo(0, 1, 5 * S));
    assert_eq!(c.until_flag_ms(Black, 85 * S), Some(5 * S));
    let out = c.remaining(Black, 90 * S + 1);
    assert_eq!(
        out.overtime,
        Overtime::ByoYomi {
            periods: 0,
            period_ms: 0
        }
    );
    assert!(out.flagged);
}

// ---- Canadian ----

#[test]
fn canadian_main_time_used_exactly_leaves_a_whole_block() {
    let mut c = clock("canadian:1m+3/30s", 0);
    assert_eq!(
        black_moves(&mut c, 0, 60 * S, 0),
        Ok(canadian(0, 3, 30 * S))
    );
}

#[test]
fn canadian_the_move_that_ends_main_time_is_the_first_stone() {
    let mut c = clock("canadian:1m+3/30s", 0);
    assert_eq!(
        black_moves(&mut c, 0, 70 * S, 0),
        Ok(canadian(0, 2, 20 * S))
    );
}

#[test]
fn canadian_block_boundary_renews_the_block_without_carrying_time() {
    let mut c = clock("canadian:0s+3/30s", 0);
    assert_eq!(black_moves(&mut c, 0, 5 * S, 0), Ok(canadian(0, 2, 25 * S)));
    assert_eq!(black_moves(&mut c, 0, 5 * S, 0), Ok(canadian(0, 1, 20 * S)));
    // The last stone at exactly the end of the block: on time, a whole new block.
    assert_eq!(
        black_moves(&mut c, 0, 20 * S, 0),
        Ok(canadian(0, 3, 30 * S))
    );
    // A quick block: the time left over is not carried into the next one.
    for _ in 0..3 {
        black_moves(&mut c, 0, S, 0).unwrap();
    }
    assert_eq!(c.at_rest(Black), canadian(0, 3, 30 * S));
}

#[test]
fn canadian_running_out_before_the_last_stone_loses() {
    let mut c = clock("canadian:0s+3/30s", 0);
    black_moves(&mut c, 0, 15 * S, 0).unwrap();
    black_moves(&mut c, 0, 15 * S, 0).unwrap();
    assert_eq!(c.at_rest(Black), canadian(0, 1, 0));
    assert_eq!(
        black_moves(&mut c, 0, 1, 0),
        Err(ClockError::TimedOut(Black))
    );
}

#[test]
fn canadian_one_stone_blocks_and_overrunning_from_main_time() {
    let mut c = clock("canadian:1m+1/30s", 0);
    assert_eq!(
        black_moves(&mut c, 0, 70 * S, 0),
        Ok(canadian(0, 1, 30 * S))
    );
    let mut c = clock("canadian:1m+3/30s", 0);
    assert_eq!(
        black_moves(&mut c, 0, 90 * S + 1, 0),
        Err(ClockError::TimedOut(Black))
    );
}

#[test]
fn canadian_remaining_during_the_turn() {
    let mut c = clock("canadian:1m+3/30s", 0);
    c.start_turn(Black, 0).unwrap();
    assert_eq!(c.remaining(Black, 50 * S), canadian(10 * S, 3, 30 * S));
    assert_eq!(c.remaining(Black, 70 * S), canadian(0, 3, 20 * S));
    assert_eq!(c.until_flag_ms(Black, 70 * S), Some(20 * S));
}

// ---- simple and none ----

#[test]
fn simple_time_is_per_move_and_not_carried() {
    let mut c = clock("simple:30s", 0);
    assert_eq!(black_moves(&mut c, 0, S, 0), Ok(main_only(30 * S)));
    assert_eq!(black_moves(&mut c, 0, 30 * S, 0), Ok(main_only(30 * S)));
    c.start_turn(Black, 0).unwrap();
    assert_eq!(c.remaining(Black, 12 * S), main_only(18 * S));
    assert_eq!(
        c.end_turn(Black, 30 * S + 1, 0),
        Err(ClockError::TimedOut(Black))
    );
}

#[test]
fn no_time_limit_never_flags() {
    let mut c = clock("none", 0);
    c.start_turn(Black, 0).unwrap();
    assert_eq!(c.flag_check(u64::MAX), None);
    assert_eq!(c.next_flag_at(), None);
    assert_eq!(c.until_flag_ms(Black, u64::MAX), None);
    assert!(c.remaining(Black, u64::MAX).is_unlimited());
    assert!(c.end_turn(Black, u64::MAX, 0).is_ok());
}

// ---- lag ----

#[test]
fn lag_is_credited_up_to_the_cap() {
    let mut c = clock("absolute:10s", S);
    // 10.5 s spent, 0.8 s of it lag: charged 9.7 s.
    assert_eq!(black_moves(&mut c, 0, 10_500, 800), Ok(main_only(300)));
    let mut c = clock("absolute:10s", S);
    // 12 s spent with 5 s of lag: only the cap, 1 s, is credited; 11 s is too much.
    assert_eq!(
        black_moves(&mut c, 0, 12 * S, 5 * S),
        Err(ClockError::TimedOut(Black))
    );
}

#[test]
fn lag_never_gives_more_than_the_turn_spent() {
    let mut c = clock("absolute:10s", 5 * S);
    assert_eq!(black_moves(&mut c, 0, 200, 900), Ok(main_only(10 * S)));
}

#[test]
fn no_cap_no_credit() {
    let mut c = clock("absolute:10s", 0);
    assert_eq!(
        black_moves(&mut c, 0, 10 * S + 1, 5 * S),
        Err(ClockError::TimedOut(Black))
    );
}

#[test]
fn flag_check_waits_out_the_lag_cap() {
    let mut c = clock("absolute:10s", S);
    c.start_turn(Black, 100).unwrap();
    assert_eq!(c.next_flag_at(), Some(100 + 11 * S + 1));
    // At 10 s the time shows as gone, but a move in flight could still be credited.
    assert_eq!(c.remaining(Black, 100 + 10 * S), main_only(0));
    assert_eq!(c.flag_check(100 + 11 * S), None);
    assert!(!c.remaining(Black, 100 + 11 * S).flagged);
    assert!(c.remaining(Black, 100 + 11 * S + 1).flagged);
    // A move arriving during the lag is on time with its credit.
    let mut late = c.clone();
    assert_eq!(late.end_turn(Black, 100 + 10_900, 900), Ok(main_only(0)));
    assert_eq!(c.flag_check(100 + 11 * S + 1), Some(Black));
}

#[test]
fn byoyomi_lag_credit_saves_a_period() {
    let mut c = clock("byoyomi:0s+3x10s", S);
    assert_eq!(black_moves(&mut c, 0, 10_700, 700), Ok(byo(0, 3, 10 * S)));
    assert_eq!(black_moves(&mut c, 0, 10_700, 600), Ok(byo(0, 2, 10 * S)));
}

// ---- flags ----

#[test]
fn a_flagged_player_stays_flagged() {
    let mut c = clock("absolute:10s", 0);
    c.start_turn(Black, 0).unwrap();
    assert_eq!(c.flag_check(10 * S), None);
    assert_eq!(c.flag_check(10 * S + 1), Some(Black));
    assert_eq!(c.running(), None);
    assert_eq!(c.flag_check(0), Some(Black));
    assert_eq!(
        c.end_turn(Black, 10 * S + 2, 0),
        Err(ClockError::TimedOut(Black))
    );
    assert_eq!(
        c.start_turn(White, 20 * S),
        Err(ClockError::TimedOut(Black))
    );
    assert_eq!(
        c.start_turn(Black, 20 * S),
        Err(ClockError::TimedOut(Black))
    );
    assert!(c.remaining(Black, 0).flagged);
    assert!(!c.remaining(White, 0).flagged);
    assert_eq!(c.next_flag_at(), None);
    c.pause(30 * S).unwrap();
    c.resume(0).unwrap();
    assert_eq!(c.flagged(), Some(Black));
}

#[test]
fn flag_check_with_no_turn_running_finds_no_one() {
    let mut c = clock("absolute:10s", 0);
    assert_eq!(c.flag_check(u64::MAX), None);
    black_moves(&mut c, 0, 10 * S, 0).unwrap();
    assert_eq!(c.flag_check(u64::MAX), None);
}

// ---- misuse ----

#[test]
fn turns_must_be_started_and_ended_in_order() {
    let mut c = clock("absolute:10s", 0);
    assert_eq!(c.end_turn(Black, 0, 0), Err(ClockError::NotRunning(Black)));
    c.start_turn(Black, 100).unwrap();
    assert_eq!(
        c.start_turn(White, 100),
        Err(ClockError::AlreadyRunning(Black))
    );
    assert_eq!(
        c.start_turn(Black, 100),
        Err(ClockError::AlreadyRunning(Black))
    );
    assert_eq!(
        c.end_turn(White, 200, 0),
        Err(ClockError::NotRunning(White))
    );
    assert_eq!(
        c.end_turn(Black, 99, 0),
        Err(ClockError::TimeWentBack {
            since: 100,
            now: 99
        })
    );
    assert_eq!(
        c.pause(99),
        Err(ClockError::TimeWentBack {
            since: 100,
            now: 99
        })
    );
    assert!(c.end_turn(Black, 100, 0).is_ok());
}

#[test]
fn errors_read_as_sentences() {
    assert_eq!(
        ClockError::TimedOut(White).to_string(),
        "white has run out of time"
    );
    assert_eq!(
        ClockError::NotRunning(Black).to_string(),
        "black's clock is not running"
    );
    assert_eq!(
        Clock::new(TimeControl::Absolute { main_ms: 0 }, 0)
            .unwrap_err()
            .to_string(),
        "absolute time needs a main time of more than 0"
    );
}

// ---- pause, resume, restart ----

#[test]
fn pause_loses_no_time() {
    let mut c = clock("byoyomi:1m+3x10s", 0);
    c.start_turn(Black, 0).unwrap();
    c.pause(40 * S).unwrap();
    // The server is down for an hour.
    assert_eq!(c.remaining(Black, 3_640 * S), byo(20 * S, 3, 10 * S));
    assert_eq!(c.flag_check(3_640 * S), None);
    assert_eq!(c.next_flag_at(), None);
    assert_eq!(c.start_turn(White, 3_640 * S), Err(ClockError::Paused));
    assert_eq!(c.end_turn(Black, 3_640 * S, 0), Err(ClockError::Paused));
    assert_eq!(c.pause(3_640 * S), Err(ClockError::Paused));
    c.resume(3_640 * S).unwrap();
    assert_eq!(c.resume(3_640 * S), Err(ClockError::NotPaused));
    assert_eq!(c.next_flag_at(), Some(3_640 * S + 50 * S + 1));
    assert_eq!(c.end_turn(Black, 3_650 * S, 0), Ok(byo(10 * S, 3, 10 * S)));
}

#[test]
fn a_paused_turn_already_out_of_time_is_still_flagged() {
    let mut c = clock("absolute:10s", 0);
    c.start_turn(Black, 0).unwrap();
    c.pause(11 * S).unwrap();
    assert_eq!(c.flag_check(11 * S), Some(Black));
}

#[test]
fn restart_resumes_where_the_clock_was_on_a_new_time_scale() {
    let control: TimeControl = "canadian:1m+3/30s".parse().unwrap();
    let mut c = Clock::new(control, 500).unwrap();
    black_moves(&mut c, 0, 70 * S, 0).unwrap();
    c.start_turn(White, 70 * S).unwrap();
    let stored = c.snapshot(80 * S);
    assert_eq!(
        stored.turn,
        Some(RunningTurn {
            color: White,
            spent_ms: 10 * S
        })
    );
    // A new process: its monotonic clock starts near 0.
    let mut again = Clock::restore(control, 500, &stored).unwrap();
    assert!(again.is_paused());
    again.resume(5).unwrap();
    assert_eq!(again.remaining(White, 5 + 20 * S).main_ms, 30 * S);
    assert_eq!(
        again.end_turn(White, 5 + 20 * S, 0),
        Ok(canadian(30 * S, 3, 30 * S))
    );
    assert_eq!(again.at_rest(Black), canadian(0, 2, 20 * S));
}

#[test]
fn restore_checks_the_state_against_the_settings() {
    let control: TimeControl = "byoyomi:1m+3x10s".parse().unwrap();
    let good = Clock::new(control, 0).unwrap().snapshot(0);
    assert!(Clock::restore(control, 0, &good).is_ok());
    let mut too_many = good;
    too_many.players[0] = byo(0, 4, 10 * S);
    assert!(matches!(
        Clock::restore(control, 0, &too_many),
        Err(ClockError::BadState(_))
    ));
    let mut other_system = good;
    other_system.players[1] = main_only(S);
    assert!(matches!(
        Clock::restore(control, 0, &other_system),
        Err(ClockError::BadState(_))
    ));
    let flagged_then_turn = ClockState {
        players: [
            Remaining {
                flagged: true,
                ..byo(0, 0, 0)
            },
            byo(60 * S, 3, 10 * S),
        ],
        turn: Some(RunningTurn {
            color: White,
            spent_ms: 0,
        }),
    };
    assert!(matches!(
        Clock::restore(control, 0, &flagged_then_turn),
        Err(ClockError::BadState(_))
    ));
    assert!(matches!(
        Clock::restore(TimeControl::Simple { per_move_ms: 0 }, 0, &good),
        Err(ClockError::BadControl(_))
    ));
}

// ---- the dead-stone phase ----

#[test]
fn no_clock_runs_during_marking_and_a_dispute_restarts_the_player_to_move() {
    let mut c = clock("byoyomi:1m+3x10s", 0);
    // Black passes, White passes: play ends with White's pass.
    black_moves(&mut c, 0, 20 * S, 0).unwrap();
    c.start_turn(White, 20 * S).unwrap();
    c.end_turn(White, 95 * S, 0).unwrap();
    let (black, white) = (c.at_rest(Black), c.at_rest(White));
    assert_eq!(white, byo(0, 2, 10 * S));
    // An hour of marking: nobody's time moves and nobody can be flagged.
    assert_eq!(c.flag_check(3_695 * S), None);
    assert_eq!(c.remaining(Black, 3_695 * S), black);
    assert_eq!(c.remaining(White, 3_695 * S), white);
    // Black disputes: play resumes with Black to move (the opponent of White, who passed last).
    c.start_turn(Black, 3_695 * S).unwrap();
    assert_eq!(c.remaining(Black, 3_700 * S), byo(35 * S, 3, 10 * S));
}
