//! Time controls: the settings of a game's clock, their limits, and our named presets.

/// One second in milliseconds.
pub const SECOND_MS: u64 = 1000;
/// One minute in milliseconds.
pub const MINUTE_MS: u64 = 60 * SECOND_MS;
/// One hour in milliseconds.
pub const HOUR_MS: u64 = 60 * MINUTE_MS;
/// One day in milliseconds.
pub const DAY_MS: u64 = 24 * HOUR_MS;

/// The longest duration a time control may hold (main time, increment, cap, period): 365 days. The bound keeps
/// every sum the clock makes far from overflow and still allows correspondence games.
pub const MAX_DURATION_MS: u64 = 365 * DAY_MS;

/// The most byo-yomi periods, or Canadian stones per block, a time control may hold.
pub const MAX_COUNT: u32 = 1000;

/// The settings of a game's clock; both players get the same. Every duration is in milliseconds.
///
/// Build one directly or parse a spec string (`"byoyomi:10m+5x30s".parse()`); [`TimeControl::validate`] says
/// whether a value is usable, and [`crate::Clock::new`] refuses one that is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// No time limit: nobody ever runs out.
    None,
    /// Sudden death: `main_ms` for the whole game.
    Absolute { main_ms: u64 },
    /// `main_ms` to start with; every move on time then adds `increment_ms`. With `max_ms`, the time left after
    /// the increment is cut to at most `max_ms`.
    Fischer {
        main_ms: u64,
        increment_ms: u64,
        max_ms: Option<u64>,
    },
    /// Japanese byo-yomi: `main_ms`, then `periods` periods of `period_ms` each. A move made within the current
    /// period leaves it whole for the next move; a move that takes longer uses up every period it overran.
    /// Running past the last period loses.
    ByoYomi {
        main_ms: u64,
        periods: u32,
        period_ms: u64,
    },
    /// Canadian overtime: `main_ms`, then blocks of `stones` moves in `period_ms`. After the last stone of a
    /// block the next block starts whole; time left in a block is not carried over.
    Canadian {
        main_ms: u64,
        stones: u32,
        period_ms: u64,
    },
    /// `per_move_ms` for every move; nothing is carried over.
    Simple { per_move_ms: u64 },
}

/// Why a time control cannot be used. Each message is one line naming the setting at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("{system} needs a main time of more than 0")]
    ZeroMain { system: &'static str },
    #[error("simple time needs more than 0 per move")]
    ZeroPerMove,
    #[error("{system} needs a period of more than 0")]
    ZeroPeriod { system: &'static str },
    #[error("byo-yomi needs at least 1 period")]
    ZeroPeriods,
    #[error("Canadian overtime needs at least 1 stone per period")]
    ZeroStones,
    #[error("the Fischer cap max={} is less than the main time {}", format_duration(*cap_ms), format_duration(*main_ms))]
    CapBelowMain { cap_ms: u64, main_ms: u64 },
    #[error("the {what} {} is longer than the limit of {}", format_duration(*ms), format_duration(MAX_DURATION_MS))]
    TooLong { what: &'static str, ms: u64 },
    #[error("too many {what}: {count}, where the limit is {max}", max = MAX_COUNT)]
    TooMany { what: &'static str, count: u32 },
}

impl TimeControl {
    /// The system's name as spec strings write it: `none`, `absolute`, `fischer`, `byoyomi`, `canadian`,
    /// `simple`.
    pub fn system(&self) -> &'static str {
        match self {
            TimeControl::None => "none",
            TimeControl::Absolute { .. } => "absolute",
            TimeControl::Fischer { .. } => "fischer",
            TimeControl::ByoYomi { .. } => "byoyomi",
            TimeControl::Canadian { .. } => "canadian",
            TimeControl::Simple { .. } => "simple",
        }
    }

    /// Whether there is a time limit at all.
    pub fn is_timed(&self) -> bool {
        !matches!(self, TimeControl::None)
    }

    /// The main time each player starts with (0 for `none`; the per-move time for `simple`).
    pub fn main_ms(&self) -> u64 {
        match *self {
            TimeControl::None => 0,
            TimeControl::Absolute { main_ms }
            | TimeControl::Fischer { main_ms, .. }
            | TimeControl::ByoYomi { main_ms, .. }
            | TimeControl::Canadian { main_ms, .. } => main_ms,
            TimeControl::Simple { per_move_ms } => per_move_ms,
        }
    }

    /// Checks the settings: main time above 0 where nothing follows it (absolute, Fischer), periods and stones
    /// at least 1, periods and per-move times above 0, a Fischer cap not below the main time, every duration at
    /// most [`MAX_DURATION_MS`] and every count at most [`MAX_COUNT`].
    pub fn validate(&self) -> Result<(), ControlError> {
        fn long(what: &'static str, ms: u64) -> Result<(), ControlError> {
            if ms > MAX_DURATION_MS {
                Err(ControlError::TooLong { what, ms })
            } else {
                Ok(())
            }
        }
        fn many(what: &'static str, count: u32) -> Result<(), ControlError> {
            if count > MAX_COUNT {
                Err(ControlError::TooMany { what, count })
            } else {
                Ok(())
            }
        }
        match *self {
            TimeControl::None => Ok(()),
            TimeControl::Absolute { main_ms } => {
                long("main time", main_ms)?;
                if main_ms == 0 {
                    return Err(ControlError::ZeroMain {
                        system: "absolute time",
                    });
                }
                Ok(())
            }
            TimeControl::Fischer {
                main_ms,
                increment_ms,
                max_ms,
            } => {
                long("main time", main_ms)?;
                long("increment", increment_ms)?;
                if main_ms == 0 {
                    return Err(ControlError::ZeroMain {
                        system: "Fischer time",
                    });
                }
                if let Some(cap_ms) = max_ms {
                    long("cap", cap_ms)?;
                    if cap_ms < main_ms {
                        return Err(ControlError::CapBelowMain { cap_ms, main_ms });
                    }
                }
                Ok(())
            }
            TimeControl::ByoYomi {
                main_ms,
                periods,
                period_ms,
            } => {
                long("main time", main_ms)?;
                long("period", period_ms)?;
                many("periods", periods)?;
                if periods == 0 {
                    return Err(ControlError::ZeroPeriods);
                }
                if period_ms == 0 {
                    return Err(ControlError::ZeroPeriod { system: "byo-yomi" });
                }
                Ok(())
            }
            TimeControl::Canadian {
                main_ms,
                stones,
                period_ms,
            } => {
                long("main time", main_ms)?;
                long("period", period_ms)?;
                many("stones", stones)?;
                if stones == 0 {
                    return Err(ControlError::ZeroStones);
                }
                if period_ms == 0 {
                    return Err(ControlError::ZeroPeriod {
                        system: "Canadian overtime",
                    });
                }
                Ok(())
            }
            TimeControl::Simple { per_move_ms } => {
                long("time per move", per_move_ms)?;
                if per_move_ms == 0 {
                    return Err(ControlError::ZeroPerMove);
                }
                Ok(())
            }
        }
    }
}

/// Our blitz preset, `fischer:3m+10s,max=3m`.
///
/// The presets are ours, not Board Game Arena's numbers (which we do not state). They follow one rule of Board
/// Game Arena's clock: a player's time to think never rises above what they started with, so each is Fischer
/// time capped at its main time.
pub const BLITZ: TimeControl = TimeControl::Fischer {
    main_ms: 3 * MINUTE_MS,
    increment_ms: 10 * SECOND_MS,
    max_ms: Some(3 * MINUTE_MS),
};

/// Our rapid preset, `fischer:10m+20s,max=10m` (see [`BLITZ`] for what the presets are).
pub const RAPID: TimeControl = TimeControl::Fischer {
    main_ms: 10 * MINUTE_MS,
    increment_ms: 20 * SECOND_MS,
    max_ms: Some(10 * MINUTE_MS),
};

/// Our classical preset, `fischer:30m+30s,max=30m` (see [`BLITZ`] for what the presets are).
pub const CLASSICAL: TimeControl = TimeControl::Fischer {
    main_ms: 30 * MINUTE_MS,
    increment_ms: 30 * SECOND_MS,
    max_ms: Some(30 * MINUTE_MS),
};

/// Our correspondence (turn-based) preset, `fischer:3d+1d,max=3d` (see [`BLITZ`] for what the presets are).
pub const CORRESPONDENCE: TimeControl = TimeControl::Fischer {
    main_ms: 3 * DAY_MS,
    increment_ms: DAY_MS,
    max_ms: Some(3 * DAY_MS),
};

/// The named presets, fastest first, as spec strings name them.
pub const PRESETS: [(&str, TimeControl); 4] = [
    ("blitz", BLITZ),
    ("rapid", RAPID),
    ("classical", CLASSICAL),
    ("correspondence", CORRESPONDENCE),
];

/// The preset of that name, if there is one.
pub fn preset(name: &str) -> Option<TimeControl> {
    PRESETS
        .iter()
        .find(|(preset, _)| *preset == name)
        .map(|(_, control)| *control)
}

/// Prints a duration canonically: `0s`, else days, hours and minutes as whole parts and seconds with up to three
/// decimals, leaving out parts that are zero: `1m30s`, `1h30m`, `1.5s`, `2d`. [`crate::parse_duration`] reads it back.
pub fn format_duration(ms: u64) -> String {
    if ms == 0 {
        return "0s".to_string();
    }
    let mut out = String::new();
    let mut rest = ms;
    for (name, unit_ms) in [("d", DAY_MS), ("h", HOUR_MS), ("m", MINUTE_MS)] {
        let count = rest / unit_ms;
        if count > 0 {
            out.push_str(&count.to_string());
            out.push_str(name);
        }
        rest %= unit_ms;
    }
    if rest > 0 {
        out.push_str(&format_seconds(rest));
        out.push('s');
    }
    out
}

/// Milliseconds as a number of seconds with up to three decimals and no trailing zeros: `30`, `1.5`, `0.001`.
pub(crate) fn format_seconds(ms: u64) -> String {
    let whole = ms / SECOND_MS;
    let fraction = ms % SECOND_MS;
    if fraction == 0 {
        whole.to_string()
    } else {
        let digits = format!("{fraction:03}");
        format!("{whole}.{}", digits.trim_end_matches('0'))
    }
}
