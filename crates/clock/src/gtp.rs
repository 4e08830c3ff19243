//! GTP forms: `time_settings`, `kgs-time_settings` and `time_left`, mapped to and from our types.
//!
//! GTP counts in whole seconds. `time_settings MAIN BYO STONES` is Canadian overtime, with two special cases
//! from the GTP 2 specification: `BYO > 0` with `STONES = 0` means no time limit, and `BYO = 0` means absolute
//! time. `kgs-time_settings` names its system: `none`, `absolute MAIN`, `byoyomi MAIN PERIOD PERIODS`,
//! `canadian MAIN PERIOD STONES`.

use std::fmt;

use crate::clock::{Overtime, Remaining};
use crate::control::format_duration;
use crate::control::{ControlError, SECOND_MS, TimeControl};

/// Why a time control or a clock reading has no form in GTP or SGF, or such a form could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("{control} has no {form} form")]
    NoForm { control: String, form: &'static str },
    #[error("the {what} {} is not a whole number of seconds, as GTP needs", format_duration(*ms))]
    NotWholeSeconds { what: &'static str, ms: u64 },
    #[error("bad {command} arguments {text:?}; expected {expected}")]
    BadArgs {
        command: &'static str,
        text: String,
        expected: &'static str,
    },
    #[error("bad SGF {property} value {value:?}: {why}")]
    BadSgf {
        property: &'static str,
        value: String,
        why: &'static str,
    },
    #[error(transparent)]
    Invalid(#[from] ControlError),
}

fn whole_seconds(what: &'static str, ms: u64) -> Result<u64, MapError> {
    if ms.is_multiple_of(SECOND_MS) {
        Ok(ms / SECOND_MS)
    } else {
        Err(MapError::NotWholeSeconds { what, ms })
    }
}

fn seconds_to_ms(seconds: u64) -> u64 {
    // A value too large saturates, and validation then names it as too long.
    seconds.saturating_mul(SECOND_MS)
}

fn parse_numbers<const N: usize>(
    command: &'static str,
    args: &[&str],
    expected: &'static str,
) -> Result<[u64; N], MapError> {
    let bad = || MapError::BadArgs {
        command,
        text: args.join(" ").chars().take(40).collect(),
        expected,
    };
    if args.len() != N {
        return Err(bad());
    }
    let mut out = [0; N];
    for (slot, arg) in out.iter_mut().zip(args) {
        if arg.is_empty() || !arg.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        *slot = arg.parse().map_err(|_| bad())?;
    }
    Ok(out)
}

fn count(value: u64) -> u32 {
    // A count too large saturates, and validation then names it as too many.
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// The arguments of GTP's `time_settings`, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GtpTimeSettings {
    pub main_s: u64,
    pub byo_yomi_s: u64,
    pub byo_yomi_stones: u64,
}

const TIME_SETTINGS_ARGS: &str =
    "MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES, whole seconds and a stone count";

impl GtpTimeSettings {
    /// Reads the three arguments of `time_settings`.
    pub fn parse_args(args: &[&str]) -> Result<GtpTimeSettings, MapError> {
        let [main_s, byo_yomi_s, byo_yomi_stones] =
            parse_numbers::<3>("time_settings", args, TIME_SETTINGS_ARGS)?;
        Ok(GtpTimeSettings {
            main_s,
            byo_yomi_s,
            byo_yomi_stones,
        })
    }

    /// Our time control: no limit, absolute, or Canadian (see the module documentation). Validated, so a main
    /// time of 0 with no byo-yomi is refused.
    pub fn to_control(&self) -> Result<TimeControl, MapError> {
        let control = if self.byo_yomi_s > 0 && self.byo_yomi_stones == 0 {
            TimeControl::None
        } else if self.byo_yomi_s == 0 {
            TimeControl::Absolute {
                main_ms: seconds_to_ms(self.main_s),
            }
        } else {
            TimeControl::Canadian {
                main_ms: seconds_to_ms(self.main_s),
                stones: count(self.byo_yomi_stones),
                period_ms: seconds_to_ms(self.byo_yomi_s),
            }
        };
        control.validate()?;
        Ok(control)
    }

    /// The `time_settings` that state our time control exactly: none, absolute and Canadian; simple time as
    /// Canadian with no main time and 1 stone; byo-yomi with 1 period as Canadian with 1 stone. Fischer time and
    /// byo-yomi with several periods have no such form, and every duration must be whole seconds.
    pub fn from_control(control: &TimeControl) -> Result<GtpTimeSettings, MapError> {
        let (main_ms, byo_ms, stones) = match *control {
            TimeControl::None => {
                return Ok(GtpTimeSettings {
                    main_s: 0,
                    byo_yomi_s: 1,
                    byo_yomi_stones: 0,
                });
            }
            TimeControl::Absolute { main_ms } => (main_ms, 0, 0),
            TimeControl::Canadian {
                main_ms,
                stones,
                period_ms,
            } => (main_ms, period_ms, stones),
            TimeControl::ByoYomi {
                main_ms,
                periods: 1,
                period_ms,
            } => (main_ms, period_ms, 1),
            TimeControl::Simple { per_move_ms } => (0, per_move_ms, 1),
            TimeControl::Fischer { .. } | TimeControl::ByoYomi { .. } => {
                return Err(MapError::NoForm {
                    control: control.to_string(),
                    form: "GTP time_settings",
                });
            }
        };
        Ok(GtpTimeSettings {
            main_s: whole_seconds("main time", main_ms)?,
            byo_yomi_s: whole_seconds("overtime period", byo_ms)?,
            byo_yomi_stones: u64::from(stones),
        })
    }
}

impl fmt::Display for GtpTimeSettings {
    /// The arguments as GTP writes them: `600 300 25`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {}",
            self.main_s, self.byo_yomi_s, self.byo_yomi_stones
        )
    }
}

/// The arguments of `kgs-time_settings`, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KgsTimeSettings {
    None,
    Absolute {
        main_s: u64,
    },
    ByoYomi {
        main_s: u64,
        period_s: u64,
        periods: u64,
    },
    Canadian {
        main_s: u64,
        period_s: u64,
        stones: u64,
    },
}

const KGS_ARGS: &str =
    "none, absolute MAIN, byoyomi MAIN PERIOD PERIODS or canadian MAIN PERIOD STONES";

impl KgsTimeSettings {
    /// Reads the arguments of `kgs-time_settings`: the system, then its numbers.
    pub fn parse_args(args: &[&str]) -> Result<KgsTimeSettings, MapError> {
        let command = "kgs-time_settings";
        let bad = || MapError::BadArgs {
            command,
            text: args.join(" ").chars().take(40).collect(),
            expected: KGS_ARGS,
        };
        let Some((system, numbers)) = args.split_first() else {
            return Err(bad());
        };
        match system.to_ascii_lowercase().as_str() {
            "none" if numbers.is_empty() => Ok(KgsTimeSettings::None),
            "absolute" => {
                let [main_s] = parse_numbers::<1>(command, numbers, KGS_ARGS).map_err(|_| bad())?;
                Ok(KgsTimeSettings::Absolute { main_s })
            }
            "byoyomi" => {
                let [main_s, period_s, periods] =
                    parse_numbers::<3>(command, numbers, KGS_ARGS).map_err(|_| bad())?;
                Ok(KgsTimeSettings::ByoYomi {
                    main_s,
                    period_s,
                    periods,
                })
            }
            "canadian" => {
                let [main_s, period_s, stones] =
                    parse_numbers::<3>(command, numbers, KGS_ARGS).map_err(|_| bad())?;
                Ok(KgsTimeSettings::Canadian {
                    main_s,
                    period_s,
                    stones,
                })
            }
            _ => Err(bad()),
        }
    }

    /// Our time control. Byo-yomi with no periods or periods of 0 seconds is absolute time; Canadian reads as
    /// `time_settings` does (see the module documentation). Validated.
    pub fn to_control(&self) -> Result<TimeControl, MapError> {
        let control = match *self {
            KgsTimeSettings::None => TimeControl::None,
            KgsTimeSettings::Absolute { main_s } => TimeControl::Absolute {
                main_ms: seconds_to_ms(main_s),
            },
            KgsTimeSettings::ByoYomi {
                main_s,
                period_s,
                periods,
            } => {
                if period_s == 0 || periods == 0 {
                    TimeControl::Absolute {
                        main_ms: seconds_to_ms(main_s),
                    }
                } else {
                    TimeControl::ByoYomi {
                        main_ms: seconds_to_ms(main_s),
                        periods: count(periods),
                        period_ms: seconds_to_ms(period_s),
                    }
                }
            }
            KgsTimeSettings::Canadian {
                main_s,
                period_s,
                stones,
            } => {
                return GtpTimeSettings {
                    main_s,
                    byo_yomi_s: period_s,
                    byo_yomi_stones: stones,
                }
                .to_control();
            }
        };
        control.validate()?;
        Ok(control)
    }

    /// The `kgs-time_settings` of our time control; simple time is Canadian with no main time and 1 stone.
    /// Fischer time has no such form, and every duration must be whole seconds.
    pub fn from_control(control: &TimeControl) -> Result<KgsTimeSettings, MapError> {
        Ok(match *control {
            TimeControl::None => KgsTimeSettings::None,
            TimeControl::Absolute { main_ms } => KgsTimeSettings::Absolute {
                main_s: whole_seconds("main time", main_ms)?,
            },
            TimeControl::ByoYomi {
                main_ms,
                periods,
                period_ms,
            } => KgsTimeSettings::ByoYomi {
                main_s: whole_seconds("main time", main_ms)?,
                period_s: whole_seconds("byo-yomi period", period_ms)?,
                periods: u64::from(periods),
            },
            TimeControl::Canadian {
                main_ms,
                stones,
                period_ms,
            } => KgsTimeSettings::Canadian {
                main_s: whole_seconds("main time", main_ms)?,
                period_s: whole_seconds("Canadian period", period_ms)?,
                stones: u64::from(stones),
            },
            TimeControl::Simple { per_move_ms } => KgsTimeSettings::Canadian {
                main_s: 0,
                period_s: whole_seconds("time per move", per_move_ms)?,
                stones: 1,
            },
            TimeControl::Fischer { .. } => {
                return Err(MapError::NoForm {
                    control: control.to_string(),
                    form: "kgs-time_settings",
                });
            }
        })
    }
}

impl fmt::Display for KgsTimeSettings {
    /// The arguments as KGS writes them: `byoyomi 600 30 5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            KgsTimeSettings::None => f.write_str("none"),
            KgsTimeSettings::Absolute { main_s } => write!(f, "absolute {main_s}"),
            KgsTimeSettings::ByoYomi {
                main_s,
                period_s,
                periods,
            } => write!(f, "byoyomi {main_s} {period_s} {periods}"),
            KgsTimeSettings::Canadian {
                main_s,
                period_s,
                stones,
            } => write!(f, "canadian {main_s} {period_s} {stones}"),
        }
    }
}

/// The arguments of GTP's `time_left COLOR TIME STONES` (after the colour): in main time, the main time left
/// and 0; in overtime, the time left in the current period or block and, as KGS sends them, the byo-yomi
/// periods or the Canadian stones left. Seconds are rounded down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GtpTimeLeft {
    pub time_s: u64,
    pub stones: u32,
}

impl GtpTimeLeft {
    /// What to send for a player's time; `None` when there is no time limit.
    pub fn from_remaining(remaining: &Remaining) -> Option<GtpTimeLeft> {
        let (time_ms, stones) = match remaining.overtime {
            Overtime::Unlimited => return None,
            Overtime::ByoYomi { periods, period_ms } if remaining.main_ms == 0 => {
                (period_ms, periods)
            }
            Overtime::Canadian { stones, block_ms } if remaining.main_ms == 0 => (block_ms, stones),
            _ => (remaining.main_ms, 0),
        };
        Some(GtpTimeLeft {
            time_s: time_ms / SECOND_MS,
            stones,
        })
    }

    /// A player's time as a `time_left` under `control` states it (the overtime still to come in main time is
    /// taken as whole).
    pub fn to_remaining(&self, control: &TimeControl) -> Remaining {
        let time_ms = seconds_to_ms(self.time_s);
        let mut remaining = Remaining::initial(control);
        match remaining.overtime {
            Overtime::Unlimited => {}
            Overtime::ByoYomi { .. } if self.stones > 0 => {
                remaining.main_ms = 0;
                remaining.overtime = Overtime::ByoYomi {
                    periods: self.stones,
                    period_ms: time_ms,
                };
            }
            Overtime::Canadian { .. } if self.stones > 0 => {
                remaining.main_ms = 0;
                remaining.overtime = Overtime::Canadian {
                    stones: self.stones,
                    block_ms: time_ms,
                };
            }
            _ => remaining.main_ms = time_ms,
        }
        remaining
    }
}

impl fmt::Display for GtpTimeLeft {
    /// `TIME STONES`, as they follow the colour in `time_left`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.time_s, self.stones)
    }
}
