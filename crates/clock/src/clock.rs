//! The clock: both players' time under one [`TimeControl`], driven by instants the caller passes in.
//!
//! Instants (`now`) are milliseconds on any monotonic scale the caller chooses; only differences within one
//! turn matter, and [`Clock::resume`] accepts a new scale (after a restart). The rulings this code implements
//! are in the crate documentation.

use tesuji_rules::Color;

use crate::control::{ControlError, TimeControl};

/// A lag allowance the server may use per move: 1 second. Ours, not lichess's number.
pub const DEFAULT_LAG_CAP_MS: u64 = 1000;

/// What follows a player's main time, with what is left of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Overtime {
    /// No time limit at all (`none`); the main time means nothing.
    Unlimited,
    /// Nothing follows the main time: absolute, Fischer and simple time.
    SuddenDeath,
    /// Byo-yomi: `periods` periods left, the current one with `period_ms` left in it.
    ByoYomi { periods: u32, period_ms: u64 },
    /// Canadian: `stones` moves still to play in the current block, in `block_ms`.
    Canadian { stones: u32, block_ms: u64 },
}

/// A player's time: at rest between turns (what the clock stores), or as seen during a turn (for display).
///
/// `main_ms` is the main time left: Fischer's whole bank, or what is left for this move under simple time. Under
/// byo-yomi and Canadian time the overtime fields are whole until the main time runs out; the player is in
/// overtime once `main_ms` is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Remaining {
    pub main_ms: u64,
    pub overtime: Overtime,
    /// The player has run out of time (a loss).
    pub flagged: bool,
}

impl Remaining {
    /// What each player has before their first move.
    pub fn initial(control: &TimeControl) -> Remaining {
        let overtime = match *control {
            TimeControl::None => Overtime::Unlimited,
            TimeControl::Absolute { .. }
            | TimeControl::Fischer { .. }
            | TimeControl::Simple { .. } => Overtime::SuddenDeath,
            TimeControl::ByoYomi {
                periods, period_ms, ..
            } => Overtime::ByoYomi { periods, period_ms },
            TimeControl::Canadian {
                stones, period_ms, ..
            } => Overtime::Canadian {
                stones,
                block_ms: period_ms,
            },
        };
        Remaining {
            main_ms: control.main_ms(),
            overtime,
            flagged: false,
        }
    }

    /// Whether the main time is used up and byo-yomi or Canadian overtime is counting.
    pub fn in_overtime(&self) -> bool {
        self.main_ms == 0
            && matches!(
                self.overtime,
                Overtime::ByoYomi { .. } | Overtime::Canadian { .. }
            )
    }

    /// Whether there is no time limit.
    pub fn is_unlimited(&self) -> bool {
        self.overtime == Overtime::Unlimited
    }
}

/// A turn in progress, as a stored [`ClockState`] holds it: whose turn, and how much of it is already spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunningTurn {
    pub color: Color,
    pub spent_ms: u64,
}

/// Everything the clock knows apart from its settings, with no instant in it: what a server stores so that a
/// restarted clock loses no one any time. See [`Clock::snapshot`] and [`Clock::restore`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClockState {
    /// Each player's time at rest, indexed by [`Color::index`].
    pub players: [Remaining; 2],
    /// The turn in progress, if any.
    pub turn: Option<RunningTurn>,
}

/// Why a clock operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("{0} has run out of time")]
    TimedOut(Color),
    #[error("{0}'s clock is not running")]
    NotRunning(Color),
    #[error("{0}'s clock is already running")]
    AlreadyRunning(Color),
    #[error("the clock is paused")]
    Paused,
    #[error("the clock is not paused")]
    NotPaused,
    #[error("time went back: {now} ms is before the turn's start at {since} ms")]
    TimeWentBack { since: u64, now: u64 },
    #[error("bad stored clock state: {0}")]
    BadState(&'static str),
    #[error(transparent)]
    BadControl(#[from] ControlError),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Running {
    color: Color,
    /// Time spent before the current stretch (stretches are separated by pauses).
    spent_ms: u64,
    /// The instant the current stretch began; meaningless while the clock is paused.
    since_ms: u64,
}

/// Both players' clocks under one time control. See the crate documentation for the rules it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    lag_cap_ms: u64,
    players: [Remaining; 2],
    turn: Option<Running>,
    paused: bool,
}

/// The most a player may spend on the turn starting from `rest` (`None`: no limit).
fn available(control: &TimeControl, rest: &Remaining) -> Option<u64> {
    match (*control, rest.overtime) {
        (TimeControl::None, _) => None,
        (TimeControl::ByoYomi { period_ms, .. }, Overtime::ByoYomi { periods, .. }) => Some(
            rest.main_ms
                .saturating_add(u64::from(periods).saturating_mul(period_ms)),
        ),
        (_, Overtime::Canadian { block_ms, .. }) => Some(rest.main_ms.saturating_add(block_ms)),
        _ => Some(rest.main_ms),
    }
}

/// The player's time after a turn charged `charged` ms, or `None` if that is more than they had.
fn after_turn(control: &TimeControl, rest: &Remaining, charged: u64) -> Option<Remaining> {
    if available(control, rest).is_some_and(|limit| charged > limit) {
        return None;
    }
    let mut next = *rest;
    match *control {
        TimeControl::None | TimeControl::Simple { .. } => {}
        TimeControl::Absolute { .. } => next.main_ms = rest.main_ms - charged,
        TimeControl::Fischer {
            increment_ms,
            max_ms,
            ..
        } => {
            let left = (rest.main_ms - charged).saturating_add(increment_ms);
            next.main_ms = max_ms.map_or(left, |cap| left.min(cap));
        }
        TimeControl::ByoYomi { period_ms, .. } => {
            if charged <= rest.main_ms {
                next.main_ms = rest.main_ms - charged;
            } else {
                let over = charged - rest.main_ms;
                next.main_ms = 0;
                if let Overtime::ByoYomi { periods, .. } = rest.overtime {
                    // Periods wholly overrun are used up; the one the move ended in is whole again.
                    let used = (over - 1) / period_ms.max(1);
                    let left = u64::from(periods).saturating_sub(used);
                    next.overtime = Overtime::ByoYomi {
                        periods: u32::try_from(left).unwrap_or(u32::MAX),
                        period_ms,
                    };
                }
            }
        }
        TimeControl::Canadian {
            stones: block_stones,
            period_ms,
            ..
        } => {
            if charged <= rest.main_ms {
                next.main_ms = rest.main_ms - charged;
            } else {
                let over = charged - rest.main_ms;
                next.main_ms = 0;
                if let Overtime::Canadian { stones, block_ms } = rest.overtime {
                    let stones = stones.saturating_sub(1);
                    next.overtime = if stones == 0 {
                        Overtime::Canadian {
                            stones: block_stones,
                            block_ms: period_ms,
                        }
                    } else {
                        Overtime::Canadian {
                            stones,
                            block_ms: block_ms - over,
                        }
                    };
                }
            }
        }
    }
    Some(next)
}

/// The player's time as it stands `spent` ms into a turn that started from `rest` (no lag credit).
fn during_turn(control: &TimeControl, rest: &Remaining, spent: u64) -> Remaining {
    let mut view = *rest;
    match *control {
        TimeControl::None => {}
        TimeControl::Absolute { .. } | TimeControl::Fischer { .. } | TimeControl::Simple { .. } => {
            view.main_ms = rest.main_ms.saturating_sub(spent);
        }
        TimeControl::ByoYomi { period_ms, .. } => {
            view.main_ms = rest.main_ms.saturating_sub(spent);
            if spent > rest.main_ms
                && let Overtime::ByoYomi { periods, .. } = rest.overtime
            {
                let over = spent - rest.main_ms;
                let period_ms = period_ms.max(1);
                let used = (over - 1) / period_ms;
                view.overtime = if used >= u64::from(periods) {
                    Overtime::ByoYomi {
                        periods: 0,
                        period_ms: 0,
                    }
                } else {
                    Overtime::ByoYomi {
                        periods: periods - used as u32,
                        period_ms: (used + 1) * period_ms - over,
                    }
                };
            }
        }
        TimeControl::Canadian { .. } => {
            view.main_ms = rest.main_ms.saturating_sub(spent);
            if spent > rest.main_ms
                && let Overtime::Canadian { stones, block_ms } = rest.overtime
            {
                view.overtime = Overtime::Canadian {
                    stones,
                    block_ms: block_ms.saturating_sub(spent - rest.main_ms),
                };
            }
        }
    }
    view
}

/// Whether a stored rest state can belong to a clock with these settings.
fn check_rest(control: &TimeControl, rest: &Remaining) -> Result<(), ClockError> {
    let bad = |why| Err(ClockError::BadState(why));
    match (*control, rest.overtime) {
        (TimeControl::None, Overtime::Unlimited) => {
            if rest.flagged {
                return bad("a player without a time limit is flagged");
            }
            Ok(())
        }
        (TimeControl::Absolute { main_ms }, Overtime::SuddenDeath) => {
            if rest.main_ms > main_ms {
                return bad("more main time left than the time control gives");
            }
            Ok(())
        }
        (TimeControl::Fischer { max_ms, .. }, Overtime::SuddenDeath) => {
            if max_ms.is_some_and(|cap| rest.main_ms > cap) {
                return bad("more time left than the Fischer cap");
            }
            Ok(())
        }
        (TimeControl::Simple { per_move_ms }, Overtime::SuddenDeath) => {
            if rest.main_ms != per_move_ms && !rest.flagged {
                return bad("simple time left differs from the time per move");
            }
            Ok(())
        }
        (
            TimeControl::ByoYomi {
                main_ms,
                periods: all,
                period_ms: length,
            },
            Overtime::ByoYomi { periods, period_ms },
        ) => {
            if rest.main_ms > main_ms || periods > all {
                return bad("more byo-yomi time left than the time control gives");
            }
            if !rest.flagged && (periods == 0 || period_ms != length) {
                return bad("a byo-yomi period is not whole between turns");
            }
            Ok(())
        }
        (
            TimeControl::Canadian {
                main_ms,
                stones: all,
                period_ms,
            },
            Overtime::Canadian { stones, block_ms },
        ) => {
            if rest.main_ms > main_ms || stones > all || block_ms > period_ms {
                return bad("more Canadian time left than the time control gives");
            }
            if !rest.flagged && stones == 0 {
                return bad("a Canadian block with no stones left");
            }
            Ok(())
        }
        _ => bad("the stored time belongs to another time system"),
    }
}

impl Clock {
    /// A clock with both players' full time, no turn running, not paused. `lag_cap_ms` is the most lag credited
    /// to one move (see [`Clock::end_turn`]); 0 turns lag compensation off.
    pub fn new(control: TimeControl, lag_cap_ms: u64) -> Result<Clock, ControlError> {
        control.validate()?;
        Ok(Clock {
            control,
            lag_cap_ms,
            players: [Remaining::initial(&control); 2],
            turn: None,
            paused: false,
        })
    }

    /// The settings.
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    /// The most lag credited to one move.
    pub fn lag_cap_ms(&self) -> u64 {
        self.lag_cap_ms
    }

    /// Whether the clock is paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Whose turn is running (paused or not), if any.
    pub fn running(&self) -> Option<Color> {
        self.turn.map(|turn| turn.color)
    }

    /// The player who has run out of time, if any.
    pub fn flagged(&self) -> Option<Color> {
        Color::BOTH
            .into_iter()
            .find(|c| self.players[c.index()].flagged)
    }

    /// The player's time at rest: as it was when their last turn ended (or at the start), not counting a turn
    /// in progress.
    pub fn at_rest(&self, color: Color) -> Remaining {
        self.players[color.index()]
    }

    /// Time spent on the turn in progress up to `now` (frozen while paused); 0 with no turn running or if `now`
    /// is before the turn's start.
    pub fn spent_ms(&self, now: u64) -> u64 {
        match self.turn {
            None => 0,
            Some(turn) if self.paused => turn.spent_ms,
            Some(turn) => turn
                .spent_ms
                .saturating_add(now.saturating_sub(turn.since_ms)),
        }
    }

    /// The player's time at `now`, for display: their time at rest less the turn in progress, with no lag
    /// credit. `flagged` is set when [`Clock::flag_check`] at `now` would report them.
    pub fn remaining(&self, color: Color, now: u64) -> Remaining {
        let rest = &self.players[color.index()];
        if self.running() != Some(color) {
            return *rest;
        }
        let spent = self.spent_ms(now);
        let mut view = during_turn(&self.control, rest, spent);
        view.flagged = rest.flagged || self.past_grace(color, spent);
        view
    }

    /// How long the player could still think at `now` before their time is nominally up (before the lag
    /// allowance); `None` with no time limit.
    pub fn until_flag_ms(&self, color: Color, now: u64) -> Option<u64> {
        let rest = &self.players[color.index()];
        if rest.flagged {
            return Some(0);
        }
        let limit = available(&self.control, rest)?;
        let spent = if self.running() == Some(color) {
            self.spent_ms(now)
        } else {
            0
        };
        Some(limit.saturating_sub(spent))
    }

    /// Whether a turn of `spent` ms is out of time even with the whole lag allowance credited.
    fn past_grace(&self, color: Color, spent: u64) -> bool {
        available(&self.control, &self.players[color.index()])
            .is_some_and(|limit| spent.saturating_sub(self.lag_cap_ms) > limit)
    }

    /// Starts `color`'s turn at `now`. Refused while paused, while a turn is running, or once someone has run
    /// out of time.
    pub fn start_turn(&mut self, color: Color, now: u64) -> Result<(), ClockError> {
        if let Some(flagged) = self.flagged() {
            return Err(ClockError::TimedOut(flagged));
        }
        if self.paused {
            return Err(ClockError::Paused);
        }
        if let Some(turn) = self.turn {
            return Err(ClockError::AlreadyRunning(turn.color));
        }
        self.turn = Some(Running {
            color,
            spent_ms: 0,
            since_ms: now,
        });
        Ok(())
    }

    /// Ends `color`'s turn with a move arriving at `now`, measured by the server as `lag_ms` late. The move is
    /// charged its time less `min(lag_ms, lag cap)` (never less than 0). On time, the player's new time at rest
    /// is returned (increment added, period or block renewed); out of time, the player is flagged for good and
    /// the answer is [`ClockError::TimedOut`].
    pub fn end_turn(
        &mut self,
        color: Color,
        now: u64,
        lag_ms: u64,
    ) -> Result<Remaining, ClockError> {
        if let Some(flagged) = self.flagged() {
            return Err(ClockError::TimedOut(flagged));
        }
        if self.paused {
            return Err(ClockError::Paused);
        }
        let turn = match self.turn {
            Some(turn) if turn.color == color => turn,
            _ => return Err(ClockError::NotRunning(color)),
        };
        if now < turn.since_ms {
            return Err(ClockError::TimeWentBack {
                since: turn.since_ms,
                now,
            });
        }
        let spent = turn.spent_ms.saturating_add(now - turn.since_ms);
        let credit = lag_ms.min(self.lag_cap_ms).min(spent);
        self.turn = None;
        let rest = &mut self.players[color.index()];
        match after_turn(&self.control, rest, spent - credit) {
            Some(next) => {
                *rest = next;
                Ok(next)
            }
            None => {
                self.flag(color);
                Err(ClockError::TimedOut(color))
            }
        }
    }

    /// Marks `color` as out of time: their time shows as all gone and no turn runs any more.
    fn flag(&mut self, color: Color) {
        let rest = &mut self.players[color.index()];
        rest.main_ms = 0;
        rest.overtime = match rest.overtime {
            Overtime::ByoYomi { .. } => Overtime::ByoYomi {
                periods: 0,
                period_ms: 0,
            },
            Overtime::Canadian { stones, .. } => Overtime::Canadian {
                stones,
                block_ms: 0,
            },
            other => other,
        };
        rest.flagged = true;
        self.turn = None;
    }

    /// Who has run out of time at `now`: the player already flagged, or the player whose running turn has
    /// overrun all their time plus the whole lag allowance (that player is then flagged for good). A paused
    /// turn is judged on the time spent before the pause. The server calls this on a timer.
    pub fn flag_check(&mut self, now: u64) -> Option<Color> {
        if let Some(flagged) = self.flagged() {
            return Some(flagged);
        }
        let turn = self.turn?;
        if self.past_grace(turn.color, self.spent_ms(now)) {
            self.flag(turn.color);
            return Some(turn.color);
        }
        None
    }

    /// The first instant at which [`Clock::flag_check`] will flag the running player, if a turn is running, the
    /// clock is not paused and there is a time limit: when to set the server's timer. When the flag is already
    /// due (nobody has called `flag_check` yet), the instant is in the past.
    pub fn next_flag_at(&self) -> Option<u64> {
        let turn = self
            .turn
            .filter(|_| !self.paused && self.flagged().is_none())?;
        let limit = available(&self.control, &self.players[turn.color.index()])?;
        let budget = limit.saturating_add(self.lag_cap_ms).saturating_add(1);
        Some(
            turn.since_ms
                .saturating_add(budget)
                .saturating_sub(turn.spent_ms),
        )
    }

    /// Stops the clock at `now`: the running turn keeps what it has spent so far and nobody's time moves until
    /// [`Clock::resume`]. Refused if already paused.
    pub fn pause(&mut self, now: u64) -> Result<(), ClockError> {
        if self.paused {
            return Err(ClockError::Paused);
        }
        if let Some(turn) = &mut self.turn {
            if now < turn.since_ms {
                return Err(ClockError::TimeWentBack {
                    since: turn.since_ms,
                    now,
                });
            }
            turn.spent_ms = turn.spent_ms.saturating_add(now - turn.since_ms);
            turn.since_ms = now;
        }
        self.paused = true;
        Ok(())
    }

    /// Restarts a paused clock at `now`; `now` may be on a new scale (after a server restart). Refused if not
    /// paused.
    pub fn resume(&mut self, now: u64) -> Result<(), ClockError> {
        if !self.paused {
            return Err(ClockError::NotPaused);
        }
        if let Some(turn) = &mut self.turn {
            turn.since_ms = now;
        }
        self.paused = false;
        Ok(())
    }

    /// The clock's state as if paused at `now`, to store (instants before the turn's start count as no time).
    pub fn snapshot(&self, now: u64) -> ClockState {
        ClockState {
            players: self.players,
            turn: self.turn.map(|turn| RunningTurn {
                color: turn.color,
                spent_ms: self.spent_ms(now),
            }),
        }
    }

    /// A clock rebuilt from a stored state, paused: call [`Clock::resume`] to run it again. The state is checked
    /// against the settings.
    pub fn restore(
        control: TimeControl,
        lag_cap_ms: u64,
        state: &ClockState,
    ) -> Result<Clock, ClockError> {
        control.validate()?;
        for rest in &state.players {
            check_rest(&control, rest)?;
        }
        if state.players.iter().all(|rest| rest.flagged) {
            return Err(ClockError::BadState("both players are flagged"));
        }
        if state.turn.is_some() && state.players.iter().any(|rest| rest.flagged) {
            return Err(ClockError::BadState(
                "a turn runs after a player ran out of time",
            ));
        }
        Ok(Clock {
            control,
            lag_cap_ms,
            players: state.players,
            turn: state.turn.map(|turn| Running {
                color: turn.color,
                spent_ms: turn.spent_ms,
                since_ms: 0,
            }),
            paused: true,
        })
    }
}
