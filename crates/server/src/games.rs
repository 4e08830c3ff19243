//! The games in memory: each a rules-crate `Game` (the truth), its action list, a version and a broadcast
//! channel. An action is checked, committed to the store, applied, and only then answered and broadcast.
//!
//! Only live games (open tables, games in play or in their marking phase) are always in memory. A game that
//! ends moves to a bounded cache of finished games, from which the least recently used one that nobody holds
//! (no watcher, no request in flight) leaves once the cache is full; a finished game asked for again is read
//! from the store and replayed. Listings of finished games read the store's summary rows, never a game.

use std::collections::HashMap;
use std::sync::Arc;

use lru::LruCache;
use serde::Serialize;
use tesuji_bot::mcts::{Decision, MctsBot, MctsConfig};
use tesuji_bot::simple::SimpleBot;
use tesuji_clock::TimeControl;
use tesuji_rules::result::{PlayerScore, Score};
use tesuji_rules::{
    Action, Color, EndRule, Game, Illegal, Move, Phase, Point, Rules, ScoringRule, Size,
};
use tokio::sync::{Mutex, broadcast};

use crate::auth::{Accounts, User};
use crate::clocks::{ClockView, GameClock, TimeSource, TurnTime, has_grace};
use crate::error::ApiError;
use crate::store::{Ending, GameRow, Seats, Store, StoreError, StoredGame, StoredMove};

/// Events buffered per game for slow WebSocket readers; one who falls further behind gets a resync.
const EVENT_BUFFER: usize = 64;

/// One seat's occupant as the API shows it: a user, or the computer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Player {
    User(User),
    Bot { bot: String },
}

#[derive(Clone, Debug, Serialize)]
pub struct Players {
    pub black: Option<Player>,
    pub white: Option<Player>,
}

/// A game as the API shows it.
#[derive(Clone, Debug, Serialize)]
pub struct GameState {
    pub id: i64,
    pub rules: String,
    pub width: u8,
    pub height: u8,
    /// `open` while a seat is empty, then the phase.
    pub status: &'static str,
    pub players: Players,
    pub invite_only: bool,
    /// Rows from the top: `.`, `X` black, `O` white.
    pub board: Vec<String>,
    pub last_move: Option<String>,
    /// Shared with the live game, so that taking a state does not copy every move.
    pub moves: Arc<Vec<MoveView>>,
    pub to_move: &'static str,
    pub phase: &'static str,
    /// SGF's `RE` (`B+R`, `W+3.5`) once the game is over.
    pub result: Option<String>,
    pub score: Option<ScoreView>,
    /// Prisoners taken by each colour.
    pub captures: Pair<u32>,
    pub pass_stones: Pair<u32>,
    /// The dead stones of the current proposal.
    pub dead: Vec<String>,
    /// In the marking phase, the stones whose fate the server's estimate could not settle (docs/API.md): the
    /// players should look at them before accepting. Empty until the estimate is made.
    pub unsure: Vec<String>,
    pub accepted: Pair<bool>,
    /// Both clocks, in a timed game.
    pub clock: Option<ClockView>,
    /// The seated players who are away from the board, in a game with a grace period (docs/API.md).
    pub absent: Vec<AbsentView>,
    /// The self-fill rule (RULES.md §5), when the game has it: the limit and each player's current run.
    pub self_fill: Option<SelfFillView>,
    /// A game voided by repetition (`repetition=void`): the moves after which its final state stood before (0
    /// for the start), as the move list numbers them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repeated: Vec<i64>,
    pub version: u64,
}

/// A player away from the board: no socket open to the game since `absent_ms` ago (or since their last action,
/// the game's start, the server's start). The opponent may claim the game in `claim_in_ms` (0: now).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct AbsentView {
    pub color: &'static str,
    pub absent_ms: u64,
    pub claim_in_ms: u64,
}

/// The self-fill rule's limit and each player's consecutive self-fills.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SelfFillView {
    pub limit: u8,
    pub black: u32,
    pub white: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct MoveView {
    pub number: i64,
    pub color: String,
    #[serde(rename = "move")]
    pub text: String,
}

/// A value for each colour.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Pair<T> {
    pub black: T,
    pub white: T,
}

impl<T: Copy> Pair<T> {
    fn of(v: [T; 2]) -> Pair<T> {
        Pair {
            black: v[Color::Black.index()],
            white: v[Color::White.index()],
        }
    }
}

/// One side of a count (RULES.md §7); komi, bonus and total in half-points.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SideView {
    pub stones: u32,
    pub territory: u32,
    pub shared: u32,
    pub captures: u32,
    pub dead: u32,
    pub pass_stones: u32,
    pub komi: i32,
    pub handicap_bonus: i32,
    pub total: i32,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct ScoreView {
    pub scoring: &'static str,
    pub black: SideView,
    pub white: SideView,
    pub dame: u32,
    /// Black's total minus White's, in half-points.
    pub margin: i32,
}

impl From<&Score> for ScoreView {
    fn from(s: &Score) -> ScoreView {
        let side = |p: &PlayerScore| SideView {
            stones: p.stones,
            territory: p.territory,
            shared: p.shared,
            captures: p.captures,
            dead: p.dead,
            pass_stones: p.pass_stones,
            komi: p.komi,
            handicap_bonus: p.handicap_bonus,
            total: p.total,
        };
        ScoreView {
            scoring: match s.scoring {
                ScoringRule::Area => "area",
                ScoringRule::Territory => "territory",
                ScoringRule::AreaReach => "area-reach",
            },
            black: side(&s.black),
            white: side(&s.white),
            dame: s.dame,
            margin: s.margin(),
        }
    }
}

/// A game in a listing (lobby, a player's history).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub id: i64,
    pub rules: String,
    pub status: &'static str,
    pub players: Players,
    pub invite_only: bool,
    pub moves: usize,
    pub result: Option<String>,
    pub created: i64,
    /// When the game ended (seconds since the Unix epoch), for a finished game read from the store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended: Option<i64>,
}

/// The occupants of a game's seats, `[black, white]`: its seated users, and the computer in its seat.
fn seated(seats: &Seats, users: [Option<User>; 2]) -> [Option<Player>; 2] {
    let mut players = users.map(|u| u.map(Player::User));
    if let Some((kind, color)) = &seats.bot
        && let Ok(c) = color.parse::<Color>()
    {
        players[c.index()] = Some(Player::Bot { bot: kind.clone() });
    }
    players
}

impl Summary {
    /// A listing's entry from the store's row of a game that is not in memory.
    fn of_row(row: GameRow) -> Summary {
        let players = seated(
            &row.seats,
            [row.black.map(User::from), row.white.map(User::from)],
        );
        let status = match row.state.as_str() {
            _ if players.iter().any(Option::is_none) => "open",
            "over" => "over",
            "marking" => "marking",
            _ => "playing",
        };
        let [black, white] = players;
        Summary {
            id: row.id,
            rules: row.rules,
            status,
            players: Players { black, white },
            invite_only: row.seats.invite.is_some(),
            moves: usize::try_from(row.move_count).unwrap_or(0),
            result: row.result,
            created: row.created,
            ended: row.ended,
        }
    }
}

/// A WebSocket event for a change of who is at the board: the state, at the same version.
#[derive(Debug, Serialize)]
struct PresenceEvent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    version: u64,
    state: &'a GameState,
}

/// A WebSocket event: an accepted action with the state it produced.
#[derive(Debug, Serialize)]
pub struct Event<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub version: u64,
    pub action: MoveView,
    pub state: &'a GameState,
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Playing => "playing",
        Phase::Marking => "marking",
        Phase::Over => "over",
    }
}

/// `pass` or a GTP vertex (`D4`) on the game's board: the turns of the rules' text form of an action.
pub fn parse_move(text: &str, rules: &Rules) -> Option<Move> {
    // The colour does not change how a turn reads.
    match Action::parse(Color::Black, text, rules.size) {
        Ok(Action::Turn(_, mv)) => Some(mv),
        _ => None,
    }
}

/// Why a stored game could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("game {id}: rules {rules:?}: {reason}")]
    Rules {
        id: i64,
        rules: String,
        reason: String,
    },
    #[error("game {id}: move {number} ({color} {text}): {reason}")]
    Move {
        id: i64,
        number: i64,
        color: String,
        text: String,
        reason: String,
    },
}

/// What a player asks of a game; the colour comes from the seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Play(Move),
    Resign,
    /// Marking: toggle the chain at the point between dead and alive.
    Dead(Point),
    /// Marking: the server's first proposal, from its estimate (never from a client).
    Propose(Vec<Point>),
    Accept,
    Dispute,
    /// The player's clock ran out (from the server's timer, never from a client).
    Timeout,
    /// The opponent has been away longer than the grace period: they forfeit.
    Claim,
}

/// Who acts: a signed-in user, or the computer in its seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    User(i64),
    Bot,
    /// The server itself, acting for a colour (a loss on time).
    Referee(Color),
}

/// A refused play as answered: a superko refusal names the action after which the position it would repeat
/// stood (each stored action is one action of the game's log), with that position.
fn refusal(game: &Game, color: Color, mv: Move, e: Illegal) -> ApiError {
    let (Err(why), Move::Play(p)) = (game.why(color, mv), mv) else {
        return e.into();
    };
    // The repeated position is the one the play would make.
    let (Some(turn), Some(grid)) = (why.repeats, game.grid_after_play(color, p)) else {
        return e.into();
    };
    ApiError::Superko {
        reason: why.reason,
        repeats: turn_number(game, turn),
        board: crate::replay::grid_rows(&grid),
    }
}

/// The number of the action (as stored and listed) that was the game's `turn`-th turn; 0 for the start. Each
/// stored action is one action of the game's log.
pub(crate) fn turn_number(game: &Game, turn: u32) -> i64 {
    let mut turns = 0;
    let mut number = 0;
    for (k, action) in game.log().iter().enumerate() {
        if turns == turn {
            break;
        }
        if matches!(action, Action::Turn(..)) {
            turns += 1;
            number = k as i64 + 1;
        }
    }
    number
}

/// Applies one stored action's text (`D4`, `pass`, `resign`, `mark C3 C4`, `accept`, `dispute`, `timeout`, and
/// `claim`, stored with the claimer's colour) to a game, read by the rules crate's text form of an action.
fn apply_text(game: &mut Game, color: Color, text: &str) -> Result<(), String> {
    let action = Action::parse(color, text, game.rules().size).map_err(|e| e.to_string())?;
    game.apply_action(action).map_err(|e| e.to_string())
}

fn point_names(points: &[Point], size: Size) -> Vec<String> {
    points.iter().map(|p| p.to_gtp(size)).collect()
}

/// One live game.
pub struct LiveGame {
    pub id: i64,
    pub game: Game,
    pub moves: Vec<StoredMove>,
    pub seats: Seats,
    pub created: i64,
    /// The seats' occupants for display, `[black, white]`.
    pub players: [Option<Player>; 2],
    /// Raised by every accepted action and by the join that fills the second seat.
    pub version: u64,
    /// Serialized events (JSON text), so that each is encoded once whatever the number of watchers.
    pub events: broadcast::Sender<Arc<str>>,
    /// `moves` as the API shows them, shared by the states taken (see [`LiveGame::push_move`]).
    views: Arc<Vec<MoveView>>,
    /// The clocks of a timed game.
    pub clock: Option<GameClock>,
    /// In a timed game, the mover's time left after each turn (play or pass), in order.
    pub times: Vec<(Color, tesuji_clock::Remaining)>,
    presence: Presence,
    /// The estimate of the current marking phase, made when play ends (or when the game is loaded in that
    /// phase), before anyone sees the phase; `None` outside a marking phase, or when the estimate failed (then
    /// nothing is shown as unsure, and there is no first proposal).
    marking: Option<MarkingEstimate>,
}

/// What the estimate says at the end of play: its dead stones (the first proposal) and the stones it is unsure
/// of (shown beside every proposal).
struct MarkingEstimate {
    dead: Vec<Point>,
    unsure: Vec<Point>,
}

impl MarkingEstimate {
    /// The estimate of game `id`'s position, made off the async threads.
    async fn of(id: i64, game: Game) -> Option<MarkingEstimate> {
        let estimate = match tokio::task::spawn_blocking(move || estimate_position(id, &game)).await
        {
            Ok(estimate) => estimate,
            Err(e) => {
                tracing::error!(game = id, error = %e, "the dead-stone estimate failed");
                return None;
            }
        };
        Some(MarkingEstimate {
            dead: estimate.dead(),
            unsure: estimate.unsure(),
        })
    }
}

/// Who is at the board, for the grace period. Never stored: after a restart nobody is connected, and everyone's
/// grace period runs from the restart.
struct Presence {
    time: TimeSource,
    grace_ms: u64,
    /// Open game sockets per signed-in user.
    sockets: HashMap<i64, u32>,
    /// When each seat's player was last known at the board (an action, a look at the game, their last socket
    /// closing, the game's start, the server's start), on `time`'s scale.
    seen_ms: [u64; 2],
    /// Per seat: the `seen_ms` whose grace period's end was announced (see [`Games::watch_grace`]).
    announced: [Option<u64>; 2],
    /// Per seat: the `seen_ms` the watchers last heard of from a look (see [`LiveGame::polled`]).
    told_ms: [u64; 2],
    /// Whether a [`Games::watch_grace`] task runs for this game.
    watching: bool,
}

impl LiveGame {
    fn new(
        id: i64,
        game: Game,
        seats: Seats,
        created: i64,
        players: [Option<Player>; 2],
        time: TimeSource,
        grace_ms: u64,
    ) -> LiveGame {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let now = time.now_ms();
        LiveGame {
            id,
            game,
            moves: Vec::new(),
            version: u64::from(seats.joined),
            seats,
            created,
            players,
            events,
            views: Arc::default(),
            clock: None,
            times: Vec::new(),
            marking: None,
            presence: Presence {
                time,
                grace_ms,
                sockets: HashMap::new(),
                seen_ms: [now; 2],
                announced: [None; 2],
                told_ms: [now; 2],
                watching: false,
            },
        }
    }

    /// Whether the grace period and the claim apply now: both seats filled, not over, under a clock played at
    /// one sitting (see [`has_grace`]).
    fn has_grace(&self) -> bool {
        self.started()
            && self.game.phase() != Phase::Over
            && self.clock.as_ref().is_some_and(|c| has_grace(c.control()))
    }

    /// `color`'s player is away: a user with no socket open to the game. The computer is always present.
    fn away(&self, color: Color) -> bool {
        match &self.players[color.index()] {
            Some(Player::User(u)) => self.presence.sockets.get(&u.id).is_none_or(|&n| n == 0),
            _ => false,
        }
    }

    /// The players away from the board, with the time until their opponent may claim.
    fn absent(&self) -> Vec<AbsentView> {
        if !self.has_grace() {
            return Vec::new();
        }
        let now = self.presence.time.now_ms();
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c))
            .map(|c| {
                let seen = self.presence.seen_ms[c.index()];
                AbsentView {
                    color: c.name(),
                    absent_ms: now.saturating_sub(seen),
                    claim_in_ms: seen
                        .saturating_add(self.presence.grace_ms)
                        .saturating_sub(now),
                }
            })
            .collect()
    }

    /// The next end of a grace period not yet announced: its time, the absent seat, and when that player was
    /// last seen. `None` when no grace period runs.
    fn next_grace_end(&self) -> Option<(u64, Color, u64)> {
        if !self.has_grace() {
            return None;
        }
        [Color::Black, Color::White]
            .into_iter()
            .filter(|&c| self.away(c))
            .map(|c| (c, self.presence.seen_ms[c.index()]))
            .filter(|&(c, seen)| self.presence.announced[c.index()] != Some(seen))
            .map(|(c, seen)| (seen.saturating_add(self.presence.grace_ms), c, seen))
            .min_by_key(|&(end, _, _)| end)
    }

    /// `color`'s player is known to be at the board now.
    fn seen(&mut self, color: Color) {
        self.presence.seen_ms[color.index()] = self.presence.time.now_ms();
    }

    /// Whether `color` may claim the game now; the refusal says why not.
    fn check_claim(&self, color: Color) -> Result<(), ApiError> {
        if self.game.phase() == Phase::Over {
            return Err(Illegal::GameOver.into());
        }
        if !self.has_grace() {
            return Err(ApiError::NoClaim);
        }
        let opponent = color.opponent();
        if !self.away(opponent) {
            return Err(ApiError::OpponentPresent);
        }
        let left = self.presence.seen_ms[opponent.index()]
            .saturating_add(self.presence.grace_ms)
            .saturating_sub(self.presence.time.now_ms());
        if left > 0 {
            return Err(ApiError::GraceNotOver { claim_in_ms: left });
        }
        Ok(())
    }

    /// A game socket of `user` opened (`open`) or closed; the opponent hears of a seated player coming or going.
    pub fn socket(&mut self, user: i64, open: bool) {
        let count = self.presence.sockets.entry(user).or_insert(0);
        let before = *count;
        if open {
            *count += 1;
        } else {
            *count = count.saturating_sub(1);
        }
        let after = *count;
        if after == 0 {
            self.presence.sockets.remove(&user);
        }
        let Some(color) = self.seat_of(Actor::User(user)) else {
            return;
        };
        if !open {
            self.seen(color);
        }
        if (before == 0) != (after == 0) && self.has_grace() {
            let state = self.state();
            self.broadcast_presence(&state);
        }
    }

    /// User `user` asked for the game's state over HTTP. A seated player who does is at the board as much as one
    /// who acts: a client without a socket stays present by asking at least once per grace period. Watchers
    /// count an absent player's grace period down by themselves, so they hear of a look when it closes an open
    /// claim, and otherwise once a quarter of the grace period (a client that looks often is not an event
    /// each time). Returns whether a grace period applies (then [`Games::watch_grace`] must watch it again).
    pub fn polled(&mut self, user: i64) -> bool {
        let Some(color) = self.seat_of(Actor::User(user)) else {
            return false;
        };
        let k = color.index();
        if !self.has_grace() {
            self.seen(color);
            return false;
        }
        let claim_was_open = self.check_claim(color.opponent()).is_ok();
        self.seen(color);
        let now = self.presence.seen_ms[k];
        let stale = now.saturating_sub(self.presence.told_ms[k]) >= self.presence.grace_ms / 4;
        if self.away(color) && (claim_was_open || stale) {
            self.presence.told_ms[k] = now;
            let state = self.state();
            self.broadcast_presence(&state);
        }
        true
    }

    /// Tells the watchers that who is present changed; the version stays (no action was taken).
    fn broadcast_presence(&self, state: &GameState) {
        let event = PresenceEvent {
            kind: "presence",
            version: self.version,
            state,
        };
        if let Ok(text) = serde_json::to_string(&event) {
            let _ = self.events.send(Arc::from(text));
        }
    }

    /// Moves the clock after an action that was applied: the next turn starts when play goes on, the clock
    /// stops for good when the game is over. The marking phase runs no clock.
    fn clock_after(&mut self) {
        let Some(clock) = self.clock.as_mut() else {
            return;
        };
        match self.game.phase() {
            Phase::Playing => {
                let _ = clock.start(self.game.to_move());
            }
            Phase::Over => clock.stop(),
            Phase::Marking => {}
        }
    }

    /// Ends the running turn of `color` for a turn action (a play or a pass): the time it took, and whether it
    /// came in time. `replayed` is the stored time when replaying.
    fn clock_turn(
        &mut self,
        color: Color,
        lag_ms: u64,
        replayed: Option<u64>,
    ) -> Option<(TurnTime, bool)> {
        let clock = self.clock.as_mut()?;
        let (time, on_time) = clock.end(color, lag_ms, replayed);
        Some((time, on_time.is_ok()))
    }

    /// Records an accepted action: in `moves`, and in the list the states share; a turn's time left, for the
    /// SGF record.
    fn push_move(&mut self, m: StoredMove) {
        let size = self.game.rules().size;
        let turn = m.text == "pass" || Point::from_gtp(&m.text, size).is_some();
        if turn && let (Some(clock), Some(color)) = (&self.clock, m.color.parse::<Color>().ok()) {
            self.times.push((color, clock.left(color)));
        }
        // Copies the list only while an older state still holds it.
        Arc::make_mut(&mut self.views).push(MoveView {
            number: m.number,
            color: m.color.clone(),
            text: m.text.clone(),
        });
        self.moves.push(m);
    }

    /// Rebuilds a stored game by replaying its actions through the rules.
    pub fn replay(
        stored: StoredGame,
        players: [Option<Player>; 2],
        time: &TimeSource,
        grace_ms: u64,
    ) -> Result<LiveGame, ReplayError> {
        let rules_error = |reason: String| ReplayError::Rules {
            id: stored.id,
            rules: stored.rules.clone(),
            reason,
        };
        let rules: Rules = stored
            .rules
            .parse()
            .map_err(|e: tesuji_rules::spec::SpecError| rules_error(e.to_string()))?;
        let game = Game::new(rules).map_err(|e| rules_error(e.to_string()))?;
        let clock = match &stored.time_control {
            Some(spec) => Some(
                spec.parse::<TimeControl>()
                    .map_err(|e| rules_error(format!("time control {spec:?}: {e}")))
                    .and_then(|c| {
                        GameClock::new(c, true, time.clone())
                            .map_err(|e| rules_error(e.to_string()))
                    })?,
            ),
            None => None,
        };
        let mut live = LiveGame::new(
            stored.id,
            game,
            stored.seats,
            stored.created,
            players,
            time.clone(),
            grace_ms,
        );
        live.clock = clock;
        if live.started() {
            live.clock_after();
        }
        for m in stored.moves {
            let fail = |reason: String| ReplayError::Move {
                id: stored.id,
                number: m.number,
                color: m.color.clone(),
                text: m.text.clone(),
                reason,
            };
            let color = m
                .color
                .parse::<Color>()
                .ok()
                .ok_or_else(|| fail("unknown colour".into()))?;
            if let Some(spent) = m.spent_ms {
                let lag = u64::try_from(m.lag_ms.unwrap_or(0)).unwrap_or(0);
                live.clock_turn(color, lag, Some(u64::try_from(spent).unwrap_or(0)));
            }
            apply_text(&mut live.game, color, &m.text).map_err(fail)?;
            live.clock_after();
            live.push_move(m);
            live.version += 1;
        }
        if let Some(clock) = live.clock.as_mut() {
            clock.go_live();
        }
        // The server holds many games: none keeps the room a new game reserves for a long one.
        live.game.shrink_to_fit();
        live.moves.shrink_to_fit();
        Ok(live)
    }

    /// Both seats are filled.
    pub fn started(&self) -> bool {
        self.players.iter().all(Option::is_some)
    }

    pub fn status(&self) -> &'static str {
        if self.started() {
            phase_name(self.game.phase())
        } else {
            "open"
        }
    }

    /// The colour of a user's seat.
    pub fn seat_of(&self, actor: Actor) -> Option<Color> {
        match actor {
            Actor::Referee(c) => Some(c),
            Actor::Bot => self
                .seats
                .bot
                .as_ref()
                .and_then(|(_, c)| c.parse::<Color>().ok()),
            Actor::User(id) => [Color::Black, Color::White]
                .into_iter()
                .find(|&c| matches!(&self.players[c.index()], Some(Player::User(u)) if u.id == id)),
        }
    }

    fn players_view(&self) -> Players {
        Players {
            black: self.players[Color::Black.index()].clone(),
            white: self.players[Color::White.index()].clone(),
        }
    }

    pub fn summary(&self) -> Summary {
        Summary {
            id: self.id,
            rules: self.game.rules().to_string(),
            status: self.status(),
            players: self.players_view(),
            invite_only: self.seats.invite.is_some(),
            moves: self.moves.len(),
            result: self.game.result().map(|r| r.to_string()),
            created: self.created,
            ended: None,
        }
    }

    pub fn state(&self) -> GameState {
        let rules = self.game.rules();
        let size = rules.size;
        let board = crate::replay::grid_rows(&self.game.grid());
        let last_move = self
            .moves
            .last()
            .filter(|m| Point::from_gtp(&m.text, size).is_some())
            .map(|m| m.text.clone());
        let result = self.game.result();
        GameState {
            id: self.id,
            rules: rules.to_string(),
            width: size.width(),
            height: size.height(),
            status: self.status(),
            players: self.players_view(),
            invite_only: self.seats.invite.is_some(),
            board,
            last_move,
            moves: if self.views.len() == self.moves.len() {
                Arc::clone(&self.views)
            } else {
                // `moves` was changed without `push_move`.
                Arc::new(
                    self.moves
                        .iter()
                        .map(|m| MoveView {
                            number: m.number,
                            color: m.color.clone(),
                            text: m.text.clone(),
                        })
                        .collect(),
                )
            },
            to_move: self.game.to_move().name(),
            phase: phase_name(self.game.phase()),
            result: result.map(|r| r.to_string()),
            score: result.and_then(|r| r.score.as_ref()).map(ScoreView::from),
            captures: Pair::of(self.game.captures()),
            pass_stones: Pair::of(self.game.pass_stones()),
            dead: point_names(self.game.dead_stones(), size),
            unsure: match (&self.marking, self.game.phase()) {
                (Some(m), Phase::Marking) => point_names(&m.unsure, size),
                _ => Vec::new(),
            },
            accepted: Pair::of(self.game.acceptances()),
            clock: self.clock.as_ref().map(GameClock::view),
            absent: self.absent(),
            self_fill: rules.self_fill.map(|limit| {
                let runs = self.game.self_fill_runs();
                SelfFillView {
                    limit,
                    black: runs[Color::Black.index()],
                    white: runs[Color::White.index()],
                }
            }),
            repeated: self
                .game
                .repetition_turns()
                .into_iter()
                .map(|t| turn_number(&self.game, t))
                .collect(),
            version: self.version,
        }
    }

    /// The game's SGF record, with the clock's times when timed.
    pub fn sgf(&self) -> String {
        let text = crate::replay::game_sgf(self);
        match &self.clock {
            Some(clock) => crate::clocks::sgf_with_times(text, clock.control(), &self.times),
            None => text,
        }
    }

    /// Sends an event to the game's watchers, encoded once.
    fn broadcast(&self, kind: &'static str, action: MoveView, state: &GameState) {
        let event = Event {
            kind,
            version: self.version,
            action,
            state,
        };
        if let Ok(text) = serde_json::to_string(&event) {
            // No receivers is not an error: nobody is watching.
            let _ = self.events.send(Arc::from(text));
        }
    }

    /// Whether the computer should act now, and how.
    fn bot_turn(&self) -> Option<Color> {
        let color = self.seat_of(Actor::Bot)?;
        match self.game.phase() {
            Phase::Playing if self.game.to_move() == color => Some(color),
            // The computer accepts the proposal its opponent has accepted: it never argues over dead stones.
            Phase::Marking
                if self.game.acceptances()[color.opponent().index()]
                    && !self.game.acceptances()[color.index()] =>
            {
                Some(color)
            }
            _ => None,
        }
    }
}

/// How a new table's seats are filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    Anyone,
    Invite,
    Bot(String),
}

/// A new table.
#[derive(Clone, Debug)]
pub struct NewTable {
    pub rules: String,
    /// `None`: drawn at random.
    pub color: Option<Color>,
    pub opponent: Opponent,
    /// The time control's spec; `None`: untimed.
    pub time: Option<String>,
}

/// The bots a table may choose: the stopgap bot, and tree search at three strengths (1,000 and 5,000 playouts a
/// move, and one second a move on one thread).
pub const BOTS: &[&str] = &["simple", "mcts-1", "mcts-2", "mcts-3"];

/// The search settings of the bot `kind` (`None`: the simple bot). Under a clock (`budget`) the search never
/// thinks longer than the clock allows; a strength's playout count still holds when it is reached first.
fn search_config(kind: &str, budget: Option<std::time::Duration>) -> Option<MctsConfig> {
    let mut config = match kind {
        "mcts-1" => MctsConfig::playouts(1_000),
        "mcts-2" => MctsConfig::playouts(5_000),
        "mcts-3" => MctsConfig {
            threads: 1,
            ..MctsConfig::default()
        },
        _ => return None,
    };
    if let Some(budget) = budget {
        config.time = Some(config.time.map_or(budget, |t| t.min(budget)));
    }
    Some(config)
}

/// The estimate of game `id`'s position at the end of play. Its seed comes from the game and the turns played,
/// which no marking action changes, so the estimate made when play ended and the one made again after a
/// restart are the same (the players see the same unsure stones).
fn estimate_position(id: i64, game: &Game) -> tesuji_bot::estimate::Estimate {
    let seed = u64::try_from(id).unwrap_or(0) ^ u64::from(game.turns());
    let playouts = tesuji_bot::estimate::default_playouts(game.rules().size);
    tesuji_bot::estimate::estimate(game, playouts, seed)
}

/// The computer's choice in `game` as the bot `kind`, within `budget` when the game has a clock.
fn bot_choice(kind: &str, game: &Game, seed: u64, budget: Option<std::time::Duration>) -> Request {
    let cleanup = game.rules().end == EndRule::Score;
    let Some(config) = search_config(kind, budget) else {
        return Request::Play(SimpleBot::new(seed).choose(game, cleanup));
    };
    match MctsBot::new(config, seed).choose(game, game.rules(), cleanup) {
        Decision::Play(mv) => Request::Play(mv),
        Decision::Resign => Request::Resign,
    }
}

/// A game in memory, shared by the requests, sockets and timers that use it.
pub type Entry = Arc<Mutex<LiveGame>>;

/// The games in memory: every live game, and the finished games of the cache, the most recently used first.
struct Resident {
    live: HashMap<i64, Entry>,
    finished: LruCache<i64, Entry>,
}

impl Resident {
    /// Lets finished games beyond `cap` go, the least recently used first, skipping those still held (a
    /// watcher's socket, a request in flight): they go at a later trim. Returns them, to be dropped outside
    /// the lock.
    fn trim(&mut self, cap: usize) -> Vec<Entry> {
        let excess = self.finished.len().saturating_sub(cap);
        if excess == 0 {
            return Vec::new();
        }
        let idle: Vec<i64> = self
            .finished
            .iter()
            .rev()
            .filter(|(_, entry)| Arc::strong_count(entry) == 1)
            .map(|(&id, _)| id)
            .take(excess)
            .collect();
        idle.into_iter()
            .filter_map(|id| self.finished.pop(&id))
            .collect()
    }
}

/// How many games are in memory: live, and finished in the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidentCount {
    pub live: usize,
    pub finished: usize,
}

/// All games in memory and the store they are committed to; the accounts name their players.
pub struct Games {
    store: Arc<dyn Store>,
    accounts: Arc<Accounts>,
    resident: std::sync::Mutex<Resident>,
    /// The most finished games kept in memory when nobody holds them.
    finished_cache: usize,
    /// Each live game's listing, kept beside the game so that listings never wait on a game's lock.
    summaries: std::sync::RwLock<HashMap<i64, Summary>>,
    /// Raised whenever a listing changes; the lobby sockets re-read then.
    pub lobby: broadcast::Sender<()>,
    /// The time of every clock and timer.
    time: TimeSource,
    /// The disconnected player's grace period.
    grace_ms: u64,
    /// Whether the end of play brings the estimate's first proposal.
    first_proposal: bool,
}

/// Finished games whose summary is filled in per round at start (see [`Games::summarize_old`]).
const SUMMARY_ROUND: usize = 200;

impl Games {
    /// Fills in the summary rows of games that ended before summaries were kept, replaying each once.
    async fn summarize_old(store: &Arc<dyn Store>) -> Result<(), crate::ServerError> {
        let mut done = 0usize;
        loop {
            let ids = store.unsummarized_games(SUMMARY_ROUND).await?;
            if ids.is_empty() {
                break;
            }
            for id in ids {
                let Some(stored) = store.load_game(id).await? else {
                    continue;
                };
                let created = stored.created;
                // A game that no longer replays gets an empty summary, so that it is not tried at every start.
                let result = match tokio::task::spawn_blocking(move || {
                    LiveGame::replay(stored, [None, None], &TimeSource::real(), 0)
                })
                .await
                {
                    Ok(Ok(live)) => live.game.result().map(|r| r.to_string()),
                    Ok(Err(e)) => {
                        tracing::error!(error = %e, "a finished game could not be rebuilt for its summary");
                        None
                    }
                    Err(e) => {
                        tracing::error!(game = id, error = %e, "summarizing a finished game failed");
                        None
                    }
                };
                // The end time was not kept: the creation time stands for it.
                let ending = Ending {
                    result,
                    ended: created,
                };
                store.set_ending(id, &ending).await?;
                done += 1;
            }
        }
        if done > 0 {
            tracing::info!(
                games = done,
                "summaries of earlier finished games filled in"
            );
        }
        Ok(())
    }

    /// Replays the live games (open tables, games in play, games in their marking phase); the computer moves
    /// where it was its turn. Finished games stay in the store until asked for.
    pub async fn load(
        store: Arc<dyn Store>,
        accounts: Arc<Accounts>,
        config: &crate::ServerConfig,
    ) -> Result<Arc<Games>, crate::ServerError> {
        Self::summarize_old(&store).await?;
        let time = config.time.clone();
        let grace_ms = config.grace_ms;
        let mut games = HashMap::new();
        let mut summaries = HashMap::new();
        for id in store.live_game_ids().await? {
            let Some(stored) = store.load_game(id).await? else {
                continue;
            };
            let players = Self::players_of(&accounts, &stored.seats).await?;
            // One game that no longer replays (say, after a rules change) must not keep every other game
            // offline: it is left out, loudly, and its rows stay in the database for a later fix.
            let live = match LiveGame::replay(stored, players, &time, grace_ms) {
                Ok(live) => live,
                Err(e) => {
                    tracing::error!(error = %e, "a stored game could not be rebuilt; it is not served");
                    continue;
                }
            };
            summaries.insert(live.id, live.summary());
            games.insert(live.id, live);
        }
        // The estimates of the games in their marking phase again (all at once), before anyone sees them, so
        // that their unsure stones are those shown before the restart.
        let estimates = futures_util::future::join_all(
            games
                .values()
                .filter(|live| live.game.phase() == Phase::Marking)
                .map(|live| {
                    let (id, game) = (live.id, live.game.clone());
                    async move { (id, MarkingEstimate::of(id, game).await) }
                }),
        )
        .await;
        for (id, estimate) in estimates {
            if let Some(live) = games.get_mut(&id) {
                live.marking = estimate;
            }
        }
        let mut resident = Resident {
            live: HashMap::new(),
            finished: LruCache::unbounded(),
        };
        for (id, live) in games {
            // A game whose row says it goes on but whose moves end it (a crash between the two cannot
            // happen: they are one transaction) would be one of these; it is served as finished.
            let over = live.game.phase() == Phase::Over;
            let entry = Arc::new(Mutex::new(live));
            if over {
                summaries.remove(&id);
                resident.finished.put(id, entry);
            } else {
                resident.live.insert(id, entry);
            }
        }
        let (lobby, _) = broadcast::channel(16);
        let games = Arc::new(Games {
            store,
            accounts,
            resident: std::sync::Mutex::new(resident),
            finished_cache: config.finished_cache,
            summaries: std::sync::RwLock::new(summaries),
            lobby,
            time,
            grace_ms,
            first_proposal: config.first_proposal,
        });
        let ids: Vec<i64> = games.registry().live.keys().copied().collect();
        for id in ids {
            games.wake(id);
        }
        Ok(games)
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Resident> {
        self.resident.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn players_of(
        accounts: &Accounts,
        seats: &Seats,
    ) -> Result<[Option<Player>; 2], StoreError> {
        let mut users = accounts
            .users(&[seats.black, seats.white])
            .await?
            .into_iter();
        let (black, white) = (users.next().flatten(), users.next().flatten());
        Ok(seated(seats, [black, white]))
    }

    /// How many games are in memory now.
    pub fn resident(&self) -> ResidentCount {
        let r = self.registry();
        ResidentCount {
            live: r.live.len(),
            finished: r.finished.len(),
        }
    }

    /// A live game, if game `id` is one: what the timers act on (never a finished game read back).
    fn live_entry(&self, id: i64) -> Option<Entry> {
        self.registry().live.get(&id).cloned()
    }

    /// Game `id`: from memory, or else read from the store (a finished game) into the cache.
    pub async fn get(&self, id: i64) -> Result<Entry, ApiError> {
        {
            let mut r = self.registry();
            if let Some(entry) = r.live.get(&id) {
                return Ok(Arc::clone(entry));
            }
            if let Some(entry) = r.finished.get(&id) {
                return Ok(Arc::clone(entry));
            }
        }
        let Some(stored) = self.store.load_game(id).await? else {
            return Err(ApiError::NotFound(id));
        };
        if stored.state != "over" {
            // Live games are all in memory: this one was created a moment ago (look again), or could not be
            // rebuilt at start (it is not served).
            return self
                .registry()
                .live
                .get(&id)
                .cloned()
                .ok_or(ApiError::NotFound(id));
        }
        let players = Self::players_of(&self.accounts, &stored.seats).await?;
        let (time, grace_ms) = (self.time.clone(), self.grace_ms);
        let live = tokio::task::spawn_blocking(move || {
            LiveGame::replay(stored, players, &time, grace_ms)
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
        .map_err(|e| {
            tracing::error!(error = %e, "a stored game could not be rebuilt; it is not served");
            ApiError::NotFound(id)
        })?;
        let (entry, gone) = {
            let mut r = self.registry();
            // Another request may have read it meanwhile: one copy is kept.
            let entry = match r.finished.get(&id) {
                Some(entry) => Arc::clone(entry),
                None => {
                    let entry = Arc::new(Mutex::new(live));
                    r.finished.put(id, Arc::clone(&entry));
                    entry
                }
            };
            (entry, r.trim(self.finished_cache))
        };
        drop(gone);
        Ok(entry)
    }

    /// Lets finished games nobody holds leave memory beyond the cache's size; after a watcher leaves, and
    /// now and then.
    pub fn trim(&self) {
        let gone = self.registry().trim(self.finished_cache);
        drop(gone);
    }

    /// Game `id` has ended: it moves from the live games to the finished ones, and leaves the lobby.
    fn retire(&self, id: i64) {
        let gone = {
            let mut r = self.registry();
            if let Some(entry) = r.live.remove(&id) {
                r.finished.put(id, entry);
            }
            r.trim(self.finished_cache)
        };
        drop(gone);
    }

    /// Updates a live game's listing; a finished game leaves the listings of live games.
    fn set_summary(&self, live: &LiveGame) {
        if live.game.phase() == Phase::Over {
            let removed = self
                .summaries
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&live.id);
            if removed.is_some() {
                let _ = self.lobby.send(());
            }
            return;
        }
        let summary = live.summary();
        let changed = {
            let mut all = self.summaries.write().unwrap_or_else(|e| e.into_inner());
            let before = all.insert(live.id, summary.clone());
            before.is_none_or(|b| {
                b.status != summary.status
                    || b.players.black != summary.players.black
                    || b.players.white != summary.players.white
                    || b.moves != summary.moves
            })
        };
        if changed {
            let _ = self.lobby.send(());
        }
    }

    /// A page of the games in which `user` sits, newest first: read from the store, with the live games'
    /// entries from memory (their moves and states are newer than the rows).
    pub async fn player_page(
        &self,
        user: i64,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Summary>, ApiError> {
        let rows = self.store.player_games(user, before, limit).await?;
        Ok(self.listed(rows))
    }

    /// A page of the finished games, the most recently ended first, after game `before` in that order.
    pub async fn finished_page(
        &self,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Summary>, ApiError> {
        let rows = self.store.finished_games(before, limit).await?;
        Ok(self.listed(rows))
    }

    fn listed(&self, rows: Vec<GameRow>) -> Vec<Summary> {
        let live = self.summaries.read().unwrap_or_else(|e| e.into_inner());
        rows.into_iter()
            .map(|row| match live.get(&row.id) {
                Some(summary) => summary.clone(),
                None => Summary::of_row(row),
            })
            .collect()
    }

    /// Live games' listings matching a filter, newest first, at most `limit`.
    pub fn summaries(&self, filter: impl Fn(&Summary) -> bool, limit: usize) -> Vec<Summary> {
        let all = self.summaries.read().unwrap_or_else(|e| e.into_inner());
        let mut found: Vec<Summary> = all.values().filter(|s| filter(s)).cloned().collect();
        found.sort_unstable_by_key(|s| std::cmp::Reverse(s.id));
        found.truncate(limit);
        found
    }

    /// Creates a table from a rules spec and seats its creator; against the computer the game starts at once.
    /// Returns the state and the invite token.
    pub async fn create(
        self: &Arc<Self>,
        creator: &User,
        table: NewTable,
    ) -> Result<(GameState, Option<String>), ApiError> {
        let rules: Rules = table
            .rules
            .parse()
            .map_err(|e: tesuji_rules::spec::SpecError| ApiError::BadRules(e.to_string()))?;
        let control = table
            .time
            .as_deref()
            .map(|t| {
                t.parse::<TimeControl>()
                    .map_err(|e| ApiError::BadRequest(format!("bad time control: {e}")))
            })
            .transpose()?
            .filter(TimeControl::is_timed);
        let mut rules = rules;
        if control.is_none() && rules.self_fill.is_some() {
            return Err(ApiError::BadRules(
                "self-fill needs a clock (RULES.md §5): choose a time control or self-fill=off"
                    .into(),
            ));
        }
        // The ideal rules' self-fill rule holds in every timed game under them, with our automatic referee.
        if control.is_some() && rules.self_fill.is_none() && table.rules.trim().starts_with("ideal")
        {
            rules.self_fill = Some(10);
        }
        let mut game = Game::new(rules).map_err(|e| ApiError::BadRules(e.to_string()))?;
        game.shrink_to_fit();
        let canonical = game.rules().to_string();
        let clock = control
            .map(|c| GameClock::new(c, false, self.time.clone()))
            .transpose()
            .map_err(|e| ApiError::BadRequest(format!("bad time control: {e}")))?;
        let color = table.color.unwrap_or_else(|| {
            if rand::random::<bool>() {
                Color::Black
            } else {
                Color::White
            }
        });
        let mut seats = Seats {
            opponent: match &table.opponent {
                Opponent::Anyone => "anyone",
                Opponent::Invite => "invite",
                Opponent::Bot(_) => "bot",
            }
            .to_owned(),
            ..Seats::default()
        };
        match color {
            Color::Black => seats.black = Some(creator.id),
            Color::White => seats.white = Some(creator.id),
        }
        match &table.opponent {
            Opponent::Anyone => {}
            Opponent::Invite => {
                let token: [u8; 16] = rand::random();
                seats.invite = Some(token.iter().map(|b| format!("{b:02x}")).collect());
            }
            Opponent::Bot(kind) => {
                if !BOTS.contains(&kind.as_str()) {
                    return Err(ApiError::BadRequest(format!(
                        "unknown bot {kind:?}; bots: {}",
                        BOTS.join(", ")
                    )));
                }
                seats.bot = Some((kind.clone(), color.opponent().name().to_owned()));
            }
        }
        let id = self
            .store
            .create_game(
                &canonical,
                phase_name(game.phase()),
                &seats,
                control.map(|c| c.to_string()).as_deref(),
            )
            .await?;
        let invite = seats.invite.clone();
        let players = Self::players_of(&self.accounts, &seats).await?;
        let mut live = LiveGame::new(
            id,
            game,
            seats,
            crate::store::sqlite::now(),
            players,
            self.time.clone(),
            self.grace_ms,
        );
        live.clock = clock;
        if live.started() {
            live.clock_after();
        }
        let state = live.state();
        self.set_summary(&live);
        self.registry().live.insert(id, Arc::new(Mutex::new(live)));
        self.wake(id);
        Ok((state, invite))
    }

    /// Seats a user in a table's empty seat.
    pub async fn join(
        self: &Arc<Self>,
        id: i64,
        user: &User,
        invite: Option<&str>,
    ) -> Result<GameState, ApiError> {
        let entry = self.get(id).await?;
        let mut live = entry.lock().await;
        if live.seat_of(Actor::User(user.id)).is_some() {
            return Err(ApiError::AlreadySeated);
        }
        let Some(color) = [Color::Black, Color::White]
            .into_iter()
            .find(|c| live.players[c.index()].is_none())
        else {
            return Err(ApiError::SeatTaken);
        };
        if let Some(token) = &live.seats.invite
            && invite != Some(token.as_str())
        {
            return Err(ApiError::BadInvite);
        }
        match self.store.join_game(id, color.name(), user.id).await {
            Err(StoreError::SeatTaken { .. }) => return Err(ApiError::SeatTaken),
            other => other?,
        }
        match color {
            Color::Black => live.seats.black = Some(user.id),
            Color::White => live.seats.white = Some(user.id),
        }
        live.seats.joined = true;
        live.players[color.index()] = Some(Player::User(user.clone()));
        live.version += 1;
        // The game starts now, and with it the first player's clock and both grace periods.
        live.clock_after();
        live.seen(Color::Black);
        live.seen(Color::White);
        let state = live.state();
        live.broadcast(
            "join",
            MoveView {
                number: 0,
                color: color.name().to_owned(),
                text: user.name.clone(),
            },
            &state,
        );
        self.set_summary(&live);
        drop(live);
        self.wake(id);
        Ok(state)
    }

    /// Checks an action with the rules, applies it, commits it, broadcasts it, and returns the new state.
    /// It runs as its own task: a client hanging up must not cancel it between the rules and the commit.
    pub async fn act(
        self: &Arc<Self>,
        id: i64,
        actor: Actor,
        request: Request,
        expected_version: Option<u64>,
        lag_ms: u64,
    ) -> Result<GameState, ApiError> {
        let games = Arc::clone(self);
        let state = tokio::spawn(async move {
            games
                .act_now(id, actor, request, expected_version, lag_ms)
                .await
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
        self.wake(id);
        // A game this action ended may leave memory now that the action no longer holds it; other actions
        // leave the cache as it was, so the registry's lock stays off their path.
        if state.phase == "over" {
            self.trim();
        }
        Ok(state)
    }

    /// After a change to game `id`: the computer's turn, and the timer of the running clock.
    pub fn wake(self: &Arc<Self>, id: i64) {
        self.wake_bot(id);
        self.watch_clock(id);
        self.watch_grace(id);
    }

    /// Announces the end of an absent player's grace period: watchers get a `presence` event whose state shows
    /// the claim open (`claim_in_ms` 0), so that no client has to count down by itself. One task per game at
    /// most; it runs while a grace period does, and checks again on waking, since the player may have come back
    /// or acted meanwhile (and a later absence ends later: the grace period is the same for all).
    pub fn watch_grace(self: &Arc<Self>, id: i64) {
        let games = Arc::clone(self);
        tokio::spawn(async move {
            let Some(entry) = games.live_entry(id) else {
                return;
            };
            {
                let mut live = entry.lock().await;
                if live.presence.watching {
                    return;
                }
                live.presence.watching = true;
            }
            loop {
                let (end, color, seen) = {
                    let mut live = entry.lock().await;
                    match live.next_grace_end() {
                        Some(next) => next,
                        None => {
                            live.presence.watching = false;
                            return;
                        }
                    }
                };
                games.time.sleep_until(end).await;
                let mut live = entry.lock().await;
                if live.next_grace_end() == Some((end, color, seen)) && games.time.now_ms() >= end {
                    live.presence.announced[color.index()] = Some(seen);
                    let state = live.state();
                    live.broadcast_presence(&state);
                }
            }
        });
    }

    /// Waits for the running clock of game `id` to run out, then records the loss on time. Every action starts
    /// a new watch; an older one sees the version move and ends.
    pub fn watch_clock(self: &Arc<Self>, id: i64) {
        let games = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                let Some(entry) = games.live_entry(id) else {
                    return;
                };
                let (deadline, version) = {
                    let live = entry.lock().await;
                    if live.game.phase() != Phase::Playing || !live.started() {
                        return;
                    }
                    // The deadline is taken under the lock, so that time passing before the sleep starts
                    // does not move it.
                    match live.clock.as_ref().and_then(GameClock::until_flag_ms) {
                        Some(ms) => (games.time.now_ms().saturating_add(ms), live.version),
                        None => return,
                    }
                };
                games.time.sleep_until(deadline).await;
                let color = {
                    let live = entry.lock().await;
                    if live.version != version {
                        return;
                    }
                    match live
                        .clock
                        .as_ref()
                        .map(|c| (c.until_flag_ms(), c.running()))
                    {
                        Some((Some(0), Some(color))) => color,
                        // Not yet (a paused or adjusted clock): wait again.
                        Some((Some(_), _)) => continue,
                        _ => return,
                    }
                };
                let done = games
                    .act_now(
                        id,
                        Actor::Referee(color),
                        Request::Timeout,
                        Some(version),
                        0,
                    )
                    .await;
                if let Err(e) = done
                    && !matches!(e, ApiError::StaleVersion { .. })
                {
                    tracing::warn!(game = id, error = %e, "recording a loss on time failed");
                }
                games.wake_bot(id);
                return;
            }
        });
    }

    /// The body of [`Games::act`]. The game's lock is held throughout, so actions on one game are serialized
    /// and versions have no gaps.
    async fn act_now(
        &self,
        id: i64,
        actor: Actor,
        request: Request,
        expected_version: Option<u64>,
        lag_ms: u64,
    ) -> Result<GameState, ApiError> {
        let entry = self.get(id).await?;
        let mut live = entry.lock().await;
        let was_playing = live.game.phase() == Phase::Playing;
        let state = self
            .act_locked(&mut live, id, actor, request, expected_version, lag_ms)
            .await?;
        if !(self.first_proposal && was_playing && live.game.phase() == Phase::Marking) {
            return Ok(state);
        }
        // Play has just ended: the estimate's dead stones become the first proposal, stored as the referee's
        // `mark` for the player who ended play, before anyone can act in the phase (the players still decide:
        // they may change it, accept it or dispute).
        let ender = live.seat_of(actor).unwrap_or(Color::Black);
        let Some(dead) = live.marking.as_ref().map(|m| m.dead.clone()) else {
            return Ok(state);
        };
        let proposal = Request::Propose(dead);
        match self
            .act_locked(&mut live, id, Actor::Referee(ender), proposal, None, 0)
            .await
        {
            Ok(state) => Ok(state),
            Err(e) => {
                tracing::warn!(game = id, error = %e, "storing the first proposal failed");
                Ok(state)
            }
        }
    }

    /// [`Games::act_now`] on a locked game.
    async fn act_locked(
        &self,
        live: &mut LiveGame,
        id: i64,
        actor: Actor,
        request: Request,
        expected_version: Option<u64>,
        lag_ms: u64,
    ) -> Result<GameState, ApiError> {
        let color = live.seat_of(actor).ok_or(ApiError::NotSeated)?;
        if !live.started() {
            return Err(ApiError::NotStarted);
        }
        if let Some(v) = expected_version
            && v != live.version
        {
            return Err(ApiError::StaleVersion {
                expected: v,
                current: live.version,
            });
        }
        let size = live.game.rules().size;
        let (kind, text) = match &request {
            Request::Play(mv) => ("move", Action::Turn(color, *mv).text(size)),
            Request::Resign => ("resign", "resign".to_owned()),
            Request::Dead(p) => {
                if !size.contains(*p) {
                    return Err(Illegal::OffBoard { point: *p }.into());
                }
                ("mark", String::new())
            }
            Request::Propose(_) => ("mark", String::new()),
            Request::Accept => ("accept", "accept".to_owned()),
            Request::Dispute => ("dispute", "dispute".to_owned()),
            Request::Timeout => ("timeout", "timeout".to_owned()),
            Request::Claim => {
                live.check_claim(color)?;
                ("claim", "claim".to_owned())
            }
        };
        // A turn (play or pass) ends its player's clock; legality first, so that a refused move changes no clock.
        // A turn that came too late is a loss on time instead of a move.
        let clock_before = live.clock.clone();
        let mut turn_time = None;
        let mut request = request;
        let (mut kind, mut text) = (kind, text);
        if let Request::Play(mv) = &request
            && live.game.phase() == Phase::Playing
            && live.clock.is_some()
        {
            live.game.check(color, *mv)?;
            if let Some((time, on_time)) = live.clock_turn(color, lag_ms, None) {
                turn_time = Some(time);
                if !on_time {
                    request = Request::Timeout;
                    (kind, text) = ("timeout", "timeout".to_owned());
                }
            }
        }
        if request == Request::Timeout
            && turn_time.is_none()
            && let Some(clock) = live.clock.as_ref()
        {
            // From the timer: the time the turn had run when the flag fell.
            turn_time = Some(clock.turn_time());
        }
        // Applied before the commit so the stored state column is the new one; a failed commit undoes it, so
        // the live game never runs ahead of the database (undo replays the log: slow, but only on failure).
        match &request {
            Request::Play(mv) => {
                if let Err(e) = live.game.play(color, *mv) {
                    return Err(refusal(&live.game, color, *mv, e));
                }
            }
            Request::Resign => live.game.resign(color)?,
            Request::Dead(p) => live.game.toggle_dead(color, *p)?,
            Request::Propose(points) => live.game.propose(color, points)?,
            Request::Accept => live.game.accept(color)?,
            Request::Dispute => live.game.dispute(color)?,
            Request::Timeout => {
                if let Err(e) = live.game.timeout(color) {
                    live.clock = clock_before;
                    return Err(e.into());
                }
            }
            Request::Claim => live.game.forfeit(color.opponent())?,
        }
        live.clock_after();
        let text = if kind == "mark" {
            let mut t = "mark".to_owned();
            for p in live.game.dead_stones() {
                t.push(' ');
                t.push_str(&p.to_gtp(size));
            }
            t
        } else {
            text
        };
        let number = match i64::try_from(live.moves.len() + 1) {
            Ok(n) => n,
            Err(_) => {
                live.game.undo();
                live.clock = clock_before;
                return Err(ApiError::TooManyMoves);
            }
        };
        let as_i64 = |ms: u64| i64::try_from(ms).unwrap_or(i64::MAX);
        let stored = StoredMove {
            number,
            color: color.name().to_owned(),
            text,
            spent_ms: turn_time.map(|t| as_i64(t.spent_ms)),
            lag_ms: turn_time.map(|t| as_i64(t.lag_ms)),
        };
        let phase = phase_name(live.game.phase());
        let ending = (live.game.phase() == Phase::Over).then(|| Ending {
            result: live.game.result().map(|r| r.to_string()),
            ended: crate::store::sqlite::now(),
        });
        if let Err(e) = self
            .store
            .append_move(id, &stored, phase, ending.as_ref())
            .await
        {
            live.game.undo();
            live.clock = clock_before;
            return Err(match e {
                StoreError::Conflict { .. } => ApiError::Internal(e.to_string()),
                other => other.into(),
            });
        }
        live.push_move(stored.clone());
        live.version += 1;
        if live.game.phase() != Phase::Marking {
            // A later marking phase (after a dispute) gets an estimate of its own. (Cleared only now: an action
            // that fails to commit is undone, and its marking phase keeps its estimate.)
            live.marking = None;
        } else if live.marking.is_none() {
            // Play has just ended: the estimate, made while the game is locked, so that the first state of
            // the phase (and its event) already shows the unsure stones.
            live.marking = MarkingEstimate::of(id, live.game.clone()).await;
        }
        if let Actor::User(_) = actor {
            live.seen(color);
        }
        let state = live.state();
        live.broadcast(
            kind,
            MoveView {
                number: stored.number,
                color: stored.color,
                text: stored.text,
            },
            &state,
        );
        self.set_summary(live);
        if ending.is_some() {
            self.retire(id);
        }
        Ok(state)
    }

    /// Lets the computer act in game `id` if it is its turn; runs in the background.
    pub fn wake_bot(self: &Arc<Self>, id: i64) {
        let games = Arc::clone(self);
        tokio::spawn(async move {
            // Several actions in a row (a move, then an accept) are each a turn of their own.
            for _ in 0..4 {
                let Some(entry) = games.live_entry(id) else {
                    return;
                };
                let (color, game, version, kind, budget) = {
                    let live = entry.lock().await;
                    if !live.started() {
                        return;
                    }
                    let kind = live
                        .seats
                        .bot
                        .as_ref()
                        .map_or_else(String::new, |(k, _)| k.clone());
                    match live.bot_turn() {
                        Some(c) => {
                            let budget = live.clock.as_ref().and_then(|clock| {
                                let empty = live.game.board().empty_points().len();
                                tesuji_bot::time::budget(clock.control(), &clock.left(c), empty)
                            });
                            (c, live.game.clone(), live.version, kind, budget)
                        }
                        None => return,
                    }
                };
                let request = if game.phase() == Phase::Marking {
                    Request::Accept
                } else {
                    let seed = u64::try_from(id).unwrap_or(0) ^ version.rotate_left(32);
                    match tokio::task::spawn_blocking(move || {
                        bot_choice(&kind, &game, seed, budget)
                    })
                    .await
                    {
                        Ok(request) => request,
                        Err(_) => return,
                    }
                };
                // The version pins the position the move was chosen for; a stale one means someone else acted.
                match games
                    .act_now(id, Actor::Bot, request, Some(version), 0)
                    .await
                {
                    Ok(_) => {}
                    Err(e) => {
                        if !matches!(e, ApiError::StaleVersion { .. }) {
                            tracing::warn!(game = id, error = %e, ?color, "the computer could not act");
                        }
                        return;
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_clock_caps_the_computers_thinking_time() {
        // Without a clock: each strength as it is.
        assert_eq!(search_config("simple", None), None);
        assert_eq!(search_config("mcts-2", None).unwrap().time, None);
        assert_eq!(
            search_config("mcts-3", None).unwrap().time,
            Some(Duration::from_secs(1))
        );
        // With one: the clock's budget bounds the search, and a shorter own time stays.
        let short = Duration::from_millis(300);
        let c = search_config("mcts-2", Some(short)).unwrap();
        assert_eq!((c.playouts, c.time), (Some(5_000), Some(short)));
        assert_eq!(
            search_config("mcts-3", Some(short)).unwrap().time,
            Some(short)
        );
        let long = Duration::from_secs(30);
        assert_eq!(
            search_config("mcts-3", Some(long)).unwrap().time,
            Some(Duration::from_secs(1))
        );
    }
}
