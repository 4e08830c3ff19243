//! Vacations. A user may be away for whole days, up to [`VACATION_DAYS`] a calendar year (UTC; the days count
//! in the year the vacation starts, and unused days do not carry over). While they are away, the clocks of
//! their correspondence games (a clock of a day or more a move: no grace period) stand still on their turns;
//! their opponents' clocks run as usual, and the user may still move. A vacation ends when planned or when the
//! user ends it; the days not taken are given back.
//!
//! Vacations are stored as wall-time stretches. Each live game's clock holds its players' stretches (see
//! [`crate::clocks::GameClock::set_away`]) and charges a turn only the time outside them; the turn's time is
//! stored with the move, so replays agree without the vacations. A change is told to the other nodes, which
//! read the user's stretches again; the node that runs the timers reads them once more before it records a
//! loss on time, so that a notice lost on the way never loses a game.
//!
//! A feature of its own: [`Vacations`] is built with the store's vacations area, the time and a handle to the
//! core, which fits each live game's clock to its players' stretches as stored (`crate::game::vacation`).

pub mod routes;

use std::sync::Arc;

use serde::Serialize;
use tesuji_clock::DAY_MS;

use crate::clocks::TimeSource;
use crate::error::Error;
use crate::game::Games;
use crate::game::record::date_of;
use crate::store::{Vacation, VacationStore, VacationTaken};

/// The days of vacation each user has in a calendar year.
pub const VACATION_DAYS: u32 = 30;

/// The calendar year (UTC) of `ms` (milliseconds since 1970), and when it started.
pub fn year_of(ms: i64) -> (i64, i64) {
    let year: i64 = date_of(ms.div_euclid(1000))[..4].parse().unwrap_or(1970);
    // Days from 1970-01-01 to January 1st of `year`: 365 a year and the leap days between.
    let leaps = |y: i64| y.div_euclid(4) - y.div_euclid(100) + y.div_euclid(400);
    let days = 365 * (year - 1970) + leaps(year - 1) - leaps(1969);
    (year, days * DAY_MS as i64)
}

/// A vacation as the API shows it.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct VacationSpan {
    /// Milliseconds since 1970.
    pub start_ms: i64,
    pub end_ms: i64,
}

impl From<Vacation> for VacationSpan {
    fn from(v: Vacation) -> VacationSpan {
        VacationSpan {
            start_ms: v.start_ms,
            end_ms: v.end_ms,
        }
    }
}

/// A user's vacations (`GET /api/vacation`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct VacationView {
    /// The calendar year (UTC) the allowance is for.
    pub year: i64,
    /// Days a year.
    pub allowance_days: u32,
    /// Taken this year (vacations that started in it), in milliseconds; a vacation in progress counts whole.
    pub used_ms: i64,
    pub left_ms: i64,
    /// The whole days that can still be taken this year.
    pub left_days: i64,
    /// The vacation in progress.
    pub current: Option<VacationSpan>,
}

/// The users' vacations.
pub struct Vacations {
    games: Arc<Games>,
    store: Arc<dyn VacationStore>,
    time: TimeSource,
}

impl Vacations {
    pub fn new(games: Arc<Games>, store: Arc<dyn VacationStore>, time: TimeSource) -> Vacations {
        Vacations { games, store, time }
    }

    /// User `user`'s vacations now.
    pub async fn of(&self, user: i64) -> Result<VacationView, Error> {
        let now = self.wall_now();
        let (year, from) = year_of(now);
        let taken = self.store.vacations(user, from.min(now - 1)).await?;
        let used_ms: i64 = taken
            .iter()
            .filter(|v| v.start_ms >= from)
            .map(|v| v.end_ms - v.start_ms)
            .sum();
        let allowance = i64::from(VACATION_DAYS) * DAY_MS as i64;
        let left_ms = (allowance - used_ms).max(0);
        Ok(VacationView {
            year,
            allowance_days: VACATION_DAYS,
            used_ms,
            left_ms,
            left_days: left_ms / DAY_MS as i64,
            current: taken
                .into_iter()
                .find(|v| v.start_ms <= now && now < v.end_ms)
                .map(VacationSpan::from),
        })
    }

    /// User `user` goes on vacation for `days` days from now.
    pub async fn take(&self, user: i64, days: u32) -> Result<VacationView, Error> {
        if !(1..=VACATION_DAYS).contains(&days) {
            return Err(Error::BadRequest(format!(
                "a vacation lasts from 1 to {VACATION_DAYS} whole days"
            )));
        }
        let now = self.wall_now();
        let (_, from) = year_of(now);
        let vacation = Vacation {
            start_ms: now,
            end_ms: now + i64::from(days) * DAY_MS as i64,
        };
        let allowance = i64::from(VACATION_DAYS) * DAY_MS as i64;
        match self
            .store
            .take_vacation(user, vacation, from, allowance)
            .await?
        {
            VacationTaken::Taken(_) => {}
            VacationTaken::Already(v) => {
                return Err(Error::OnVacation {
                    until: date_of(v.end_ms.div_euclid(1000)),
                });
            }
            VacationTaken::TooLong { left_ms } => {
                return Err(Error::VacationTooLong {
                    asked: days,
                    left: left_ms / DAY_MS as i64,
                });
            }
        }
        self.games.vacations_changed(user).await;
        self.of(user).await
    }

    /// User `user` comes back from vacation now.
    pub async fn end(&self, user: i64) -> Result<VacationView, Error> {
        let now = self.wall_now();
        if self.store.end_vacation(user, now).await?.is_none() {
            return Err(Error::NotOnVacation);
        }
        self.games.vacations_changed(user).await;
        self.of(user).await
    }

    fn wall_now(&self) -> i64 {
        i64::try_from(self.time.wall_ms()).unwrap_or(i64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_start_on_the_first_of_january() {
        let day = DAY_MS as i64;
        for (ms, year, start_day) in [
            (0, 1970, 0),
            (day - 1, 1970, 0),
            (365 * day, 1971, 365),
            // 1972 is a leap year: 1973 starts 3 × 365 + 1 days in.
            (3 * 365 * day + day, 1973, 3 * 365 + 1),
            (3 * 365 * day + day - 1, 1972, 2 * 365),
            // 2026-12-04 and 2000-03-01 (2000 a leap year: 30 years and 7 leap days from 1970).
            (1_796_428_800_000, 2026, 20_454),
            (951_868_800_000, 2000, 10_957),
        ] {
            assert_eq!(year_of(ms), (year, start_day * day), "{ms}");
        }
    }
}
