//! SGF forms: `TM` and `OT` for the time control, `BL`/`WL` and `OB`/`OW` for a player's time left.
//!
//! `TM` is the main time in seconds. `OT` is free text; we write it as KGS and OGS do: `5x30 byo-yomi`,
//! `25/300 Canadian`, `10 fischer` and `30 simple` (seconds). OGS's Fischer form has no cap, so a capped Fischer
//! clock's `OT` leaves the cap out; we still read `10 fischer max 600`, which we wrote before. Absolute time
//! has `TM` alone; no time limit has neither. Our exact spec goes in a property of our own, [`OWN_TIME`]
//! (`TESUJITIME[fischer:3m+10s,max=3m]`), which [`control_from_record`] prefers when present. `BL`/`WL` is the time left in seconds: the main time, or in
//! overtime the time left in the current period or block; `OB`/`OW`, written only in overtime, is the byo-yomi
//! periods or Canadian stones left. This module works on the property values; the caller reads and writes the
//! properties.

use crate::clock::{Overtime, Remaining};
use crate::control::format_seconds;
use crate::control::{SECOND_MS, TimeControl};
use crate::gtp::MapError;

/// Our own root property holding the time control's exact spec, e.g. `TESUJITIME[byoyomi:10m+5x30s]`.
pub const OWN_TIME: &str = "TESUJITIME";

/// The `TM` and `OT` values of a time control, and its spec for [`OWN_TIME`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SgfTime {
    pub tm: Option<String>,
    pub ot: Option<String>,
    /// The canonical spec; `None` when there is no time limit.
    pub spec: Option<String>,
}

/// A player's time left as `BL`/`WL` (`time`) and `OB`/`OW` (`overtime`) values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SgfTimeLeft {
    pub time: String,
    pub overtime: Option<String>,
}

/// The `TM` and `OT` values for our time control.
pub fn control_to_sgf(control: &TimeControl) -> SgfTime {
    let s = format_seconds;
    let (tm, ot) = match *control {
        TimeControl::None => (None, None),
        TimeControl::Absolute { main_ms } => (Some(main_ms), None),
        // OGS's form; a cap is only in our own property.
        TimeControl::Fischer {
            main_ms,
            increment_ms,
            ..
        } => (Some(main_ms), Some(format!("{} fischer", s(increment_ms)))),
        TimeControl::ByoYomi {
            main_ms,
            periods,
            period_ms,
        } => (
            Some(main_ms),
            Some(format!("{periods}x{} byo-yomi", s(period_ms))),
        ),
        TimeControl::Canadian {
            main_ms,
            stones,
            period_ms,
        } => (
            Some(main_ms),
            Some(format!("{stones}/{} Canadian", s(period_ms))),
        ),
        TimeControl::Simple { per_move_ms } => {
            (Some(0), Some(format!("{} simple", s(per_move_ms))))
        }
    };
    let spec = (*control != TimeControl::None).then(|| control.to_string());
    SgfTime {
        tm: tm.map(s),
        ot,
        spec,
    }
}

/// Our time control from a record: the spec of [`OWN_TIME`] when present and readable, else what `TM` and
/// `OT` say (see [`control_from_sgf`]).
pub fn control_from_record(
    tm: Option<&str>,
    ot: Option<&str>,
    own: Option<&str>,
) -> Result<TimeControl, MapError> {
    if let Some(control) = own.and_then(|spec| spec.parse::<TimeControl>().ok()) {
        return Ok(control);
    }
    control_from_sgf(tm, ot)
}

/// An SGF real number of seconds (`600`, `12.5`, `+3`) as milliseconds, rounded down. Negative values are
/// refused.
fn parse_seconds(property: &'static str, value: &str) -> Result<u64, MapError> {
    let bad = |why| MapError::BadSgf {
        property,
        value: value.chars().take(40).collect(),
        why,
    };
    let text = value.trim();
    let text = text.strip_prefix('+').unwrap_or(text);
    if text.starts_with('-') {
        return Err(bad("a negative time"));
    }
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return Err(bad("expected a number of seconds such as 600 or 12.5"));
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad("the number is too large"))?
    };
    let mut ms = whole
        .checked_mul(SECOND_MS)
        .ok_or_else(|| bad("the number is too large"))?;
    let mut scale = 100;
    for digit in fraction.bytes().take(3) {
        ms += u64::from(digit - b'0') * scale;
        scale /= 10;
    }
    Ok(ms)
}

fn parse_count(property: &'static str, value: &str) -> Result<u32, MapError> {
    let text = value.trim();
    let text = text.strip_prefix('+').unwrap_or(text);
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(MapError::BadSgf {
            property,
            value: value.chars().take(40).collect(),
            why: "expected a whole number",
        });
    }
    Ok(text.parse().unwrap_or(u32::MAX))
}

const OT_FORMS: &str = "unknown overtime; expected a form such as 5x30 byo-yomi, 25/300 Canadian, 10 fischer or 30 simple";

/// Our time control from `TM` and `OT` values (absent ones as `None`). Neither, or `TM` of 0 alone, is no time
/// limit; `TM` alone is absolute time; `OT` without `TM` has no main time. The result is validated.
pub fn control_from_sgf(tm: Option<&str>, ot: Option<&str>) -> Result<TimeControl, MapError> {
    let main_ms = tm.map(|tm| parse_seconds("TM", tm)).transpose()?;
    let Some(ot) = ot.map(str::trim).filter(|ot| !ot.is_empty()) else {
        return Ok(match main_ms {
            None | Some(0) => TimeControl::None,
            Some(main_ms) => TimeControl::Absolute { main_ms },
        });
    };
    let main_ms = main_ms.unwrap_or(0);
    let bad = |why| MapError::BadSgf {
        property: "OT",
        value: ot.chars().take(40).collect(),
        why,
    };
    let lower = ot.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let control = match words.as_slice() {
        [shape, "byo-yomi" | "byoyomi"] | [shape, "byo", "yomi"] => {
            let (periods, period) = shape.split_once('x').ok_or_else(|| bad(OT_FORMS))?;
            TimeControl::ByoYomi {
                main_ms,
                periods: parse_count("OT", periods)?,
                period_ms: parse_seconds("OT", period)?,
            }
        }
        [shape, "canadian"] => {
            let (stones, period) = shape.split_once('/').ok_or_else(|| bad(OT_FORMS))?;
            TimeControl::Canadian {
                main_ms,
                stones: parse_count("OT", stones)?,
                period_ms: parse_seconds("OT", period)?,
            }
        }
        [increment, "fischer"] => TimeControl::Fischer {
            main_ms,
            increment_ms: parse_seconds("OT", increment)?,
            max_ms: None,
        },
        [increment, "fischer", "max", cap] => TimeControl::Fischer {
            main_ms,
            increment_ms: parse_seconds("OT", increment)?,
            max_ms: Some(parse_seconds("OT", cap)?),
        },
        [per_move, "simple"] => {
            if main_ms != 0 {
                return Err(bad("simple time has no main time, so TM must be 0"));
            }
            TimeControl::Simple {
                per_move_ms: parse_seconds("OT", per_move)?,
            }
        }
        _ => return Err(bad(OT_FORMS)),
    };
    control.validate()?;
    Ok(control)
}

/// The `BL`/`WL` and `OB`/`OW` values for a player's time; `None` when there is no time limit.
pub fn time_left_to_sgf(remaining: &Remaining) -> Option<SgfTimeLeft> {
    let (time_ms, overtime) = match remaining.overtime {
        Overtime::Unlimited => return None,
        Overtime::ByoYomi { periods, period_ms } if remaining.main_ms == 0 => {
            (period_ms, Some(periods))
        }
        Overtime::Canadian { stones, block_ms } if remaining.main_ms == 0 => {
            (block_ms, Some(stones))
        }
        _ => (remaining.main_ms, None),
    };
    Some(SgfTimeLeft {
        time: format_seconds(time_ms),
        overtime: overtime.map(|count| count.to_string()),
    })
}

/// A player's time from `BL`/`WL` (`time`) and `OB`/`OW` (`overtime`) values under `control`: with no overtime
/// value (or 0), the time is main time and the overtime is whole.
pub fn time_left_from_sgf(
    control: &TimeControl,
    time: &str,
    overtime: Option<&str>,
) -> Result<Remaining, MapError> {
    let time_ms = parse_seconds("BL/WL", time)?;
    let count = overtime
        .map(|value| parse_count("OB/OW", value))
        .transpose()?
        .unwrap_or(0);
    let mut remaining = Remaining::initial(control);
    match remaining.overtime {
        Overtime::Unlimited => {}
        Overtime::ByoYomi { .. } if count > 0 => {
            remaining.main_ms = 0;
            remaining.overtime = Overtime::ByoYomi {
                periods: count,
                period_ms: time_ms,
            };
        }
        Overtime::Canadian { .. } if count > 0 => {
            remaining.main_ms = 0;
            remaining.overtime = Overtime::Canadian {
                stones: count,
                block_ms: time_ms,
            };
        }
        _ => remaining.main_ms = time_ms,
    }
    Ok(remaining)
}
