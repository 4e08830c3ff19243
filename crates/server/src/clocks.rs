//! A game's clock on the server: crates/clock's model driven by the server's monotonic time, rebuilt at start from
//! the time each stored turn took (so a clock, like a position, is never stored, only replayed).
//!
//! When the clock runs (docs/API.md says the same to players): not before the game's first move, which takes no
//! time; then a player's turn runs from the moment the opponent's turn is accepted until the player's turn is
//! accepted; the marking phase has no clock, and a dispute starts the turn of the player to move. A turn's time is the time between those two
//! moments as the server saw them, less the lag the client reports (capped, lichess-style). While the server is
//! down no clock runs: after a restart the turn in progress starts again from the time it had at its start.
//!
//! A player away on vacation (see `crate::vacations`) stops their own clock: the game time does not pass while the
//! player to move is away, so their turn is charged only the time outside their vacations, live and as stored.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde::Serialize;
use tesuji_clock::{Clock, ClockError, DAY_MS, Overtime, Remaining, TimeControl};
use tesuji_rules::{ByColor, Color};
use tokio::sync::watch;

/// The most lag credited to one move.
pub const LAG_CAP_MS: u64 = 1000;

/// Milliseconds on the process's monotonic scale (the real time source).
fn real_now() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = EPOCH.get_or_init(Instant::now);
    u64::try_from(epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Where the server reads the time for its clocks and timers: the real monotonic clock, or a manual one that
/// only moves when told to (tests). Cloning shares the source.
#[derive(Clone, Debug, Default)]
pub struct TimeSource {
    manual: Option<ManualTime>,
}

impl TimeSource {
    /// The process's monotonic clock (the default).
    pub fn real() -> TimeSource {
        TimeSource { manual: None }
    }

    /// Time that moves only by [`ManualTime::advance`]; timers wake when it passes their deadline.
    pub fn manual(time: &ManualTime) -> TimeSource {
        TimeSource {
            manual: Some(time.clone()),
        }
    }

    /// Milliseconds on this source's monotonic scale.
    pub fn now_ms(&self) -> u64 {
        match &self.manual {
            None => real_now(),
            Some(m) => m.now_ms(),
        }
    }

    /// Milliseconds since the Unix epoch (the manual time itself, for a manual source): the time stored with
    /// each action, which the nodes of a site compare. Unlike [`TimeSource::now_ms`] it may step when the
    /// system's clock is set, so it only places another node's action on this node's scale.
    pub fn wall_ms(&self) -> u64 {
        match &self.manual {
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            Some(m) => m.now_ms(),
        }
    }

    /// Waits until this source reads `deadline_ms` or later. The real clock sleeps a few milliseconds longer, so
    /// that a check made on waking finds the deadline passed whatever the rounding.
    pub async fn sleep_until(&self, deadline_ms: u64) {
        match &self.manual {
            None => {
                let ms = deadline_ms.saturating_sub(real_now());
                tokio::time::sleep(std::time::Duration::from_millis(ms + 5)).await;
            }
            Some(m) => {
                let mut rx = m.now.subscribe();
                // The sender lives as long as `m`, so this ends only when the time is reached.
                let _ = rx.wait_for(|&now| now >= deadline_ms).await;
            }
        }
    }
}

/// Equal when both are real, or both share one manual time.
impl PartialEq for TimeSource {
    fn eq(&self, other: &TimeSource) -> bool {
        match (&self.manual, &other.manual) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(&a.now, &b.now),
            _ => false,
        }
    }
}

impl Eq for TimeSource {}

/// A hand-moved time for tests: starts at 0 and moves by [`ManualTime::advance`]. Clones share it, so a test
/// keeps one and gives a [`TimeSource::manual`] of it to the server (and to the next server after a restart).
#[derive(Clone, Debug)]
pub struct ManualTime {
    now: Arc<watch::Sender<u64>>,
}

impl Default for ManualTime {
    fn default() -> ManualTime {
        ManualTime::new()
    }
}

impl ManualTime {
    pub fn new() -> ManualTime {
        ManualTime {
            now: Arc::new(watch::Sender::new(0)),
        }
    }

    pub fn now_ms(&self) -> u64 {
        *self.now.borrow()
    }

    /// Moves the time forward by `ms`, waking every timer whose deadline it passes.
    pub fn advance(&self, ms: u64) {
        self.now.send_modify(|now| *now = now.saturating_add(ms));
    }

    /// How many timers sleep on this time now: a test waits for a timer to have woken and ended, rather than
    /// for a while.
    pub fn sleepers(&self) -> usize {
        self.now.receiver_count()
    }
}

/// Whether a game under `control` has the disconnected player's grace period (and the opponent's claim): timed,
/// and played at one sitting: no main time, byo-yomi period or Canadian block of a day or more.
pub fn has_grace(control: &TimeControl) -> bool {
    let longest = match *control {
        TimeControl::None => return false,
        TimeControl::Absolute { main_ms } | TimeControl::Fischer { main_ms, .. } => main_ms,
        TimeControl::ByoYomi {
            main_ms, period_ms, ..
        }
        | TimeControl::Canadian {
            main_ms, period_ms, ..
        } => main_ms.max(period_ms),
        TimeControl::Simple { per_move_ms } => per_move_ms,
    };
    longest < DAY_MS
}

/// Whether a vacation stops the clock of a game under `control`: a correspondence clock (one without the
/// grace period of games played at one sitting).
pub fn vacation_stops(control: &TimeControl) -> bool {
    !matches!(control, TimeControl::None) && !has_grace(control)
}

/// A game's clock. While a stored game is replayed it runs on virtual time (each stored turn advances it by the
/// time that turn took); live, on the server's time from where the replay ended.
#[derive(Clone, Debug)]
pub struct GameClock {
    clock: Clock,
    /// The game time at `since` (server time); while replaying, the virtual time.
    game_ms: u64,
    since: u64,
    replaying: bool,
    time: TimeSource,
    /// When the next turn starts, if not now: the end of a live turn applied from the store (see
    /// [`GameClock::end`]).
    resume_at: Option<u64>,
    /// Each player's vacations, as wall-time stretches `[start, end)` in order: while the player to move is
    /// away, the game time stands still.
    away: ByColor<Vec<(u64, u64)>>,
    /// The game time that did not pass during the turns before the running one, their players being away.
    held_ms: u64,
    /// When the running turn started on the wall clock, live: where its player's absence starts to count.
    turn_wall: Option<u64>,
}

/// How much of `[from, to)` the stretches `away` cover.
fn overlap(away: &[(u64, u64)], from: u64, to: u64) -> u64 {
    away.iter()
        .map(|&(start, end)| end.min(to).saturating_sub(start.max(from)))
        .sum()
}

/// The wall time by which `ms` of game time will have passed from `wall`, the game time standing still during
/// the stretches `away` (in order).
fn passes_by(away: &[(u64, u64)], wall: u64, ms: u64) -> u64 {
    let (mut at, mut left) = (wall, ms);
    for &(start, end) in away.iter().filter(|&&(_, end)| end > wall) {
        let free = start.saturating_sub(at);
        if free >= left {
            break;
        }
        left -= free;
        at = at.max(end);
    }
    at.saturating_add(left)
}

/// What a turn cost, as stored with the action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TurnTime {
    /// The time between the turn's start and the action's arrival.
    pub spent_ms: u64,
    /// The lag the client reported (only the capped part is credited).
    pub lag_ms: u64,
}

impl GameClock {
    /// A clock for a new game (live), or for replaying a stored one; nobody's turn runs yet.
    pub fn new(
        control: TimeControl,
        replaying: bool,
        time: TimeSource,
    ) -> Result<GameClock, ClockError> {
        Ok(GameClock {
            clock: Clock::new(control, LAG_CAP_MS)?,
            game_ms: 0,
            since: time.now_ms(),
            replaying,
            time,
            resume_at: None,
            away: ByColor::default(),
            held_ms: 0,
            turn_wall: None,
        })
    }

    /// Game time now.
    fn now(&self) -> u64 {
        self.now_at(self.time.wall_ms())
    }

    /// Game time now, the wall clock reading `wall`.
    fn now_at(&self, wall: u64) -> u64 {
        if self.replaying {
            self.game_ms
        } else {
            (self.game_ms + self.time.now_ms().saturating_sub(self.since))
                .saturating_sub(self.held_ms + self.holding(wall))
        }
    }

    /// The time the running turn's player has been away since it started, up to `wall`.
    fn holding(&self, wall: u64) -> u64 {
        match (self.running(), self.turn_wall) {
            (Some(color), Some(from)) => overlap(&self.away[color], from, wall),
            _ => 0,
        }
    }

    /// Ends the running turn's absence accounting at `wall`, before the turn ends: what it held is kept (the
    /// game time does not move).
    fn fold_holding(&mut self, wall: u64) {
        self.held_ms = self.held_ms.saturating_add(self.holding(wall));
        self.turn_wall = None;
    }

    /// Sets `color`'s vacations (wall-time stretches `[start, end)`). A change reaches the running turn at
    /// once, for the whole turn: a node that hears of a vacation late charges the turn as one that heard at once.
    pub fn set_away(&mut self, color: Color, mut away: Vec<(u64, u64)>) {
        away.sort_unstable();
        self.away[color] = away;
    }

    /// From when a player's absence counts (wall time): the start of the running turn, else now.
    pub fn counts_from_wall(&self) -> u64 {
        self.turn_wall.unwrap_or_else(|| self.time.wall_ms())
    }

    /// How long `color` stays away from now, if away now.
    pub fn away_ms(&self, color: Color) -> Option<u64> {
        let wall = self.time.wall_ms();
        self.away[color]
            .iter()
            .find(|&&(start, end)| start <= wall && wall < end)
            .map(|&(_, end)| end - wall)
    }

    pub fn control(&self) -> &TimeControl {
        self.clock.control()
    }

    /// Starts `color`'s turn now (or where a turn applied from the store ended).
    pub fn start(&mut self, color: Color) -> Result<(), ClockError> {
        let wall = self.time.wall_ms();
        let now = self.now_at(wall);
        let at = self.resume_at.take().map_or(now, |at| at.min(now));
        self.clock.start_turn(color, at)?;
        if !self.replaying {
            self.turn_wall = Some(wall.saturating_sub(now - at));
        }
        Ok(())
    }

    /// Ends `color`'s turn: now when live, after `replayed` when replaying a stored turn. Returns the time the
    /// turn took (to store) and the player's time, or `TimedOut` when the turn came too late.
    ///
    /// A stored turn applied to a live clock (another node's action, caught up) is charged its stored time, not
    /// the time this node saw pass: the turn ends that long after it started here, and the next turn starts
    /// there, so that every node's clocks agree after each move, whenever the notice came.
    pub fn end(
        &mut self,
        color: Color,
        lag_ms: u64,
        replayed: Option<u64>,
    ) -> (TurnTime, Result<Remaining, ClockError>) {
        if self.replaying {
            self.game_ms = self.game_ms.saturating_add(replayed.unwrap_or(0));
        }
        let wall = self.time.wall_ms();
        let now = match (self.replaying, replayed) {
            (false, Some(stored)) => {
                let now = self.now_at(wall);
                let started = now.saturating_sub(self.clock.spent_ms(now));
                let at = started.saturating_add(stored).min(now);
                self.resume_at = Some(at);
                at
            }
            _ => self.now_at(wall),
        };
        let time = TurnTime {
            spent_ms: self.clock.spent_ms(now),
            lag_ms,
        };
        if !self.replaying {
            self.fold_holding(wall);
        }
        (time, self.clock.end_turn(color, now, lag_ms))
    }

    /// The time the running turn has taken so far (no lag: the server's own timer, not a client, ends it).
    pub fn turn_time(&self) -> TurnTime {
        TurnTime {
            spent_ms: self.clock.spent_ms(self.now()),
            lag_ms: 0,
        }
    }

    /// Ends the replay: the turn running at the end of the log starts again from what it had spent when stored
    /// (no time passes while the server is down), on the live scale.
    pub fn go_live(&mut self) {
        self.since = self.time.now_ms();
        self.replaying = false;
        if self.running().is_some() {
            self.turn_wall = Some(self.time.wall_ms());
        }
    }

    /// After [`GameClock::go_live`], on a site whose other nodes kept the clocks running while this node read
    /// the game in: the turn in progress has run since `at_wall` (when the action before it was accepted, on
    /// [`TimeSource::wall_ms`]), not since now.
    pub fn running_since_wall(&mut self, at_wall: u64) {
        if self.replaying || self.running().is_none() {
            return;
        }
        let ran = self.time.wall_ms().saturating_sub(at_wall);
        self.game_ms = self.game_ms.saturating_add(ran);
        self.turn_wall = Some(at_wall);
    }

    /// Who has run out of time now (the lag allowance included), if anyone.
    pub fn flag_check(&mut self) -> Option<Color> {
        let now = self.now();
        self.clock.flag_check(now)
    }

    /// How long until the running player's flag falls (with the lag allowance), if a turn is running: no
    /// sooner than the end of the player's vacation.
    pub fn until_flag_ms(&self) -> Option<u64> {
        let at = self.clock.next_flag_at()?;
        let wall = self.time.wall_ms();
        let game_ms = at.saturating_sub(self.now_at(wall));
        let color = self.running()?;
        Some(passes_by(&self.away[color], wall, game_ms) - wall)
    }

    /// Whose turn runs.
    pub fn running(&self) -> Option<Color> {
        if self.clock.is_paused() {
            None
        } else {
            self.clock.running()
        }
    }

    /// `color`'s time as it stands now (the rest value when their turn is not running).
    pub fn left(&self, color: Color) -> Remaining {
        self.clock.remaining(color, self.now())
    }

    /// Stops the clock for good (the game is over).
    pub fn stop(&mut self) {
        let wall = self.time.wall_ms();
        let now = self.now_at(wall);
        let at = self.resume_at.take().map_or(now, |at| at.min(now));
        self.fold_holding(wall);
        let _ = self.clock.pause(at);
    }

    /// Starts the next turn where the action just applied from the store was accepted, `at_wall` on the
    /// accepting node's wall clock ([`TimeSource::wall_ms`]), rather than when this node heard of it: a node
    /// that learns of a move late (NATS delayed or cut) still runs the next player's clock from the move.
    /// Never later than now; the nodes' wall clocks are assumed to agree (NTP: docs/DEPLOY.md), any
    /// difference between them moves the start by as much.
    pub fn resume_at_wall(&mut self, at_wall: u64) {
        if self.replaying {
            return;
        }
        let now = self.now();
        self.resume_at = Some(now.saturating_sub(self.time.wall_ms().saturating_sub(at_wall)));
    }

    /// Forgets where a turn applied from the store ended, once what follows it has started (or nothing does:
    /// the marking phase), so that no later turn starts there.
    pub fn settle(&mut self) {
        self.resume_at = None;
    }

    /// The clocks as the pages show them, at this moment.
    pub fn view(&self) -> ClockView {
        let now = self.now();
        let side = |c: Color| SideClock {
            away_ms: self.away_ms(c),
            ..SideClock::from(&self.clock.remaining(c, now))
        };
        ClockView {
            control: self.clock.control().to_string(),
            black: side(Color::Black),
            white: side(Color::White),
            running: if self.clock.is_paused() {
                None
            } else {
                self.clock.running().map(Color::name)
            },
        }
    }
}

/// Adds a timed game's clock to its record: `TM`/`OT` (and the exact spec in our own `TESUJITIME`) on the root,
/// and on each move node the mover's time left after the move (`BL`/`WL`, with `OB`/`OW` in overtime). `left[k]`
/// belongs to the k-th move node of the main line.
pub fn add_times(tree: &mut tesuji_sgf::Tree, control: &TimeControl, left: &[(Color, Remaining)]) {
    use tesuji_clock::sgf::{control_to_sgf, time_left_to_sgf};
    use tesuji_sgf::Property;
    let times = control_to_sgf(control);
    let own = tesuji_sgf::record::OWN_TIME;
    for (ident, value) in [("TM", times.tm), ("OT", times.ot), (own, times.spec)] {
        if let Some(v) = value {
            tree.root_mut().properties.retain(|p| p.ident != ident);
            tree.root_mut().properties.push(Property::text(ident, &v));
        }
    }
    let moves: Vec<_> = tree.main_line().skip(1).collect();
    for (id, (color, remaining)) in moves.into_iter().zip(left) {
        let Some(time) = time_left_to_sgf(remaining) else {
            continue;
        };
        let (l, o) = match color {
            Color::Black => ("BL", "OB"),
            Color::White => ("WL", "OW"),
        };
        if let Some(node) = tree.node_mut(id) {
            node.properties.push(Property::raw(l, vec![time.time]));
            if let Some(count) = time.overtime {
                node.properties.push(Property::raw(o, vec![count]));
            }
        }
    }
}

/// Both clocks at the moment a state was taken; the page counts the running one down from there.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClockView {
    /// The time control's spec (`fischer:5m+10s`).
    pub control: String,
    pub black: SideClock,
    pub white: SideClock,
    /// Whose clock runs.
    pub running: Option<&'static str>,
}

/// One player's time.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SideClock {
    pub main_ms: u64,
    /// `none`, `sudden-death`, `byoyomi` or `canadian`.
    pub overtime: &'static str,
    /// Byo-yomi periods left.
    pub periods: Option<u32>,
    /// Canadian stones left in the block.
    pub stones: Option<u32>,
    /// Time left in the byo-yomi period or the Canadian block.
    pub period_ms: Option<u64>,
    pub flagged: bool,
    /// How long the player stays away on vacation, if away now: their clock stands still meanwhile.
    pub away_ms: Option<u64>,
}

impl From<&Remaining> for SideClock {
    fn from(r: &Remaining) -> SideClock {
        let (overtime, periods, stones, period_ms) = match r.overtime {
            Overtime::Unlimited => ("none", None, None, None),
            Overtime::SuddenDeath => ("sudden-death", None, None, None),
            Overtime::ByoYomi { periods, period_ms } => {
                ("byoyomi", Some(periods), None, Some(period_ms))
            }
            Overtime::Canadian { stones, block_ms } => {
                ("canadian", None, Some(stones), Some(block_ms))
            }
        };
        SideClock {
            main_ms: r.main_ms,
            overtime,
            periods,
            stones,
            period_ms,
            flagged: r.flagged,
            away_ms: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(spec: &str) -> TimeControl {
        spec.parse().unwrap()
    }

    #[test]
    fn replayed_turns_give_the_clock_the_live_game_had() {
        let mut live =
            GameClock::new(control("fischer:1m+10s"), false, TimeSource::real()).unwrap();
        let mut replayed =
            GameClock::new(control("fischer:1m+10s"), true, TimeSource::real()).unwrap();
        let lags = [
            (Color::Black, 0),
            (Color::White, 300),
            (Color::Black, 5_000),
        ];
        for (c, lag) in lags {
            live.start(c).unwrap();
            let (time, on_time) = live.end(c, lag, None);
            replayed.start(c).unwrap();
            let (again, replay_on_time) = replayed.end(c, time.lag_ms, Some(time.spent_ms));
            assert_eq!(again, time);
            assert_eq!(replay_on_time, on_time);
        }
        assert_eq!(replayed.view(), live.view());
        // Moves taking (almost) no time: each gained its increment, whatever the few milliseconds spent.
        let (black, white) = (live.view().black.main_ms, live.view().white.main_ms);
        assert!((79_000..=80_000).contains(&black), "{black}");
        assert!((69_000..=70_000).contains(&white), "{white}");
    }

    #[test]
    fn a_turn_heard_of_late_starts_where_it_was_accepted() {
        // Another node accepted Black's move at 10 s and tells this node at 15 s: White's turn runs from 10 s.
        let manual = ManualTime::new();
        let mut clock =
            GameClock::new(control("absolute:1m"), false, TimeSource::manual(&manual)).unwrap();
        manual.advance(15_000);
        clock.resume_at_wall(10_000);
        clock.start(Color::White).unwrap();
        assert_eq!(clock.left(Color::White).main_ms, 55_000);
        // White's move, accepted elsewhere at 40 s having taken 30 s, heard of at 42 s: Black's turn from 40 s,
        // White charged what was stored.
        manual.advance(27_000);
        let (time, on_time) = clock.end(Color::White, 0, Some(30_000));
        assert_eq!((time.spent_ms, on_time.unwrap().main_ms), (30_000, 30_000));
        clock.resume_at_wall(40_000);
        clock.start(Color::Black).unwrap();
        assert_eq!(clock.left(Color::Black).main_ms, 58_000);
        // A wall time ahead of this node's (its clock behind the other's) starts the turn now, never later.
        let (_, on_time) = clock.end(Color::Black, 0, Some(2_000));
        assert!(on_time.is_ok());
        clock.resume_at_wall(50_000);
        clock.start(Color::White).unwrap();
        assert_eq!(clock.left(Color::White).main_ms, 30_000);
    }

    #[tokio::test]
    async fn manual_time_wakes_a_timer_only_when_advanced_to_its_deadline() {
        let manual = ManualTime::new();
        let time = TimeSource::manual(&manual);
        assert_eq!(time, TimeSource::manual(&manual.clone()));
        assert_ne!(time, TimeSource::manual(&ManualTime::new()));
        manual.advance(100);
        let timer = tokio::spawn({
            let time = time.clone();
            async move { time.sleep_until(1_100).await }
        });
        manual.advance(999);
        tokio::task::yield_now().await;
        assert!(!timer.is_finished());
        manual.advance(1);
        tokio::time::timeout(std::time::Duration::from_secs(5), timer)
            .await
            .expect("woken")
            .unwrap();
        assert_eq!(time.now_ms(), 1_100);
        // A clock on it runs exactly as far as the time was advanced.
        let mut clock = GameClock::new(control("byoyomi:1m+3x30s"), false, time).unwrap();
        clock.start(Color::Black).unwrap();
        manual.advance(61_500);
        let view = clock.view();
        assert_eq!(
            (view.black.main_ms, view.black.periods, view.black.period_ms),
            (0, Some(3), Some(28_500))
        );
    }

    #[test]
    fn grace_periods_are_for_games_at_one_sitting() {
        for (spec, grace) in [
            ("none", false),
            ("absolute:10m", true),
            ("fischer:5m+10s", true),
            ("byoyomi:23h+5x30s", true),
            ("absolute:1d", false),
            ("byoyomi:1h+5x1d", false),
            ("simple:2d", false),
        ] {
            assert_eq!(has_grace(&control(spec)), grace, "{spec}");
        }
    }

    #[test]
    fn a_vacation_stops_only_the_clock_of_the_player_away_and_exactly() {
        use tesuji_clock::DAY_MS as DAY;
        let manual = ManualTime::new();
        let time = TimeSource::manual(&manual);
        let mut clock = GameClock::new(control("absolute:3d"), false, time.clone()).unwrap();
        let mut heard_late = clock.clone();
        clock.start(Color::White).unwrap();
        heard_late.start(Color::White).unwrap();
        // White is away from day 1 to day 3: this copy knows at once, the other hears of it on day 2.
        manual.advance(DAY);
        clock.set_away(Color::White, vec![(DAY, 3 * DAY)]);
        assert_eq!(clock.away_ms(Color::White), Some(2 * DAY));
        assert_eq!(clock.away_ms(Color::Black), None);
        manual.advance(DAY);
        assert_eq!(heard_late.left(Color::White).main_ms, DAY);
        heard_late.set_away(Color::White, vec![(DAY, 3 * DAY)]);
        for c in [&clock, &heard_late] {
            assert_eq!(c.left(Color::White).main_ms, 2 * DAY);
            // The flag falls two days after the vacation: 4 days from now, and the lag allowance.
            assert_eq!(
                c.until_flag_ms(),
                Some(3 * DAY + 2 * DAY + LAG_CAP_MS + 1 - 2 * DAY)
            );
            assert_eq!(c.view().white.away_ms, Some(DAY));
        }
        // Back on day 3, White moves on day 4: charged two days. Black's clock then runs, whatever White does.
        manual.advance(2 * DAY);
        let (spent, on_time) = clock.end(Color::White, 0, None);
        assert_eq!((spent.spent_ms, on_time.unwrap().main_ms), (2 * DAY, DAY));
        clock.start(Color::Black).unwrap();
        clock.set_away(Color::White, vec![(DAY, 3 * DAY), (4 * DAY, 9 * DAY)]);
        manual.advance(DAY / 2);
        assert_eq!(clock.left(Color::Black).main_ms, 3 * DAY - DAY / 2);
        assert_eq!(clock.view().white.away_ms, Some(9 * DAY / 2));
        let (spent, _) = clock.end(Color::Black, 0, None);
        assert_eq!(spent.spent_ms, DAY / 2);
        // White's turn, started away: it runs only once the vacation ends (here shortened to day 5).
        clock.start(Color::White).unwrap();
        manual.advance(DAY / 2);
        assert_eq!(clock.left(Color::White).main_ms, DAY);
        clock.set_away(Color::White, vec![(DAY, 3 * DAY), (4 * DAY, 5 * DAY)]);
        manual.advance(DAY / 4);
        assert_eq!(clock.left(Color::White).main_ms, DAY - DAY / 4);
        assert_eq!(clock.until_flag_ms(), Some(DAY - DAY / 4 + LAG_CAP_MS + 1));
        // The stored turns replay to the same clock.
        let (spent, _) = clock.end(Color::White, 0, None);
        assert_eq!(spent.spent_ms, DAY / 4);
        let mut replayed = GameClock::new(control("absolute:3d"), true, time).unwrap();
        for (c, ms) in [
            (Color::White, 2 * DAY),
            (Color::Black, DAY / 2),
            (Color::White, DAY / 4),
        ] {
            replayed.start(c).unwrap();
            assert!(replayed.end(c, 0, Some(ms)).1.is_ok());
        }
        replayed.go_live();
        assert_eq!(replayed.left(Color::White), clock.left(Color::White));
        assert_eq!(replayed.left(Color::Black), clock.left(Color::Black));
    }

    #[test]
    fn game_time_passes_between_the_stretches_away() {
        let away = [(10, 20), (25, 30), (40, 50)];
        assert_eq!(overlap(&away, 0, 100), 25);
        assert_eq!(overlap(&away, 15, 27), 7);
        assert_eq!(overlap(&[], 15, 27), 0);
        // From 12 (away until 20): 3 ms pass by 23; 7 by 32 (20..25 and 30..32); none at once; from 5, 5 ms
        // by the start of the first stretch.
        assert_eq!(passes_by(&away, 12, 3), 23);
        assert_eq!(passes_by(&away, 12, 7), 32);
        assert_eq!(passes_by(&away, 12, 0), 12);
        assert_eq!(passes_by(&away, 5, 5), 10);
        assert_eq!(passes_by(&away, 60, 5), 65);
        assert_eq!(passes_by(&away, 0, 10), 10);
    }

    #[test]
    fn a_stored_turn_past_the_time_is_a_loss_on_replay() {
        let mut clock = GameClock::new(control("absolute:10s"), true, TimeSource::real()).unwrap();
        clock.start(Color::Black).unwrap();
        let (_, on_time) = clock.end(Color::Black, 0, Some(9_000));
        assert!(on_time.is_ok());
        clock.start(Color::White).unwrap();
        let (_, on_time) = clock.end(Color::White, 0, Some(1_000));
        assert!(on_time.is_ok());
        clock.start(Color::Black).unwrap();
        let (time, late) = clock.end(Color::Black, 500, Some(1_600));
        assert_eq!(time.spent_ms, 1_600);
        // 1 s left, 1.6 s spent, 0.5 s of lag credited: 0.1 s too late.
        assert!(matches!(late, Err(ClockError::TimedOut(Color::Black))));
        clock.go_live();
        assert!(clock.view().black.flagged);
    }

    #[test]
    fn only_correspondence_clocks_stop_for_a_vacation() {
        for (spec, stopped) in [
            ("none", false),
            ("fischer:5m+10s", false),
            ("byoyomi:23h+5x30s", false),
            ("correspondence", true),
            ("correspondence:3d", true),
            ("absolute:1d", true),
        ] {
            let control: TimeControl = spec.parse().unwrap();
            assert_eq!(vacation_stops(&control), stopped, "{spec}");
        }
    }
}
