//! Time management: how long to think about a move, given the clock.
//!
//! The bot spends its main time evenly over the moves it expects still to play, and adds what the overtime
//! gives back for every move (a Fischer increment, most of a byo-yomi period, a Canadian block shared among its
//! stones). A margin is always kept for the answer to reach the clock (the controller's or server's reading,
//! the process's start of the search, the last playout), so the budget never comes near a flag.
//!
//! Everything here is pure arithmetic on milliseconds; callers turn the budget into
//! [`crate::mcts::MctsConfig::time`].

use std::time::Duration;

use tesuji_clock::{Overtime, Remaining, TimeControl};

/// Kept back from every budget: time for the move to reach the clock.
pub const MARGIN_MS: u64 = 300;
/// Kept back under sudden death for each move still planned: the time a move costs besides its search (the
/// answer's way to the clock), so that a long game's last moves still have it.
pub const RESERVE_MS: u64 = 100;
/// The least budget (a move must still be searched a little, even in a hurry).
pub const MIN_BUDGET_MS: u64 = 20;

/// The moves a player still expects to make on a board with `empty` empty points: two in five of them (a 9×9
/// game is about 30 moves a side from an empty board, a 19×19 game about 140), at least 10 so that the time is
/// never spent at once near the end.
pub fn moves_to_plan(empty: usize) -> u64 {
    (empty as u64 * 2 / 5).max(10)
}

/// How long to think about this move, with `left` on our clock under `control`, on a board with `empty` empty
/// points; `None` when the clock sets no limit.
pub fn budget(control: &TimeControl, left: &Remaining, empty: usize) -> Option<Duration> {
    let moves = moves_to_plan(empty);
    let main = left.main_ms;
    // Main time to plan with: what is left once every planned move has its reserve.
    let spread = main.saturating_sub(moves * RESERVE_MS) / moves;
    // What the move may use at most without losing, and what it should use.
    let (most, planned) = match (*control, left.overtime) {
        (TimeControl::None, _) | (_, Overtime::Unlimited) => return None,
        (TimeControl::Simple { .. }, _) => (main, main),
        (TimeControl::Fischer { increment_ms, .. }, _) => {
            // The increment comes back after the move; a bank below it is all that can be spent now.
            (main, spread + increment_ms * 4 / 5)
        }
        (_, Overtime::ByoYomi { periods, period_ms }) => {
            // In main time the first period is still to come, whole; in overtime a move within the period
            // keeps it, so most of it is ours every move. Periods beyond the last are spare: never planned.
            let _ = periods;
            let period = period_ms * 4 / 5;
            if main > 0 {
                (main + period, (main / moves).max(period))
            } else {
                (period_ms, period)
            }
        }
        (_, Overtime::Canadian { stones, block_ms }) => {
            let stones = u64::from(stones.max(1));
            if main > 0 {
                // The block begins when the main time ends; its time is shared by its stones.
                let share = block_ms / stones;
                (main + share, (main / moves).max(share * 4 / 5))
            } else {
                (block_ms, block_ms / stones * 4 / 5)
            }
        }
        (_, Overtime::SuddenDeath) => (main, spread),
    };
    let safe = most.saturating_sub(MARGIN_MS);
    Some(Duration::from_millis(
        planned.min(safe).max(MIN_BUDGET_MS.min(safe)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tesuji_clock::{Clock, SECOND_MS};
    use tesuji_rules::Color;

    fn control(spec: &str) -> TimeControl {
        spec.parse().unwrap()
    }

    fn ms(d: Option<Duration>) -> u64 {
        d.map_or(u64::MAX, |d| d.as_millis() as u64)
    }

    #[test]
    fn no_clock_no_budget() {
        let none = control("none");
        assert_eq!(budget(&none, &Remaining::initial(&none), 81), None);
    }

    #[test]
    fn main_time_is_spread_over_the_moves_to_come() {
        let c = control("absolute:5m");
        let b = ms(budget(&c, &Remaining::initial(&c), 81));
        // 81 empty points: 32 moves planned.
        assert_eq!(b, (300_000 - 32 * RESERVE_MS) / 32);
        let later = ms(budget(&c, &Remaining::initial(&c), 20));
        assert_eq!(
            later,
            300_000 / 10 - RESERVE_MS,
            "never fewer than 10 moves planned"
        );
    }

    #[test]
    fn overtime_gives_most_of_a_period_or_a_share_of_a_block() {
        let c = control("byoyomi:0+5x30s");
        let b = ms(budget(&c, &Remaining::initial(&c), 200));
        assert_eq!(b, 24_000);
        let c = control("canadian:0+10/5m");
        let b = ms(budget(&c, &Remaining::initial(&c), 200));
        assert_eq!(b, 24_000);
        let c = control("fischer:10s+5s");
        let b = ms(budget(&c, &Remaining::initial(&c), 361));
        // 10 s do not cover the reserves of 144 moves: the increment alone.
        assert_eq!(b, 4_000);
        let c = control("simple:3s");
        assert_eq!(
            ms(budget(&c, &Remaining::initial(&c), 361)),
            3_000 - MARGIN_MS
        );
    }

    #[test]
    fn almost_no_time_left_still_leaves_the_margin() {
        let c = control("absolute:1m");
        let left = Remaining {
            main_ms: 200,
            ..Remaining::initial(&c)
        };
        assert_eq!(ms(budget(&c, &left, 50)), 0);
        let left = Remaining {
            main_ms: 1_000,
            ..Remaining::initial(&c)
        };
        // 20 moves planned, each with its reserve: nothing to spend now but the least budget.
        assert_eq!(ms(budget(&c, &left, 50)), MIN_BUDGET_MS);
        let left = Remaining {
            main_ms: 5_000,
            ..Remaining::initial(&c)
        };
        assert_eq!(ms(budget(&c, &left, 50)), 5_000 / 20 - RESERVE_MS);
    }

    proptest! {
        /// A whole game played on the clock model, each move spending its budget plus an overhead up to the
        /// reserve: nobody loses on time, whatever the control, in a game longer than most.
        #[test]
        fn budgets_never_lose_on_time(
            system in 0usize..5,
            main_s in 0u64..600,
            extra_s in 1u64..60,
            count in 1u32..30,
            side in prop::sample::select(vec![9usize, 13, 19]),
            overhead in 0u64..=RESERVE_MS,
        ) {
            let main = main_s * SECOND_MS;
            let extra = extra_s * SECOND_MS;
            let c = match system {
                0 => TimeControl::Absolute { main_ms: main + 60 * SECOND_MS },
                1 => TimeControl::Fischer { main_ms: main + SECOND_MS, increment_ms: extra, max_ms: None },
                2 => TimeControl::ByoYomi { main_ms: main, periods: count, period_ms: extra },
                3 => TimeControl::Canadian { main_ms: main, stones: count, period_ms: extra * u64::from(count) },
                _ => TimeControl::Simple { per_move_ms: extra },
            };
            let mut clock = Clock::new(c, 0).unwrap();
            let mut now = 0u64;
            let area = side * side;
            // A long game: as many moves by each player as the board has points over two, two fewer empty
            // points a turn, down to a tenth of the board.
            for k in 0..area / 2 {
                let empty = area.saturating_sub(2 * k).max(area / 10);
                let left = clock.remaining(Color::Black, now);
                let b = ms(budget(&c, &left, empty));
                clock.start_turn(Color::Black, now).unwrap();
                now += b + overhead;
                let answer = clock.end_turn(Color::Black, now, 0);
                prop_assert!(answer.is_ok(), "move {k}: {b} ms with {left:?} under {c}: {answer:?}");
            }
        }
    }
}
