//! Spec strings for time controls and durations, parsed and printed.
//!
//! `"fischer:5m+10s,max=10m".parse::<TimeControl>()` reads a spec; `TimeControl`'s `Display` prints the
//! canonical spec, which parses back to the same value. The grammar is in the crate documentation.

use std::fmt;
use std::str::FromStr;

use crate::control::{
    ControlError, DAY_MS, HOUR_MS, MINUTE_MS, PRESETS, SECOND_MS, TimeControl, format_duration,
};

const SYSTEM_LIST: &str = "none, absolute, fischer, byoyomi, canadian, simple, \
                           or a preset: blitz, rapid, classical, correspondence";

/// Echoed input is cut to this many characters so that one bad spec cannot make a huge error line.
const SHOWN_CHARS: usize = 40;

/// Why a time spec or a duration could not be read. Each message is one line naming the offending text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("empty time spec; expected SYSTEM:SETTINGS such as byoyomi:10m+5x30s, or none")]
    Empty,
    #[error("unknown time system {0:?}; expected one of: {list}", list = SYSTEM_LIST)]
    UnknownSystem(String),
    #[error("{0} takes no settings; write it alone")]
    NoSettings(&'static str),
    #[error("{system} needs settings; expected {expected}")]
    MissingSettings {
        system: &'static str,
        expected: &'static str,
    },
    #[error("bad {system} settings {text:?}; expected {expected}")]
    BadSettings {
        system: &'static str,
        text: String,
        expected: &'static str,
    },
    #[error("bad {what} {text:?}; expected a whole number such as 5")]
    BadCount { what: &'static str, text: String },
    #[error(
        "unknown {system} option {0:?}; expected max=DURATION",
        system = "fischer"
    )]
    UnknownOption(String),
    #[error("option {0:?} is given twice")]
    DuplicateOption(&'static str),
    #[error("bad duration {text:?}: {why}; write it as 90s, 10m, 1h30m or 1.5s")]
    BadDuration { text: String, why: &'static str },
    #[error(transparent)]
    Invalid(#[from] ControlError),
}

/// The input as shown in an error message: cut at [`SHOWN_CHARS`] characters.
fn shown(text: &str) -> String {
    let mut chars = text.chars();
    let mut out: String = chars.by_ref().take(SHOWN_CHARS).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// The units of a duration, largest first, with their length in milliseconds.
const UNITS: [(&str, u64); 5] = [
    ("d", DAY_MS),
    ("h", HOUR_MS),
    ("m", MINUTE_MS),
    ("s", SECOND_MS),
    ("ms", 1),
];

/// Reads a duration: `0`, or parts `NUMBER UNIT` with units `d`, `h`, `m`, `s`, `ms` from larger to smaller,
/// each at most once, such as `90s`, `10m`, `1h30m`. Only the last part may have a fraction (`1.5s`, `2.5m`),
/// and the whole must come to a whole number of milliseconds.
pub fn parse_duration(text: &str) -> Result<u64, SpecError> {
    let bad = |why| SpecError::BadDuration {
        text: shown(text),
        why,
    };
    if text.is_empty() {
        return Err(bad("it is empty"));
    }
    if text == "0" {
        return Ok(0);
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut total: u128 = 0;
    let mut last_unit = None;
    let mut fraction_seen = false;
    while at < bytes.len() {
        if fraction_seen {
            return Err(bad("only the last part may have a fraction"));
        }
        let whole_start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        if at == whole_start {
            return Err(bad("expected a number"));
        }
        let whole = &text[whole_start..at];
        let mut fraction = "";
        if at < bytes.len() && bytes[at] == b'.' {
            at += 1;
            let start = at;
            while at < bytes.len() && bytes[at].is_ascii_digit() {
                at += 1;
            }
            if at == start {
                return Err(bad("a '.' needs digits after it"));
            }
            fraction = &text[start..at];
            fraction_seen = true;
        }
        let unit_start = at;
        while at < bytes.len() && bytes[at].is_ascii_alphabetic() {
            at += 1;
        }
        let unit = &text[unit_start..at];
        if unit.is_empty() {
            return Err(bad("a number has no unit (d, h, m, s or ms)"));
        }
        let Some(rank) = UNITS.iter().position(|(name, _)| *name == unit) else {
            return Err(bad("unknown unit; expected d, h, m, s or ms"));
        };
        if last_unit.is_some_and(|last| rank <= last) {
            return Err(bad("units must go from larger to smaller, each once"));
        }
        last_unit = Some(rank);
        let unit_ms = u128::from(UNITS[rank].1);
        let whole: u128 = whole.parse().map_err(|_| bad("a number is too large"))?;
        let mut part = whole
            .checked_mul(unit_ms)
            .ok_or_else(|| bad("it is too long"))?;
        if !fraction.is_empty() {
            if fraction.len() > 18 {
                return Err(bad("too many decimals"));
            }
            let digits: u128 = fraction.parse().map_err(|_| bad("a number is too large"))?;
            let scale = 10u128.pow(fraction.len() as u32);
            let scaled = digits * unit_ms;
            if !scaled.is_multiple_of(scale) {
                return Err(bad("it is finer than a millisecond"));
            }
            part += scaled / scale;
        }
        total = total
            .checked_add(part)
            .ok_or_else(|| bad("it is too long"))?;
        if total > u128::from(u64::MAX) {
            return Err(bad("it is too long"));
        }
    }
    Ok(total as u64)
}

const ABSOLUTE_FORM: &str = "MAIN such as absolute:10m";
const FISCHER_FORM: &str =
    "MAIN+INCREMENT[,max=CAP] such as fischer:5m+10s or fischer:5m+10s,max=10m";
const BYOYOMI_FORM: &str = "MAIN+PERIODSxPERIOD such as byoyomi:10m+5x30s";
const CANADIAN_FORM: &str = "MAIN+STONES/PERIOD such as canadian:10m+25/5m";
const SIMPLE_FORM: &str = "PER_MOVE such as simple:30s";

fn parse_count(what: &'static str, text: &str) -> Result<u32, SpecError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SpecError::BadCount {
            what,
            text: shown(text),
        });
    }
    text.parse().map_err(|_| SpecError::BadCount {
        what,
        text: shown(text),
    })
}

/// Splits `MAIN+REST` at its one `+`.
fn split_plus<'a>(
    system: &'static str,
    settings: &'a str,
    expected: &'static str,
) -> Result<(&'a str, &'a str), SpecError> {
    match settings.split_once('+') {
        Some((main, rest)) if !rest.contains('+') => Ok((main, rest)),
        _ => Err(SpecError::BadSettings {
            system,
            text: shown(settings),
            expected,
        }),
    }
}

fn parse_settings(system: &'static str, settings: &str) -> Result<TimeControl, SpecError> {
    let bad = |expected| SpecError::BadSettings {
        system,
        text: shown(settings),
        expected,
    };
    match system {
        "absolute" => Ok(TimeControl::Absolute {
            main_ms: parse_duration(settings)?,
        }),
        "fischer" => {
            let mut parts = settings.split(',');
            let first = parts.next().unwrap_or_default();
            let (main, increment) = split_plus(system, first, FISCHER_FORM)?;
            let mut max_ms = None;
            for option in parts {
                let Some((key, value)) = option.split_once('=') else {
                    return Err(bad(FISCHER_FORM));
                };
                if key != "max" {
                    return Err(SpecError::UnknownOption(shown(key)));
                }
                if max_ms.is_some() {
                    return Err(SpecError::DuplicateOption("max"));
                }
                max_ms = Some(parse_duration(value)?);
            }
            Ok(TimeControl::Fischer {
                main_ms: parse_duration(main)?,
                increment_ms: parse_duration(increment)?,
                max_ms,
            })
        }
        "byoyomi" => {
            let (main, overtime) = split_plus(system, settings, BYOYOMI_FORM)?;
            let Some((periods, period)) = overtime.split_once('x') else {
                return Err(bad(BYOYOMI_FORM));
            };
            Ok(TimeControl::ByoYomi {
                main_ms: parse_duration(main)?,
                periods: parse_count("number of periods", periods)?,
                period_ms: parse_duration(period)?,
            })
        }
        "canadian" => {
            let (main, overtime) = split_plus(system, settings, CANADIAN_FORM)?;
            let Some((stones, period)) = overtime.split_once('/') else {
                return Err(bad(CANADIAN_FORM));
            };
            Ok(TimeControl::Canadian {
                main_ms: parse_duration(main)?,
                stones: parse_count("number of stones", stones)?,
                period_ms: parse_duration(period)?,
            })
        }
        // The caller passes only known systems; the one left is `simple`.
        _ => Ok(TimeControl::Simple {
            per_move_ms: parse_duration(settings)?,
        }),
    }
}

impl FromStr for TimeControl {
    type Err = SpecError;

    /// Reads a spec: `none`, a preset name, or `SYSTEM:SETTINGS` (the grammar is in the crate documentation).
    /// The system name may be in any case; surrounding white space is ignored. The result is validated.
    fn from_str(text: &str) -> Result<TimeControl, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let (name, settings) = match text.split_once(':') {
            Some((name, settings)) => (name, Some(settings)),
            None => (text, None),
        };
        let lower = name.to_ascii_lowercase();
        let system = match lower.as_str() {
            "none" => "none",
            "absolute" => "absolute",
            "fischer" => "fischer",
            "byoyomi" => "byoyomi",
            "canadian" => "canadian",
            "simple" => "simple",
            // Days a move, as correspondence sites write it: the time of each move, none saved up.
            "correspondence" if settings.is_some() => "simple",
            other => {
                if let Some((preset, control)) = PRESETS.iter().find(|(preset, _)| *preset == other)
                {
                    return match settings {
                        None => Ok(*control),
                        Some(_) => Err(SpecError::NoSettings(preset)),
                    };
                }
                return Err(SpecError::UnknownSystem(shown(name)));
            }
        };
        if system == "none" {
            return match settings {
                None => Ok(TimeControl::None),
                Some(_) => Err(SpecError::NoSettings("none")),
            };
        }
        let expected = match system {
            "absolute" => ABSOLUTE_FORM,
            "fischer" => FISCHER_FORM,
            "byoyomi" => BYOYOMI_FORM,
            "canadian" => CANADIAN_FORM,
            _ => SIMPLE_FORM,
        };
        let settings = match settings {
            Some(settings) if !settings.is_empty() => settings,
            _ => return Err(SpecError::MissingSettings { system, expected }),
        };
        let control = parse_settings(system, settings)?;
        control.validate()?;
        Ok(control)
    }
}

impl fmt::Display for TimeControl {
    /// The canonical spec: the system, then its settings with canonical durations (a preset is printed in full).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = |ms| format_duration(ms);
        match *self {
            TimeControl::None => f.write_str("none"),
            TimeControl::Absolute { main_ms } => write!(f, "absolute:{}", d(main_ms)),
            TimeControl::Fischer {
                main_ms,
                increment_ms,
                max_ms,
            } => {
                write!(f, "fischer:{}+{}", d(main_ms), d(increment_ms))?;
                if let Some(max_ms) = max_ms {
                    write!(f, ",max={}", d(max_ms))?;
                }
                Ok(())
            }
            TimeControl::ByoYomi {
                main_ms,
                periods,
                period_ms,
            } => write!(f, "byoyomi:{}+{}x{}", d(main_ms), periods, d(period_ms)),
            TimeControl::Canadian {
                main_ms,
                stones,
                period_ms,
            } => write!(f, "canadian:{}+{}/{}", d(main_ms), stones, d(period_ms)),
            TimeControl::Simple { per_move_ms } => write!(f, "simple:{}", d(per_move_ms)),
        }
    }
}
