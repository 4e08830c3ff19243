//! tesuji-clock: game clocks for Go, as a pure model (issue 7, first step).
//!
//! No I/O, no async, no wall clock: time is an input. Every duration and every instant is a whole number of
//! milliseconds in a `u64`; an instant (`now`) is read from any monotonic clock the caller likes, and only
//! differences within one turn matter. No public function panics on any input.
//!
//! - [`TimeControl`]: the settings (none, absolute, Fischer with an optional cap, byo-yomi, Canadian, simple),
//!   with spec strings ([`spec`]) and our presets ([`BLITZ`], [`RAPID`], [`CLASSICAL`], [`CORRESPONDENCE`]).
//! - [`Clock`]: both players' time: [`Clock::start_turn`], [`Clock::end_turn`], [`Clock::remaining`],
//!   [`Clock::flag_check`], [`Clock::pause`] and [`Clock::resume`], [`Clock::snapshot`] and [`Clock::restore`].
//! - [`gtp`] and [`sgf`]: `time_settings`, `kgs-time_settings`, `time_left`; `TM`, `OT`, `BL`/`WL`, `OB`/`OW`.
//!
//! # Rulings
//!
//! **Time charged.** A turn runs from [`Clock::start_turn`] to [`Clock::end_turn`]; stretches while the clock is
//! paused do not count. The move is charged that time less its lag credit (below).
//!
//! **Exactly 0 left is on time.** A move charged exactly the time the player had is on time; only a move charged
//! more loses. So a player with 1 minute of absolute time who is charged exactly 1 minute has moved on time and
//! has 0 left (and loses on the next turn unless that move is charged nothing); under byo-yomi a move at exactly
//! the end of a period keeps that period, and one at exactly the end of main time has not entered overtime.
//!
//! **Byo-yomi.** Main time runs first; then the periods. A move made within the current period leaves the
//! periods as they were, the current one whole again. A move that overruns periods uses up every period it
//! overran: with 30-second periods, a move 45 s into overtime uses up one period and keeps the rest. In the last
//! period, any move within the period keeps it, and overrunning it loses.
//!
//! **Canadian.** Main time runs first; the move during which it runs out is the first stone of the first block.
//! In overtime, each move counts one stone of the block and spends the block's time. The move that completes the
//! block's stones on time starts a new, whole block for the next move (time left over is not carried); running
//! out of block time before its last stone loses.
//!
//! **Fischer.** A move on time adds the increment after the time it was charged; with a cap, the time after the
//! increment is cut to the cap. Every move gets the increment, the first one too (a server that wants the
//! lichess start, with the clocks idle for the first moves, simply starts no turn for them).
//!
//! **Simple.** Each move has the full time per move; nothing is carried over.
//!
//! **Lag.** In the lichess manner: the server measures each move's lag and passes it to [`Clock::end_turn`];
//! the clock credits `min(lag, cap, time spent)`, where the cap is a parameter of the clock
//! ([`Clock::new`]; [`DEFAULT_LAG_CAP_MS`] is a suggestion of ours). Credit never makes a move cost less than 0,
//! so lag can only give back time that the turn spent. Since a move in flight may still get its credit,
//! [`Clock::flag_check`] flags a player only when even the whole cap would not save them, that is when the turn
//! has spent more than the time they had plus the cap; [`Clock::next_flag_at`] is that instant.
//! [`Clock::remaining`] shows the time without credit (it reaches 0 up to one cap before the flag falls).
//!
//! **Flagged for good.** A player who runs out of time (found by `end_turn` or `flag_check`) stays flagged: the
//! game is lost on time (`B+T`/`W+T`, the rules crate's `Game::timeout`), no turn runs any more, and every later
//! `start_turn` or `end_turn` answers [`ClockError::TimedOut`].
//!
//! **Pause and restart.** [`Clock::pause`] freezes the turn in progress with the time it has spent;
//! [`Clock::resume`] continues it, from an instant that may be on a new scale. A server keeps
//! [`Clock::snapshot`] (a [`ClockState`]: each player's time at rest and the running turn's time spent, with no
//! instant in it) and after a restart rebuilds the clock with [`Clock::restore`] (paused) and resumes it, so
//! nobody loses the time the server was down. How recent the stored snapshot is, is the server's choice.
//!
//! # The dead-stone phase
//!
//! Our clock rules for the phase after play ends (RULES.md §6):
//!
//! 1. The move that ends play (normally the second pass) ends its turn like any move, with its charge,
//!    increment and period renewal; no turn is started after it.
//! 2. While stones are marked, accepted and re-marked, **no clock runs**: nobody can lose on time during marking
//!    and the times stay as they were when play ended. (The clock model needs nothing for this; a server that
//!    wants to bound a stalled marking does so with its own rule, such as the disconnected player's grace period,
//!    not with the players' clocks.)
//! 3. A dispute resumes play: the server starts the turn of the player to move (the opponent of the player who
//!    passed last), who continues with the time they had when play ended (under byo-yomi with a whole period,
//!    as after any move). From there the clocks run as in play, and the next end of play stops them again.
//!
//! # Spec strings
//!
//! Used for table options and `tesuji match --time SPEC`:
//!
//! ```text
//! spec      = "none" | preset | system ":" settings
//! preset    = "blitz" | "rapid" | "classical" | "correspondence"
//! settings  = "absolute:" DUR                         absolute:10m
//!           | "fischer:" DUR "+" DUR [",max=" DUR]    fischer:5m+10s  fischer:5m+10s,max=10m
//!           | "byoyomi:" DUR "+" COUNT "x" DUR        byoyomi:10m+5x30s   (main + periods x period)
//!           | "canadian:" DUR "+" COUNT "/" DUR       canadian:10m+25/5m  (main + stones / period)
//!           | "simple:" DUR                           simple:30s
//!           | "correspondence:" DUR                   correspondence:3d  (simple: that long a move)
//! DUR       = "0" | part+        part = NUMBER ["." DIGITS] UNIT       UNIT = d | h | m | s | ms
//! COUNT     = DIGITS
//! ```
//!
//! Units go from larger to smaller, each at most once (`1h30m`, `1m30s`); only the last part may have a
//! fraction (`1.5s`, `2.5m`), and a duration must come to whole milliseconds. System names may be in any case;
//! white space around the spec is ignored. The canonical form ([`TimeControl`]'s `Display`) writes days, hours
//! and minutes whole and seconds with up to three decimals, leaves out zero parts, writes zero as `0s`, and
//! writes a preset in full; it parses back to the same value. Limits: durations up to 365 days, counts up to
//! 1000; absolute and Fischer need a main time above 0, byo-yomi and Canadian at least 1 period or stone of more
//! than 0, a Fischer cap no smaller than the main time.

mod clock;
mod control;
pub mod gtp;
pub mod sgf;
pub mod spec;

pub use clock::{
    Clock, ClockError, ClockState, DEFAULT_LAG_CAP_MS, Overtime, Remaining, RunningTurn,
};
pub use control::format_duration;
pub use control::{
    BLITZ, CLASSICAL, CORRESPONDENCE, ControlError, DAY_MS, HOUR_MS, MAX_COUNT, MAX_DURATION_MS,
    MINUTE_MS, PRESETS, RAPID, SECOND_MS, TimeControl, preset,
};
pub use gtp::{GtpTimeLeft, GtpTimeSettings, KgsTimeSettings, MapError};
pub use sgf::{SgfTime, SgfTimeLeft};
pub use spec::{SpecError, parse_duration};
